"""Playing cards as written by people: ``10♦``, ``qs``, ``JK``, ``Joker``."""

from __future__ import annotations

import re
from dataclasses import dataclass

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
SUIT_DISPLAY = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
JOKER = "JK"

_CARD = re.compile(r"^(10|[2-9JQKA])([SHDC])$")


@dataclass(frozen=True)
class Card:
    """One physical card; ``rank`` is ``JK`` and ``suit`` empty for a joker."""

    rank: str
    suit: str = ""

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER

    def __str__(self) -> str:
        return "Joker" if self.is_joker else f"{self.rank}{SUIT_DISPLAY[self.suit]}"


def parse_card(token: str) -> Card:
    """Read one card such as ``10♦``, ``qs`` or ``Joker``; ``ValueError`` quotes a bad one."""
    text = token.strip()
    upper = text.upper()
    if upper in ("JK", "JOKER"):
        return Card(JOKER)
    for symbol, letter in SUIT_SYMBOLS.items():
        upper = upper.replace(symbol, letter)
    match = _CARD.match(upper)
    if not match:
        raise ValueError(
            f"'{text}' is not a card: write a rank (2-10, J, Q, K, A) and a suit "
            f"(S H D C or ♠ ♥ ♦ ♣), or JK for a joker"
        )
    return Card(match.group(1), match.group(2))


def parse_cards(cards: str | list[str] | tuple[str, ...]) -> list[Card]:
    """Read a hand written as a string (spaces or commas between cards) or a list of cards."""
    if isinstance(cards, str):
        tokens = [t for t in re.split(r"[\s,]+", cards) if t]
    else:
        tokens = []
        for item in cards:
            if not isinstance(item, str):
                raise ValueError(f"'{item!r}' is not a card")
            tokens.append(item)
    return [parse_card(t) for t in tokens]
