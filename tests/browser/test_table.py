"""At the table, in Debian Chromium at 390×844: a live scoreboard on a second phone, a second
score keeper, and hands and buys entered while the connection is down."""

import pytest
from playwright import sync_api

from scorekeeper.extensions import db
from scorekeeper.models import GameRound, Result, RoundChange
from tests.browser.conftest import hand, phone, row, shot, show_hand, sign_up, tap_cards

pytestmark = pytest.mark.browser

expect = sync_api.expect


def connection_lost(page) -> None:
    """No network for this phone. Playwright's offline mode does not reach requests that pass
    through a service worker in Chromium, so the server goes away too, as it does for a phone
    whose Wi-Fi dropped."""
    page.context.set_offline(True)
    page.app.live.stop()


def connection_back(page) -> None:
    page.app.live.start()
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")  # as the phone does when Wi-Fi is back


def start_game(page, names: str = "Ann, Bob, Cy") -> None:
    page.get_by_role("link", name="+ New game").click()
    page.get_by_label("Shanghai Rummy (10 contracts)").check()
    page.locator("#new_players").fill(names)
    page.get_by_role("button", name="Next: seating").click()
    page.locator(".chip-choice", has_text="Ann").click()
    page.get_by_role("button", name="Start game").click()
    expect(page.locator("h1.contract")).to_have_text("Two sets of 3")


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
    page.get_by_role("link", name="Back to round").click()
    expect(row(page, "Ann").locator(".buy-count")).to_have_text("1/3")


def with_offline_copies(page) -> None:
    """The service worker looks after the pages (as on a phone that opened the game before)."""
    page.evaluate("navigator.serviceWorker.ready.then(() => null)")
    page.reload()
    assert page.evaluate("!!navigator.serviceWorker.controller")


def forget_round_screen(page) -> None:
    """A phone whose copy of the round screen is gone (storage cleared) while it has the page shown."""
    page.evaluate("""url => caches.keys().then(names => Promise.all(names.map(
        name => caches.open(name).then(cache => cache.delete(url, {ignoreVary: true})))))""",
                  page.base_url + "/games/1")


def expect_round_two_ahead(page) -> None:
    """Round 2 as the phone shows it over round 1's hand kept offline: Ann out, Bob K K 5, Cy a joker."""
    expect(page.locator("h1.contract")).to_have_text("One set of 3 and one sequence of 4")
    expect(page.locator(".facts")).to_contain_text("Deal 11 cards")  # 11 in every deal (variants.md)
    expect(page.locator(".dealer-line")).to_contain_text("Dealer Bob · Cy plays first")
    expect(page.locator(".round-head .not-sent")).to_have_text(
        "Round 1 is saved on this phone, not sent yet: the totals below count it.")
    expect(page.locator(".sticky-actions .not-sent")).to_have_text(
        "Round 2's cards can be entered once round 1 is sent.")
    expect(page.locator(".player-row .total")).to_have_text(["0 pts", "25 pts", "15 pts"])
    expect(page.locator(".player-row .total.not-sent-total")).to_have_count(3)
    expect(page.get_by_role("link", name="Hand over — enter cards")).to_have_count(0)


def test_a_hand_saved_offline_shows_the_next_round_until_it_is_stored_once(page):
    app = page.app
    sign_up(page)
    start_game(page)
    with_offline_copies(page)
    page.get_by_role("link", name="Hand over — enter cards").click()
    expect(page.locator("[data-keypad]").first).to_be_visible()

    connection_lost(page)
    page.locator(".chip-choice", has_text="Ann").click()
    tap_cards(page, "Bob", ("K", "K", "5"))
    tap_cards(page, "Cy", ("JK",))
    page.get_by_role("button", name="Check points").click()
    # Kept, and on to the game as it now is: the next round, its dealer and the totals to be.
    expect_round_two_ahead(page)
    expect(page.locator(".outbox li")).to_have_text(["Round 1 cards"])

    page.reload()  # still offline: the phone's own copy, drawn the same way
    expect_round_two_ahead(page)
    row(page, "Cy").get_by_role("button", name="Buy for Cy").click()  # a buy in round 2, kept too
    expect(row(page, "Cy").locator(".buy-count")).to_have_text("1/3")
    shot(page, "22-offline-next-round")
    page.set_viewport_size({"width": 360, "height": 740})
    page.emulate_media(color_scheme="dark")
    shot(page, "22-offline-next-round-360-dark")
    with app.app_context():
        assert db.session.execute(db.select(RoundChange)).first() is None

    connection_back(page)
    expect(page.locator(".outbox")).to_contain_text("Sent the 2 entries saved on this phone.")
    expect(page.locator("h1.contract")).to_have_text("One set of 3 and one sequence of 4")
    expect(page.locator(".not-sent")).to_have_count(0)
    expect(page.locator(".player-row .total")).to_have_text(["0 pts", "25 pts", "15 pts"])
    expect(row(page, "Cy").locator(".buy-count")).to_have_text("1/3")
    with app.app_context():
        assert len(db.session.execute(db.select(RoundChange)).all()) == 1
        recorded = db.session.execute(
            db.select(GameRound).where(GameRound.number == 1, GameRound.recorded_at.is_not(None))
        ).scalars().all()
        assert len(recorded) == 1
        points = sorted(r.points for r in db.session.execute(
            db.select(Result).where(Result.round_id == recorded[0].id)).scalars())
        assert points == [0, 15, 25]  # Ann out, Cy's joker 15, Bob K K 5
        buys = db.session.execute(
            db.select(GameRound.number, Result.buys).join(Result).where(Result.buys > 0)).all()
        assert [tuple(b) for b in buys] == [(2, 1)]  # Cy's buy went to round 2, once
    assert page.evaluate("localStorage.getItem('scorekeeper-outbox')") == "[]"


