"""Dates as families write them in a spreadsheet: date cells, ISO (2024-05-01), the dotted
European 1.5.2024, written-out months (1 May 2024, May 1, 2024), and slashes (1/5/2024),
whose order (day or month first) the whole column settles."""

from __future__ import annotations

import re
from datetime import date, datetime

EARLIEST = date(1900, 1, 1)
ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ].*)?")
DOTTED = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{2}|\d{4})\.?")
SLASHED = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})")
WORDED = ("%d %B %Y", "%d %b %Y", "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y", "%a %d %b %Y")
FORMATS = "2024-05-01 or 1.5.2024"
AMBIGUOUS = "day and month could be either way round"


class DateReader:
    """Reads a column's dates. Slashed dates are day first when any of them can only be read
    so (13/5/2024), month first when any can only be read that way (5/13/2024); when neither
    shows, they are refused rather than guessed."""

    def __init__(self, cells, today: date):
        self.today = today
        self.day_first: bool | None = None
        for cell in cells:
            match = SLASHED.fullmatch(str(cell).strip()) if isinstance(cell, str) else None
            if match:
                first, second = int(match.group(1)), int(match.group(2))
                if first > 12 >= second:
                    self.day_first = True
                    break
                if second > 12 >= first:
                    self.day_first = False

    def read(self, cell) -> tuple[date | None, str]:
        """``(the day, "")``, or ``(None, why not)``."""
        if isinstance(cell, datetime):
            cell = cell.date()
        if isinstance(cell, date):
            return self._in_range(cell)
        text = " ".join(str(cell).split())
        try:
            day = self._parse(text)
        except ValueError as error:
            if str(error) == AMBIGUOUS:
                return None, f"'{text}' could be day/month or month/day: write it as {FORMATS}"
            day = None
        if day is None:
            return None, f"'{text[:30]}' is not a date: write dates as {FORMATS}"
        return self._in_range(day)

    def _parse(self, text: str) -> date | None:
        if match := ISO.fullmatch(text):
            return date(*map(int, match.groups()))
        if match := DOTTED.fullmatch(text):
            day, month, year = map(int, match.groups())
            return date(self._year(year, match.group(3)), month, day)
        if match := SLASHED.fullmatch(text):
            first, second, year = map(int, match.groups())
            if self.day_first is None and first <= 12 and second <= 12 and first != second:
                raise ValueError(AMBIGUOUS)
            day, month = (first, second) if self.day_first or self.day_first is None else (second, first)
            return date(self._year(year, match.group(3)), month, day)
        for pattern in WORDED:
            try:
                return datetime.strptime(text, pattern).date()
            except ValueError:
                continue
        return None

    def _year(self, year: int, written: str) -> int:
        """A two-digit year in the past century: 98 is 1998, 24 is 2024 (0024 stays 24, and is refused)."""
        if len(written) != 2:
            return year
        century = self.today.year // 100 * 100
        return century + year if century + year <= self.today.year else century - 100 + year

    def _in_range(self, day: date) -> tuple[date | None, str]:
        if day > self.today:
            return None, f"{day:%d %b %Y} is in the future"
        if day < EARLIEST:
            return None, f"{day:%d %b %Y} is before 1900"
        return day, ""
