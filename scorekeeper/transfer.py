"""A family's whole history out and in: JSON (lossless) and CSV (for spreadsheets).

Players are named, not numbered, in an export: names are unique within a family, and that is
what lets an export be merged into another instance. Games carry a ``uid``, so importing the
same file twice adds nothing the second time.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from datetime import datetime

from sqlalchemy.orm import selectinload

from . import rules, services
from .rules import house
from .rules.variants import BUYS_COUNTED
from .db import db
from .models import (
    ABANDONED,
    FINISHED,
    IN_PROGRESS,
    Family,
    Game,
    GameRound,
    HouseRules,
    Player,
    Result,
    Seat,
    utcnow,
)

FORMAT = "scorekeeper-export"
VERSION = 1
VARIANT_FORMAT = "scorekeeper-variant"
VARIANT_FILE_LIMIT = 64 * 1024  # a variant is a few KB
BATCH = 200
STATUSES = (IN_PROGRESS, FINISHED, ABANDONED)
LIMIT = 10**9  # no count, score or position in a real game comes near this
KEY = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
# What the columns hold, so a file cannot carry more than the database stores.
FAMILY_NAME_LENGTH = Family.__table__.c.name.type.length
CARDS_LENGTH = Result.__table__.c.cards.type.length
BONUS_CODE_LENGTH = Result.__table__.c.bonus_code.type.length


class TransferError(ValueError):
    """The file cannot be imported; the message names what is wrong and where."""


# -- export -------------------------------------------------------------------------------


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _game_dict(game: Game) -> dict:
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
    }


def _games(family: Family) -> Iterator[Game]:
    """Every game of the family, oldest first, loaded a batch at a time."""
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
        yield from batch
        last_id = batch[-1].id
        db.session.expunge_all()  # keep memory flat over thousands of games


def export_json(family: Family) -> Iterator[str]:
    """The export as chunks of JSON text (one game per chunk), for files and downloads alike."""
    players = [
        {"name": p.name, "created_at": _time(p.created_at)} for p in services.family_players(family)
    ]
    head = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": _time(utcnow()),
        "family": {"name": family.name},
        "players": players,
        "house_rules": [{"key": row.key, "name": row.name, "rules": row.rules} for row in services.house_rules(family)],
    }
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "games": ['
    for index, game in enumerate(_games(family)):
        yield ("," if index else "") + "\n" + json.dumps(_game_dict(game), ensure_ascii=False)
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
        table = services.standings(game)
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


# -- import -------------------------------------------------------------------------------


def _need(obj, key, kind, where, longest: int | None = None):
    if not isinstance(obj, dict) or key not in obj:
        raise TransferError(f"{where}: the field '{key}' is missing.")
    value = obj[key]
    if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
        names = {int: "a whole number", str: "text", bool: "true or false", list: "a list", dict: "an object"}
        raise TransferError(f"{where}.{key}: must be {names[kind]}.")
    if kind is int and not -LIMIT <= value <= LIMIT:
        raise TransferError(f"{where}.{key}: {value} is far outside what a card game produces.")
    if kind is str and "\x00" in value:
        raise TransferError(f"{where}.{key}: holds a NUL character, which no text here may contain.")
    if longest is not None and len(value) > longest:
        raise TransferError(f"{where}.{key}: must be at most {longest} characters.")
    return value


def _when(obj, key, where, required=True) -> datetime | None:
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise TransferError(f"{where}.{key}: must be a date and time.")
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise TransferError(f"{where}.{key}: '{value[:40]}' is not a date and time.") from None


def _read(text: str | bytes, format_: str, what: str, short: str) -> dict:
    """JSON text in ``format_`` (an export or a rules file) as a dict, its format and version checked."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as error:
        raise TransferError(f"This is not a JSON file ({error}).") from None
    except RecursionError:
        raise TransferError(f"This is not a {what} (it is nested far too deeply).") from None
    if not isinstance(data, dict) or data.get("format") != format_:
        raise TransferError(f"This is not a {what} (its 'format' is not '{format_}').")
    if type(data.get("version")) is not int or data["version"] != VERSION:
        raise TransferError(f"This {short} is version {data.get('version')!r}; this app reads version {VERSION}.")
    return data


