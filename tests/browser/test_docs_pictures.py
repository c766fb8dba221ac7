"""The pictures in the docs, made from the app as it is: the README's round screen. Each test writes
its picture into docs/pictures/ (commit it when the screen it shows has changed) and checks the page
first, so a picture is never of a broken screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright import sync_api

from tests.actions import GameActions
from tests.browser.conftest import phone, row, sign_up
from tests.browser.test_card_entry import game_of
from tests.databases import strict_client

pytestmark = pytest.mark.browser

PICTURES = Path(__file__).resolve().parents[2] / "docs" / "pictures"


def test_the_readmes_round_screen(live_server, browser):
    page = phone(browser, 390, 844).new_page()
    page.base_url, page.app = live_server.base_url, live_server
    sign_up(page)
    names = ["Grandma", "Dad", "Lee", "Sam"]
    game_id = game_of(page, names)  # shanghai-10, Grandma deals first
    live_server.config["WTF_CSRF_ENABLED"] = False
    try:
        actions = GameActions(strict_client(live_server, "ann"), live_server)
        ids = actions.player_ids(game_id)
        actions.record(ids, game_id, 1, "Lee", {"Grandma": "K 7", "Dad": "A Q 5", "Sam": "9 9"}, laid_down=names)
        actions.record(ids, game_id, 2, "Grandma", {"Dad": "JK 8", "Lee": "3 4", "Sam": "K K Q"},
                       laid_down=["Grandma", "Lee"])
    finally:
        live_server.config["WTF_CSRF_ENABLED"] = True
    page.goto(page.base_url + f"/games/{game_id}")
    row(page, "Sam").get_by_role("button", name="Buy for Sam").click()
    row(page, "Lee").get_by_role("button", name="Lee has not laid down (tap when they do)").click()
    expect = sync_api.expect
    expect(page.locator("h1.contract")).to_have_text("Two sequences of 4")
    expect(page.locator(".dealer-line")).to_contain_text("Dealer Lee · Sam plays first")
    expect(page.locator(".player-row .total")).to_have_text(["15 pts", "50 pts", "10 pts", "40 pts"])
    expect(row(page, "Sam").locator(".buy-count")).to_have_text("1/3")
    page.evaluate("window.scrollTo(0, 0)")
    PICTURES.mkdir(exist_ok=True)
    page.screenshot(path=str(PICTURES / "round-screen.png"))
