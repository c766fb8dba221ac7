"""Fuzzing every route: GET routes with random paths and query strings, PDF routes with random
arguments, and bodies over the size limits (413)."""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekeeper import rules
from tests.databases import make_app, strict_client
from tests.fuzz_strategies import (
    CHARS,
    INT4_MAX,
    INT8_MAX,
    either,
    event,
    fuzz,
    hostile_text,
    normal_name,
    nul_in,
    numbers,
    query,
    report_examples,  # noqa: F401 - autouse: reports the examples run
    sent,
    tick,
    upload,
)
from tests.fuzz_world import World, build_world, game_ids, rules_ids, rules_keys
from tests.pages import element_text, score_url, text_of

pytestmark = pytest.mark.slow


# -- GET routes -------------------------------------------------------------------------------

QUERY_KEYS = ("player", "preset", "status", "from", "to", "page", "a", "b", "paper", "count", "players",
              "variant", "first_dealer", "skip_first_hand", "next", "q")


GET_ROUTES = (
    "/", "/healthz", "/history", "/players", "/players/{player}", "/records", "/games/new",
    "/games/{game}", "/games/{game}/standings", "/games/{game}/rounds/{number}/score",
    "/games/{game}/abandon", "/games/{game}/delete", "/export.json", "/export.csv", "/import",
    "/family", "/print", "/join/{token}", "/welcome", "/signup", "/login",
    "/games/{game}/share", "/live/{token}", "/live/{token}/board", "/keep/{token}",
    "/sw.js", "/manifest.webmanifest", "/offline", "/games/{game}/rules",
    "/house-rules", "/house-rules/new", "/house-rules/{rules}", "/house-rules/{rules}/rules.json",
    "/house-rules/{rules}/edit", "/house-rules/{rules}/delete",
)
# Public pages of sharing and the app shell: opened signed in or out (a keeper link always by a
# new browser, so the signed-in client never holds another family's game).
SHARING_GETS = ("/live/{token}", "/live/{token}/board", "/keep/{token}", "/sw.js", "/manifest.webmanifest", "/offline")
APP_SHELL = {"/sw.js": "text/javascript", "/manifest.webmanifest": "application/manifest+json", "/offline": "text/html"}
ETAG_CHARS = st.characters(codec="latin-1", exclude_characters="\r\n")


def link_tokens(w: World, likely: dict[str, int]) -> st.SearchStrategy:
    """Tokens for /live/, /keep/ and /join/: every real one (open, stopped, an invite), near misses
    of a real one, and hostile text; the ``likely`` ones more often."""
    real = w.links["keep"][1]
    near = [real[:-1], real + "x", real.swapcase(), real[:19], real * 2, real[:-1] + "=", real.replace(real[0], "/", 1),
            "A" * 20, "A" * 64, "A" * 65, real + "\u200b", real[::-1]]
    every = st.sampled_from([w.invite_token, *(t for _, t in w.links.values())])
    likely_ = st.sampled_from(list(likely))
    return either(hostile_text, st.sampled_from(near), every, likely_, likely_)


def if_none_match(etags: list[str]) -> st.SearchStrategy:
    """An ``If-None-Match`` header: none, a board's real tag (alone, weak, unquoted, in a list),
    ``*``, or random text."""
    tag = st.sampled_from(etags)
    return either(
        st.none(), tag, tag, tag.map(lambda e: f'W/{e}'), tag.map(lambda e: e.strip('"')),
        tag.map(lambda e: f'"x", {e}, "y"'), st.just("*"), st.text(ETAG_CHARS, max_size=40),
        st.lists(st.text(st.characters(codec="ascii", categories=["L", "N"]), max_size=24).map('"{}"'.format),
                 max_size=4).map(", ".join),
    )


