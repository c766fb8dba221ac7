"""A family's history in numbers: the game list, player records, head-to-head.

Every figure comes from aggregate SQL over ``PlayerGame`` (one row per player per game), so a
page costs the same few queries with ten games or ten thousand. Only finished games count in
statistics; abandoned ones stay in the history list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import and_, case, func
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..models import FINISHED, IN_PROGRESS, Family, Game, Player, PlayerGame

PAGE_SIZE = 25


# -- the game list ------------------------------------------------------------------------


@dataclass
class HistoryFilters:
    player_id: int | None = None
    variant_key: str | None = None
    status: str | None = None
    date_from: date | None = None
    date_to: date | None = None


@dataclass
class HistoryPage:
    games: list[Game]
    winners: dict[int, list[str]]  # game id -> winners' names
    winning_total: dict[int, int]  # game id -> the winners' final score
    total: int
    page: int
    pages: int


def history(family: Family, filters: HistoryFilters, page: int = 1, page_size: int = PAGE_SIZE) -> HistoryPage:
    """One page of the family's games, newest first: four queries whatever the page."""
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
    total = db.session.execute(db.select(func.count()).select_from(query.subquery())).scalar_one()
    pages = max(1, -(-total // page_size))
    page = min(max(page, 1), pages)
    newest_first = (Game.started_at.desc(), Game.id.desc())
    page_ids = query.order_by(*newest_first).limit(page_size).offset((page - 1) * page_size)
    games = list(
        db.session.execute(
            db.select(Game)
            .where(Game.id.in_(page_ids.scalar_subquery()))
            .order_by(*newest_first)
            .options(selectinload(Game.seats))
        ).scalars()
    )
    winners: dict[int, list[str]] = {}
    winning_total: dict[int, int] = {}
    if games:
        rows = db.session.execute(
            db.select(PlayerGame.game_id, Player.name, PlayerGame.total)
            .join(Player, Player.id == PlayerGame.player_id)
            .where(PlayerGame.game_id.in_([g.id for g in games]), PlayerGame.won)
            .order_by(Player.name)
        )
        for game_id, name, score in rows:
            winners.setdefault(game_id, []).append(name)
            winning_total[game_id] = score
    return HistoryPage(games, winners, winning_total, total, page, pages)


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
    """Every player of the family with games, wins and average final score (finished games,
    played within ``period`` when one is given)."""
    players = db.session.execute(
        db.select(Player).where(Player.family_id == family.id).order_by(Player.name)
    ).scalars()
    lines = {p.id: PlayerLine(p) for p in players}
    rows = db.session.execute(
        db.select(
            PlayerGame.player_id,
            func.count(),
            func.sum(case((PlayerGame.won, 1), else_=0)),
            func.avg(PlayerGame.total),
            func.sum(PlayerGame.hands_played),
            func.sum(PlayerGame.hands_won),
        )
        .where(finished(family, period))
        .group_by(PlayerGame.player_id)
    )
    for player_id, games, wins, average, hands, hands_won in rows:
        line = lines[player_id]
        line.games, line.wins, line.average = games, wins, float(average)
        line.hands, line.hands_won = hands, hands_won
    return sorted(lines.values(), key=lambda line: (-line.wins, -(line.win_rate or 0), line.player.name))


@dataclass
class Profile:
    player: Player
    games: int
    wins: int
    average_total: float | None
    points_per_hand: float | None
    hands: int
    hands_won: int
    times_stuck: int
    buys_per_hand: float | None
    best: PlayerGame | None
    worst: PlayerGame | None
    by_variant: list[dict] = field(default_factory=list)
    by_month: list[tuple[str, str, float]] = field(default_factory=list)  # month, rules, average

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None

    @property
    def mixed(self) -> bool:
        """Games under more than one rule set, whose points differ several-fold: scores are
        compared within each rule set only."""
        return len(self.by_variant) > 1


def profile(family: Family, player: Player) -> Profile:
    """A player's figures over the family's finished games: five queries."""
    mine = and_(finished(family), PlayerGame.player_id == player.id)
    games, wins, average, total, hands, hands_won, stuck, buys = db.session.execute(
        db.select(
            func.count(),
            func.coalesce(func.sum(case((PlayerGame.won, 1), else_=0)), 0),
            func.avg(PlayerGame.total),
            func.coalesce(func.sum(PlayerGame.total), 0),
            func.coalesce(func.sum(PlayerGame.hands_played), 0),
            func.coalesce(func.sum(PlayerGame.hands_won), 0),
            func.coalesce(func.sum(PlayerGame.times_stuck), 0),
            func.coalesce(func.sum(PlayerGame.buys), 0),
        ).where(mine)
    ).one()

    def extreme(order):
        return db.session.execute(
            db.select(PlayerGame).where(mine).order_by(order, PlayerGame.played_on.desc()).limit(1)
        ).scalar()

    by_variant = _by_variant(mine)
    by_month = [
        (month, key, float(avg))
        for month, key, avg in db.session.execute(
            db.select(PlayerGame.month, PlayerGame.variant_key, func.avg(PlayerGame.total))
            .where(mine)
            .group_by(PlayerGame.month, PlayerGame.variant_key)
            .order_by(PlayerGame.month, PlayerGame.variant_key)
        )
    ]
    return Profile(
        player=player,
        games=games,
        wins=wins,
        average_total=float(average) if average is not None else None,
        points_per_hand=total / hands if hands else None,
        hands=hands,
        hands_won=hands_won,
        times_stuck=stuck,
        buys_per_hand=buys / hands if hands else None,
        best=extreme(PlayerGame.total.asc()),
        worst=extreme(PlayerGame.total.desc()),
        by_variant=by_variant,
        by_month=by_month,
    )


def _by_variant(mine) -> list[dict]:
    """A player's figures under each rule set: games, wins, average, per hand, best and worst."""
    return [
        {"key": key, "games": n, "wins": w, "average": float(avg),
         "points_per_hand": points / hands if hands else None, "best": best, "worst": worst}
        for key, n, w, avg, points, hands, best, worst in db.session.execute(
            db.select(
                PlayerGame.variant_key,
                func.count(),
                func.sum(case((PlayerGame.won, 1), else_=0)),
                func.avg(PlayerGame.total),
                func.sum(PlayerGame.total),
                func.sum(PlayerGame.hands_played),
                func.min(PlayerGame.total),
                func.max(PlayerGame.total),
            )
            .where(mine)
            .group_by(PlayerGame.variant_key)
            .order_by(PlayerGame.variant_key)
        )
    ]
