"""Family isolation: every route, called with another family's ids, answers 404 and never data.

Two families share one server. "Fairweather Clan" (member ``tester``) has a finished game with a
corrected hand, a game in progress with a buy and a laid-down mark in the hand being played, an
abandoned game played by its own house rules, four players, an open invite and those house rules
(written in the editor). "The Joneses" (member ``jones``) have house rules and a game played by
them of their own. Every request below is sent by jones, each from a fresh signed-in client:

- a *foreign* call names one of Fairweather's ids in its URL (a game, a round of it, a player, an
  invite): it must answer 404, leave the whole database as it was, and show nothing of
  Fairweather's. The same request from ``tester`` must answer below 400, which proves the URL
  is valid and the 404 is the family check, not a typo.
- an *own* call has no id in its URL (home, history, players, records, exports, print pages, the
  family page, sign-in pages, house rules...) or names Fairweather's ids only in the query or form
  (``?from=house-<id>``, ``?preset=house-<id>``, a game's ``variant``): it is
  answered normally (redirects followed) and the answer - HTML, JSON, CSV, or the text of a
  PDF - holds none of Fairweather's names, its member's username or its games' uids, while
  Fairweather's rows stay exactly as they were.

Every GET is repeated as HEAD, and every URL is also asked OPTIONS (answered by Flask itself:
an empty body). ``ROUTES`` says how to fill every rule of the URL map; a rule added without a
line there fails ``test_every_rule_of_the_url_map_has_a_line_in_the_table``.
"""

from __future__ import annotations

import gzip
import io
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import pytest
from pypdf import PdfReader
from sqlalchemy import select

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.history.models import KeptMonth, KeptPair, KeptPlayer, KeptRules, KeptStreak, KeptYear
from scorekeeper.hosting import certificates
from scorekeeper.models import (
    Family,
    Game,
    GameRound,
    HouseRules,
    Invite,
    Member,
    Player,
    PlayerGame,
    Rating,
    Result,
    RoundChange,
    Seat,
    ShareLink,
    SignInSession,
    Submission,
)
from scorekeeper.transfer import previews, sheets
from tests.actions import GameActions
from tests.built_databases import built, copy_app
from tests.databases import TEST_PASSWORD, TEST_USERNAME, db_snapshot, strict_client
from tests.pages import round_data, text_of
from tests.test_house_rules import GRAN

pytestmark = pytest.mark.slow  # every route walked as another family

OUR_FAMILY = "Fairweather Clan"
OUR_PLAYERS = ["Zebediah", "Ottoline", "Peregrine", "Wilhelmina"]
JONESES = "The Joneses"
JONES = "jones"
JONES_PLAYERS = ["Jasper", "Jemima", "Jolyon"]
THIS_YEAR = datetime.now(UTC).year  # the games are played today (UTC, as they are stored)
# House rules of each family, written in the editor (Gran's rules from test_house_rules, renamed).
OUR_RULES = {**GRAN, "name": "Great-Aunt Hepzibah's Shanghai", "source": "Hepzibah's parlour"}
JONES_RULES = {**GRAN, "name": "Jolly Jumble Shanghai", "source": "The Joneses' caravan"}


# -- the two families ------------------------------------------------------------------------


@dataclass
class World:
    app: object
    ours: int  # Fairweather's family id
    joneses: int
    games: dict[str, int]  # "finished" / "in_progress" / "abandoned" -> Fairweather's game id
    players: dict[str, int]  # Fairweather's players: name -> id
    invite_id: int
    invite_token: str
    jones_game: int
    jones_players: dict[str, int]
    jones_export: bytes
    link_id: int  # Fairweather's scoreboard link to its game in progress
    rules_id: int  # Fairweather's house rules (its abandoned game was played by them)
    jones_rules: int  # the Joneses' house rules (jones's game is played by them)
    jones_rules_file: bytes  # the Joneses' house rules as their rules.json download
    jones_links: dict[str, str]  # jones's own links to his game: kind -> token
    uids: list[str]  # Fairweather's games' uids, which its exports carry
    forbidden: list[str] = field(default_factory=list)  # nothing of this may reach jones

    def sheet_token(self, family_id: int) -> str:
        """A spreadsheet preview kept for the family, as its upload would keep it."""
        with self.app.app_context():
            return previews.keep(family_id, sheets.read_cells(SHEET_CSV))

    def rounds(self, game_id: int) -> list[tuple[int, int, bool]]:
        """``(number, version, scored)`` of every round, in playing order."""
        with self.app.app_context():
            return [
                (number, version, recorded_at is not None)
                for number, version, recorded_at in db.session.execute(
                    select(GameRound.number, GameRound.version, GameRound.recorded_at)
                    .where(GameRound.game_id == game_id).order_by(GameRound.position)
                )
            ]

    def numbers(self, game_id: int) -> list[int]:
        """The game's first round and the one being played (the last one once finished)."""
        rounds = self.rounds(game_id)
        current = next((n for n, _, scored in rounds if not scored), rounds[-1][0])
        return sorted({rounds[0][0], current})

    def last_scored(self, game_id: int) -> int:
        return [n for n, _, scored in self.rounds(game_id) if scored][-1]

    def round_form(self, game_id: int, number: int) -> dict[str, str]:
        """A complete card-entry form for the round, as the game's own family would send it."""
        ids = GameActions(app=self.app).player_ids(game_id)
        first, *others = ids
        version = next(v for n, v, _ in self.rounds(game_id) if n == number)
        return round_data(ids, first, {name: 5 for name in others}, version, laid_down=list(ids))

    @property
    def our_game_ids(self) -> list[int]:
        return list(self.games.values())


