"""At the table, in Debian Chromium at 390×844: a live scoreboard on a second phone, a second
score keeper, cards typed kept across a reload, and the screen kept on. (A game played offline:
test_offline_game.py.)"""

import pytest
from playwright import sync_api

from tests.browser.conftest import all_sent, hand, phone, row, shot, show_hand, sign_up, start_game, tap_cards

pytestmark = pytest.mark.browser

expect = sync_api.expect


def record_first_hand(page, went_out: str, cards: dict[str, list[str]]) -> None:
    """End round 1 by tapping: who went out, the others' cards; then check and save."""
    page.get_by_role("link", name="Hand over — enter cards").click()
    page.locator(".chip-choice", has_text=went_out).click()
    for name, keys in cards.items():
        tap_cards(page, name, keys)
    page.get_by_role("button", name="Check points").click()
    page.get_by_role("button", name="Save round 1").click()
    expect(page.locator("h1.contract")).to_have_text("One set of 3 and one sequence of 4")


def make_link(page, kind: str) -> str:
    page.get_by_role("link", name="Share").click()
    page.get_by_role("button", name=kind).click()
    expect(page.locator(".qr-box svg")).to_be_visible()
    return page.get_by_label(kind).last.input_value()


def test_scoreboard_on_another_phone_follows_the_game_without_reloading(page, browser):
    sign_up(page)
    start_game(page)
    link = make_link(page, "Scoreboard link")
    shot(page, "20-share")
    page.get_by_role("link", name="Back to round").click()

    tv = phone(browser).new_page()  # no login: only the link
    tv.goto(link)
    expect(tv.locator("h1.contract")).to_have_text("Two sets of 3")
    expect(tv.locator(".dealer-line")).to_contain_text("Dealer Ann · Bob plays first")
    loads = []
    tv.on("load", lambda _: loads.append(1))

    row(page, "Cy").get_by_role("button", name="Buy for Cy").click()
    cy = tv.locator(".live-table tr", has_text="Cy")
    expect(cy.locator("td").first).to_have_text("1/3", timeout=5000)

    record_first_hand(page, "Ann", {"Bob": ["K"], "Cy": ["5"]})

    expect(tv.locator("h1.contract")).to_have_text("One set of 3 and one sequence of 4", timeout=5000)
    expect(tv.locator(".live-table tbody th")).to_contain_text(["Ann", "Cy", "Bob"])  # lowest total first
    expect(tv.locator(".live-table tbody td.num b")).to_have_text(["0", "5", "10"])
    assert not loads, "the scoreboard reloaded instead of updating in place"
    shot(tv, "21-live-scoreboard")


def test_second_keeper_records_buys_from_its_own_phone(page, browser):
    sign_up(page)
    start_game(page)
    link = make_link(page, "Score keeper link")

    bob = phone(browser).new_page()
    bob.goto(link)
    expect(bob.locator("h1.contract")).to_have_text("Two sets of 3")
    row(bob, "Ann").get_by_role("button", name="Buy for Ann").click()
    expect(row(bob, "Ann").locator(".buy-count")).to_have_text("1/3")
    all_sent(bob)  # drawn at once on Bob's phone; on the server once sent
    page.get_by_role("link", name="Back to round").click()
    expect(row(page, "Ann").locator(".buy-count")).to_have_text("1/3")


def test_cards_typed_survive_a_reload(page):
    sign_up(page)
    start_game(page)
    page.get_by_role("link", name="Hand over — enter cards").click()
    page.locator(".chip-choice", has_text="Cy").click()
    tap_cards(page, "Ann", ("A",))
    show_hand(page, "Bob").get_by_label("Or the total, counted by hand").fill("35")
    page.reload()
    expect(show_hand(page, "Ann").locator("[data-hand-points]")).to_have_text("15 pts")
    expect(show_hand(page, "Bob").get_by_label("Or the total, counted by hand")).to_have_value("35")
    expect(page.locator(".chip-choice input:checked")).to_have_count(1)
    expect(page.locator("[data-out-summary]")).to_contain_text("Cy: went out normally")
    expect(show_hand(page, "Cy").locator("[data-out-note]")).to_be_visible()


def test_cards_typed_come_back_after_a_buy_on_the_round_screen_with_the_new_buys(page):
    sign_up(page)
    start_game(page)
    page.get_by_role("link", name="Hand over — enter cards").click()
    tap_cards(page, "Bob", ("K",))
    page.get_by_role("link", name="Standings").click()
    page.get_by_role("link", name="Back to round").first.click()
    row(page, "Bob").get_by_role("button", name="Buy for Bob").click()
    expect(row(page, "Bob").locator(".buy-count")).to_have_text("1/3")
    page.get_by_role("link", name="Hand over — enter cards").click()
    expect(show_hand(page, "Bob").locator("[data-hand-points]")).to_have_text("10 pts")
    expect(hand(page, "Bob").get_by_label("Buys")).to_have_value("1")


def test_going_out_with_a_bonus_shows_the_bonus_as_the_hands_points(page):
    sign_up(page)
    start_game(page)
    page.get_by_role("link", name="Hand over — enter cards").click()
    page.locator(".chip-choice", has_text="Ann").click()
    expect(hand(page, "Ann").locator("[data-hand-points]")).to_have_text("0")
    page.get_by_label("Went out blind, no joker (-50)").check()
    expect(hand(page, "Ann").locator("[data-hand-points]")).to_have_text("-50 pts")
    page.get_by_label("Went out normally").check()
    expect(hand(page, "Ann").locator("[data-hand-points]")).to_have_text("0")


def test_screen_stays_on_during_a_game_and_the_toggle_turns_it_off(page):
    sign_up(page)
    start_game(page)
    toggle = page.locator("[data-wake-lock]")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    # Headless Chromium grants the lock on localhost, as a phone's browser does over HTTPS.
    expect(toggle).to_have_text("Screen stays on ✓")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(toggle).to_have_text("Keep screen on")
    page.reload()
    expect(page.locator("[data-wake-lock]")).to_have_attribute("aria-pressed", "false")
