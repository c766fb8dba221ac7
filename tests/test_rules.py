"""Tests for scorekeeper.rules: the four presets against shared/rules/variants.md.

The expected numbers below are copied by hand from variants.md, not computed from the code.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from scorekeeper.rules import (
    VARIANTS,
    Variant,
    get_variant,
    hand_problems,
    parse_card,
    score_hand,
    score_keys,
    table_problems,
)

# The specification beside the repository (../shared), and the copy the repository carries so a
# clone anywhere can check against it; test_spec_copy_is_current keeps the two the same.
SHARED_SPEC = Path(__file__).resolve().parents[2] / "shared/rules/variants.md"
SPEC_COPY = Path(__file__).resolve().parent / "spec/variants.md"
SPEC_PATH = SHARED_SPEC if SHARED_SPEC.is_file() else SPEC_COPY

# ---------------------------------------------------------------------------------------------
# variants.md, transcribed by hand
# ---------------------------------------------------------------------------------------------
# rounds: (number, contract, min cards, cards dealt, buy limit)
# decks: players -> (decks, jokers)
# points: rank -> points for a card of that rank whose suit is not special
# suit_points: (rank, suit letter) -> points where the suit changes the value
SPEC = {
    "family-7": {
        "min_players": 3,
        "max_players": 8,
        "decks": {3: (2, 4), 4: (2, 4), 5: (3, 6), 6: (3, 6), 7: (4, 8), 8: (4, 8)},
        "cards_per_buy": 2,
        "rounds": [
            (1, "two sets", 6, 11, 4),
            (2, "one set, one run", 7, 11, 4),
            (3, "two runs", 8, 11, 4),
            (4, "three sets", 9, 11, 4),
            (5, "two sets, one run", 10, 11, 4),
            (6, "one set, two runs", 11, 11, 4),
            (7, "three runs", 12, 11, 4),
        ],
        "points": {
            "2": 5, "3": 5, "4": 5, "5": 5, "6": 5, "7": 5, "8": 5, "9": 5,
            "10": 10, "J": 10, "Q": 10, "K": 10, "A": 15,
        },
        "suit_points": {},
        "joker": 20,
    },
    "shanghai-rum": {
        "min_players": 3,
        "max_players": 8,
        "decks": {3: (2, 4), 4: (2, 4), 5: (3, 6), 6: (3, 6), 7: (4, 8), 8: (4, 8)},
        "cards_per_buy": 3,
        "rounds": [
            (1, "two aces and one set of 3", 5, 11, 2),
            (2, "two sets of 3", 6, 11, 2),
            (3, "one set of 3 and one run of 4", 7, 11, 2),
            (4, "two runs of 4", 8, 11, 2),
            (5, "three sets of 3", 9, 11, 2),
            (6, "two sets of 3 and one run of 4", 10, 11, 2),
            (7, "one set of 3 and two runs of 4", 11, 11, 2),
            (8, "three runs of 4", 12, 11, 2),
            (9, "one run of 7 and one set of 3", 10, 11, 2),
            (10, "one run of 5 and one run of 6", 11, 11, 2),
        ],
        "points": {
            "2": 5, "3": 5, "4": 5, "5": 5, "6": 5, "7": 5, "8": 5, "9": 5,
            "10": 5, "J": 10, "Q": 10, "K": 10, "A": 15,
        },
        "suit_points": {("2", "S"): 50, ("2", "C"): 50},
        "joker": 25,
    },
    "shanghai-10": {
        "min_players": 2,
        "max_players": 8,
        "decks": {2: (2, 1), 3: (2, 1), 4: (2, 1), 5: (3, 2), 6: (3, 2), 7: (3, 2), 8: (3, 2)},
        "cards_per_buy": 2,
        "rounds": [
            (1, "two sets of 3", 6, 11, 3),
            (2, "one set of 3 and one sequence of 4", 7, 11, 3),
            (3, "two sequences of 4", 8, 11, 3),
            (4, "three sets of 3", 9, 11, 3),
            (5, "one set of 3 and one sequence of 7", 10, 11, 3),
            (6, "two sets of 3 and one sequence of 5", 11, 11, 3),
            (7, "three sequences of 4", 12, 11, 3),
            (8, "one set of 3 and one sequence of 10", 13, 11, 3),
            (9, "three sets of 3 and one sequence of 5", 14, 11, 4),
            (10, "three sequences of 5", 15, 11, 4),
        ],
        "points": {
            "2": 5, "3": 5, "4": 5, "5": 5, "6": 5, "7": 5, "8": 5, "9": 5,
            "10": 5, "J": 10, "Q": 10, "K": 10, "A": 15,
        },
        "suit_points": {},
        "joker": 15,
    },
    "online-11": {
        "min_players": 2,
        "max_players": 8,
        "decks": {2: (2, 4), 3: (2, 4), 4: (2, 4), 5: (2, 4), 6: (2, 4), 7: (3, 6), 8: (3, 6)},
        "cards_per_buy": 2,
        "rounds": [
            (1, "two sets", 6, 11, 3),
            (2, "one set and one run", 7, 11, 3),
            (3, "two runs", 8, 11, 3),
            (4, "three sets", 9, 11, 3),
            (5, "two sets and one run", 10, 11, 3),
            (6, "two runs and one set", 11, 11, 3),
            (7, "three runs", 12, 11, 3),
            (8, "three sets and one run", 13, 11, 3),
            (9, "three runs and one set", 15, 11, 3),
            (10, "four sets", 12, 13, 3),
            (11, "four runs", 16, 13, 3),
        ],
        "points": {
            "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
            "10": 10, "J": 10, "Q": 10, "K": 10, "A": 20,
        },
        "suit_points": {("2", "C"): 50},
        "joker": 50,
    },
}

PRESETS = list(SPEC)
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = ["S", "H", "D", "C"]

ROUND_CASES = [
    pytest.param(key, *row, id=f"{key}-round{row[0]}") for key in SPEC for row in SPEC[key]["rounds"]
]
PLAYER_CASES = [
    pytest.param(key, players, decks, jokers, id=f"{key}-{players}p")
    for key in SPEC
    for players, (decks, jokers) in SPEC[key]["decks"].items()
]
RANK_CASES = [pytest.param(key, rank, id=f"{key}-{rank}") for key in SPEC for rank in RANKS]


def _card_points(key: str, rank: str, suit: str) -> int:
    spec = SPEC[key]
    return spec["suit_points"].get((rank, suit), spec["points"][rank])


# ---------------------------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------------------------
def test_variant_keys_are_exactly_the_four_presets():
    """VARIANTS holds the four documented keys and nothing else."""
    assert sorted(VARIANTS) == sorted(["family-7", "shanghai-rum", "shanghai-10", "online-11"])


@pytest.mark.parametrize("key", PRESETS)
def test_get_variant_returns_the_preset_with_that_key(key):
    """get_variant(key) is VARIANTS[key] and carries its own key and a name."""
    variant = get_variant(key)
    assert variant is VARIANTS[key]
    assert variant.key == key
    assert isinstance(variant.name, str) and variant.name.strip()


@pytest.mark.parametrize("bad", ["family-8", "", "FAMILY-7", "shanghai"])
def test_get_variant_unknown_key_names_every_known_key(bad):
    """An unknown key raises KeyError whose message lists all known keys."""
    with pytest.raises(KeyError) as info:
        get_variant(bad)
    message = str(info.value.args[0])
    for key in PRESETS:
        assert key in message


# ---------------------------------------------------------------------------------------------
# Numbers transcribed from variants.md
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", PRESETS)
def test_player_range_and_cards_per_buy(key):
    """min/max players and cards per buy match the preset's table."""
    variant = get_variant(key)
    assert variant.min_players == SPEC[key]["min_players"]
    assert variant.max_players == SPEC[key]["max_players"]
    assert variant.cards_per_buy == SPEC[key]["cards_per_buy"]