def play(client, app, variant: str, names: list[str], hands, *, skip_first_hand: bool = False) -> int:
    """Start a game (a random first dealer) and record ``hands``: ``(number, went out, hands)``."""
    actions = GameActions(client, app)
    game_id = actions.new_game(variant, names, skip_first_hand=skip_first_hand)
    ids = actions.player_ids(game_id)
    for number, went_out, cards in hands:
        actions.record(ids, game_id, number, went_out, cards, laid_down=names)
    return game_id


def ok(response) -> None:
    assert response.status_code < 400, f"{response.request.method} {response.request.path}: {text_of(response)[:300]}"


def write_rules(client, data: dict) -> int:
    """House rules saved in the editor, as a phone sends them: their id."""
    response = client.post("/house-rules/new", data=data)
    match = re.fullmatch(r"/house-rules/(\d+)", response.headers.get("Location", ""))
    assert response.status_code == 302 and match, text_of(response)[:300]
    return int(match.group(1))


def build_world(app) -> World:
    """Both families, through the same requests their phones send."""
    actions = GameActions(app=app)
    tester = strict_client(app)
    ok(tester.post("/family", data={"family-name": OUR_FAMILY}))
    finished = play(tester, app, "family-7", ["Zebediah", "Ottoline", "Peregrine"], [
        (2, "Zebediah", {"Ottoline": "K", "Peregrine": "5 5"}),
        (3, "Ottoline", {"Zebediah": "5", "Peregrine": "Q"}),
        (4, "Peregrine", {"Zebediah": "K", "Ottoline": "5"}),
        (5, "Zebediah", {"Ottoline": "J", "Peregrine": "5"}),
        (6, "Zebediah", {"Ottoline": "5", "Peregrine": "5"}),
        (7, "Ottoline", {"Zebediah": "10", "Peregrine": "A"}),
    ], skip_first_hand=True)
    ids = actions.player_ids(finished)
    GameActions(tester).record(ids, finished, 2, "Ottoline", {"Zebediah": "5", "Peregrine": "K"},
                               laid_down=list(ids))  # a corrected hand: a line in the change history
    in_progress = play(tester, app, "shanghai-10", ["Zebediah", "Ottoline", "Wilhelmina"], [
        (1, "Wilhelmina", {"Zebediah": "K", "Ottoline": "5"}),
        (2, "Zebediah", {"Ottoline": "A", "Wilhelmina": "5"}),
    ])
    ids = actions.player_ids(in_progress)
    ok(tester.post(f"/games/{in_progress}/rounds/3/buy", data={"player": ids["Ottoline"]}))
    ok(tester.post(f"/games/{in_progress}/rounds/3/down", data={"player": ids["Zebediah"], "laid_down": "1"}))
    ok(tester.post(f"/games/{in_progress}/rounds/3/buy", data={"player": ids["Wilhelmina"], "submission": "kept-offline-1"}))
    for kind in ("view", "keep"):
        ok(tester.post(f"/games/{in_progress}/share", data={"kind": kind}))
    rules_id = write_rules(tester, OUR_RULES)
    abandoned = play(tester, app, f"house-{rules_id}", ["Peregrine", "Wilhelmina"],
                     [(1, "Peregrine", {"Wilhelmina": 15})])
    ok(tester.post(f"/games/{abandoned}/abandon"))
    ok(tester.post("/family/invites"))
    link = re.search(r"/join/([A-Za-z0-9_-]+)", tester.get("/family").get_data(as_text=True))
    assert link, "the family page shows a new invite link once"

    actions.add_member(JONESES, JONES)
    jones = strict_client(app, JONES)
    jones_rules = write_rules(jones, JONES_RULES)
    jones_game = play(jones, app, f"house-{jones_rules}", JONES_PLAYERS, [(1, "Jasper", {"Jemima": "K", "Jolyon": "5"})])
    # A finished game of theirs: a season, ratings and a yearbook of their own.
    play(jones, app, "family-7", JONES_PLAYERS, [(n, "Jasper", {"Jemima": "K", "Jolyon": "5"}) for n in range(2, 8)],
         skip_first_hand=True)
    jones_export = jones.get("/export.json").get_data()
    jones_rules_file = jones.get(f"/house-rules/{jones_rules}/rules.json").get_data()
    for kind in ("view", "keep"):
        ok(jones.post(f"/games/{jones_game}/share", data={"kind": kind}))

    with app.app_context():
        ours = db.session.execute(select(Member.family_id).where(Member.username == TEST_USERNAME)).scalar_one()
        joneses = db.session.execute(select(Member.family_id).where(Member.username == JONES)).scalar_one()
        players = dict(db.session.execute(select(Player.name, Player.id).where(Player.family_id == ours)).all())
        invite_id = db.session.execute(select(Invite.id).where(Invite.family_id == ours)).scalar_one()
        uids = list(db.session.execute(select(Game.uid).where(Game.family_id == ours)).scalars())
        link_id = db.session.execute(
            select(ShareLink.id).where(ShareLink.game_id == in_progress, ShareLink.kind == "view")).scalar_one()
        jones_links = dict(db.session.execute(
            select(ShareLink.kind, ShareLink.token).where(ShareLink.game_id == jones_game)).all())
    assert sorted(players) == sorted(OUR_PLAYERS)
    return World(
        app=app, ours=ours, joneses=joneses,
        games={"finished": finished, "in_progress": in_progress, "abandoned": abandoned},
        players=players, invite_id=invite_id, invite_token=link.group(1),
        jones_game=jones_game, jones_players=actions.player_ids(jones_game), jones_export=jones_export,
        link_id=link_id, jones_links=jones_links,
        rules_id=rules_id, jones_rules=jones_rules, jones_rules_file=jones_rules_file,
        uids=uids, forbidden=[OUR_FAMILY, *OUR_PLAYERS, TEST_USERNAME, *uids, "Hepzibah"],
    )


