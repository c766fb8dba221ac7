"""Helpers shared by the HTTP tests: drive a game through the pages, read forms and the database.

Everything here goes through the same requests a phone sends; the database is only read.
"""

from __future__ import annotations

import atexit
import itertools
import os
import random
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from pathlib import Path

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from jinja2 import BytecodeCache
from werkzeug.datastructures import MultiDict
from werkzeug.security import generate_password_hash

from scorekeeper import create_app, rules
from scorekeeper.extensions import db
from scorekeeper.games import service
from scorekeeper.games.hands import record_round, undo_last_round
from scorekeeper.models import FINISHED, IN_PROGRESS, Family, Game, GameRound, Member, Player, Result, Seat

VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


def text_of(response_or_html) -> str:
    """Visible text of a response or an HTML string, whitespace collapsed."""
    html = response_or_html if isinstance(response_or_html, str) else response_or_html.get_data(as_text=True)
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>", " ", html)
    text = text.replace("&amp;", "&").replace("&#39;", "'").replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
    return " ".join(text.split())


# -- apps on fresh databases ---------------------------------------------------------------

# Set to a PostgreSQL URL (see .ci/postgres) to run every test on PostgreSQL instead of SQLite.
POSTGRES_URL = os.environ.get("SCOREKEEPER_TEST_DATABASE_URL")
TEST_USERNAME = "tester"
TEST_PASSWORD = "a long test password"
TEST_CONFIG = {"TESTING": True, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False}
_made: list[Flask] = []  # apps made by the running test
_numbers = itertools.count()
_TEMPLATE_DB = f"scorekeeper_template_{os.getpid()}"


@cache
def _test_password_hash() -> str:
    return generate_password_hash(TEST_PASSWORD)  # hashed once: scrypt is slow on purpose


@cache
def _template() -> str:
    """A database migrated to the newest revision once per test run; each test gets a copy."""
    if POSTGRES_URL:
        # One per test run, so runs sharing a server do not pull each other's template away.
        template = sa.make_url(POSTGRES_URL).set(database=_TEMPLATE_DB)
        _admin(f'DROP DATABASE IF EXISTS "{template.database}" WITH (FORCE)')
        _admin(f'CREATE DATABASE "{template.database}"')
        atexit.register(_admin, f'DROP DATABASE IF EXISTS "{template.database}" WITH (FORCE)')
        url = template.render_as_string(hide_password=False)
    else:
        url = f"sqlite:///{Path(tempfile.mkdtemp(prefix='scorekeeper-tests-')) / 'template.sqlite'}"
    app = create_app({**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": url})  # runs the migrations
    with app.app_context():
        db.engine.dispose()
    return url


class MemoryBytecodeCache(BytecodeCache):
    """Compiled templates kept in this process, shared by every app a test makes."""

    def __init__(self):
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket):
        if bucket.key in self._code:
            bucket.bytecode_from_string(self._code[bucket.key])

    def dump_bytecode(self, bucket):
        self._code[bucket.key] = bucket.bytecode_to_string()


_COMPILED_TEMPLATES = MemoryBytecodeCache()


def _admin(statement: str) -> None:
    engine = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sa.text(statement))
    engine.dispose()


@contextmanager
def empty_postgres_database(prefix: str) -> Iterator[str]:
    """The URL of a new PostgreSQL database with no tables at all, dropped afterwards."""
    name = f"{prefix}{os.getpid()}_{next(_numbers)}"
    _admin(f'CREATE DATABASE "{name}"')
    try:
        yield sa.make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        drop_made_apps()
        _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def fresh_database(folder: Path) -> str:
    """The URL of a new database at the newest schema: a copy of the migrated template."""
    template = _template()
    if POSTGRES_URL:
        name = f"scorekeeper_t{os.getpid()}_{next(_numbers)}"
        _admin(f'CREATE DATABASE "{name}" TEMPLATE "{_TEMPLATE_DB}" STRATEGY FILE_COPY')
        return sa.make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"test-{next(_numbers)}.sqlite"
    shutil.copyfile(sa.make_url(template).database, path)
    return f"sqlite:///{path}"


