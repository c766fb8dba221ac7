"""Figures as a family reads them: averages and shares rounded half up, as score tables round
(131.25 is 131.3, not the 131.2 of a computer's round-half-to-even)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

MINUS = "\u2212"


def counted(n: int, word: str) -> str:
    """``1 buy``, ``3 buys``: a count with its word, plural but for one."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _exact(value: float) -> Decimal:
    # The shortest decimal that reads back as the float: 525 / 4 is 131.25, 29 / 200 is 0.145.
    return Decimal(repr(float(value)))


def half_up(value: float, places: int = 1) -> str:
    """``value`` with ``places`` decimals, halves rounded up (away from zero), with a real minus sign."""
    rounded = _exact(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return minus(rounded)


def minus(number: int | float | str) -> str:
    """A number as shown: a real minus sign for a negative one (``−25``; a hyphen reads as a dash),
    and one of more than 12 digits (pasted by mistake) cut to 9 and ``…``."""
    text = str(number)
    digits = text.removeprefix("-")
    digits = digits if len(digits) <= 12 else digits[:9] + "…"
    return MINUS + digits if text.startswith("-") else digits


def change(number: int) -> str:
    """A change as shown: ``+12``, ``−3``, and ``±0`` for none."""
    return "±0" if number == 0 else ("+" if number > 0 else "") + minus(number)


def percent(share: float) -> str:
    """A share (0.125) as whole percent, halves up: ``"13"``."""
    return half_up(_exact(share) * 100, 0)