def family_rows(app, family_id: int) -> dict[str, list[tuple]]:
    """Every row that belongs to the family, table by table."""
    games = select(Game.id).where(Game.family_id == family_id)
    owned = {
        "family": Family.id == family_id,
        "member": Member.family_id == family_id,
        "sign_in_session": SignInSession.member_id.in_(select(Member.id).where(Member.family_id == family_id)),
        "invite": Invite.family_id == family_id,
        "player": Player.family_id == family_id,
        "game": Game.family_id == family_id,
        "seat": Seat.game_id.in_(games),
        "game_round": GameRound.game_id.in_(games),
        "result": Result.round_id.in_(select(GameRound.id).where(GameRound.game_id.in_(games))),
        "player_game": PlayerGame.family_id == family_id,
        "rating": Rating.family_id == family_id,
        "round_change": RoundChange.game_id.in_(games),
        "share_link": ShareLink.game_id.in_(games),
        "submission": Submission.family_id == family_id,
        "house_rules": HouseRules.family_id == family_id,
        **{model.__tablename__: model.family_id == family_id
           for model in (KeptPlayer, KeptMonth, KeptYear, KeptPair, KeptStreak, KeptRules)},
    }
    tables = db.metadata.tables
    assert set(owned) == set(tables) - {"sign_in_failure"}, "a new table: say here which of its rows are a family's"
    with app.app_context():
        return {
            name: sorted((tuple(row) for row in db.session.execute(tables[name].select().where(where))), key=repr)
            for name, where in owned.items()
        }


# -- the table of routes ---------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    method: str
    url: str
    data: dict | None = None
    foreign: bool = False  # the URL names one of Fairweather's ids: 404 expected
    upload: bytes | None = None  # sent as the form's ``file``
    shows: str | None = None  # text jones's answer must hold (his own data, so the page is not empty)
    json: dict | None = None  # sent as a JSON body (a phone's queued action)

    def __str__(self) -> str:
        return f"{self.method} {self.url}" + (f" {self.data}" if self.data else "")


def foreign(method: str, url: str, data: dict | None = None) -> Call:
    return Call(method, url, data, foreign=True)


def own(method: str, url: str, data: dict | None = None, *, shows: str | None = None,
        upload: bytes | None = None) -> Call:
    return Call(method, url, data, shows=shows, upload=upload)


def each_game(w: World, *methods: str, path: str = "", data=None) -> list[Call]:
    """``methods`` on ``/games/<id><path>`` for each of Fairweather's games."""
    return [foreign(m, f"/games/{g}{path}", data(w, g) if data else None) for g in w.our_game_ids for m in methods]


def each_round(w: World, *methods: str, action: str, data) -> list[Call]:
    """``methods`` on ``/games/<id>/rounds/<number>/<action>`` for two rounds of each of Fairweather's games."""
    return [
        foreign(m, f"/games/{g}/rounds/{n}/{action}", data(w, g, n))
        for g in w.our_game_ids for n in w.numbers(g) for m in methods
    ]


def tap(action: str, **fields: str) -> Callable[[World], list[Call]]:
    """Buy / take back / laid down: on Fairweather's rounds for a player seated there, and on
    jones's own hand for Fairweather's Zebediah."""
    def calls(w: World) -> list[Call]:
        def tap_data(w: World, game_id: int, number: int) -> dict:
            first_seat = next(iter(GameActions(app=w.app).player_ids(game_id).values()))
            return {"player": str(first_seat), **fields}

        return each_round(w, "POST", action=action, data=tap_data) + [
            own("POST", f"/games/{w.jones_game}/rounds/{w.numbers(w.jones_game)[-1]}/{action}",
                {"player": str(w.players["Zebediah"]), **fields}, shows="Jasper"),
        ]
    return calls


def signup_data(family_name: str, username: str) -> dict[str, str]:
    return {"family_name": family_name, "username": username, "password": TEST_PASSWORD, "confirm": TEST_PASSWORD}


def family_certificate(w: World, path: str) -> list[Call]:
    """As under ``serve --https``: the family's authority, in a folder of the test's own."""
    w.app.instance_path = tempfile.mkdtemp(prefix="scorekeeper-isolation-")
    certificates.ensure_ca(certificates.tls_files(w.app.instance_path), "kitchen.local")
    w.app.config.update(SERVE_PORT=8000, SERVE_HTTP_PORT=8001)
    return [own("GET", path)]


@dataclass(frozen=True)
class Route:
    rule: str
    methods: frozenset[str]  # besides HEAD and OPTIONS, which Flask adds
    calls: Callable[[World], list[Call]]


def route(rule: str, methods: str, calls: Callable[[World], list[Call]]) -> Route:
    return Route(rule, frozenset(methods.split()), calls)


