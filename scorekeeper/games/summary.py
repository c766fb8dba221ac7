"""Each game's one-row-per-player summary (``PlayerGame``), kept in step with its hands; the
history and its statistics read these rows."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.orm import attributes

from .. import rules
from ..extensions import db
from ..history import kept, ratings
from ..models import FINISHED, Game, PlayerGame

SUMMARY_FIELDS = ("status", "hands_played", "total", "won", "hands_won", "times_stuck", "buys", "marked_hands")


def mark_changed(row, names) -> None:
    """Rows written with the same columns go to the database as one batched statement."""
    for name in names:
        attributes.flag_modified(row, name)


def refresh_summary(game: Game, new: bool = False) -> None:
    """Recompute the game's one-row-per-player summary (``PlayerGame``) from its hands.

    ``new`` says the game was just created, so there are no rows to look up. A game that
    finishes, or that was finished and changes, is rated again with every later game, and the
    kept statistics count it (a change to a finished game counts the history again).
    """
    rows = {} if new else {
        row.player_id: row
        for row in db.session.execute(
            db.select(PlayerGame).where(PlayerGame.game_id == game.id)
        ).scalars()
    }
    was_finished = any(row.status == FINISHED for row in rows.values())
    recorded = [
        [{"points": r.points, "went_out": r.went_out, "laid_down": r.laid_down, "buys": r.buys,
          "marked": round_.marked} for r in round_.results]
        for round_ in game.rounds if round_.recorded_at is not None
    ]
    player_ids = [seat.player_id for seat in game.seats]
    for figures in summary_rows(
        game.family_id, game.id, game.variant_key, game.status, game.started_at, player_ids, recorded
    ):
        row = rows.get(figures["player_id"])
        if row is None:
            row = PlayerGame()
            db.session.add(row)
        for name, value in figures.items():
            setattr(row, name, value)
        if row.id is not None:
            mark_changed(row, SUMMARY_FIELDS)
    if was_finished or game.status == FINISHED:
        ratings.rate_from(game.family_id, game.started_at, game.id)
    if was_finished:
        kept.rebuild(game.family_id)
    elif game.status == FINISHED:
        kept.count_finished(game)


def summary_rows(
    family_id: int, game_id: int, variant_key: str, status: str, started_at: datetime,
    player_ids: Sequence[int], recorded: Sequence[Sequence[dict]],
) -> list[dict]:
    """A game's one-row-per-player summary, as dicts of ``PlayerGame`` columns: what
    ``refresh_summary`` stores, and what an import bulk-inserts for thousands of games at once.
    ``recorded`` holds each scored hand's results in seat order (dicts with points, went_out,
    laid_down, buys and marked: whether the hand recorded buys and laid-down marks). Times stuck
    and buys are counted in the marked hands only: paper says nothing of either."""
    running = rules.running_totals([[r["points"] for r in results] for results in recorded], len(player_ids))
    totals = running[-1] if running else [0] * len(player_ids)
    winners = set(rules.leaders(totals)) if recorded and status == FINISHED else set()
    marked = [results for results in recorded if results[0]["marked"]]
    return [
        {
            "family_id": family_id, "game_id": game_id, "player_id": player_id, "variant_key": variant_key,
            "status": status, "played_on": started_at.date(), "month": started_at.strftime("%Y-%m"),
            "hands_played": len(recorded), "total": totals[seat], "won": seat in winners,
            "hands_won": sum(results[seat]["went_out"] for results in recorded),
            "times_stuck": sum(not (r["laid_down"] or r["went_out"]) for r in (rs[seat] for rs in marked)),
            "buys": sum(results[seat]["buys"] for results in marked),
            "marked_hands": len(marked),
        }
        for seat, player_id in enumerate(player_ids)
    ]
