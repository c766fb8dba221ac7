"""One validation of rules wherever they come from (issue 17): the editor, a rules file, a family's
export and the rules already stored are held to the same bounds (``scorekeeper.rules.limits``) and
the same playability checks (``house.variant_problems``). Numbers beyond the bounds are refused
with the reason and nothing is written; the largest rules allowed still print on one page."""

from __future__ import annotations

import copy
import io
import json
from dataclasses import replace
from itertools import count
from typing import NamedTuple

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import example, given
from hypothesis import strategies as st

from scorekeeper import rules
from scorekeeper.printing import documents
from scorekeeper.rules import limits
from scorekeeper.rules.house import variant_problems, wild_suit_cards
from scorekeeper.transfer import checks
from tests.actions import GameActions
from tests.built_databases import built, signed_in, signed_in_copy
from tests.databases import db_snapshot
from tests.fuzz_strategies import fuzz
from tests.pages import element_text, text_of
from tests.test_house_rules import editor
from tests.test_printing import pdf_text

BASE = replace(rules.get_variant("shanghai-10"), key="", name="Limits")  # 2-8 players, 10 rounds
HOUSE_KEY = "house-limits"


def rules_file(variant_data: dict) -> bytes:
    data = {k: v for k, v in variant_data.items() if k != "key"}
    return json.dumps({"format": "scorekeeper-variant", "version": 1, "variant": data}).encode()


def import_rules_file(client, raw: bytes):
    return client.post("/house-rules/import", data={"file": (io.BytesIO(raw), "rules.json")})


_uids = count()


def export_with(variant_data: dict, *, as_game: bool = True) -> dict:
    """An export holding these rules: as a game's snapshot (its fewest players seated, every round
    still to play) or as the family's house rules."""
    snapshot = {**variant_data, "key": HOUSE_KEY}
    low = variant_data.get("min_players")
    seats = [f"P{i}" for i in range(low if isinstance(low, int) and 2 <= low <= limits.MOST_PLAYERS else 2)]
    result = {"buys": 0, "laid_down": False, "went_out": False, "cards": "", "hand_total": None,
              "bonus_code": "", "bonus": 0, "points": 0}
    game = {
        "uid": f"limits-{next(_uids)}", "variant_key": HOUSE_KEY, "rules": snapshot, "skip_first_hand": False,
        "first_dealer": 0, "status": "in_progress", "started_at": "2026-01-02T19:00:00", "finished_at": None,
        "seats": seats, "changes": [],
        "rounds": [{"position": p, "number": r.get("number") if isinstance(r, dict) else None, "dealer": p % len(seats),
                    "recorded_at": None, "version": 0, "results": [{**result, "player": s} for s in seats]}
                   for p, r in enumerate(variant_data.get("rounds", []))],
    }
    return {
        "format": "scorekeeper-export", "version": 1, "exported_at": "2026-01-03T10:00:00",
        "family": {"name": "Our family"},
        "players": [{"name": s, "created_at": "2026-01-01T10:00:00"} for s in seats],
        "house_rules": [] if as_game else [{"key": HOUSE_KEY, "name": "Limits", "rules": snapshot}],
        "games": [game] if as_game else [],
    }


def refusal(data: dict) -> str:
    """Why ``checks.parse`` refuses the export (empty if it takes it)."""
    try:
        checks.parse(json.dumps(data))
    except checks.TransferError as error:
        return str(error)
    return ""


def with_round(variant: rules.Variant, index: int, **changes) -> rules.Variant:
    rounds = list(variant.rounds)
    rounds[index] = replace(rounds[index], **changes)
    return replace(variant, rounds=tuple(rounds))


# -- the defects, one by one ----------------------------------------------------------------------

def test_d1_a_rules_file_with_ten_million_buys_is_refused_with_the_reason(client, app):
    before = db_snapshot(app)
    page = import_rules_file(client, rules_file(with_round(BASE, 0, buy_limit=10_000_000).to_dict()))
    assert page.status_code == 400
    assert "Nothing was imported" in text_of(page)
    assert "variant.rounds[0].buy_limit: At most 20 buys in a hand." in text_of(page)
    assert db_snapshot(app) == before


def test_d1_a_full_import_with_a_billion_buys_in_a_games_rules_is_refused(client, app):
    data = export_with(with_round(BASE, 3, buy_limit=10**9).to_dict())
    assert refusal(data) == "games[0].rules.rounds[3].buy_limit: At most 20 buys in a hand."
    before = db_snapshot(app)
    page = client.post("/import", data={"file": (io.BytesIO(json.dumps(data).encode()), "export.json")})
    assert element_text(page, "file-errors") == (
        "Nothing was imported: games[0].rules.rounds[3].buy_limit: At most 20 buys in a hand.")
    assert db_snapshot(app) == before


