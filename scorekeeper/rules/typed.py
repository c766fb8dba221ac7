"""Whole numbers as people write them: in a cell of the paper grid on the phone, or in a cell of a
spreadsheet of past games. One reader, so both take the same things."""

from __future__ import annotations

import re

# A hyphen, the minus sign (U+2212) and the dash a phone's autocorrect makes of a hyphen.
MINUS_SIGNS = "-\u2212\u2013"
MOST_DIGITS = 9  # of any number read as a score or a total: 999,999,999 is beyond every hand
_WHOLE = re.compile(r"([0-9]+)(?:[.,]0{1,2})?")
_FRACTION = re.compile(r"[0-9]*[.,][0-9]+|[0-9]+[.,]")

# Why a text is not read (the callers word it for their page).
TOO_BIG = "too big"
FRACTION = "fraction"
NOT_A_NUMBER = "not a number"


def is_number(text: str) -> bool:
    """Plain ASCII digits only (``"²".isdigit()`` is true but ``int("²")`` fails), and few enough
    that ``int`` takes them (it refuses over 4300)."""
    return text.isascii() and text.isdigit() and len(text) <= 18


def read_whole(text: str) -> tuple[int | None, str]:
    """The whole number in ``text``: ``(number, "")``; ``(None, "")`` when it is blank; ``(None, why)``
    otherwise, ``why`` being ``TOO_BIG``, ``FRACTION`` or ``NOT_A_NUMBER``.

    Accepted: ASCII digits (``25``, ``007``), with white space anywhere (`` 1 0 `` is 10); one sign
    before them: ``+``, a hyphen, the minus sign ``−`` or the dash ``–``; and a fraction of zeros
    written by a spreadsheet or copied from one, one or two of them after a point or a comma
    (``5.0``, ``5,00``: 5). Refused: more than ``MOST_DIGITS`` digits (leading zeros not counted)
    as ``TOO_BIG``; any other fraction (``1.5``, ``1,5``, ``5.``, and ``1,000``, which reads both
    ways) as ``FRACTION``; everything else (``--5``, ``²``, ``1e3``, ``0x10``, ``abc``) as
    ``NOT_A_NUMBER``.
    """
    raw = "".join(text.split())
    if not raw:
        return None, ""
    sign, body = (-1, raw[1:]) if raw[0] in MINUS_SIGNS else (1, raw[1:] if raw[0] == "+" else raw)
    if whole := _WHOLE.fullmatch(body):
        digits = whole[1]
        # Counted before ``int`` reads them: ``int`` of thousands of digits costs time, and refuses over 4,300.
        if len(digits.lstrip("0")) > MOST_DIGITS:
            return None, TOO_BIG
        return sign * int(digits), ""
    if _FRACTION.fullmatch(body):
        return None, FRACTION
    return None, NOT_A_NUMBER