def parse(text: str | bytes) -> dict:
    """Read and check an export completely; nothing is written. ``TransferError`` says what is wrong."""
    data = _read(text, FORMAT, "Scorekeeper export", "export")
    _need(_need(data, "family", dict, "export"), "name", str, "family", longest=FAMILY_NAME_LENGTH)
    names = set()
    for i, player in enumerate(_need(data, "players", list, "export")):
        name = _need(player, "name", str, f"players[{i}]")
        if not name.strip() or len(name) > 40:
            raise TransferError(f"players[{i}].name: a name has 1 to 40 letters.")
        if name.casefold() in names:
            raise TransferError(f"players[{i}].name: '{name}' appears twice.")
        names.add(name.casefold())
        _when(player, "created_at", f"players[{i}]")
    # Exports made before house rules existed have none.
    data.setdefault("house_rules", [])
    for i, entry in enumerate(_need(data, "house_rules", list, "export")):
        where = f"house_rules[{i}]"
        key = _need(entry, "key", str, where)
        if not KEY.fullmatch(key):
            raise TransferError(f"{where}.key: '{key[:40]}' is not a rules key.")
        name = _need(entry, "name", str, where, longest=HouseRules.__table__.c.name.type.length)
        if not name.strip():
            raise TransferError(f"{where}.name: the rules need a name.")
        _check_rules(_need(entry, "rules", dict, where), key, f"{where}.rules")
    uids = set()
    for g, game in enumerate(_need(data, "games", list, "export")):
        _check_game(game, f"games[{g}]", names)
        if game["uid"] in uids:
            raise TransferError(f"games[{g}].uid: the game '{game['uid']}' appears twice.")
        uids.add(game["uid"])
    return data


def _check_game(game, where: str, names: set[str]) -> None:
    uid = _need(game, "uid", str, where)
    if not 1 <= len(uid) <= 32:
        raise TransferError(f"{where}.uid: must be 1 to 32 characters.")
    key = _need(game, "variant_key", str, where)
    if not KEY.fullmatch(key):
        raise TransferError(f"{where}.variant_key: '{key[:40]}' is not a rules key.")
    variant = _check_rules(_need(game, "rules", dict, where), key, f"{where}.rules")
    codes = {k.code for k in variant.keys}
    skip = _need(game, "skip_first_hand", bool, where)
    if skip and not variant.can_skip_first_hand:
        raise TransferError(f"{where}.skip_first_hand: these rules cannot skip hand 1.")
    status = _need(game, "status", str, where)
    if status not in STATUSES:
        raise TransferError(f"{where}.status: '{status}' is not one of {', '.join(STATUSES)}.")
    _when(game, "started_at", where)
    finished_at = _when(game, "finished_at", where, required=False)
    seats = _need(game, "seats", list, where)
    try:
        variant.decks_for(len(seats))
    except ValueError as error:
        raise TransferError(f"{where}.seats: {error}.") from None
    for s, name in enumerate(seats):
        if not isinstance(name, str) or name.casefold() not in names:
            raise TransferError(f"{where}.seats[{s}]: {name!r} is not in the players list.")
    if len({n.casefold() for n in seats}) != len(seats) or not seats:
        raise TransferError(f"{where}.seats: each player sits once, and a game has players.")
    first = _need(game, "first_dealer", int, where)
    if not 0 <= first < len(seats):
        raise TransferError(f"{where}.first_dealer: there is no seat {first}.")
    seen_numbers = set()
    for r, round_ in enumerate(_need(game, "rounds", list, where)):
        at = f"{where}.rounds[{r}]"
        number = _need(round_, "number", int, at)
        try:
            variant.round(number)
        except ValueError:
            raise TransferError(f"{at}.number: the rules have no round {number}.") from None
        if number in seen_numbers:
            raise TransferError(f"{at}.number: round {number} appears twice.")
        seen_numbers.add(number)
        _need(round_, "position", int, at)
        _need(round_, "version", int, at)
        dealer = _need(round_, "dealer", int, at)
        if not 0 <= dealer < len(seats):
            raise TransferError(f"{at}.dealer: there is no seat {dealer}.")
        _when(round_, "recorded_at", at, required=False)
        results = _need(round_, "results", list, at)
        seated = {n.casefold() for n in seats}
        players_here = []
        for p, result in enumerate(results):
            here = f"{at}.results[{p}]"
            name = _need(result, "player", str, here)
            if name.casefold() not in seated:
                raise TransferError(f"{here}.player: '{name}' does not sit at this game.")
            players_here.append(name.casefold())
            for key in ("buys", "bonus", "points"):
                _need(result, key, int, here)
            for key in ("laid_down", "went_out"):
                _need(result, key, bool, here)
            cards = _need(result, "cards", str, here, longest=CARDS_LENGTH)
            bad = [c for c in cards.split() if c not in codes]
            if bad:
                raise TransferError(f"{here}.cards: '{bad[0]}' is not a card of these rules.")
            _need(result, "bonus_code", str, here, longest=BONUS_CODE_LENGTH)
            if result.get("hand_total") is not None:
                _need(result, "hand_total", int, here)
        if sorted(players_here) != sorted(seated):
            raise TransferError(f"{at}.results: there must be one result for each seated player.")
    rounds_ = game["rounds"]
    if sorted((r["position"], r["number"]) for r in rounds_) != list(enumerate(variant.hand_numbers(skip))):
        raise TransferError(f"{where}.rounds: the game must hold each of its rules' rounds once, in order.")
    all_recorded = all(r.get("recorded_at") for r in rounds_)
    if status == FINISHED and not (all_recorded and finished_at):
        raise TransferError(f"{where}: a finished game has every round recorded and a finishing time.")