ROUTES: dict[str, Route] = {
    # -- public pages (no sign-in needed) --
    "static": route("/static/<path:filename>", "GET", lambda w: [
        own("GET", f"/static/{name}") for name in ("app.css", "js/main.js", "favicon.svg")]),
    "main.healthz": route("/healthz", "GET", lambda w: [own("GET", "/healthz")]),
    "pwa.service_worker": route("/sw.js", "GET", lambda w: [own("GET", "/sw.js")]),
    "pwa.manifest": route("/manifest.webmanifest", "GET", lambda w: [own("GET", "/manifest.webmanifest")]),
    "pwa.offline": route("/offline", "GET", lambda w: [own("GET", "/offline")]),
    "hosting.phone": route("/phone", "GET", lambda w: [own("GET", "/phone")]),
    "hosting.ca_certificate": route("/phone/ca.crt", "GET", lambda w: family_certificate(w, "/phone/ca.crt")),
    # A link's token is the key to its one game, for whoever holds it: jones opens his own.
    "sharing.board": route("/live/<token>", "GET", lambda w: [own("GET", f"/live/{w.jones_links['view']}", shows="Jasper")]),
    "sharing.board_state": route("/live/<token>/board", "GET", lambda w: [
        own("GET", f"/live/{w.jones_links['view']}/board", shows="Jasper")]),
    "sharing.keep": route("/keep/<token>", "GET", lambda w: [own("GET", f"/keep/{w.jones_links['keep']}", shows="Jasper")]),
    "printing.rules_index": route("/rules", "GET", lambda w: [own("GET", "/rules")]),
    "printing.rules_page": route("/rules/<key>", "GET", lambda w: [own("GET", f"/rules/{key}") for key in rules.VARIANTS]),
    "accounts.welcome": route("/welcome", "GET POST", lambda w: [
        own("GET", "/welcome"), own("POST", "/welcome", signup_data("Welcomers", "welcomer"))]),
    "accounts.signup": route("/signup", "GET POST", lambda w: [
        # A third family signs up from jones's phone and lands on its own, empty home page.
        own("GET", "/signup"), own("POST", "/signup", signup_data("The Smiths", "smith"), shows="The Smiths")]),
    "accounts.login": route("/login", "GET POST", lambda w: [
        own("GET", "/login"), own("POST", "/login", {"username": JONES, "password": TEST_PASSWORD}, shows="Jasper")]),
    # Fairweather's invite opened by a signed-in jones: "you are signed in", the invite not spent.
    "accounts.join": route("/join/<token>", "GET POST", lambda w: [
        own("GET", f"/join/{w.invite_token}", shows="You are signed in"),
        own("POST", f"/join/{w.invite_token}", signup_data("", "intruder"), shows="You are signed in")]),
    # -- signing out and the family page --
    "accounts.logout": route("/logout", "POST", lambda w: [own("POST", "/logout", shows="Signed out")]),
    "accounts.logout_everywhere": route("/logout/everywhere", "POST", lambda w: [
        own("POST", "/logout/everywhere", shows="Signed out")]),
    "accounts.family": route("/family", "GET POST", lambda w: [
        own("GET", "/family", shows=JONESES), own("POST", "/family", {"family-name": JONESES}, shows=JONESES)]),
    "accounts.invite": route("/family/invites", "POST", lambda w: [own("POST", "/family/invites", shows=JONESES)]),
    "accounts.cancel_invite": route("/family/invites/<int:invite_id>/cancel", "POST", lambda w: [
        foreign("POST", f"/family/invites/{w.invite_id}/cancel")]),
    # -- home and new games --
    "main.home": route("/", "GET", lambda w: [own("GET", "/", shows="Jasper")]),
    "games.new": route("/games/new", "GET POST", lambda w: [
        own("GET", "/games/new", shows="Jasper"),
        own("GET", "/games/new", shows=JONES_RULES["name"]),
        own("POST", "/games/new", {"variant": "family-7", "player": [str(i) for i in w.players.values()],
                                   "new_players": "Jasper, Jemima, Jolyon"}, shows="Jasper"),
        # Fairweather's house rules by their key: not a choice the Joneses have.
        own("POST", "/games/new", {"variant": f"house-{w.rules_id}", "new_players": "Jasper, Jemima, Jolyon"},
            shows="Jasper"),
        own("POST", "/games/new", {"variant": f"house-{w.jones_rules}", "new_players": "Jasper, Jemima, Jolyon"},
            shows=JONES_RULES["name"])]),
    "games.seating": route("/games/new/seating", "POST", lambda w: [
        own("POST", "/games/new/seating", {"variant": "family-7", "first_dealer": "random",
                                           "seat": [f"p:{i}" for i in w.players.values()]}),
        own("POST", "/games/new/seating", {"variant": "family-7", "first_dealer": "random",
                                           "seat": [f"p:{w.jones_players['Jasper']}", f"p:{w.players['Zebediah']}",
                                                    "n:Jolyon"]}),
        own("POST", "/games/new/seating", {"variant": "family-7", "first_dealer": "random",
                                           "seat": [f"p:{i}" for i in w.jones_players.values()]}, shows="Jasper"),
        own("POST", "/games/new/seating", {"variant": f"house-{w.rules_id}", "first_dealer": "random",
                                           "seat": [f"p:{i}" for i in w.jones_players.values()]}),
        own("POST", "/games/new/seating", {"variant": f"house-{w.jones_rules}", "first_dealer": "random",
                                           "seat": [f"p:{i}" for i in w.jones_players.values()]}, shows="Jasper")]),
    # -- a game --
    "games.round_screen": route("/games/<int:game_id>", "GET", lambda w: each_game(w, "GET") + [
        own("GET", f"/games/{w.jones_game}", shows="Jasper")]),
    "games.buy": route("/games/<int:game_id>/rounds/<int:number>/buy", "POST", tap("buy")),
    "games.unbuy": route("/games/<int:game_id>/rounds/<int:number>/unbuy", "POST", tap("unbuy")),
    "games.down": route("/games/<int:game_id>/rounds/<int:number>/down", "POST", tap("down", laid_down="1")),
    "games.card_entry": route("/games/<int:game_id>/rounds/<int:number>/score", "GET POST", lambda w: each_round(
        w, "GET", "POST", action="score", data=lambda w, g, n: w.round_form(g, n)) + [
        own("GET", f"/games/{w.jones_game}/rounds/1/score", shows="Jasper"),
        # jones's own hand, saying Fairweather's Zebediah went out: refused, nothing stored.
        own("POST", f"/games/{w.jones_game}/rounds/2/score",
            {**w.round_form(w.jones_game, 2), "went_out": str(w.players["Zebediah"])}, shows="Jasper")]),
    "games.paper": route("/games/<int:game_id>/paper", "GET POST", lambda w: each_game(
        w, "GET", "POST", path="/paper", data=lambda w, g: {"out-2": str(w.players["Zebediah"])}) + [
        own("GET", f"/games/{w.jones_game}/paper", shows="Jasper"),
        # jones's own grid, saying Fairweather's Zebediah went out: refused, nothing stored.
        own("POST", f"/games/{w.jones_game}/paper", {"v-2": "0", "out-2": str(w.players["Zebediah"]),
                                                     f"r2-p{w.players['Zebediah']}": "0"}, shows="Jasper")]),
    # The phone's side: an action sent to another family's game is a 404, as every page of it is.
    "games.act": route("/games/<int:game_id>/actions", "POST", lambda w: [
        # What tester's own phone could send (a Down in the game being played, an undo of the finished
        # game's last round), so a 404 for jones proves something.
        Call("POST", f"/games/{w.games['in_progress']}/actions", foreign=True, json={
            "id": "isolation-down", "kind": "down", "round": w.numbers(w.games["in_progress"])[-1], "base": 0,
            "laid_down": True, "player": next(iter(GameActions(app=w.app).player_ids(w.games["in_progress"]).values()))}),
        Call("POST", f"/games/{w.games['finished']}/actions", foreign=True, json={
            "id": "isolation-undo", "kind": "undo", "round": w.last_scored(w.games["finished"]),
            "base": next(v for n, v, _ in w.rounds(w.games["finished"]) if n == w.last_scored(w.games["finished"]))}),
        Call("POST", f"/games/{w.jones_game}/actions", json={
            "id": "isolation-jones", "kind": "down", "round": w.numbers(w.jones_game)[-1], "base": 0,
            "laid_down": True, "player": next(iter(w.jones_players.values()))})]),
    "games.state": route("/games/<int:game_id>/state", "GET", lambda w: each_game(w, "GET", path="/state") + [
        own("GET", f"/games/{w.jones_game}/state")]),
    "games.plan": route("/games/<int:game_id>/plan", "GET", lambda w: each_game(w, "GET", path="/plan") + [
        own("GET", f"/games/{w.jones_game}/plan", shows="Jasper")]),
    "games.standings": route("/games/<int:game_id>/standings", "GET", lambda w: each_game(
        w, "GET", path="/standings") + [own("GET", f"/games/{w.jones_game}/standings", shows="Jasper")]),
    "games.undo": route("/games/<int:game_id>/undo", "POST", lambda w: each_game(
        w, "POST", path="/undo", data=lambda w, g: {"number": str(w.last_scored(g))})),
    "games.play_again": route("/games/<int:game_id>/again", "POST", lambda w: each_game(w, "POST", path="/again")),
    "games.abandon": route("/games/<int:game_id>/abandon", "GET POST", lambda w: each_game(
        w, "GET", "POST", path="/abandon") + [own("GET", f"/games/{w.jones_game}/abandon")]),
    "games.delete": route("/games/<int:game_id>/delete", "GET POST", lambda w: each_game(
        w, "GET", "POST", path="/delete") + [own("GET", f"/games/{w.jones_game}/delete")]),
    "sharing.share": route("/games/<int:game_id>/share", "GET POST", lambda w: each_game(w, "GET", path="/share") + each_game(
        w, "POST", path="/share", data=lambda w, g: {"kind": "view"}) + [
        own("GET", f"/games/{w.jones_game}/share", shows="Jasper")]),
    "sharing.revoke": route("/games/<int:game_id>/share/<int:link_id>/revoke", "POST", lambda w: [
        foreign("POST", f"/games/{w.games['in_progress']}/share/{w.link_id}/revoke")]),
    # -- printing --
    "printing.blank_form": route("/print", "GET", lambda w: [own("GET", "/print", shows=JONES_RULES["name"])]),
    "printing.blank_sheet": route("/print/sheet.pdf", "GET", lambda w: [
        own("GET", "/print/sheet.pdf?variant=family-7&players=Jasper,Jemima,Jolyon", shows="Jasper"),
        own("GET", f"/print/sheet.pdf?variant=house-{w.jones_rules}&players=Jasper,Jemima,Jolyon",
            shows=JONES_RULES["name"])]),
    # (Fairweather's house rules by their key are refused with a 400: see
    # test_another_familys_house_rules_key_prints_no_sheet.)
    "printing.game_sheet": route("/games/<int:game_id>/sheet.pdf", "GET", lambda w: each_game(
        w, "GET", path="/sheet.pdf") + [own("GET", f"/games/{w.jones_game}/sheet.pdf", shows="Jasper")]),
    "printing.rule_card": route("/print/rules/<key>.pdf", "GET", lambda w: [
        own("GET", f"/print/rules/{key}.pdf") for key in rules.VARIANTS]),
    "printing.game_rule_card": route("/games/<int:game_id>/rules.pdf", "GET", lambda w: each_game(
        w, "GET", path="/rules.pdf") + [own("GET", f"/games/{w.jones_game}/rules.pdf", shows=JONES_RULES["name"])]),
    "printing.game_rules": route("/games/<int:game_id>/rules", "GET", lambda w: each_game(
        w, "GET", path="/rules") + [own("GET", f"/games/{w.jones_game}/rules", shows=JONES_RULES["name"])]),
    # -- history --
    "history.index": route("/history", "GET", lambda w: [
        own("GET", "/history", shows="Jasper"),
        own("GET", f"/history?player={w.players['Zebediah']}"),
        own("GET", f"/history?player={w.players['Peregrine']}&status=abandoned"),
        own("GET", f"/history?preset=house-{w.rules_id}", shows="Jasper"),
        own("GET", f"/history?preset=house-{w.jones_rules}", shows="Jasper")]),
    "history.players": route("/players", "GET", lambda w: [own("GET", "/players", shows="Jasper")]),
    "history.player": route("/players/<int:player_id>", "GET", lambda w: [
        foreign("GET", f"/players/{i}") for i in w.players.values()] + [
        own("GET", f"/players/{w.jones_players['Jasper']}", shows="Jasper")]),
    "history.records": route("/records", "GET", lambda w: [
        own("GET", "/records", shows="Jasper"),
        own("GET", f"/records?a={w.players['Zebediah']}&b={w.players['Ottoline']}"),
        own("GET", f"/records?a={w.jones_players['Jasper']}&b={w.players['Ottoline']}", shows="Jasper")]),
    "history.seasons_index": route("/seasons", "GET", lambda w: [own("GET", "/seasons")]),
    "history.season": route("/seasons/<period>", "GET", lambda w: [
        own("GET", f"/seasons/{THIS_YEAR}", shows="Jasper"),
        own("GET", f"/seasons/{THIS_YEAR}-01-01..{THIS_YEAR}-12-31", shows="Jasper"),
        own("GET", f"/seasons/{THIS_YEAR}?from={THIS_YEAR}-01-01&to={THIS_YEAR}-06-30")]),
    "printing.booklet": route("/seasons/<period>/booklet.pdf", "GET", lambda w: [
        own("GET", f"/seasons/{THIS_YEAR}/booklet.pdf")]),
    "transfer.export": route("/export.<any(json, csv):kind>", "GET", lambda w: [
        own("GET", "/export.json", shows="Jasper"), own("GET", "/export.csv", shows="Jasper")]),
    "transfer.import_view": route("/import", "GET POST", lambda w: [
        # jones's own export sent back: every game is already there. (Fairweather's export is
        # tried in test_importing_another_familys_export_leaves_that_family_alone.)
        own("GET", "/import"), own("POST", "/import", upload=w.jones_export, shows="already here")]),
    "transfer.sheet_upload": route("/import/sheet", "GET POST", lambda w: [
        own("GET", "/import/sheet", shows=JONES_RULES["name"]),
        own("POST", "/import/sheet", {"rules": "family-7"}, upload=SHEET_CSV, shows="Jasper")]),
    # A name in the sheet said to be Fairweather's Zebediah: not a player of the Joneses, so a new one.
    "transfer.sheet_check": route("/import/sheet/check", "POST", lambda w: [
        own("POST", "/import/sheet/check", {"rules": "family-7", "token": w.sheet_token(w.joneses),
                                            "map:zeb": "Zebediah", "action": "check"}, shows="New player “Zeb”"),
        own("POST", "/import/sheet/check", {"rules": f"house-{w.rules_id}", "token": w.sheet_token(w.joneses)}),
        # Fairweather's preview, its token in jones's form: the preview is lost, nothing of it shown.
        own("POST", "/import/sheet/check", {"rules": "family-7", "token": w.sheet_token(w.ours),
                                            "action": "import"})]),
    "transfer.sheet_template": route("/import/sheet/template/<key>.<any(xlsx, csv):kind>", "GET", lambda w: [
        foreign("GET", f"/import/sheet/template/house-{w.rules_id}.xlsx"),
        own("GET", f"/import/sheet/template/house-{w.jones_rules}.csv", shows="Round 1")]),
    # -- house rules --
    "house_rules.index": route("/house-rules", "GET", lambda w: [own("GET", "/house-rules", shows=JONES_RULES["name"])]),
    "house_rules.new": route("/house-rules/new", "GET POST", lambda w: [
        own("GET", "/house-rules/new"), own("GET", "/house-rules/new?from=family-7"),
        # Fairweather's rules to copy, by their key: a blank editor, nothing of theirs.
        own("GET", f"/house-rules/new?from=house-{w.rules_id}"),
        own("GET", f"/house-rules/new?from=house-{w.jones_rules}", shows=JONES_RULES["name"] + " (copy)"),
        own("POST", "/house-rules/new", {**JONES_RULES, "step": "add:rounds"}, shows=JONES_RULES["name"]),
        own("POST", "/house-rules/new", {**JONES_RULES, "name": "Jolly Jumble Too"}, shows="Jolly Jumble Too")]),
    "house_rules.show": route("/house-rules/<int:rules_id>", "GET", lambda w: [
        foreign("GET", f"/house-rules/{w.rules_id}"),
        own("GET", f"/house-rules/{w.jones_rules}", shows=JONES_RULES["name"])]),
    "house_rules.card_pdf": route("/house-rules/<int:rules_id>/card.pdf", "GET", lambda w: [
        foreign("GET", f"/house-rules/{w.rules_id}/card.pdf"),
        own("GET", f"/house-rules/{w.jones_rules}/card.pdf", shows=JONES_RULES["name"])]),
    "house_rules.export": route("/house-rules/<int:rules_id>/rules.json", "GET", lambda w: [
        foreign("GET", f"/house-rules/{w.rules_id}/rules.json"),
        own("GET", f"/house-rules/{w.jones_rules}/rules.json", shows=JONES_RULES["name"])]),
    "house_rules.edit": route("/house-rules/<int:rules_id>/edit", "GET POST", lambda w: [
        foreign("GET", f"/house-rules/{w.rules_id}/edit"),
        foreign("POST", f"/house-rules/{w.rules_id}/edit", OUR_RULES),
        own("GET", f"/house-rules/{w.jones_rules}/edit", shows=JONES_RULES["name"]),
        own("POST", f"/house-rules/{w.jones_rules}/edit", {**JONES_RULES, "p_K": "25"}, shows=JONES_RULES["name"])]),
    # tester's POST, after jones's 404, deletes the rules: the last call on them.
    "house_rules.delete": route("/house-rules/<int:rules_id>/delete", "GET POST", lambda w: [
        foreign("GET", f"/house-rules/{w.rules_id}/delete"), foreign("POST", f"/house-rules/{w.rules_id}/delete"),
        own("GET", f"/house-rules/{w.jones_rules}/delete", shows=JONES_RULES["name"])]),
    # jones's own rules file sent back: they are already there.
    "house_rules.import_file": route("/house-rules/import", "POST", lambda w: [
        own("POST", "/house-rules/import", upload=w.jones_rules_file, shows="already here")]),
}