def test_without_a_copy_of_the_round_screen_a_hand_kept_offline_stays_on_its_page(page):
    sign_up(page)
    start_game(page)
    page.get_by_role("link", name="Hand over — enter cards").click()
    forget_round_screen(page)
    connection_lost(page)
    page.locator(".chip-choice", has_text="Ann").click()
    tap_cards(page, "Bob", ("K", "K", "5"))
    tap_cards(page, "Cy", ("JK",))
    page.get_by_role("button", name="Check points").click()
    expect(page.locator(".outbox li")).to_have_text(["Round 1 cards"])
    expect(page.get_by_role("button", name="Saved on this phone — will send")).to_be_disabled()
    page.reload()  # offline: the phone's own copy of the page, and what was typed
    expect(show_hand(page, "Bob").locator("[data-hand-points]")).to_have_text("25 pts")
    expect(page.get_by_role("button", name="Saved on this phone — will send")).to_be_disabled()
    shot(page, "22-offline-kept")
    connection_back(page)
    expect(page.locator(".outbox")).to_contain_text("Sent the entry saved on this phone.")
    expect(page.locator("h1.contract")).to_have_text("One set of 3 and one sequence of 4")


def test_buys_tapped_offline_show_at_once_and_are_sent_later(page):
    app = page.app
    sign_up(page)
    start_game(page)
    connection_lost(page)
    row(page, "Bob").get_by_role("button", name="Buy for Bob").click()
    row(page, "Bob").get_by_role("button", name="Buy for Bob").click()
    expect(row(page, "Bob").locator(".buy-count")).to_have_text("2/3")
    expect(page.locator(".outbox li")).to_have_text(["Buy for Bob", "Buy for Bob"])
    connection_back(page)
    expect(page.locator(".outbox")).to_contain_text("Sent the 2 entries saved on this phone.")
    expect(row(page, "Bob").locator(".buy-count")).to_have_text("2/3")
    with app.app_context():
        buys = db.session.execute(db.select(Result.buys).where(Result.buys > 0)).scalars().all()
    assert buys == [2]


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


def test_a_hand_kept_offline_that_another_phone_recorded_meanwhile_is_reported(page, browser):
    app = page.app
    sign_up(page)
    start_game(page)
    page.get_by_role("link", name="Hand over — enter cards").click()
    connection_lost(page)
    page.locator(".chip-choice", has_text="Ann").click()
    tap_cards(page, "Bob", ("K",))
    tap_cards(page, "Cy", ("K",))
    page.get_by_role("button", name="Check points").click()
    expect(page.locator(".outbox")).to_contain_text("Round 1 cards")

    # Meanwhile Ann's other phone, still online, records the hand differently.
    app.live.start()  # the server is there for it; this phone stays offline
    other = phone(browser).new_page()
    other.goto(page.base_url + "/login")
    other.get_by_label("Username").fill("ann")
    other.get_by_label("Password").fill("shuffle the decks")
    other.get_by_role("button", name="Sign in").click()
    other.locator(".game-tile").first.click()
    record_first_hand(other, "Cy", {"Ann": ["5"], "Bob": ["5"]})

    connection_back(page)
    expect(page.locator(".outbox")).to_contain_text("Sent the entry saved on this phone. It was not taken:")
    expect(page.locator(".outbox")).to_contain_text(
        "Round 1 cards: Round 1 was saved from another tap or phone in the meantime")
    with app.app_context():
        assert len(db.session.execute(db.select(RoundChange)).all()) == 1
        points = sorted(db.session.execute(db.select(Result.points).where(Result.points > 0)).scalars())
    assert points == [5, 5]  # the other phone's hand; this phone's (K and K) was not stored


