"""Phone-first quality: every main page at 360 px without sideways scrolling, an axe-core scan in light
and dark mode, screenshots of both modes, tap targets of at least 44 px and a keypad a screen reader
can use.

axe-core comes from PyPI: the ``axe.min.js`` that the ``axe-playwright-python`` package (the ``test`` extra)
ships. It is injected into the page from that file and run by our own script below: the app's
Content-Security-Policy forbids inline script, so the scanning contexts bypass it. The package is a
test dependency, so without it the scan fails rather than skips."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from playwright import sync_api

from tests.browser.conftest import SCREENSHOTS, hand, phone, row, served, shot, show_hand, sign_up, tap_cards

pytestmark = pytest.mark.browser

expect = sync_api.expect

AXE_PACKAGE = "axe-playwright-python"  # ships axe-core as axe_playwright_python/axe.min.js
NARROW = (360, 780)  # the narrowest common phone: nothing may scroll sideways
SHOT_SIZE = (390, 844)
SCHEMES = ("light", "dark")
RULES = "shanghai-10"  # the preset of the game in progress: it has bonuses, so the entry page shows them
TAP = 44  # CSS px, the smallest tap target

# Who looks at a page: NEW before anyone has signed up, GUEST signed out, MEMBER signed in.
NEW, GUEST, MEMBER = "new", "guest", "member"


def _seating(page, facts):
    page.goto(facts["base"] + "/games/new")
    page.get_by_label("Shanghai Rummy (11 rounds)").check()
    page.get_by_label("Mum").check()
    page.locator("#new_players").fill("Ann, Bartholomew-Christopher")
    page.get_by_role("button", name="Next: seating").click()
    expect(page.get_by_role("heading", name="Seating")).to_be_visible()


def _entry(page, facts):
    # The phone keeps typed cards as a draft (even as the page is left): start afresh from another page.
    page.goto(facts["base"] + "/")
    page.evaluate("localStorage.clear()")
    page.goto(facts["base"] + f"/games/{facts['playing']}/rounds/1/score")
    page.locator(".chip-choice", has_text="Mum").click()
    tap_cards(page, "Ann", ("K", "K", "JK", "A"))
    expect(hand(page, "Ann").locator("[data-hand-points]")).to_have_text("50 pts")


def _review(page, facts):
    _entry(page, facts)
    tap_cards(page, "Grandma Rose", ("5",))
    show_hand(page, "Sam").get_by_label("Or the total, counted by hand").fill("85")
    page.get_by_role("button", name="Check points").click()
    expect(page.locator("table.review")).to_be_visible()


def _print_menu_open(page, facts):
    page.goto(facts["base"] + f"/games/{facts['playing']}")
    page.locator("details.menu summary").click()
    expect(page.get_by_role("link", name="Score sheet (PDF)")).to_be_visible()


def _house_rules_refused(page, facts):
    """The editor after a failed save: a contract it cannot read and no name, marked beside the fields."""
    page.goto(facts["base"] + "/house-rules/new?from=" + RULES)
    page.get_by_label("Name", exact=True).fill("")
    page.locator("#rounds-1-melds").fill("two sets")
    page.get_by_role("button", name="Save rules").click()
    expect(page.get_by_role("alert").first).to_have_text("Some rules need another look: see the marked fields.")
    expect(page.get_by_text("Could not read “two sets”.", exact=False)).to_be_visible()


def _phone_setup(page, facts):
    """The set-up page as ``serve --https`` shows it to a new phone: the family's certificate and the steps."""
    app = facts["app"]
    if not app.config.get("SERVE_HTTP_PORT"):
        from scorekeeper.hosting import certificates

        app.instance_path = facts["instance"]  # the test's own folder, not the checkout's instance/
        certificates.ensure_ca(certificates.tls_files(app.instance_path), "kitchen.local")
        app.config.update(SERVE_PORT=8000, SERVE_HTTP_PORT=app.live.port)  # served here as the plain-HTTP port
    page.goto(facts["base"] + "/phone")
    for steps in page.locator("details.steps").all():
        steps.locator("summary").click()  # both open: everything on the page is scanned
    expect(page.locator("details[open]")).to_have_count(2)


