"""A family's whole history out: JSON (lossless) and CSV (for spreadsheets).

Players are named, not numbered, in an export: names are unique within a family, and that is
what lets an export be merged into another instance. Games carry a ``uid``, so importing the
same file twice adds nothing the second time.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from datetime import datetime

from sqlalchemy.orm import selectinload

from ..extensions import db
from ..families import family_players
from ..games.table import standings
from ..house_rules.service import house_rules
from ..models import Family, Game, GameRound, RoundChange, utcnow
from .checks import FORMAT, VERSION

BATCH = 200  # games per query or per flush


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _game_dict(game: Game, changes: Sequence[RoundChange] = ()) -> dict:
    names = {seat.player_id: seat.player.name for seat in game.seats}
    return {
        "uid": game.uid,
        "variant_key": game.variant_key,
        "rules": game.rules,
        "skip_first_hand": game.skip_first_hand,
        "first_dealer": game.first_dealer,
        "status": game.status,
        "started_at": _time(game.started_at),
        "finished_at": _time(game.finished_at),
        "seats": [seat.player.name for seat in game.seats],
        "rounds": [
            {
                "position": r.position,
                "number": r.number,
                "dealer": r.dealer,
                "recorded_at": _time(r.recorded_at),
                "version": r.version,
                "source": r.source,
                "results": [
                    {
                        "player": names[res.player_id],
                        "buys": res.buys,
                        "laid_down": res.laid_down,
                        "went_out": res.went_out,
                        "cards": res.cards,
                        "hand_total": res.hand_total,
                        "bonus_code": res.bonus_code,
                        "bonus": res.bonus,
                        "points": res.points,
                    }
                    for res in r.results
                ],
            }
            for r in game.rounds
        ],
        # Who recorded, corrected or took back each hand, oldest first. Members are named, not
        # numbered: an import links a change to a member of the same username, if there is one.
        "changes": [
            {
                "number": c.number,
                "action": c.action,
                "by": c.by,
                "at": _time(c.at),
                "before": c.points.get("before"),
                "after": c.points.get("after"),
            }
            for c in changes
        ],
    }


def _games(family: Family) -> Iterator[Game]:
    """Every game of the family, oldest first, loaded a batch at a time."""
    for batch in _batches(family):
        yield from batch


def _changes(games: list[Game]) -> dict[int, list[RoundChange]]:
    """The change histories of ``games``, oldest first, by game id."""
    found: dict[int, list[RoundChange]] = {}
    for change in db.session.execute(
        db.select(RoundChange).where(RoundChange.game_id.in_([g.id for g in games])).order_by(RoundChange.id)
    ).scalars():
        found.setdefault(change.game_id, []).append(change)
    return found


def _batches(family: Family) -> Iterator[list[Game]]:
    """The family's games, oldest first, a batch at a time (each batch let go of after use)."""
    last_id = 0
    while True:
        batch = list(
            db.session.execute(
                db.select(Game)
                .where(Game.family_id == family.id, Game.id > last_id)
                .order_by(Game.id)
                .limit(BATCH)
                .options(selectinload(Game.seats), selectinload(Game.rounds).selectinload(GameRound.results))
            ).scalars()
        )
        if not batch:
            return
        yield batch
        last_id = batch[-1].id
        db.session.expunge_all()  # keep memory flat over thousands of games


def export_json(family: Family) -> Iterator[str]:
    """The export as chunks of JSON text (one game per chunk), for files and downloads alike."""
    players = [
        {"name": p.name, "created_at": _time(p.created_at)} for p in family_players(family)
    ]
    head = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": _time(utcnow()),
        "family": {"name": family.name},
        "players": players,
        "house_rules": [{"key": row.key, "name": row.name, "rules": row.rules} for row in house_rules(family)],
    }
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "games": ['
    first = True
    for batch in _batches(family):
        changes = _changes(batch)
        for game in batch:
            text = json.dumps(_game_dict(game, changes.get(game.id, [])), ensure_ascii=False)
            yield ("" if first else ",") + "\n" + text
            first = False
    yield "\n]}\n"


CSV_COLUMNS = [
    "game", "date", "preset", "status", "round", "contract", "dealer", "player",
    "buys", "laid_down", "went_out", "cards", "hand_total", "bonus", "points", "running_total",
]


def safe_cell(value):
    """Text a spreadsheet would run as a formula (= + - @ at the start) is quoted with a '."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def export_csv(family: Family) -> Iterator[str]:
    """One row per player per recorded round."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for game in _games(family):
        table = standings(game)
        for row in table.rows:
            if row.cells is None:
                continue
            for player, cell in zip(table.players, row.cells):
                result = cell.result
                writer.writerow([safe_cell(v) for v in (
                    game.uid, game.started_at.date().isoformat(), game.variant_key, game.status,
                    row.round.number, row.round.rules.contract, row.dealer.name, player.name,
                    result.buys, int(result.laid_down), int(result.went_out), result.cards,
                    "" if result.hand_total is None else result.hand_total, result.bonus,
                    result.points, cell.running_total,
                )])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
    yield buffer.getvalue()
