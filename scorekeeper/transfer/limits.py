"""The most a spreadsheet of past games may hold, checked while it is read (``sheets``,
``workbook``), so that no upload costs more than a bounded amount of memory and time. Each is far
beyond a family's paper past; a file past one is refused with the limit it passed."""

from __future__ import annotations

MOST_ROWS = 60_000  # about 15,000 games of four: more than any family's paper past
MOST_COLUMNS = 40  # date, player, notes, a total and up to 36 rounds; columns beyond are not read
MOST_CELL_CHARS = 1_000  # a name, a date, a score or a note
MOST_TEXT = 8_000_000  # characters of all the cells read together
MOST_ROW_CHARS = 64 * 1024  # one line of a CSV file, before it is split into cells
MOST_SHARED_STRINGS = 250_000  # different texts of a workbook
SAVE_AS = "Save it as .xlsx (Excel workbook) or .csv and choose that file."


def too_many_rows() -> str:
    return f"The sheet has more than {MOST_ROWS:,} rows; split it into smaller files."


def too_long(row: int) -> str:
    return (f"Row {row} has a cell of more than {MOST_CELL_CHARS:,} characters; "
            "a cell of a score sheet needs far fewer.")