# The main pages: name → (who, path or navigate(page, facts)). A path is formatted with the facts that
# ``_family`` gathers (game and player ids, the invite link). Adding a page is one line.
PAGES = {
    "welcome": (NEW, "/"),
    "sign-in": (GUEST, "/login"),
    "new-family": (GUEST, "/signup"),
    "join": (GUEST, "{join}"),
    "home": (MEMBER, "/"),
    "new-game": (MEMBER, "/games/new"),
    "seating": (MEMBER, _seating),
    "round": (MEMBER, "/games/{playing}"),
    "round-print-menu": (MEMBER, _print_menu_open),
    "card-entry": (MEMBER, _entry),
    "review": (MEMBER, _review),
    "standings-playing": (MEMBER, "/games/{playing}/standings"),
    "standings-finished": (MEMBER, "/games/{finished}/standings"),
    "history": (MEMBER, "/history"),
    "player-profile": (MEMBER, "/players/{player}"),
    "players": (MEMBER, "/players"),
    "records": (MEMBER, "/records?a={player}&b={rival}"),
    "season": (MEMBER, "/seasons"),  # the newest season: the demo history ends today
    "family": (MEMBER, "/family"),
    "import": (MEMBER, "/import"),
    "print": (MEMBER, "/print"),
    "delete-confirm": (MEMBER, "/games/{finished}/delete"),
    "share": (MEMBER, "/games/{playing}/share"),
    "live-scoreboard": (GUEST, "{live}"),
    "keeper-round": (GUEST, "{keep}"),
    "rules": (GUEST, "/rules"),
    "rules-card": (MEMBER, "/rules/" + RULES),
    "offline": (GUEST, "/offline"),
    "phone-setup": (GUEST, _phone_setup),
    "house-rules": (MEMBER, "/house-rules"),
    "house-rules-editor": (MEMBER, "/house-rules/new?from=" + RULES),
    "house-rules-editor-refused": (MEMBER, _house_rules_refused),
    "house-rules-card": (MEMBER, "/house-rules/{house_rules}"),
    "house-rules-delete": (MEMBER, "/house-rules/{house_rules}/delete"),
    "game-rules": (MEMBER, "/games/{house_game}/rules"),
}


