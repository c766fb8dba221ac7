"""Writing a checked export into a family, in one transaction: all of it or nothing.

The games go in as bulk inserts, a few hundred games per statement, so that thousands of games
fit in one web request.
"""

from __future__ import annotations

import gc
import itertools
import logging
import uuid
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from .. import bulk, rules
from ..extensions import db
from ..families import commit_for, family_players
from ..games.summary import summary_rows
from ..history import kept, ratings
from ..house_rules.service import add_imported_rules
from ..models import (
    HOUSE_PREFIX,
    TABLE,
    Family,
    Game,
    GameRound,
    Member,
    Player,
    PlayerGame,
    Result,
    RoundChange,
    Seat,
)
from .checks import TransferError, when

log = logging.getLogger(__name__)

CHUNK = 500  # games per bulk insert
# The key given to the games of house rules that were deleted before the export: "deleted-"
# and 32 hex digits (40 characters, as a key may have) that no rule set of any family can have.
DELETED_PREFIX = "deleted-"


def import_data(family: Family, data: dict) -> tuple[int, int]:
    """Write a checked export into ``family``: ``(games added, games already here)``.

    Everything is written in one transaction: an error part way leaves nothing behind.
    """
    return import_games(family, data, [g["uid"] for g in data["games"]], data["games"])


def import_games(family: Family, data: dict, uids: list[str], games: Iterable[dict]) -> tuple[int, int]:
    """``import_data`` with the games apart: ``uids`` in order, and ``games`` the export's game
    entries of those uids, which may be made one by one as they are written (``CHUNK`` at a time),
    so that an import of thousands of games never holds them all at once."""
    try:
        with _no_cycle_collection():
            return _import(family, data, uids, games)
    except IntegrityError:
        # The same games written by another request at the same moment (an Import pressed twice).
        db.session.rollback()
        raise TransferError("These games were being imported by another request at the same moment; nothing "
                            "more was written. Look in the history: they are there.") from None
    except Exception:
        db.session.rollback()
        raise


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused for the import: the rows it makes are hundreds of thousands
    of dicts and lists without cycles, and each full collection walks them all (a second or more
    of a 4,000-game import). What cycles there are go at the next collection after it."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _import(family: Family, data: dict, uids: list[str], games: Iterable[dict]) -> tuple[int, int]:
    players, keys, changed = _players_and_rules(family, data)
    known = known_games(family.id, uids)
    # Changes link to the member of the same username here, if there is one.
    members = dict(db.session.execute(
        db.select(Member.username, Member.id).where(Member.family_id == family.id)
    ).all())
    db.session.flush()  # the new players' ids
    player_ids = {name: player.id for name, player in players.items()}
    first_id, added = None, 0

    def rows() -> Iterator[_Rows]:
        for chunk in _chunks(games):
            keys.update(_deleted_rules_keys(chunk, keys, known))
            yield _rows(family.id, [entry for entry in chunk if entry["uid"] not in known], player_ids, keys, members)

    with _made_ahead(rows()) as chunks:
        for chunk in chunks:
            if chunk.games:
                ids = _write(chunk)
                first_id, added = first_id or min(ids), added + len(ids)
    if added:
        # From the earliest new game as stored, whatever form the file gave its time in.
        earliest = db.session.execute(
            db.select(db.func.min(Game.started_at)).where(Game.family_id == family.id, Game.id >= first_id)
        ).scalar_one()
        ratings.rate_from(family.id, earliest)
        kept.rebuild(family.id)
    if added or changed:
        commit_for(family.id)
    log.info("import: family=%d, %d games added, %d already here", family.id, added, len(known))
    return added, len(known)


def _players_and_rules(family: Family, data: dict) -> tuple[dict[str, Player], dict[str, str], bool]:
    """The export's players and house rules added to the family: its players by casefolded name,
    the export's rules keys as keys here, and whether anything was added."""
    players = {p.name.casefold(): p for p in family_players(family)}
    if not players and not db.session.execute(
        db.select(Game.id).where(Game.family_id == family.id).limit(1)
    ).first():
        changed = family.name != data["family"]["name"]
        family.name = data["family"]["name"]  # an empty instance takes the exported family's name
    else:
        changed = False
    for entry in data["players"]:
        if entry["name"].casefold() not in players:
            changed = True
            player = Player(family_id=family.id, name=entry["name"], created_at=when(entry, "created_at", ""))
            db.session.add(player)
            players[entry["name"].casefold()] = player
    # The family's own rules come along, under keys of this instance.
    keys = {}
    for entry in data["house_rules"]:
        variant = rules.Variant.from_dict({**entry["rules"], "name": entry["name"]})
        row, new_rules = add_imported_rules(family, variant)
        keys[entry["key"]] = row.key
        changed = changed or new_rules
    return players, keys, changed


def _chunks(games: Iterable[dict]) -> Iterator[list[dict]]:
    chunk = []
    for entry in games:
        chunk.append(entry)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def known_games(family_id: int, uids: list[str]) -> dict[str, str]:
    """The games of these uids already in the family: uid -> rules key (asked 500 at a time)."""
    known: dict[str, str] = {}
    for start in range(0, len(uids), 500):
        known.update(db.session.execute(
            db.select(Game.uid, Game.variant_key)
            .where(Game.family_id == family_id, Game.uid.in_(uids[start:start + 500]))
        ).all())
    return known