def test_get_routes_with_random_paths_and_query_strings():
    """Every page with random ids in the path (other families', huge, missing) and random query
    strings (with rules keys among the values): never a 500, nothing written, another family's
    game, player or house rules are a 404. The live
    scoreboard, its polled fragment (with random ``If-None-Match``) and keeper links with real,
    stopped, near-miss and hostile tokens: an open link's page, else a 404."""
    w = build_world()
    own_games = [w.play, w.fresh, w.abandoned]
    own_players = list(w.ids.values()) + list(w.fresh_ids.values())
    own_rules = [w.house_rules]
    etags = {token: w.anon.get(f"/live/{token}/board").headers["ETag"] for token in w.open_tokens}
    tokens = {"keep": link_tokens(w, w.keep_tokens), "live": link_tokens(w, w.open_tokens)}

    @fuzz(400)
    @given(st.data())
    def run(data):
        tick()
        routes = st.sampled_from(GET_ROUTES)
        route = data.draw(either(routes, routes, st.sampled_from(SHARING_GETS[:3])), label="route")
        game = data.draw(st.one_of(st.sampled_from(own_games), game_ids(w)), label="game")
        player = data.draw(st.one_of(st.sampled_from(own_players + w.foreign_pids), st.integers(0, 10**30),
                                     st.sampled_from([INT4_MAX, INT4_MAX + 1, INT8_MAX, INT8_MAX + 1])), label="player")
        number = data.draw(st.one_of(st.integers(0, 12), st.sampled_from([10**30, 2**63])), label="number")
        house = data.draw(st.one_of(st.sampled_from(own_rules), rules_ids(w)), label="rules")
        token = data.draw(tokens["keep" if route.startswith("/keep/") else "live"], label="token")
        keys = st.one_of(st.sampled_from(QUERY_KEYS), st.text(CHARS, max_size=8))
        values = either(hostile_text, rules_keys(w))
        pairs = data.draw(st.lists(st.tuples(keys, values), max_size=6), label="query")
        url = route.format(game=game, player=player, number=number, rules=house, token=quote(token, safe="") or "x")
        client, headers = w.client, {}
        if route in SHARING_GETS:
            if route.startswith("/keep/") or data.draw(st.booleans(), label="signed out"):
                client = strict_client(w.app, None) if route.startswith("/keep/") else w.anon
            tag = data.draw(if_none_match(list(etags.values())), label="If-None-Match")
            if tag is not None:
                headers["If-None-Match"] = tag
        before = w.snapshot()
        page = client.get(url + ("?" + query(pairs) if pairs else ""), headers=headers)
        event(f"answer {page.status_code}")
        assert page.status_code < 500
        assert w.snapshot() == before
        refused = 400 if nul_in(*sent(pairs)) else 404  # game and player routes have no text in the path
        if "{game}" in route and game not in own_games:
            assert page.status_code == refused
        if "{player}" in route and player not in own_players:
            assert page.status_code == refused
        if "{rules}" in route and house not in own_rules:
            assert page.status_code == refused
        if route in SHARING_GETS:
            check_sharing_get(w, route, token, pairs, headers.get("If-None-Match"), etags, page)

    run()