def _check_rules(data: dict, key: str, where: str) -> rules.Variant:
    """A rules snapshot must rebuild into a variant whose numbers are whole numbers."""
    try:
        variant = rules.Variant.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise TransferError(f"{where}: the rules snapshot is incomplete ({error}).") from None
    if variant.key != key:
        raise TransferError(f"{where}.key: '{variant.key}' does not match the game's rules key '{key}'.")
    numbers = [variant.min_players, variant.max_players, variant.cards_per_buy, *variant.points.values()]
    numbers += [n for d in variant.deck_rules for n in (d.min_players, d.max_players, d.decks, d.jokers)]
    numbers += [n for r in variant.rounds for n in (r.number, r.cards_dealt, r.buy_limit, *(m.size for m in r.melds))]
    numbers += [b.points for b in variant.bonuses] + [s.points for s in variant.suit_cards]
    numbers += [variant.going_out_bonus, variant.buys_per_game, variant.buys_per_turn, variant.min_natural]
    # Each limit is (kind, size, most); a limit of another shape is refused by well_typed below.
    numbers += [n for limit in variant.joker_limits for n in limit[1:]]
    if any(type(n) is not int or not -LIMIT <= n <= LIMIT for n in numbers):
        raise TransferError(f"{where}: every count and point value must be a whole number.")
    if not rules.well_typed(variant):
        raise TransferError(f"{where}: a rule holds the wrong kind of value (text, number, true/false or list).")
    if variant.buys_counted not in BUYS_COUNTED:
        raise TransferError(f"{where}.buys_counted: must be one of {', '.join(BUYS_COUNTED)}.")
    try:
        variant.keys  # every rank has a point value
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise TransferError(f"{where}: the rules snapshot is incomplete ({error}).") from None
    if not variant.rounds or not 1 <= variant.min_players <= variant.max_players:
        raise TransferError(f"{where}: the rules need rounds and a player range.")
    return variant


# -- one variant ------------------------------------------------------------------------


def variant_json(variant: rules.Variant) -> str:
    """House rules as a small file another family can import."""
    data = variant.to_dict()
    del data["key"]  # the importing family gives it its own
    return json.dumps({"format": VARIANT_FORMAT, "version": VERSION, "variant": data}, ensure_ascii=False, indent=1)


