"""The rules core's results (scorekeeper.rules.results): what each hand scores, the checks a
round's hands must pass before they are recorded, running totals and who leads.

Pure unit tests: no app, no database. Every expected number is worked by hand from
tests/spec/variants.md (point tables, buys, cards per buy, decks), not computed by the code.
"""

from __future__ import annotations

import dataclasses

import pytest

from scorekeeper.rules import (
    Bonus,
    Hand,
    card_counts,
    cards_text,
    get_variant,
    going_out_problem,
    hand_score,
    leaders,
    round_problems,
    running_totals,
)

PRESETS = ("family-7", "shanghai-rum", "shanghai-10", "online-11")

# Player ids and names used by the round checks.
ANN, BOB, CY = 1, 2, 3
NAMES = {ANN: "Ann", BOB: "Bob", CY: "Cy"}


def cards(**counts: int) -> dict[str, int]:
    """Keypad counts written with Python names: ``cards(K=2, JK=1, n10=1)``; ``n`` marks a number."""
    return {code.removeprefix("n"): n for code, n in counts.items()}


# =============================================================================================
# hand_score: the cards left, a total counted by hand, going out and bonuses
# =============================================================================================

# (preset, cards left, points) — the points worked by hand from the point tables of variants.md.
LEFTOVER_HANDS = [
    # family-7: 2–9: 5 · 10, J, Q, K: 10 · A: 15 · Joker: 20
    ("family-7", cards(n9=1, n10=1, A=1, JK=1), 5 + 10 + 15 + 20),  # the spec's worked example: 50
    ("family-7", cards(K=2, n3=1), 10 + 10 + 5),  # 25
    ("family-7", cards(n2=4, JK=2), 4 * 5 + 2 * 20),  # 60
    # shanghai-rum: 2–10: 5 (red twos too) · J, Q, K: 10 · A: 15 · Joker: 25 · black 2: 50
    ("shanghai-rum", cards(n2=1, n2B=1, K=1), 5 + 50 + 10),  # the worked example: 65
    ("shanghai-rum", cards(n10=2, JK=1), 5 + 5 + 25),  # a ten is 5 here: 35
    ("shanghai-rum", cards(A=1, J=1, n2B=2), 15 + 10 + 2 * 50),  # 125
    # shanghai-10: 2–10: 5 · J, Q, K: 10 · A: 15 · Joker: 15
    ("shanghai-10", cards(n10=1, JK=1, A=1), 5 + 15 + 15),  # the worked example: 35
    ("shanghai-10", cards(Q=3), 3 * 10),  # 30
    ("shanghai-10", cards(n2=1, n7=1, K=1, A=2), 5 + 5 + 10 + 2 * 15),  # 50
    # online-11: 2–10 face value · J, Q, K: 10 · A: 20 · Joker: 50 · 2♣: 50
    ("online-11", cards(n7=1, n2=1, n2C=1, A=1), 7 + 2 + 50 + 20),  # the worked example: 79
    ("online-11", cards(n10=1, n9=1, n3=1), 10 + 9 + 3),  # 22
    ("online-11", cards(JK=2, K=1), 2 * 50 + 10),  # 110
]


@pytest.mark.parametrize(("key", "counts", "points"), LEFTOVER_HANDS)
def test_cards_left_score_their_points_from_the_presets_table(key, counts, points):
    hand = Hand(player_id=BOB, counts=counts)
    assert hand_score(get_variant(key), hand, 1) == (points, 0)


def test_hand_score_does_not_depend_on_the_round_for_cards_left():
    variant = get_variant("family-7")
    hand = Hand(player_id=BOB, counts=cards(K=1, A=1))
    assert [hand_score(variant, hand, n) for n in (1, 4, 7)] == [(25, 0)] * 3


@pytest.mark.parametrize("key", PRESETS)
def test_a_total_counted_by_hand_is_the_points(key):
    hand = Hand(player_id=BOB, hand_total=37)
    assert hand_score(get_variant(key), hand, 2) == (37, 0)


@pytest.mark.parametrize("key", PRESETS)
@pytest.mark.parametrize("round_number", [1, 5])
def test_going_out_scores_zero_in_every_preset(key, round_number):
    assert hand_score(get_variant(key), Hand(player_id=ANN, went_out=True), round_number) == (0, 0)


def test_going_out_scores_zero_whatever_cards_are_left_on_the_hand():
    # The checks refuse such a hand; the score of whoever went out is still only the going out.
    hand = Hand(player_id=ANN, went_out=True, counts=cards(K=3))
    assert hand_score(get_variant("family-7"), hand, 1) == (0, 0)


