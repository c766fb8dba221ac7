"""Spreadsheet files of past games: reading a .csv or .xlsx into rows of cells, carrying those
cells from the preview to the import, and the blank template a family fills in.

The file's kind is told from its first bytes, not its name: a phone may rename what it shares.
"""

from __future__ import annotations

import codecs
import csv
import io
import zipfile
from collections.abc import Iterator
from typing import IO

from .. import rules
from ..rules.paper import going_out_scores
from .checks import TransferError
from .export import safe_cell
from .limits import (
    MOST_CELL_CHARS,
    MOST_COLUMNS,
    MOST_ROW_CHARS,
    MOST_ROWS,
    MOST_TEXT,
    SAVE_AS,
    too_long,
    too_many_rows,
)
from .workbook import Cell, workbook_cells

__all__ = ["Cell", "MOST_COLUMNS", "MOST_ROWS", "read_cells", "safe_cell", "template_csv", "template_xlsx"]
OLD_EXCEL = b"\xd0\xcf\x11\xe0"
BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def read_cells(source: bytes | IO[bytes]) -> list[list[Cell]]:
    """The first sheet's rows, as cells: text, numbers and dates (from .xlsx) as they are.

    ``source`` is the file's bytes or a seekable binary file; it is read as it streams, every
    limit (``transfer.limits``) applied before or while unpacking. ``TransferError`` says why a
    file cannot be read.
    """
    stream = io.BytesIO(source) if isinstance(source, bytes) else source
    head = stream.read(8)
    stream.seek(0)
    if not head:
        raise TransferError("The file is empty.")
    if head.startswith(OLD_EXCEL):
        raise TransferError(f"This is an old Excel file (.xls), which cannot be read here. {SAVE_AS}")
    if head.startswith(b"PK"):
        rows = _workbook_rows(stream)
    else:
        rows = _csv_cells(stream)
    if not any(cell.strip() if isinstance(cell, str) else cell is not None for row in rows for cell in row):
        raise TransferError("The file is empty.")
    return rows


def _workbook_rows(stream: IO[bytes]) -> list[list[Cell]]:
    try:
        with zipfile.ZipFile(stream) as archive:
            names = {info.filename for info in archive.infolist()[:2000]}
            if "mimetype" in names and b"opendocument" in archive.open("mimetype").read(100):
                raise TransferError(f"This is an OpenDocument spreadsheet (.ods), which cannot be read here. {SAVE_AS}")
            if "xl/workbook.xml" not in names:
                raise TransferError(f"This is not an Excel workbook. {SAVE_AS}")
            return workbook_cells(archive)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as error:
        if isinstance(error, TransferError):
            raise
        raise TransferError(f"This file is damaged or not a spreadsheet. {SAVE_AS}") from None


def _encoding(stream: IO[bytes]) -> str:
    """How a text file is written: a byte order mark says it (Excel's "Unicode text" is UTF-16),
    else UTF-8 if every byte of it is, else the Windows code page an older Excel writes."""
    head = stream.read(64)
    stream.seek(0)
    for bom, name in BOMS:
        if head.startswith(bom):
            return name
    if len(head) >= 4 and head[1::2].count(0) * 2 > len(head) // 2 and 0 not in head[0::2]:
        return "utf-16-le"
    if len(head) >= 4 and head[0::2].count(0) * 2 > len(head) // 2 and 0 not in head[1::2]:
        return "utf-16-be"
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        while chunk := stream.read(1024 * 1024):
            decoder.decode(chunk)
        decoder.decode(b"", final=True)
        return "utf-8"
    except UnicodeDecodeError:
        return "cp1252"
    finally:
        stream.seek(0)


class _Lines:
    """A text file's lines for ``csv.reader``, each one's length capped before it is kept, and the
    characters of the row being read counted (a quoted cell may run over many lines)."""

    def __init__(self, text: IO[str]):
        self.text = text
        self.number = 0  # lines read
        self.row_chars = 0

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        line = self.text.readline(MOST_ROW_CHARS + 1)
        if not line:
            raise StopIteration
        self.number += 1
        self.row_chars += len(line)
        if self.row_chars > MOST_ROW_CHARS:
            raise TransferError(f"Row {self.number} of the file is longer than {MOST_ROW_CHARS:,} characters; "
                                "a row of a score sheet needs far fewer.")
        if "\x00" in line:
            raise TransferError(f"This is not a text file. {SAVE_AS}")
        return line