@pytest.mark.parametrize("key", PRESETS)
def test_round_count_and_numbering(key):
    """The preset has exactly the documented rounds, numbered 1..n in order."""
    variant = get_variant(key)
    assert [r.number for r in variant.rounds] == [row[0] for row in SPEC[key]["rounds"]]


@pytest.mark.parametrize("key, number, contract, min_cards, cards_dealt, buy_limit", ROUND_CASES)
def test_round_matches_spec(key, number, contract, min_cards, cards_dealt, buy_limit):
    """Contract text, min cards, cards dealt and buy limit of one round."""
    rnd = get_variant(key).rounds[number - 1]
    assert rnd.number == number
    assert rnd.contract == contract
    assert rnd.min_cards == min_cards
    assert rnd.cards_dealt == cards_dealt
    assert rnd.buy_limit == buy_limit


@pytest.mark.parametrize("key, players, decks, jokers", PLAYER_CASES)
def test_decks_for_every_allowed_player_count(key, players, decks, jokers):
    """Decks and jokers shuffled in for this many players."""
    got = get_variant(key).decks_for(players)
    assert (got.decks, got.jokers) == (decks, jokers)


@pytest.mark.parametrize("key", PRESETS)
def test_decks_for_outside_player_range_raises(key):
    """One player too few or too many is a ValueError."""
    variant = get_variant(key)
    for players in (SPEC[key]["min_players"] - 1, SPEC[key]["max_players"] + 1, 0):
        with pytest.raises(ValueError):
            variant.decks_for(players)


