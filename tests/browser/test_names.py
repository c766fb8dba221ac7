"""Eight players on a small phone: every name told apart and never broken in the middle of a word
(round screen, card entry, standings and their dealer column), and the card entry's tapped cards,
Laid down and Buys clear of the fixed keypad. At 360×740 and 390×844, light and dark."""

from __future__ import annotations

import pytest
from playwright import sync_api

from tests.actions import GameActions
from tests.browser.conftest import phone, shot, sign_up
from tests.browser.test_card_entry import game_of
from tests.databases import strict_client

pytestmark = pytest.mark.browser

NAMES = ["Grandma", "Grandpa", "Cousin Bernadette", "Mom", "Dad", "Lee", "Sam", "Ann"]
SHORTEST = ["Grandm", "Grandp", "Cou", "Mom", "Dad", "Lee", "Sam", "Ann"]  # what tells each apart
SCREENS = [(360, 740, "light"), (360, 740, "dark"), (390, 844, "light"), (390, 844, "dark")]

# Each element's text, and whether a word of it is split over two lines (a word laid out in more
# than one line box), whether it runs out of its box, and whether CSS cut it with an ellipsis.
MEASURE = """els => els.map(el => {
  const box = getComputedStyle(el).display === 'inline' ? el.parentElement : el;
  const text = el.textContent.trim(), range = document.createRange();
  let broken = false, offset = 0;
  const node = document.createTreeWalker(el, NodeFilter.SHOW_TEXT).nextNode();
  for (const word of text.split(' ')) {
    const start = node.textContent.indexOf(word, offset);
    range.setStart(node, start); range.setEnd(node, start + word.length);
    const lines = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
    if (lines.size > 1) broken = true;
    offset = start + word.length;
  }
  range.selectNodeContents(el);
  const over = range.getBoundingClientRect().width > box.getBoundingClientRect().width + 0.5;
  return {text, broken, over};
})"""


def shown_names(page, selector: str) -> list[dict]:
    return page.locator(selector).evaluate_all(MEASURE)


def assert_told_apart(found: list[dict]) -> None:
    texts = [f["text"] for f in found]
    assert len(set(texts)) == len(NAMES), texts
    for name, shortest, f in zip(NAMES, SHORTEST, found):
        # The whole name or a beginning of it, never shorter than what tells it apart.
        assert name.startswith(f["text"]) and len(f["text"]) >= len(shortest), (name, f)
        assert not f["broken"] and not f["over"], (name, f)


@pytest.mark.parametrize("width, height, scheme", SCREENS, ids=[f"{w}-{s}" for w, _, s in SCREENS])
def test_eight_names_are_told_apart_and_never_broken_mid_word(live_server, browser, width, height, scheme):
    page = phone(browser, width, height, color_scheme=scheme).new_page()
    page.base_url, page.app = live_server.base_url, live_server
    sign_up(page)
    game_id = game_of(page, NAMES)
    live_server.config["WTF_CSRF_ENABLED"] = False
    try:
        actions = GameActions(strict_client(live_server, "ann"), live_server)
        actions.record(actions.player_ids(game_id), game_id, 1, "Grandpa", {n: "K 5 7" for n in NAMES if n != "Grandpa"})
    finally:
        live_server.config["WTF_CSRF_ENABLED"] = True
    page.goto(page.base_url + f"/games/{game_id}")
    sync_api.expect(page.locator(".player-row")).to_have_count(8)
    assert_told_apart(shown_names(page, ".player-row .name-text"))
    shot(page, f"names-round-{width}-{scheme}")

    # The card entry: the switcher, then Cousin Bernadette's hand with seven cards tapped.
    page.get_by_role("link", name="Hand over — enter cards").click()
    page.locator(".chip-choice", has_text="Grandma").click()  # she went out
    sync_api.expect(page.locator("[data-switcher]")).to_be_visible()
    assert_told_apart(shown_names(page, ".switch-name"))
    page.locator("[data-switch]").nth(2).click()
    for code in ["K", "Q", "10", "7", "A", "JK", "9"]:
        page.locator(f"[data-keypad] [data-add='{code}']").click()
    hand = page.locator("fieldset.hand.is-active")
    sync_api.expect(hand.locator(".card-chip")).to_have_count(7)
    keypad_top = page.locator("[data-entry-actions]").bounding_box()["y"]
    seventh = hand.locator(".card-chip").nth(6).bounding_box()
    for what, box in (("the 7th card", seventh), ("Laid down", hand.get_by_label("Laid down").bounding_box()),
                      ("Buys", hand.get_by_label("Buys").bounding_box())):
        assert box["y"] >= 0 and box["y"] + box["height"] <= keypad_top, f"{what} is under the keypad"
    shot(page, f"names-entry-{width}-{scheme}")

    # The standings, and the dealer of each round in their first column.
    page.goto(page.base_url + f"/games/{game_id}/standings")
    heads = shown_names(page, "table.standings thead th[data-seat]")
    assert [h["text"] for h in heads] == SHORTEST
    assert not any(h["over"] for h in heads)
    dealers = page.locator("table.standings tbody small.dealer")
    sync_api.expect(dealers).to_have_text([SHORTEST[(n - 1) % 8] for n in range(1, 11)])
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for dealer in dealers.all():
        room = dealer.evaluate("""el => { const th = el.parentElement, style = getComputedStyle(th), range = document.createRange();
            range.selectNodeContents(el);
            return [range.getBoundingClientRect().width, th.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)]; }""")
        assert room[0] <= room[1] + 0.5, (dealer.text_content(), room)
    shot(page, f"names-standings-{width}-{scheme}")