def test_d1_stored_rules_beyond_the_bounds_draw_no_more_boxes_than_a_hand_has(app):
    """Rules stored before the bounds (a house rule or a game's snapshot) print a bounded sheet."""
    stored = with_round(BASE, 0, buy_limit=10_000_000)
    sheet = documents.blank_sheet(stored, 3)
    assert max(row["buy_limit"] for row in sheet["rows"]) == limits.MOST_BUYS
    with app.test_request_context():
        html = documents.render_template("printing/sheet.html", **documents.sheet_document(sheet, "a4").context)
    # Twenty buys are written as a count to fill in, not boxes; the other rounds keep a box per buy.
    assert html.count(f"__/{limits.MOST_BUYS}") == 3 and len(html) < 100_000
    assert html.count("☐") == 3 * sum(r.buy_limit for r in BASE.rounds[1:])


TRIMMED = replace(rules.get_variant("family-7"), key="", name="Limits",
                  deck_rules=rules.get_variant("family-7").deck_rules[:1])  # 3-8 players, a row for 3-4 only


@pytest.mark.parametrize("variant, as_game, message", [
    (TRIMMED, False, "house_rules[0].rules.deck_rules: No row says which decks 5 players use."),
    (replace(BASE, points={**BASE.points, "K": -5}), True,
     "games[0].rules.points.K: Cards left in hand count against you: points cannot be negative."),
    (replace(BASE, suit_cards=wild_suit_cards("black-2s", -50)), True,
     "games[0].rules.suit_cards: Cards left in hand count against you: points cannot be negative."),
    (with_round(BASE, 0, buy_limit=-3), True, "games[0].rules.rounds[0].buy_limit: Buys cannot be negative."),
    (replace(BASE, points={**BASE.points, "K": 10**9}), True, "games[0].rules.points.K: At most 1000 points a card."),
], ids=["trimmed-deck-rows", "negative-points", "negative-wild-2", "negative-buys", "billion-point-king"])
def test_d2_d3_a_full_import_refuses_what_the_editor_refuses(client, app, variant, as_game, message):
    data = export_with(variant.to_dict(), as_game=as_game)
    assert refusal(data) == message
    before = db_snapshot(app)
    page = client.post("/import", data={"file": (io.BytesIO(json.dumps(data).encode()), "export.json")})
    assert element_text(page, "file-errors") == f"Nothing was imported: {message}"
    assert db_snapshot(app) == before


def test_d3_a_rules_file_with_a_billion_point_king_is_refused(client, app):
    before = db_snapshot(app)
    page = import_rules_file(client, rules_file(replace(BASE, points={**BASE.points, "K": 10**9}).to_dict()))
    assert page.status_code == 400
    assert "variant.points.K: At most 1000 points a card." in text_of(page)
    assert db_snapshot(app) == before


def test_the_biggest_hand_of_the_largest_rules_fits_a_32_bit_column():
    """Every number at its bound: the most a hand typed by hand may total, over a whole game."""
    most = LARGEST_CARRY
    assert variant_problems(most) == []
    per_hand = max(rules.max_hand_points(most, r) + abs(most.going_out_points(r.number)) for r in most.rounds)
    assert per_hand * len(most.rounds) < 2**31 - 1


@pytest.mark.parametrize("key", sorted(rules.VARIANTS))
def test_presets_are_inside_every_bound_and_import_as_game_rules(key):
    variant = rules.VARIANTS[key]
    assert limits.bound_problems(variant) == [] and variant_problems(variant) == []
    data = export_with({**variant.to_dict(), "min_players": max(variant.min_players, 2)})
    assert refusal(data) == ""


# -- one property: every path takes or refuses the same rules -------------------------------------

def _round(d, i):
    return d["rounds"][i]


def _many(n: int, bound: int) -> int:
    """A count of things to make: beyond the bound, but not a billion of them."""
    return max(0, min(n, 3 * bound))


def _set_rounds(d, n):
    d["rounds"] = [{**copy.deepcopy(d["rounds"][0]), "number": k} for k in range(1, _many(n, limits.MOST_ROUNDS) + 1)]


def _set_game_buys(d, n):
    d["buys_counted"], d["buys_per_game"] = "game", n


def _set_meld(d, n):
    d["rounds"][2]["melds"] = [{"kind": "run", "size": n, "rank": None}]


def _set_melds(d, n):
    d["rounds"][0]["melds"] = [{"kind": "set", "size": 2, "rank": None}] * _many(n, limits.MOST_MELDS)


def _set_wild_2(d, n):
    d["suit_cards"] = [{"code": "2B", "rank": "2", "suits": ["S", "C"], "points": n, "wild": True}]