@pytest.mark.parametrize("key, rank", RANK_CASES)
def test_point_value_of_every_rank_and_suit(key, rank):
    """score_hand of a single card, for each suit of the rank."""
    for suit in SUITS:
        card = f"{rank}{suit}"
        assert score_hand(key, card) == _card_points(key, rank, suit), f"{key}: {card}"


@pytest.mark.parametrize("key", PRESETS)
def test_point_value_of_joker(key):
    """Both spellings of a joker score the documented value."""
    assert score_hand(key, "JK") == SPEC[key]["joker"]
    assert score_hand(key, "Joker") == SPEC[key]["joker"]


@pytest.mark.parametrize("key", PRESETS)
def test_keypad_points_match_spec(key):
    """Rank keys, the joker key and any suit-dependent keys carry the documented points."""
    variant = get_variant(key)
    codes = [k.code for k in variant.keys]
    assert len(codes) == len(set(codes)), "duplicate key codes"
    rank_keys = {k.code: k.points for k in variant.keys if k.code in RANKS}
    assert sorted(rank_keys, key=RANKS.index) == RANKS
    for rank in RANKS:
        assert rank_keys[rank] == SPEC[key]["points"][rank], f"{key}: key {rank}"
    assert [k.points for k in variant.keys if k.code == "JK"] == [SPEC[key]["joker"]]
    suit_keys = [k.points for k in variant.keys if k.code not in RANKS and k.code != "JK"]
    assert sorted(suit_keys) == sorted(set(SPEC[key]["suit_points"].values()))


@pytest.mark.parametrize("key", PRESETS)
def test_keypad_covers_one_deck_exactly(key):
    """The keypad's copies per deck add up to 52; the joker's copies come from the deck rule."""
    variant = get_variant(key)
    assert sum(k.copies_per_deck for k in variant.keys) == 52
    assert sum(k.copies_per_deck for k in variant.keys if k.code == "JK") == 0


def test_suit_keys_shanghai_rum():
    """shanghai-rum: red 2s key worth 5 (2 per deck), black 2s key worth 50 (2 per deck)."""
    variant = get_variant("shanghai-rum")
    twos = [k for k in variant.keys if k.label.startswith("2") or k.code.startswith("2")]
    by_points = {k.points: k for k in twos}
    assert set(by_points) == {5, 50}
    assert by_points[5].copies_per_deck == 2
    assert by_points[50].copies_per_deck == 2
    assert "♠" in by_points[50].label and "♣" in by_points[50].label
    assert "♥" in by_points[5].label and "♦" in by_points[5].label


