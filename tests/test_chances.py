"""The chance to win a game in progress (scorekeeper.rules.chances): the rounds left are played
10,000 times over, one player going out each round and the others left with a hand drawn from the
family's own hands with these rules, or from the point table while the family has too few.

Pure unit tests: no app, no database.
"""

from __future__ import annotations

import dataclasses

import pytest

from scorekeeper.rules import chances as chances_module
from scorekeeper.rules import get_variant
from scorekeeper.rules.chances import ENOUGH_HANDS, chance_to_win, percent_label, seed_for

PRESETS = ("family-7", "shanghai-rum", "shanghai-10", "online-11")
FAMILY_7 = get_variant("family-7")


def spread_hands(variant, per_round: int) -> dict[int, list[int]]:
    """The family's hands, round by round: ``per_round`` of them, from 3 to 95 points."""
    return {r.number: [3 + (i * 37) % 93 for i in range(per_round)] for r in variant.rounds}


def last_rounds(variant, count: int) -> list[int]:
    return [r.number for r in variant.rounds][-count:]


# =============================================================================================
# Who can still win


@pytest.mark.parametrize("key", PRESETS)
def test_a_player_300_points_behind_with_one_round_left_has_under_one_percent(key):
    variant = get_variant(key)
    for samples in ({}, spread_hands(variant, 60)):
        chances = chance_to_win(variant, [40, 340, 55, 70], last_rounds(variant, 1), 4, samples, seed=1)
        assert chances.percent[1] < 1
        assert chances.labels[1] in ("0%", "<1%")


def test_the_leader_with_every_round_left_is_far_from_certain():
    chances = chance_to_win(FAMILY_7, [0, 25, 40], last_rounds(FAMILY_7, 6), 3, {}, seed=1)
    assert 34 < chances.percent[0] < 90
    assert chances.percent[0] > chances.percent[1] > chances.percent[2] > 0


@pytest.mark.parametrize("samples", [{}, spread_hands(FAMILY_7, 60)], ids=["point table", "family hands"])
def test_two_players_in_the_same_position_get_the_same_chance(samples):
    chances = chance_to_win(FAMILY_7, [30, 55, 30, 80, 55], last_rounds(FAMILY_7, 3), 5, samples, seed=7)
    ann, bob, cy, di, ed = chances.percent
    assert ann == pytest.approx(cy, abs=2)
    assert bob == pytest.approx(ed, abs=2)
    assert ann > bob > di


@pytest.mark.parametrize("samples", [{}, spread_hands(FAMILY_7, 60)], ids=["point table", "family hands"])
def test_the_simulation_itself_treats_two_players_in_the_same_position_alike(samples, monkeypatch):
    """Before equal positions are given their average, the 10,000 finishes alone put them within 2 points."""
    monkeypatch.setattr(chances_module, "_symmetric", lambda percent, totals: tuple(float(p) for p in percent))
    for seed in range(5):
        ann, bob, cy, di, ed = chance_to_win(
            FAMILY_7, [30, 55, 30, 80, 55], last_rounds(FAMILY_7, 3), 5, samples, seed=seed).percent
        assert ann == pytest.approx(cy, abs=2) and bob == pytest.approx(ed, abs=2)
        assert ann != cy or bob != ed  # the raw figures: the noise between equal positions is there


@pytest.mark.parametrize("key", PRESETS)
@pytest.mark.parametrize("left", [0, 1, 4])
def test_chances_sum_to_100(key, left):
    variant = get_variant(key)
    for samples in ({}, spread_hands(variant, 40)):
        chances = chance_to_win(variant, [10, 0, 35, 35, 120], last_rounds(variant, left), 5, samples, seed=3)
        assert sum(chances.percent) == pytest.approx(100)
        assert all(0 <= p <= 100 for p in chances.percent)


def test_with_no_round_left_the_lowest_total_wins_and_a_tie_shares_it():
    assert chance_to_win(FAMILY_7, [20, 15, 40], [], 3, {}, seed=1).percent == (0, 100, 0)
    assert chance_to_win(FAMILY_7, [15, 15, 40], [], 3, {}, seed=1).percent == (50, 50, 0)
    assert chance_to_win(FAMILY_7, [5, 5, 5, 5], [], 4, {}, seed=1).percent == (25, 25, 25, 25)


def test_a_simulated_finish_tied_at_the_bottom_is_shared():
    # Everyone not out is left with exactly 10 points. Ann goes out: Ann 0, Bob 20. Bob goes out:
    # both on 10, a shared win. Cy goes out: Ann 10, Bob 20. So Ann wins 1/3 + 1/6 + 1/3 = 5/6.
    samples = {r.number: [10] * 50 for r in FAMILY_7.rounds}
    chances = chance_to_win(FAMILY_7, [0, 10, 100], [7], 3, samples, seed=5)
    assert chances.percent == pytest.approx((500 / 6, 100 / 6, 0), abs=1.5)


