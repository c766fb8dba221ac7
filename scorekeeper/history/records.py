"""A family's records over finished games: the lowest and highest scores under each rule set,
the most hands won and times stuck in one game, the longest winning streak, and head-to-head."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import and_, case, func, or_
from sqlalchemy.orm import aliased

from ..extensions import db
from ..models import FINISHED, Family, Game, Player, PlayerGame
from .stats import finished


@dataclass
class Record:
    title: str
    player: str
    value: int
    game_id: int | None
    played_on: date | None
    rules_name: str | None = None  # a score record holds within one rule set: its name


def score_records(family: Family, period: tuple[date, date] | None = None) -> list[Record]:
    """The lowest and highest final score under each rule set (their points differ several-fold,
    so a score is only compared with scores under the same rules), the earlier game first where
    two share one: two queries, the second reading only the games with those scores."""
    extremes = db.session.execute(
        db.select(PlayerGame.variant_key, func.min(PlayerGame.total), func.max(PlayerGame.total))
        .where(finished(family, period))
        .group_by(PlayerGame.variant_key)
        .order_by(PlayerGame.variant_key)
    ).all()
    if not extremes:
        return []
    wanted = [
        and_(PlayerGame.variant_key == key, PlayerGame.total.in_({low, high})) for key, low, high in extremes
    ]
    rows = db.session.execute(
        db.select(PlayerGame.game_id, PlayerGame.variant_key, PlayerGame.total, PlayerGame.played_on,
                  Player.name, Game.rules)
        .join(Player, Player.id == PlayerGame.player_id)
        .join(Game, Game.id == PlayerGame.game_id)
        .where(finished(family, period), or_(*wanted))
        .order_by(PlayerGame.played_on, PlayerGame.game_id)
    ).all()
    first = {}
    for row in rows:
        first.setdefault((row.variant_key, row.total), row)
    found = []
    for key, low, high in extremes:
        for title, total in (("Lowest final score", low), ("Highest final score", high)):
            row = first[key, total]
            name = row.rules.get("name", key)  # as the game recorded its rules
            found.append(Record(title, row.name, total, row.game_id, row.played_on, name))
    return found


def records_of(family: Family, period: tuple[date, date] | None = None) -> list[Record]:
    """The family's records over finished games (of a season, with ``period``): scores per rule
    set, then the rest."""
    named = (
        db.select(PlayerGame, Player.name)
        .join(Player, Player.id == PlayerGame.player_id)
        .where(finished(family, period))
    )

    def top(title, order, value):
        row = db.session.execute(named.order_by(order, PlayerGame.played_on).limit(1)).first()
        if row is None:
            return None
        summary, name = row
        return Record(title, name, value(summary), summary.game_id, summary.played_on)

    found = [
        *score_records(family, period),
        top("Most hands won in one game", PlayerGame.hands_won.desc(), lambda s: s.hands_won),
        top("Stuck most often in one game", PlayerGame.times_stuck.desc(), lambda s: s.times_stuck),
    ]
    streak = longest_streak(family, period)
    if streak:
        found.append(Record("Longest winning streak (games in a row)", streak[0], streak[1], None, None))
    return [r for r in found if r is not None]


def longest_streak(family: Family, period: tuple[date, date] | None = None) -> tuple[str, int] | None:
    """The most finished games in a row won by one player (a shared win continues a streak).

    Gaps and islands in SQL: number the family's won games in date order; within one player's wins,
    that number minus the player's own running count is constant along a streak.
    """
    wins = (
        db.select(
            PlayerGame.player_id,
            func.dense_rank().over(order_by=(PlayerGame.played_on, PlayerGame.game_id)).label("n"),
        )
        .where(finished(family, period), PlayerGame.won)
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