def test_suit_keys_online_11():
    """online-11: 2♣ key worth 50 (1 per deck), other 2s worth 2 (3 per deck)."""
    variant = get_variant("online-11")
    twos = [k for k in variant.keys if k.label.startswith("2") or k.code.startswith("2")]
    by_points = {k.points: k for k in twos}
    assert set(by_points) == {2, 50}
    assert by_points[50].copies_per_deck == 1
    assert by_points[2].copies_per_deck == 3
    assert "♣" in by_points[50].label
    assert "♣" not in by_points[2].label


@pytest.mark.parametrize("key", ["family-7", "shanghai-10"])
def test_presets_without_suit_cards_have_one_key_per_rank(key):
    """No suit-dependent keys: 13 rank keys of 4 copies, plus the joker."""
    variant = get_variant(key)
    assert [k.code for k in variant.keys if k.code != "JK"] == RANKS
    assert all(k.copies_per_deck == 4 for k in variant.keys if k.code != "JK")
    assert [k.points for k in variant.keys if k.code != "JK"] == [
        SPEC[key]["points"][r] for r in RANKS
    ]


# ---------------------------------------------------------------------------------------------
# Worked examples and card entry
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "key, cards, points",
    [
        ("family-7", "9♥ 10♣ A♦ Joker", 50),
        ("shanghai-rum", "2♥ 2♠ K♣", 65),
        ("shanghai-10", "10♦ Joker A♠", 35),
        ("online-11", "7♥ 2♦ 2♣ A♠", 79),
    ],
)
def test_worked_examples(key, cards, points):
    """The four worked examples of variants.md, by key and by Variant object."""
    assert score_hand(key, cards) == points
    assert score_hand(get_variant(key), cards) == points


@pytest.mark.parametrize(
    "cards",
    [
        "9♥ 10♣ A♦ Joker",
        "9H 10C AD JK",
        "9h 10c ad jk",
        "9h,10c,ad,joker",
        "9H, 10C, AD, Joker",
        " 9H\t10C\nAD  JOKER ",
        "9♥,10♣,a♦,jK",
        ["9H", "10C", "AD", "Joker"],
        ["9♥", "10♣", "A♦", "JK"],
        ("9h", "10c", "ad", "jk"),
    ],
)
def test_card_spellings(cards):
    """Symbols or letters, any case, spaces or commas, string or list: same 50 points."""
    assert score_hand("family-7", cards) == 50


def test_suit_symbols_and_letters_are_the_same_card():
    """♠♥♦♣ mean S H D C; the four suits are four different cards."""
    for symbol, letter in [("♠", "S"), ("♥", "H"), ("♦", "D"), ("♣", "C")]:
        for rank in RANKS:
            assert parse_card(rank + symbol) == parse_card(rank + letter.lower()), rank + symbol
    assert len({parse_card("Q" + s) for s in "♠♥♦♣"}) == 4
    assert parse_card("JK") == parse_card("joker")


def test_ten_is_written_as_10():
    """10 with every suit spelling is a ten (10 points in family-7, 10 in online-11)."""
    assert score_hand("family-7", "10S 10h 10♦ 10♣") == 40
    assert score_hand("online-11", ["10S", "10H", "10D", "10C"]) == 40
    assert score_hand("shanghai-rum", "10s") == 5


def test_black_and_red_twos_shanghai_rum():
    """shanghai-rum: 2♠ 2♣ are 50 each, 2♥ 2♦ are 5 each, in any spelling."""
    assert score_hand("shanghai-rum", "2♠ 2♣") == 100
    assert score_hand("shanghai-rum", "2s,2c") == 100
    assert score_hand("shanghai-rum", "2♥ 2♦") == 10
    assert score_hand("shanghai-rum", ["2h", "2D"]) == 10


