"""Spreadsheet files of past games: reading a .csv or .xlsx into rows of cells, carrying those
cells from the preview to the import, and the blank template a family fills in.

The file's kind is told from its first bytes, not its name: a phone may rename what it shares.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import zipfile
import zlib
from datetime import date, datetime

from .. import rules
from ..rules.paper import going_out_scores
from .checks import TransferError

Cell = str | int | float | date | None
MOST_ROWS = 60_000  # about 15,000 games of four: more than any family's paper past
MOST_COLUMNS = 40  # date, player, notes, a total and up to 36 rounds
CELLS_LIMIT = 32 * 1024 * 1024  # what carried cells may unpack to
OLD_EXCEL = b"\xd0\xcf\x11\xe0"
SAVE_AS = "Save it as .xlsx (Excel workbook) or .csv and choose that file."


def read_cells(data: bytes) -> list[list[Cell]]:
    """The first sheet's rows, as cells: text, numbers and dates (from .xlsx) as they are.

    ``TransferError`` says why a file cannot be read.
    """
    if not data.strip():
        raise TransferError("The file is empty.")
    if data.startswith(OLD_EXCEL):
        raise TransferError(f"This is an old Excel file (.xls), which cannot be read here. {SAVE_AS}")
    if data.startswith(b"PK"):
        return _workbook_cells(data)
    return _csv_cells(data)


def _workbook_cells(data: bytes) -> list[list[Cell]]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if "mimetype" in names and b"opendocument" in archive.read("mimetype"):
                raise TransferError(f"This is an OpenDocument spreadsheet (.ods), which cannot be read here. {SAVE_AS}")
    except zipfile.BadZipFile:
        raise TransferError(f"This file is damaged or not a spreadsheet. {SAVE_AS}") from None
    if "xl/workbook.xml" not in names:
        raise TransferError(f"This is not an Excel workbook. {SAVE_AS}")
    from openpyxl import load_workbook  # only an .xlsx import pays for loading it

    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises many kinds for a damaged workbook
        raise TransferError(f"This workbook cannot be read ({type(error).__name__}). {SAVE_AS}") from None
    try:
        rows = []
        # Cells are read lazily, so a damaged cell shows only here.
        for row in book.worksheets[0].iter_rows(values_only=True, max_col=MOST_COLUMNS):
            rows.append([_workbook_value(value) for value in row])
            if len(rows) > MOST_ROWS:
                raise TransferError(_too_many())
        return rows
    except TransferError:
        raise
    except Exception as error:  # openpyxl raises many kinds for a damaged cell
        raise TransferError(f"This workbook cannot be read ({type(error).__name__}). {SAVE_AS}") from None
    finally:
        book.close()


def _workbook_value(value) -> Cell:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (str, int, float, date)) or value is None:
        return value
    return str(value)  # a time or a formula's error: shown as written, refused where it matters


def _csv_cells(data: bytes) -> list[list[Cell]]:
    try:
        text = data.decode("utf-8-sig")  # Excel writes a byte order mark before UTF-8
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")  # an older Excel's "CSV" on Windows
    if "\x00" in text:
        raise TransferError(f"This is not a text file. {SAVE_AS}")
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    # Spreadsheets where the comma is the decimal mark write semicolons between cells.
    delimiter = max(";,\t", key=first.count)
    rows = []
    try:
        for row in csv.reader(io.StringIO(text), delimiter=delimiter):
            rows.append([cell or None for cell in row[:MOST_COLUMNS]])
            if len(rows) > MOST_ROWS:
                raise TransferError(_too_many())
    except csv.Error as error:  # a cell of more than 131,072 characters, among others
        raise TransferError(f"This CSV file cannot be read ({error}). {SAVE_AS}") from None
    return rows


def _too_many() -> str:
    return f"The sheet has more than {MOST_ROWS:,} rows; split it into smaller files."


def pack(cells: list[list[Cell]]) -> str:
    """The cells as one short text to carry from the preview to the import, in a form field."""
    text = json.dumps(cells, default=lambda d: {"date": d.isoformat()}, separators=(",", ":"))
    return base64.urlsafe_b64encode(zlib.compress(text.encode(), 6)).decode()


def unpack(packed: str) -> list[list[Cell]]:
    """The cells ``pack`` carried; ``TransferError`` if the text was changed on the way."""
    try:
        inflate = zlib.decompressobj()
        text = inflate.decompress(base64.urlsafe_b64decode(packed.encode()), CELLS_LIMIT)
        if inflate.unconsumed_tail or not inflate.eof:
            raise ValueError("too large, or cut short")
        cells = json.loads(text, object_hook=lambda d: date.fromisoformat(d["date"]))
    except (ValueError, TypeError, KeyError, zlib.error, RecursionError):
        raise TransferError("The sheet was lost on the way; choose the file again.") from None
    if not isinstance(cells, list) or not all(isinstance(row, list) for row in cells):
        raise TransferError("The sheet was lost on the way; choose the file again.")
    # A NUL, which no text in the database may hold, cannot come from a file: only from a changed field.
    return [[c.replace("\x00", "") if isinstance(c, str) else c if isinstance(c, (int, float, date)) or c is None
             else str(c) for c in row] for row in cells]


def template_header(variant: rules.Variant) -> list[str]:
    """The columns of a sheet for ``variant``: date, player, a column per round with its contract, notes."""
    return ["Date", "Player", *(f"Round {r.number}: {_printable(r.contract)}" for r in variant.rounds), "Notes"]


def _printable(text: str) -> str:
    """Without control characters, which a workbook cannot hold (house rules may have them)."""
    return "".join(c for c in text if c >= " " or c == "\t")


def template_csv(variant: rules.Variant) -> bytes:
    """A blank sheet for ``variant`` as CSV, with a byte order mark so Excel reads it as UTF-8."""
    out = io.StringIO()
    csv.writer(out).writerow(template_header(variant))
    return ("\ufeff" + out.getvalue()).encode()


def template_xlsx(variant: rules.Variant) -> bytes:
    """A blank workbook for ``variant``: the header row, and a second sheet saying how to fill it in."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    book = Workbook()
    sheet = book.active
    sheet.title = "Games"
    sheet.append(template_header(variant))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "C2"
    sheet.column_dimensions["A"].width = 12
    sheet.column_dimensions["B"].width = 14
    help_sheet = book.create_sheet("How to fill it in")
    for line in how_to_fill(variant):
        help_sheet.append([line])
    help_sheet.column_dimensions["A"].width = 100
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def how_to_fill(variant: rules.Variant) -> list[str]:
    """The lines of the template's help sheet."""
    out = ", ".join(str(s) for s in sorted(going_out_scores(variant, variant.rounds[0].number)))
    return [
        f"{_printable(variant.name)}: one row per player per game, in seating order.",
        "Date: the day the game was played (2024-05-01, 1.5.2024, or a date cell).",
        "Player: the name; names already in the family's history are matched.",
        "Round columns: the points each player scored that round.",
        f"The player who went out scores {out} (or write 'out').",
        "Notes: optional. Rows with the same date and notes are one game:",
        "give two games of one evening different notes.",
        "Leave a round blank for everyone when the game skipped it (hand 1 may be skipped where the rules allow).",
    ]
