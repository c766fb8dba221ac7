"""Browser fixtures: a live server on a fresh instance and a phone-sized page in Debian Chromium.

Without Chromium these tests are skipped, except in CI, where `.ci/run` installs it."""

import contextlib
import os
import re
import shutil
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from tests.databases import drop_app, make_app

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(__file__).parent.parent / "screenshots"
SCREENSHOTS = bool(os.environ.get("SCOREKEEPER_SCREENSHOTS"))

collect_ignore_glob: list[str] = []
if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
    if os.environ.get("CI"):
        raise RuntimeError("CI needs Debian's chromium for the browser tests (.ci/run installs it)")
    collect_ignore_glob = ["test_*.py"]

from playwright import sync_api  # noqa: E402


class LiveServer:
    """The app served on a loopback port, which a test can take off the network and back."""

    def __init__(self, app, port: int = 0):
        self.app = app
        self.server = None
        self.port = port

    def start(self) -> None:
        if self.server is not None:
            return  # already serving
        self.server = make_server("127.0.0.1", self.port, self.app, threaded=True)
        self.port = self.server.server_port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()  # connections are refused: to a phone, the network is gone
        self.server = None


@contextlib.contextmanager
def served(folder: Path):
    """A new instance (CSRF on, nobody signed up) served on a free loopback port;
    ``app.base_url`` is its address, ``app.live`` its ``LiveServer``."""
    # Listening on loopback only, as ``serve --host 127.0.0.1``: links keep the address they were made at.
    # A cheap password hash: every test signs a family up; scrypt's cost is the point only on a real server.
    app = make_app(folder, family=None, keep=True, WTF_CSRF_ENABLED=True, LAN_ADDRESSES=[],
                   PASSWORD_HASH="pbkdf2:sha256:1000")
    app.live = LiveServer(app)
    app.live.start()
    app.base_url = f"http://127.0.0.1:{app.live.port}"
    try:
        yield app
    finally:
        app.live.stop()
        drop_app(app)


@pytest.fixture
def live_server(tmp_path):
    """``served`` for one test."""
    with served(tmp_path) as app:
        yield app


def phone(browser, width: int = 390, height: int = 844, **options):
    """A new phone-sized browser context (its own cookies and storage)."""
    return browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=2,
                               is_mobile=True, has_touch=True, **options)


ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def playwright():
    """Playwright's driver, once per test process: only one may run at a time, so every Chromium the
    tests need (``launch``) is started from this one."""
    with sync_api.sync_playwright() as p:
        yield p


def launch(playwright, *args: str, **options):
    """A headless Debian Chromium with the tests' flags and ``args``."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=[*ARGS, *args], **options)


# A name that is not localhost, for the app as a phone on the home Wi-Fi opens it: plain HTTP, no secure context.
PLAIN_HTTP_NAME = "scorekeeper.test"


@pytest.fixture(scope="session")
def chromium(playwright):
    browser = launch(playwright, f"--host-resolver-rules=MAP {PLAIN_HTTP_NAME} 127.0.0.1")
    yield browser
    browser.close()


@pytest.fixture
def browser(chromium):
    """Headless Debian Chromium; open phones on it with ``phone(browser)``. One Chromium serves every
    test (starting one costs more than most tests); each phone is its own context (cookies, storage,
    service workers), and the phones a test opened are closed when it ends."""
    yield chromium
    for context in chromium.contexts:
        context.close()


@pytest.fixture
def page(live_server, browser):
    """A phone at 390×844 on the live server; ``page.base_url`` and ``page.app`` tell which."""
    page = phone(browser).new_page()
    page.base_url = live_server.base_url
    page.app = live_server
    return page


def shot(page, name: str) -> None:
    """A full-page picture in tests/screenshots/ for a person to look at, taken when
    SCOREKEEPER_SCREENSHOTS is set (nothing in the suite reads them; docs/pictures/ are made apart)."""
    if not SCREENSHOTS:
        return
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def row(page, name: str):
    return page.locator("li.player-row", has=page.locator(".name", has_text=name))


def hand(page, name: str):
    return page.locator("fieldset.hand", has=page.locator("legend", has_text=name))


def show_hand(page, name: str):
    """On the card-entry screen, switch to ``name``'s hand (one shows at a time); its fieldset. The
    switch is found by the hand's player, as its label may be the name cut to fit (static/js/names.js)."""
    exactly = re.compile(rf"^{re.escape(name)}$")
    player = page.locator("fieldset.hand").filter(has=page.locator("legend > span", has_text=exactly))
    page.locator(f"[data-switch='{player.get_attribute('data-hand')}']").click()
    return hand(page, name)


def tap_cards(page, name: str, codes) -> None:
    """Show ``name``'s hand and tap these cards (keypad codes such as "K", "JK") on the one keypad."""
    show_hand(page, name)
    for code in codes:
        page.locator(f"[data-keypad] [data-add='{code}']").click()


def sign_up(page, screenshot: bool = False) -> None:
    """The first visit on a new instance: name the family, choose a login."""
    page.goto(page.base_url + "/")
    sync_api.expect(page.get_by_role("heading", name="Welcome to Scorekeeper")).to_be_visible()
    page.get_by_label("Family name").fill("The Parkers")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password", exact=True).fill("shuffle the decks")
    page.get_by_label("Password again").fill("shuffle the decks")
    if screenshot:
        shot(page, "00-welcome")
    page.get_by_role("button", name="Start").click()


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


def start_game(page, names: str = "Ann, Bob, Cy", rules: str = "Shanghai Rummy (10 contracts)") -> None:
    """From home, a game of ``names`` (shanghai-10 unless ``rules`` names others) with Ann dealing
    first: its round 1 on screen."""
    page.get_by_role("link", name="+ New game").click()
    page.get_by_label(rules).check()
    page.locator("#new_players").fill(names)
    page.get_by_role("button", name="Next: seating").click()
    page.locator(".chip-choice", has_text="Ann").click()
    page.get_by_role("button", name="Start game").click()
    sync_api.expect(page.locator("h1.contract")).to_have_text("Two sets of 3" if "10 contracts" in rules else "Two sets")
    game_ready(page)


def game_ready(page) -> None:
    """The game's script has taken over the page (the server's round screen shows before the modules
    run): from here a tap is drawn on the phone, not sent as the page's form."""
    sync_api.expect(page.locator(".game")).to_have_attribute("data-pending", re.compile(r"^\d+$"))


def all_sent(page, timeout: int = 20_000) -> None:
    """Everything the phone kept has been taken by the server."""
    sync_api.expect(page.locator(".game")).to_have_attribute("data-pending", "0", timeout=timeout)
