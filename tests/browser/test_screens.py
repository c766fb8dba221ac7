"""Two rounds played by tapping, history pages and an invite, at phone size (390×844)."""

import pytest
from playwright import sync_api

from tests.browser.conftest import hand, phone, row, shot, show_hand, sign_up, tap_cards

pytestmark = pytest.mark.browser


def test_two_rounds_by_tapping(page):
    expect = sync_api.expect
    sign_up(page, screenshot=True)
    expect(page.get_by_role("heading", name="The Parkers")).to_be_visible()
    shot(page, "01-home-empty")
    page.get_by_role("link", name="+ New game").click()

    # New game: preset, players, then seating.
    page.get_by_label("Shanghai Rummy (10 contracts)").check()
    page.locator("#new_players").fill("Ann, Bob, Cy, Di")
    shot(page, "02-new-game")
    page.get_by_role("button", name="Next: seating").click()
    page.get_by_role("button", name="Move Di up").click()  # Ann, Bob, Di, Cy
    expect(page.locator(".seat-name")).to_have_text(["Ann", "Bob", "Di", "Cy"])
    page.locator(".chip-choice", has_text="Bob").click()
    shot(page, "03-seating")
    page.get_by_role("button", name="Start game").click()

    # Round 1: Bob deals, Di (to his left) plays first.
    expect(page.locator("h1.contract")).to_have_text("Two sets of 3")
    expect(page.locator(".round-no")).to_contain_text("Round 1 of 10")
    expect(page.locator(".dealer-line")).to_contain_text("Dealer Bob · Di plays first")
    row(page, "Ann").get_by_role("button", name="Buy for Ann").click()
    row(page, "Ann").get_by_role("button", name="Buy for Ann").click()
    row(page, "Ann").get_by_role("button", name="Take back a buy from Ann").click()
    row(page, "Cy").get_by_role("button", name="Buy for Cy").click()
    expect(row(page, "Ann").locator(".buy-count")).to_have_text("1/3")
    expect(row(page, "Cy").locator(".buy-count")).to_have_text("1/3")
    row(page, "Di").get_by_role("button", name="Di has not laid down").click()
    expect(row(page, "Di").locator(".btn-toggle")).to_have_text("Down ✓")
    # Every running total is on screen without scrolling.
    for name in ("Ann", "Bob", "Di", "Cy"):
        box = row(page, name).locator(".total").bounding_box()
        assert box and box["y"] + box["height"] <= 844, f"{name}'s total is below the fold"
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "04-round-screen")

    # End of hand: Di went out; tap the others' cards.
    page.get_by_role("link", name="Hand over — enter cards").click()
    page.locator(".chip-choice", has_text="Di").click()
    tap_cards(page, "Ann", ("K", "K", "5"))
    expect(hand(page, "Ann").locator("[data-hand-points]")).to_have_text("25 pts")
    tap_cards(page, "Cy", ("JK", "A", "A"))
    cy = hand(page, "Cy")
    expect(cy.locator(".card-chip")).to_have_text(["Joker", "A ×2"])
    cy.get_by_role("button", name="Remove one A of 2").click()
    expect(cy.locator("[data-hand-points]")).to_have_text("30 pts")  # joker 15 + ace 15
    show_hand(page, "Bob").get_by_label("Or the total, counted by hand").fill("40")
    expect(hand(page, "Bob").locator("[data-hand-points]")).to_have_text("40 pts")
    expect(show_hand(page, "Di").locator("[data-out-note]")).to_be_visible()
    shot(page, "05-card-entry")
    page.get_by_role("button", name="Check points").click()
    expect(page.locator("table.review")).to_contain_text("Ann")
    shot(page, "06-review")
    page.get_by_role("button", name="Save round 1").click()

    # Round 2: Ann deals. Cy's buys stop at the limit.
    expect(page.locator(".flash-success")).to_contain_text("Round 1 saved")
    expect(page.locator("h1.contract")).to_have_text("One set of 3 and one sequence of 4")
    expect(page.locator(".dealer-line")).to_contain_text("Dealer Di · Cy plays first")
    for _ in range(3):
        row(page, "Cy").get_by_role("button", name="Buy for Cy").click()
    buy = row(page, "Cy").get_by_role("button", name="Buy for Cy")
    expect(buy).to_have_attribute("aria-disabled", "true")  # looks off at the limit
    buy.evaluate("b => b.scrollIntoView({block: 'center'})")
    buy.click(force=True)  # and a tap says why
    expect(row(page, "Cy").locator(".row-message")).to_have_text("Cy has used all 3 buys this round.")
    expect(row(page, "Cy").locator(".buy-count")).to_have_text("3/3")
    shot(page, "07-buy-limit")
    page.get_by_role("link", name="Hand over — enter cards").click()
    page.locator(".chip-choice", has_text="Ann").click()
    tap_cards(page, "Bob", ("10", "J", "2"))
    tap_cards(page, "Di", ("Q",))
    tap_cards(page, "Cy", ("JK",))
    page.get_by_role("button", name="Check points").click()
    page.get_by_role("button", name="Save round 2").click()

    # Standings: Ann 25+0, Bob 40+20, Di 0+10, Cy 30+15.
    page.get_by_role("link", name="Standings").click()
    totals = page.locator("table.standings tfoot td.num")
    expect(totals).to_have_text(["25", "60", "10", "45"])
    expect(page.locator(".leader-line")).to_contain_text("Di")
    shot(page, "08-standings")


