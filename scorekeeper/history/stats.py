"""A family's history in numbers: the game list, the players' table and profiles.

Figures over the whole history come from the statistics kept as games are played
(``history.kept``), so a page reads a few small rows with ten games or ten thousand; a season's
figures are counted from ``PlayerGame`` (one row per player per game) within its days. Only
finished games count in statistics; abandoned ones stay in the history list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy import Integer, and_, case, cast, func
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..models import FINISHED, IN_PROGRESS, Family, Game, Player, PlayerGame, Seat
from .models import KeptMonth, KeptPlayer, KeptYear

PAGE_SIZE = 25
MONTHS = 36  # a profile whose games span more months is charted by year
# ... and one spanning more years by groups of years: a phone shows no more points apart, and the
# profile costs the same to draw with decades of games as with two years.
MOST_YEARS = 24
RECENT_YEARS = 6  # the seasons a profile links to


# -- the game list ------------------------------------------------------------------------


@dataclass
class HistoryFilters:
    player_id: int | None = None
    variant_key: str | None = None
    status: str | None = None
    date_from: date | None = None
    date_to: date | None = None


@dataclass(frozen=True)
class GameLine:
    """A game as a list of games shows it: its columns, not the game (whose rules are a document)."""

    id: int
    started_at: datetime
    finished_at: datetime | None
    status: str
    rules_name: str  # as the game recorded its rules
    players: list[str]  # in seat order
    winners: list[str]
    winning_total: int | None


@dataclass
class HistoryPage:
    games: list[GameLine]
    total: int | None  # None when not counted
    page: int
    pages: int


def history(family: Family, filters: HistoryFilters, page: int = 1, page_size: int = PAGE_SIZE,
            counted: bool = True) -> HistoryPage:
    """One page of the family's games, newest first: four queries whatever the page (three for the
    first page not ``counted``: the newest games only)."""
    query = db.select(Game.id).where(Game.family_id == family.id)
    if filters.variant_key:
        query = query.where(Game.variant_key == filters.variant_key)
    if filters.status:
        query = query.where(Game.status == filters.status)
    if filters.date_from:
        query = query.where(Game.started_at >= filters.date_from)
    if filters.date_to and filters.date_to < date.max:
        query = query.where(Game.started_at < filters.date_to + timedelta(days=1))
    if filters.player_id:
        query = query.where(
            Game.id.in_(
                db.select(PlayerGame.game_id).where(
                    PlayerGame.family_id == family.id, PlayerGame.player_id == filters.player_id
                )
            )
        )
    total = db.session.execute(db.select(func.count()).select_from(query.subquery())).scalar_one() if counted else None
    pages = max(1, -(-total // page_size)) if counted else 1
    page = min(max(page, 1), pages)
    newest_first = (Game.started_at.desc(), Game.id.desc())
    page_ids = query.order_by(*newest_first).limit(page_size).offset((page - 1) * page_size)
    return HistoryPage(_lines(page_ids.scalar_subquery(), newest_first), total, page, pages)


def _lines(ids, order) -> list[GameLine]:
    """The games of ``ids`` (a select of them) in ``order``: three queries of columns."""
    games = db.session.execute(
        db.select(Game.id, Game.started_at, Game.finished_at, Game.status, Game.variant_key,
                  Game.rules["name"].as_string().label("name"))
        .where(Game.id.in_(ids)).order_by(*order)
    ).all()
    if not games:
        return []
    found = [game.id for game in games]
    players: dict[int, list[str]] = {}
    for game_id, name in db.session.execute(
        db.select(Seat.game_id, Player.name).join(Player, Player.id == Seat.player_id)
        .where(Seat.game_id.in_(found)).order_by(Seat.game_id, Seat.position)
    ):
        players.setdefault(game_id, []).append(name)
    winners: dict[int, list[str]] = {}
    winning_total: dict[int, int] = {}
    for game_id, name, score in db.session.execute(
        db.select(PlayerGame.game_id, Player.name, PlayerGame.total)
        .join(Player, Player.id == PlayerGame.player_id)
        .where(PlayerGame.game_id.in_(found), PlayerGame.won)
        .order_by(Player.name)
    ):
        winners.setdefault(game_id, []).append(name)
        winning_total[game_id] = score
    return [GameLine(g.id, g.started_at, g.finished_at, g.status, g.name or g.variant_key, players.get(g.id, []),
                     winners.get(g.id, []), winning_total.get(g.id)) for g in games]


@dataclass
class GameInPlay:
    game: Game
    totals: dict[int, int]  # player id -> running total
    hands_played: int

    @property
    def round_number(self) -> int:
        numbers = self.game.variant.hand_numbers(self.game.skip_first_hand)
        return numbers[min(self.hands_played, len(numbers) - 1)]


def in_progress(family: Family, limit: int = 20) -> list[GameInPlay]:
    """Games being played, newest first, with running totals from the summaries: three queries."""
    games = list(
        db.session.execute(
            db.select(Game)
            .where(Game.family_id == family.id, Game.status == IN_PROGRESS)
            .order_by(Game.started_at.desc(), Game.id.desc())
            .limit(limit)
            .options(selectinload(Game.seats))
        ).scalars()
    )
    lines = {g.id: GameInPlay(g, {}, 0) for g in games}
    if games:
        rows = db.session.execute(
            db.select(PlayerGame.game_id, PlayerGame.player_id, PlayerGame.total, PlayerGame.hands_played)
            .where(PlayerGame.game_id.in_(list(lines)))
        )
        for game_id, player_id, total, hands in rows:
            lines[game_id].totals[player_id] = total
            lines[game_id].hands_played = hands
    return list(lines.values())


# -- players ------------------------------------------------------------------------------


def finished(family: Family, period: tuple[date, date] | None = None):
    """Rows of the family's finished games (played within ``period``, both days included): the
    only ones statistics count."""
    rows = and_(PlayerGame.family_id == family.id, PlayerGame.status == FINISHED)
    return and_(rows, PlayerGame.played_on.between(*period)) if period else rows


@dataclass
class PlayerLine:
    player: Player
    games: int = 0
    wins: int = 0
    average: float | None = None
    hands: int = 0
    hands_won: int = 0

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None


def player_table(family: Family, period: tuple[date, date] | None = None) -> list[PlayerLine]:
    """Every player of the family with games, wins and average final score: the kept figures of
    every finished game, or the finished games played within ``period`` counted here."""
    players = db.session.execute(
        db.select(Player).where(Player.family_id == family.id).order_by(Player.name)
    ).scalars()
    lines = {p.id: PlayerLine(p) for p in players}
    if period is None:
        figures = db.select(
            KeptPlayer.player_id, func.sum(KeptPlayer.games), func.sum(KeptPlayer.wins),
            func.sum(KeptPlayer.points), func.sum(KeptPlayer.hands), func.sum(KeptPlayer.hands_won),
        ).where(KeptPlayer.family_id == family.id).group_by(KeptPlayer.player_id)
    else:
        figures = db.select(
            PlayerGame.player_id, func.count(), func.sum(case((PlayerGame.won, 1), else_=0)),
            func.sum(PlayerGame.total), func.sum(PlayerGame.hands_played), func.sum(PlayerGame.hands_won),
        ).where(finished(family, period)).group_by(PlayerGame.player_id)
    for player_id, games, wins, points, hands, hands_won in db.session.execute(figures):
        line = lines[player_id]
        line.games, line.wins, line.average = games, wins, points / games
        line.hands, line.hands_won = hands, hands_won
    return sorted(lines.values(), key=lambda line: (-line.wins, -(line.win_rate or 0), line.player.name))


@dataclass(frozen=True)
class Held:
    """A figure one game holds (a player's best or worst final score)."""

    total: int
    played_on: date
    game_id: int


@dataclass
class Profile:
    player: Player
    games: int
    wins: int
    average_total: float | None
    points_per_hand: float | None
    hands: int
    hands_won: int
    times_stuck: int  # in the marked hands
    buys_per_hand: float | None  # None when no hand recorded buys
    marked_hands: int  # hands played at the table: the only ones that recorded buys and laid-down marks
    best: Held | None
    worst: Held | None
    by_variant: list[dict] = field(default_factory=list)
    # Month ("2026-11") or, with ``by_year``, year ("2026", the first of ``years_per_point``); rules
    # key; points; games.
    months: list[tuple[str, str, int, int]] = field(default_factory=list)
    by_year: bool = False
    years_per_point: int = 1
    recent_years: list[int] = field(default_factory=list)  # the newest years with a finished game, newest first

    @property
    def period_name(self) -> str:
        """What one point of the charts covers: "month", "year" or "3 years"."""
        if not self.by_year:
            return "month"
        return "year" if self.years_per_point == 1 else f"{self.years_per_point} years"

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None

    @property
    def by_month(self) -> list[tuple[str, str, float]]:
        """Average final score per month (per year for a long history) and rule set."""
        return [(month, key, points / games) for month, key, points, games in self.months]

    @property
    def mixed(self) -> bool:
        """Games under more than one rule set, whose points differ several-fold: scores are
        compared within each rule set only."""
        return len(self.by_variant) > 1


def profile(family: Family, player: Player) -> Profile:
    """A player's figures over the family's finished games, from the kept figures: four queries."""
    kept = list(db.session.execute(
        db.select(KeptPlayer)
        .where(KeptPlayer.family_id == family.id, KeptPlayer.player_id == player.id)
        .order_by(KeptPlayer.variant_key)
    ).scalars())
    first, last = db.session.execute(db.select(*(
        db.select(extreme(KeptMonth.month)).where(KeptMonth.family_id == family.id, KeptMonth.player_id == player.id)
        .scalar_subquery() for extreme in (func.min, func.max)
    ))).one()
    # Decades of months make no chart on a phone: a long history is charted by year, and one of
    # more than MOST_YEARS years by groups of years (each named by its first).
    by_year = first is not None and _months_between(first, last) >= MONTHS
    step = -(-(int(last[:4]) - int(first[:4]) + 1) // MOST_YEARS) if by_year else 1
    if by_year:
        start = (cast(KeptYear.year, Integer) - int(first[:4])) // step * step + int(first[:4])
        table, period = KeptYear, start.label("period")
    else:
        table, period = KeptMonth, KeptMonth.month
    mine = (table.family_id == family.id, table.player_id == player.id)
    months = db.session.execute(
        db.select(period, table.variant_key, func.sum(table.points), func.sum(table.games))
        .where(*mine).group_by(period, table.variant_key).order_by(period, table.variant_key)
    ).all()
    recent = db.session.execute(
        db.select(KeptYear.year).where(KeptYear.family_id == family.id, KeptYear.player_id == player.id)
        .group_by(KeptYear.year).order_by(KeptYear.year.desc()).limit(RECENT_YEARS)
    ).scalars()
    games, points, hands, marked = (
        sum(getattr(row, name) for row in kept) for name in ("games", "points", "hands", "marked_hands"))
    # Where games share a best (or worst) score, the earlier one holds it.
    best = min(((r.best, r.best_on, r.best_game) for r in kept), default=None)
    worst = min(((-r.worst, r.worst_on, r.worst_game) for r in kept), default=None)
    return Profile(
        player=player,
        games=games,
        wins=sum(row.wins for row in kept),
        average_total=points / games if games else None,
        points_per_hand=points / hands if hands else None,
        hands=hands,
        hands_won=sum(row.hands_won for row in kept),
        times_stuck=sum(row.times_stuck for row in kept),
        buys_per_hand=sum(row.buys for row in kept) / marked if marked else None,
        marked_hands=marked,
        best=Held(*best) if best else None,
        worst=Held(-worst[0], *worst[1:]) if worst else None,
        by_variant=[
            {"key": row.variant_key, "games": row.games, "wins": row.wins, "average": row.points / row.games,
             "points_per_hand": row.points / row.hands if row.hands else None, "best": row.best, "worst": row.worst}
            for row in kept
        ],
        months=[(f"{p:04d}" if by_year else p, key, points, games) for p, key, points, games in months],
        by_year=by_year,
        years_per_point=step,
        recent_years=[int(year) for year in recent],
    )


def _months_between(first: str, last: str) -> int:
    """Whole months from one "2026-11" month to another."""
    return (int(last[:4]) - int(first[:4])) * 12 + int(last[5:]) - int(first[5:])
