"""Cached pages stay correct; responses are compressed; static files are fingerprinted."""

import gzip
import re

from scorekeeper.extensions import counting_statements
from tests.actions import GameActions
from tests.databases import strict_client
from tests.pages import text_of


def statements(app, client, url, **kwargs):
    with counting_statements(app) as sent:
        response = client.get(url, **kwargs)
    return response, len(sent)


def test_a_cached_page_costs_one_query_and_any_change_redraws_it(client, app, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    client.get(f"/games/{game_id}")
    again, count = statements(app, client, f"/games/{game_id}")
    assert count == 1  # only the family's version is read
    assert "0/3" in text_of(again)
    client.post(f"/games/{game_id}/rounds/1/buy", data={"player": ids["Bob"]})
    client.get(f"/games/{game_id}")  # the flash of the buy (if any) is shown on a fresh page
    after, _ = statements(app, client, f"/games/{game_id}")
    assert "1/3" in text_of(after), "a buy must show on the next view, not a cached old page"


def test_unchanged_page_answers_304_to_its_etag(client, actions):
    actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    first = client.get("/history")
    etag = first.headers["ETag"]
    again = client.get("/history", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b""
    actions.new_game("family-7", ["Di", "Ed", "Flo"], first_dealer="Ed")
    changed = client.get("/history", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and "2 games" in text_of(changed)


def test_each_browser_session_gets_forms_signed_for_itself(app):
    one, two = strict_client(app), strict_client(app)
    token = re.compile(rb'name="csrf_token" value="([^"]+)"')
    GameActions(one).new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    page_one = one.get("/games/1").data
    page_two = two.get("/games/1").data
    assert token.search(page_one).group(1) != token.search(page_two).group(1)


def test_pages_and_static_files_are_gzipped_and_static_urls_are_fingerprinted(client):
    home = client.get("/", headers={"Accept-Encoding": "gzip, br"})
    assert home.headers["Content-Encoding"] == "gzip"
    html = gzip.decompress(home.data).decode()
    css = re.search(r'href="(/static/app\.css\?v=[0-9a-f]{12})"', html)
    assert css, "stylesheet link carries a content hash"
    style = client.get(css.group(1), headers={"Accept-Encoding": "gzip"})
    assert style.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert b".player-row" in gzip.decompress(style.data)
    plain = client.get("/")
    assert "Content-Encoding" not in plain.headers and b"<html" in plain.data


def test_pages_are_sent_without_their_templates_indentation(client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    for url in ("/", f"/games/{game_id}", f"/games/{game_id}/standings", f"/games/{game_id}/rounds/1/score"):
        page = client.get(url)
        assert not re.search(r"^[ \t]+\S", page.text, re.MULTILINE), url
    assert "Dealer Ann · Bob plays first" in text_of(client.get(f"/games/{game_id}"))  # words apart as before