def test_a_house_going_out_bonus_of_10_scores_minus_10_in_every_round():
    house = dataclasses.replace(get_variant("shanghai-10"), going_out_bonus=10)
    out = Hand(player_id=ANN, went_out=True)
    assert hand_score(house, out, 1) == (-10, -10)
    assert hand_score(house, out, 7) == (-10, -10)
    # The others still score their cards, without any bonus.
    assert hand_score(house, Hand(player_id=BOB, counts=cards(K=2)), 1) == (20, 0)


def test_a_going_out_bonus_per_round_is_10_times_the_round():
    house = dataclasses.replace(get_variant("shanghai-10"), going_out_bonus=10, going_out_per_round=True)
    out = Hand(player_id=ANN, went_out=True)
    assert hand_score(house, out, 1) == (-10, -10)
    assert hand_score(house, out, 3) == (-30, -30)
    assert hand_score(house, out, 10) == (-100, -100)


def test_shanghai_10_blind_bonuses_are_the_spec_numbers():
    bonuses = {b.code: (b.points, b.anyone) for b in get_variant("shanghai-10").bonuses}
    assert bonuses == {"blind": (-25, False), "blind-no-joker": (-50, False)}


@pytest.mark.parametrize(("code", "points"), [("blind", -25), ("blind-no-joker", -50)])
def test_going_out_blind_in_shanghai_10_earns_its_bonus(code, points):
    hand = Hand(player_id=ANN, went_out=True, bonus_code=code)
    assert hand_score(get_variant("shanghai-10"), hand, 4) == (points, points)


def test_a_blind_bonus_adds_to_a_house_going_out_bonus():
    house = dataclasses.replace(get_variant("shanghai-10"), going_out_bonus=10)
    hand = Hand(player_id=ANN, went_out=True, bonus_code="blind-no-joker")
    assert hand_score(house, hand, 2) == (-60, -60)


def test_a_going_out_bonus_on_a_player_who_did_not_go_out_earns_nothing():
    variant = get_variant("shanghai-10")
    # K + A = 10 + 15
    assert hand_score(variant, Hand(player_id=BOB, counts=cards(K=1, A=1), bonus_code="blind"), 1) == (25, 0)
    assert hand_score(variant, Hand(player_id=BOB, hand_total=40, bonus_code="blind-no-joker"), 1) == (40, 0)


def test_a_bonus_code_the_rules_do_not_know_earns_nothing():
    hand = Hand(player_id=ANN, went_out=True, bonus_code="shanghai")
    assert hand_score(get_variant("shanghai-10"), hand, 1) == (0, 0)
    # family-7 has no bonuses at all: a stray blind code changes nothing.
    assert hand_score(get_variant("family-7"), dataclasses.replace(hand, bonus_code="blind"), 1) == (0, 0)


def _with_event(key: str, points: int = -10) -> object:
    """The preset plus a named event any player can earn (a house rule)."""
    variant = get_variant(key)
    event = Bonus("cut", "Cut the exact number of cards", points, anyone=True)
    return dataclasses.replace(variant, bonuses=variant.bonuses + (event,))


def test_an_anyone_bonus_counts_for_a_player_who_did_not_go_out():
    variant = _with_event("shanghai-10")
    # Q + Q = 20, then the event's -10
    assert hand_score(variant, Hand(player_id=BOB, counts=cards(Q=2), bonus_code="cut"), 1) == (10, -10)
    # On a total counted by hand too: 40 - 10
    assert hand_score(variant, Hand(player_id=CY, hand_total=40, bonus_code="cut"), 1) == (30, -10)


def test_an_anyone_bonus_counts_for_who_went_out_alongside_the_blind_bonus():
    variant = _with_event("shanghai-10")
    hand = Hand(player_id=ANN, went_out=True, bonus_code="blind cut")
    assert hand_score(variant, hand, 1) == (-35, -35)


def test_an_anyone_bonus_in_a_preset_without_bonuses():
    variant = _with_event("online-11", points=-5)
    # 7 + 2♣ = 7 + 50, then -5
    assert hand_score(variant, Hand(player_id=BOB, counts=cards(n7=1, n2C=1), bonus_code="cut"), 3) == (52, -5)
    # Without the code, no event.
    assert hand_score(variant, Hand(player_id=BOB, counts=cards(n7=1, n2C=1)), 3) == (57, 0)


