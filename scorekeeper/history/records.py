"""A family's records over finished games: the lowest and highest scores under each rule set,
the most hands won and times stuck in one game, the longest winning streak, and head-to-head.
Over the whole history they come from the kept statistics (``history.kept``); over a season
they are counted from the season's games."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import and_, func, or_

from ..extensions import db
from ..models import Family, Game, Player, PlayerGame
from .models import KeptPair, KeptPlayer, KeptStreak
from .stats import finished

MOST_OUT = "Most hands won in one game"
MOST_STUCK = "Stuck most often in one game"
STREAK = "Longest winning streak (games in a row)"


@dataclass
class Record:
    title: str
    player: str
    value: int | None  # None: the games did not record it
    game_id: int | None
    played_on: date | None
    rules_name: str | None = None  # a score record holds within one rule set: its name


# Games typed from paper or imported from a spreadsheet do not say who laid down.
NOT_RECORDED = Record(MOST_STUCK, "not recorded: only games played at the table say who was stuck", None, None, None)


def score_records(family: Family, period: tuple[date, date]) -> list[Record]:
    """The lowest and highest final score under each rule set among the games played within
    ``period`` (their points differ several-fold, so a score is only compared with scores under
    the same rules), the earlier game first where two share one: two queries, the second reading
    only the games with those scores."""
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
        .order_by(PlayerGame.played_on, PlayerGame.game_id, Player.name)
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
    """The family's records over finished games: from the kept figures, or counted within
    ``period`` (a season). Scores per rule set first, then the rest."""
    if period is None:
        return kept_records(family)
    named = (
        db.select(PlayerGame, Player.name)
        .join(Player, Player.id == PlayerGame.player_id)
        .where(finished(family, period))
    )

    def top(title, order, value, *where):
        row = db.session.execute(
            named.where(*where).order_by(order, PlayerGame.played_on, PlayerGame.game_id, Player.name).limit(1)
        ).first()
        if row is None:
            return None
        summary, name = row
        return Record(title, name, value(summary), summary.game_id, summary.played_on)

    found = [*score_records(family, period), top(MOST_OUT, PlayerGame.hands_won.desc(), lambda s: s.hands_won)]
    if found[-1] is not None:
        # Only games every hand of which was played at the table say who was stuck.
        found.append(top(MOST_STUCK, PlayerGame.times_stuck.desc(), lambda s: s.times_stuck,
                         PlayerGame.marked_hands == PlayerGame.hands_played) or NOT_RECORDED)
    streak = longest_streak(family, period)
    if streak:
        found.append(Record(STREAK, streak[0], streak[1], None, None))
    return [r for r in found if r is not None]


def kept_records(family: Family) -> list[Record]:
    """The records of the whole history, from the kept figures: three small queries."""
    rows = db.session.execute(
        db.select(KeptPlayer, Player.name).join(Player, Player.id == KeptPlayer.player_id)
        .where(KeptPlayer.family_id == family.id)
    ).all()
    if not rows:
        return []

    def held(title, mark, rows, higher):
        # The highest (or lowest) value; where games share it, the earlier game, then the name.
        kept, name = min(rows, key=lambda r: (
            -getattr(r[0], mark) if higher else getattr(r[0], mark),
            getattr(r[0], f"{mark}_on"), getattr(r[0], f"{mark}_game"), r[1]))
        return Record(title, name, getattr(kept, mark), getattr(kept, f"{mark}_game"), getattr(kept, f"{mark}_on"))

    keys = sorted({kept.variant_key for kept, _ in rows})
    found = []
    for key in keys:
        under = [row for row in rows if row[0].variant_key == key]
        found += [held("Lowest final score", "best", under, False), held("Highest final score", "worst", under, True)]
    recorded = dict(db.session.execute(
        db.select(Game.id, Game.rules).where(Game.id.in_({r.game_id for r in found}))
    ).all())
    for record, key in zip(found, [key for key in keys for _ in ("lowest", "highest")], strict=True):
        record.rules_name = recorded[record.game_id].get("name", key)  # as the game recorded its rules
    found.append(held(MOST_OUT, "most_out", rows, True))
    marked = [row for row in rows if row[0].most_stuck is not None]  # games that say who was stuck
    found.append(held(MOST_STUCK, "most_stuck", marked, True) if marked else NOT_RECORDED)
    streak = longest_streak(family)
    if streak:
        found.append(Record(STREAK, streak[0], streak[1], None, None))
    return found


def longest_streak(family: Family, period: tuple[date, date] | None = None) -> tuple[str, int] | None:
    """The most finished games in a row won by one player, of the games they played (a shared
    win continues a streak): kept, or counted within ``period``.

    Gaps and islands in SQL: number each player's games in date order; within the player's wins,
    that number minus the running count of wins is constant along a streak.
    """
    if period is None:
        row = db.session.execute(
            db.select(Player.name, KeptStreak.longest.label("length"))
            .join(Player, Player.id == KeptStreak.player_id)
            .where(KeptStreak.family_id == family.id, KeptStreak.longest > 0)
            .order_by(KeptStreak.longest.desc(), Player.name)
            .limit(1)
        ).first()
        return (row.name, row.length) if row else None
    played = (
        db.select(
            PlayerGame.player_id, PlayerGame.won,
            func.row_number().over(partition_by=PlayerGame.player_id,
                                   order_by=(PlayerGame.played_on, PlayerGame.game_id)).label("n"),
        )
        .where(finished(family, period))
        .subquery()
    )
    wins = db.select(played.c.player_id, played.c.n).where(played.c.won).subquery()
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
    """Finished games both played: who finished lower, who won, average scores (kept)."""
    pair = db.session.execute(
        db.select(KeptPair).where(
            KeptPair.family_id == family.id, KeptPair.player_id == first.id, KeptPair.other_id == second.id
        )
    ).scalar()
    if pair is None:
        return HeadToHead(0, 0, 0, 0, 0, 0, None, None)
    return HeadToHead(pair.games, pair.lower, pair.higher, pair.level, pair.wins, pair.other_wins,
                      pair.points / pair.games, pair.other_points / pair.games)