# A spreadsheet of one past game, with Jasper of the Joneses and a Zeb nobody has.
SHEET_CSV = ("Date,Player," + ",".join(f"Round {n}" for n in range(1, 8)) + "\n2024-05-01,Jasper,0,5,5,5,5,5,5\n"
             "2024-05-01,Zeb,5,0,0,0,0,0,0\n2024-05-01,Jolyon,5,5,5,5,5,5,5\n").encode()
AUTOMATIC = {"HEAD", "OPTIONS"}  # Flask answers these for every GET rule / every rule


# -- sending and reading ---------------------------------------------------------------------


def send(app, username: str, call: Call, *, follow: bool = False):
    """The request from a fresh client signed in as ``username`` (any 500 fails at once)."""
    client = strict_client(app, username)
    data = dict(call.data or {})
    if call.upload is not None:
        data["file"] = (io.BytesIO(call.upload), "export.json")
    if call.json is not None:
        return client.open(call.url, method=call.method, json=call.json, follow_redirects=follow)
    return client.open(call.url, method=call.method, data=data or None, follow_redirects=follow)


def readable(response) -> str:
    """Everything the answer says: headers, and the body as text (a PDF's text and metadata)."""
    body = response.get_data()
    if response.headers.get("Content-Encoding") == "gzip":
        body = gzip.decompress(body)
    if response.mimetype == "application/pdf" and body:
        reader = PdfReader(io.BytesIO(body))
        text = " ".join(page.extract_text() for page in reader.pages)
        text += " " + " ".join(str(v) for v in (reader.metadata or {}).values())
    else:
        text = body.decode("utf-8", "replace")
    return f"{response.headers}\n{text}"