def test_two_of_clubs_online_11():
    """online-11: 2♣ is 50, every other 2 is 2."""
    assert score_hand("online-11", "2♣") == 50
    assert score_hand("online-11", "2c") == 50
    assert score_hand("online-11", "2♠ 2♥ 2♦") == 6
    assert score_hand("online-11", "2s 2h 2d 2C") == 56


@pytest.mark.parametrize("key", ["family-7", "shanghai-10"])
def test_twos_do_not_depend_on_suit_elsewhere(key):
    """family-7 and shanghai-10: every 2 is worth 5."""
    assert score_hand(key, "2S 2H 2D 2C") == 20


@pytest.mark.parametrize("bad", ["1S", "11H", "KX", "Z", "K", "10", "0H", "1♠", "JKS", "♠", "AA"])
def test_bad_card_raises_value_error_quoting_it(bad):
    """A bad card alone or among good ones is a ValueError naming it."""
    for cards in (bad, f"9H {bad} KD", ["9H", bad]):
        with pytest.raises(ValueError) as info:
            score_hand("family-7", cards)
        assert f"'{bad}'" in str(info.value), (cards, str(info.value))


def test_empty_card_in_a_list_raises_value_error_quoting_it():
    """An empty string given as a card is not a card."""
    with pytest.raises(ValueError) as info:
        score_hand("family-7", ["9H", ""])
    assert "''" in str(info.value)


def test_non_string_card_in_a_list_raises_value_error():
    """A list item that is not text is rejected."""
    with pytest.raises(ValueError):
        score_hand("family-7", ["9H", 10])


def test_score_hand_unknown_variant_key():
    """score_hand with an unknown preset key raises KeyError."""
    with pytest.raises(KeyError):
        score_hand("no-such-rules", "9H")


# ---------------------------------------------------------------------------------------------
# Keypad scoring and plausibility checks
# ---------------------------------------------------------------------------------------------
def test_score_keys_worked_examples():
    """Keypad counts give the same totals as the worked examples."""
    rum = get_variant("shanghai-rum")
    red2 = next(k.code for k in rum.keys if k.points == 5 and "♥" in k.label and "2" in k.label)
    black2 = next(k.code for k in rum.keys if k.points == 50)
    assert score_keys(rum, {red2: 1, black2: 1, "K": 1}) == 65

    online = get_variant("online-11")
    club2 = next(k.code for k in online.keys if k.points == 50 and k.code != "JK")
    assert score_keys(online, {"7": 1, "2": 1, club2: 1, "A": 1}) == 79

    assert score_keys(get_variant("family-7"), {"9": 1, "10": 1, "A": 1, "JK": 1}) == 50
    assert score_keys(get_variant("shanghai-10"), {"10": 1, "JK": 1, "A": 1}) == 35
    assert score_keys(get_variant("family-7"), {"K": 3, "2": 2}) == 40
    assert score_keys(get_variant("family-7"), {}) == 0


@pytest.mark.parametrize(
    "key, round_number, most",
    [
        pytest.param("family-7", n, 19, id=f"family-7-round{n}") for n in range(1, 8)
    ]
    + [pytest.param("shanghai-rum", n, 17, id=f"shanghai-rum-round{n}") for n in range(1, 11)]
    + [pytest.param("shanghai-10", n, 17, id=f"shanghai-10-round{n}") for n in range(1, 9)]
    + [pytest.param("shanghai-10", n, 19, id=f"shanghai-10-round{n}") for n in (9, 10)]
    + [pytest.param("online-11", n, 17, id=f"online-11-round{n}") for n in range(1, 10)]
    + [pytest.param("online-11", n, 19, id=f"online-11-round{n}") for n in (10, 11)],
)
def test_max_hand(key, round_number, most):
    """Most cards held at the end of a hand (variants.md, last paragraph)."""
    variant = get_variant(key)
    assert variant.max_hand(variant.rounds[round_number - 1]) == most


