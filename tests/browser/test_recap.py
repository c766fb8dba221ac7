"""The game-night recap at the table (Debian Chromium at 390×844): the last hand saved on the phone
lands on the recap, and Share sends its text through the share sheet, the clipboard, or, with
neither, a selected text box to copy by hand."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from playwright import sync_api

from tests.browser.conftest import phone, shot, sign_up, tap_cards
from tests.databases import strict_client
from tests.test_history import play, set_start

pytestmark = pytest.mark.browser

expect = sync_api.expect
NAMES = ["Ann", "Bob", "Cy"]
# family-7, hand 1 skipped: 2–9 = 5 · 10 J Q K = 10 · A = 15 · Joker = 20
EARLIER = [  # a week before: Ann 10 · Bob 40 · Cy 75, Ann out 4 times, Cy stuck twice
    (2, "Ann", {"Bob": "K", "Cy": "K K"}, {"stuck": ["Cy"]}), (3, "Ann", {"Bob": "5", "Cy": "Q"}),
    (4, "Bob", {"Ann": "5", "Cy": "A"}, {"stuck": ["Cy"]}), (5, "Ann", {"Bob": "J", "Cy": "5 5"}),
    (6, "Cy", {"Ann": "5", "Bob": "5"}), (7, "Ann", {"Bob": "10", "Cy": "JK"}),
]
TONIGHT = [  # hand 7 is tapped on the phone: Ann goes out, Bob holds K, Cy 5 5, neither laid down
    (2, "Ann", {"Bob": "K", "Cy": "5"}), (3, "Bob", {"Ann": "5", "Cy": "K"}), (4, "Ann", {"Bob": "5", "Cy": "5"}),
    (5, "Ann", {"Bob": "5", "Cy": "5"}), (6, "Ann", {"Bob": "5", "Cy": "10"}),
]
# Ann 5 · Bob 10+5+5+5+10 = 35 · Cy 5+10+5+5+10+10 = 45; Ann out 5 times: two records fall (10 and 4)


def summary() -> str:
    today = datetime.now(UTC).strftime("%a %d %b %Y")
    return (f"Shanghai Rummy (family rules, 7 hands) · {today}\n"
            "Ann wins with 5, 30 ahead of Bob.\n"
            "Went out: Ann 5 (R2, R4, R5, R6, R7), Bob 1 (R3).\n"
            "Biggest catch: Bob 10 in R2, when Ann went out.\n"
            "Stuck most: Bob & Cy (1 hand each).\n"
            "Records: lowest final score, Ann 5; most hands won in one game, Ann 5.")


def finish_tonight(page) -> int:
    """An earlier evening and tonight's game up to its last hand (through the family's own client),
    then the last hand entered on the phone, which lands on the standings; the game's id."""
    app = page.app
    app.config["WTF_CSRF_ENABLED"] = False  # the family's own client plays; the phone keeps its token
    try:
        client = strict_client(app, "ann")
        earlier = play(client, app, "family-7", NAMES, EARLIER, skip_first_hand=True)
        day = datetime.now(UTC).date() - timedelta(days=7)
        set_start(app, earlier, datetime(day.year, day.month, day.day, 20))
        game_id = play(client, app, "family-7", NAMES, TONIGHT, skip_first_hand=True)
    finally:
        app.config["WTF_CSRF_ENABLED"] = True
    page.goto(page.base_url + f"/games/{game_id}/rounds/7/score")
    page.locator(".chip-choice", has_text="Ann").click()
    tap_cards(page, "Bob", ["K"])
    tap_cards(page, "Cy", ["5", "5"])
    page.get_by_role("button", name="Check points").click()
    page.get_by_role("button", name="Save round 7").click()
    expect(page.get_by_role("heading", name="Ann wins")).to_be_visible()
    return game_id


def phone_page(live_server, browser, init_script: str | None = None, **options):
    page = phone(browser, **options).new_page()
    page.base_url, page.app = live_server.base_url, live_server
    if init_script:
        page.context.add_init_script(init_script)
    sign_up(page)
    return page


NO_SHARE = "delete Navigator.prototype.share;"


def test_without_a_share_sheet_share_copies_the_summary_and_says_copied(live_server, browser):
    page = phone_page(live_server, browser, NO_SHARE, permissions=["clipboard-read", "clipboard-write"])
    finish_tonight(page)
    status = page.locator("[data-share-status]")
    expect(status).to_be_empty()
    button = page.get_by_role("button", name="Share the result")
    box = button.bounding_box()
    assert box["height"] >= 52 and box["width"] >= 300  # a thumb's target, across the card
    button.click()
    expect(status).to_contain_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == summary()
    expect(page.locator("[data-share-text]")).to_be_hidden()
    shot(page, "recap-copied-light")


def test_where_the_phone_has_a_share_sheet_it_gets_the_title_and_the_summary(live_server, browser):
    stub = "navigator.share = (data) => { window.sharedData = data; return Promise.resolve(); };"
    page = phone_page(live_server, browser, stub)
    finish_tonight(page)
    page.get_by_role("button", name="Share the result").click()
    page.wait_for_function("() => window.sharedData !== undefined")
    shared = page.evaluate("window.sharedData")
    assert shared["text"] == summary()
    assert shared["title"] == "Game night, " + datetime.now(UTC).strftime("%a %d %b %Y")
    expect(page.locator("[data-share-status]")).to_be_empty()  # the share sheet says what happened


def test_with_neither_the_text_shows_selected_to_copy_by_hand(live_server, browser):
    neither = NO_SHARE + "Object.defineProperty(Navigator.prototype, 'clipboard', {get: () => undefined});"
    page = phone_page(live_server, browser, neither, color_scheme="dark")
    finish_tonight(page)
    page.get_by_role("button", name="Share the result").click()
    text = page.locator("[data-share-text]")
    expect(text).to_be_visible()
    expect(text).to_be_focused()
    assert text.evaluate("t => t.value.slice(t.selectionStart, t.selectionEnd)") == summary()
    expect(page.locator("[data-share-status]")).to_have_text("Copy the text below.")
    shot(page, "recap-by-hand-dark")