# =============================================================================================
# cards_text / card_counts
# =============================================================================================


def test_cards_text_lists_the_cards_in_keypad_order():
    variant = get_variant("shanghai-rum")
    counts = {"JK": 1, "K": 2, "2B": 1, "5": 2, "2": 1}
    assert cards_text(variant, counts) == "2 2B 5 5 K K JK"
    assert card_counts("2 2B 5 5 K K JK") == {"2": 1, "2B": 1, "5": 2, "K": 2, "JK": 1}


def test_cards_text_and_card_counts_round_trip_in_online_11():
    variant = get_variant("online-11")
    counts = {"A": 1, "10": 1, "2C": 1, "2": 2, "JK": 1}
    text = cards_text(variant, counts)
    assert text == "2 2 2C 10 A JK"
    assert card_counts(text) == counts
    assert cards_text(variant, card_counts(text)) == text


def test_cards_text_leaves_out_keys_with_no_cards():
    assert cards_text(get_variant("family-7"), {"K": 0, "5": 1, "A": 0}) == "5"
    assert cards_text(get_variant("family-7"), {}) == ""
    assert card_counts("") == {}


# =============================================================================================
# round_problems: what keeps a round's hands from being recorded
# =============================================================================================

FAMILY_7 = get_variant("family-7")
F7_ROUND_1 = FAMILY_7.round(1)  # 11 dealt, at most 4 buys of 2 cards
F7_DECKS = FAMILY_7.decks_for(3)  # 2 decks + 4 jokers
F7_LIMITS = {ANN: 4, BOB: 4, CY: 4}


def f7_problems(*hands: Hand, limits=F7_LIMITS):
    return round_problems(FAMILY_7, F7_ROUND_1, F7_DECKS, hands, limits, NAMES)


def ann_out(**changes) -> Hand:
    return Hand(player_id=ANN, went_out=True, **changes)


def test_a_clean_round_has_no_problems():
    problems = f7_problems(ann_out(), Hand(BOB, buys=2, counts=cards(K=2, n5=1)), Hand(CY, hand_total=45))
    assert not problems
    assert problems.players == {ANN: [], BOB: [], CY: []}
    assert problems.table == []
    assert problems.first() == ""


def test_buys_over_the_limit_name_the_player_and_the_limit():
    problems = f7_problems(ann_out(), Hand(BOB, buys=5, counts=cards(K=1)), Hand(CY, counts=cards(n5=1)))
    assert problems.players == {ANN: [], BOB: ["Bob may buy at most 4 times this hand."], CY: []}
    assert problems.table == []
    assert problems.first() == "Bob may buy at most 4 times this hand."


def test_buys_at_the_limit_are_fine():
    assert not f7_problems(ann_out(), Hand(BOB, buys=4, counts=cards(K=1)), Hand(CY, counts=cards(n5=1)))


def test_the_limit_is_each_players_own():
    # A player with fewer buys left (a carry-over or whole-game allowance) is held to their own.
    limits = {ANN: 4, BOB: 4, CY: 1}
    problems = f7_problems(ann_out(), Hand(BOB, buys=3, counts=cards(K=1)), Hand(CY, buys=2, counts=cards(n5=1)),
                           limits=limits)
    assert problems.players == {ANN: [], BOB: [], CY: ["Cy may buy at most once this hand."]}


def test_a_player_with_no_buys_left_may_not_buy():
    problems = f7_problems(ann_out(), Hand(BOB, counts=cards(K=1)), Hand(CY, buys=1, counts=cards(n5=1)),
                           limits={ANN: 4, BOB: 4, CY: 0})
    assert problems.players[CY] == ["Cy may not buy this hand."]


def test_shanghai_10_allows_3_buys_in_deals_1_to_8_and_4_in_deals_9_and_10():
    variant = get_variant("shanghai-10")
    decks = variant.decks_for(3)
    for number, limit in ((8, 3), (9, 4)):
        round_ = variant.round(number)
        limits = {pid: round_.buy_limit for pid in NAMES}
        hands = [ann_out(), Hand(BOB, buys=limit + 1, counts=cards(K=1)), Hand(CY, counts=cards(n5=1))]
        problems = round_problems(variant, round_, decks, hands, limits, NAMES)
        assert problems.players[BOB] == [f"Bob may buy at most {limit} times this hand."]


