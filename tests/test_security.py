"""Security: response headers and no inline code, cookie flags, the secret key, CSRF on every
form that changes something, escaping of names everywhere they are shown, and request size limits.
"""

from __future__ import annotations

import io
import json
import re
import secrets
import subprocess
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from markupsafe import escape

from scorekeeper import create_app
from scorekeeper.extensions import db
from scorekeeper.models import SignInFailure
from scorekeeper.web.security import InsecureConfig
from tests.actions import GameActions
from tests.databases import TEST_PASSWORD, TEST_USERNAME, db_snapshot, make_app, strict_client
from tests.pages import input_value, inputs, round_data, score_url, set_cookie, text_of
from tests.test_house_rules import GRAN, save
from tests.test_printing import pdf_text
from tests.test_sharing import share
from tests.test_transfer import csv_rows

REPO = Path(__file__).resolve().parent.parent
EVIL_PLAYER = "<script>alert(1)</script>"
EVIL_FAMILY = '<b>Bold & "quoted"</b>'
NEW_PASSWORD = "correct horse battery"


def signed_in(client) -> bool:
    return client.get("/history").status_code == 200


def invite_path(client) -> str:
    """Make an invite link on the family page; its path."""
    client.post("/family/invites")
    link = [i["value"] for i in inputs(client.get("/family")) if i.get("aria-label") == "Invite link"]
    return urlsplit(link[0]).path


def play_two_rounds(client, app, names) -> tuple[int, dict[str, int]]:
    """shanghai-10 with ``names`` (the first deals), rounds 1 and 2 recorded: (game id, ids)."""
    actions = GameActions(client, app)
    game_id = actions.new_game("shanghai-10", names, first_dealer=names[0])
    ids = actions.player_ids(game_id)
    a, b, c = names[:3]
    actions.record(ids, game_id, 1, a, {b: "K K", c: 20})
    actions.record(ids, game_id, 2, b, {a: "5", c: "A JK"})
    return game_id, ids


# -- headers and inline code on every page ------------------------------------------------


