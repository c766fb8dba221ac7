"""The card-entry screen at the table: one keypad that never moves under the finger, every player one
tap away, and a whole hand saved in few taps (Debian Chromium at 390×844 and 360×740)."""

from __future__ import annotations

import pytest
from playwright import sync_api

from scorekeeper.extensions import db
from scorekeeper.models import Game, GameRound, Result
from tests.actions import GameActions
from tests.browser.conftest import all_sent, game_ready, hand, phone, shot, show_hand, sign_up, tap_cards
from tests.databases import strict_client

pytestmark = pytest.mark.browser

expect = sync_api.expect
EIGHT = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def game_of(page, names: list[str]) -> int:
    """A shanghai-10 game of ``names`` (Ann deals first) for the family that signed up on ``page``."""
    app = page.app
    app.config["WTF_CSRF_ENABLED"] = False  # the family's own client starts it; the phone keeps its token
    try:
        return GameActions(strict_client(app, 'ann')).new_game("shanghai-10", names, first_dealer=names[0])
    finally:
        app.config["WTF_CSRF_ENABLED"] = True


class Taps:
    """Clicks a locator as a finger taps it, counting the taps."""

    def __init__(self):
        self.count = 0

    def __call__(self, locator) -> None:
        locator.click()
        self.count += 1


def boxes(page) -> list[tuple[float, float, float, float]]:
    """Where every keypad key, Next and Check points are on the screen."""
    found = page.locator("[data-keypad] [data-add], [data-next], button[value=review]").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })")
    return [tuple(b) for b in found]


@pytest.mark.parametrize("size", [(390, 844), (360, 740)], ids=["390x844", "360x740"])
def test_keys_stay_put_to_the_pixel_while_cards_are_tapped_removed_and_players_switched(live_server, browser, size):
    page = phone(browser, *size).new_page()
    page.base_url, page.app = live_server.base_url, live_server
    sign_up(page)
    game_id = game_of(page, EIGHT)
    page.goto(page.base_url + f"/games/{game_id}/rounds/1/score")
    height = page.evaluate("innerHeight")
    start = boxes(page)
    # With 8 players the keypad and the save button are on screen without scrolling.
    assert page.evaluate("scrollY") == 0
    assert start and all(y >= 0 and y + h <= height for _, y, _, h in start), start

    steps = [
        lambda: page.locator(".chip-choice", has_text="Cy").click(),
        *[lambda code=code: page.locator(f"[data-keypad] [data-add='{code}']").click()
          for code in ("K", "K", "5", "JK", "A", "10", "Q", "Q", "Q", "7", "3")],
        lambda: hand(page, "Ann").get_by_role("button", name="Remove one Q of 3").click(),
        lambda: page.locator("[data-next]").click(),
        lambda: page.locator("[data-keypad] [data-add='9']").click(),
        lambda: show_hand(page, "Hal"),
        lambda: page.locator("[data-keypad] [data-add='2']").click(),
        lambda: show_hand(page, "Ann"),
        lambda: hand(page, "Ann").get_by_role("button", name="Remove one K of 2").click(),
    ]
    for number, step in enumerate(steps):
        step()
        assert boxes(page) == start, f"a key moved after step {number}"
    expect(hand(page, "Ann").locator(".card-chip")).to_have_text(["K", "5", "Joker", "A", "10", "Q ×2", "7", "3"])
    expect(page.locator("[data-switch]").first).to_contain_text("Ann")
    expect(page.locator("[data-switch]").first).to_contain_text("· 9 cards")
    shot(page, f"entry-8-players-{size[0]}")