def assert_no_leak(world: World, response, where: str) -> str:
    text = readable(response)
    leaked = [s for s in world.forbidden if s.casefold() in text.casefold()]
    assert not leaked, f"{where}: jones's answer ({response.status_code}) shows Fairweather's {leaked}"
    return text


def expanded(calls: list[Call]) -> list[Call]:
    """OPTIONS once per URL, and each GET followed by the same HEAD."""
    out, seen = [], set()
    for call in calls:
        if call.url not in seen:
            seen.add(call.url)
            out.append(Call("OPTIONS", call.url, foreign=call.foreign))
        out.append(call)
        if call.method == "GET":
            out.append(Call("HEAD", call.url, foreign=call.foreign, shows=None))
    return out


def check_foreign(world: World, where: str, call: Call) -> None:
    app = world.app
    before = db_snapshot(app)
    response = send(app, JONES, call)
    assert_no_leak(world, response, where)
    if call.method == "OPTIONS":
        # Flask's own answer, the same for any id: the methods allowed, nothing else.
        assert response.status_code == 200 and response.get_data() == b"", f"{where}: {response.status_code}"
    else:
        assert response.status_code == 404, (
            f"{where}: jones got {response.status_code} for Fairweather's id, not 404: {text_of(response)[:300]}")
    assert db_snapshot(app) == before, f"{where}: jones's request changed the database"
    if call.method != "OPTIONS":
        mine = send(app, TEST_USERNAME, call)
        assert mine.status_code < 400, (
            f"{where}: tester, whose id it is, got {mine.status_code}, so jones's 404 proves nothing: "
            f"{text_of(mine)[:300]}")