def site_tour(tmp_path) -> dict[str, object]:
    """Every kind of HTML page a family sees, by name: signed in, signed out and on a new instance."""
    app = make_app(tmp_path / "family")
    client = strict_client(app)
    game_id, ids = play_two_rounds(client, app, ["Ann", "Bob", "Cy"])
    join_path = invite_path(client)
    actions = GameActions(client)
    version, kept = actions.opened_form(game_id, 3)
    review_data = {**kept, **round_data(ids, "Cy", {"Ann": "K", "Bob": 5}, version), "action": "review"}
    live, keep = share(client, game_id, "view"), share(client, game_id, "keep")
    rules_id = save(client, GRAN)
    house_game = actions.new_game(f"house-{rules_id}", ["Ann", "Bob"])
    pages = {
        "home": client.get("/"),
        "home from the page cache": client.get("/"),
        "new game": client.get("/games/new"),
        "seating": client.post("/games/new", data={"variant": "family-7", "new_players": "Di, Ed, Flo"}),
        "play": client.get(f"/games/{game_id}"),
        "score entry": client.get(score_url(game_id, 3)),
        "review": client.post(score_url(game_id, 3), data=review_data),
        "standings": client.get(f"/games/{game_id}/standings"),
        "history": client.get("/history"),
        "players": client.get("/players"),
        "player": client.get(f"/players/{ids['Ann']}"),
        "records": client.get("/records"),
        "print": client.get("/print"),
        "print with an error": client.get("/print/sheet.pdf?variant=family-7"),
        "rules": client.get("/rules"),
        "rules of a preset": client.get("/rules/shanghai-rum"),
        "family": client.get("/family"),
        "import": client.get("/import"),
        "abandon": client.get(f"/games/{game_id}/abandon"),
        "delete": client.get(f"/games/{game_id}/delete"),
        "not found": client.get("/games/999999"),
        "join while signed in": client.get(join_path),
        "share": client.get(f"/games/{game_id}/share"),
        "house rules": client.get("/house-rules"),
        "house rules editor, blank": client.get("/house-rules/new"),
        "house rules editor, a preset's copy": client.get("/house-rules/new?from=shanghai-rum"),
        "house rules editor, a round added": client.post("/house-rules/new", data={**GRAN, "step": "add:rounds"}),
        "house rules editor with errors": client.post("/house-rules/new", data={**GRAN, "p_K": "-5",
                                                                                 "rounds-0-melds": "two sets"}),
        "house rules import refused": client.post("/house-rules/import",
                                                  data={"file": (io.BytesIO(b"not json"), "rules.json")}),
        "house rules page": client.get(f"/house-rules/{rules_id}"),
        "house rules edit": client.get(f"/house-rules/{rules_id}/edit"),
        "house rules delete": client.get(f"/house-rules/{rules_id}/delete"),
        "rules of a game": client.get(f"/games/{house_game}/rules"),
        "rules of a game with a preset": client.get(f"/games/{game_id}/rules"),
    }
    visitor = strict_client(app, None)
    pages.update({
        "redirect to sign in": visitor.get("/history"),
        "login": visitor.get("/login"),
        "login refused": visitor.post("/login", data={"username": "nobody", "password": "wrong password"}),
        "signup": visitor.get("/signup"),
        "join": visitor.get(join_path),
        "join with a spent link": visitor.get("/join/not-a-real-token"),
        "rules signed out": visitor.get("/rules/online-11"),
        "live scoreboard": visitor.get(live),
        "live scoreboard's polled part": visitor.get(live + "/board"),
        "live link that does not work": visitor.get("/live/" + "x" * 32),
        "round screen from a score keeper link": strict_client(app, None).get(keep, follow_redirects=True),
        "rules of a game from a score keeper link": keeper_page(app, keep, f"/games/{game_id}/rules"),
        "offline": visitor.get("/offline"),
    })
    newcomer = strict_client(make_app(tmp_path / "new", family=None), None)
    pages["welcome"] = newcomer.get("/welcome")
    for name, page in pages.items():
        assert page.mimetype == "text/html", name
    return pages


def keeper_page(app, keep: str, path: str):
    """``path`` opened by a signed-out browser that opened the score keeper link ``keep``."""
    keeper = strict_client(app, None)
    assert keeper.get(keep).status_code == 302
    page = keeper.get(path)
    assert page.status_code == 200, path
    return page


