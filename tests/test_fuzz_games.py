"""Fuzzing a new game and the round screen: both new-game steps (presets, seats, dealers and
names at the table), and the buy, take-back, laid-down and undo taps that must be refused."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import Player
from tests.actions import GameActions
from tests.fuzz_strategies import (
    CHARS,
    INT4_MAX,
    INT8_MAX,
    NO_NUL,
    assert_refused,
    consume,
    either,
    event,
    fuzz,
    hostile_text,
    id_of,
    long_text,
    noise,
    normal_name,
    nul_in,
    numbers,
    report_examples,  # noqa: F401 - autouse: reports the examples run
    sent,
    shows_refusal,
    stored_text_problems,
    tick,
    unicode_text,
)
from tests.fuzz_world import World, build_world, game_ids
from tests.pages import element_text, text_of

pytestmark = pytest.mark.slow


# -- new game ---------------------------------------------------------------------------------


def test_new_game_step_one_never_writes():
    """POST /games/new: any preset, chosen players (other families' too) and typed names."""
    w = build_world()
    own = list(w.ids.values()) + list(w.fresh_ids.values())
    player = st.one_of(st.sampled_from(own + w.foreign_pids).map(str), hostile_text)

    plausible = st.lists(st.one_of(st.text(NO_NUL, min_size=1, max_size=40).filter(lambda n: "," not in n),
                                   st.sampled_from(["Ann", "ann", " Bob ", "\u202eCy", "🃏 Di", "Zed"])),
                         min_size=3, max_size=8, unique_by=lambda n: normal_name(n).casefold()).map(", ".join)

    @fuzz(100)
    @given(
        variant=either(st.sampled_from([f"plausible:{v}" for v in rules.VARIANTS]),
                       st.sampled_from(list(rules.VARIANTS)), hostile_text, st.none()),
        players=st.lists(player, max_size=10),
        names=either(plausible, st.none(), unicode_text, long_text,
                     st.lists(st.one_of(unicode_text, st.sampled_from(["Ann", "ann", " Bob "])), max_size=10).map(", ".join)),
        extra=noise(),
    )
    def run(variant, players, names, extra):
        tick()
        if isinstance(variant, str) and variant.startswith("plausible:"):  # a table that should seat
            variant, players = variant.partition(":")[2], []
        data = [("player", p) for p in players] + extra
        if variant is not None:
            data.insert(0, ("variant", variant))
        if names is not None:
            data.insert(0, ("new_players", names))
        before = w.snapshot()
        page = w.client.post("/games/new", data=MultiDict(data))
        event("form error" if shows_refusal(page) else f"seating step ({page.status_code})")
        for name in ("variant", "new_players"):
            if element_text(page, f"{name}-errors"):
                event(f"{name} error: " + re.sub(r"“.*”|\S+ is in|\d+", "…", element_text(page, f"{name}-errors"))[:50])
        assert page.status_code in ((400, 413) if nul_in(*sent(data)) else (200, 413))
        assert w.snapshot() == before
        if page.status_code == 200 and not shows_refusal(page):
            assert "Clockwise around the table" in text_of(page)  # on to the seating step

    run()


@st.composite
def bad_seatings(draw, w: World):
    """A seating step that must start nothing: at least one seat, preset or dealer is wrong."""
    own = [f"p:{pid}" for pid in w.ids.values()]
    good = st.one_of(st.sampled_from(own), st.text(NO_NUL, min_size=1, max_size=40).filter(lambda s: s == s.strip()).map("n:{}".format))
    variant = draw(st.sampled_from(list(rules.VARIANTS)))
    preset = rules.VARIANTS[variant]  # a legal table to begin with, spoilt below
    seats = draw(st.lists(good, min_size=preset.min_players, max_size=preset.max_players,
                          unique_by=lambda s: s.casefold()))
    first = draw(st.one_of(st.just("random"), st.sampled_from(seats) if seats else st.just("random")))
    kinds = draw(st.lists(st.sampled_from(["seat", "variant", "dealer", "count"]), min_size=1, max_size=2, unique=True))
    bad_seat = st.one_of(
        st.sampled_from([f"p:{pid}" for pid in w.foreign_pids] + ["p:0", "p:-1", f"p:{10**30}", "p:²", "p:١",
                         "x:Ann", "n:", "n: Ann", "n:Ann ", "n:" + "x" * 41, "", ":", "p:", "n"]),
        hostile_text.filter(lambda s: not s.startswith(("n:", "p:"))),
    )
    if "seat" in kinds:
        seats.insert(draw(st.integers(0, len(seats))), draw(bad_seat))
    if "variant" in kinds:
        variant = draw(st.one_of(hostile_text, st.sampled_from(["FAMILY-7", "family-7 ", "poker"])).filter(lambda v: v not in rules.VARIANTS))
    if "dealer" in kinds:
        first = draw(hostile_text.filter(lambda v: v != "random" and v not in seats))
    if "count" in kinds:
        limits = rules.VARIANTS[variant] if variant in rules.VARIANTS else rules.VARIANTS["family-7"]
        n = draw(st.sampled_from([0, 1, limits.min_players - 1, limits.max_players + 1, 20]))
        seats = [f"n:Fuzz {i}" for i in range(max(n, 0))]
        first = "random"
    data = [("variant", variant), *[("seat", s) for s in seats], ("first_dealer", first)]
    if draw(st.booleans()):
        data.append(("skip_first_hand", draw(st.sampled_from(["y", "", "\x00", "1"]))))
    return kinds, data + draw(noise())


def test_seating_with_a_bad_seat_preset_or_dealer_starts_nothing():
    """POST /games/new/seating (step 2): tampered seats, presets, dealers, player counts."""
    w = build_world()

    @fuzz(120)
    @given(data=bad_seatings(w), move=st.one_of(st.none(), st.sampled_from(["up:0", "down:0", "up:²", f"down:{10**30}"]), hostile_text))
    def run(data, move):
        tick()
        kinds, data = data
        if move:
            data = data + [("move", move)]
        before = w.snapshot()
        page = w.client.post("/games/new/seating", data=MultiDict(data), follow_redirects=True)
        event(f"{'+'.join(kinds)}{' with move' if move else ''}: {page.status_code}")
        assert page.status_code in ((400, 413) if nul_in(*sent(data)) else (200, 413))
        assert w.snapshot() == before
        if not move:
            assert shows_refusal(page), text_of(page)[:400]

    run()


def test_seating_names_are_refused_or_stored_exactly():
    """Names typed at the table: either refused with nothing written, or the game starts with
    exactly those names."""
    w = build_world()
    names = st.lists(st.text(CHARS, min_size=0, max_size=45), min_size=2, max_size=4)

    @fuzz(60)
    @given(names=names, variant=st.sampled_from(["shanghai-10", "online-11"]))
    def run(names, variant):
        tick()
        with w.app.app_context():
            saved = {p.name.casefold(): p.name for p in db.session.execute(
                sa.select(Player).where(Player.family_id == w.family_id)).scalars()}
        legal = (all(0 < len(n) <= 40 and n == n.strip() for n in names)
                 and len({n.casefold() for n in names}) == len(names) and not nul_in(*names))
        before = w.snapshot()
        page = w.client.post("/games/new/seating", data=MultiDict(
            [("variant", variant), *[("seat", f"n:{n}") for n in names], ("first_dealer", "random")]))
        event("legal names: started" if legal else "refused")
        if legal:
            assert page.status_code == 302 and re.fullmatch(r"/games/\d+", page.headers["Location"]), names
            game_id = int(page.headers["Location"].rsplit("/", 1)[1])
            # A name already saved (in any case) seats that player; a new one is stored as typed.
            assert list(GameActions(app=w.app).player_ids(game_id)) == [saved.get(n.casefold(), n) for n in names]
            assert stored_text_problems(w.app) == []
            consume(w.client, page)
        elif nul_in(*names):
            assert_refused(w.app, page, before)
            assert page.status_code == 400
        else:
            assert page.status_code == 302 and page.headers["Location"] == "/games/new", names
            assert_refused(w.app, w.client.get("/games/new"), before)

    run()


# -- the round screen: buy, take back a buy, laid down, undo ----------------------------------


@st.composite
def player_actions(draw, w: World):
    """A buy, unbuy or laid-down tap that must be refused, with the reason it must be."""
    seated = [str(p) for p in w.ids.values()]
    anyone = st.one_of(st.sampled_from(seated + [str(p) for p in w.foreign_pids]), hostile_text, st.none())
    action = draw(st.sampled_from(["buy", "unbuy", "down"]))
    cases = ["stranger", "closed-round", "abandoned", "foreign-game"]
    cases += {"buy": ["at-limit", "laid-down"], "unbuy": ["no-buy"], "down": []}[action]
    case = draw(st.sampled_from(cases))
    game, number = w.play, 2
    if case == "stranger":
        player = draw(anyone.filter(lambda v: id_of(v) not in w.ids.values()))
    elif case == "closed-round":
        number = draw(st.sampled_from([1, 3, 4, 10, 0, 11, 10**30, 2**64]))
        player = draw(anyone)
    elif case == "abandoned":
        game, number, player = w.abandoned, 1, draw(anyone)
    elif case == "foreign-game":
        game, number = draw(game_ids(w)), 1
        player = draw(st.one_of(anyone, st.sampled_from([str(p) for p in w.other_ids.values()])))
    elif case == "at-limit":  # Cy has used all 3 buys
        player = draw(st.sampled_from([str(w.ids["Cy"]), f" {w.ids['Cy']} ", f"+{w.ids['Cy']}", f"0{w.ids['Cy']}"]))
    elif case == "laid-down":  # family-7: Di has laid down and may not buy
        game, number, player = w.fresh, 1, str(w.fresh_ids["Di"])
    else:  # no-buy: Ann and Bob have not bought this round
        player = draw(st.sampled_from([str(w.ids["Ann"]), str(w.ids["Bob"])]))
    pairs = [] if player is None else [("player", player)]
    if action == "down":
        pairs.append(("laid_down", draw(st.one_of(st.sampled_from(["1", "0"]), hostile_text))))
    pairs += draw(noise({name for name, _ in pairs}))
    return case, f"/games/{game}/rounds/{number}/{action}", pairs


def test_buy_unbuy_and_down_taps_that_must_be_refused():
    w = build_world()

    @fuzz(180)
    @given(player_actions(w))
    def run(tap):
        tick()
        case, url, pairs = tap
        before = w.snapshot()
        page = w.client.post(url, data=MultiDict(pairs), follow_redirects=True)
        event(f"{url.rsplit('/', 1)[1]} {case}: {page.status_code}")
        w.refused(page, before)
        if case == "foreign-game":
            assert page.status_code == (400 if nul_in(*sent(pairs)) else 404)

    run()


def test_undo_that_must_be_refused():
    """POST /games/<id>/undo: a round number that is not the last scored one, a game with
    nothing scored, an abandoned, another family's or a missing game."""
    w = build_world()

    @fuzz(80)
    @given(st.data())
    def run(data):
        tick()
        case = data.draw(st.sampled_from(["wrong-number", "nothing-scored", "abandoned", "foreign"]))
        number = data.draw(st.one_of(st.none(), hostile_text), label="number")
        game = {"wrong-number": w.play, "nothing-scored": w.fresh, "abandoned": w.abandoned}.get(case)
        if case == "wrong-number":
            number = data.draw(st.one_of(numbers.map(str), hostile_text).filter(lambda v: id_of(v) not in (None, 1)))
        if game is None:
            game = data.draw(game_ids(w), label="game")
        pairs = [] if number is None else [("number", number)]
        pairs += data.draw(noise({name for name, _ in pairs}))
        before = w.snapshot()
        page = w.client.post(f"/games/{game}/undo", data=MultiDict(pairs), follow_redirects=True)
        event(f"{case}: {page.status_code}")
        w.refused(page, before)

    run()


def test_abandon_delete_and_cancel_invite_that_must_be_refused():
    """Abandoning an abandoned game; abandoning or deleting another family's or a missing game;
    cancelling another family's, a spent or a missing invite."""
    w = build_world()

    @fuzz(80)
    @given(st.data())
    def run(data):
        tick()
        case = data.draw(st.sampled_from(["abandon-again", "abandon", "delete", "cancel"]))
        if case == "abandon-again":
            url = f"/games/{w.abandoned}/abandon"
        elif case == "cancel":
            invite = data.draw(st.sampled_from([w.other_invite, w.spent_invite, w.own_invite + 100, 0,
                                                INT4_MAX, INT4_MAX + 1, INT8_MAX, 10**30]))
            url = f"/family/invites/{invite}/cancel"
        else:
            url = f"/games/{data.draw(game_ids(w))}/{case}"
        before = w.snapshot()
        extra = data.draw(noise())
        page = w.client.post(url, data=MultiDict(extra), follow_redirects=True)
        event(f"{case}: {page.status_code}")
        w.refused(page, before)
        if case != "abandon-again":
            assert page.status_code == (400 if nul_in(*sent(extra)) else 404)

    run()
