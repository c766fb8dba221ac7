"""The game lives on the phone: a whole evening entered without a connection - a buy, two rounds,
an undo, a round scored again and an edit - on localhost with the service worker (through a reload
and a closed tab) and on a plain-HTTP address without one; and two phones that scored one round
differently, the family choosing which stands (Debian Chromium at 390×844)."""

from __future__ import annotations

import threading

import pytest
from playwright import sync_api
from werkzeug.serving import make_server

from scorekeeper.extensions import db
from scorekeeper.models import RoundChange, Submission
from tests.actions import GameActions
from tests.browser.conftest import (
    PLAIN_HTTP_NAME,
    all_sent,
    connection_back,
    connection_lost,
    game_ready,
    phone,
    row,
    shot,
    show_hand,
    sign_up,
    start_game,
    tap_cards,
)
from tests.databases import drop_app, make_app

pytestmark = pytest.mark.browser

expect = sync_api.expect
ROUND_2 = "One set of 3 and one sequence of 4"
ROUND_3 = "Two sequences of 4"


def enter_hand(page, went_out: str, cards: dict[str, list[str]], number: int) -> None:
    """On the card entry: who went out, the others' cards by tapping, then check and save."""
    page.locator(".chip-choice", has_text=went_out).click()
    for name, keys in cards.items():
        tap_cards(page, name, keys)
    page.get_by_role("button", name="Check points").click()
    expect(page.get_by_role("heading", name=f"Check round {number}")).to_be_visible()
    page.get_by_role("button", name=f"Save round {number}").click()


def score(page, went_out: str, cards: dict[str, list[str]], number: int, next_contract: str) -> None:
    page.get_by_role("link", name="Hand over — enter cards").click()
    expect(page.get_by_role("heading", name=f"Round {number}: hand over")).to_be_visible()
    enter_hand(page, went_out, cards, number)
    expect(page.locator("h1.contract")).to_have_text(next_contract)


def standings_totals(page) -> list[str]:
    return page.locator("[data-view=standings] tfoot td[data-seat] b").all_inner_texts()


def play_the_evening(page, between=lambda step, page: page):
    """Buy for Bob; round 1 (Ann out; Bob K K 5, Cy a joker); round 2 (Bob out); take round 2 back;
    round 2 again (Cy out); edit round 1 (one K fewer for Bob). ``between`` is called after round 1
    and after the undo, with the page; it answers with the page to go on with. Answers the last page."""
    row(page, "Bob").get_by_role("button", name="Buy for Bob").click()
    expect(row(page, "Bob").locator(".buy-count")).to_have_text("1/3")
    score(page, "Ann", {"Bob": ["K", "K", "5"], "Cy": ["JK"]}, 1, ROUND_2)
    expect(page.locator(".player-row .total")).to_have_text(["0 pts", "25 pts", "15 pts"])
    expect(page.locator(".dealer-line")).to_contain_text("Dealer Bob · Cy plays first")
    page = between("round 1", page)
    score(page, "Bob", {"Ann": ["5"], "Cy": ["Q"]}, 2, ROUND_3)
    page.get_by_role("link", name="Standings").click()
    expect(page.get_by_role("heading", name="Standings")).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Undo round 2").click()
    expect(page.locator("h1.contract")).to_have_text(ROUND_2)
    page = between("undo", page)
    score(page, "Cy", {"Ann": ["7"], "Bob": ["A"]}, 2, ROUND_3)
    page.get_by_role("link", name="Standings").click()
    page.get_by_role("link", name="Edit round 1").click()
    expect(page.get_by_role("heading", name="Edit round 1")).to_be_visible()
    expect(show_hand(page, "Bob").locator("[data-hand-points]")).to_have_text("25 pts")  # as it was kept
    show_hand(page, "Bob").get_by_role("button", name="Remove one K of 2").click()
    page.get_by_role("button", name="Check points").click()
    page.get_by_role("button", name="Save round 1").click()
    expect(page.get_by_role("heading", name="Standings")).to_be_visible()
    # Round 1: Ann 0, Bob K 5 = 15, Cy joker 15; round 2: Ann 7 = 5, Bob A = 15, Cy out 0.
    expect(page.locator("[data-view=standings] tfoot td[data-seat] b")).to_have_text(["5", "30", "15"])
    return page


def assert_the_server_holds_the_evening(app, game_id: int, phone_totals: list[str]) -> None:
    actions = GameActions(app=app)
    with app.app_context():
        changes = db.session.execute(db.select(RoundChange.number, RoundChange.action).order_by(RoundChange.id)).all()
        kept = db.session.execute(db.select(Submission.key).where(Submission.game_id == game_id)).all()
    assert [tuple(c) for c in changes] == [(1, "recorded"), (2, "recorded"), (2, "undone"), (2, "recorded"),
                                           (1, "edited")]
    assert len(kept) == 6  # the buy and five rounds' actions, once each
    assert actions.buys_of(game_id, 1) == {"Ann": 0, "Bob": 1, "Cy": 0}
    points = actions.stored_points(game_id)
    assert points == {1: {"Ann": 0, "Bob": 15, "Cy": 15}, 2: {"Ann": 5, "Bob": 15, "Cy": 0}}
    assert [str(sum(r[name] for r in points.values())) for name in ("Ann", "Bob", "Cy")] == phone_totals