def csp(response) -> dict[str, list[str]]:
    """The Content-Security-Policy directives: ``{"script-src": ["'self'"], ...}``."""
    policy = response.headers.get("Content-Security-Policy", "")
    return {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_every_page_sends_the_security_headers(tmp_path):
    for name, page in site_tour(tmp_path).items():
        policy = csp(page)
        script_src = policy.get("script-src", policy.get("default-src"))
        assert script_src, name
        assert "'unsafe-inline'" not in script_src and "'unsafe-eval'" not in script_src, name
        assert "'unsafe-inline'" not in policy.get("style-src", policy.get("default-src")), name
        assert policy.get("frame-ancestors") == ["'none'"], name
        assert policy.get("object-src") == ["'none'"], name
        assert page.headers.get("X-Content-Type-Options") == "nosniff", name
        assert page.headers.get("X-Frame-Options") == "DENY", name
        assert page.headers.get("Referrer-Policy") in ("no-referrer", "same-origin", "strict-origin"), name


URL_ATTRIBUTES = ("href", "src", "action", "formaction")


class InlineCode(HTMLParser):
    """Whatever a policy without 'unsafe-inline' would block: inline scripts and styles,
    event-handler and style attributes, javascript: links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._open: str | None = None  # an inline <script> or <style> being read

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name, value in attrs.items():
            script_link = (value or "").strip().lower().startswith("javascript:")
            if name.startswith("on") or name == "style" or (name in URL_ATTRIBUTES and script_link):
                self.found.append(f"<{tag} {name}={value!r}>")
        # A JSON data block (the game plan) is never run, so the policy has nothing to block.
        data_block = tag == "script" and attrs.get("type") == "application/json"
        if tag == "style" or (tag == "script" and not attrs.get("src") and not data_block):
            self._open = tag
            self.found.append(f"<{tag}> without src")

    def handle_endtag(self, tag):
        if tag == self._open:
            self._open = None

    def handle_data(self, data):
        if self._open and data.strip():
            self.found.append(f"<{self._open}>{data.strip()[:40]}")


def inline_code(response) -> list[str]:
    parser = InlineCode()
    parser.feed(response.get_data(as_text=True))
    return parser.found


def test_no_page_has_inline_script_style_or_event_handlers(tmp_path):
    for name, page in site_tour(tmp_path).items():
        assert inline_code(page) == [], name


def test_inline_code_finder_sees_what_the_policy_would_block():
    """The page scan above is only as good as this finder."""
    from flask import Response

    page = Response('<p style="color:red" onclick="x()"><script>go()</script><a href=" javascript:x()">a</a>'
                    '<script src="/static/js/main.js"></script><style>p{}</style>'
                    '<script type="application/json">{"a": 1}</script>', mimetype="text/html")
    assert len(inline_code(page)) == 7


@pytest.mark.parametrize("path, mimetype", [("/sw.js", "text/javascript"),
                                            ("/manifest.webmanifest", "application/manifest+json")])
def test_service_worker_and_manifest_send_nosniff_with_their_own_type(app, client, path, mimetype):
    """Not HTML, so not in the tour above; with nosniff, the type they are sent with is the one
    the browser goes by (a service worker is refused unless it is JavaScript)."""
    for who in (client, strict_client(app, None)):
        response = who.get(path)
        assert response.status_code == 200 and response.mimetype == mimetype
        assert response.headers.get("X-Content-Type-Options") == "nosniff"
        assert response.headers.get("X-Frame-Options") == "DENY"
        assert csp(response).get("script-src") == ["'self'"] or csp(response).get("default-src") == ["'self'"]


# -- cookies ------------------------------------------------------------------------------


def sign_in_response(app, remember=True):
    client = strict_client(app, None)
    data = {"username": TEST_USERNAME, "password": TEST_PASSWORD}
    if remember:
        data["remember"] = "y"
    response = client.post("/login", data=data)
    assert response.status_code == 302
    return response


def test_session_cookie_is_http_only_and_same_site_lax(app):
    session = set_cookie(sign_in_response(app), "session")
    assert session is not None
    assert session["httponly"]
    assert session["samesite"].lower() == "lax"


def test_session_and_remember_cookies_are_http_only(app):
    response = sign_in_response(app)
    assert set_cookie(response, "session")["httponly"]
    assert set_cookie(response, "remember_token")["httponly"]
    assert set_cookie(response, "remember_token")["samesite"].lower() == "lax"


@pytest.mark.parametrize("https", [False, True])
def test_cookies_are_secure_only_when_served_over_https(tmp_path, https):
    app = make_app(tmp_path, HTTPS=https)
    response = sign_in_response(app)
    assert bool(set_cookie(response, "session")["secure"]) is https
    assert bool(set_cookie(response, "remember_token")["secure"]) is https
    assert bool(response.headers.get("Strict-Transport-Security")) is https
    assert bool(set_cookie(response, "session")["secure"]) is https


@pytest.mark.parametrize("path", ["/logout", "/logout/everywhere"])
def test_signing_out_tells_the_browser_to_forget_its_cache_and_storage(app, client, path):
    """The service worker keeps pages and unsent forms of the family on the phone: signing out
    (here, or everywhere) has the browser drop them; no other answer does."""
    assert "Clear-Site-Data" not in client.get("/").headers
    response = client.post(path)
    assert response.status_code == 302 and urlsplit(response.headers["Location"]).path == "/login"
    assert response.headers.get("Clear-Site-Data") == '"cache", "storage"'
    assert not signed_in(client)
    assert "Clear-Site-Data" not in client.get("/login").headers


# -- the secret key -----------------------------------------------------------------------


@pytest.fixture
def instance(monkeypatch, tmp_path):
    """An empty instance folder, with no secret or database from the environment."""
    folder = tmp_path / "instance"
    monkeypatch.setenv("SCOREKEEPER_INSTANCE_PATH", str(folder))
    monkeypatch.delenv("SCOREKEEPER_SECRET_KEY", raising=False)
    monkeypatch.delenv("SCOREKEEPER_DATABASE_URL", raising=False)
    return folder


@pytest.mark.parametrize("secret", ["dev", "DEV", "secret", "changeme", "x" * 23, "short-but-random-42"])
def test_a_default_or_short_secret_stops_the_start(instance, secret):
    url = f"sqlite:///{instance.parent / 'never.sqlite'}"
    with pytest.raises(InsecureConfig, match="SECRET_KEY"):
        create_app({"SECRET_KEY": secret, "SQLALCHEMY_DATABASE_URI": url})
    assert not (instance.parent / "never.sqlite").exists()


def test_a_default_secret_from_the_environment_stops_the_start(instance, monkeypatch):
    monkeypatch.setenv("SCOREKEEPER_SECRET_KEY", "dev")
    monkeypatch.setenv("SCOREKEEPER_DATABASE_URL", f"sqlite:///{instance.parent / 'never.sqlite'}")
    with pytest.raises(InsecureConfig):
        create_app()


@pytest.mark.parametrize("secret", [None, secrets.token_urlsafe(32)], ids=["generated", "long-random"])
def test_a_long_random_or_generated_secret_serves_pages(instance, secret):
    app = make_app(instance.parent, TESTING=False, SECRET_KEY=secret)
    assert not app.testing
    assert len(app.config["SECRET_KEY"]) >= 32
    response = sign_in_response(app)
    assert set_cookie(response, "session") is not None


# A quoted literal after SECRET_KEY = or SECRET_KEY: (Python, shell, YAML); "$(...)", "${...}" and
# "<...>" are commands, variables and placeholders, not secrets.
SECRET_ASSIGNMENT = re.compile(r"""SECRET_KEY\s*[=:]\s*['"](?![$<{])[^'"\s]""")


def test_secret_pattern_catches_literal_assignments():
    for line in ('SECRET_KEY = "abc"', "SECRET_KEY='abc'", 'SCOREKEEPER_SECRET_KEY="abc123"', "SECRET_KEY: 'abc'"):
        assert SECRET_ASSIGNMENT.search(line), line
    for line in ('app.config["SECRET_KEY"] = _secret_key(path)', 'export SCOREKEEPER_SECRET_KEY="$(make-key)"',
                 "SECRET_KEY: '${{ secrets.KEY }}'", 'SECRET_KEY = ""'):
        assert not SECRET_ASSIGNMENT.search(line), line


def test_the_repository_holds_no_secret():
    listing = subprocess.run(["git", "ls-files"], check=False, cwd=REPO, capture_output=True, text=True)
    if listing.returncode != 0:
        pytest.skip("not a git checkout")
    files = listing.stdout.split()
    assert "scorekeeper/web/security.py" in files
    assert not [f for f in files if Path(f).name in ("secret_key", ".env") or f.startswith("instance/config")]
    found = []
    for name in files:
        if name.startswith("tests/"):
            continue
        try:
            text = (REPO / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        found += [f"{name}: {line.strip()}" for line in text.splitlines() if SECRET_ASSIGNMENT.search(line)]
    assert found == []


# -- CSRF ---------------------------------------------------------------------------------


@dataclass
class Guarded:
    """An app with CSRF protection on: a game with round 1 recorded and a buy for Bob in round 2,
    an open invite, an open scoreboard link to the game, and a client signed in as tester."""

    app: object
    client: object
    game_id: int
    ids: dict
    join_path: str
    cancel_path: str
    import_file: bytes
    revoke_path: str = ""
    rules_id: int = 0  # house rules, written in the editor
    rules_file: bytes = b""  # a rules file of other rules (another name), as from another family


@pytest.fixture
def guarded(tmp_path) -> Guarded:
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True)
    client = strict_client(app)
    app.config["WTF_CSRF_ENABLED"] = False  # the table is set up quickly; every check runs with it on
    actions = GameActions(client, app)
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K K", "Cy": 20})
    assert client.post(f"/games/{game_id}/rounds/2/buy", data={"player": ids["Bob"]}).status_code == 302
    export = json.loads(client.get("/export.json").get_data(as_text=True))
    export["games"][0]["uid"] = "f" * 32  # another game, as from another phone's export
    join_path = invite_path(client)
    cancel = re.findall(r'action="(/family/invites/\d+/cancel)"', client.get("/family").get_data(as_text=True))
    share(client, game_id, "view")
    revoke = re.findall(r'action="(/games/\d+/share/\d+/revoke)"', client.get(f"/games/{game_id}/share").text)
    rules_id = save(client, GRAN)
    rules_file = json.loads(client.get(f"/house-rules/{rules_id}/rules.json").get_data(as_text=True))
    rules_file["variant"]["name"] = "Grandad's Shanghai"
    app.config["WTF_CSRF_ENABLED"] = True
    return Guarded(app, client, game_id, ids, join_path, cancel[0], json.dumps(export).encode(), revoke[0],
                   rules_id, json.dumps(rules_file).encode())


def new_member_data(username="zed"):
    return {"family_name": "Second family", "username": username, "password": NEW_PASSWORD,
            "confirm": NEW_PASSWORD}


# name: (path, data, signed in, what a POST with the token does: "writes", "signs in", "signs out", "shows")
CSRF_ROUTES = {
    "round score": ("{score2}", "round", True, "writes"),
    "buy": ("/games/{game}/rounds/2/buy", {"player": "{Cy}"}, True, "writes"),
    "unbuy": ("/games/{game}/rounds/2/unbuy", {"player": "{Bob}"}, True, "writes"),
    "down": ("/games/{game}/rounds/2/down", {"player": "{Ann}", "laid_down": "1"}, True, "writes"),
    "undo": ("/games/{game}/undo", {"number": "1"}, True, "writes"),
    "abandon": ("/games/{game}/abandon", {}, True, "writes"),
    "delete": ("/games/{game}/delete", {}, True, "writes"),
    "new game": ("/games/new", {"variant": "family-7", "new_players": "Di, Ed, Flo"}, True, "shows"),
    "new game seating": ("/games/new/seating",
                         {"variant": "shanghai-10", "seat": ["p:{Ann}", "p:{Bob}"], "first_dealer": "random"},
                         True, "writes"),
    "import": ("/import", "file", True, "writes"),
    "family": ("/family", {"family-name": "Renamed"}, True, "writes"),
    "invites": ("/family/invites", {}, True, "writes"),
    "cancel invite": ("{cancel}", {}, True, "writes"),
    "share": ("/games/{game}/share", {"kind": "view"}, True, "writes"),
    "revoke share link": ("{revoke}", {}, True, "writes"),
    "logout": ("/logout", {}, True, "signs out"),
    "logout everywhere": ("/logout/everywhere", {}, True, "writes"),
    "login": ("/login", {"username": TEST_USERNAME, "password": TEST_PASSWORD}, False, "signs in"),
    "signup": ("/signup", new_member_data(), False, "writes"),
    "join": ("{join}", {"username": "zed", "password": NEW_PASSWORD, "confirm": NEW_PASSWORD}, False, "writes"),
    "house rules new": ("/house-rules/new", {**GRAN, "name": "Gran's other Shanghai"}, True, "writes"),
    "house rules editor step": ("/house-rules/new", {**GRAN, "step": "add:rounds"}, True, "shows"),
    "house rules edit": ("/house-rules/{rules}/edit", {**GRAN, "p_K": "25"}, True, "writes"),
    "house rules delete": ("/house-rules/{rules}/delete", {}, True, "writes"),
    "house rules import": ("/house-rules/import", "rules file", True, "writes"),
}


def csrf_request(g: Guarded, route: str):
    """(client, path, request kwargs) for ``route``, without a token."""
    path, data, as_member, _ = CSRF_ROUTES[route]
    names = {"game": g.game_id, "score2": score_url(g.game_id, 2), "cancel": g.cancel_path, "join": g.join_path,
             "revoke": g.revoke_path, "rules": g.rules_id,
             **{name: pid for name, pid in g.ids.items()}}
    client = g.client if as_member else strict_client(g.app, None)
    if data == "round":
        version, kept = GameActions(client).opened_form(g.game_id, 2)
        return client, path.format(**names), {"data": {**kept, **round_data(g.ids, "Bob", {"Ann": 10, "Cy": 20},
                                                                             version)}}
    if data in ("file", "rules file"):
        content, name = (g.import_file, "export.json") if data == "file" else (g.rules_file, "rules.json")
        return client, path, {"data": {"file": (io.BytesIO(content), name)}, "content_type": "multipart/form-data"}
    filled = {k: [v.format(**names) for v in value] if isinstance(value, list) else value.format(**names)
              for k, value in data.items()}
    return client, path.format(**names), {"data": filled}


def csrf_token(client, signed_in_: bool) -> str:
    token = input_value(client.get("/family" if signed_in_ else "/login"), "csrf_token")
    assert token
    return token


@pytest.mark.parametrize("route", CSRF_ROUTES)
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_post_without_the_form_token_is_refused_and_changes_nothing(guarded, route):
    client, path, kwargs = csrf_request(guarded, route)
    was_signed_in = signed_in(client)
    before = db_snapshot(guarded.app)
    response = client.post(path, **kwargs)
    assert response.status_code == 400
    assert "reload it and try again" in text_of(response)
    assert db_snapshot(guarded.app) == before
    assert signed_in(client) is was_signed_in


@pytest.mark.parametrize("route", CSRF_ROUTES)
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_the_same_post_with_the_form_token_goes_through(guarded, route):
    """Shows that each refusal above is the missing token, not something else in the request."""
    client, path, kwargs = csrf_request(guarded, route)
    effect = CSRF_ROUTES[route][3]
    kwargs["data"]["csrf_token"] = csrf_token(client, CSRF_ROUTES[route][2])
    before = db_snapshot(guarded.app)
    response = client.post(path, **kwargs)
    assert response.status_code in (200, 302), text_of(response)
    if effect == "writes":
        assert response.status_code == 302, text_of(response)
        assert db_snapshot(guarded.app) != before
    elif effect == "shows":
        assert response.status_code == 200 and "reload it" not in text_of(response)
    else:
        assert signed_in(client) is (effect == "signs in")


def test_welcome_without_the_form_token_is_refused(tmp_path):
    app = make_app(tmp_path, family=None, WTF_CSRF_ENABLED=True)
    client = strict_client(app, None)
    before = db_snapshot(app)
    response = client.post("/welcome", data=new_member_data("ann"))
    assert response.status_code == 400
    assert db_snapshot(app) == before
    token = input_value(client.get("/welcome"), "csrf_token")
    assert client.post("/welcome", data={**new_member_data("ann"), "csrf_token": token}).status_code == 302
    assert signed_in(client)


def test_a_token_from_another_session_is_refused(guarded):
    stranger = strict_client(guarded.app, None)
    their_token = input_value(stranger.get("/login"), "csrf_token")
    before = db_snapshot(guarded.app)
    response = guarded.client.post("/family", data={"family-name": "Renamed", "csrf_token": their_token})
    assert response.status_code == 400
    assert db_snapshot(guarded.app) == before


# -- escaping -----------------------------------------------------------------------------


@pytest.fixture
def hostile_names(app, client):
    """The family and a player named like markup; two rounds recorded so the standings have a chart."""
    assert client.post("/family", data={"family-name": EVIL_FAMILY}).status_code == 302
    game_id, ids = play_two_rounds(client, app, [EVIL_PLAYER, "Bob", "Cy"])
    return game_id, ids


def test_names_are_escaped_on_every_page(client, hostile_names):
    game_id, ids = hostile_names
    shown_player = str(escape(EVIL_PLAYER))
    shown_family = str(escape(EVIL_FAMILY))
    pages = {
        "/": (shown_player, shown_family),
        "/family": (shown_family,),
        f"/games/{game_id}": (shown_player,),
        score_url(game_id, 3): (shown_player,),
        f"/games/{game_id}/standings": (shown_player,),
        "/history": (shown_player,),
        "/players": (),
        f"/players/{ids[EVIL_PLAYER]}": (shown_player,),
        "/records": (),
        "/games/new": (shown_player,),
    }
    for path, shown in pages.items():
        html = client.get(path).get_data(as_text=True)
        assert "<script>alert(1)" not in html, path
        assert "<b>Bold" not in html, path
        for text in shown:
            assert text in html, (path, text)


def test_names_are_escaped_on_the_live_scoreboard_and_the_share_page(app, client, hostile_names):
    """The scoreboard (and the part of it the page polls) is opened by anyone with the link."""
    game_id, _ = hostile_names
    live = share(client, game_id, "view")
    share(client, game_id, "keep")
    guest = strict_client(app, None)
    shown_player, shown_family = str(escape(EVIL_PLAYER)), str(escape(EVIL_FAMILY))
    pages = {
        f"/games/{game_id}/share": (client, (shown_player,)),
        live: (guest, (shown_player, shown_family)),
        live + "/board": (guest, (shown_player,)),
    }
    for path, (who, shown) in pages.items():
        response = who.get(path)
        assert response.status_code == 200, path
        html = response.get_data(as_text=True)
        assert "<script>alert(1)" not in html, path
        assert "<b>Bold" not in html, path
        for text in shown:
            assert text in html, (path, text)


EVIL_RULES = '"><script>alert(1)</script> & <b>Bold</b>'


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_house_rules_names_are_escaped_on_every_page(client, actions):
    """A family's own rules are named (and sourced, and their event labelled) as typed: shown as
    text wherever they appear, and on the rule card as typed."""
    rules_id = save(client, {**GRAN, "name": EVIL_RULES, "source": EVIL_RULES, "event_label": EVIL_RULES})
    game_id = actions.new_game(f"house-{rules_id}", ["Ann", "Bob"])
    shown = str(escape(EVIL_RULES))
    pages = ["/house-rules", f"/house-rules/{rules_id}", f"/house-rules/{rules_id}/edit",
             f"/house-rules/{rules_id}/delete", f"/house-rules/new?from=house-{rules_id}", "/games/new", "/print",
             f"/games/{game_id}/rules", f"/history?preset=house-{rules_id}"]
    for path in pages:
        page = client.get(path)
        assert page.status_code == 200, path
        html = page.get_data(as_text=True)
        assert "<script>alert(1)" not in html and "<b>Bold" not in html, path
        assert shown in html or str(escape(EVIL_RULES + " (copy)")) in html, path
    for path in (f"/house-rules/{rules_id}/card.pdf", f"/games/{game_id}/rules.pdf"):
        _, text = pdf_text(client.get(path).data)
        assert EVIL_RULES in text and "&lt;" not in text, path
    download = client.get(f"/house-rules/{rules_id}/rules.json")
    assert json.loads(download.data)["variant"]["name"] == EVIL_RULES
    assert re.fullmatch(r'attachment; filename="[a-z0-9-]+\.json"', download.headers["Content-Disposition"])


def test_standings_chart_escapes_names(client, hostile_names):
    game_id, _ = hostile_names
    html = client.get(f"/games/{game_id}/standings").get_data(as_text=True)
    chart = re.search(r'<svg class="chart".*?</svg>\s*<ul class="legend">.*?</ul>', html, flags=re.DOTALL)
    assert chart, "two rounds are recorded: the standings draw a chart"
    assert f"<title>{escape(EVIL_PLAYER)}</title>" in chart.group(0)
    assert f"{escape(EVIL_PLAYER)}</li>" in chart.group(0)
    assert "<script" not in chart.group(0)


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_score_sheet_pdf_shows_the_names_as_typed(client, hostile_names):
    game_id, _ = hostile_names
    response = client.get(f"/games/{game_id}/sheet.pdf")
    assert response.mimetype == "application/pdf"
    _, text = pdf_text(response.data)
    assert EVIL_PLAYER in text
    assert EVIL_FAMILY in text
    assert "&lt;" not in text and "&amp;" not in text


FORMULA_NAMES = ['=HYPERLINK("http://x")', "+1", "-2", "@SUM(A1)"]


def test_csv_export_neutralises_formulas_and_json_keeps_names_exact(client, actions):
    game_id = actions.new_game("shanghai-10", FORMULA_NAMES, first_dealer=FORMULA_NAMES[0])
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 1, "+1", {FORMULA_NAMES[0]: "K", "-2": "5 5", "@SUM(A1)": 30})
    rows = csv_rows(client.get("/export.csv").get_data(as_text=True))
    header, body = rows[0], [dict(zip(rows[0], row)) for row in rows[1:]]
    assert len(body) == 4
    assert [row["player"] for row in body] == ["'" + name for name in FORMULA_NAMES]
    assert {row["dealer"] for row in body} == {"'" + FORMULA_NAMES[0]}
    assert "game" in header

    export = json.loads(client.get("/export.json").get_data(as_text=True))
    assert sorted(p["name"] for p in export["players"]) == sorted(FORMULA_NAMES)
    assert export["games"][0]["seats"] == FORMULA_NAMES


