"""Numbers as people type them (the paper grid) or write them (a spreadsheet of past games), read
by one reader; and negative numbers shown with one minus sign, on pages, PDFs and messages."""

from __future__ import annotations

import pytest

from scorekeeper.games.paper import parse_score
from scorekeeper.rules.figures import minus
from scorekeeper.rules.typed import FRACTION, NOT_A_NUMBER, TOO_BIG, read_whole


@pytest.mark.parametrize(("text", "number"), [
    ("25", 25), ("007", 7), (" 1 0 ", 10), ("+10", 10), ("-50", -50), ("\u221225", -25), ("\u2013 5", -5),
    ("5.0", 5), ("5,00", 5), ("-5.0", -5), ("999999999", 999_999_999), ("0000000000001", 1),
])
def test_whole_numbers_are_read_with_any_sign_and_a_zero_fraction(text, number):
    assert read_whole(text) == (number, "")


@pytest.mark.parametrize(("text", "why"), [
    ("", ""), ("  ", ""),
    ("1000000000", TOO_BIG), ("9" * 5000, TOO_BIG),
    ("1.5", FRACTION), ("1,5", FRACTION), ("5.", FRACTION), ("1,000", FRACTION), ("5.000", FRACTION),
    ("--5", NOT_A_NUMBER), ("\u00b2", NOT_A_NUMBER), ("\u0665", NOT_A_NUMBER), ("1e3", NOT_A_NUMBER),
    ("0x10", NOT_A_NUMBER), ("abc", NOT_A_NUMBER), ("5-", NOT_A_NUMBER),
])
def test_what_is_not_a_whole_number_says_which_way(text, why):
    assert read_whole(text) == (None, why)


def test_the_paper_grid_and_the_sheet_import_agree_on_a_zero_fraction():
    # A spreadsheet's 5.0 is 5 points in a sheet import; typed on the grid it is 5 points too.
    assert parse_score("5.0") == (5, "")
    assert parse_score("5.5") == (None, "write whole points: 5.5 is not a whole number")


@pytest.mark.parametrize(("number", "shown"), [
    (-25, "\u221225"), (0, "0"), (40, "40"), ("-131.3", "\u2212131.3"),
    (-(10**20), "\u2212100000000…"), (10**13, "100000000…"),
])
def test_a_negative_number_is_shown_with_a_real_minus_sign(number, shown):
    assert minus(number) == shown