def copy_kept(page) -> None:
    """The service worker has made its copy of the game's page."""
    page.wait_for_function("""() => caches.keys().then(names => Promise.all(names.map(
        name => caches.open(name).then(cache => cache.match(location.pathname))))).then(hits => hits.some(Boolean))""")


def test_an_evening_offline_with_the_service_worker_through_a_reload_and_a_closed_tab(page):
    app = page.app
    sign_up(page)
    start_game(page)  # the round screen online, and nothing else of this game
    copy_kept(page)
    connection_lost(page)

    def between(step, current):
        if step == "round 1":  # the phone reloads the page: its own copy, and the game as it left it
            current.reload()
            expect(current.locator("h1.contract")).to_have_text(ROUND_2)
            expect(current.locator(".outbox-list")).to_contain_text("Saved on this phone — will send (2)")
            shot(current, "22-offline-next-round")
            return current
        # The browser is closed and opened again on the game.
        context = current.context
        current.close()
        reopened = context.new_page()
        reopened.base_url, reopened.app = page.base_url, app
        reopened.goto(page.base_url + "/games/1")
        expect(reopened.locator("h1.contract")).to_have_text(ROUND_2)
        game_ready(reopened)
        return reopened

    page = play_the_evening(page, between)
    expect(page.locator(".outbox-list")).to_contain_text("(6)")
    shot(page, "23-offline-standings")
    with app.app_context():
        assert db.session.execute(db.select(RoundChange)).first() is None  # nothing reached the server
    connection_back(page)
    all_sent(page)
    assert_the_server_holds_the_evening(app, 1, standings_totals(page))


@pytest.fixture
def plain_http(tmp_path, browser):
    """The app on a plain-HTTP address that is not localhost (http://scorekeeper.test:PORT), and a
    Chromium that finds it there: no secure context, so no service worker."""
    app = make_app(tmp_path, family=None, keep=True, WTF_CSRF_ENABLED=True)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page = phone(browser).new_page()
    page.base_url, page.app = f"http://{PLAIN_HTTP_NAME}:{server.server_port}", app
    yield page
    page.context.close()
    server.shutdown()
    drop_app(app)


def test_an_evening_offline_on_plain_http_without_a_reload(plain_http):
    page, app = plain_http, plain_http.app
    sign_up(page)
    start_game(page)
    assert page.evaluate("window.isSecureContext") is False
    assert page.evaluate("!navigator.serviceWorker || !navigator.serviceWorker.controller")
    page.context.set_offline(True)
    play_the_evening(page)
    with app.app_context():
        assert db.session.execute(db.select(RoundChange)).first() is None
    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    all_sent(page)
    assert_the_server_holds_the_evening(app, 1, standings_totals(page))


def signed_in_phone(browser, page, **options):
    other = phone(browser, **options).new_page()
    other.base_url, other.app = page.base_url, page.app
    other.goto(page.base_url + "/login")
    other.get_by_label("Username").fill("ann")
    other.get_by_label("Password").fill("shuffle the decks")
    other.get_by_role("button", name="Sign in").click()
    other.goto(page.base_url + "/games/1")
    game_ready(other)
    return other


@pytest.mark.parametrize("choice", ["Use this phone's", "Keep the other phone's"])
def test_two_phones_score_round_two_differently_and_the_family_chooses(page, browser, choice):
    app = page.app
    sign_up(page)
    start_game(page)
    score(page, "Ann", {"Bob": ["K"], "Cy": ["5"]}, 1, ROUND_2)
    all_sent(page)
    # Phone A: its requests go through no service worker, so its offline mode is the network's.
    a = signed_in_phone(browser, page, service_workers="block")
    b = page
    expect(a.locator("h1.contract")).to_have_text(ROUND_2)
    a.context.set_offline(True)
    score(a, "Bob", {"Ann": ["K"], "Cy": ["5"]}, 2, ROUND_3)  # A: Ann 10, Bob 0, Cy 5
    score(b, "Cy", {"Ann": ["5"], "Bob": ["5"]}, 2, ROUND_3)  # B, online: Ann 5, Bob 5, Cy 0
    all_sent(b)
    a.context.set_offline(False)
    a.evaluate("window.dispatchEvent(new Event('online'))")

    conflict = a.locator(".conflict")
    expect(conflict).to_contain_text("Round 2 was scored on another phone meanwhile (by ann).")
    expect(conflict.locator("dd")).to_have_text(["Ann 5 · Bob 5 · Cy 0", "Ann 10 · Bob 0 · Cy 5"])
    shot(a, "24-two-phones-conflict")
    a.get_by_role("button", name=choice).click()
    all_sent(a)
    chosen = {"Ann": 10, "Bob": 0, "Cy": 5} if choice == "Use this phone's" else {"Ann": 5, "Bob": 5, "Cy": 0}
    assert GameActions(app=app).stored_points(1)[2] == chosen
    totals = [str(chosen["Ann"]), str(10 + chosen["Bob"]), str(5 + chosen["Cy"])]  # round 1: Ann 0, Bob 10, Cy 5
    for phone_ in (a, b):  # B sees the choice by itself, without a reload
        phone_.get_by_role("link", name="Standings").click()
        expect(phone_.locator("[data-view=standings] tfoot td[data-seat] b")).to_have_text(totals, timeout=15_000)
    with app.app_context():
        assert len(db.session.execute(db.select(RoundChange).where(RoundChange.number == 2)).all()) == (
            2 if choice == "Use this phone's" else 1)


