"""Family ratings kept with the games (``Rating`` rows, worked out by ``rules.ratings``).

Finishing a game rates it. A change to a finished game (an edit, an undo, its deletion) or
games imported into the past rate that game and every later one again, from the ratings the
players had before it: the rows always equal a rating of the whole history in order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from itertools import groupby

from sqlalchemy import DateTime, bindparam, func, literal, or_, select, union_all
from sqlalchemy.orm import aliased

from .. import bulk
from ..extensions import db
from ..families import lock_family
from ..models import FINISHED, Game, PlayerGame, Rating
from ..rules import ratings as model

# SQLite joins at most 500 selects in one statement.
LOOKUPS_PER_STATEMENT = 400


def rate_from(family_id: int, played_at: datetime | None = None, game_id: int = 0) -> None:
    """Rate again every finished game of the family from ``(played_at, game_id)`` on, in order;
    ``None`` rates the whole history."""
    # One rating at a time per family: two requests replaying the same later games at once would
    # each start from ratings the other is rewriting.
    lock_family(family_id)
    later = _from(Rating.played_at, Rating.game_id, played_at, game_id)
    db.session.execute(db.delete(Rating).where(Rating.family_id == family_id, *later))
    # From the family's games in start order, so only the later games are read.
    later_games = select(Game.id).where(
        Game.family_id == family_id, *_from(Game.started_at, Game.id, played_at, game_id)
    )
    rows = db.session.execute(
        select(PlayerGame.game_id, PlayerGame.player_id, PlayerGame.total, Game.started_at)
        .join(Game, Game.id == PlayerGame.game_id)
        .where(PlayerGame.game_id.in_(later_games), PlayerGame.status == FINISHED)
        .order_by(Game.started_at, Game.id, PlayerGame.player_id)
    ).all()
    if not rows:
        return
    started = {row.game_id: row.started_at for row in rows}
    games = [(gid, [(r.player_id, r.total) for r in seats]) for gid, seats in groupby(rows, lambda r: r.game_id)]
    start = latest(family_id, {r.player_id for r in rows}) if played_at is not None else {}
    # Written as the replay rates each game: the database stores one while the next is rated.
    bulk.insert_rows(Rating.__table__, (
        {"family_id": family_id, "game_id": rated.game_id, "player_id": rated.player_id,
         "played_at": started[rated.game_id], "month": started[rated.game_id].strftime("%Y-%m"),
         "mu": rated.skill.mu, "sigma": rated.skill.sigma, "shown": rated.skill.shown, "change": rated.change}
        for rated in model.replay(games, {pid: skill for pid, (skill, _) in start.items()})
    ))


def rebuild(family_id: int) -> None:
    """Rate the family's whole history again."""
    rate_from(family_id, None)


def _from(at_column, id_column, played_at: datetime | None, game_id: int) -> list:
    """Conditions for rows at or after ``(played_at, game_id)`` in rating order."""
    if played_at is None:
        return []
    # The first condition alone bounds an index range; the second trims its first moment.
    return [at_column >= played_at, or_(at_column > played_at, id_column >= game_id)]


def latest(family_id: int, player_ids: Iterable[int]) -> dict[int, tuple[model.Skill, datetime]]:
    """Each player's newest rating and when its game was played (players never rated are left
    out). One statement: an indexed look-up per player, whatever the size of the history."""
    ids = sorted(set(player_ids))
    found = {}
    for start in range(0, len(ids), LOOKUPS_PER_STATEMENT):
        newest = [
            select(Rating.player_id, Rating.mu, Rating.sigma, Rating.played_at)
            .where(Rating.family_id == family_id, Rating.player_id == player_id)
            .order_by(Rating.played_at.desc(), Rating.game_id.desc())
            .limit(1)
            .subquery()
            for player_id in ids[start:start + LOOKUPS_PER_STATEMENT]
        ]
        for row in db.session.execute(union_all(*(select(sub) for sub in newest))):
            found[row.player_id] = (model.Skill(row.mu, row.sigma), row.played_at)
    return found


def shown_now(family_id: int, player_ids: Iterable[int]) -> dict[int, int]:
    """Each player's rating as shown (0 for a player with no finished game yet)."""
    ids = list(player_ids)
    found = latest(family_id, ids)
    return {pid: found[pid][0].shown if pid in found else 0 for pid in ids}


@dataclass(frozen=True)
class GameChange:
    """A player's rating after a finished game, what the game changed, and how many finished
    games it is from (this one included)."""

    shown: int
    change: int
    games: int = 1

    @property
    def settling(self) -> bool:
        """From so few games that it says little yet (``rules.ratings.SETTLED_GAMES``)."""
        return self.games < model.SETTLED_GAMES


def game_changes(game_id: int) -> dict[int, GameChange]:
    """What a finished game did to each player's rating, by player id (empty otherwise): one query."""
    earlier = aliased(Rating)
    games = select(func.count()).where(
        earlier.family_id == Rating.family_id, earlier.player_id == Rating.player_id,
        earlier.played_at <= Rating.played_at,
        or_(earlier.played_at < Rating.played_at, earlier.game_id <= Rating.game_id),
    ).scalar_subquery()
    rows = db.session.execute(
        select(Rating.player_id, Rating.shown, Rating.change, games.label("games")).where(Rating.game_id == game_id)
    ).all()
    return {row.player_id: GameChange(row.shown, row.change, row.games) for row in rows}


def at_ends(family_id: int, player_id: int, ends: dict[str, datetime]) -> dict[str, int]:
    """The player's rating as shown at each of ``ends`` (label -> the moment), from the newest
    game started before it; labels before the player's first finished game are left out. One
    statement of indexed look-ups, one per label, whatever the size of the history."""
    labels = list(ends)
    found = {}
    for start in range(0, len(labels), LOOKUPS_PER_STATEMENT):
        chunk = labels[start:start + LOOKUPS_PER_STATEMENT]
        params = {"family": family_id, "player": player_id, **{f"end{i}": ends[label] for i, label in enumerate(chunk)}}
        found.update((chunk[i], shown) for i, shown in db.session.execute(_lookups(len(chunk)), params))
    return {label: found[label] for label in labels if label in found}


@cache
def _lookups(count: int):
    # Built once per count, with parameters for the moments: the statement is compiled once too.
    return union_all(*(
        select(sub) for sub in (
            select(literal(i).label("i"), Rating.shown)
            .where(Rating.family_id == bindparam("family"), Rating.player_id == bindparam("player"),
                   Rating.played_at < bindparam(f"end{i}", type_=DateTime))
            .order_by(Rating.played_at.desc(), Rating.game_id.desc())
            .limit(1)
            .subquery()
            for i in range(count)
        )
    ))
