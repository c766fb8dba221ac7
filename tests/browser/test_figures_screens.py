"""The figures' screens on small phones, light and dark (360×740 and 390×844): a paper sheet of
running totals typed as it is (the grid's totals follow it, two going-out scores marked on their
cells), then the finished game's places with each rating after it, in order of place."""

from __future__ import annotations

import pytest
from playwright import sync_api

from tests.browser.conftest import phone, shot, sign_up
from tests.browser.test_paper_grid import box, new_paper_game, no_sideways_scroll

pytestmark = pytest.mark.browser

expect = sync_api.expect
SCREENS = [(360, 740, "light"), (360, 740, "dark"), (390, 844, "light"), (390, 844, "dark")]
# family-7: each round's points, Ann out in odd rounds, Bob in even ones; Sam never out.
POINTS = {n: ({"Ann": 0, "Bob": 10, "Sam": 25} if n % 2 else {"Ann": 15, "Bob": 0, "Sam": 5}) for n in range(1, 8)}
# As the sheet keeps them, running: Ann 0 15 15 30 30 45 45 · Bob 10 10 20 20 30 30 40 · Sam 25 30 55 60 85 90 115


@pytest.mark.parametrize("width, height, scheme", SCREENS, ids=[f"{w}-{s}" for w, _, s in SCREENS])
def test_running_totals_on_the_paper_grid_then_the_places_in_order(live_server, browser, width, height, scheme):
    page = phone(browser, width, height, color_scheme=scheme).new_page()
    page.base_url, page.app = live_server.base_url, live_server
    sign_up(page)
    new_paper_game(page, ["Sam", "Ann", "Bob"], "2024-03-09")
    page.get_by_role("button", name="Type scores from paper").click()
    page.get_by_label("running totals").check()
    totals = {"Ann": 0, "Bob": 0, "Sam": 0}
    for number, points in POINTS.items():
        for name, value in points.items():
            totals[name] += value
            box(page, number, name).fill(str(totals[name]))
    expect(page.locator("tfoot [data-total]")).to_have_text(["115", "45", "40"])  # the last row, as written
    box(page, 5, "Bob").fill("20")  # miswritten: Bob and Ann both keep their total in round 5
    page.get_by_role("button", name="Save all rounds").click()
    cells = page.locator("#round-5 td.has-error input[type=text]")
    expect(cells).to_have_count(2)
    expect(page.locator("#round-5-note")).to_contain_text("Ann and Bob each have a going-out score (0)")
    red = cells.first.evaluate("el => getComputedStyle(el).borderTopColor")
    assert red == page.locator("#round-5-note").evaluate("el => getComputedStyle(el).color"), red
    no_sideways_scroll(page)
    cells.first.scroll_into_view_if_needed()
    shot(page, f"paper-running-totals-{width}-{scheme}")
    box(page, 5, "Bob").fill("30")
    page.get_by_role("button", name="Save all rounds").click()

    expect(page.get_by_role("heading", name="Standings")).to_be_visible()
    places = page.locator("ol.places li")
    expect(places.locator(".place")).to_have_text(["1st", "2nd", "3rd"])
    expect(places.locator(".who")).to_have_text(["Bob", "Ann", "Sam"])
    expect(places.locator(".total")).to_have_text(["40", "45", "115"])
    expect(places.locator(".rating")).to_contain_text(["1 game: settling"] * 3)
    expect(page.locator(".stuck-most")).to_contain_text("Not recorded")
    no_sideways_scroll(page)
    page.locator("ol.places").scroll_into_view_if_needed()
    shot(page, f"places-{width}-{scheme}")
