"""An .xlsx workbook's first sheet read as rows of cells, with every limit applied before or while
unpacking: the zip directory is checked first (how many members, how large each one unpacks), then
the sheet's XML is parsed as it streams out of the archive, its rows, columns, cells and characters
counted as they come. A workbook that would unpack to more than a family's sheet of games is
refused with the limit it passed, long before it costs memory.

Only what the import needs is read: the first sheet, its shared strings, the number formats that
make a number a date, and whether the workbook counts days from 1904. Entities are refused.
"""

from __future__ import annotations

import math
import re
import zipfile
from collections.abc import Callable
from datetime import date, datetime
from pyexpat import ExpatError, ParserCreate

from .checks import TransferError
from .limits import (
    MOST_CELL_CHARS,
    MOST_COLUMNS,
    MOST_ROWS,
    MOST_SHARED_STRINGS,
    MOST_TEXT,
    SAVE_AS,
    too_long,
    too_many_rows,
)

Cell = str | int | float | date | None
MOST_MEMBERS = 1_000  # files in the archive: a workbook has a dozen or two
MOST_SHEET_BYTES = 48 * 1024 * 1024  # the first sheet's XML, unpacked: 60,000 rows of a dozen cells is about 25 MB
MOST_PART_BYTES = 16 * 1024 * 1024  # shared strings, styles, the workbook and its relations, each
MOST_ELEMENTS = 2_500_000  # XML elements of the sheet, empty and unread cells included
MOST_SHEET_COLUMNS = 16_384  # Excel's own: a cell beyond is damage
CHUNK = 64 * 1024
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?")
CELL_REF = re.compile(r"([A-Z]{1,3})(\d{1,7})")
DATE_FORMATS = {14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47}  # Excel's built-in date and time formats
MAIN = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def unreadable(why: str) -> TransferError:
    return TransferError(f"This workbook cannot be read ({why}). {SAVE_AS}")


def workbook_cells(archive: zipfile.ZipFile) -> list[list[Cell]]:
    """The first sheet's rows. The archive's directory is checked before any member is unpacked."""
    members = archive.infolist()
    if len(members) > MOST_MEMBERS:
        raise unreadable(f"it holds {len(members):,} files; a workbook has a few dozen at most")
    sizes = {m.filename: m.file_size for m in members}
    sheet = _first_sheet(archive, sizes)
    if sheet not in sizes:
        raise unreadable("its first sheet is missing")
    if sizes[sheet] > MOST_SHEET_BYTES:
        raise TransferError(f"The workbook's sheet unpacks to {sizes[sheet] / 2**20:,.0f} MB, more than "
                            f"{MOST_SHEET_BYTES // 2**20} MB (about {MOST_ROWS:,} rows); split it into smaller files.")
    shared = _shared_strings(archive, sizes) if "xl/sharedStrings.xml" in sizes else []
    dates, epoch = _date_styles(archive, sizes)
    reader = _SheetReader(shared, dates, epoch)
    _parse(archive, sheet, MOST_SHEET_BYTES, reader.start, reader.end, reader.text)
    return reader.finish()


def _local(name: str) -> str:
    return name.rsplit(" ", 1)[-1]


def _parse(archive: zipfile.ZipFile, name: str, most: int, start: Callable, end: Callable | None = None,
           text: Callable | None = None) -> None:
    """Stream the member ``name`` through expat, at most ``most`` bytes, refusing entities."""
    parser = ParserCreate(namespace_separator=" ")
    parser.buffer_text = True
    parser.StartElementHandler = start
    if end:
        parser.EndElementHandler = end
    if text:
        parser.CharacterDataHandler = text

    def refuse(*_):
        raise unreadable("it declares entities, which a workbook never needs")

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    read = 0
    try:
        with archive.open(name) as member:
            while chunk := member.read(CHUNK):
                read += len(chunk)
                if read > most:
                    raise unreadable(f"{name} unpacks to more than its directory says")
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
    except ExpatError as error:
        raise unreadable(f"{name}: {error}") from None
    except (zipfile.BadZipFile, EOFError, OSError, NotImplementedError, RuntimeError) as error:
        raise unreadable(str(error) or type(error).__name__) from None


def _part(archive, sizes, name: str, start: Callable, end=None, text=None) -> None:
    if sizes.get(name, 0) > MOST_PART_BYTES:
        raise unreadable(f"{name} unpacks to more than {MOST_PART_BYTES // 2**20} MB")
    if name in sizes:
        _parse(archive, name, MOST_PART_BYTES, start, end, text)