# =============================================================================================
# The family's hands, or the point table


def test_from_300_hands_the_family_s_own_hands_are_used_and_counted():
    samples = spread_hands(FAMILY_7, 50)  # 7 rounds × 50 = 350 hands
    chances = chance_to_win(FAMILY_7, [0, 30, 60], last_rounds(FAMILY_7, 2), 3, samples, seed=1)
    assert chances.hands == 350
    assert chances.source == "Simulated 10,000 times from 350 hands this family played with these rules."


def test_under_300_hands_the_point_table_is_used_whatever_they_were():
    few = {r.number: [200] * 40 for r in FAMILY_7.rounds[:7]}  # 280 hands of 200 points: ignored
    assert sum(map(len, few.values())) < ENOUGH_HANDS
    chances = chance_to_win(FAMILY_7, [0, 30, 60], last_rounds(FAMILY_7, 2), 3, few, seed=1)
    assert chances.hands == 0
    assert chances.source == (
        "Simulated 10,000 times from the point table: too few hands played with these rules yet (280 of 300)."
    )
    assert chances.percent == chance_to_win(FAMILY_7, [0, 30, 60], last_rounds(FAMILY_7, 2), 3, {}, seed=1).percent


def test_the_point_table_follows_the_cards_values():
    # Cards worth ten times as much: the same 30-point lead is worth far less.
    dear = dataclasses.replace(FAMILY_7, points={code: 10 * p for code, p in FAMILY_7.points.items()})
    lead = chance_to_win(FAMILY_7, [0, 30, 30], [7], 3, {}, seed=1).percent[0]
    assert lead > chance_to_win(dear, [0, 30, 30], [7], 3, {}, seed=1).percent[0] + 10


def test_a_round_with_too_few_hands_borrows_the_others_scaled_by_the_cards_dealt():
    # Online 11: hands 1–9 deal 11 cards, 10 and 11 deal 13. Every hand of rounds 1–9 left 11
    # points; round 10 has none, so its hands are 11 × 13/11 = 13 points. Ann goes out or Cy
    # does: Ann wins. Bob goes out: Bob 12, Ann 13, Bob wins (with 11 points Ann would win).
    online = get_variant("online-11")
    samples = {number: [11] * 40 for number in range(1, 10)}
    chances = chance_to_win(online, [0, 12, 500], [10], 3, samples, seed=2)
    assert chances.hands == 360
    assert chances.percent == pytest.approx((200 / 3, 100 / 3, 0), abs=1.5)


def test_a_going_out_bonus_counts_for_who_goes_out():
    # Ann 8 ahead; every hand not out leaves 10 points. With no bonus Bob wins only by going
    # out (a third); a 25-point bonus for going out lets Cy win that way too.
    samples = {r.number: [10] * 50 for r in FAMILY_7.rounds}
    plain = chance_to_win(FAMILY_7, [0, 8, 20], [7], 3, samples, seed=4).percent
    bonus = dataclasses.replace(FAMILY_7, going_out_bonus=25)
    assert plain[2] == 0
    assert chance_to_win(bonus, [0, 8, 20], [7], 3, samples, seed=4).percent[2] == pytest.approx(100 / 3, abs=1.5)


# =============================================================================================
# The same state, the same figures


def test_the_same_game_state_gives_the_same_chances():
    seed = seed_for(12, [30, 55, 80], 3)
    assert seed == seed_for(12, (30, 55, 80), 3)
    first = chance_to_win(FAMILY_7, [30, 55, 80], last_rounds(FAMILY_7, 4), 3, {}, seed=seed)
    assert chance_to_win(FAMILY_7, [30, 55, 80], last_rounds(FAMILY_7, 4), 3, {}, seed=seed) == first


def test_another_state_draws_other_finishes():
    seeds = {seed_for(12, [30, 55, 80], 3), seed_for(13, [30, 55, 80], 3), seed_for(12, [30, 55, 85], 3),
             seed_for(12, [30, 55, 80], 4)}
    assert len(seeds) == 4
    a, b = (chance_to_win(FAMILY_7, [30, 55, 80], last_rounds(FAMILY_7, 4), 3, {}, seed=s).percent for s in (1, 2))
    assert a != b and a == pytest.approx(b, abs=2)


@pytest.mark.parametrize(("percent", "label"), [
    (0, "0%"), (0.004, "<1%"), (0.99, "<1%"), (1.0, "1%"), (37.49, "37%"), (37.5, "38%"),
    (99.0, "99%"), (99.01, ">99%"), (99.996, ">99%"), (100, "100%"),
])
def test_chances_show_as_whole_percents_never_rounded_to_a_certainty(percent, label):
    assert percent_label(percent) == label
