"""House rules on a phone: write them in the editor, then play a hand by them."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import hand, shot, sign_up, tap_cards

pytestmark = pytest.mark.browser


def test_write_house_rules_on_a_phone_and_play_a_hand_by_them(page):
    sign_up(page)
    page.get_by_role("link", name="House rules").click()
    shot(page, "house-01-list")
    page.get_by_label("A copy of Shanghai Rummy (10 contracts)").check()
    page.get_by_role("button", name="Start writing").click()
    expect(page.get_by_label("Name", exact=True)).to_have_value("Shanghai Rummy (10 contracts) (our rules)")
    page.get_by_label("Name", exact=True).fill("Parker Shanghai")

    # Round 10 goes; a new last round is written and moved up one place.
    page.get_by_role("button", name="Remove round 10").click()
    page.get_by_role("button", name="Add a round").click()
    last = page.locator("#round-10")
    last.get_by_label("Contract").fill("pair of Aces and 2 runs of 4")
    last.get_by_label("Cards dealt").fill("12")
    last.get_by_label("Buys").fill("2")
    page.get_by_role("button", name="Move round 10 up").click()
    expect(page.locator("#round-9").get_by_label("Contract")).to_have_value("pair of Aces and 2 runs of 4")
    expect(page.locator("#round-9")).to_contain_text("At least 10 cards.")

    # A mistake is shown beside its field, and what was typed stays.
    page.get_by_label("K", exact=True).fill("-10")
    page.get_by_label("Going out", exact=True).locator("text=A bonus × the round number").click()
    page.get_by_label("Bonus for going out", exact=True).fill("5")
    page.get_by_label("A bonus anyone can earn, named").fill("Cut the exact number of cards")
    page.get_by_label("That bonus").fill("10")
    page.get_by_role("button", name="Save rules").click()
    expect(page.locator("#points")).to_contain_text("Points cannot be negative")
    expect(page.get_by_label("Bonus for going out", exact=True)).to_have_value("5")
    shot(page, "house-02-editor-error")
    page.get_by_label("K", exact=True).fill("10")
    page.get_by_role("button", name="Save rules").click()
    expect(page.get_by_role("heading", name="Parker Shanghai")).to_be_visible()
    expect(page.locator(".rulecard")).to_contain_text("Pair of Aces and 2 runs of 4")
    shot(page, "house-03-card")

    page.goto(page.base_url + "/games/new")
    page.get_by_label("Parker Shanghai").check()
    page.locator("#new_players").fill("Ann, Bob, Cy")
    page.get_by_role("button", name="Next: seating").click()
    page.get_by_role("button", name="Start game").click()
    expect(page.locator("#contract")).to_have_text("Two sets of 3")
    expect(page.locator("#reminder-going-out")).to_contain_text("Going out scores −5 (−5 × round 1).")
    page.get_by_role("link", name="Hand over — enter cards").click()

    page.locator(".chip-choice", has_text="Ann").click()  # Ann went out
    expect(hand(page, "Ann").locator("[data-hand-points]")).to_have_text("-5 pts")
    tap_cards(page, "Bob", ("K", "7"))
    bob = hand(page, "Bob")
    expect(bob.locator("[data-hand-points]")).to_have_text("15 pts")
    bob.get_by_label("Cut the exact number of cards").check()
    expect(bob.locator("[data-hand-points]")).to_have_text("5 pts")
    tap_cards(page, "Cy", ("JK",))
    shot(page, "house-04-entry")
    page.get_by_role("button", name="Check points").click()
    page.get_by_role("button", name="Save round 1").click()
    expect(page.locator("#contract")).to_have_text("One set of 3 and one sequence of 4")
    shot(page, "house-05-round-2")