def test_history_pages_fit_a_phone_and_draw_their_charts(page):
    """History, a profile, records and a game's detail at 390 px: no sideways scroll, charts drawn."""
    app = page.app
    with app.app_context():
        from scorekeeper.demo import seed_demo
        from scorekeeper.web import access

        seed_demo(access.current_family(), 60, seed=11)
    sign_up(page)  # the first member takes over the family the demo games went to
    pages = {
        "09-history": "/history",
        "10-player-profile": "/players/1",
        "11-records": "/records?a=1&b=2",
        "12-game-detail": "/games/60/standings",
    }
    for name, path in pages.items():
        page.goto(page.base_url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} scrolls sideways ({width}px)"
        shot(page, name)
    page.goto(page.base_url + "/games/60/standings")
    assert page.locator("svg.chart polyline").count() >= 3
    sync_api.expect(page.locator("svg.chart")).to_have_attribute("aria-label", "Running totals by round")
    page.goto(page.base_url + "/players/1")
    # The rating over time, one line; then final scores with one line for each rule set the player
    # played: their scores are not on one scale.
    rule_sets = page.locator("table.by-rules tbody").count()
    charts = page.locator("svg.chart")
    assert charts.count() == 2 and charts.first.locator("polyline").count() == 1
    assert rule_sets >= 2 and charts.last.locator("polyline").count() == rule_sets


def test_invite_link_lets_a_second_phone_join_the_family(page):
    """Ann makes an invite link; Bob's phone opens it, joins, and sees Ann's game; the link then
    stops working; signing out everywhere ends Bob's session too."""
    expect = sync_api.expect
    sign_up(page)
    page.get_by_role("link", name="+ New game").click()
    page.get_by_label("Shanghai Rummy (11 rounds)").check()
    page.locator("#new_players").fill("Ann, Bob, Cy")
    page.get_by_role("button", name="Next: seating").click()
    page.get_by_role("button", name="Start game").click()

    page.get_by_role("link", name="♠ Scorekeeper").click()
    page.get_by_role("link", name="Family").click()
    page.get_by_role("button", name="Make an invite link").click()
    link = page.get_by_label("Invite link").input_value()
    assert "/join/" in link
    shot(page, "13-family")

    bob = phone(page.context.browser).new_page()
    bob.goto(link)
    expect(bob.get_by_role("heading", name="Join The Parkers")).to_be_visible()
    bob.get_by_label("Username").fill("bob")
    bob.get_by_label("Password", exact=True).fill("bob's own password")
    bob.get_by_label("Password again").fill("bob's own password")
    shot(bob, "14-join")
    bob.get_by_role("button", name="Join").click()
    expect(bob.locator(".game-tile")).to_have_count(1)
    expect(bob.locator(".game-tile")).to_contain_text("Ann")

    bob.goto(link)  # a second use of the same link
    expect(bob.get_by_role("heading", name="This link does not work")).to_be_visible()

    page.reload()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Sign out everywhere").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    shot(page, "15-sign-in")
    # Bob's login is his own: he stays signed in.
    bob.goto(page.base_url + "/")
    expect(bob.locator(".game-tile")).to_have_count(1)