def test_two_decks_hold_eight_kings():
    """Two decks hold 8 Kings; three hold 12."""
    variant = get_variant("family-7")
    king = next(k for k in variant.keys if k.code == "K")
    assert variant.copies(king, variant.decks_for(4)) == 8
    assert variant.copies(king, variant.decks_for(5)) == 12


@pytest.mark.parametrize("players", [2, 3, 4])
def test_shanghai_10_small_table_has_a_single_joker(players):
    """shanghai-10 with 2-4 players: 2 decks + 1 joker."""
    variant = get_variant("shanghai-10")
    joker = next(k for k in variant.keys if k.code == "JK")
    assert variant.copies(joker, variant.decks_for(players)) == 1


@pytest.mark.parametrize("key, players, decks, jokers", PLAYER_CASES)
def test_copies_add_up_to_the_whole_pack(key, players, decks, jokers):
    """Copies over all keys are every card in play: 52 per deck plus the jokers."""
    variant = get_variant(key)
    in_play = variant.decks_for(players)
    assert sum(variant.copies(k, in_play) for k in variant.keys) == 52 * decks + jokers


def _family_round(number):
    variant = get_variant("family-7")
    return variant, variant.rounds[number - 1], variant.decks_for(4)


def test_hand_problems_empty_for_a_normal_hand():
    """A plausible leftover hand has no problems."""
    variant, rnd, decks = _family_round(3)
    assert hand_problems(variant, rnd, decks, {"K": 2, "9": 1, "JK": 1, "A": 3}) == []
    assert hand_problems(variant, rnd, decks, {}) == []


def test_hand_problems_flags_nine_kings_with_two_decks():
    """9 Kings cannot come from 2 decks; 8 can."""
    variant, rnd, decks = _family_round(1)
    assert decks.decks == 2
    assert hand_problems(variant, rnd, decks, {"K": 8}) == []
    problems = hand_problems(variant, rnd, decks, {"K": 9})
    assert len(problems) == 1
    assert "9" in problems[0] and "8" in problems[0]


def test_hand_problems_flags_a_20_card_hand_in_family_7():
    """family-7 holds at most 11 + 4×2 = 19 cards: 19 is fine, 20 is not."""
    variant, rnd, decks = _family_round(7)
    nineteen = {"3": 4, "4": 4, "5": 4, "6": 4, "7": 3}
    assert sum(nineteen.values()) == 19
    assert hand_problems(variant, rnd, decks, nineteen) == []
    twenty = {**nineteen, "7": 4}
    problems = hand_problems(variant, rnd, decks, twenty)
    assert len(problems) == 1
    assert "20" in problems[0] and "19" in problems[0]


def test_hand_problems_flags_a_negative_count():
    """A negative count is a problem."""
    variant, rnd, decks = _family_round(2)
    assert hand_problems(variant, rnd, decks, {"Q": -1}) != []


def test_hand_problems_uses_the_round_limit():
    """shanghai-10: 18 cards is too many in deal 8 (max 17) but fine in deal 9 (max 19)."""
    variant = get_variant("shanghai-10")
    decks = variant.decks_for(5)
    eighteen = {"3": 6, "4": 6, "5": 6}
    assert hand_problems(variant, variant.rounds[7], decks, eighteen) != []
    assert hand_problems(variant, variant.rounds[8], decks, eighteen) == []


def test_hand_problems_flags_two_jokers_in_small_shanghai_10():
    """shanghai-10 with 2-4 players has one joker: two in a hand is a problem."""
    variant = get_variant("shanghai-10")
    decks = variant.decks_for(3)
    rnd = variant.rounds[0]
    assert hand_problems(variant, rnd, decks, {"JK": 1}) == []
    assert hand_problems(variant, rnd, decks, {"JK": 2}) != []


def test_table_problems_counts_copies_across_players():
    """5 + 4 Kings across two players exceeds two decks; 4 + 4 does not."""
    variant = get_variant("family-7")
    decks = variant.decks_for(4)
    assert table_problems(variant, decks, [{"K": 4}, {"K": 4}, {"Q": 2}]) == []
    problems = table_problems(variant, decks, [{"K": 5}, {"K": 4}])
    assert len(problems) == 1 and "9" in problems[0]


