"""Eight players' standings on a 360 px phone: every name and total on screen, no sideways scroll."""

from __future__ import annotations

import pytest
from playwright import sync_api

from tests.actions import GameActions
from tests.browser.conftest import phone, shot, sign_up
from tests.browser.test_card_entry import game_of
from tests.databases import strict_client

pytestmark = pytest.mark.browser

NAMES = ["Annabel", "Annette", "Bartholomew", "Cy", "Dimitri", "Ed", "Florence", "Gus"]


def test_eight_players_standings_fit_360_px_with_every_name_and_total(live_server, browser):
    page = phone(browser, 360, 740).new_page()
    page.base_url, page.app = live_server.base_url, live_server
    sign_up(page)
    game_id = game_of(page, NAMES)
    live_server.config["WTF_CSRF_ENABLED"] = False
    try:
        actions = GameActions(strict_client(live_server, "ann"), live_server)
        ids = actions.player_ids(game_id)
        for number in (1, 2, 3):
            actions.record(ids, game_id, number, NAMES[number], {n: "K 5 7" for n in NAMES if n != NAMES[number]})
    finally:
        live_server.config["WTF_CSRF_ENABLED"] = True
    page.goto(page.base_url + f"/games/{game_id}/standings")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    table = page.locator("table.standings")
    sideways = page.locator(".table-wrap").evaluate("w => w.scrollWidth - w.clientWidth")
    assert sideways <= 0, f"the table scrolls {sideways} px sideways"
    heads = table.locator("thead th")
    # Names are cut where eight would not fit; two alike stay apart; the full name is the title.
    expect = sync_api.expect
    expect(heads).to_have_text(["Rd", "Anna", "Anne", "Bar", "Cy", "Dim", "Ed", "Flo", "Gus"])
    expect(heads.nth(3).locator("abbr")).to_have_attribute("title", "Bartholomew")
    expect(table.locator("tfoot td.num")).to_have_text(["60", "40", "40", "40", "60", "60", "60", "60"])
    expect(table.locator("tfoot td.win")).to_have_count(8)  # each player's chance to win, under the total
    for cell in [*heads.all(), *table.locator("tfoot td").all()]:
        box = cell.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360, cell.text_content()
    shot(page, "standings-8-players-360")
