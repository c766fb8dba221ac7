"""Who deals and who plays first: the deal passes clockwise (to the left) every hand."""

from __future__ import annotations


def dealer_seat(hand_index: int, first_dealer: int, players: int) -> int:
    """Seat (0-based, clockwise) of the dealer of the game's ``hand_index``-th hand (0-based)."""
    if players < 1:
        raise ValueError("a game needs players")
    if not 0 <= first_dealer < players:
        raise ValueError(f"first dealer seat {first_dealer} is not one of {players} seats")
    return (first_dealer + hand_index) % players


def first_player_seat(dealer: int, players: int) -> int:
    """The player to the dealer's left plays first."""
    return (dealer + 1) % players


def next_game_first_dealer(first_dealer: int, players: int) -> int:
    """Who deals first when the same table plays again: the deal passes on, so the seat left of
    this game's first dealer."""
    return dealer_seat(1, first_dealer, players)


def schedule(hand_numbers: list[int], first_dealer: int, players: int) -> list[tuple[int, int]]:
    """``(round number, dealer seat)`` for every hand a game plays, in order."""
    return [
        (number, dealer_seat(i, first_dealer, players)) for i, number in enumerate(hand_numbers)
    ]