def _family(live_server, browser, instance: str) -> dict:
    """Ann signs up through the UI; a demo history is added; a game in progress is started through the
    UI (one player at the buy limit, one laid down); an invite link and the game's share links are made;
    house rules are written in the editor (a copy of the preset, with a going-out bonus per round and a
    bonus anyone can earn) and a second game is started with them.
    Returns the facts the page table needs, with the signed-in storage state."""
    page = phone(browser).new_page()
    page.base_url = live_server.base_url
    sign_up(page)
    expect(page.get_by_role("heading", name="The Parkers")).to_be_visible()
    with live_server.app_context():
        from scorekeeper.demo import seed_demo
        from scorekeeper.extensions import db
        from scorekeeper.models import Game, Player
        from scorekeeper.web import access

        seed_demo(access.current_family(), 40, seed=5)
        finished = db.session.execute(db.select(db.func.max(Game.id))).scalar()
        ids = {p.name: p.id for p in db.session.execute(db.select(Player)).scalars()}

    page.goto(live_server.base_url + "/games/new")
    page.get_by_label("Shanghai Rummy (10 contracts)").check()
    for name in ("Grandma Rose", "Mum", "Sam"):
        page.get_by_label(name).check()
    page.locator("#new_players").fill("Ann")
    page.get_by_role("button", name="Next: seating").click()
    page.get_by_role("button", name="Start game").click()
    expect(page.locator("h1.contract")).to_be_visible()
    playing = int(page.url.rstrip("/").rsplit("/", 1)[1])
    for _ in range(3):
        row(page, "Sam").get_by_role("button", name="Buy for Sam").click()
    expect(row(page, "Sam").locator(".buy-count")).to_have_class("buy-count full")
    row(page, "Mum").get_by_role("button", name="Mum has not laid down").click()
    expect(row(page, "Mum").locator(".btn-toggle")).to_have_text("Down ✓")

    page.goto(live_server.base_url + "/family")
    page.get_by_role("button", name="Make an invite link").click()
    join = page.get_by_label("Invite link").input_value().removeprefix(live_server.base_url)
    page.goto(live_server.base_url + f"/games/{playing}/share")
    page.get_by_role("button", name="Scoreboard link").click()
    page.get_by_role("button", name="Score keeper link").click()
    live, keep = (page.get_by_role("textbox", name=f"{kind} link").input_value()
                  for kind in ("Scoreboard", "Score keeper"))
    live, keep = (url.removeprefix(live_server.base_url) for url in (live, keep))

    page.goto(live_server.base_url + "/house-rules/new?from=" + RULES)
    page.get_by_label("Name", exact=True).fill("Gran's Shanghai")
    page.get_by_label("Where the rules come from").fill("Gran, kitchen table 1987")
    page.get_by_label("A bonus × the round number").check()
    page.get_by_label("Bonus for going out", exact=True).fill("5")
    page.get_by_label("A bonus anyone can earn, named").fill("Cut the exact number of cards")
    page.get_by_label("That bonus").fill("10")
    page.get_by_role("button", name="Save rules").click()
    expect(page.get_by_role("link", name="Rule card (PDF)")).to_be_visible()
    house_rules = int(page.url.rstrip("/").rsplit("/", 1)[1])
    page.goto(live_server.base_url + "/games/new")
    page.get_by_label("Gran's Shanghai").check()
    for name in ("Grandma Rose", "Mum", "Sam"):
        page.get_by_label(name).check()
    page.get_by_role("button", name="Next: seating").click()
    page.get_by_role("button", name="Start game").click()
    expect(page.locator("h1.contract")).to_be_visible()
    house_game = int(page.url.rstrip("/").rsplit("/", 1)[1])

    state = page.context.storage_state()
    page.context.close()
    return {"base": live_server.base_url, "state": state, "playing": playing, "finished": finished,
            "player": ids["Mum"], "rival": ids["Dad"], "join": join, "live": live, "keep": keep,
            "house_rules": house_rules, "house_game": house_game, "app": live_server, "instance": instance}


@pytest.fixture(scope="module")
def family(tmp_path_factory, chromium) -> dict:
    """``_family``'s facts, made once for this file's tests on a server of their own: they only look."""
    with served(tmp_path_factory.mktemp("a11y")) as app:
        yield _family(app, chromium, str(tmp_path_factory.mktemp("instance")))


def _tour(live_server, browser, family, size, names=tuple(PAGES), schemes=SCHEMES, **options):
    """Open the pages of PAGES called ``names`` in each colour scheme on a phone of ``size``; yields
    (name, scheme, page). NEW pages come first, on ``live_server`` (nobody signed up), then the
    ``family``'s."""
    contexts = {}

    def open_page(who, scheme, facts):
        if (who, scheme) not in contexts:
            state = facts["state"] if who == MEMBER else None
            context = phone(browser, *size, color_scheme=scheme, storage_state=state, **options)
            contexts[(who, scheme)] = context.new_page()
        return contexts[(who, scheme)]

    facts = {"base": live_server.base_url if live_server else None, "state": None}
    ordered = sorted(((name, PAGES[name]) for name in names), key=lambda item: item[1][0] != NEW)
    try:
        for name, (who, target) in ordered:
            if who != NEW:
                facts = family
            for scheme in schemes:
                page = open_page(who, scheme, facts)
                if callable(target):
                    target(page, facts)
                else:
                    page.goto(facts["base"] + target.format(**facts))
                yield name, scheme, page
    finally:
        for page in contexts.values():
            page.context.close()