def test_a_four_player_hand_is_saved_in_the_cards_held_plus_six_taps(page):
    sign_up(page)
    game_id = game_of(page, ["Ann", "Bob", "Cy", "Di"])
    page.goto(page.base_url + f"/games/{game_id}")
    game_ready(page)
    held = {"Ann": ["K", "K", "5"], "Bob": ["JK"], "Di": ["A", "10", "7", "7"]}  # Cy went out
    tap = Taps()

    tap(page.get_by_role("link", name="Hand over — enter cards"))
    tap(page.locator(".chip-choice", has_text="Cy"))
    for index, (name, cards) in enumerate(held.items()):
        if index:
            tap(page.locator("[data-next]"))
        expect(page.locator("[data-switch][aria-pressed=true]")).to_contain_text(name)
        for code in cards:
            tap(page.locator(f"[data-keypad] [data-add='{code}']"))
    tap(page.get_by_role("button", name="Check points"))
    tap(page.get_by_role("button", name="Save round 1"))
    expect(page.locator("h1.contract")).to_have_text("One set of 3 and one sequence of 4")

    cards = sum(len(c) for c in held.values())
    assert tap.count <= cards + 6, f"{tap.count} taps for {cards} cards"
    all_sent(page)
    with page.app.app_context():
        stored = db.session.execute(
            db.select(Result.points).join(GameRound).join(Game)
            .where(Game.id == game_id, GameRound.number == 1).order_by(Result.position)
        ).scalars().all()
    assert stored == [25, 15, 0, 30]  # K K 5; a joker; Cy went out; A 10 7 7


def test_the_one_who_went_out_has_no_keys_and_next_skips_them(page):
    sign_up(page)
    game_id = game_of(page, ["Ann", "Bob", "Cy"])
    page.goto(page.base_url + f"/games/{game_id}/rounds/1/score")
    page.locator(".chip-choice", has_text="Ann").click()
    # Ann was shown first; going out moves the keypad on to Bob.
    expect(page.locator("[data-switch][aria-pressed=true]")).to_contain_text("Bob")
    tap_cards(page, "Bob", ["K"])
    page.locator("[data-next]").click()
    expect(page.locator("[data-switch][aria-pressed=true]")).to_contain_text("Cy")
    page.locator("[data-next]").click()
    expect(page.locator("[data-switch][aria-pressed=true]")).to_contain_text("Bob")
    show_hand(page, "Ann")
    expect(page.locator("[data-keypad] [data-add]:enabled")).to_have_count(0)
    expect(page.locator("[data-switch]").first).to_contain_text("0 · out")
    # Who went out folded into one line once cards were tapped; Change opens it again.
    expect(page.locator("[data-out-summary]")).to_contain_text("Ann: went out normally")
    page.get_by_role("button", name="Change").click()
    expect(page.locator(".chip-choice", has_text="Cy")).to_be_visible()


def test_the_dealer_line_is_as_large_as_the_totals(page):
    sign_up(page)
    game_id = game_of(page, ["Ann", "Bob", "Cy"])
    page.goto(page.base_url + f"/games/{game_id}")
    size = "e => parseFloat(getComputedStyle(e).fontSize)"
    dealer = page.locator(".dealer-line b").first.evaluate(size)
    total = page.locator(".player-row .total").first.evaluate(size)
    assert dealer >= total, f"dealer {dealer}px, totals {total}px"
    expect(page.locator(".dealer-line p").first).to_contain_text("Dealer Ann · Bob plays first")


def test_down_buttons_are_one_width_whatever_they_say(page):
    sign_up(page)
    game_id = game_of(page, ["Annabel", "Bartholomew", "Cy"])
    page.goto(page.base_url + f"/games/{game_id}")
    page.get_by_role("button", name="Cy has not laid down (tap when they do)").click()
    expect(page.get_by_role("button", name="Cy has laid down (tap to undo)")).to_have_text("Down ✓")
    widths = page.locator(".btn-toggle").evaluate_all("els => els.map(e => e.getBoundingClientRect().width)")
    assert len(set(widths)) == 1, widths
    lefts = page.locator(".btn-toggle").evaluate_all("els => els.map(e => e.getBoundingClientRect().left)")
    assert len(set(lefts)) == 1, lefts  # the rows line up: nothing shifts when a mark changes