def test_the_offline_copy_of_the_round_screen_follows_buys_made_online_and_offline(page):
    sign_up(page)
    start_game(page)
    # The service worker has to be looking after the pages before the connection drops.
    page.evaluate("navigator.serviceWorker.ready.then(() => null)")
    page.reload()
    assert page.evaluate("!!navigator.serviceWorker.controller")
    row(page, "Bob").get_by_role("button", name="Buy for Bob").click()  # online, drawn in place
    expect(row(page, "Bob").locator(".buy-count")).to_have_text("1/3")
    page.wait_for_timeout(300)  # the copy is written after the page is drawn

    connection_lost(page)
    page.reload()  # the phone's own copy: the buy made online is in it
    expect(row(page, "Bob").locator(".buy-count")).to_have_text("1/3")
    row(page, "Cy").get_by_role("button", name="Buy for Cy").click()  # offline: kept on the phone
    row(page, "Cy").get_by_role("button", name="Cy has not laid down (tap when they do)").click()
    expect(row(page, "Cy").locator(".buy-count")).to_have_text("1/3")
    page.wait_for_timeout(300)
    page.reload()
    expect(row(page, "Bob").locator(".buy-count")).to_have_text("1/3")
    expect(row(page, "Cy").locator(".buy-count")).to_have_text("1/3")
    expect(row(page, "Cy").locator(".btn-toggle")).to_have_text("Down ✓")
    expect(page.locator(".outbox li")).to_have_text(["Buy for Cy", "Cy has laid down"])

    connection_back(page)
    expect(page.locator(".outbox")).to_contain_text("Sent the 2 entries saved on this phone.")
    with page.app.app_context():
        stored = db.session.execute(
            db.select(Result.buys, Result.laid_down).where((Result.buys > 0) | Result.laid_down).order_by(Result.position)
        ).all()
    assert [tuple(r) for r in stored] == [(1, False), (1, True)]  # Bob's buy; Cy's buy and Down, once each


def test_after_a_hand_saved_online_the_offline_copy_opens_on_the_next_round(page):
    sign_up(page)
    start_game(page)
    with_offline_copies(page)  # the round screen of round 1 is now the phone's copy
    record_first_hand(page, "Ann", {"Bob": ["K"], "Cy": ["5"]})  # drawn in place, no reload
    page.wait_for_timeout(300)
    connection_lost(page)
    page.reload()
    expect(page.locator("h1.contract")).to_have_text("One set of 3 and one sequence of 4")
    expect(page.locator(".dealer-line")).to_contain_text("Dealer Bob")
    connection_back(page)


def test_save_pressed_offline_on_the_review_page_is_kept_once_and_nothing_can_send_it_twice(page):
    app = page.app
    sign_up(page)
    start_game(page)
    page.get_by_role("link", name="Hand over — enter cards").click()
    forget_round_screen(page)
    page.locator(".chip-choice", has_text="Ann").click()
    tap_cards(page, "Bob", ["K"])
    tap_cards(page, "Cy", ["5"])
    page.get_by_role("button", name="Check points").click()
    expect(page.get_by_role("heading", name="Check round 1")).to_be_visible()
    connection_lost(page)
    page.get_by_role("button", name="Save round 1").click()
    kept = page.get_by_role("button", name="Saved on this phone — will send")
    expect(kept).to_be_disabled()
    expect(page.get_by_role("button", name="‹ Change")).to_be_disabled()
    change, save = page.get_by_role("button", name="‹ Change").bounding_box(), kept.bounding_box()
    assert change["x"] + change["width"] <= save["x"], "the two buttons overlap"
    assert kept.evaluate("b => b.scrollWidth <= b.clientWidth && b.scrollHeight <= b.clientHeight"), "its label spills"
    connection_back(page)
    expect(page.locator("h1.contract")).to_have_text("One set of 3 and one sequence of 4")
    with app.app_context():
        assert len(db.session.execute(db.select(RoundChange)).all()) == 1


def test_save_pressed_offline_on_the_review_page_moves_on_to_the_next_round(page):
    app = page.app
    sign_up(page)
    start_game(page)
    with_offline_copies(page)
    page.get_by_role("link", name="Hand over — enter cards").click()
    page.locator(".chip-choice", has_text="Ann").click()
    tap_cards(page, "Bob", ("K", "K", "5"))
    tap_cards(page, "Cy", ("JK",))
    page.get_by_role("button", name="Check points").click()
    expect(page.get_by_role("heading", name="Check round 1")).to_be_visible()
    connection_lost(page)
    page.get_by_role("button", name="Save round 1").click()
    expect_round_two_ahead(page)  # the totals the server worked out on the review page
    connection_back(page)
    expect(page.locator(".outbox")).to_contain_text("Sent the entry saved on this phone.")
    expect(page.locator(".not-sent")).to_have_count(0)
    with app.app_context():
        assert len(db.session.execute(db.select(RoundChange)).all()) == 1
