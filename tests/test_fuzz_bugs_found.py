"""The bugs the fuzzing properties found (500s and values PostgreSQL cannot store; fixed in
0405862 and 7cac5dc), a reproduction each with hypothesis's minimal example pinned by
``@example``; they began as ``xfail(strict=True)`` tests."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa
from hypothesis import example, given
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Game
from tests.actions import GameActions
from tests.databases import add_member, make_app, strict_client
from tests.fuzz_strategies import (
    DIGIT_LIMIT,
    INT4_MAX,
    INT8_MAX,
    NO_NUL,
    assert_refused,
    consume,
    exported,
    game_pages,
    hostile_text,
    noise,
    pinned,
    places_in,
    put_at,
    query,
    report_examples,  # noqa: F401 - autouse: reports the examples run
    snapshot,
    stored_text_problems,
    tick,
    upload,
)
from tests.fuzz_world import build_world, game_ids
from tests.pages import score_url, text_of

pytestmark = pytest.mark.slow


# Each bug the fuzzing properties found, with hypothesis's minimal example pinned. They were
# xfail(strict=True) until the fixes (0405862, 7cac5dc); now they keep the bugs from coming back.


def test_seating_page_with_too_few_or_too_many_players():
    """Found here: the seating step redrew its page (for a 'move', or a first dealer not at the
    table) before checking the player count, and seating.html's ``variant.decks_for()`` raised
    outside the preset's range: a 500. Fixed in 7cac5dc."""
    app = make_app()
    client = strict_client(app)

    @pinned()
    @example(variant="family-7", count=1, extra=("move", "up:0"))
    @example(variant="family-7", count=1, extra=("first_dealer", "n:Zed"))
    @given(variant=st.sampled_from(list(rules.VARIANTS)), count=st.integers(1, 12),
           extra=st.tuples(st.sampled_from(["move", "first_dealer"]), hostile_text))
    def run(variant, count, extra):
        tick()
        preset = rules.VARIANTS[variant]
        if preset.min_players <= count <= preset.max_players:
            count = preset.max_players + 1
        seats = [("seat", f"n:P{i}") for i in range(count)]
        before = snapshot(app)
        page = client.post("/games/new/seating", data=MultiDict(
            [("variant", variant), *seats, ("first_dealer", "random"), extra]), follow_redirects=True)
        assert page.status_code == 200
        assert snapshot(app) == before

    run()

NUL_TEXT = st.builds(lambda a, b: (a + "\x00" + b), st.text(NO_NUL, max_size=5), st.text(NO_NUL, max_size=5))


def _nul_case(entry: str, text: str):
    """Send ``text`` (with a NUL in it) where ``entry`` takes text; returns the app."""
    if entry == "welcome":
        app = make_app(family=None)
        strict_client(app, None).post("/welcome", data={"family_name": "Fam" + text, "username": "first",
                                                         "password": "long enough", "confirm": "long enough"})
        return app
    app = make_app()
    if entry == "seating":
        strict_client(app).post("/games/new/seating", data=MultiDict(
            [("variant", "shanghai-10"), ("seat", f"n:Ann{text}"), ("seat", "n:Bob"), ("first_dealer", "random")]))
    elif entry == "family":
        strict_client(app).post("/family", data={"family-name": f"Fam{text}"})
    elif entry == "signup":
        strict_client(app, None).post("/signup", data={"family_name": f"Fam{text}", "username": "second",
                                                        "password": "long enough", "confirm": "long enough"})
    elif entry == "login":
        strict_client(app, None).post("/login", data={"username": f"tester{text}", "password": "wrong password"})
    return app


@pytest.mark.parametrize("entry", ["history-player", "new-game-player", "seating-seat", "seating-move",
                                   "score-version", "path-id"])
def test_a_number_of_more_than_4300_digits_is_not_a_500(entry):
    """Found here: ``int()`` refuses more than 4300 digits (ValueError), and ``is_number()``
    let such text through in /history?player=, /games/new player=, the seating step's seat=p:…
    and move=…, and a saved hand's version; werkzeug's ``<int:…>`` did the same for every id in
    a path: a 500. Fixed in 7cac5dc."""
    app = make_app()
    client = strict_client(app)
    actions = GameActions(client, app)
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    seats = [("variant", "family-7"), ("seat", "n:Di"), ("seat", "n:Eve"), ("seat", "n:Flo")]

    @pinned()
    @example(digit="1", count=DIGIT_LIMIT + 1)
    @given(digit=st.sampled_from("0123456789"), count=st.integers(DIGIT_LIMIT + 1, 20_000))
    def run(digit, count):
        tick()
        number = digit * count
        before = snapshot(app)
        if entry == "history-player":
            page = client.get(f"/history?player={number}")
        elif entry == "new-game-player":
            page = client.post("/games/new", data={"variant": "family-7", "player": number, "new_players": "Di, Eve, Flo"})
        elif entry == "seating-seat":
            page = client.post("/games/new/seating", data=MultiDict(seats + [("seat", f"p:{number}")]))
        elif entry == "seating-move":
            page = client.post("/games/new/seating", data=MultiDict(seats + [("move", f"up:{number}")]))
        elif entry == "score-version":
            page = client.post(score_url(game_id, 1), data={
                "version": number, "action": "save", "went_out": str(ids["Ann"]),
                f"p{ids['Bob']}-k_K": "1", f"p{ids['Cy']}-total": "5"})
        else:
            page = client.get(f"/games/{number}")
        assert page.status_code < 500
        assert snapshot(app) == before

    run()