def make_app(folder: Path | None = None, *, database_url: str | None = None, family: str | None = "Our family",
             keep: bool = False, **config) -> Flask:
    """An app for a test. Without ``database_url`` it gets a fresh database in which ``family``
    (unless ``None``) has signed up with the member ``tester``. The database goes when the test
    ends, or with ``keep`` when the caller passes the app to ``drop_app``."""
    url = database_url or fresh_database(folder or Path(tempfile.mkdtemp(prefix="scorekeeper-")))
    app = create_app({**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": url, **config})
    # Templates compiled once per test run, not once per app: most of a short test's time otherwise.
    app.jinja_env.bytecode_cache = _COMPILED_TEMPLATES
    # Files a request keeps (previews of a sheet, printed yearbooks) go to a folder of the test's own.
    app.instance_path = tempfile.mkdtemp(prefix="scorekeeper-instance-")
    app.extensions["test_database"] = None if database_url or not POSTGRES_URL else sa.make_url(url).database
    if not keep:
        _made.append(app)
    if database_url is None and family is not None:
        add_member(app, family, TEST_USERNAME)
    return app


def add_member(app: Flask, family_name: str, username: str) -> tuple[int, int]:
    """A family (made if new) with a member whose password is ``TEST_PASSWORD``: (family id, member id)."""
    with app.app_context():
        family = db.session.execute(db.select(Family).where(Family.name == family_name)).scalar()
        if family is None:
            family = Family(name=family_name)
        member = Member(family=family, username=username, password_hash=_test_password_hash())
        db.session.add(member)
        db.session.commit()
        return family.id, member.id


def drop_app(app: Flask) -> None:
    """Close the app's database connections; drop its PostgreSQL database."""
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    if app.extensions.get("test_database"):
        _admin(f'DROP DATABASE IF EXISTS "{app.extensions["test_database"]}" WITH (FORCE)')


def drop_made_apps() -> None:
    while _made:
        drop_app(_made.pop())


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


def strict_client(app, username: str | None = TEST_USERNAME) -> FlaskClient:
    """A test client on ``app`` that renders the 500 page (instead of raising) and fails on it,
    signed in as ``username`` when that member exists (``None``: signed out)."""
    app.config["PROPAGATE_EXCEPTIONS"] = False
    app.test_client_class = NoServerErrorClient
    client = app.test_client()
    if username:
        sign_in_session(app, client, username)
    return client


def set_cookie(response, name: str):
    """The cookie ``name`` as the response sets it (a ``Morsel``), or ``None``."""
    for header in response.headers.getlist("Set-Cookie"):
        jar = SimpleCookie()
        jar.load(header)
        if name in jar:
            return jar[name]
    return None


def sign_in_session(app, client, username: str) -> bool:
    """Put the member's sign-in into the client's session, as the sign-in page would."""
    with app.app_context():
        member = db.session.execute(db.select(Member).where(Member.username == username)).scalar()
    if member is None:
        return False
    with client.session_transaction() as session:
        session["_user_id"] = member.get_id()
        session["_fresh"] = True
    return True


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
        html, flags=re.DOTALL,
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


# -- random histories ---------------------------------------------------------------------------


def our_family() -> Family:
    """The test app's family."""
    return db.session.execute(sa.select(Family).where(Family.name == "Our family")).scalar_one()


def play_random_hand(game: Game, rng: random.Random) -> None:
    """Record the current hand: one player, drawn at random, goes out; the rest hold 5 to 90
    (a multiple of 5: in family-7 every card counts one)."""
    round_ = game.current_round
    seats = [seat.player_id for seat in game.seats]
    out = rng.choice(seats)
    hands = [rules.Hand(pid, went_out=True, laid_down=True) if pid == out else rules.Hand(pid, hand_total=rng.randint(1, 18) * 5)
             for pid in seats]
    record_round(game, round_.number, hands, round_.version, by="test")


def start_game(family: Family, names: list[str], rng: random.Random) -> Game:
    """A family-7 game of these players (new ones added), the first dealer drawn."""
    known = {p.name: p.id for p in db.session.execute(sa.select(Player).where(Player.family_id == family.id)).scalars()}
    seating = [service.SeatChoice(player_id=known[n]) if n in known else service.SeatChoice(new_name=n) for n in names]
    return service.start_game(family, rules.get_variant("family-7"), seating, rng.randrange(len(names)))


NAMES = ["Ann", "Bob", "Cy", "Di", "Ed"]


def random_action(family: Family, rng: random.Random) -> str:
    """Finish a game, or edit, undo, delete or abandon one, at random; returns what it did."""
    games = db.session.execute(sa.select(Game).where(Game.family_id == family.id).order_by(Game.id)).scalars().all()
    finished = [g for g in games if g.status == FINISHED]
    playing = [g for g in games if g.status == IN_PROGRESS]
    action = rng.choice(["finish", "finish", "edit", "undo", "delete", "abandon"])
    if action == "finish" or not finished:
        game = playing[0] if playing else start_game(family, rng.sample(NAMES, rng.randint(3, 5)), rng)
        while game.current_round is not None:
            play_random_hand(game, rng)
        return "finish"
    game = rng.choice(finished)
    if action == "edit":
        round_ = rng.choice(game.rounds)
        seats = [seat.player_id for seat in game.seats]
        hands = [rules.Hand(pid, went_out=True, laid_down=True) if i == 0 else rules.Hand(pid, hand_total=rng.randint(1, 18) * 5)
                 for i, pid in enumerate(seats)]
        record_round(game, round_.number, hands, round_.version, by="test")
    elif action == "undo":
        undo_last_round(game, by="test")
        if rng.random() < 0.5:
            play_random_hand(game, rng)
    elif action == "delete":
        service.delete_game(game)
    else:
        for other in playing:
            service.abandon_game(other)
    return action