def test_table_problems_single_joker_in_shanghai_10():
    """shanghai-10, 4 players: one joker in total across all hands."""
    variant = get_variant("shanghai-10")
    decks = variant.decks_for(4)
    assert table_problems(variant, decks, [{"JK": 1}, {"K": 1}]) == []
    assert table_problems(variant, decks, [{"JK": 1}, {"JK": 1}]) != []


def test_table_problems_suit_cards_shanghai_rum():
    """shanghai-rum, 2 decks: 4 black 2s in play, a fifth across players is a problem."""
    variant = get_variant("shanghai-rum")
    decks = variant.decks_for(3)
    black2 = next(k.code for k in variant.keys if k.points == 50)
    assert table_problems(variant, decks, [{black2: 2}, {black2: 2}]) == []
    assert table_problems(variant, decks, [{black2: 3}, {black2: 2}]) != []


# ---------------------------------------------------------------------------------------------
# Hands played, bonuses, buying, snapshots
# ---------------------------------------------------------------------------------------------
def test_family_7_may_skip_hand_1():
    """family-7 plays hands 1-7, or 2-7 when hand 1 is skipped."""
    variant = get_variant("family-7")
    assert variant.hand_numbers(False) == [1, 2, 3, 4, 5, 6, 7]
    assert variant.hand_numbers(True) == [2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize("key", ["shanghai-rum", "shanghai-10", "online-11"])
def test_other_presets_cannot_skip_hand_1(key):
    """Only family-7 has the skip option; the rest play every round."""
    variant = get_variant(key)
    assert variant.hand_numbers(False) == [row[0] for row in SPEC[key]["rounds"]]
    with pytest.raises(ValueError):
        variant.hand_numbers(True)


def test_shanghai_10_blind_bonuses():
    """Going out blind: -25 with a joker, -50 without."""
    bonuses = get_variant("shanghai-10").bonuses
    assert sorted(b.points for b in bonuses) == [-50, -25]
    no_joker = next(b for b in bonuses if b.points == -50)
    with_joker = next(b for b in bonuses if b.points == -25)
    assert "no joker" in no_joker.label.lower()
    assert "no joker" not in with_joker.label.lower()


@pytest.mark.parametrize("key", ["family-7", "shanghai-rum", "online-11"])
def test_no_bonuses_outside_shanghai_10(key):
    """Only shanghai-10 has bonuses."""
    assert tuple(get_variant(key).bonuses) == ()


@pytest.mark.parametrize("key", ["family-7", "shanghai-rum", "online-11"])
def test_player_who_is_down_may_not_buy(key):
    """These three presets forbid buying after laying down."""
    assert get_variant(key).down_may_buy is False


@pytest.mark.parametrize("key", PRESETS)
def test_to_dict_from_dict_round_trip(key):
    """A variant survives to_dict -> JSON -> from_dict unchanged."""
    variant = get_variant(key)
    data = json.loads(json.dumps(variant.to_dict()))
    copy = Variant.from_dict(data)
    assert copy == variant
    assert copy.to_dict() == variant.to_dict()
    assert score_hand(copy, "9H 10C AD JK 2C") == score_hand(variant, "9H 10C AD JK 2C")


@pytest.mark.parametrize("key", PRESETS)
def test_a_changed_snapshot_leaves_the_preset_alone(key):
    """A game's snapshot is its own copy: changing every part of it changes no preset."""
    before = get_variant(key).to_dict()
    data = get_variant(key).to_dict()
    for round_ in data["rounds"]:
        for meld in round_["melds"]:
            meld.clear()
    for part in ("deck_rules", "rounds", "suit_cards", "bonuses"):
        for item in data[part]:
            item.clear()
    assert get_variant(key).to_dict() == before


def test_from_dict_sees_changed_numbers():
    """A snapshot with a changed number is a different variant (equality is not vacuous)."""
    variant = get_variant("online-11")
    data = variant.to_dict()
    data["rounds"][10]["cards_dealt"] = 11
    assert Variant.from_dict(data) != variant


# ---------------------------------------------------------------------------------------------
# variants.md, read at test time
# ---------------------------------------------------------------------------------------------
def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _spec_text() -> str:
    if not SPEC_PATH.is_file():
        message = f"{SPEC_PATH} not found"
        if _ci():
            pytest.fail(message + "; CI is set, so this is an error, not a skip")
        pytest.skip(message)
    return SPEC_PATH.read_text(encoding="utf-8")


def test_spec_copy_is_current():
    """tests/spec/variants.md is the same as shared/rules/variants.md, where that is beside us."""
    if not SHARED_SPEC.is_file():
        pytest.skip(f"{SHARED_SPEC} is not beside this clone; the copy stands in for it")
    assert SPEC_COPY.read_bytes() == SHARED_SPEC.read_bytes(), "copy shared/rules/variants.md to tests/spec/"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _parse_contract_tables(text: str) -> dict[str, list[tuple[int, str, int]]]:
    """preset key -> [(number, contract, min cards)] from each section's contract table."""
    tables: dict[str, list[tuple[int, str, int]]] = {}
    key = None
    in_table = False
    for line in text.splitlines():
        heading = re.match(r"^##\s+`([^`]+)`", line)
        if heading:
            key, in_table = heading.group(1), False
            continue
        if not line.startswith("|"):
            in_table = False
            continue
        cells = _cells(line)
        if cells[:1] and cells[0] in ("hand", "deal", "round") and cells[1:] == ["contract", "min cards"]:
            in_table = True
            tables.setdefault(key, [])
            continue
        if in_table and not set("".join(cells)) <= set("-: "):
            number, contract, min_cards = cells
            # Drop an annotation such as "(**reading:** ...)" and bold markers.
            contract = re.sub(r"\s*\(\*\*reading:\*\*.*\)\s*$", "", contract).replace("**", "")
            tables[key].append((int(number), contract.strip(), int(min_cards)))
    return tables


def _parse_worked_examples(text: str) -> list[tuple[str, str, int]]:
    rows = []
    for line in text.splitlines():
        cells = _cells(line) if line.startswith("|") else []
        if len(cells) == 3 and re.fullmatch(r"`[a-z0-9-]+`", cells[0]) and "=" in cells[2]:
            rows.append((cells[0].strip("`"), cells[1], int(cells[2].rsplit("=", 1)[1])))
    return rows


def test_markdown_lists_exactly_the_four_presets():
    """Every contract table in variants.md belongs to a preset in VARIANTS, and vice versa."""
    tables = _parse_contract_tables(_spec_text())
    assert sorted(tables) == sorted(VARIANTS)


@pytest.mark.parametrize("key", PRESETS)
def test_markdown_contracts_and_min_cards_match_code(key):
    """Each round's contract text and min cards, read from variants.md at test time."""
    rows = _parse_contract_tables(_spec_text()).get(key)
    assert rows, f"no contract table for {key} in {SPEC_PATH}"
    variant = get_variant(key)
    code_rows = [(r.number, r.contract, r.min_cards) for r in variant.rounds]
    for expected, got in zip(rows, code_rows):
        assert got == expected, f"{key} round {expected[0]}"
    assert len(code_rows) == len(rows), f"{key}: {len(code_rows)} rounds in code, {len(rows)} in the file"


def test_markdown_agrees_with_transcription():
    """The hand-copied tables in this file still match variants.md."""
    tables = _parse_contract_tables(_spec_text())
    for key, spec in SPEC.items():
        assert [(n, c, m) for n, c, m, _, _ in spec["rounds"]] == tables[key], key


def test_markdown_worked_examples():
    """The worked-examples table of variants.md, parsed and scored."""
    rows = _parse_worked_examples(_spec_text())
    assert len(rows) == 4
    for key, cards, points in rows:
        assert score_hand(key, cards) == points, f"{key}: {cards}"
