"""A spreadsheet of past games brought into a family: its players matched by name, what is
already here, and the import itself, which goes through the export's import (all of it or
nothing, games known by a uid made from their content, so one file imported twice adds nothing)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from .. import rules
from ..families import family_players
from ..games.service import PAST_GAME_HOUR
from ..models import HOUSE_PREFIX, SHEET, Family, utcnow
from . import importing, previews
from .sheet_games import PaperHand, Sheet, read_sheet
from .sheets import Cell

EVENING = PAST_GAME_HOUR  # a game from paper begins the evening of its day, in sheet order
ROUND_MINUTES = 10


@dataclass
class Preview:
    """What an import of the sheet would do in this family."""

    sheet: Sheet
    matched: dict[str, str]  # a name in the file: the family's player it is
    unknown: list[str]  # names in the file no player of the family has
    known_games: int  # games of the sheet already in the history

    @property
    def new_games(self) -> int:
        return len(self.sheet.games) - self.known_games


def preview(
    family: Family, cells: list[list[Cell]], variant: rules.Variant,
    mapping: dict[str, str] | None = None, answers: dict[str, str] | None = None, token: str | None = None,
) -> Preview:
    """Read ``cells`` for ``family``: ``mapping`` (a name in the file, casefolded: a player of
    the family, by name) says who the unknown names are; names not mapped become new players.
    With the preview's ``token``, a reading kept for the same rules, names, answers and day is used,
    and a new reading is kept."""
    players = {p.name.casefold(): p.name for p in family_players(family)}
    mapping = {name: players[to.casefold()] for name, to in (mapping or {}).items() if to.casefold() in players}
    today = utcnow().date()  # as the app counts days
    key = previews.reading_key(variant, mapping, answers or {}, today)
    sheet = previews.reading(token, key) if token else None
    if sheet is None:
        sheet = read_sheet(cells, variant, today, mapping, answers)
        if token:
            previews.keep_reading(token, key, sheet)
    matched = {name: players[name.casefold()] for name in sheet.names if name.casefold() in players}
    matched.update({name: mapping[name.casefold()] for name in sheet.names if name.casefold() in mapping})
    unknown = [name for name in sheet.names if name not in matched]
    return Preview(sheet, matched, unknown, len(importing.known_games(family.id, [g.uid for g in sheet.games])))


def import_sheet(family: Family, sheet: Sheet) -> tuple[int, int]:
    """Write the sheet's games (it must be ``ready``): ``(games added, games already here)``."""
    if not sheet.ready:
        raise ValueError("the sheet has problems or questions left")
    return importing.import_games(family, sheet_data(family, sheet), [g.uid for g in sheet.games],
                                  _game_entries(sheet))


def _game_entries(sheet: Sheet) -> Iterator[dict]:
    """Each game of the sheet as an export's game entry, made as the import writes it."""
    per_day: dict[date, int] = {}
    bonuses: dict[tuple[PaperHand, int], int] = {}  # a few hundred shapes of hand in thousands of games
    for game in sheet.games:
        nth = per_day[game.day] = per_day.get(game.day, -1) + 1
        yield _game_entry(game, sheet.variant, datetime.combine(game.day, EVENING) + timedelta(hours=nth), bonuses)


def sheet_data(family: Family, sheet: Sheet) -> dict:
    """The sheet's players and rules as an export of this app; its games come apart (``_game_entries``)."""
    variant = sheet.variant
    first_day: dict[str, date] = {}
    for game in sheet.games:
        for name in game.names:
            first_day.setdefault(name.casefold(), game.day)
    names = {name.casefold(): name for game in sheet.games for name in game.names}
    return {
        "family": {"name": family.name},
        "players": [
            {"name": name, "created_at": datetime.combine(first_day[key], EVENING).isoformat()}
            for key, name in names.items()
        ],
        "house_rules": [
            {"key": variant.key, "name": variant.name, "rules": variant.to_dict()}
        ] if variant.key.startswith(HOUSE_PREFIX) else [],
        "games": [],
    }


def _bonus(variant: rules.Variant, hand: PaperHand, number: int, bonuses: dict[tuple[PaperHand, int], int]) -> int:
    """The bonus in a hand's points, worked out once per shape of hand and round."""
    bonus = bonuses.get((hand, number))
    if bonus is None:
        bonus = bonuses[hand, number] = rules.hand_score(variant, rules.Hand(
            0, hand.went_out, hand.laid_down, hand_total=hand.hand_total, bonus_code=hand.bonus_code), number)[1]
    return bonus


def _game_entry(game, variant: rules.Variant, started: datetime, bonuses: dict[tuple[PaperHand, int], int]) -> dict:
    # The sheet does not say who dealt: the rounds are dealt round from seat 1, marked as a guess (SHEET).
    schedule = rules.schedule(game.numbers, 0, len(game.names))
    rounds = []
    for position, ((number, dealer), paper, points) in enumerate(zip(schedule, game.rounds, game.points)):
        at = started + timedelta(minutes=ROUND_MINUTES * (position + 1))
        rounds.append({
            "position": position, "number": number, "dealer": dealer, "recorded_at": at.isoformat(), "version": 1,
            "source": SHEET,
            "results": [
                {
                    "player": game.names[seat], "buys": 0, "laid_down": hand.laid_down,
                    "went_out": hand.went_out, "cards": "", "hand_total": hand.hand_total,
                    "bonus_code": hand.bonus_code, "points": points[seat],
                    "bonus": _bonus(variant, hand, number, bonuses),
                }
                for seat, hand in enumerate(paper)
            ],
        })
    return {
        "uid": game.uid, "variant_key": variant.key, "rules": variant.to_dict(), "skip_first_hand":
        game.numbers[0] != variant.rounds[0].number, "first_dealer": 0, "status": "finished",
        "started_at": started.isoformat(), "finished_at": rounds[-1]["recorded_at"], "seats": game.names,
        "rounds": rounds, "changes": [],
    }