def test_a_buy_the_server_refuses_stays_on_the_phone_with_the_reason_until_discarded(page, browser):
    app = page.app
    sign_up(page)
    start_game(page)
    a = signed_in_phone(browser, page, service_workers="block")
    a.context.set_offline(True)
    for _ in range(3):  # A, offline: Cy's three buys, the round's limit
        row(a, "Cy").get_by_role("button", name="Buy for Cy").click()
    row(a, "Bob").get_by_role("button", name="Buy for Bob").click()
    expect(row(a, "Cy").locator(".buy-count")).to_have_text("3/3")
    row(page, "Cy").get_by_role("button", name="Buy for Cy").click()  # B, online, meanwhile
    all_sent(page)
    a.context.set_offline(False)
    a.evaluate("window.dispatchEvent(new Event('online'))")

    refused = a.locator(".refused")
    expect(refused).to_contain_text("Not taken: Buy for Cy. Cy has used all 3 buys this round.")
    expect(a.locator(".game")).to_have_attribute("data-pending", "2")  # the refused buy, and Bob's after it
    actions = GameActions(app=app)
    assert actions.buys_of(1, 1) == {"Ann": 0, "Bob": 0, "Cy": 3}  # nothing after the refusal was sent
    shot(a, "25-refused-buy")
    refused.get_by_role("button", name="Discard it").click()
    all_sent(a)
    assert actions.buys_of(1, 1) == {"Ann": 0, "Bob": 1, "Cy": 3}
    expect(row(a, "Cy").locator(".buy-count")).to_have_text("3/3")
    expect(row(a, "Bob").locator(".buy-count")).to_have_text("1/3")


def test_offline_buys_left_and_each_rows_count_agree_and_a_laid_down_player_may_not_buy(page):
    """family-7 (4 buys a hand; a player who has laid down may not buy), with no connection: the
    "Buys left" line and each row's count come from the same state on the phone."""
    sign_up(page)
    start_game(page, "Ann, Bob, Sam", rules="Shanghai Rummy (family rules, 7 hands)")
    expect(page.locator("#buys-left")).to_have_text("Buys left: Ann 4, Bob 4, Sam 4.")
    connection_lost(page)
    for _ in range(3):
        row(page, "Sam").get_by_role("button", name="Buy for Sam").click()
    expect(row(page, "Sam").locator(".buy-count")).to_have_text("3/4")
    expect(page.locator("#buys-left")).to_have_text("Buys left: Ann 4, Bob 4, Sam 1.")
    row(page, "Bob").get_by_role("button", name="Bob has not laid down (tap when they do)").click()
    expect(page.locator("#buys-left")).to_have_text("Buys left: Ann 4, Bob laid down, Sam 1.")
    bob_buys = row(page, "Bob").get_by_role("button", name="Buy for Bob")
    expect(bob_buys).to_have_attribute("aria-disabled", "true")
    bob_buys.click(force=True)  # it looks off; a tap still says why
    expect(row(page, "Bob").locator(".row-message")).to_have_text("Bob has laid down and may not buy any more this hand.")
    expect(row(page, "Bob").locator(".buy-count")).to_have_text("0/4")
    shot(page, "offline-buys-left")
    connection_back(page)
    all_sent(page)


def test_signing_out_with_an_entry_not_yet_sent_asks_first(page):
    """Signing out makes the phone forget what it kept: with a buy still waiting, the phone says so and
    signs out only when told to."""
    sign_up(page)
    start_game(page)
    page.route("**/actions", lambda route: route.abort())  # the server cannot be reached
    row(page, "Bob").get_by_role("button", name="Buy for Bob").click()
    expect(page.locator(".game")).to_have_attribute("data-pending", "1")
    page.goto(page.base_url + "/family")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name="Sign out", exact=True).click()
    expect(page.get_by_role("button", name="Sign out", exact=True)).to_be_visible()
    assert asked == ["1 entry is saved on this phone but not sent yet. Signing out forgets them. Sign out anyway?"]
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Sign out", exact=True).click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
