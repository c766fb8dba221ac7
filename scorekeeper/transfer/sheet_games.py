"""Past games read from a spreadsheet: one row per player per game (date, player, a column per
round, optional notes); rows with the same date and notes are one game, seated in row order.

Every problem is named by its row and column, as the spreadsheet shows them. The player who
went out in a round is the one with the rules' going-out score (``rules.paper``); where the
scores do not say, the sheet asks. Nothing here touches the database.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import date
from typing import NamedTuple

from .. import rules
from ..rules import typed
from ..rules.paper import PaperRound, read_round
from ..rules.typed import MOST_DIGITS
from .dates import DateReader
from .sheets import Cell

OUT = "out"  # a cell that says the player went out instead of giving the score
OUT_MARKS = {"out", "x", "*", "★", "✓", "-", "–", "—"}
NAME_LENGTH = 40
HEADER_ROWS = 20  # the header is looked for among the first rows (a title may come before it)
DATE_WORDS = {"date", "day", "played", "played on", "datum"}
PLAYER_WORDS = {"player", "name", "players", "spieler"}
NOTES_WORDS = {"notes", "note", "comment", "comments", "where", "remarks"}
TOTAL_WORDS = {"total", "sum", "score", "final", "summe"}
ROUND_HEADER = re.compile(r"(?:round|rd\.?|r|hand|deal|runde)?\s*#?\s*(\d{1,3})(?!\d)", re.IGNORECASE)
TOO_MANY = "is far more than any hand is worth"
TEMPLATE_HINT = "Download the template to see the columns."


@dataclass(frozen=True)
class Problem:
    """Something the import cannot take, where the spreadsheet shows it."""

    row: int  # the sheet's row number, from 1
    column: str  # "D (Round 2)", or "" for a whole row
    message: str
    index: int = field(default=-1, compare=False)  # the column's index, to list problems in sheet order

    def __str__(self) -> str:
        return f"Row {self.row}" + (f", column {self.column}" if self.column else "") + f": {self.message}"


@dataclass(frozen=True)
class Question:
    """A round whose scores do not say who went out: nobody, or several players, has a going-out score."""

    row: int  # the game's first row
    number: int
    day: date
    names: tuple[str, ...]  # the players to choose from, as the file names them
    answer: str | None = None  # who was chosen

    @property
    def key(self) -> str:
        return f"{self.row}:{self.number}"


class PaperHand(NamedTuple):
    """One player's hand of a round as the import stores it (a ``rules.Hand`` read from paper)."""

    went_out: bool
    laid_down: bool
    hand_total: int | None
    bonus_code: str


@dataclass
class SheetGame:
    """One game found in the sheet, its players in seating order as the file names them."""

    row: int
    day: date
    notes: str
    names: list[str]
    rows: list[int]
    numbers: list[int] = field(default_factory=list)  # the rounds it played
    rounds: list[tuple[PaperHand, ...]] = field(default_factory=list)  # per round, seat by seat
    points: list[list[int]] = field(default_factory=list)  # per round, seat by seat
    read: list[int] = field(default_factory=list)  # the rounds read whole (a round with a problem is not)
    uid: str = ""

    @property
    def unread(self) -> list[int]:
        """The rounds left out of ``totals`` because of a problem or an open question."""
        return [number for number in self.numbers if number not in self.read]

    @property
    def totals(self) -> list[int]:
        return rules.running_totals(self.points, len(self.names))[-1] if self.points else [0] * len(self.names)

    @property
    def winners(self) -> list[str]:
        return [self.names[seat] for seat in rules.leaders(self.totals)]


@dataclass
class Sheet:
    """What a spreadsheet holds for ``variant``: its games, its problems, its questions."""

    variant: rules.Variant
    games: list[SheetGame] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # every player named, in first-seen order
    ignored: list[str] = field(default_factory=list)  # columns not read
    # Every hand of the same shape kept once: thousands of games hold a few hundred shapes.
    shapes: dict[PaperHand, PaperHand] = field(default_factory=dict, repr=False)

    @property
    def ready(self) -> bool:
        return bool(self.games) and not self.problems and not self.open_questions

    @property
    def open_questions(self) -> list[Question]:
        return [q for q in self.questions if q.answer is None]