def _axe_file() -> Path:
    """The axe.min.js inside the installed axe-playwright-python package; a missing one fails the test."""
    install = f'{AXE_PACKAGE} (a test dependency) is missing: run `pip install -e ".[test]"`'
    try:
        axe = resources.files("axe_playwright_python") / "axe.min.js"
    except ModuleNotFoundError:
        pytest.fail(install)
    if not axe.is_file():
        pytest.fail(f"{axe} is missing: {AXE_PACKAGE} no longer ships axe-core where this test looks")
    return Path(str(axe))


SCAN = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => ({id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.map(n => n.target.join(' ') +
                  (v.id === 'color-contrast' && n.any.length ? ' — ' + n.any[0].message : ''))}));
}"""


WIDEST = """(limit) => [...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > limit)
  .slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''))"""


def test_every_main_page_fits_360px_and_axe_finds_no_serious_problems_in_light_or_dark(live_server, browser, family):
    """Every main page at 360 px, in both colour schemes, in one tour: none scrolls sideways, and axe-core
    finds no serious or critical violation. With SCOREKEEPER_SCREENSHOTS set, screenshots of both schemes
    at 390 px (the same page, widened: the welcome page exists only until the first sign-up)."""
    axe = _axe_file()
    wide, found = [], []
    for name, scheme, page in _tour(live_server, browser, family, NARROW, bypass_csp=True):
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > NARROW[0]:
            culprits = page.evaluate(WIDEST, NARROW[0])
            wide.append(f"{name} ({scheme}): {width}px, widest: {', '.join(culprits)}")
        if SCREENSHOTS:
            page.set_viewport_size(dict(zip(("width", "height"), SHOT_SIZE)))
            shot(page, f"a11y-{name}-{scheme}")
            page.set_viewport_size(dict(zip(("width", "height"), NARROW)))
        page.add_script_tag(path=str(axe))
        for v in page.evaluate(SCAN):
            nodes = "\n      ".join(v["nodes"][:6]) + ("\n      …" if len(v["nodes"]) > 6 else "")
            found.append(f"{name} ({scheme}) {v['impact']} {v['id']}: {v['help']}\n      {nodes}")
    assert not wide, "Pages that scroll sideways at 360 px:\n" + "\n".join(wide)
    assert not found, f"axe-core found {len(found)} serious/critical problems:\n" + "\n".join(found)


# Everything a finger can aim at. An input is tapped through its label too, so the bigger of the two
# is measured (a checkbox is 22 px, its label 44).
TARGETS = """(tap) => {
  const seen = [...document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]')];
  const small = [];
  for (const el of seen) {
    if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    // WCAG 2.5.8 exempts a link inside a sentence ("Forgot your password? Ask…"): the line of text
    // around it sets its size. A link that is its paragraph's only text is no sentence: it is measured.
    const sentence = el.closest('p');
    if (el.matches('a') && sentence && sentence.textContent.trim() !== el.textContent.trim()) continue;
    const boxes = [el, ...(el.labels || [])].map(e => e.getBoundingClientRect());
    const box = boxes.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
    if (box.width < tap - 0.5 || box.height < tap - 0.5) {
      const name = el.getAttribute('aria-label') || el.textContent.trim() || el.name || el.type;
      small.push(`${el.tagName.toLowerCase()} "${name}" ${Math.round(box.width)}×${Math.round(box.height)}`);
    }
  }
  return small;
}"""


def test_round_screen_and_card_entry_suit_one_hand(browser, family):
    """Tap targets ≥ 44 px, the contract in large type, the frequent action in the thumb's reach, and a
    keypad whose keys a screen reader reads as the card and its points."""
    from scorekeeper.rules import get_variant

    reached = set()
    names = ("round", "round-print-menu", "card-entry")
    for name, _, page in _tour(None, browser, family, NARROW, names=names, schemes=("light",)):
        reached.add(name)
        small = page.evaluate(TARGETS, TAP)
        assert not small, f"{name}: tap targets under {TAP}×{TAP} px: " + "; ".join(small)
        height = page.viewport_size["height"]
        if name == "round":
            size = page.locator("h1.contract").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
            assert size >= 28, f"the contract is set in {size}px type"
            action = page.get_by_role("link", name="Hand over — enter cards").bounding_box()
            assert action and action["y"] >= height * 2 / 3, "Hand over is out of the thumb's reach"
        if name == "card-entry":
            action = page.get_by_role("button", name="Check points").bounding_box()
            assert action and action["y"] >= height * 2 / 3, "Check points is out of the thumb's reach"
            # One keypad, whose keys read as the card, its points and whose hand it goes to.
            for player in ("Grandma Rose", "Sam", "Ann"):
                show_hand(page, player)
                for key in get_variant(RULES).keys:
                    label = f"{key.label}, {key.points} points, to {player}"
                    expect(page.get_by_role("button", name=label, exact=True)).to_be_enabled()
            show_hand(page, "Mum")  # Mum went out: no cards to add to her hand
            expect(page.locator("[data-keypad] [data-add]:disabled")).to_have_count(len(get_variant(RULES).keys))
            # The cards tapped so far are buttons that say what they take away; the sum is announced.
            ann = show_hand(page, "Ann")
            expect(ann.get_by_role("button", name="Remove one K of 2", exact=True)).to_have_count(1)
            expect(ann.get_by_role("button", name="Remove one Joker", exact=True)).to_have_count(1)
            expect(ann.locator("output[data-hand-points]")).to_have_attribute("aria-live", "polite")
            # Nothing jumps the reading order.
            assert page.locator("[tabindex]:not([tabindex='0']):not([tabindex='-1'])").count() == 0
    assert reached == set(names)


FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const box = el.getBoundingClientRect();
  // A chip's radio is invisible: the ring is drawn on the chip next to it.
  const ringed = el.matches('.chip-choice input') ? el.nextElementSibling : el;
  const style = getComputedStyle(ringed);
  const bar = document.querySelector('.sticky-actions');
  return {node: [...document.querySelectorAll('*')].indexOf(el),
          name: el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30) || el.name || el.type,
          top: box.top + scrollY, bottom: box.bottom,
          barTop: bar ? bar.getBoundingClientRect().top : innerHeight,
          sticky: !!el.closest('.sticky-actions'),
          ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2};
}"""


