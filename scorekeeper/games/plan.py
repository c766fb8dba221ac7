"""The game as the phone holds it: the plan of every round (``rules.plan``, the same for the whole
game) and the state so far (every round's buys, marks and results), sent with the round screen
and after every action the phone sends."""

from __future__ import annotations

from functools import lru_cache

from .. import rules
from ..extensions import db
from ..models import ABANDONED, Game, Submission
from ..rules.plan import game_plan

RECENT_ACTIONS = 200  # the phone's own actions a state names as applied (a game has fewer)


@lru_cache(maxsize=64)
def _plan(variant: rules.Variant, seats: tuple, deals: tuple) -> dict:
    # A game's seats, deals and rules never change once it has started: its plan is made once.
    return game_plan(variant, seats, deals)


def plan_of(game: Game) -> dict:
    """Everything the phone needs to draw every screen of ``game``, with its state so far."""
    seats = tuple((seat.player_id, seat.player.name) for seat in game.seats)
    deals = tuple((r.number, r.dealer) for r in game.rounds)
    return {**_plan(game.variant, seats, deals), "game": game.id, "state": state_of(game)}


def revision_of(game: Game) -> int:
    """Moves on with every change to the game: each round's version only grows, and an abandoned
    game stays abandoned. The phone keeps whichever of two states has the higher one."""
    return 2 * sum(r.version for r in game.rounds) + (game.status == ABANDONED)


def state_of(game: Game) -> dict:
    """Every round's version, buys, laid-down marks and result, and the phone actions applied."""
    return {
        "revision": revision_of(game),
        "status": game.status,
        "rounds": [round_state(r) for r in game.rounds],
        "applied": applied_actions(game.id),
    }


def round_state(round_) -> dict:
    """One round as the phone holds it; points are the stored ones (worked out by the rules core)."""
    return {
        "number": round_.number,
        "version": round_.version,
        "recorded": round_.recorded_at is not None,
        "results": [
            {
                "player": r.player_id, "buys": r.buys, "laid_down": r.laid_down, "went_out": r.went_out,
                "counts": rules.card_counts(r.cards), "total": r.hand_total, "bonus": r.bonus_code,
                "points": r.points,
            }
            for r in round_.results
        ],
    }


def applied_actions(game_id: int) -> list[str]:
    """The ids of the latest phone actions applied to the game, so a phone never counts one twice."""
    return list(db.session.execute(
        db.select(Submission.key).where(Submission.game_id == game_id)
        .order_by(Submission.id.desc()).limit(RECENT_ACTIONS)
    ).scalars())
