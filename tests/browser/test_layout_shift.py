"""No page moves once it is on screen: what the script places (the card entry's keypad and its one
hand at a time, the plain-HTTP hint, the game's sync line) has its room from the first paint.

Measured as Lighthouse measures a mobile load: every layout shift from the start of the page is
added up, those Chromium flags as "after recent input" too. Chromium flags the shifts of the first
half second after a mobile viewport is set up that way although nobody touched the page, so an
observer that drops them (as the web-vitals library does) adds up to 0 where Lighthouse finds 0.07
to 0.18 on the card entry; these tests make no input at all, so every shift counts. The script is
held back until the page has been painted once, as on a phone whose connection is slower than the
localhost of the tests (here the script would often run before the first paint, and then nothing
seems to move). The pages are opened over plain HTTP on a name that is not localhost, as a phone
on the home Wi-Fi opens them, so the plain-HTTP hint shows too.
"""

from __future__ import annotations

import threading

import pytest
from playwright import sync_api
from werkzeug.serving import make_server

from scorekeeper import rules
from scorekeeper.demo import seed_demo
from scorekeeper.extensions import db
from scorekeeper.families import sole_family
from scorekeeper.games import hands, service
from scorekeeper.models import Member
from scorekeeper.sharing import service as sharing
from tests.browser.conftest import PLAIN_HTTP_NAME, phone
from tests.databases import TEST_PASSWORD, TEST_USERNAME, drop_app, make_app

pytestmark = pytest.mark.browser

CLS_BUDGET = 0.01  # Lighthouse's mobile run must find no more on any page (bench/lighthouse.py)
NAME = PLAIN_HTTP_NAME
PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]

# Every layout shift from the start of the page, with what moved from where to where.
WATCH = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    window.__shifts.push({value: e.value, at: Math.round(e.startTime), input: e.hadRecentInput, moved: e.sources.map((s) => {
      const n = s.node, p = s.previousRect, c = s.currentRect;
      const name = !n ? "?" : n.nodeType === 1 ? n.tagName.toLowerCase() + (n.id ? "#" + n.id : "") +
        (n.className && typeof n.className === "string" ? "." + n.className.trim().split(/\\s+/).join(".") : "")
        : "text '" + (n.textContent || "").trim().slice(0, 30) + "'";
      return name + " " + [p.x, p.y, p.width, p.height].map(Math.round) + " -> " + [c.x, c.y, c.width, c.height].map(Math.round);
    })});
  }
}).observe({type: "layout-shift", buffered: true});
"""
SETTLED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 100))))"


def seed(app) -> dict[str, str]:
    """A family with a year of finished games, a game of eight in round 3 and a public scoreboard of
    it; the address of every page the bench's Lighthouse run measures."""
    with app.app_context():
        family = sole_family()
        seed_demo(family, 30, seed=3)
        variant = rules.get_variant("shanghai-10")
        seats = [service.SeatChoice(new_name=name) for name in PLAYERS]
        game = service.start_game(family, variant, seats, first_dealer=0)
        ids = [seat.player_id for seat in game.seats]
        for number in (1, 2):
            hands.record_round(game, number, [
                rules.Hand(player_id=pid, went_out=i == number, laid_down=True, counts={} if i == number else {"K": 1})
                for i, pid in enumerate(ids)], version=0)
        member = db.session.execute(db.select(Member).where(Member.username == TEST_USERNAME)).scalar_one()
        board = sharing.create(game, "view", member).token
        player, year = ids[0], game.started_at.year
        db.session.commit()
        return {
            "home": "/", "round screen": f"/games/{game.id}", "card entry": f"/games/{game.id}/rounds/3/score",
            "card entry, a round edited": f"/games/{game.id}/rounds/1/score",
            "standings": f"/games/{game.id}/standings", "scoreboard": f"/live/{board}/board", "history": "/history",
            "profile": f"/players/{player}", "records": "/records", "season": f"/seasons/{year}",
            "share": f"/games/{game.id}/share", "family": "/family", "house rules": "/house-rules",
            "paper grid": f"/games/{game.id}/paper",
        }


@pytest.fixture(scope="module")
def seeded_site(tmp_path_factory):
    """The seeded app served on a loopback port (shared by this file's tests, which only read it, the
    last one making a buy): its address as Chromium reaches it over plain HTTP, and the paths."""
    app = make_app(tmp_path_factory.mktemp("site"), keep=True, WTF_CSRF_ENABLED=True)
    paths = seed(app)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://{NAME}:{server.server_port}", paths
    server.shutdown()
    drop_app(app)


@pytest.fixture
def site(seeded_site, browser):
    """The seeded app, reached as http://scorekeeper.test:PORT by a Chromium that maps that name to
    the loopback: plain HTTP, not a secure context."""
    return (browser, *seeded_site)