def test_a_new_game_of_four_saved_players_takes_seven_taps_and_seating_moves_in_place(page):
    sign_up(page)
    game_of(page, ["Ann", "Bob", "Cy", "Di"])  # the players are saved; shanghai-10 was played last
    page.goto(page.base_url + "/")
    tap = Taps()

    tap(page.get_by_role("link", name="+ New game"))
    expect(page.get_by_label("Shanghai Rummy (10 contracts)")).to_be_checked()  # the last game's rules
    for name in ("Ann", "Bob", "Cy", "Di"):
        tap(page.get_by_label(name, exact=True))
    tap(page.get_by_role("button", name="Next: seating"))
    page.evaluate("window.stillHere = true")
    page.get_by_role("button", name="Move Di up").click()  # not counted: the order was chosen freely
    expect(page.locator(".seat-name")).to_have_text(["Ann", "Bob", "Di", "Cy"])
    assert page.evaluate("window.stillHere === true"), "moving a seat reloaded the page"
    expect(page.get_by_role("button", name="Move Cy down")).to_be_disabled()
    tap(page.get_by_role("button", name="Start game"))
    expect(page.locator("h1.contract")).to_have_text("Two sets of 3")
    assert tap.count <= 7, tap.count
    expect(page.locator(".player-row .name")).to_contain_text(["Ann", "Bob", "Di", "Cy"])


def test_a_card_tapped_past_what_the_decks_hold_is_warned_at_that_tap(page):
    sign_up(page)
    game_id = game_of(page, ["Ann", "Bob", "Cy"])  # shanghai-10, 3 players: 2 decks and 1 joker
    page.goto(page.base_url + f"/games/{game_id}/rounds/1/score")
    page.locator(".chip-choice", has_text="Ann").click()
    tap_cards(page, "Bob", ["JK"])
    expect(hand(page, "Bob").locator("[data-tap-warning]")).to_be_hidden()
    before = boxes(page)
    tap_cards(page, "Cy", ["JK"])
    expect(hand(page, "Cy").locator("[data-tap-warning]")).to_have_text(
        "Joker: 2 tapped in all, but the decks in play hold only 1.")
    assert boxes(page) == before  # the warning moves no key


def test_a_player_left_with_nothing_entered_is_asked_about_once_before_anything_is_sent(page):
    sign_up(page)
    game_id = game_of(page, ["Ann", "Bob", "Cy", "Di"])
    page.goto(page.base_url + f"/games/{game_id}/rounds/1/score")
    page.locator(".chip-choice", has_text="Ann").click()
    tap_cards(page, "Bob", ["K"])
    sent = []
    page.on("request", lambda request: sent.append(request.url) if request.method == "POST" else None)
    page.get_by_role("button", name="Check points").click()
    # Cy and Di: each hand says so once, and the first of them opens.
    expect(page.locator("[data-switch][aria-pressed=true]")).to_contain_text("Cy")
    expect(hand(page, "Cy").locator("[data-tap-warning]")).to_have_text(
        "Nothing entered for Cy: tap the cards left in Cy's hand, or type their total.")
    expect(page.locator("[data-switch].is-empty")).to_have_count(2)
    expect(page.locator("[data-tap-warning]:visible")).to_have_count(1)
    shot(page, "entry-asked-about-an-empty-hand")
    assert not sent, "the hand was sent with a player's cards missing"

    tap_cards(page, "Cy", ["5"])
    expect(hand(page, "Cy").locator("[data-tap-warning]")).to_be_hidden()
    show_hand(page, "Di").get_by_label("Or the total, counted by hand").fill("40")
    expect(page.locator("[data-switch].is-empty")).to_have_count(0)
    page.get_by_role("button", name="Check points").click()
    expect(page.get_by_role("heading", name="Check round 1")).to_be_visible()
    expect(page.locator(".review tbody td.num b")).to_have_text(["0", "10", "5", "40"])