def test_negative_buys_are_refused():
    problems = f7_problems(ann_out(), Hand(BOB, buys=-1, counts=cards(K=1)), Hand(CY, counts=cards(n5=1)))
    assert problems.players[BOB] == ["Buys cannot be negative."]


def test_cards_for_the_player_who_went_out_are_refused():
    problems = f7_problems(ann_out(counts=cards(n5=1)), Hand(BOB, counts=cards(K=1)), Hand(CY, counts=cards(n5=1)))
    assert problems.players[ANN] == ["Ann went out, so no cards are left: clear them."]
    total = f7_problems(ann_out(hand_total=10), Hand(BOB, counts=cards(K=1)), Hand(CY, counts=cards(n5=1)))
    assert total.players[ANN] == ["Ann went out, so no cards are left: clear them."]


def test_both_cards_and_a_total_are_refused():
    problems = f7_problems(ann_out(), Hand(BOB, counts=cards(K=1), hand_total=10), Hand(CY, counts=cards(n5=1)))
    assert problems.players[BOB] == ["Enter the cards or a total, not both."]


def test_neither_cards_nor_a_total_is_refused_once_someone_went_out():
    problems = f7_problems(ann_out(), Hand(BOB), Hand(CY, counts=cards(n5=1)))
    assert problems.players == {ANN: [], BOB: ["Tap the cards Bob holds, or enter a total."], CY: []}


def test_empty_hands_are_left_to_going_out_problem_when_nobody_went_out():
    problems = f7_problems(Hand(ANN), Hand(BOB), Hand(CY))
    assert not problems
    assert going_out_problem([Hand(ANN), Hand(BOB), Hand(CY)]) == "Choose who went out."


@pytest.mark.parametrize("total", [0, -5, 381])
def test_a_total_out_of_range_is_refused(total):
    # At most 19 cards (11 + 4 buys × 2), each worth at most 20 (the joker): 380.
    problems = f7_problems(ann_out(), Hand(BOB, hand_total=total), Hand(CY, counts=cards(n5=1)))
    assert problems.players[BOB] == ["A total must be at least 1 and no more than a full hand can be worth."]


@pytest.mark.parametrize("total", [5, 380])
def test_a_total_at_either_end_of_the_range_is_fine(total):
    # The lowest card counts 5 in family-7: a lone 2 is the smallest hand there is.
    assert not f7_problems(ann_out(), Hand(BOB, hand_total=total), Hand(CY, counts=cards(n5=1)))


def test_more_cards_than_dealt_plus_this_players_buys_is_refused():
    # family-7 round 1: 11 dealt + 1 buy × 2 cards = 13 cards at most for Bob.
    fourteen = cards(K=7, Q=7)
    problems = f7_problems(ann_out(), Hand(BOB, buys=1, counts=fourteen), Hand(CY, counts=cards(n5=1)))
    assert problems.players[BOB] == [
        "14 cards is more than Bob could hold with 1 buy (11 dealt + 1 buy × 2 = 13)"
    ]
    assert problems.table == []


def test_thirteen_cards_with_one_buy_are_fine():
    thirteen = cards(K=7, Q=6)
    assert not f7_problems(ann_out(), Hand(BOB, buys=1, counts=thirteen), Hand(CY, counts=cards(n5=1)))


def test_more_cards_than_dealt_with_no_buys_is_refused():
    twelve = cards(K=6, Q=6)
    problems = f7_problems(ann_out(), Hand(BOB, counts=twelve), Hand(CY, counts=cards(n5=1)))
    assert problems.players[BOB] == [
        "12 cards is more than Bob could hold with 0 buys (11 dealt + 0 buys × 2 = 11)"
    ]


def test_shanghai_rum_buys_bring_3_cards():
    variant = get_variant("shanghai-rum")
    round_ = variant.round(1)
    decks = variant.decks_for(3)
    limits = {pid: 2 for pid in NAMES}
    fifteen = cards(K=8, Q=7)
    hands = [ann_out(), Hand(BOB, buys=1, counts=fifteen), Hand(CY, counts=cards(n5=1))]
    problems = round_problems(variant, round_, decks, hands, limits, NAMES)
    assert problems.players[BOB] == ["15 cards is more than Bob could hold with 1 buy (11 dealt + 1 buy × 3 = 14)"]
    # 2 buys: 11 + 2 × 3 = 17, so 15 cards are fine.
    hands[1] = Hand(BOB, buys=2, counts=fifteen)
    assert not round_problems(variant, round_, decks, hands, limits, NAMES)