def _deleted_rules_keys(games: list[dict], keys: dict[str, str], known: dict[str, str]) -> dict[str, str]:
    """New keys for the house rules the export's games name but its house-rules list does not
    (deleted before the export): here, ``house-N`` may be other rules of this family, or become
    them, and the history would mix their games. A key is reused when a game of the same rules
    came in with an earlier import, so one rule set keeps one key."""
    deleted = {}
    for entry in games:
        old = entry["variant_key"]
        if old.startswith(HOUSE_PREFIX) and old not in keys:
            here = known.get(entry["uid"], "")
            if old not in deleted or here.startswith(DELETED_PREFIX):
                deleted[old] = here if here.startswith(DELETED_PREFIX) else DELETED_PREFIX + uuid.uuid4().hex
    return deleted


@dataclass
class _Rows:
    """A chunk of new games as the rows they are stored in, each game's id and each round's id
    left to be filled in as they are written."""

    games: list[dict]
    rounds: list[list[dict]]  # each game's rounds
    results: list[list[dict]]  # each round's results, rounds in the order of ``rounds``
    seats: list[list[dict]]  # each game's seats
    summaries: list[list[dict]]  # each game's players' summaries
    changes: list[list[dict]]  # each game's change history


@contextmanager
def _made_ahead(chunks: Iterator[_Rows]) -> Iterator[Iterator[_Rows]]:
    """``chunks``, each next one made in a thread while the caller writes this one: the database
    checks one chunk's keys while the rows of the next are made (nothing there touches the database)."""
    with ThreadPoolExecutor(max_workers=1) as thread:

        def ahead() -> Iterator[_Rows]:
            coming = thread.submit(next, chunks, None)
            while (chunk := coming.result()) is not None:
                coming = thread.submit(next, chunks, None)
                yield chunk

        yield ahead()


def _rows(
    family_id: int, entries: list[dict], players: dict[str, int], keys: dict[str, str], members: dict[str, int]
) -> _Rows:
    """``entries`` (checked games) as rows: the games, their seats, hands, change histories and summaries."""
    made = _Rows([], [], [], [], [], [])
    for entry in entries:
        game = _game_row(family_id, entry, keys)
        seated = [players[name.casefold()] for name in entry["seats"]]
        position_of = {name.casefold(): i for i, name in enumerate(entry["seats"])}
        rounds, recorded = [], []
        for round_ in sorted(entry["rounds"], key=lambda r: r["position"]):
            rounds.append({
                "game_id": None,
                "position": round_["position"],
                "number": round_["number"],
                "dealer": round_["dealer"],
                "recorded_at": when(round_, "recorded_at", "", required=False),
                "version": round_["version"],
                "source": round_.get("source", TABLE),
            })
            results = sorted(round_["results"], key=lambda r: position_of[r["player"].casefold()])
            made.results.append(_result_rows(results, players))
            if rounds[-1]["recorded_at"] is not None:
                recorded.append([{**r, "marked": rounds[-1]["source"] == TABLE} for r in results])
        made.games.append(game)
        made.rounds.append(rounds)
        made.seats.append([{"game_id": None, "player_id": p, "position": i} for i, p in enumerate(seated)])
        made.summaries.append(summary_rows(
            family_id, None, game["variant_key"], game["status"], game["started_at"], seated, recorded))
        made.changes.append(_change_rows(entry, members))
    return made


def _write(chunk: _Rows) -> list[int]:
    """Bulk-insert a chunk's rows; the new games' ids."""
    game_ids = bulk.insert_returning_ids(Game, chunk.games)
    for game_id, *rows in zip(game_ids, chunk.rounds, chunk.seats, chunk.summaries, chunk.changes):
        for row in itertools.chain.from_iterable(rows):
            row["game_id"] = game_id
    round_ids = bulk.insert_returning_ids(GameRound, list(itertools.chain.from_iterable(chunk.rounds)))
    for round_id, results in zip(round_ids, chunk.results):
        for row in results:
            row["round_id"] = round_id
    for model, rows in ((Seat, chunk.seats), (Result, chunk.results), (PlayerGame, chunk.summaries)):
        bulk.insert_rows(model.__table__, itertools.chain.from_iterable(rows))
    changes = list(itertools.chain.from_iterable(chunk.changes))
    if changes:  # JSON points: through SQLAlchemy, which knows how each database keeps JSON
        db.session.execute(insert(RoundChange.__table__), changes)
    return game_ids


def _game_row(family_id: int, entry: dict, keys: dict[str, str]) -> dict:
    key = keys.get(entry["variant_key"], entry["variant_key"])
    return {
        "uid": entry["uid"],
        "family_id": family_id,
        "variant_key": key,
        "rules": {**entry["rules"], "key": key},
        "skip_first_hand": entry["skip_first_hand"],
        "first_dealer": entry["first_dealer"],
        "status": entry["status"],
        "started_at": when(entry, "started_at", ""),
        "finished_at": when(entry, "finished_at", "", required=False),
    }


def _change_rows(entry: dict, members: dict[str, int]) -> list[dict]:
    return [
        {
            "game_id": None,
            "number": change["number"],
            "action": change["action"],
            "member_id": members.get(change["by"].lower()),
            "by": change["by"],
            "at": when(change, "at", ""),
            "points": {"before": change.get("before"), "after": change.get("after")},
        }
        for change in entry.get("changes", [])
    ]


def _result_rows(results: list[dict], players: dict[str, int]) -> list[dict]:
    """A round's rows of results, ``results`` in seat order (its id filled in as it is written)."""
    return [
        {
            "round_id": None,
            "player_id": players[r["player"].casefold()],
            "position": seat,
            "buys": r["buys"],
            "laid_down": r["laid_down"],
            "went_out": r["went_out"],
            "cards": r["cards"],
            "hand_total": r.get("hand_total"),
            "bonus_code": r["bonus_code"],
            "bonus": r["bonus"],
            "points": r["points"],
        }
        for seat, r in enumerate(results)
    ]