# -- request size -------------------------------------------------------------------------


def test_a_form_larger_than_the_limit_is_refused_with_413(app, client):
    limit = app.config["MAX_FORM_MEMORY_SIZE"]
    assert limit and limit <= 1024 * 1024
    before = db_snapshot(app)
    response = client.post("/family", data={"family-name": "x" * (limit + 1)})
    assert response.status_code == 413
    assert "too large" in text_of(response)
    assert db_snapshot(app) == before


def test_a_sign_in_larger_than_the_limit_is_refused_without_counting_a_failure(app):
    visitor = strict_client(app, None)
    limit = app.config["MAX_FORM_MEMORY_SIZE"]
    response = visitor.post("/login", data={"username": TEST_USERNAME, "password": "x" * (limit + 1)})
    assert response.status_code == 413
    with app.app_context():
        assert db.session.execute(db.select(SignInFailure)).first() is None


def test_an_import_larger_than_the_limit_is_refused_with_413(app, client):
    limit = app.config["MAX_CONTENT_LENGTH"]
    assert limit and limit <= 32 * 1024 * 1024
    before = db_snapshot(app)
    big = io.BytesIO(b" " * (limit + 1))
    response = client.post("/import", data={"file": (big, "export.json")}, content_type="multipart/form-data")
    assert response.status_code == 413
    assert "too large" in text_of(response)
    assert db_snapshot(app) == before

