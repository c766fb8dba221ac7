"""Each player's chance to win a game in progress (``rules.chances``), drawn from the hands this
family played with the same rules in its latest finished games.

Every buy or mark moves the family's version on, so the standings and the scoreboard are drawn
again and again at the same position. The hands change only with the finished games, which move
the family's statistics version on (``history.kept``): they are kept in memory by it
(``_hands``). The figures depend only on the game, its position and the hands, so they are kept
too (``_figures``); recording a hand moves the game on but leaves the hands as they were, so the
next draw only simulates.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict

import numpy as np
from sqlalchemy import false

from .. import rules
from ..extensions import db
from ..lru import LRU
from ..models import FINISHED, IN_PROGRESS, Family, Game, GameRound, Result
from ..rules import chances as simulation
from ..rules.chances import Chances, seed_for

# The latest finished games with the same rules the hands come from: enough for every round to
# have plenty, and a bound on the work however long the family's history is.
LATEST_GAMES = 200

_hands = LRU(16)  # (database, family, statistics version, rules, LATEST_GAMES) -> (digest, hands)
_figures = LRU(512)  # (database, hands' digest, game, position) -> Chances


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
    family = db.session.get(Family, game.family_id)  # the signed-in family: already loaded
    # The database too: ids of another one (a test's) start from the same numbers.
    where = (db.engine.url, family.id, family.stats_version, game.variant_key, LATEST_GAMES)
    digest, samples = _hands.fetch(where, lambda: _read_hands(family.id, game.variant_key))
    key = (where[0], digest, game.id, game.variant_key, tuple(totals), len(scored), tuple(left))
    return _figures.fetch(key, lambda: simulation.chance_to_win(
        game.variant, totals, left, players, samples, seed=seed_for(game.id, totals, len(scored)),
    ))


def _read_hands(family_id: int, variant_key: str) -> tuple[str, dict[int, np.ndarray]]:
    samples = family_hands(family_id, variant_key)
    return _digest(samples), samples


def _digest(samples: dict[int, np.ndarray]) -> str:
    """What the hands hold: a change to other rules' games reads them again, but finds them the same."""
    digest = hashlib.sha256()
    for number in sorted(samples):
        digest.update(number.to_bytes(4, "little") + samples[number].tobytes())
    return digest.hexdigest()


def family_hands(family_id: int, variant_key: str) -> dict[int, np.ndarray]:
    """Round number -> the points of every player who did not go out, in the family's latest
    ``LATEST_GAMES`` finished games with these rules. One query, columns only."""
    latest = (
        db.select(Game.id)
        .where(Game.family_id == family_id, Game.status == FINISHED, Game.variant_key == variant_key)
        .order_by(Game.started_at.desc(), Game.id.desc())
        .limit(LATEST_GAMES)
    )
    return _hands_in(latest)


def _hands_in(games) -> dict[int, np.ndarray]:
    """Round number -> the points of every player who did not go out in ``games`` (ids, or a
    select of them), as arrays no one may change: every draw from these hands shares them."""
    rows = db.session.execute(
        db.select(GameRound.number, Result.points)
        .join(Result, Result.round_id == GameRound.id)
        .where(GameRound.game_id.in_(games), Result.went_out == false())
    )
    hands: dict[int, list[int]] = defaultdict(list)
    for number, points in rows:
        hands[number].append(points)
    arrays = {}
    for number, points in hands.items():
        arrays[number] = np.asarray(points, dtype=np.int64)
        arrays[number].setflags(write=False)
    return arrays