def check_own(world: World, where: str, call: Call) -> None:
    app = world.app
    before = family_rows(app, world.ours)
    response = send(app, JONES, call, follow=True)
    assert response.status_code < 400, f"{where}: jones got {response.status_code}: {text_of(response)[:300]}"
    text = assert_no_leak(world, response, where)
    if call.shows:
        assert call.shows in text, f"{where}: jones's answer lacks {call.shows!r}: {text_of(text)[:300]}"
    assert family_rows(app, world.ours) == before, f"{where}: jones's request changed Fairweather's rows"


# -- the tests -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built_world(tmp_path_factory):
    """Both families, built once per test process: ``(their database's URL, the World)``."""
    with built(tmp_path_factory.mktemp("isolation"), build_world) as made:
        yield made


@pytest.fixture
def world(built_world, tmp_path) -> World:
    """Both families on a copy of the built database of the test's own."""
    url, made = built_world
    return replace(made, app=copy_app(url, tmp_path), forbidden=list(made.forbidden))


@pytest.fixture
def app(world):
    return world.app


def test_every_rule_of_the_url_map_has_a_line_in_the_table(app):
    in_map = {(r.endpoint, r.rule, frozenset(r.methods - AUTOMATIC)) for r in app.url_map.iter_rules()}
    in_table = {(endpoint, r.rule, r.methods) for endpoint, r in ROUTES.items()}
    assert in_map - in_table == set(), "rules (or methods) without a line in ROUTES: say how to call them"
    assert in_table - in_map == set(), "lines in ROUTES for rules the app no longer has"


