"""Each game's one-row-per-player summary (``PlayerGame``), kept in step with its hands; the
history and its statistics read these rows."""

from __future__ import annotations

from sqlalchemy.orm import attributes

from ..extensions import db
from ..models import FINISHED, Game, PlayerGame
from .table import standings

SUMMARY_FIELDS = ("status", "hands_played", "total", "won", "hands_won", "times_stuck", "buys")


def mark_changed(row, names) -> None:
    """Rows written with the same columns go to the database as one batched statement."""
    for name in names:
        attributes.flag_modified(row, name)


def refresh_summary(game: Game, new: bool = False) -> None:
    """Recompute the game's one-row-per-player summary (``PlayerGame``) from its hands.

    ``new`` says the game was just created, so there are no rows to look up.
    """
    rows = {} if new else {
        row.player_id: row
        for row in db.session.execute(
            db.select(PlayerGame).where(PlayerGame.game_id == game.id)
        ).scalars()
    }
    table = standings(game)
    recorded = [r for r in game.rounds if r.recorded_at is not None]
    for seat, player in enumerate(table.players):
        row = rows.get(player.id)
        if row is None:
            row = PlayerGame(family_id=game.family_id, game_id=game.id, player_id=player.id)
            db.session.add(row)
        results = [r.results[seat] for r in recorded]
        row.variant_key = game.variant_key
        row.status = game.status
        row.played_on = game.started_at.date()
        row.month = game.started_at.strftime("%Y-%m")
        row.hands_played = len(recorded)
        row.total = table.totals[seat]
        row.won = game.status == FINISHED and player in table.leaders
        row.hands_won = sum(r.went_out for r in results)
        row.times_stuck = sum(r.stuck for r in results)
        row.buys = sum(r.buys for r in results)
        if row.id is not None:
            mark_changed(row, SUMMARY_FIELDS)
