"""A family's statistics as running tallies, counted one finished game at a time.

The history pages read these instead of scanning every game: per player and rule set (games,
wins, points, hands, hands won, times stuck, buys, best and worst game, most hands won and
most often stuck in one game), per player, month (and year) and rule set (for the charts), per pair of
players (head-to-head) and per player (winning streaks).

Buys and laid-down marks are recorded only by hands played at the table (``marked_hands``): a
hand typed from paper or imported from a spreadsheet has neither, so times stuck and buys are
counted out of the marked hands, and "stuck most often in one game" only from games every hand
of which was marked. ``count_game`` adds a game that comes
after every game already counted; counting a history in order from nothing gives the figures
of the whole history (``count_history``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from itertools import permutations
from typing import NamedTuple


class Line(NamedTuple):
    """One player's result in one finished game (a ``PlayerGame`` row's columns)."""

    game_id: int
    player_id: int
    variant_key: str
    played_on: date
    month: str
    total: int
    won: bool
    hands_played: int
    hands_won: int
    times_stuck: int
    buys: int
    marked_hands: int  # hands that recorded buys and laid-down marks


class Mark(NamedTuple):
    """A figure from one game; where two games share the figure, the earlier one holds it."""

    value: int
    played_on: date
    game_id: int


def _beats(new: Mark, old: Mark | None, higher: bool) -> bool:
    if old is None or new.value != old.value:
        return old is None or (new.value > old.value if higher else new.value < old.value)
    return (new.played_on, new.game_id) < (old.played_on, old.game_id)


@dataclass
class PlayerTally:
    """One player's figures under one rule set."""

    games: int = 0
    wins: int = 0
    points: int = 0
    hands: int = 0
    hands_won: int = 0
    times_stuck: int = 0  # out of the marked hands
    buys: int = 0  # in the marked hands
    marked_hands: int = 0
    best: Mark | None = None  # lowest final score
    worst: Mark | None = None  # highest final score
    most_out: Mark | None = None  # most hands won in one game
    most_stuck: Mark | None = None  # stuck most often in one game every hand of which was marked

    def add(self, line: Line) -> None:
        """Count one finished game of this player under these rules."""
        self.games += 1
        self.wins += line.won
        self.points += line.total
        self.hands += line.hands_played
        self.hands_won += line.hands_won
        self.times_stuck += line.times_stuck
        self.buys += line.buys
        self.marked_hands += line.marked_hands
        marks = [("best", line.total, False), ("worst", line.total, True), ("most_out", line.hands_won, True)]
        if line.hands_played and line.marked_hands == line.hands_played:
            marks.append(("most_stuck", line.times_stuck, True))
        for name, value, higher in marks:
            mark = Mark(value, line.played_on, line.game_id)
            if _beats(mark, getattr(self, name), higher):
                setattr(self, name, mark)


@dataclass
class PeriodTally:
    """One player's games and points in one month (or year) under one rule set."""

    games: int = 0
    points: int = 0


@dataclass
class PairTally:
    """One player against another, over the finished games both played."""

    games: int = 0
    lower: int = 0  # games this player finished with fewer points
    higher: int = 0
    level: int = 0
    wins: int = 0  # games this player won (outright or shared)
    other_wins: int = 0
    points: int = 0
    other_points: int = 0

    def add(self, mine: Line, theirs: Line) -> None:
        """Count one finished game both played: this player's line and the other's."""
        self.games += 1
        self.lower += mine.total < theirs.total
        self.higher += mine.total > theirs.total
        self.level += mine.total == theirs.total
        self.wins += mine.won
        self.other_wins += theirs.won
        self.points += mine.total
        self.other_points += theirs.total


@dataclass
class Streak:
    """Finished games in a row a player won, of the games they played (a shared win continues a
    streak; a game they sat out neither continues nor ends it)."""

    current: int = 0
    longest: int = 0


@dataclass
class Tallies:
    """Every tally of one family, or the part of it one game touches."""

    players: dict[tuple[int, str], PlayerTally] = field(default_factory=dict)  # (player, rules)
    months: dict[tuple[int, str, str], PeriodTally] = field(default_factory=dict)  # (player, month, rules)
    years: dict[tuple[int, str, str], PeriodTally] = field(default_factory=dict)  # (player, year, rules)
    pairs: dict[tuple[int, int], PairTally] = field(default_factory=dict)  # (player, other player)
    streaks: dict[int, Streak] = field(default_factory=dict)  # player; must hold the game's players with a streak

    def count_game(self, lines: Sequence[Line]) -> None:
        """Add one finished game (its players' lines), played after every game counted so far."""
        for line in lines:
            _get(self.players, (line.player_id, line.variant_key), PlayerTally).add(line)
            for periods, period in ((self.months, line.month), (self.years, line.month[:4])):
                tally = _get(periods, (line.player_id, period, line.variant_key), PeriodTally)
                tally.games += 1
                tally.points += line.total
        for mine, theirs in permutations(lines, 2):
            _get(self.pairs, (mine.player_id, theirs.player_id), PairTally).add(mine, theirs)
        for line in lines:
            streak = self.streaks.get(line.player_id)
            if streak is None and line.won:
                streak = self.streaks[line.player_id] = Streak()
            if streak is not None:
                streak.current = streak.current + 1 if line.won else 0
                streak.longest = max(streak.longest, streak.current)


def _get(tallies: dict, key, kind):
    # Not setdefault: that would make a tally for every line of a long history only to drop it.
    tally = tallies.get(key)
    if tally is None:
        tally = tallies[key] = kind()
    return tally


def count_history(lines: Iterable[Line]) -> Tallies:
    """Every tally of a history, from its lines in the order the games were played
    (``played_on``, then ``game_id``)."""
    tallies = Tallies()
    game: list[Line] = []
    for line in lines:
        if game and line.game_id != game[0].game_id:
            tallies.count_game(game)
            game = []
        game.append(line)
    if game:
        tallies.count_game(game)
    return tallies