@dataclass
class _Columns:
    header: int  # index of the header row
    date: int
    player: int
    notes: int | None
    total: int | None
    rounds: dict[int, int]  # column index: round number
    titles: list[str]

    def problem(self, row: int, index: int, message: str) -> Problem:
        return Problem(row, self.label(index), message, index)

    def label(self, index: int) -> str:
        title = self.titles[index] if index < len(self.titles) else ""
        title = title if len(title) <= 24 else title[:23] + "…"
        return f"{letter(index)} ({title})" if title else letter(index)


def letter(index: int) -> str:
    """A column's letter as spreadsheets show it: 0 is A, 26 is AA."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def read_sheet(
    cells: list[list[Cell]], variant: rules.Variant, today: date,
    mapping: dict[str, str] | None = None, answers: dict[str, str] | None = None,
) -> Sheet:
    """The games in ``cells`` under ``variant``. ``mapping`` renames players (a name in the
    file, casefolded: the name to import it as); ``answers`` say who went out where the
    scores do not (``Question.key``: a name in the file)."""
    sheet = Sheet(variant)
    columns = _columns(cells, variant, sheet)
    if columns is None:
        return sheet
    drafts = _rows_to_games(cells, columns, sheet, today, mapping or {})
    for game in drafts:
        _read_game(game, cells, columns, sheet, answers or {})
    sheet.games = drafts
    sheet.problems.sort(key=lambda p: (p.row, p.index))
    if not drafts and not sheet.problems:
        sheet.problems.append(Problem(columns.header + 1, "", "The sheet has a header but no games below it."))
    return sheet


def _text(cell: Cell) -> str:
    if cell is None:
        return ""
    if isinstance(cell, float) and cell.is_integer():
        cell = int(cell)
    return str(cell).strip()


def _columns(cells: list[list[Cell]], variant: rules.Variant, sheet: Sheet) -> _Columns | None:
    for index, row in enumerate(cells[:HEADER_ROWS]):
        titles = [_text(cell) for cell in row]
        words = [t.casefold().rstrip(":") for t in titles]
        date_at = next((i for i, w in enumerate(words) if w in DATE_WORDS), None)
        player_at = next((i for i, w in enumerate(words) if w in PLAYER_WORDS), None)
        if date_at is not None and player_at is not None:
            return _round_columns(index, titles, words, date_at, player_at, variant, sheet)
    sheet.problems.append(Problem(1, "", f"No header row with a Date and a Player column was found. {TEMPLATE_HINT}"))
    return None


def _round_columns(index, titles, words, date_at, player_at, variant, sheet) -> _Columns | None:
    columns = _Columns(index, date_at, player_at, None, None, {}, titles)
    numbers = {r.number for r in variant.rounds}
    for i, word in enumerate(words):
        if i in (date_at, player_at) or not word:
            continue
        match = ROUND_HEADER.match(word)
        if word in NOTES_WORDS and columns.notes is None:
            columns.notes = i
        elif word in TOTAL_WORDS and columns.total is None:
            columns.total = i
        elif match and int(match.group(1)) in numbers and int(match.group(1)) not in columns.rounds.values():
            columns.rounds[i] = int(match.group(1))
        elif match and int(match.group(1)) not in numbers:
            sheet.problems.append(columns.problem(index + 1, i, f"{variant.name} has no round {match.group(1)} "
                f"(its rounds are {min(numbers)} to {max(numbers)}). Are these the right rules?"))
        elif match:
            sheet.problems.append(columns.problem(index + 1, i, f"a second column for round {match.group(1)}"))
        else:
            sheet.ignored.append(columns.label(i))
    missing = sorted(numbers - set(columns.rounds.values()))
    if missing and not (missing == [variant.rounds[0].number] and variant.can_skip_first_hand):
        listed = ", ".join(str(n) for n in missing)
        sheet.problems.append(Problem(
            index + 1, "", f"no column for round {listed} of {variant.name}. {TEMPLATE_HINT}"))
    return None if sheet.problems else columns


def _rows_to_games(cells, columns: _Columns, sheet: Sheet, today: date, mapping: dict[str, str]) -> list[SheetGame]:
    """Rows grouped into games by date and notes. A row with no date continues the game above
    it, as a sheet that writes the date once per game has it."""
    reader = DateReader([row[columns.date] for row in cells[columns.header + 1:] if columns.date < len(row)], today)
    games: dict[tuple[date, str], SheetGame] = {}
    seen: dict[str, str] = {}
    above: tuple[date, str] | None = None
    for index in range(columns.header + 1, len(cells)):
        row, number = cells[index], index + 1
        if not any(_text(cell) for cell in row):
            continue
        cell = lambda i, row=row: row[i] if i is not None and i < len(row) else None
        name = " ".join(_text(cell(columns.player)).split())
        notes = _text(cell(columns.notes))
        if _text(cell(columns.date)):
            day, why = reader.read(cell(columns.date))
            if day is None:
                sheet.problems.append(columns.problem(number, columns.date, why))
                above = None
                continue
            above = (day, notes)
        elif above is None:
            sheet.problems.append(columns.problem(number, columns.date, "no date, and no game above to belong to"))
            continue
        elif notes and notes != above[1]:
            above = (above[0], notes)
        if name.casefold().rstrip(":") in TOTAL_WORDS:
            sheet.ignored.append(f"row {number} ({name})")  # a sheet's own line of totals
            continue
        if not name:
            sheet.problems.append(columns.problem(number, columns.player, "no player's name"))
            continue
        if any(c < " " for c in name):
            sheet.problems.append(columns.problem(number, columns.player, "a name cannot hold control characters"))
            continue
        if len(name) > NAME_LENGTH:
            sheet.problems.append(columns.problem(number, columns.player, f"a name has at most {NAME_LENGTH} letters"))
            continue
        seen.setdefault(name.casefold(), name)
        game = games.setdefault(above, SheetGame(number, above[0], above[1], [], []))
        game.names.append(mapping.get(name.casefold(), name))
        game.rows.append(index)
    sheet.names = list(seen.values())
    return list(games.values())


def _read_game(game: SheetGame, cells, columns: _Columns, sheet: Sheet, answers: dict[str, str]) -> None:
    variant, first = sheet.variant, game.row
    when = game.day.strftime("%d %b %Y") + (f", {game.notes}" if game.notes else "")
    folded = [name.casefold() for name in game.names]
    for seat, name in enumerate(folded):
        if name in folded[:seat]:
            sheet.problems.append(columns.problem(game.rows[seat] + 1, columns.player,
                f"{game.names[seat]} is twice in the game of {when}: give two games of one day different notes"))
    if not variant.min_players <= len(game.names) <= variant.max_players:
        sheet.problems.append(Problem(first, "", (
            f"the game of {when} has {len(game.names)} player{'' if len(game.names) == 1 else 's'}; "
            f"{variant.name} is for {variant.min_players} to {variant.max_players}")))
        return
    by_number = {number: column for column, number in columns.rounds.items()}
    numbers = variant.hand_numbers()
    start = by_number.get(numbers[0])
    if variant.can_skip_first_hand and (start is None or all(_blank(cells[r], start) for r in game.rows)):
        numbers = numbers[1:]  # hand 1 skipped, as these rules allow
    raw = []
    for number in numbers:
        column = by_number[number]
        before = len(sheet.problems)
        scores = [_score(cells[r], column, r, columns, sheet) for r in game.rows]
        raw.append(scores)
        refused = len(sheet.problems) > before
        if all(_blank(cells[r], column) for r in game.rows):
            sheet.problems.append(columns.problem(first, column, f"round {number} of the game of {when} is missing"))
            continue
        if not refused:  # a cell that is not a number says more than a question would
            _read_round(game, number, scores, columns, column, sheet, answers.get(f"{first}:{number}"))
    game.numbers = numbers
    _check_totals(game, cells, columns, sheet)
    game.uid = hashlib.sha256(json.dumps(
        [variant.key, game.day.isoformat(), game.notes, [_text(cells[r][columns.player]) for r in game.rows], raw],
        default=str).encode()).hexdigest()[:32]


def _blank(row: list[Cell], column: int) -> bool:
    return column >= len(row) or not _text(row[column])


def _score(row: list[Cell], column: int, index: int, columns: _Columns, sheet: Sheet) -> int | str | None:
    """A score cell as a whole number, ``OUT``, or ``None`` (blank, or refused with a problem)."""
    cell = row[column] if column < len(row) else None
    if isinstance(cell, bool) or isinstance(cell, date):
        why = f"'{_text(cell)}' is not a score"
    elif isinstance(cell, (int, float)) and abs(cell) >= 10**MOST_DIGITS:
        why = f"{cell:.3g} {TOO_MANY}"
    elif isinstance(cell, int):
        return cell
    elif isinstance(cell, float):
        if cell.is_integer():
            return int(cell)
        why = f"{cell:g} is not a whole number"
    else:
        text = _text(cell).replace(" ", "")
        if not text:
            return None
        if text.casefold() in OUT_MARKS:
            return OUT
        number, problem = typed.read_whole(text)
        if not problem:
            return number
        shown = f"'{text[:20]}{'…' if len(text) > 20 else ''}'"
        why = f"{shown} {TOO_MANY}" if problem == typed.TOO_BIG else f"{shown} is not a whole number"
    sheet.problems.append(columns.problem(index + 1, column, why))
    return None


def _read_round(game, number, scores, columns, column, sheet, answer: str | None) -> None:
    variant = sheet.variant
    marked = [seat for seat, score in enumerate(scores) if score == OUT]
    written = [None if score == OUT else score for score in scores]
    if len(marked) > 1:
        asked = PaperRound([], None, ask=marked)
    else:
        asked = read_round(variant, number, written, marked[0] if marked else None)
    paper = asked
    chosen = [seat for seat in asked.ask if answer is not None and game.names[seat].casefold() == answer.casefold()]
    if asked.out is None:
        # Asked and answered stays on the page, so a wrong answer can be changed.
        sheet.questions.append(Question(
            game.row, number, game.day, tuple(game.names[s] for s in asked.ask),
            game.names[chosen[0]] if chosen else None))
        if not chosen:
            return
        paper = read_round(variant, number, written, chosen[0])
    for seat, message in paper.problems.items():
        if seat not in marked or seat == paper.out:
            name = game.names[seat]
            sheet.problems.append(columns.problem(game.rows[seat] + 1, column, f"{name}: {message}"))
        else:
            sheet.problems.append(columns.problem(
                game.rows[seat] + 1, column, f"{game.names[seat]} is marked as out, and so is another player"))
    shapes = sheet.shapes
    game.rounds.append(tuple(
        shapes.setdefault(shape, shape)
        for shape in (PaperHand(h.went_out, h.laid_down, h.hand_total, h.bonus_code) for h in paper.hands)))
    game.points.append([rules.hand_score(variant, hand, number)[0] for hand in paper.hands])
    game.read.append(number)


def _check_totals(game: SheetGame, cells, columns: _Columns, sheet: Sheet) -> None:
    """A total column, where the sheet has one, must be what the rounds add up to: a mistake in
    the adding up on paper is found before the game is imported."""
    if columns.total is None or len(game.points) != len(game.numbers):
        return
    for seat, (index, total) in enumerate(zip(game.rows, game.totals)):
        cell = cells[index][columns.total] if columns.total < len(cells[index]) else None
        written = _text(cell)
        number, problem = typed.read_whole(written)
        if problem == typed.TOO_BIG:
            number = -1 if total >= 0 else 1  # too many digits: never the total, and never read
        if number is not None and number != total:
            shown = written if len(written) <= 20 else written[:19] + "…"
            sheet.problems.append(columns.problem(index + 1, columns.total, (
                f"{game.names[seat]}'s total is written as {shown}, but the rounds add up to {total}")))