def parse_variant(text: str | bytes) -> rules.Variant:
    """Read and check a variant file; ``TransferError`` says what is wrong."""
    if len(text) > VARIANT_FILE_LIMIT:
        raise TransferError("This file is far too big for one set of rules.")
    data = _read(text, VARIANT_FORMAT, "rules file", "rules file")
    variant_data = _need(data, "variant", dict, "file")
    name = _need(variant_data, "name", str, "variant", longest=HouseRules.__table__.c.name.type.length)
    if not name.strip():
        raise TransferError("variant.name: the rules need a name.")
    variant = _check_rules({**variant_data, "key": ""}, "", "variant")
    problems = house.variant_problems(variant)
    if problems:
        raise TransferError(f"These rules cannot be played: {problems[0].message}")
    return variant


def import_data(family: Family, data: dict) -> tuple[int, int]:
    """Write a checked export into ``family``: ``(games added, games already here)``.

    Everything is written in one transaction: an error part way leaves nothing behind.
    """
    try:
        players = {p.name.casefold(): p for p in services.family_players(family)}
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
                player = Player(family_id=family.id, name=entry["name"], created_at=_when(entry, "created_at", ""))
                db.session.add(player)
                players[entry["name"].casefold()] = player
        # The family's own rules come along, under keys of this instance.
        keys = {}
        for entry in data["house_rules"]:
            variant = rules.Variant.from_dict({**entry["rules"], "name": entry["name"]})
            row, added = services.add_imported_rules(family, variant)
            keys[entry["key"]] = row.key
            changed = changed or added
        uids = [g["uid"] for g in data["games"]]
        known = set()
        for start in range(0, len(uids), 500):
            known.update(db.session.execute(
                db.select(Game.uid).where(Game.family_id == family.id, Game.uid.in_(uids[start:start + 500]))
            ).scalars())
        fresh = [entry for entry in data["games"] if entry["uid"] not in known]
        for start in range(0, len(fresh), BATCH):
            games = [_build_game(family, entry, players, keys) for entry in fresh[start:start + BATCH]]
            db.session.add_all(games)
            db.session.flush()  # ids for the summaries
            for game in games:
                services.refresh_summary(game, new=True)
        if fresh or changed:
            services.commit_for(family.id)
    except Exception:
        db.session.rollback()
        raise
    return len(fresh), len(known)


def _build_game(family: Family, entry: dict, players: dict[str, Player], keys: dict[str, str]) -> Game:
    seated = [players[name.casefold()] for name in entry["seats"]]
    key = keys.get(entry["variant_key"], entry["variant_key"])
    game = Game(
        uid=entry["uid"],
        family_id=family.id,
        variant_key=key,
        rules={**entry["rules"], "key": key},
        skip_first_hand=entry["skip_first_hand"],
        first_dealer=entry["first_dealer"],
        status=entry["status"],
        started_at=_when(entry, "started_at", ""),
        finished_at=_when(entry, "finished_at", "", required=False),
    )
    game.seats = [Seat(player=p, position=i) for i, p in enumerate(seated)]
    position_of = {p.name.casefold(): i for i, p in enumerate(seated)}
    for round_ in sorted(entry["rounds"], key=lambda r: r["position"]):
        results = sorted(round_["results"], key=lambda r: position_of[r["player"].casefold()])
        game.rounds.append(
            GameRound(
                position=round_["position"],
                number=round_["number"],
                dealer=round_["dealer"],
                recorded_at=_when(round_, "recorded_at", "", required=False),
                version=round_["version"],
                results=[
                    Result(
                        player=players[r["player"].casefold()],
                        position=position_of[r["player"].casefold()],
                        buys=r["buys"],
                        laid_down=r["laid_down"],
                        went_out=r["went_out"],
                        cards=r["cards"],
                        hand_total=r.get("hand_total"),
                        bonus_code=r["bonus_code"],
                        bonus=r["bonus"],
                        points=r["points"],
                    )
                    for r in results
                ],
            )
        )
    return game