def signed_in_cookies(browser, base: str) -> list:
    context = phone(browser)
    page = context.new_page()
    page.goto(base + "/login")
    page.get_by_label("Username").fill(TEST_USERNAME)
    page.get_by_label("Password").fill(TEST_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(base + "/")
    cookies = context.cookies()
    context.close()
    return cookies


def hold_script(route) -> None:
    """Answer once the page has been painted (a module script does not block that)."""
    route.request.frame.wait_for_function("() => performance.getEntriesByName('first-paint').length > 0")
    route.continue_()


def opened(browser, base: str, cookies: list, path: str, script=hold_script):
    """A new phone (nothing stored) opening ``path``, main.js answered by ``script``; once settled."""
    context = phone(browser)
    context.add_cookies(cookies)
    page = context.new_page()
    page.add_init_script(WATCH)
    page.route("**/static/js/main.js?*", script)
    page.goto(base + path, wait_until="networkidle")
    assert page.url == base + path, f"{path} led to {page.url}"
    page.evaluate(SETTLED)
    return page


def shifts_of(page, after_input: bool = True) -> tuple[float, str]:
    """The page's layout shifts added up (without those right after a tap, with ``after_input``
    false), and what moved."""
    assert page.evaluate("performance.getEntriesByName('first-paint').length") == 1
    shifts = [s for s in page.evaluate("window.__shifts") if after_input or not s["input"]]
    return sum(s["value"] for s in shifts), " | ".join(
        f"at {s['at']} ms {s['value']:.3f} " + ", ".join(s["moved"]) for s in shifts)


def test_the_card_entry_is_drawn_with_its_keypad_before_the_script_sets_it_up(site):
    """On localhost (a secure context: no hint), as Lighthouse opens it: the card entry, a new one
    and a round edited (its choice of who went out folded), moves less than Lighthouse's budget.
    Before the page was drawn for the script, this found 0.074 where Lighthouse found 0.073."""
    browser, base, paths = site
    local = base.replace(NAME, "127.0.0.1")
    cookies = signed_in_cookies(browser, local)
    for name in ("card entry", "card entry, a round edited"):
        page = opened(browser, local, cookies, paths[name])
        total, moved = shifts_of(page)
        assert total <= CLS_BUDGET, f"{name} moved {total:.3f}: {moved}"
        assert page.locator("[data-keypad]").is_visible() and not page.locator(".counts").first.is_visible()
        page.context.close()


def test_no_page_moves_when_the_script_arrives_after_the_first_paint(site):
    """Every page over plain HTTP, where the script also shows the hint of what needs HTTPS."""
    browser, base, paths = site
    cookies = signed_in_cookies(browser, base)
    moved = {}
    for name, path in paths.items():
        page = opened(browser, base, cookies, path)
        assert page.locator("[data-https-hint]").is_visible() or path.startswith("/live/"), name
        total, what = shifts_of(page)
        if total > CLS_BUDGET:
            moved[name] = f"{total:.3f}: {what}"
        page.context.close()
    assert not moved, "\n".join(f"{name} moved {what}" for name, what in moved.items())


def test_when_the_script_never_arrives_the_card_entry_is_the_form_without_it(site):
    """A connection that drops as the page loads: early.js marked the page for the script, and
    gives it back its form without one (every hand's count fields, no keypad) once it has loaded."""
    browser, base, paths = site
    cookies = signed_in_cookies(browser, base)
    page = opened(browser, base, cookies, paths["card entry"], script=lambda route: route.abort())
    assert page.evaluate("document.documentElement.className").split() == ["has-sticky", "has-keypad"]
    expect = sync_api.expect
    expect(page.locator("[data-keypad]")).to_be_hidden()
    expect(page.locator("[data-https-hint]")).to_be_hidden()
    expect(page.locator("fieldset.hand")).to_have_count(len(PLAYERS))
    for hand in page.locator("fieldset.hand").all():
        expect(hand.get_by_label("Or the total, counted by hand")).to_be_visible()
        expect(hand.locator(".counts")).to_be_visible()
    page.context.close()


def test_a_tap_that_waits_for_the_server_moves_nothing_when_the_server_answers(site):
    """On the round screen a buy shows at once, and the sync line says it waits on the phone until the
    server has it, a second later on a slow Wi-Fi: that line keeps its room, so neither its showing
    nor its going moves the players' rows (a shift long after the tap counts against the page)."""
    browser, base, paths = site
    local = base.replace(NAME, "127.0.0.1")
    page = opened(browser, local, signed_in_cookies(browser, local), paths["round screen"])
    held = []
    page.route("**/actions", lambda route: held.append(route))
    page.get_by_role("button", name="Buy for Bob").tap()
    expect = sync_api.expect
    expect(page.locator("[data-sync]")).to_contain_text("Saved on this phone — will send (1)")
    page.wait_for_timeout(800)  # past the half second in which a change counts as the tap's own
    for route in held:
        route.continue_()
    expect(page.locator(".game")).to_have_attribute("data-pending", "0")
    expect(page.locator("[data-sync]")).not_to_contain_text("will send")
    page.evaluate(SETTLED)
    total, moved = shifts_of(page, after_input=False)
    assert total <= CLS_BUDGET, f"the round screen moved {total:.3f}: {moved}"
    page.context.close()
