"""The phone's side of a game: its plan and state as JSON, and the actions it queued, applied once
each (``games.actions``). The round screen carries the plan; these keep it current."""

from __future__ import annotations

import hashlib

from flask import jsonify, request

from ...web.access import acting_person, current_family, game_or_404, keeper_page
from ...web.page_cache import STARTED, revalidated
from ..actions import Unreadable, apply_action, read_action
from ..plan import plan_of, state_of
from . import bp

MOST_ACTION_BYTES = 64 * 1024  # one action of the largest table is a few kB


@bp.post("/<int:game_id>/actions")
@keeper_page
def act(game_id: int):
    """Apply one queued action; the answer says how it went and holds the game's state after it."""
    game = game_or_404(game_id)
    if (request.content_length or 0) > MOST_ACTION_BYTES:
        return jsonify(status="refused", reason="This entry is too large to be one from the table.",
                       state=state_of(game)), 413
    try:
        action = read_action(request.get_json(silent=True), game)
    except Unreadable as error:
        return jsonify(status="refused", reason=str(error), state=state_of(game)), 400
    answer = apply_action(game, action, acting_person(game.family_id))
    return jsonify(answer.as_json()), answer.http_status


def _state_etag(game_id: int) -> str:
    """Moves with every write to the family's games, in every server process: no game is read."""
    family = current_family()
    return hashlib.sha256(f"{STARTED}|{family.id}|{family.version}|{game_id}".encode()).hexdigest()[:24]


@bp.get("/<int:game_id>/state")
@keeper_page
def state(game_id: int):
    """The game's state for a phone that looks for other phones' changes: 304 while there are none."""
    return revalidated(_state_etag(game_id), lambda: jsonify(state_of(game_or_404(game_id))))


@bp.get("/<int:game_id>/plan")
@keeper_page
def plan(game_id: int):
    """The whole plan of the game with its state (the round screen carries the same)."""
    response = jsonify(plan_of(game_or_404(game_id)))
    response.headers["Cache-Control"] = "no-cache"
    return response
