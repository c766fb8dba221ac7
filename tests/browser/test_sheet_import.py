"""Importing old score sheets on a phone (Debian Chromium at 390×844): from the History page,
choose a workbook, read the preview's problems and questions, answer, name a player, import."""

from __future__ import annotations

import io
from datetime import datetime

import pytest
from openpyxl import Workbook
from playwright import sync_api

from tests.browser.conftest import shot, sign_up

pytestmark = pytest.mark.browser

expect = sync_api.expect
HEADER = ["Date", "Player", *(f"Round {n}" for n in range(1, 8)), "Notes"]


def workbook(path, fix: bool) -> None:
    """Two games of the family rules; unless ``fix``, Cy's round 7 holds a 7, which no hand makes."""
    book = Workbook()
    sheet = book.active
    sheet.append(HEADER)
    sheet.append([datetime(2019, 3, 2), "Gran", 0, 15, 20, 0, 5, 10, 0, None])
    sheet.append([datetime(2019, 3, 2), "Bob", 10, 0, 25, 15, 0, 5, 15, None])
    sheet.append([datetime(2019, 3, 2), "Cy", 5, 10, 0, 30, 20, 0, 50 if fix else 7, None])
    # The second game: Gran's round 1 left blank, nobody has 0, so the sheet asks who went out.
    sheet.append([datetime(2019, 3, 9), "Gran", None, 25, 0, 40, 15, 35, 0, "birthday"])
    sheet.append([datetime(2019, 3, 9), "Bob", 10, 30, 5, 10, 0, 40, 10, "birthday"])
    sheet.append([datetime(2019, 3, 9), "Cy", 5, 0, 10, 0, 25, 0, 20, "birthday"])
    out = io.BytesIO()
    book.save(out)
    path.write_bytes(out.getvalue())


def test_a_sheet_is_checked_answered_and_imported_on_a_phone(page, tmp_path):
    sign_up(page)
    page.goto(page.base_url + "/history")
    page.get_by_role("link", name="Kept score on paper before? Import old score sheets").click()
    expect(page.get_by_role("heading", name="Import old score sheets")).to_be_visible()
    sheet = tmp_path / "old games.xlsx"
    workbook(sheet, fix=False)
    page.get_by_label("Spreadsheet (.xlsx or .csv)").set_input_files(str(sheet))
    page.get_by_role("button", name="Check the sheet ›").click()

    problems = page.locator(".problem-list li")
    expect(problems).to_have_count(1)
    expect(problems.first).to_contain_text("Row 4, column I (Round 7): Cy: 7 is not a score")
    expect(page.get_by_role("button", name="Import 2 games")).to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "sheet-import-problems")

    workbook(sheet, fix=True)  # corrected in the spreadsheet, chosen again
    page.get_by_role("link", name="Choose another file").click()
    page.get_by_label("Spreadsheet (.xlsx or .csv)").set_input_files(str(sheet))
    page.get_by_role("button", name="Check the sheet ›").click()
    expect(page.locator(".problem-list")).to_have_count(0)
    question = page.get_by_label("Row 5: the game of 09 Mar 2019, round 1")
    expect(question).to_be_visible()
    expect(page.locator(".sheet-players")).to_contain_text("Gran")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    question.select_option("Bob")  # a wrong answer: Bob wrote 10
    page.get_by_role("button", name="Check again").click()
    expect(page.locator(".problem-list li")).to_contain_text(["Bob: went out, so scores 0, not 10"])
    page.get_by_label("Row 5: the game of 09 Mar 2019, round 1").select_option("Gran")
    shot(page, "sheet-import-question")
    page.get_by_role("button", name="Check again").click()
    expect(page.locator(".problem-list")).to_have_count(0)
    page.get_by_role("button", name="Import 2 games").click()

    expect(page.get_by_text("Imported 2 games from the sheet; 0 were already here.")).to_be_visible()
    expect(page.locator(".history-row")).to_have_count(2)
    expect(page.locator(".history-row").first).to_contain_text("Sat 09 Mar 2019")
    expect(page.locator(".history-row").first).to_contain_text("Won by Cy with 60")
    expect(page.locator(".history-row").nth(1)).to_contain_text("Won by Gran with 50")
