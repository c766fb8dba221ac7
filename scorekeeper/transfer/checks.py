"""Reading an export or a rules file: every field checked before anything is written, each
problem named by its path in the file (``games[3].rounds[2].results[1].player``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime

from .. import logs, rules
from ..models import (
    ABANDONED,
    FINISHED,
    IN_PROGRESS,
    PAPER,
    SHEET,
    SOURCES,
    TABLE,
    Family,
    HouseRules,
    Result,
    RoundChange,
)
from ..rules import house
from ..rules.buying import BUYS_COUNTED, known

FORMAT = "scorekeeper-export"
VARIANT_FORMAT = "scorekeeper-variant"
VERSION = 1
STATUSES = (IN_PROGRESS, FINISHED, ABANDONED)
LIMIT = 10**9  # no count, score or position in a real game comes near this
# The first day a game can have been played: standings, profiles and seasons count years from 1900,
# as the spreadsheet import does.
EARLIEST = date(1900, 1, 1)
KEY = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
# What the columns hold, so a file cannot carry more than the database stores.
FAMILY_NAME_LENGTH = Family.__table__.c.name.type.length
CARDS_LENGTH = Result.__table__.c.cards.type.length
BONUS_CODE_LENGTH = Result.__table__.c.bonus_code.type.length


class TransferError(ValueError):
    """The file cannot be imported; the message names what is wrong and where (and, as it may
    quote a name from the file, is not logged: the log says only that the request was refused)."""

    def __init__(self, *args):
        super().__init__(*args)
        logs.refused(type(self).__name__)


def need(obj, key, kind, where, longest: int | None = None):
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


def when(obj, key, where, required=True) -> datetime | None:
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise TransferError(f"{where}.{key}: must be a date and time.")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise TransferError(f"{where}.{key}: '{value[:40]}' is not a date and time.") from None
    if moment.date() < EARLIEST:
        raise TransferError(f"{where}.{key}: {value[:40]} is before {EARLIEST.year}, earlier than any game here.")
    return moment


def read(text: str | bytes, format_: str, what: str, short: str) -> dict:
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


def parse(text: str | bytes, limits: Limits | None = None) -> dict:
    """Read and check an export completely; nothing is written. ``TransferError`` says what is wrong.

    With ``limits``, an export larger than they allow is refused before the rest is checked.
    """
    data = read(text, FORMAT, "Scorekeeper export", "export")
    if limits is not None:
        _refuse_too_much(data, limits)
    need(need(data, "family", dict, "export"), "name", str, "family", longest=FAMILY_NAME_LENGTH)
    names = set()
    for i, player in enumerate(need(data, "players", list, "export")):
        name = need(player, "name", str, f"players[{i}]")
        if not name.strip() or len(name) > 40:
            raise TransferError(f"players[{i}].name: a name has 1 to 40 letters.")
        if name.casefold() in names:
            raise TransferError(f"players[{i}].name: '{name}' appears twice.")
        names.add(name.casefold())
        when(player, "created_at", f"players[{i}]")
    # Exports made before house rules existed have none.
    data.setdefault("house_rules", [])
    checked: dict[str, rules.Variant] = {}  # games of the same rules share one snapshot: checked once
    for i, entry in enumerate(need(data, "house_rules", list, "export")):
        where = f"house_rules[{i}]"
        key = need(entry, "key", str, where)
        if not KEY.fullmatch(key):
            raise TransferError(f"{where}.key: '{key[:40]}' is not a rules key.")
        name = need(entry, "name", str, where, longest=HouseRules.__table__.c.name.type.length)
        if not name.strip():
            raise TransferError(f"{where}.name: the rules need a name.")
        _checked_rules(need(entry, "rules", dict, where), key, f"{where}.rules", checked)
    uids = set()
    for g, game in enumerate(need(data, "games", list, "export")):
        _check_game(game, f"games[{g}]", names, checked)
        if game["uid"] in uids:
            raise TransferError(f"games[{g}].uid: the game '{game['uid']}' appears twice.")
        uids.add(game["uid"])
    return data


COMMAND_LINE = (
    "Import it on the server with the command line, which has no time limit: flask --app scorekeeper import FILE"
)


@dataclass(frozen=True)
class Limits:
    """The most an import may hold where time is short (a web request): games, different rules
    snapshots (each is checked once, which takes a while) and house rules (each is compared with
    the family's own)."""

    games: int
    rule_sets: int
    house_rules: int


# The most the import page takes in one request, which has 30 s (gunicorn's worker timeout); a
# larger export is refused before anything is written, pointing to the command line (no time
# limit). 3,000 games take about 4 s on SQLite and 8 s on PostgreSQL (bench/import_bench.py), and
# each different rules snapshot 5 to 9 ms more to check (a family's games share a few); each house
# rule set is compared with those stored before it (500 take 18 s). The spreadsheet import takes
# as many games.
WEB_LIMITS = Limits(games=4000, rule_sets=500, house_rules=100)


def _refuse_too_much(data: dict, limits: Limits) -> None:
    """Refuse an export larger than ``limits`` before anything else is checked."""
    games = data["games"] if isinstance(data.get("games"), list) else []
    house_rules = data["house_rules"] if isinstance(data.get("house_rules"), list) else []
    snapshots = {
        json.dumps([entry.get("variant_key", entry.get("key")), entry.get("rules")], sort_keys=True)
        for entry in games + house_rules
        if isinstance(entry, dict)
    }
    for count, most, what in (
        (len(games), limits.games, "games"),
        (len(snapshots), limits.rule_sets, "different rules snapshots"),
        (len(house_rules), limits.house_rules, "house rules"),
    ):
        if count > most:
            raise TransferError(
                f"This export holds {count:,} {what}, more than the import page can take before its "
                f"time runs out ({most:,} at most). {COMMAND_LINE}"
            )


def _checked_rules(data: dict, key: str, where: str, checked: dict[str, rules.Variant] | None) -> rules.Variant:
    """``check_rules``, once for each distinct snapshot (thousands of games share a few)."""
    if checked is None:
        return check_rules(data, key, where)
    try:
        text = json.dumps([key, data], sort_keys=True)
    except (TypeError, ValueError):  # JSON from a file always dumps; anything else is checked afresh
        return check_rules(data, key, where)
    if text not in checked:
        checked[text] = check_rules(data, key, where)
    return checked[text]


def _check_game(game, where: str, names: set[str], checked: dict[str, rules.Variant] | None = None) -> None:
    uid = need(game, "uid", str, where)
    if not 1 <= len(uid) <= 32:
        raise TransferError(f"{where}.uid: must be 1 to 32 characters.")
    key = need(game, "variant_key", str, where)
    if not KEY.fullmatch(key):
        raise TransferError(f"{where}.variant_key: '{key[:40]}' is not a rules key.")
    variant = _checked_rules(need(game, "rules", dict, where), key, f"{where}.rules", checked)
    skip = need(game, "skip_first_hand", bool, where)
    if skip and not variant.can_skip_first_hand:
        raise TransferError(f"{where}.skip_first_hand: these rules cannot skip hand 1.")
    status = need(game, "status", str, where)
    if status not in STATUSES:
        raise TransferError(f"{where}.status: '{status}' is not one of {', '.join(STATUSES)}.")
    when(game, "started_at", where)
    finished_at = when(game, "finished_at", where, required=False)
    seats = need(game, "seats", list, where)
    try:
        variant.decks_for(len(seats))
    except ValueError as error:
        raise TransferError(f"{where}.seats: {error}.") from None
    for s, name in enumerate(seats):
        if not isinstance(name, str) or name.casefold() not in names:
            raise TransferError(f"{where}.seats[{s}]: {name!r} is not in the players list.")
    if len({n.casefold() for n in seats}) != len(seats) or not seats:
        raise TransferError(f"{where}.seats: each player sits once, and a game has players.")
    first = need(game, "first_dealer", int, where)
    if not 0 <= first < len(seats):
        raise TransferError(f"{where}.first_dealer: there is no seat {first}.")
    seen_numbers: set[int] = set()
    for r, round_ in enumerate(need(game, "rounds", list, where)):
        _check_round(round_, f"{where}.rounds[{r}]", variant, seats, seen_numbers)
    rounds_ = game["rounds"]
    if sorted((r["position"], r["number"]) for r in rounds_) != list(enumerate(variant.hand_numbers(skip))):
        raise TransferError(f"{where}.rounds: the game must hold each of its rules' rounds once, in order.")
    all_recorded = all(r.get("recorded_at") for r in rounds_)
    if status == FINISHED and not (all_recorded and finished_at):
        raise TransferError(f"{where}: a finished game has every round recorded and a finishing time.")
    # Exports made before change histories travelled have none.
    game.setdefault("changes", [])
    for c, change in enumerate(need(game, "changes", list, where)):
        _check_change(change, f"{where}.changes[{c}]", seen_numbers, len(seats), variant)
    for round_ in rounds_:
        round_.setdefault("source", inferred_source(round_, bool(game["changes"])))


def inferred_source(round_: dict, has_changes: bool) -> str:
    """How a hand of an export made before hands said so was recorded: a scored hand with no
    cards, no buys and everyone laid down was typed in from paper (``rules.paper`` marks
    everyone down), or imported from a spreadsheet when its game has no change history."""
    results = round_["results"]
    from_paper = round_.get("recorded_at") and all(
        not r["cards"] and not r["buys"] and r["laid_down"] for r in results)
    if not from_paper:
        return TABLE
    return PAPER if has_changes else SHEET


def _check_round(round_, at: str, variant: rules.Variant, seats: list[str], seen_numbers: set[int]) -> None:
    number = need(round_, "number", int, at)
    try:
        variant.round(number)
    except ValueError:
        raise TransferError(f"{at}.number: the rules have no round {number}.") from None
    if number in seen_numbers:
        raise TransferError(f"{at}.number: round {number} appears twice.")
    seen_numbers.add(number)
    need(round_, "position", int, at)
    need(round_, "version", int, at)
    dealer = need(round_, "dealer", int, at)
    if not 0 <= dealer < len(seats):
        raise TransferError(f"{at}.dealer: there is no seat {dealer}.")
    when(round_, "recorded_at", at, required=False)
    if round_.get("source", TABLE) not in SOURCES:
        raise TransferError(f"{at}.source: '{round_['source']}' is not one of {', '.join(SOURCES)}.")
    seated = {n.casefold() for n in seats}
    codes = {k.code for k in variant.keys}
    players_here = [
        _check_result(result, f"{at}.results[{p}]", variant, seated, codes, number)
        for p, result in enumerate(need(round_, "results", list, at))
    ]
    if sorted(players_here) != sorted(seated):
        raise TransferError(f"{at}.results: there must be one result for each seated player.")


def hand_bound(variant: rules.Variant, number: int) -> int:
    """The most points, either sign, one player's hand can carry in round ``number``: every card
    they could hold at the highest value, every bonus and the going-out score. The same ceilings as
    the editor's (``rules.limits``), so that no imported total can leave a 32-bit column."""
    cards = rules.max_hand_points(variant, variant.round(number))
    return cards + sum(abs(b.points) for b in variant.bonuses) + abs(variant.going_out_points(number))


def _check_result(result, here: str, variant: rules.Variant, seated: set[str], codes: set[str] | None,
                  number: int) -> str:
    """One player's result in round ``number``; returns the player's name, casefolded."""
    name = need(result, "player", str, here)
    if name.casefold() not in seated:
        raise TransferError(f"{here}.player: '{name}' does not sit at this game.")
    bound = hand_bound(variant, number)
    for key, low, high in (("buys", 0, variant.most_buys(variant.round(number))), ("bonus", -bound, bound),
                           ("points", -bound, bound)):
        value = need(result, key, int, here)
        if not low <= value <= high:
            raise TransferError(f"{here}.{key}: {value} is outside what this round can have ({low} to {high}).")
    for key in ("laid_down", "went_out"):
        need(result, key, bool, here)
    cards = need(result, "cards", str, here, longest=CARDS_LENGTH)
    codes = {k.code for k in variant.keys} if codes is None else codes
    bad = [c for c in cards.split() if c not in codes]
    if bad:
        raise TransferError(f"{here}.cards: '{bad[0]}' is not a card of these rules.")
    need(result, "bonus_code", str, here, longest=BONUS_CODE_LENGTH)
    if result.get("hand_total") is not None:
        most = rules.max_hand_points(variant, variant.round(number))
        if not 0 <= need(result, "hand_total", int, here) <= most:
            raise TransferError(f"{here}.hand_total: {result['hand_total']} is outside what a hand can hold "
                                f"(0 to {most}).")
    return name.casefold()


# A change to a scored hand (``RoundChange``): which points it carries before and after.
CHANGE_POINTS = {"recorded": (False, True), "edited": (True, True), "undone": (True, False)}
NO_POINTS = {"before": "a round first recorded has no points before", "after": "a round taken back has no points after"}
CHANGE_ACTION_LENGTH = RoundChange.__table__.c.action.type.length
CHANGE_BY_LENGTH = RoundChange.__table__.c.by.type.length


def _check_change(change, at: str, numbers: set[int], seats: int, variant: rules.Variant) -> None:
    """One entry of a game's change history: a round of the game, an action, who, when, points."""
    number = need(change, "number", int, at)
    if number not in numbers:
        raise TransferError(f"{at}.number: the game has no round {number}.")
    action = need(change, "action", str, at, longest=CHANGE_ACTION_LENGTH)
    if action not in CHANGE_POINTS:
        raise TransferError(f"{at}.action: '{action}' is not one of {', '.join(CHANGE_POINTS)}.")
    by = need(change, "by", str, at, longest=CHANGE_BY_LENGTH)
    if not by.strip():
        raise TransferError(f"{at}.by: must name who made the change.")
    when(change, "at", at)
    for key, present in zip(("before", "after"), CHANGE_POINTS[action]):
        if not present:
            if change.get(key) is not None:
                raise TransferError(f"{at}.{key}: must be null: {NO_POINTS[key]}.")
            continue
        points = need(change, key, list, at)
        bound = hand_bound(variant, number)
        if len(points) != seats or any(type(p) is not int or not -bound <= p <= bound for p in points):
            raise TransferError(f"{at}.{key}: must be {seats} whole numbers, one for each seat.")


def check_rules(data: dict, key: str, where: str) -> rules.Variant:
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
    if not known(variant.buys_counted):
        raise TransferError(f"{where}.buys_counted: must be one of {', '.join(BUYS_COUNTED)}.")
    try:
        _ = variant.keys  # every rank has a point value
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise TransferError(f"{where}: the rules snapshot is incomplete ({error}).") from None
    if not variant.rounds or not 1 <= variant.min_players <= variant.max_players:
        raise TransferError(f"{where}: the rules need rounds and a player range.")
    # The editor's checks: every number within what a card table can mean, and playable as written.
    problems = house.variant_problems(variant)
    if problems:
        raise TransferError(f"{where}.{_rule_path(problems[0].field)}: {problems[0].message}")
    return variant


# An editor field (``house.Problem.field``) as where its rule is in a file: rounds-2-buy_limit -> rounds[2].buy_limit.
_FILE_FIELDS = {"wild_points": "suit_cards", "wilds": "wild_cards", "bonus": "bonuses", "points": "points"}


def _rule_path(field: str) -> str:
    head, *rest = field.split("-", 1)
    head = _FILE_FIELDS.get(head, head)
    if not rest or head == "bonuses":
        return head
    if head == "points":
        return f"points.{rest[0]}"
    index, _, name = rest[0].partition("-")
    return f"{head}[{index}]" + (f".{name}" if name else "")
