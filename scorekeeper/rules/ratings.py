"""Family ratings: how strong each player has shown themselves, from every finished game in
order, by the Plackett-Luce model of the ``openskill`` package.

A rating is a belief about a player's skill, ``mu`` (the estimate) and ``sigma`` (how unsure
it still is). What players see is a cautious figure, ``(mu - 3 sigma) x 100``: everyone starts
at 0, it rises with good finishes and as the games firm the estimate up.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from openskill.models import PlackettLuce

# A rating from fewer finished games than this is shown as settling: it still moves a lot.
SETTLED_GAMES = 5
MEANING = (
    "Rating: a cautious estimate of skill from every finished game in order. Everyone starts at 0; "
    "beating the others raises it, most against strong players, and steadier results firm it up. "
    f"It says little until it has settled over a player's first {SETTLED_GAMES} games."
)


@dataclass(frozen=True)
class Skill:
    """A player's rating: the estimate and how unsure it still is."""

    mu: float
    sigma: float

    @property
    def shown(self) -> int:
        """The friendly figure players see: the cautious estimate (mu - 3 sigma) x 100."""
        return round((self.mu - 3 * self.sigma) * 100)


@cache
def _model() -> PlackettLuce:
    return PlackettLuce()


def new_skill() -> Skill:
    """Where every player starts."""
    rating = _model().rating()
    return Skill(rating.mu, rating.sigma)


def rate(before: Sequence[Skill], totals: Sequence[int]) -> list[Skill]:
    """Each seat's rating after a finished game: the lowest total finishes first, equal totals
    share their place."""
    model = _model()
    teams = [[model.create_rating([skill.mu, skill.sigma])] for skill in before]
    after = model.rate(teams, scores=[-total for total in totals])
    return [Skill(team[0].mu, team[0].sigma) for team in after]


@dataclass(frozen=True)
class Rated:
    """One player's rating after one game, and the change in the shown figure it made."""

    game_id: int
    player_id: int
    skill: Skill
    change: int


def replay(
    games: Iterable[tuple[int, Sequence[tuple[int, int]]]], start: Mapping[int, Skill] | None = None
) -> list[Rated]:
    """Rate finished games in the order given: each is ``(game_id, [(player_id, total), ...])``.
    ``start`` holds the ratings players had before the first of them (others start new)."""
    current = dict(start or {})
    rated = []
    for game_id, seats in games:
        before = [current.get(player_id) or new_skill() for player_id, _ in seats]
        after = rate(before, [total for _, total in seats])
        for (player_id, _), old, new in zip(seats, before, after):
            current[player_id] = new
            rated.append(Rated(game_id, player_id, new, new.shown - old.shown))
    return rated
