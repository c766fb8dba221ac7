"""Tests for scorekeeper.rules rotation: the deal passes clockwise, the dealer's left plays first.

Seats are numbered 0..players-1 clockwise. Expected dealers are found by walking round the table
one seat per hand, not by the modulo formula the code uses.
"""

from __future__ import annotations

import pytest

from scorekeeper.rules import (
    VARIANTS,
    dealer_seat,
    first_player_seat,
    get_variant,
    schedule,
)

# Player ranges from variants.md, copied by hand; skip-hand-1 is a family-7 option only.
PLAYERS = {"family-7": (3, 8), "shanghai-rum": (3, 8), "shanghai-10": (2, 8), "online-11": (2, 8)}
HANDS = {
    ("family-7", False): [1, 2, 3, 4, 5, 6, 7],
    ("family-7", True): [2, 3, 4, 5, 6, 7],
    ("shanghai-rum", False): [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    ("shanghai-10", False): [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    ("online-11", False): [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
}


def _next_seat_clockwise(seat: int, players: int) -> int:
    """One step to the left round the table: the last seat is followed by seat 0."""
    seat += 1
    if seat == players:
        seat = 0
    return seat


def _walk_dealers(first_dealer: int, players: int, hands: int) -> list[int]:
    """Dealer of each hand, by passing the deal one seat at a time."""
    dealers = []
    seat = first_dealer
    for _ in range(hands):
        dealers.append(seat)
        seat = _next_seat_clockwise(seat, players)
    return dealers


CASES = [
    pytest.param(key, skip, players, first, id=f"{key}{'-skip1' if skip else ''}-{players}p-first{first}")
    for (key, skip) in HANDS
    for players in range(PLAYERS[key][0], PLAYERS[key][1] + 1)
    for first in range(players)
]


def test_cases_cover_every_preset():
    """The parametrization below spans all presets (guards against a silently empty matrix)."""
    assert {key for key, _ in HANDS} == set(VARIANTS)


@pytest.mark.parametrize("key, skip, players, first_dealer", CASES)
def test_dealer_and_first_player_of_every_hand(key, skip, players, first_dealer):
    """schedule, dealer_seat and first_player_seat agree with walking clockwise round the table."""
    variant = get_variant(key)
    numbers = variant.hand_numbers(skip)
    assert numbers == HANDS[(key, skip)]
    variant.decks_for(players)  # the player count is one the preset allows

    dealers = _walk_dealers(first_dealer, players, len(numbers))
    assert schedule(numbers, first_dealer, players) == list(zip(numbers, dealers))

    for index, (number, dealer) in enumerate(zip(numbers, dealers)):
        where = f"{key} hand {number} ({players} players, first dealer {first_dealer})"
        assert dealer_seat(index, first_dealer, players) == dealer, where
        first = first_player_seat(dealer, players)
        assert first == _next_seat_clockwise(dealer, players), where
        assert first != dealer, where


def test_family_7_skip_hand_1_worked_example():
    """Ann, Bob, Cy, Di clockwise; Cy deals first; hand 1 skipped.

    Six hands at a table of four: the deal goes round once (Cy, Di, Ann, Bob) and then to
    Cy and Di again, so hand 5 is Bob's and hand 7 is Di's.
    """
    seats = ["Ann", "Bob", "Cy", "Di"]
    numbers = get_variant("family-7").hand_numbers(skip_first_hand=True)
    plan = [(n, seats[d]) for n, d in schedule(numbers, seats.index("Cy"), len(seats))]
    assert plan == [
        (2, "Cy"),
        (3, "Di"),
        (4, "Ann"),
        (5, "Bob"),
        (6, "Cy"),
        (7, "Di"),
    ]
    first_players = [seats[first_player_seat(seats.index(name), 4)] for _, name in plan]
    assert first_players == ["Di", "Ann", "Bob", "Cy", "Di", "Ann"]


def test_last_seat_passes_to_seat_0():
    """The deal wraps from the last seat back to the first."""
    assert dealer_seat(1, 4, 5) == 0
    assert first_player_seat(4, 5) == 0
    assert schedule([1, 2, 3], 2, 3) == [(1, 2), (2, 0), (3, 1)]


def test_two_player_game_alternates():
    """With two players the deal alternates and the other player always leads."""
    assert [d for _, d in schedule(list(range(1, 11)), 1, 2)] == [1, 0] * 5
    assert first_player_seat(0, 2) == 1 and first_player_seat(1, 2) == 0
