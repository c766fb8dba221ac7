"""Each player's chance to win a game in progress, by playing out the rounds left many times.

In every simulated round one player, chosen at random, goes out and scores the rules' going-out
points (``Variant.going_out_points``); every other player is left with a hand drawn from what
players who did not go out were left with in that round:

- the family's own hands with these rules, round by round, once it has played ``ENOUGH_HANDS``
  of them (a round with fewer than ``ENOUGH_IN_ROUND`` borrows the other rounds' hands, scaled by
  the cards dealt);
- before that, the point table: a player is left with 1 to all of the cards dealt (as likely
  each), each card drawn from the decks in play (key points weighted by their copies).

A *hand* here is one player's cards left at the end of a round. The lowest total wins; players
who tie share the win. The same seed gives the same chances, so a page drawn twice for the same
game state shows the same figures (``seed_for``).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .variants import Variant

SIMULATIONS = 10_000
ENOUGH_HANDS = 300  # the family's own hands with these rules it takes to leave the point table
ENOUGH_IN_ROUND = 30  # a round with fewer borrows the other rounds' hands, scaled by cards dealt
POINT_TABLE_HANDS = 2_000  # the point table's hands per round: evenly spread over its distribution


@dataclass(frozen=True)
class Chances:
    """Each seat's chance to win, in percent (they sum to 100), and what they were built from."""

    percent: tuple[float, ...]
    hands: int  # the family's hands the simulation drew from; 0 when it used the point table
    source: str  # one line for the page: what the figures come from

    @property
    def labels(self) -> tuple[str, ...]:
        """Whole percents as a phone shows them: ``"<1%"`` and ``">99%"`` rather than a
        rounded 0 or 100 that is not quite so."""
        return tuple(percent_label(p) for p in self.percent)


def percent_label(percent: float) -> str:
    if percent <= 0:
        return "0%"
    if percent >= 100:
        return "100%"
    if percent < 1:
        return "<1%"
    if percent > 99:
        return ">99%"
    return f"{int(percent + 0.5)}%"  # halves up, as people round


def seed_for(game_id: int, totals: Sequence[int], rounds_scored: int) -> int:
    """A seed fixed by the game's state: the same totals after the same hands draw the same
    simulated finishes."""
    return zlib.crc32(repr((game_id, tuple(totals), rounds_scored)).encode())


def chance_to_win(
    variant: Variant,
    totals: Sequence[int],
    remaining_rounds: Sequence[int],
    players: int,
    samples: Mapping[int, Sequence[int]],
    seed: int,
    simulations: int = SIMULATIONS,
) -> Chances:
    """Each seat's chance to finish with the lowest total (a shared lowest total shares the
    win), from ``totals`` now with the rounds numbered ``remaining_rounds`` still to play.

    ``samples`` holds the family's hands with these rules: round number -> the points of each
    player who did not go out. Fewer than ``ENOUGH_HANDS`` in all, and the point table is used.
    """
    current = np.asarray(totals, dtype=np.int64)
    hands = sum(len(samples.get(r.number, ())) for r in variant.rounds)
    own = hands >= ENOUGH_HANDS
    source = _source(hands, own, simulations)
    if not remaining_rounds:
        return Chances(_symmetric(_shares(current[None, :]), current), hands if own else 0, source)
    pools = _family_pools(variant, samples) if own else _point_table_pools(variant, players)
    rng = np.random.default_rng(seed)
    finals = np.repeat(current[None, :], simulations, axis=0)
    rows = np.arange(simulations)
    for number in remaining_rounds:
        pool = pools[number]
        points = pool[rng.integers(len(pool), size=(simulations, players))]
        points[rows, rng.integers(players, size=simulations)] = variant.going_out_points(number)
        finals += points
    return Chances(_symmetric(_shares(finals), current), hands if own else 0, source)


def _shares(finals: np.ndarray) -> np.ndarray:
    """Each seat's share of the wins over the rows (finishes): ties share a row's win."""
    winners = finals == finals.min(axis=1, keepdims=True)
    return (winners / winners.sum(axis=1, keepdims=True)).mean(axis=0) * 100


def _symmetric(percent: np.ndarray, totals: np.ndarray) -> tuple[float, ...]:
    """Players on the same total are in the same position: each gets their average, which is
    what the simulation estimates for them, without its noise between them."""
    even = percent.copy()
    for total in np.unique(totals):
        seats = totals == total
        even[seats] = percent[seats].mean()
    return tuple(float(p) for p in even)


def _source(hands: int, own: bool, simulations: int) -> str:
    played = f"Simulated {simulations:,} times"
    if own:
        return f"{played} from {hands:,} hands this family played with these rules."
    return f"{played} from the point table: too few hands played with these rules yet ({hands:,} of {ENOUGH_HANDS})."


def _family_pools(variant: Variant, samples: Mapping[int, Sequence[int]]) -> dict[int, np.ndarray]:
    """Each round's hands to draw from: its own, or, when it has too few, every other round's
    scaled by the cards dealt in this one."""
    own = {r.number: np.asarray(samples.get(r.number, ()), dtype=np.int64) for r in variant.rounds}
    pools = {}
    for round_ in variant.rounds:
        if len(own[round_.number]) >= ENOUGH_IN_ROUND:
            pools[round_.number] = own[round_.number]
            continue
        scaled = [
            np.rint(own[other.number] * (round_.cards_dealt / other.cards_dealt)).astype(np.int64)
            for other in variant.rounds
            if other.number != round_.number and len(own[other.number])
        ]
        pools[round_.number] = np.concatenate([own[round_.number], *scaled])
    return pools


def _point_table_pools(variant: Variant, players: int) -> dict[int, np.ndarray]:
    decks = variant.decks_for(players)
    deck = tuple(sorted((key.points, variant.copies(key, decks)) for key in variant.keys))
    return {r.number: _point_table_hands(deck, r.cards_dealt) for r in variant.rounds}


@lru_cache(maxsize=64)
def _point_table_hands(deck: tuple[tuple[int, int], ...], cards_dealt: int) -> np.ndarray:
    """``POINT_TABLE_HANDS`` hands spread evenly over the point table's distribution of a hand
    left with 1 to ``cards_dealt`` cards (as likely each), each card drawn from ``deck``
    (``(points, copies)`` pairs). Worked out exactly, so no random numbers are involved."""
    card = np.zeros(max(points for points, _ in deck) + 1)
    for points, copies in deck:
        card[points] += copies
    card /= card.sum()
    hand = np.ones(1)  # the distribution of no cards at all: 0 points
    mixture = np.zeros(len(card) * cards_dealt)
    for _ in range(cards_dealt):
        hand = np.convolve(hand, card)
        mixture[: len(hand)] += hand / cards_dealt
    quantiles = (np.arange(POINT_TABLE_HANDS) + 0.5) / POINT_TABLE_HANDS
    values = np.searchsorted(np.cumsum(mixture), quantiles).astype(np.int64)
    values.setflags(write=False)  # shared by every call: nobody may change it
    return values