def _set_bonus(d, n):
    d["bonuses"] = [{"code": "blind", "label": "Went out blind", "points": -n, "anyone": False}]


# What to change, and the bound it is tried around.
CHANGES = {
    "buy_limit": (lambda d, n: _round(d, 0).update(buy_limit=n), limits.MOST_BUYS),
    "cards_dealt": (lambda d, n: _round(d, 9).update(cards_dealt=n), limits.MOST_DEALT),
    "round_number": (lambda d, n: _round(d, 1).update(number=n), 2),
    "rounds": (_set_rounds, limits.MOST_ROUNDS),
    "cards_per_buy": (lambda d, n: d.update(cards_per_buy=n), limits.MOST_CARDS_PER_BUY),
    "buys_per_turn": (lambda d, n: d.update(buys_per_turn=n), limits.MOST_BUYS_PER_TURN),
    "buys_per_game": (_set_game_buys, limits.MOST_BUYS * len(BASE.rounds)),
    "points_K": (lambda d, n: d["points"].update(K=n), limits.MOST_POINTS),
    "points_JK": (lambda d, n: d["points"].update(JK=n), limits.MOST_POINTS),
    "wild_2": (_set_wild_2, limits.MOST_POINTS),
    "going_out_bonus": (lambda d, n: d.update(going_out_bonus=n), limits.MOST_BONUS),
    "blind_bonus": (_set_bonus, limits.MOST_BONUS),
    "min_players": (lambda d, n: d.update(min_players=n), 2),
    "max_players": (lambda d, n: d.update(max_players=n), limits.MOST_PLAYERS),
    "decks": (lambda d, n: d["deck_rules"][1].update(decks=n), limits.MOST_DECKS),
    "jokers": (lambda d, n: d["deck_rules"][1].update(jokers=n), limits.MOST_JOKERS),
    "deck_row_to": (lambda d, n: d["deck_rules"][1].update(max_players=n), 8),
    "meld_size": (_set_meld, limits.MOST_MELD),
    "melds": (_set_melds, limits.MOST_MELDS),
    "min_natural": (lambda d, n: d.update(min_natural=n), 2),
    "joker_limit": (lambda d, n: d.update(joker_limits=[["run", 4, n]]), 4),
}


@st.composite
def rules_near_the_bounds(draw) -> tuple[dict, list[str]]:
    d = BASE.to_dict()
    names = draw(st.lists(st.sampled_from(sorted(CHANGES)), min_size=0, max_size=3, unique=True))
    for name in names:
        change, bound = CHANGES[name]
        value = draw(st.one_of(st.integers(bound - 2, bound + 2),
                               st.sampled_from([0, -1, -3, 10**7, 10**9, 2 * bound])))
        change(d, value)
    return d, names


@fuzz(40)
@given(case=rules_near_the_bounds())
@example(case=(BASE.to_dict(), []))
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_every_path_takes_or_refuses_the_same_rules(client, app, case):
    d, _ = case
    taken = not variant_problems(rules.Variant.from_dict(copy.deepcopy(d)))
    # A family's export: as house rules, and as a game's rules snapshot.
    for as_game in (False, True):
        assert (refusal(export_with(d, as_game=as_game)) == "") == taken, (as_game, refusal(export_with(d)))
    before = db_snapshot(app)
    page = import_rules_file(client, rules_file(d))
    assert (page.status_code == 302) == taken, text_of(page)
    if not taken:
        assert page.status_code == 400 and "Nothing was imported" in text_of(page)
        assert db_snapshot(app) == before
    raw = json.dumps(export_with(d)).encode()
    before = db_snapshot(app)
    page = client.post("/import", data={"file": (io.BytesIO(raw), "export.json")})
    assert (page.status_code == 302) == taken, text_of(page)
    if not taken:
        assert element_text(page, "file-errors").startswith("Nothing was imported: games[0].rules")
        assert db_snapshot(app) == before


# The editor's fields for the changes above that one field of it makes.
EDITOR_FIELDS = {
    "buy_limit": "rounds-0-buy_limit", "cards_dealt": "rounds-9-cards_dealt", "cards_per_buy": "cards_per_buy",
    "buys_per_turn": "buys_per_turn", "buys_per_game": "buys_per_game", "points_K": "p_K", "points_JK": "p_JK",
    "min_players": "min_players", "max_players": "max_players", "decks": "deck_rules-1-decks",
    "jokers": "deck_rules-1-jokers", "min_natural": "min_natural",
}