def _csv_cells(stream: IO[bytes]) -> list[list[Cell]]:
    encoding = _encoding(stream)
    # Universal newlines: Excel's "CSV (Macintosh)" ends its lines with a carriage return alone.
    text = io.TextIOWrapper(stream, encoding=encoding, errors="replace", newline=None)
    try:
        return _csv_rows(_Lines(text))
    except UnicodeError:
        raise TransferError(f"This is not a text file. {SAVE_AS}") from None
    finally:
        text.detach()  # the upload stays open for whoever owns it


def _csv_rows(lines: _Lines) -> list[list[Cell]]:
    ahead = []
    for line in lines:  # spreadsheets where the comma is the decimal mark write semicolons between cells
        ahead.append(line)
        lines.row_chars = 0
        if line.strip() or len(ahead) > MOST_ROWS:
            break
    reader = csv.reader(_chain(ahead, lines), delimiter=_delimiter(ahead[-1]) if ahead else ",")
    rows: list[list[Cell]] = []
    total = 0
    try:
        for row in reader:
            lines.row_chars = 0
            kept = [cell or None for cell in row[:MOST_COLUMNS]]
            for cell in kept:
                if cell and len(cell) > MOST_CELL_CHARS:
                    raise TransferError(f"This CSV file cannot be read: {too_long(len(rows) + 1)}")
                total += len(cell or "")
            if total > MOST_TEXT:
                raise TransferError(f"The file holds more than {MOST_TEXT:,} characters; split it into smaller files.")
            rows.append(kept)
            if len(rows) > MOST_ROWS:
                raise TransferError(too_many_rows())
    except csv.Error as error:  # a cell of more than 131,072 characters, among others
        raise TransferError(f"This CSV file cannot be read ({error}). {SAVE_AS}") from None
    return rows


def _delimiter(header: str) -> str:
    """The character between cells: the one of semicolon, comma and tab the first line holds
    most often. ``csv.Sniffer`` does less here: given that line it picks the comma whenever a
    comma is in it (its preferred order), so "Date;Player;Round 2: a set, a run" would be split
    at the comma, and it raises when the line holds none of them; given more lines it would read
    further into an upload before its bounds are checked."""
    return max(";,\t", key=header.count)


def _chain(ahead: list[str], rest: _Lines) -> Iterator[str]:
    yield from ahead
    yield from rest


def template_header(variant: rules.Variant) -> list[str]:
    """The columns of a sheet for ``variant``: date, player, a column per round with its contract, notes."""
    return ["Date", "Player", *(f"Round {r.number}: {_printable(r.contract)}" for r in variant.rounds), "Notes"]


def _printable(text: str) -> str:
    """Without control characters, which a workbook cannot hold (house rules may have them)."""
    return "".join(c for c in text if c >= " " or c == "\t")


def template_csv(variant: rules.Variant) -> bytes:
    """A blank sheet for ``variant`` as CSV, with a byte order mark so Excel reads it as UTF-8."""
    out = io.StringIO()
    csv.writer(out).writerow([safe_cell(title) for title in template_header(variant)])
    return ("\ufeff" + out.getvalue()).encode()


def template_xlsx(variant: rules.Variant) -> bytes:
    """A blank workbook for ``variant``: the header row, and a second sheet saying how to fill it in."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    book = Workbook()
    sheet = book.active
    sheet.title = "Games"
    _append_text(sheet, template_header(variant))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "C2"
    sheet.column_dimensions["A"].width = 12
    sheet.column_dimensions["B"].width = 14
    help_sheet = book.create_sheet("How to fill it in")
    for line in how_to_fill(variant):
        _append_text(help_sheet, [line])
    help_sheet.column_dimensions["A"].width = 100
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _append_text(sheet, texts: list[str]) -> None:
    """A row of text cells. openpyxl writes a text starting with ``=`` as a formula, which a house
    rules' name could make run when the file is opened (rules files travel between families): every
    cell is written as text, and one that starts like a formula (= + - @) is quoted with a ' too."""
    sheet.append([safe_cell(text) for text in texts])
    for cell in sheet[sheet.max_row]:
        cell.data_type = "s"


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