def check_sharing_get(w: World, route: str, token: str, pairs, tag, etags, page) -> None:
    """The answer of a public sharing or app shell page (see the test above)."""
    if nul_in(token if "{token}" in route else "", *sent(pairs)):
        event(f"{route}: NUL, {page.status_code}")
        assert page.status_code == 400
        return
    if route in APP_SHELL:
        event(f"{route}: {page.status_code}")
        assert page.status_code == 200 and page.mimetype == APP_SHELL[route]
        return
    game = (w.keep_tokens if route.startswith("/keep/") else w.open_tokens).get(token)
    event(f"{route}: {'open link' if game else 'no link'}, {page.status_code}")
    if game is None and "/" in token:  # another path: werkzeug may merge its double slash (a 308)
        assert page.status_code in (308, 404), (route, token, page.status_code)
        assert urlsplit(page.headers.get("Location", "/")).netloc in ("", "localhost")
    elif game is None:
        assert page.status_code == 404, (route, token, page.status_code)
        assert "no-cache" not in page.headers.get("Cache-Control", "") and "ETag" not in page.headers
    elif route.startswith("/keep/"):
        assert page.status_code == 302 and page.headers["Location"] == f"/games/{game}"
    elif route == "/live/{token}":
        assert page.status_code == 200 and page.mimetype == "text/html"
        assert f'data-etag="{etags[token].strip(chr(34))}"' in page.get_data(as_text=True)
    else:  # the polled fragment: a 304 only for its own tag (not for *), else the board with its tag
        assert page.headers["ETag"] == etags[token] and page.headers["Cache-Control"] == "no-cache"
        if tag is not None and (tag == etags[token] or f", {etags[token]}," in tag):
            assert page.status_code == 304 and page.data == b""
        elif tag is None or etags[token].strip('"') not in tag:
            assert page.status_code == 200 and '<th scope="row">' in page.get_data(as_text=True)
        else:  # a weak or unquoted copy of the tag: how lenient is werkzeug's business
            assert page.status_code in (200, 304)
        event(f"board {page.status_code}")


def test_pdf_routes_with_random_arguments():
    """Blank sheets, a game's sheet and rule cards (a preset's, a game's own, house rules') with
    random players, counts, presets and house rules, dealers and paper sizes: a PDF, a 304, a
    form error (400) or a 404; nothing written. Another family's house rules or game: a 404, or
    the blank sheet's form error."""
    w = build_world()
    names = either(
        st.lists(st.one_of(st.text(CHARS, min_size=1, max_size=40).filter(lambda n: "," not in n and normal_name(n)),
                           st.sampled_from(["Ann", "\u202eBob", "🃏", "مريم", "李", "x" * 40])),
                 min_size=3, max_size=8, unique_by=lambda n: normal_name(n).casefold()),
        st.lists(st.one_of(st.text(CHARS, max_size=45), st.sampled_from(["Ann", "ann", " "])), min_size=1, max_size=9),
    )

    @fuzz(40)
    @given(st.data())
    def run(data):
        tick()
        case = data.draw(st.sampled_from(["blank", "game", "rules", "house card", "game rules"]))
        pairs = [("paper", data.draw(st.one_of(st.sampled_from(["letter", "a4", "A4"]), hostile_text)))]
        if case == "blank":
            url = "/print/sheet.pdf"
            players = data.draw(names)
            preset = st.sampled_from(list(rules.VARIANTS))
            pairs += [("variant", data.draw(either(preset, preset, rules_keys(w), hostile_text)))]
            if data.draw(st.booleans()):
                pairs.append(("players", ",".join(players)))
                if data.draw(st.booleans()):
                    pairs.append(("first_dealer", data.draw(st.one_of(st.sampled_from(players), hostile_text))))
            else:
                pairs.append(("count", data.draw(either(st.integers(2, 8).map(str), numbers.map(str), hostile_text))))
            if data.draw(st.booleans()):
                pairs.append(("skip_first_hand", data.draw(st.sampled_from(["y", "n", ""]))))
            pairs = data.draw(st.permutations(pairs))
        elif case in ("game", "game rules"):
            game = data.draw(st.one_of(st.sampled_from([w.play, w.fresh, w.abandoned]), game_ids(w)))
            url = f"/games/{game}/{'sheet' if case == 'game' else 'rules'}.pdf"
        elif case == "house card":
            url = f"/house-rules/{data.draw(st.one_of(st.just(w.house_rules), rules_ids(w)))}/card.pdf"
        else:
            key = data.draw(st.one_of(st.sampled_from(list(rules.VARIANTS)), hostile_text))
            url = f"/print/rules/{quote(key, safe='') or 'x'}.pdf"
        before = w.snapshot()
        page = w.client.get(url + "?" + query(pairs))
        event(f"{case}: {page.status_code}")
        if page.status_code == 400:
            event("400: " + re.sub(r"'.*'|\d+", "…", element_text(page, "sheet-error"))[:60])
        assert page.status_code in (200, 304, 400, 404), page.status_code
        if page.status_code == 200:
            assert page.mimetype == "application/pdf" and page.data.startswith(b"%PDF")
        if case == "blank" and page.status_code == 200:
            assert dict(pairs)["variant"] in (*rules.VARIANTS, f"house-{w.house_rules}")
        ours = {"game": (w.play, w.fresh, w.abandoned), "game rules": (w.play, w.fresh, w.abandoned),
                "house card": (w.house_rules,)}.get(case)
        if ours and url.split("/")[2] not in map(str, ours):
            assert page.status_code == (400 if nul_in(*sent(pairs)) else 404), (url, page.status_code)
        assert w.snapshot() == before

    run()


