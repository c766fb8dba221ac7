"""A season of a family's games: a calendar year (``2026``) or any range of days
(``2026-03-01..2026-06-30``). Each player's games, wins, average final score, hands won and
rating change; the champion, the most improved player and the season's records."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from datetime import date, datetime, time, timedelta

from markupsafe import Markup
from sqlalchemy import DateTime, Integer, bindparam, func, select
from sqlalchemy.orm import aliased

from ..extensions import db
from ..models import FINISHED, Family, Game, Rating
from . import charts
from .records import Record, records_of
from .stats import PlayerLine, player_table

_YEAR = re.compile(r"(\d{4})")
_RANGE = re.compile(r"(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})")
FIRST_YEAR, LAST_YEAR = 1900, 9998
# Fewer games than this and a rise in rating says little (a new rating moves most while it settles):
# no "most improved" for them, and the season's page says so beside the one who is.
IMPROVED_MIN_GAMES = 3


@dataclass(frozen=True)
class Period:
    """The days a season covers, both included."""

    start: date
    end: date

    @property
    def is_year(self) -> bool:
        return (self.start.month, self.start.day, self.end.month, self.end.day) == (1, 1, 12, 31) and \
            self.start.year == self.end.year

    @property
    def slug(self) -> str:
        """How the season is written in its address: ``2026`` or ``2026-03-01..2026-06-30``."""
        return str(self.start.year) if self.is_year else f"{self.start.isoformat()}..{self.end.isoformat()}"

    @property
    def label(self) -> str:
        if self.is_year:
            return f"Season {self.start.year}"
        return f"{_day(self.start)} – {_day(self.end)}"

    @property
    def days(self) -> tuple[date, date]:
        return self.start, self.end

    @property
    def moments(self) -> tuple[datetime, datetime]:
        """From the first moment of the first day to (not including) the day after the last."""
        return datetime.combine(self.start, time.min), datetime.combine(self.end + timedelta(days=1), time.min)


def _day(day: date) -> str:
    return f"{day.day} {day.strftime('%b %Y')}"


def parse_period(text: str) -> Period | None:
    """A season from its address, or ``None`` when it is not one (a year from 1900 to 9998, or
    two dates with the first not after the second)."""
    if match := _YEAR.fullmatch(text):
        year = int(match.group(1))
        return Period(date(year, 1, 1), date(year, 12, 31)) if FIRST_YEAR <= year <= LAST_YEAR else None
    if match := _RANGE.fullmatch(text):
        try:
            start, end = date.fromisoformat(match.group(1)), date.fromisoformat(match.group(2))
        except ValueError:
            return None
        return Period(start, end) if within(start) and within(end) and start <= end else None
    return None


def within(day: date) -> bool:
    """A day a season may start or end on (the day after the last must exist too)."""
    return FIRST_YEAR <= day.year <= LAST_YEAR


@dataclass
class SeasonLine(PlayerLine):
    rating_change: int = 0  # what the season's games changed in the player's rating


@dataclass
class Season:
    period: Period
    lines: list[SeasonLine]  # the champion first: most wins, then the best rise in rating
    champions: list[SeasonLine]  # several on a tie
    most_improved: SeasonLine | None
    records: list[Record]
    rated: SeasonRatings  # its games, rating changes and ratings month by month
    years: list[int] = field(default_factory=list)  # every year the family has finished games in
    # Players who rose more than the most improved over fewer than IMPROVED_MIN_GAMES games (said so beside it).
    rose_in_fewer: list[SeasonLine] = field(default_factory=list)

    @property
    def improved_min_games(self) -> int:
        return IMPROVED_MIN_GAMES

    @property
    def games(self) -> int:
        """Finished games in the season."""
        return self.rated.games


def season(family: Family, period: Period) -> Season:
    """The season's table, champion, most improved player and records (finished games only)."""
    rated = season_ratings(family, period)
    lines = []
    for line in player_table(family, period.days):
        if line.games:
            figures = {f.name: getattr(line, f.name) for f in fields(line)}
            lines.append(SeasonLine(**figures, rating_change=rated.changes.get(line.player.id, 0)))
    lines.sort(key=lambda line: (-line.wins, -line.rating_change, line.player.name))
    champions = [
        line for line in lines
        if line.wins and (line.wins, line.rating_change) == (lines[0].wins, lines[0].rating_change)
    ]
    improved = [line for line in lines if line.games >= IMPROVED_MIN_GAMES and line.rating_change > 0]
    most_improved = max(improved, key=lambda line: (line.rating_change, -line.games)) if improved else None
    beaten = most_improved.rating_change if most_improved else 0
    rose_in_fewer = sorted((line for line in lines if line.games < IMPROVED_MIN_GAMES and line.rating_change > beaten),
                           key=lambda line: -line.rating_change)
    return Season(period, lines, champions, most_improved, records_of(family, period.days), rated,
                  played_years(family), rose_in_fewer)