@pytest.mark.parametrize("entry", ["game-path", "player-path", "invite-cancel", "history-player", "score-version"])
def test_ids_beyond_32_bits_on_postgresql(entry):
    """Found here, on PostgreSQL: ``models.MAX_ID`` was 2**63-1 but ids and versions are
    Integer columns (32 bits there), so an id or version from 2**31 to 2**63-1 passed the check
    and the query failed with 'integer out of range': a 500. Fixed in 7cac5dc."""
    app = make_app()
    client = strict_client(app)
    actions = GameActions(client, app)
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)

    @pinned()
    @example(number=INT4_MAX + 1)
    @example(number=INT8_MAX)
    @given(number=st.integers(INT4_MAX + 1, INT8_MAX))
    def run(number):
        tick()
        before = snapshot(app)
        if entry == "game-path":
            page = client.get(f"/games/{number}/standings")
        elif entry == "player-path":
            page = client.get(f"/players/{number}")
        elif entry == "invite-cancel":
            page = client.post(f"/family/invites/{number}/cancel")
        elif entry == "history-player":
            page = client.get(f"/history?player={number}")
        else:
            page = client.post(score_url(game_id, 1), data={
                "version": str(number), "action": "save", "went_out": str(ids["Ann"]),
                f"p{ids['Bob']}-k_K": "1", f"p{ids['Cy']}-total": "5"}, follow_redirects=True)
            assert "changed on another phone" in text_of(page)
        assert page.status_code in (200, 404)
        assert snapshot(app) == before

    run()


def test_imported_rules_of_the_wrong_type_never_break_a_page():
    """Found here (at 5x the examples): /import checked the numbers of a game's rules snapshot
    but not the kinds of its text fields. A meld rank that is not text broke the game page
    (``Meld.__str__``); a list or object in any text field broke the card entry (the Variant
    could not be hashed for the form cache); in a suit card's code, the import itself: a 500.
    Fixed in 7cac5dc."""
    app = make_app()
    client = strict_client(app)
    actions = GameActions(client, app)
    game_id = actions.new_game("shanghai-rum", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    actions.record(actions.player_ids(game_id), game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})
    export = exported(client)
    texts = sorted((p for p, v in places_in(export["games"][0]["rules"]) if p and isinstance(v, (str, type(None)))), key=repr)
    uids_here = itertools.count(1)

    @pinned()
    @example(place=("rounds", 1, "melds", 0, "rank"), value=True)
    @example(place=("name",), value=[])
    @example(place=("suit_cards", 0, "code"), value=[])
    @given(place=st.sampled_from(texts), value=st.sampled_from([5, True, [], {}, 1.5]))
    def run(place, value):
        tick()
        document = json.loads(json.dumps(export))
        game = document["games"][0]
        game["uid"] = f"typed-{next(uids_here)}"
        put_at(game["rules"], place, value)
        with app.app_context():
            known = set(db.session.execute(sa.select(Game.id)).scalars())
        page = upload(client, json.dumps(document).encode())
        consume(client, page)
        with app.app_context():
            added = set(db.session.execute(sa.select(Game.id)).scalars()) - known
        for new_id in added:
            for url in game_pages(app, new_id):
                client.get(url, follow_redirects=True)  # strict_client fails on a 500

    run()


@pytest.mark.parametrize("entry", ["seating", "family", "welcome", "signup", "login"])
def test_text_with_nul_never_reaches_the_database(entry):
    """Found here: text with a NUL character reached the database - a 500 on PostgreSQL
    ('PostgreSQL text fields cannot contain NUL (0x00) bytes'), stored as is on SQLite. Fixed in
    7cac5dc (a 400 for NUL in any path, query or form field)."""
    @pinned()
    @example(text="\x00")
    @given(text=NUL_TEXT)
    def run(text):
        tick()
        app = _nul_case(entry, text)
        assert stored_text_problems(app) == []

    run()