def _first_sheet(archive, sizes) -> str:
    """The member holding the workbook's first sheet (``xl/worksheets/sheet1.xml`` as Excel names it)."""
    first: list[str] = []
    targets: dict[str, str] = {}

    def sheet(name, attrs):
        if _local(name) == "sheet" and not first:
            first.append(next((v for k, v in attrs.items() if _local(k) == "id" and k.startswith(MAIN)), ""))

    def relation(name, attrs):
        if _local(name) == "Relationship" and len(targets) < MOST_MEMBERS:
            targets[attrs.get("Id", "")] = attrs.get("Target", "")

    _part(archive, sizes, "xl/workbook.xml", sheet)
    _part(archive, sizes, "xl/_rels/workbook.xml.rels", relation)
    target = targets.get(first[0], "") if first else ""
    if not target:
        return "xl/worksheets/sheet1.xml"
    return target.lstrip("/") if target.startswith("/") else "xl/" + target


def _shared_strings(archive, sizes) -> list[str]:
    strings: list[str] = []
    parts: list[str] = []
    inside = [False, False]  # in an <si>, in a <t> of it (not of a phonetic <rPh> run)
    total = [0]

    def start(name, _attrs):
        local = _local(name)
        if local == "si":
            inside[0] = True
            parts.clear()
        elif local == "t" and inside[0]:
            inside[1] = True
        elif local == "rPh":
            inside[0] = False

    def end(name):
        local = _local(name)
        if local == "t":
            inside[1] = False
        elif local == "rPh":
            inside[0] = True
        elif local == "si":
            if len(strings) >= MOST_SHARED_STRINGS:
                raise unreadable(f"it holds more than {MOST_SHARED_STRINGS:,} different texts")
            strings.append("".join(parts))
            inside[0] = False

    def text(data):
        if inside[1]:
            total[0] += len(data)
            if total[0] > MOST_TEXT:
                raise TransferError(f"The workbook holds more than {MOST_TEXT:,} characters of text; "
                                    "split it into smaller files.")
            if sum(map(len, parts)) + len(data) > MOST_CELL_CHARS:
                raise TransferError(f"The workbook holds a text of more than {MOST_CELL_CHARS:,} characters; "
                                    "a cell of a score sheet needs far fewer.")
            parts.append(data)

    _part(archive, sizes, "xl/sharedStrings.xml", start, end, text)
    return strings


def _date_styles(archive, sizes) -> tuple[list[bool], datetime]:
    """Per cell style (``s``): whether its number is a date; and the day the workbook counts from."""
    from openpyxl.styles.numbers import is_date_format  # the same test openpyxl applies
    from openpyxl.utils.datetime import CALENDAR_MAC_1904, CALENDAR_WINDOWS_1900

    formats: dict[int, str] = {}
    styles: list[bool] = []
    where = [""]
    epoch = [CALENDAR_WINDOWS_1900]

    def start(name, attrs):
        local = _local(name)
        if local == "numFmt" and len(formats) < MOST_MEMBERS:
            formats[_int(attrs.get("numFmtId"))] = attrs.get("formatCode", "")
        elif local in ("cellXfs", "cellStyleXfs"):
            where[0] = local
        elif local == "xf" and where[0] == "cellXfs" and len(styles) < 65_536:
            number = _int(attrs.get("numFmtId"))
            styles.append(number in DATE_FORMATS or (number in formats and is_date_format(formats[number])))

    def end(name):
        if _local(name) in ("cellXfs", "cellStyleXfs"):
            where[0] = ""

    def workbook(name, attrs):
        if _local(name) == "workbookPr" and attrs.get("date1904", "").lower() in ("1", "true"):
            epoch[0] = CALENDAR_MAC_1904

    _part(archive, sizes, "xl/styles.xml", start, end)
    _part(archive, sizes, "xl/workbook.xml", workbook)
    return styles, epoch[0]


def _int(text) -> int:
    return int(text) if isinstance(text, str) and text.isdigit() and len(text) < 10 else -1


def _column(letters: str) -> int:
    index = 0
    for c in letters:
        index = index * 26 + ord(c) - 64
    return index - 1