def test_keyboard_order_follows_the_screen_and_focus_shows(browser, family):
    """Tab through the round screen and the card entry: focus moves down the page (the sticky action
    last), every stop shows a focus ring, and none is hidden under the sticky bar."""
    names = ("round", "card-entry")
    reached = set()
    for name, _, page in _tour(None, browser, family, NARROW, names=names, schemes=("light",)):
        reached.add(name)
        page.locator("a.brand").focus()  # start where a keyboard starts: the top of the page
        stops, previous = [], None
        for _ in range(200):
            page.keyboard.press("Tab")
            stop = page.evaluate(FOCUSED)
            if stop is None or stop["node"] in [s["node"] for s in stops]:
                break  # out of the page, or round again
            stops.append(stop)
            assert stop["ring"], f"{name}: no focus ring on {stop['name']!r}"
            if stop["sticky"]:
                break
            assert stop["bottom"] <= stop["barTop"], f"{name}: {stop['name']!r} is under the sticky bar"
            if previous is not None:
                assert stop["top"] >= previous["top"] - 8, (
                    f"{name}: focus jumps up from {previous['name']!r} to {stop['name']!r}")
            previous = stop
        assert stops and stops[-1]["sticky"], f"{name}: the sticky action is not the last stop"
    assert reached == set(names)
