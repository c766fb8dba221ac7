"""A family's history in numbers: the game list, player records, head-to-head.

Every figure comes from aggregate SQL over ``PlayerGame`` (one row per player per game), so a
page costs the same few queries with ten games or ten thousand. Only finished games count in
statistics; abandoned ones stay in the history list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from sqlalchemy import and_, case, func
from sqlalchemy.orm import aliased, selectinload

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


def _finished(family: Family):
    return and_(PlayerGame.family_id == family.id, PlayerGame.status == FINISHED)


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


def player_table(family: Family) -> list[PlayerLine]:
    """Every player of the family with games, wins and average final score (finished games)."""
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
        .where(_finished(family))
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
    by_month: list[tuple[str, float, int]] = field(default_factory=list)

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None


def profile(family: Family, player: Player) -> Profile:
    """A player's figures over the family's finished games: five queries."""
    mine = and_(_finished(family), PlayerGame.player_id == player.id)
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

    by_variant = [
        {"key": key, "games": n, "wins": w, "average": float(avg)}
        for key, n, w, avg in db.session.execute(
            db.select(
                PlayerGame.variant_key,
                func.count(),
                func.sum(case((PlayerGame.won, 1), else_=0)),
                func.avg(PlayerGame.total),
            )
            .where(mine)
            .group_by(PlayerGame.variant_key)
            .order_by(PlayerGame.variant_key)
        )
    ]
    by_month = [
        (month, float(avg), n)
        for month, avg, n in db.session.execute(
            db.select(PlayerGame.month, func.avg(PlayerGame.total), func.count())
            .where(mine)
            .group_by(PlayerGame.month)
            .order_by(PlayerGame.month)
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


# -- records ------------------------------------------------------------------------------


@dataclass
class Record:
    title: str
    player: str
    value: int
    game_id: int | None
    played_on: date | None


def records(family: Family) -> list[Record]:
    """The family's records over finished games."""
    named = (
        db.select(PlayerGame, Player.name)
        .join(Player, Player.id == PlayerGame.player_id)
        .where(_finished(family))
    )

    def top(title, order, value):
        row = db.session.execute(named.order_by(order, PlayerGame.played_on).limit(1)).first()
        if row is None:
            return None
        summary, name = row
        return Record(title, name, value(summary), summary.game_id, summary.played_on)

    found = [
        top("Lowest final score", PlayerGame.total.asc(), lambda s: s.total),
        top("Highest final score", PlayerGame.total.desc(), lambda s: s.total),
        top("Most hands won in one game", PlayerGame.hands_won.desc(), lambda s: s.hands_won),
        top("Stuck most often in one game", PlayerGame.times_stuck.desc(), lambda s: s.times_stuck),
    ]
    streak = longest_streak(family)
    if streak:
        found.append(Record("Longest winning streak (games in a row)", streak[0], streak[1], None, None))
    return [r for r in found if r is not None]


def longest_streak(family: Family) -> tuple[str, int] | None:
    """The most finished games in a row won by one player (a shared win continues a streak).

    Gaps and islands in SQL: number the family's won games in date order; within one player's wins,
    that number minus the player's own running count is constant along a streak.
    """
    wins = (
        db.select(
            PlayerGame.player_id,
            func.dense_rank().over(order_by=(PlayerGame.played_on, PlayerGame.game_id)).label("n"),
        )
        .where(_finished(family), PlayerGame.won)
        .subquery()
    )
    islands = db.select(
        wins.c.player_id,
        (wins.c.n - func.row_number().over(partition_by=wins.c.player_id, order_by=wins.c.n)).label("island"),
    ).subquery()
    row = db.session.execute(
        db.select(Player.name, func.count().label("length"))
        .select_from(islands)
        .join(Player, Player.id == islands.c.player_id)
        .group_by(islands.c.player_id, islands.c.island, Player.name)
        .order_by(func.count().desc(), Player.name)
        .limit(1)
    ).first()
    return (row.name, row.length) if row else None


@dataclass
class HeadToHead:
    games: int
    first_lower: int  # games where the first player finished with fewer points
    second_lower: int
    level: int
    first_wins: int  # games won outright or shared
    second_wins: int
    first_average: float | None
    second_average: float | None


def head_to_head(family: Family, first: Player, second: Player) -> HeadToHead:
    """Finished games both played: who finished lower, who won, average scores."""
    a, b = aliased(PlayerGame), aliased(PlayerGame)
    row = db.session.execute(
        db.select(
            func.count(),
            func.coalesce(func.sum(case((a.total < b.total, 1), else_=0)), 0),
            func.coalesce(func.sum(case((a.total > b.total, 1), else_=0)), 0),
            func.coalesce(func.sum(case((a.total == b.total, 1), else_=0)), 0),
            func.coalesce(func.sum(case((a.won, 1), else_=0)), 0),
            func.coalesce(func.sum(case((b.won, 1), else_=0)), 0),
            func.avg(a.total),
            func.avg(b.total),
        )
        .select_from(a)
        .join(b, a.game_id == b.game_id)
        .where(
            a.family_id == family.id,
            a.status == FINISHED,
            a.player_id == first.id,
            b.player_id == second.id,
        )
    ).one()
    games, first_lower, second_lower, level, first_wins, second_wins, avg_a, avg_b = row
    return HeadToHead(
        games, first_lower, second_lower, level, first_wins, second_wins,
        float(avg_a) if avg_a is not None else None,
        float(avg_b) if avg_b is not None else None,
    )