class _SheetReader:
    """Expat's handlers for a sheet: each cell's value, kept when it is within the columns read."""

    def __init__(self, shared: list[str], dates: list[bool], epoch: datetime):
        self.shared, self.dates, self.epoch = shared, dates, epoch
        self.rows: list[list[Cell]] = []
        self.row: list[Cell] = []
        self.row_number = 0
        self.column = -1
        self.kind = self.style = ""
        self.value: list[str] = []
        self.reading = False
        self.elements = 0
        self.text_total = 0

    def start(self, name, attrs):
        self.elements += 1
        if self.elements > MOST_ELEMENTS:
            raise TransferError(f"The workbook's sheet holds more than {MOST_ELEMENTS:,} cells and rows; "
                                "split it into smaller files.")
        local = _local(name)
        if local == "c":
            self._cell(attrs)
        elif local in ("v", "t") and self.column >= 0:
            self.reading = True
        elif local == "row":
            number = _int(attrs.get("r")) if "r" in attrs else self.row_number + 1
            if number <= self.row_number:
                raise unreadable(f"its rows are out of order at row {number}")
            self.row_number, self.row, self.column = number, [], -1

    def _cell(self, attrs):
        ref = attrs.get("r")
        if ref is not None:
            match = CELL_REF.fullmatch(ref)
            if not match or int(match.group(2)) != self.row_number:
                raise unreadable(f"a cell's place '{ref[:12]}' is not in row {self.row_number}")
            column = _column(match.group(1))
        else:
            column = self.column + 1
        if column >= MOST_SHEET_COLUMNS:
            raise TransferError(f"Row {self.row_number} of the workbook has more than {MOST_SHEET_COLUMNS:,} cells, "
                                "more than Excel itself allows; a score sheet needs a few dozen.")
        if column <= self.column:
            raise unreadable(f"row {self.row_number} has cells out of place")
        self.column = column
        self.kind, self.style = attrs.get("t", "n"), attrs.get("s", "")
        self.value = []

    def text(self, data):
        if self.reading:
            if sum(map(len, self.value)) + len(data) > MOST_CELL_CHARS:
                raise TransferError(too_long(self.row_number))
            self.value.append(data)

    def end(self, name):
        local = _local(name)
        if local in ("v", "t"):
            self.reading = False
        elif local == "c":
            if self.column < MOST_COLUMNS and self.value:
                self._keep(self._value("".join(self.value)))
            self.value = []
        elif local == "row" and self.row:
            self._row_done()

    def _keep(self, value: Cell) -> None:
        if value is None or value == "":
            return
        if isinstance(value, str):
            self.text_total += len(value)
            if self.text_total > MOST_TEXT:
                raise TransferError(f"The workbook holds more than {MOST_TEXT:,} characters of text; "
                                    "split it into smaller files.")
        self.row.extend([None] * (self.column - len(self.row)))
        self.row.append(value)

    def _row_done(self):
        if self.row_number > MOST_ROWS:
            raise TransferError(too_many_rows())
        while len(self.rows) < self.row_number - 1:
            self.rows.append([])
        self.rows.append(self.row)

    def _value(self, raw: str) -> Cell:
        kind = self.kind
        if kind == "s":
            index = _int(raw.strip())
            if not 0 <= index < len(self.shared):
                raise unreadable(f"row {self.row_number} points at a text the workbook does not hold")
            return self.shared[index]
        if kind in ("str", "inlineStr", "e"):
            return raw
        if kind == "b":
            return "True" if raw.strip() in ("1", "true") else "False"
        if kind == "d":
            try:
                return datetime.fromisoformat(raw.strip()).date()
            except ValueError:
                raise unreadable(f"row {self.row_number} has a date cell '{raw[:20]}'") from None
        return self._number(raw.strip())

    def _number(self, raw: str) -> Cell:
        if not NUMBER.fullmatch(raw) or len(raw) > 40:
            raise unreadable(f"row {self.row_number} has '{raw[:20]}' in a number cell")
        value: int | float = int(raw) if raw.lstrip("+-").isdigit() else float(raw)
        if isinstance(value, float) and not math.isfinite(value):
            raise unreadable(f"row {self.row_number} has '{raw[:20]}' in a number cell")
        style = _int(self.style) if self.style else 0
        if 0 <= style < len(self.dates) and self.dates[style]:
            return self._date(value)
        return value

    def _date(self, value: float) -> Cell:
        from openpyxl.utils.datetime import from_excel

        if not 0 <= value < 2_958_466:  # 31 Dec 9999
            return str(value)
        moment = from_excel(value, self.epoch)
        return moment.date() if isinstance(moment, datetime) else str(moment)

    def finish(self) -> list[list[Cell]]:
        return self.rows
