"""Points for the cards left in a hand, and the checks that keep an entered hand possible."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .cards import parse_cards
from .messages import MESSAGES
from .variants import Decks, Round, Variant


def _variant(variant_or_key: Variant | str) -> Variant:
    if isinstance(variant_or_key, Variant):
        return variant_or_key
    from . import get_variant

    return get_variant(variant_or_key)


def score_hand(variant_or_key: Variant | str, cards: str | list[str]) -> int:
    """Points for a leftover hand written as cards (``"9♥ 10C Joker"``)."""
    variant = _variant(variant_or_key)
    return sum(variant.key_for_card(card).points for card in parse_cards(cards))


def score_keys(variant: Variant, counts: Mapping[str, int]) -> int:
    """Points for a hand entered on the keypad: key code -> how many of that card."""
    return sum(variant.key_by_code(code).points * n for code, n in counts.items())


def hand_problems(
    variant: Variant, round_: Round, decks: Decks, counts: Mapping[str, int]
) -> list[str]:
    """Why a keypad hand cannot have been held at the end of ``round_``; empty if it could."""
    problems = []
    for code, n in counts.items():
        key = variant.key_by_code(code)
        if n < 0:
            problems.append(f"{key.label}: a count cannot be negative")
            continue
        available = variant.copies(key, decks)
        if n > available:
            problems.append(MESSAGES["copies_over"].format(label=key.label, n=n, available=available))
    held = sum(n for n in counts.values() if n > 0)
    most = variant.max_hand(round_)
    if held > most:
        problems.append(MESSAGES["held_over_round"].format(
            held=held, number=round_.number, dealt=round_.cards_dealt, buys=variant.most_buys(round_),
            per_buy=variant.cards_per_buy, most=most,
        ))
    return problems


def table_problems(
    variant: Variant, decks: Decks, hands: list[Mapping[str, int]]
) -> list[str]:
    """Cards entered across all players that the decks in play cannot hold together. A card one
    hand alone holds too many of is that hand's problem (``hand_problems``), not said twice."""
    totals: dict[str, int] = {}
    for counts in hands:
        for code, n in counts.items():
            totals[code] = totals.get(code, 0) + max(n, 0)
    problems = []
    for key in variant.keys:
        available = variant.copies(key, decks)
        alone = any(max(counts.get(key.code, 0), 0) > available for counts in hands)
        if totals.get(key.code, 0) > available and not alone:
            n = totals[key.code]
            problems.append(MESSAGES["table_copies_over"].format(label=key.label, n=n, available=available))
    return problems


def max_hand_points(variant: Variant, round_: Round) -> int:
    """The most a hand could be worth in ``round_``, a ceiling for totals typed by hand."""
    return variant.max_hand(round_) * max(k.points for k in variant.keys)


@dataclass(frozen=True)
class Totals:
    """The totals cards left in a hand can add up to, kept as bits (bit n set: n points).

    A set of numbers would not do: house rules with big cards and many buys reach millions of
    totals, which take seconds to list and hundreds of megabytes to keep."""

    mask: int

    def __contains__(self, total: object) -> bool:
        return type(total) is int and total >= 0 and bool(self.mask >> total & 1)

    def __iter__(self):
        return (n for n, bit in enumerate(reversed(bin(self.mask)[2:])) if bit == "1")

    @property
    def low(self) -> int:
        return (self.mask & -self.mask).bit_length() - 1

    @property
    def high(self) -> int:
        return self.mask.bit_length() - 1


def card_totals(variant: Variant, number: int) -> Totals:
    """Every total that one or more cards left in a hand can be worth in round ``number``
    (as many of each card as the player could hold: copies in the decks are not counted)."""
    values = tuple(sorted({key.points for key in variant.keys}))
    most = variant.max_hand(variant.round(number))
    found = _known.get((values, most))
    if found is None:
        # Counted once for the round holding the most cards; the other rounds read the same count.
        largest = max(variant.max_hand(r) for r in variant.rounds)
        found = _known[values, most] = _totals(_fewest_cards(values, largest), values, most)
        if len(_known) > KNOWN_TOTALS:
            _known.pop(next(iter(_known)))
    return found


KNOWN_TOTALS = 64  # at most half a megabyte each, for the largest rules allowed
_known: dict[tuple[tuple[int, ...], int], Totals] = {}  # (card values, most cards held) -> totals


def _totals(fewest: np.ndarray, values: tuple[int, ...], most_cards: int) -> Totals:
    held = fewest[: most_cards * max(values + (0,)) + 1] <= most_cards
    held[0] = 0 in values  # no cards at all is not a hand left over
    return Totals(int.from_bytes(np.packbits(held, bitorder="little").tobytes(), "little"))


@lru_cache(maxsize=2)  # a few megabytes each: the rules of the game being typed in
def _fewest_cards(values: tuple[int, ...], most_cards: int) -> np.ndarray:
    """For each total up to ``most_cards`` of the highest card, the fewest cards that add up to it
    (a number past ``most_cards`` where none do)."""
    return _count_fewest(values, most_cards)


def _count_fewest(values: tuple[int, ...], most_cards: int) -> np.ndarray:
    """One pass per card value, each a running minimum over the totals a multiple of that value
    apart, so the largest rules allowed (4,030 cards of up to 1,000 points) cost a fraction of a
    second rather than minutes of adding sets of totals. Negative card values (which no rules
    here have) are left out."""
    values = tuple(v for v in values if v > 0)
    size = most_cards * max(values + (0,)) + 1
    fewest = np.full(size, most_cards + 1, dtype=np.int32)
    fewest[0] = 0
    for value in values:
        rows = -(-size // value)
        grid = np.full(rows * value, most_cards + 1, dtype=np.int32)
        grid[:size] = fewest
        grid = grid.reshape(rows, value)  # column r: the totals r, r + value, r + 2 × value, ...
        steps = np.arange(rows, dtype=np.int32)[:, None]
        # fewest[r + j·value] = min over i ≤ j of (fewest[r + i·value] + j − i)
        grid -= steps
        np.minimum.accumulate(grid, axis=0, out=grid)
        grid += steps
        fewest = np.minimum(grid.reshape(-1)[:size], most_cards + 1)
    return fewest


def why_no_cards_make(variant: Variant, number: int, total: int) -> str:
    """Why no cards left in a hand add up to ``total`` in round ``number`` (a total not in
    ``card_totals``): too high, below the lowest card, or off the cards' step."""
    totals = card_totals(variant, number)
    if total > totals.high:
        return MESSAGES["why_too_high"].format(cards=variant.max_hand(variant.round(number)), high=totals.high)
    if total < totals.low:
        return MESSAGES["why_too_low"].format(low=totals.low)
    step = card_step(variant)
    return MESSAGES["why_step"].format(step=step) if step > 1 else MESSAGES["why_none"]


def card_step(variant: Variant) -> int:
    """The largest number every card's points are a multiple of."""
    return math.gcd(*(key.points for key in variant.keys))