@fuzz(40)
@given(name=st.sampled_from(sorted(EDITOR_FIELDS)), offset=st.integers(-3, 3), huge=st.sampled_from([None, 10**9]))
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_the_editor_takes_or_refuses_what_every_other_path_does(client, app, name, offset, huge):
    change, bound = CHANGES[name]
    value = huge if huge is not None else bound + offset
    d = BASE.to_dict()
    change(d, value)
    taken = not variant_problems(rules.Variant.from_dict(d))
    form = editor(client, "shanghai-10")
    form.update({"name": f"Limits {next(_uids)}", EDITOR_FIELDS[name]: str(value)})
    if name == "buys_per_game":
        form["buys_counted"] = "game"
    before = db_snapshot(app)
    page = client.post("/house-rules/new", data=form)
    assert (page.status_code == 302) == taken, (name, value, text_of(page)[:300])
    if not taken:
        assert db_snapshot(app) == before


# -- the largest rules allowed print on one page --------------------------------------------------

LARGEST = replace(
    BASE, name="Largest", min_players=2, max_players=8, deck_rules=(rules.DeckRule(2, 8, limits.MOST_DECKS,
                                                                                   limits.MOST_JOKERS),),
    rounds=tuple(rules.Round(n, "two sets of 3", (rules.Meld("set", 3),) * 2, limits.MOST_DEALT, limits.MOST_BUYS)
                 for n in range(1, limits.MOST_ROUNDS + 1)),
    cards_per_buy=limits.MOST_CARDS_PER_BUY, buys_per_turn=limits.MOST_BUYS_PER_TURN,
    points={**BASE.points, "K": limits.MOST_POINTS, "JK": limits.MOST_POINTS},
    going_out_bonus=limits.MOST_BONUS, going_out_per_round=True,
    bonuses=(rules.Bonus("blind", "Went out blind (used a joker)", -limits.MOST_BONUS),),
)
LARGEST_CARRY = replace(LARGEST, buys_counted="carry", max_players=limits.MOST_PLAYERS,
                        deck_rules=(rules.DeckRule(2, limits.MOST_PLAYERS, limits.MOST_DECKS, limits.MOST_JOKERS),))
EIGHT = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def play_largest_game(app) -> Largest:
    """The largest rules as house rules, and a game of them: every hand recorded, every buy made."""
    client = signed_in(app)
    actions = GameActions(client, app)
    page = import_rules_file(client, rules_file(LARGEST.to_dict()))
    assert page.status_code == 302, text_of(page)
    key = "house-" + page.headers["Location"].rsplit("/", 1)[1]
    game_id = actions.new_game(key, EIGHT, first_dealer="Ann")
    ids = actions.player_ids(game_id)
    for number in range(1, limits.MOST_ROUNDS + 1):
        actions.record(ids, game_id, number, "Ann", {name: "K K JK" for name in EIGHT[1:]},
                       buys=dict.fromkeys(EIGHT, limits.MOST_BUYS))
    return Largest(app, client, key, game_id)


class Largest(NamedTuple):
    app: Flask
    client: FlaskClient  # signed in as tester
    key: str  # the house rules' key
    game_id: int


@pytest.fixture(scope="module")
def built_largest(tmp_path_factory):
    """The largest game, played once per test process: (its database's URL, what was played)."""
    with built(tmp_path_factory.mktemp("largest"), play_largest_game) as made:
        yield made


@pytest.fixture
def largest_game(built_largest, tmp_path) -> Largest:
    """The largest game on a copy of its database of the test's own."""
    url, played = built_largest
    return played._replace(**dict(zip(("app", "client"), signed_in_copy(url, tmp_path), strict=True)))


def test_the_largest_rules_allowed_are_allowed():
    assert variant_problems(LARGEST) == [] and variant_problems(LARGEST_CARRY) == []


def one_page(response) -> None:
    assert response.status_code == 200, text_of(response)
    pages, text = pdf_text(response.data)
    assert pages == 1 and "Largest" in text


@pytest.mark.slow  # a 20-round game of 8 players played first
@pytest.mark.parametrize("paper", documents.PAPERS)
def test_the_largest_rules_print_a_blank_sheet_on_one_page(largest_game, paper):
    client, key = largest_game.client, largest_game.key
    one_page(client.get(f"/print/sheet.pdf?variant={key}&players={','.join(EIGHT)}&paper={paper}"))


@pytest.mark.slow  # a 20-round game of 8 players played first
@pytest.mark.parametrize("paper", documents.PAPERS)
def test_the_largest_rules_print_a_filled_sheet_on_one_page(largest_game, paper):
    one_page(largest_game.client.get(f"/games/{largest_game.game_id}/sheet.pdf?paper={paper}"))


@pytest.mark.slow  # a 20-round game of 8 players played first
@pytest.mark.parametrize("paper", documents.PAPERS)
def test_the_largest_rules_print_a_rule_card_on_one_page(largest_game, paper):
    one_page(largest_game.client.get(f"/games/{largest_game.game_id}/rules.pdf?paper={paper}"))