@dataclass
class SeasonRatings:
    games: int  # every finished game is rated: the season's finished games
    changes: dict[int, int]  # player id: what the season changed in their rating (changes add up exactly)
    months: list[str]
    series: dict[int, list[int | None]]  # player id: rating at the end of each month (None before their first)


def _month_rows():
    """Per player and month of a season: the changes added up, the first game's moment, and the
    player's rating after their last game of the season (an index look-up); and the season's games.
    Built once, with parameters (``family``, ``start``, ``end``)."""
    family, start, end = (bindparam(name, type_=type_) for name, type_ in
                          (("family", Integer), ("start", DateTime), ("end", DateTime)))
    newest, every = aliased(Rating), aliased(Rating)
    after_season = select(newest.shown).where(
        newest.family_id == family, newest.player_id == Rating.player_id, newest.played_at < end,
    ).order_by(newest.played_at.desc(), newest.game_id.desc()).limit(1).scalar_subquery()
    games = select(func.count(every.game_id.distinct())).where(
        every.family_id == family, every.played_at >= start, every.played_at < end).scalar_subquery()
    return (
        select(Rating.player_id, Rating.month, func.sum(Rating.change).label("change"),
               func.min(Rating.played_at).label("since"), after_season.label("last"), games.label("games"))
        .where(Rating.family_id == family, Rating.played_at >= start, Rating.played_at < end)
        .group_by(Rating.player_id, Rating.month)
    )


MONTH_ROWS = _month_rows()


def season_ratings(family: Family, period: Period) -> SeasonRatings:
    """The season's games, each player's change and each player's rating at the end of every month
    with a finished game, from a row per player and month (``MONTH_ROWS``) whatever the number of
    games: a change is the step in the rating shown, so each month's rating is worked back from the
    rating after the season."""
    start, end = period.moments
    rows = db.session.execute(MONTH_ROWS, {"family": family.id, "start": start, "end": end}).all()
    months = sorted({row.month for row in rows})
    mine: dict[int, dict[str, int]] = {}
    for row in sorted(rows, key=lambda row: (row.since, row.player_id)):  # players as they first played in it
        mine.setdefault(row.player_id, {})[row.month] = row.change
    changes = {player_id: sum(by_month.values()) for player_id, by_month in mine.items()}
    last = {row.player_id: row.last for row in rows}
    series = {}
    for player_id, by_month in mine.items():
        value, values, shown = None, [], last[player_id] - changes[player_id]  # before the season's games
        for month in months:
            if month in by_month:
                shown += by_month[month]
                value = shown
            values.append(value)
        series[player_id] = values
    return SeasonRatings(rows[0].games if rows else 0, changes, months, series)


def played_years(family: Family) -> list[int]:
    """The years from the family's first finished game to its last, newest first: two look-ups in
    the index of the family's games by status and start (one min() and one max() each take the end
    of it; both in one select read every finished game)."""
    first, last = db.session.execute(db.select(*(
        db.select(extreme(Game.started_at)).where(Game.family_id == family.id, Game.status == FINISHED)
        .scalar_subquery() for extreme in (func.min, func.max)
    ))).one()
    return list(range(last.year, first.year - 1, -1)) if first else []


def season_games(family: Family, period: Period) -> list[int]:
    """The season's finished games, oldest first."""
    start, end = period.moments
    return list(db.session.execute(
        db.select(Game.id)
        .where(Game.family_id == family.id, Game.status == FINISHED, Game.started_at >= start,
               Game.started_at < end)
        .order_by(Game.started_at, Game.id)
    ).scalars())


def rating_chart(season_: Season) -> Markup | None:
    """Each player's rating at the end of every month of the season; none for a single month."""
    rated = season_.rated
    if len(rated.months) < 2:
        return None
    names = {line.player.id: line.player.name for line in season_.lines}
    return charts.line_chart(
        [(names[pid], values) for pid, values in rated.series.items() if pid in names],
        rated.months,
        x_title="Month",
        y_title="Rating",
        label=f"Ratings through {season_.period.label}",
    )