# -- bodies over the size limits --------------------------------------------------------------


def post_routes(w: World) -> list[str]:
    return [
        "/games/new", "/games/new/seating", score_url(w.play, 2), f"/games/{w.play}/rounds/2/buy",
        f"/games/{w.play}/rounds/2/unbuy", f"/games/{w.play}/rounds/2/down", f"/games/{w.play}/undo",
        f"/games/{w.play}/abandon", f"/games/{w.play}/delete", "/import", "/family", "/family/invites",
        f"/family/invites/{w.own_invite}/cancel", "/logout", "/logout/everywhere", f"/games/{w.play}/share",
        f"/games/{w.play}/share/{w.links['view'][0]}/revoke", "/house-rules/new", f"/house-rules/{w.house_rules}/edit",
        f"/house-rules/{w.house_rules}/delete", "/house-rules/import",
    ]


ANON_ROUTES = ("/login", "/signup", "/welcome", "/join/{token}")


def test_bodies_over_the_size_limits_are_refused_with_413():
    """With the production settings (CSRF on), form fields over MAX_FORM_MEMORY_SIZE (1 MB) on
    every POST route, and an upload over MAX_CONTENT_LENGTH (32 MB), answer 413 and write nothing."""
    w = build_world()
    production = make_app(database_url=w.app.config["SQLALCHEMY_DATABASE_URI"], WTF_CSRF_ENABLED=True)
    phone, stranger = strict_client(production), strict_client(production, None)
    form_limit = production.config["MAX_FORM_MEMORY_SIZE"]
    routes = [(phone, url) for url in post_routes(w)] + [(stranger, url.format(token=w.invite_token)) for url in ANON_ROUTES]

    def over_the_limit(client, url):
        @fuzz(2)
        @given(extra=st.integers(1, 64 * 1024), name=st.sampled_from(["x", "csrf_token", "variant", "file"]),
               multipart=st.booleans())
        def run(extra, name, multipart):
            tick()
            body = {name: "x" * (form_limit + extra)}
            before = w.snapshot()
            if multipart:
                page = client.post(url, data=body, content_type="multipart/form-data")
            else:
                page = client.post(url, data=body)
            event(f"{url}: {page.status_code}")
            assert page.status_code == 413, (url, page.status_code)
            assert w.snapshot() == before

        run()

    for client, url in routes:  # every POST route
        over_the_limit(client, url)

    content_limit = production.config["MAX_CONTENT_LENGTH"]
    for client, url in ((phone, "/import"), (w.client, "/import"), (phone, "/family/invites"),
                        (phone, "/house-rules/import"), (w.client, "/house-rules/import")):
        tick()
        before = w.snapshot()
        if url.endswith("/import"):
            page = upload(client, b"[" + b" " * content_limit + b"]", url=url)
        else:
            page = client.post(url, data=b"x" * (content_limit + 1), content_type="application/octet-stream")
        assert page.status_code == 413
        assert "too large" in text_of(page)
        assert w.snapshot() == before
