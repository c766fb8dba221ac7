"""Each player's chance to win a game in progress (``rules.chances``), drawn from the hands this
family played with the same rules in its latest finished games."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import false

from .. import rules
from ..extensions import db
from ..models import FINISHED, IN_PROGRESS, Game, GameRound, Result
from ..rules.chances import Chances, chance_to_win, seed_for

# The latest finished games with the same rules the hands come from: enough for every round to
# have plenty, and a bound on the work however long the family's history is.
LATEST_GAMES = 200


def chances_for(game: Game) -> Chances | None:
    """Each seat's chance to win from the current totals, once a hand is scored and while one is
    left to play; ``None`` otherwise (a finished or abandoned game has its result)."""
    if game.status != IN_PROGRESS:
        return None
    scored = [r for r in game.rounds if r.recorded_at is not None]
    left = [r.number for r in game.rounds if r.recorded_at is None]
    if not scored or not left:
        return None
    players = len(game.seats)
    totals = rules.running_totals([[result.points for result in r.results] for r in scored], players)[-1]
    return chance_to_win(
        game.variant, totals, left, players, family_hands(game.family_id, game.variant_key),
        seed=seed_for(game.id, totals, len(scored)),
    )


def family_hands(family_id: int, variant_key: str) -> dict[int, list[int]]:
    """Round number -> the points of every player who did not go out, in the family's latest
    ``LATEST_GAMES`` finished games with these rules. One query, columns only."""
    latest = (
        db.select(Game.id)
        .where(Game.family_id == family_id, Game.status == FINISHED, Game.variant_key == variant_key)
        .order_by(Game.started_at.desc(), Game.id.desc())
        .limit(LATEST_GAMES)
    )
    rows = db.session.execute(
        db.select(GameRound.number, Result.points)
        .join(Result, Result.round_id == GameRound.id)
        .where(GameRound.game_id.in_(latest), Result.went_out == false())
    )
    hands: dict[int, list[int]] = defaultdict(list)
    for number, points in rows:
        hands[number].append(points)
    return hands
