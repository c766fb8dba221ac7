"""A past game typed in from a paper score sheet on a phone (Debian Chromium at 390×844): dated on
the seating page, every round on one grid, a bad box shown where it is, then the finished standings."""

from __future__ import annotations

import re

import pytest
from playwright import sync_api

from tests.browser.conftest import phone, shot, sign_up
from tests.browser.test_a11y import SCAN, _axe_file

pytestmark = pytest.mark.browser

expect = sync_api.expect
EIGHT = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def new_paper_game(page, names: list[str], day: str) -> None:
    """Rules and players, then the seating page: the day it was played, "Type scores from paper"."""
    page.get_by_role("link", name="+ New game").click()
    page.get_by_label("Shanghai Rummy (family rules, 7 hands)").check()
    page.locator("#new_players").fill(", ".join(names))
    page.get_by_role("button", name="Next: seating").click()
    date = page.get_by_label("Played on")
    expect(date).to_have_attribute("type", "date")
    date.fill(day)


def box(page, number: int, name: str):
    return page.get_by_label(f"Round {number}, {name}", exact=True)


def no_sideways_scroll(page) -> None:
    width = page.evaluate("innerWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def test_a_paper_sheet_typed_in_with_a_tap_and_a_correction_lands_on_the_finished_standings(page):
    sign_up(page)
    new_paper_game(page, ["Ann", "Bob", "Cy", "Di"], "2024-03-09")
    shot(page, "paper-seating-date")
    page.get_by_role("button", name="Type scores from paper").click()
    expect(page.get_by_role("heading", name="Scores from paper")).to_be_visible()
    expect(page.locator("main")).to_contain_text("played Sat 09 Mar 2024")
    no_sideways_scroll(page)

    # Ann goes out in every round but round 2, where Bob's "out" is tapped and his box left empty.
    for number in range(1, 8):
        for name, typed in {"Ann": "0", "Bob": "10", "Cy": "25", "Di": "5"}.items():
            box(page, number, name).fill(typed)
    box(page, 2, "Ann").fill("15")
    box(page, 2, "Bob").fill("")
    page.get_by_label("Bob went out in round 2").check(force=True)  # the radio sits under its "out" chip
    box(page, 4, "Cy").fill("7")  # misread: no cards make 7 here
    expect(page.locator("tfoot [data-total]")).to_have_text(["15", "60", "157", "35"])
    page.get_by_role("button", name="Save all rounds").click()

    problem = page.locator("#round-4 .row-problems")
    expect(problem).to_contain_text("Cy: 7 is not a score cards left in a hand can make: every card")
    expect(page.locator("#paper-problems")).to_contain_text("Round 4, Cy")
    expect(box(page, 4, "Cy")).to_have_value("7")
    expect(box(page, 4, "Cy")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Bob went out in round 2")).to_be_checked()
    no_sideways_scroll(page)
    shot(page, "paper-grid-error-4")

    box(page, 4, "Cy").fill("20.0")  # as a spreadsheet writes 20: the grid and the server read 20
    expect(page.locator("tfoot [data-total]")).to_have_text(["15", "60", "170", "35"])
    page.get_by_role("button", name="Save all rounds").click()
    expect(page).to_have_url(re.compile(r"/games/\d+/standings$"))
    expect(page.locator(".flash")).to_contain_text("Rounds 1–7 saved from the paper sheet: the game is over.")
    expect(page.locator(".result")).to_contain_text("Ann wins")
    # Ann 0×6 + 15 = 15 · Bob 10×6 + 0 = 60 · Cy 25×6 + 20 = 170 · Di 5×7 = 35
    expect(page.locator(".standings tfoot tr").first.locator("td")).to_have_text(["15", "60", "170", "35"])
    shot(page, "paper-standings")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_eight_players_grid_fits_a_360_px_phone_with_its_errors(live_server, browser, scheme):
    page = phone(browser, 360, 740, color_scheme=scheme, bypass_csp=True).new_page()  # CSP: for axe-core
    page.base_url, page.app = live_server.base_url, live_server
    sign_up(page)
    new_paper_game(page, EIGHT, "2023-12-24")
    page.get_by_role("button", name="Type scores from paper").click()
    box(page, 1, "Ann").fill("0")
    box(page, 1, "Bob").fill("−25")
    box(page, 1, "Cy").fill("abc")
    page.get_by_role("button", name="Save all rounds").click()
    expect(page.locator("#round-1 .row-problems")).to_contain_text("Bob: −25 is not a score")
    expect(page.locator("#round-2 .row-problems")).to_contain_text("No scores written")
    no_sideways_scroll(page)
    # Every box is wide enough to show a score and tall enough for a finger.
    sizes = page.locator("[data-cell], .out-tap span").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })")
    assert min(w for w, _ in sizes) >= 36 and min(h for _, h in sizes) >= 44, sizes
    page.add_script_tag(path=str(_axe_file()))
    assert page.evaluate(SCAN) == []  # no serious or critical problem for a screen reader or in contrast
    shot(page, f"paper-grid-error-8-{scheme}")
