"""Helpers shared by the HTTP tests: drive a game through the pages, read forms and the database.

Everything here goes through the same requests a phone sends; the database is only read.
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from scorekeeper.db import db
from scorekeeper.models import Game, GameRound, Player, Result, Seat

VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


def text_of(response_or_html) -> str:
    """Visible text of a response or an HTML string, whitespace collapsed."""
    html = response_or_html if isinstance(response_or_html, str) else response_or_html.get_data(as_text=True)
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", html)
    text = text.replace("&amp;", "&").replace("&#39;", "'").replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
    return " ".join(text.split())


# -- a client that treats any 500 as a test failure ----------------------------------------


class NoServerErrorClient(FlaskClient):
    """Every request (redirects followed too) must answer below 500, with a readable reason if not."""

    def open(self, *args, **kwargs):
        response = super().open(*args, **kwargs)
        if response.status_code >= 500:
            request = response.request
            raise AssertionError(
                f"{request.method} {request.path} answered {response.status_code}: {text_of(response)[:300]}"
            )
        return response


def strict_client(app) -> FlaskClient:
    """A test client on ``app`` that renders the 500 page (instead of raising) and fails on it."""
    app.config["PROPAGATE_EXCEPTIONS"] = False
    app.test_client_class = NoServerErrorClient
    return app.test_client()


# -- reading pages -------------------------------------------------------------------------


class _Collector(HTMLParser):
    """Inputs (with attributes) and the text of elements chosen by id or class."""

    def __init__(self, want_id: str | None = None, want_class: str | None = None):
        super().__init__(convert_charrefs=True)
        self.inputs: list[dict] = []
        self.want_id, self.want_class = want_id, want_class
        self.depth = 0  # >0 while inside a wanted element
        self.current: list[str] = []
        self.found: list[str] = []

    def _wanted(self, attrs: dict) -> bool:
        if self.want_id is not None and attrs.get("id") == self.want_id:
            return True
        if self.want_class is not None and self.want_class in (attrs.get("class") or "").split():
            return True
        return False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("input", "textarea", "select"):
            self.inputs.append({"tag": tag, **attrs})
        if tag in VOID_TAGS:
            return
        if self.depth:
            self.depth += 1
        elif self._wanted(attrs):
            self.depth = 1
            self.current = []

    def handle_endtag(self, tag):
        if tag in VOID_TAGS or not self.depth:
            return
        self.depth -= 1
        if not self.depth:
            self.found.append(" ".join(" ".join(self.current).split()))

    def handle_data(self, data):
        if self.depth:
            self.current.append(data)


def _html(response_or_html) -> str:
    return response_or_html if isinstance(response_or_html, str) else response_or_html.get_data(as_text=True)


def inputs(response_or_html) -> list[dict]:
    parser = _Collector()
    parser.feed(_html(response_or_html))
    return parser.inputs


def input_value(response_or_html, name: str) -> str | None:
    """What the page will send for ``name``: a text/number/hidden value, or the checked radio/box."""
    for field in inputs(response_or_html):
        if field.get("name") != name:
            continue
        if field.get("type") in ("radio", "checkbox"):
            if "checked" in field:
                return field.get("value", "on")
            continue
        return field.get("value", "")
    return None


def input_values(response_or_html, name: str) -> list[str]:
    """All values of a repeated field, e.g. the hidden ``seat`` inputs in order."""
    return [f.get("value", "") for f in inputs(response_or_html) if f.get("name") == name]


def element_text(response_or_html, element_id: str) -> str:
    """Visible text of the element with this id ('' if there is none)."""
    parser = _Collector(want_id=element_id)
    parser.feed(_html(response_or_html))
    return parser.found[0] if parser.found else ""


def texts_by_class(response_or_html, css_class: str) -> list[str]:
    parser = _Collector(want_class=css_class)
    parser.feed(_html(response_or_html))
    return parser.found


# -- driving a game ------------------------------------------------------------------------


def new_game(client, variant: str, names: list[str], first_dealer: str | None = None,
             skip_first_hand: bool = False) -> int:
    """Start a game through both new-game steps; ``first_dealer`` is a name (None draws one)."""
    step1 = client.post("/games/new", data={"variant": variant, "new_players": ", ".join(names)})
    assert step1.status_code == 200, text_of(step1)
    seats = input_values(step1, "seat")
    assert len(seats) == len(names), text_of(step1)
    token = {t.partition(":")[2]: t for t in seats}
    data = {"variant": variant, "seat": seats,
            "first_dealer": token[first_dealer] if first_dealer else "random"}
    if skip_first_hand:
        data["skip_first_hand"] = "y"
    step2 = client.post("/games/new/seating", data=data)
    assert step2.status_code == 302, text_of(step2)
    match = re.fullmatch(r"/games/(\d+)", step2.headers["Location"])
    assert match, step2.headers["Location"]
    return int(match.group(1))


def score_url(game_id: int, number: int) -> str:
    return f"/games/{game_id}/rounds/{number}/score"


def version_of(client, game_id: int, number: int) -> int:
    """The hidden version on the card-entry page, as a phone would send it back."""
    page = client.get(score_url(game_id, number))
    assert page.status_code == 200, text_of(page)
    return int(input_value(page, "version"))


def hand_fields(pid: int, hand) -> dict[str, str]:
    """Form fields for one player's hand.

    ``hand`` is a card list ``"K K 5 JK"`` (keypad codes), an ``int`` total counted by hand,
    or a dict of raw sub-field values such as ``{"k_K": "abc", "buys": "9"}``.
    """
    if hand is None:
        return {}
    if isinstance(hand, bool):
        raise TypeError("a hand is cards, a total or raw fields")
    if isinstance(hand, int):
        return {f"p{pid}-total": str(hand)}
    if isinstance(hand, str):
        return {f"p{pid}-k_{code}": str(n) for code, n in Counter(hand.split()).items()}
    return {f"p{pid}-{name}": str(value) for name, value in hand.items()}


def round_data(ids: dict[str, int], went_out: str | None, hands: dict, version, *, bonus: str | None = None,
               action: str = "save", laid_down=(), buys: dict[str, int] | None = None) -> dict[str, str]:
    """The card-entry form as posted: ``ids`` maps names to player ids."""
    data = {"version": str(version), "action": action}
    if went_out is not None:
        data["went_out"] = str(ids[went_out])
    if bonus is not None:
        data["bonus"] = bonus
    for name, hand in hands.items():
        data.update(hand_fields(ids[name], hand))
    for name in laid_down:
        data[f"p{ids[name]}-laid_down"] = "y"
    for name, n in (buys or {}).items():
        data[f"p{ids[name]}-buys"] = str(n)
    return data


def opened_form(client, game_id: int, number: int) -> tuple[int, dict[str, str]]:
    """Open the card entry: its version, and the buys and laid-down marks it starts with."""
    page = client.get(score_url(game_id, number))
    assert page.status_code == 200, text_of(page)
    kept = {}
    for field in inputs(page):
        name = field.get("name", "")
        if name.endswith("-buys"):
            kept[name] = field.get("value", "")
        elif name.endswith("-laid_down") and "checked" in field:
            kept[name] = "y"
    return int(input_value(page, "version")), kept


def record(client, ids, game_id: int, number: int, went_out: str, hands: dict, **kwargs):
    """Open the card entry for ``number``, fill in the hands, save; returns the save response.

    Buys and laid-down marks counted on the round screen stay as the form shows them.
    """
    version, kept = opened_form(client, game_id, number)
    data = {**kept, **round_data(ids, went_out, hands, version, **kwargs)}
    response = client.post(score_url(game_id, number), data=data)
    assert response.status_code == 302, text_of(response)
    return response


# -- reading the database ------------------------------------------------------------------


def player_ids(app, game_id: int) -> dict[str, int]:
    """Player name -> id, in seat order (clockwise)."""
    with app.app_context():
        rows = db.session.execute(
            db.select(Player.name, Player.id).join(Seat, Seat.player_id == Player.id)
            .where(Seat.game_id == game_id).order_by(Seat.position)
        ).all()
    return {name: pid for name, pid in rows}


def game_status(app, game_id: int) -> str:
    with app.app_context():
        return db.session.execute(db.select(Game.status).where(Game.id == game_id)).scalar_one()


def dealers(app, game_id: int) -> list[tuple[int, str]]:
    """``(round number, dealer's name)`` for every round, in playing order."""
    with app.app_context():
        names = [n for n, in db.session.execute(
            db.select(Player.name).join(Seat, Seat.player_id == Player.id)
            .where(Seat.game_id == game_id).order_by(Seat.position)
        )]
        rounds = db.session.execute(
            db.select(GameRound.number, GameRound.dealer).where(GameRound.game_id == game_id)
            .order_by(GameRound.position)
        ).all()
    return [(number, names[dealer]) for number, dealer in rounds]


def stored_points(app, game_id: int) -> dict[int, dict[str, int]]:
    """Points stored per recorded round: ``{round number: {name: points}}``."""
    with app.app_context():
        rows = db.session.execute(
            db.select(GameRound.number, Player.name, Result.points)
            .join(Result.round).join(Result.player)
            .where(GameRound.game_id == game_id, GameRound.recorded_at.is_not(None))
            .order_by(GameRound.position, Result.position)
        ).all()
    points: dict[int, dict[str, int]] = {}
    for number, name, pts in rows:
        points.setdefault(number, {})[name] = pts
    return points


def buys_of(app, game_id: int, number: int) -> dict[str, int]:
    with app.app_context():
        rows = db.session.execute(
            db.select(Player.name, Result.buys).join(Result.round).join(Result.player)
            .where(GameRound.game_id == game_id, GameRound.number == number)
            .order_by(Result.position)
        ).all()
    return dict(rows)


def db_snapshot(app) -> dict[str, list[tuple]]:
    """Every row of every table, for 'nothing was written' comparisons."""
    with app.app_context():
        return {
            table.name: sorted(
                (tuple(row) for row in db.session.execute(table.select())), key=repr
            )
            for table in db.metadata.sorted_tables
        }


# -- the review step -----------------------------------------------------------------------


def review_lines(response) -> dict[str, tuple[int, int]]:
    """The review table: ``{name: (points this hand, total after it)}``."""
    html = response.get_data(as_text=True)
    rows = re.findall(
        r'<th scope="row">(.*?)</th>.*?<td class="num"><b>(-?\d+)</b></td>\s*<td class="num">(-?\d+)</td>',
        html, flags=re.S,
    )
    return {name: (int(points), int(total)) for name, points, total in rows}


def carried_fields(response) -> list[tuple[str, str]]:
    """The hidden fields the review page sends back with Save or Change."""
    return [(f["name"], f.get("value", "")) for f in inputs(response)
            if f.get("type") == "hidden" and f.get("name")]


def review_then_save(client, game_id: int, number: int, data: dict):
    """Press 'Check points', then 'Save' on the review page, as a player does."""
    review = client.post(score_url(game_id, number), data={**data, "action": "review"})
    assert review.status_code == 200, text_of(review)
    assert f"Check round {number}" in text_of(review), text_of(review)
    saved = client.post(score_url(game_id, number), data=MultiDict(carried_fields(review) + [("action", "save")]))
    assert saved.status_code == 302, text_of(saved)
    return review, saved