@pytest.mark.parametrize("place", ["family-name", "cards", "bonus-code", "player-name"])
def test_import_never_stores_more_than_a_column_holds(place):
    """Found here: /import did not check the length of the family name (60), a result's cards
    (200) or bonus_code (30), nor NUL in names: a 500 on PostgreSQL, stored as is on SQLite.
    Fixed in 7cac5dc."""
    app = make_app()
    client = strict_client(app)
    GameActions(client).new_game("shanghai-10", ["Ann", "Bob"], first_dealer="Ann")
    export = exported(client)
    emptied = itertools.count(1)

    @pinned()
    @example(size=61 if place == "family-name" else 201 if place == "cards" else 31 if place == "bonus-code" else 1)
    @given(size=st.integers(1, 400))
    def run(size):
        tick()
        document = json.loads(json.dumps(export))
        game = document["games"][0]
        game["uid"] = f"long-{next(emptied)}"
        result = game["rounds"][0]["results"][0]
        target = client
        if place == "family-name":  # taken only by a family with no players and no games yet
            n = next(emptied)
            add_member(app, f"Empty {n}", f"empty{n}")
            target = strict_client(app, f"empty{n}")
            document.update(family={"name": "F" * size}, players=[], games=[])
        elif place == "cards":
            result["cards"] = " ".join(["K"] * ((size + 1) // 2))
        elif place == "bonus-code":
            result["bonus_code"] = "b" * size
        else:
            name = "\x00" * min(size, 30) + str(next(emptied))  # a new player each time
            for player in document["players"]:
                if player["name"] == "Ann":
                    player["name"] = name
            game["seats"] = [name if s == "Ann" else s for s in game["seats"]]
            for round_ in game["rounds"]:
                for r in round_["results"]:
                    r["player"] = name if r["player"] == "Ann" else r["player"]
        already = Counter(stored_text_problems(app))
        upload(target, json.dumps(document).encode())
        assert sorted((Counter(stored_text_problems(app)) - already).elements()) == []  # added by this import

    run()


def test_family_form_without_its_field_is_refused():
    """Found here (a regression from 0405862): the family-name form is filled with the current
    name and checked DataRequired only, so a POST /family without the field passed, said 'Family
    name saved.' and wrote (family.version moved on). Fixed in 7cac5dc."""
    app = make_app()
    client = strict_client(app)

    @pinned()
    @example(extra=[])
    @given(extra=noise())
    def run(extra):
        tick()
        before = snapshot(app)
        page = client.post("/family", data=MultiDict(extra))
        consume(client, page)
        assert_refused(app, page, before)

    run()


@pytest.mark.parametrize("entry", ["family", "signup", "welcome"])
def test_a_family_name_of_spaces_only_is_refused(entry):
    """Found here too; fixed in 0405862 meanwhile (InputRequired let spaces through, and the
    filter then saved '')."""
    app = make_app(family=None) if entry == "welcome" else make_app()
    client = strict_client(app, "tester" if entry == "family" else None)
    usernames = itertools.count(1)

    @pinned()
    @example(name=" ")
    @given(name=st.text(st.sampled_from(" \t\n\r\u00a0\u2003\u3000\x1c\x85"), min_size=1, max_size=10))
    def run(name):
        tick()
        if entry == "family":
            pairs = {"family-name": name}
        else:
            pairs = {"family_name": name, "username": f"new{next(usernames)}", "password": "long enough",
                     "confirm": "long enough"}
        before = snapshot(app)
        page = client.post({"family": "/family", "signup": "/signup", "welcome": "/welcome"}[entry], data=pairs)
        assert_refused(app, page, before)

    run()


def test_if_none_match_star_is_no_304_for_a_game_that_is_not_the_familys():
    """Found here: ``page_cache.cached_page`` compared ``If-None-Match`` before the view ran, and
    ``*`` matches any tag, so a signed-in member got a 304 (not a 404) for a missing game or
    another family's, on the round screen and the standings. No data went out (a 304 has no
    body, and any id answered alike), but the answer was wrong. Now only the page's own tag
    earns a 304."""
    w = build_world()

    @pinned()
    @example(game=w.missing_game, page="")
    @given(game=game_ids(w), page=st.sampled_from(["", "/standings"]))
    def run(game, page):
        tick()
        assert w.client.get(f"/games/{game}{page}", headers={"If-None-Match": "*"}).status_code == 404

    run()


def test_sign_in_next_stays_on_this_site():
    """Found here too; fixed in 0405862 meanwhile: ``/\t/evil`` passed _safe_next and the
    redirect dropped the tab (Location ``//evil``, an open redirect); a line break was a 500."""
    app = make_app()
    client = strict_client(app)

    @pinned()
    @example(target="/\t/evil.example")
    @example(target="/\n")
    @given(target=st.text(st.sampled_from("/\\\t\n\r .:@%evil"), max_size=12).map(lambda t: "/" + t))
    def run(target):
        tick()
        page = client.get("/login?" + query([("next", target)]))
        assert page.status_code == 302
        location = page.headers["Location"]
        assert location.startswith("/") and not location.startswith(("//", "/\\")), location
        assert urlsplit(location).netloc == ""

    run()