@pytest.mark.parametrize("endpoint", sorted(ROUTES))
def test_another_familys_ids_get_404_and_no_page_shows_its_data(app, world, endpoint):
    spec = ROUTES[endpoint]
    calls = spec.calls(world)
    assert {c.method for c in calls} == spec.methods, f"{endpoint}: every method of the rule is called"
    adapter = app.url_map.bind("localhost")
    ours = {"game_id": set(world.our_game_ids), "player_id": set(world.players.values()),
            "invite_id": {world.invite_id}, "link_id": {world.link_id}, "rules_id": {world.rules_id},
            "key": {f"house-{world.rules_id}"}}
    for call in expanded(calls):
        where = f"{endpoint} [{spec.rule}] {call}"
        matched, args = adapter.match(call.url.partition("?")[0], method=call.method)
        assert matched == endpoint, f"{where}: the URL goes to {matched}"
        named = [name for name, value in args.items() if value in ours.get(name, ())]
        assert bool(named) == call.foreign, f"{where}: foreign calls, and only they, name Fairweather's ids"
        (check_foreign if call.foreign else check_own)(world, where, call)


def test_an_invite_link_shows_a_stranger_the_family_name_and_nothing_else(app, world):
    page = strict_client(app, None).get(f"/join/{world.invite_token}")
    assert page.status_code == 200
    assert f"Join {OUR_FAMILY}" in text_of(page)  # intended: whoever has the link sees whom they join
    world.forbidden.remove(OUR_FAMILY)
    assert_no_leak(world, page, "GET /join/<Fairweather's token> signed out")


@pytest.mark.parametrize("as_csv", [False, True], ids=["json", "csv"])
def test_cli_export_of_one_family_holds_nothing_of_the_other(app, world, tmp_path, as_csv):
    runner = app.test_cli_runner()
    with app.app_context():
        jones_uid = db.session.execute(select(Game.uid).where(Game.id == world.jones_game)).scalar_one()
    exports = {}
    for chosen in (JONESES, str(world.joneses), OUR_FAMILY, str(world.ours)):
        out = tmp_path / f"export-{chosen}"
        result = runner.invoke(args=["export", "--family", chosen, "-o", str(out), *(["--csv"] if as_csv else [])])
        assert result.exit_code == 0, result.output
        exports[chosen] = out.read_text()
    for chosen in (JONESES, str(world.joneses)):
        text = exports[chosen]
        assert "Jasper" in text and jones_uid in text, f"--family {chosen}: {text[:300]}"
        leaked = [s for s in world.forbidden if s in text]
        assert not leaked, f"export --family {chosen} holds Fairweather's {leaked}"
    for chosen in (OUR_FAMILY, str(world.ours)):
        text = exports[chosen]
        assert "Zebediah" in text and all(uid in text for uid in world.uids), f"--family {chosen}: {text[:300]}"
        leaked = [s for s in [JONESES, *JONES_PLAYERS, jones_uid] if s in text]
        assert not leaked, f"export --family {chosen} holds the Joneses' {leaked}"


def import_fairweathers_export_as_jones(app, world):
    export = strict_client(app).get("/export.json").get_data()
    before = family_rows(app, world.ours)
    answer = send(app, JONES, own("POST", "/import", upload=export), follow=True)
    assert answer.status_code < 400, text_of(answer)[:300]
    assert family_rows(app, world.ours) == before, "importing into the Joneses changed Fairweather's rows"
    return answer


def test_importing_another_familys_export_leaves_that_family_alone(app, world):
    import_fairweathers_export_as_jones(app, world)


def test_importing_another_familys_export_counts_only_the_importing_familys_games(app, world):
    """Copies for the Joneses; the message says nothing about who else holds those games."""
    answer = import_fairweathers_export_as_jones(app, world)
    assert "Imported 3 games; 0 were already here." in text_of(answer)


def test_another_familys_house_rules_key_prints_no_sheet(app, world):
    """``/print/sheet.pdf?variant=house-<Fairweather's id>``: the form's error (a 400), nothing of
    Fairweather's rules on it, nothing written."""
    before = db_snapshot(app)
    call = own("GET", f"/print/sheet.pdf?variant=house-{world.rules_id}&players=Jasper,Jemima,Jolyon")
    for method in ("GET", "HEAD"):
        response = send(app, JONES, Call(method, call.url))
        assert response.status_code == 400, f"{method} {call.url}: {response.status_code}"
        assert_no_leak(world, response, f"{method} {call.url}")
    assert "Choose the rules to print." in text_of(send(app, JONES, call))
    assert db_snapshot(app) == before
    assert send(app, TEST_USERNAME, call).mimetype == "application/pdf"  # the key is real: it is the family check


def test_importing_another_familys_rules_file_leaves_that_family_alone(app, world):
    """A rules file is meant to travel: the Joneses get their own copy, Fairweather's row stays."""
    file = strict_client(app).get(f"/house-rules/{world.rules_id}/rules.json").get_data()
    before = family_rows(app, world.ours)
    answer = send(app, JONES, own("POST", "/house-rules/import", upload=file))
    assert answer.status_code == 302, text_of(answer)[:300]
    assert family_rows(app, world.ours) == before, "importing into the Joneses changed Fairweather's rows"
    with app.app_context():
        copies = db.session.execute(select(HouseRules.id, HouseRules.family_id)
                                    .where(HouseRules.name == OUR_RULES["name"])).all()
    assert sorted(family for _, family in copies) == sorted([world.ours, world.joneses])
    assert answer.headers["Location"] != f"/house-rules/{world.rules_id}"