def test_more_cards_than_anyone_can_hold_is_refused_with_the_rounds_most():
    # family-7: 11 dealt + 4 buys × 2 = 19 cards at most, whatever the buys.
    twenty = cards(K=7, Q=7, J=6)
    problems = f7_problems(ann_out(), Hand(BOB, buys=4, counts=twenty), Hand(CY, counts=cards(n5=1)))
    assert problems.players[BOB] == [
        "20 cards is more than anyone can hold in round 1 (11 dealt + 4 buys × 2 = 19)"
    ]
    # With fewer buys it is the same single message, not the player's own as well.
    fewer = f7_problems(ann_out(), Hand(BOB, buys=1, counts=twenty), Hand(CY, counts=cards(n5=1)))
    assert fewer.players[BOB] == ["20 cards is more than anyone can hold in round 1 (11 dealt + 4 buys × 2 = 19)"]


def test_more_of_a_card_than_the_decks_hold_in_one_hand():
    # Two decks hold eight Kings and, in family-7 for 3 players, four jokers.
    problems = f7_problems(ann_out(), Hand(BOB, buys=1, counts=cards(K=9)), Hand(CY, counts=cards(JK=5)))
    assert problems.players[BOB] == ["K: 9 entered, but the decks in play hold only 8"]
    assert problems.players[CY] == ["Joker: 5 entered, but the decks in play hold only 4"]


def test_more_of_a_card_across_all_hands_than_the_decks_hold_is_a_table_problem():
    problems = f7_problems(ann_out(), Hand(BOB, counts=cards(JK=3)), Hand(CY, counts=cards(JK=2, K=1)))
    assert problems.players == {ANN: [], BOB: [], CY: []}
    assert problems.table == ["Joker: 5 entered across all players, but the decks in play hold only 4"]
    assert bool(problems) is True
    assert problems.first() == "Joker: 5 entered across all players, but the decks in play hold only 4"


def test_a_card_one_hand_alone_holds_too_many_of_is_said_for_that_hand_only():
    problems = f7_problems(ann_out(), Hand(BOB, counts=cards(JK=5)), Hand(CY, counts=cards(JK=1)))
    assert problems.players[BOB] == ["Joker: 5 entered, but the decks in play hold only 4"]
    assert problems.table == []


def test_shanghai_10_small_table_has_a_single_joker_across_all_hands():
    variant = get_variant("shanghai-10")
    hands = [ann_out(), Hand(BOB, counts=cards(JK=1)), Hand(CY, counts=cards(JK=1))]
    problems = round_problems(variant, variant.round(1), variant.decks_for(3), hands, {p: 3 for p in NAMES}, NAMES)
    assert problems.table == ["Joker: 2 entered across all players, but the decks in play hold only 1"]


def test_the_table_problem_comes_first():
    problems = f7_problems(ann_out(), Hand(BOB, buys=5, counts=cards(JK=3)), Hand(CY, counts=cards(JK=2)))
    assert problems.first() == "Joker: 5 entered across all players, but the decks in play hold only 4"
    assert problems.players[BOB] == ["Bob may buy at most 4 times this hand."]


# =============================================================================================
# going_out_problem
# =============================================================================================


def test_going_out_problem_nobody_out():
    assert going_out_problem([Hand(ANN), Hand(BOB), Hand(CY)]) == "Choose who went out."


def test_going_out_problem_two_out():
    hands = [Hand(ANN, went_out=True), Hand(BOB, went_out=True), Hand(CY)]
    assert going_out_problem(hands) == "Only one player can go out in a hand."


def test_going_out_problem_exactly_one_out():
    assert going_out_problem([Hand(ANN), Hand(BOB, went_out=True), Hand(CY)]) is None


# =============================================================================================
# running_totals and leaders
# =============================================================================================


def test_running_totals_add_each_round_seat_by_seat():
    rounds = [[0, 10, 25], [30, 0, -25], [5, 5, 0]]
    assert running_totals(rounds, 3) == [[0, 10, 25], [30, 10, 0], [35, 15, 0]]


def test_running_totals_of_no_rounds():
    assert running_totals([], 3) == []


def test_leaders_is_the_lowest_total():
    assert leaders([50, 20, 35]) == [1]
    assert leaders([-10, 0, 3]) == [0]


def test_leaders_share_a_tie():
    assert leaders([50, 20, 20]) == [1, 2]
    assert leaders([0, 0, 0]) == [0, 1, 2]


def test_leaders_of_nothing():
    assert leaders([]) == []
