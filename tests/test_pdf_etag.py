"""A PDF of the family's games (a game's filled sheet, its rule card, a season's yearbook) has an
``ETag`` known before anything is read: the family's version, the game, the paper and the day.
A browser that holds it gets a 304 without the game being loaded; a change gives a new PDF; and
no tag ever earns a 304 for a game that is not the asker's."""

from __future__ import annotations

import pytest

from scorekeeper.extensions import counting_statements
from tests.databases import strict_client
from tests.pages import set_cookie
from tests.test_booklet import fake_renderer, seed_seasons
from tests.test_printing import pdf_text, play_two_rounds
from tests.test_sharing import share


def reads_a_game(statements: list[str]) -> bool:
    """Whether any of these statements reads a game, its hands or its results."""
    return any(table in s for s in statements for table in ("FROM game", "JOIN game_round", "FROM result"))


def test_a_sheet_asked_again_with_its_etag_is_304_without_reading_the_game(app, client):
    game_id = play_two_rounds(client)
    url = f"/games/{game_id}/sheet.pdf"
    first = client.get(url)
    assert first.status_code == 200 and first.mimetype == "application/pdf"
    etag = first.headers["ETag"]

    with counting_statements(app) as held:
        again = client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == etag
    with counting_statements(app) as missed:
        drawn = client.get(url, headers={"If-None-Match": '"another tag"'})
    assert drawn.status_code == 200 and drawn.headers["ETag"] == etag
    assert not reads_a_game(held) and reads_a_game(missed)
    assert len(held) <= 1 < len(missed)  # the sign-in's own look-up at most


def test_a_hand_recorded_in_between_gives_a_new_pdf_with_it(client, actions):
    game_id = play_two_rounds(client)
    url = f"/games/{game_id}/sheet.pdf"
    etag = client.get(url).headers["ETag"]
    actions.record(actions.player_ids(game_id), game_id, 3, "Ann", {"Bob": "5", "Cy": "5"})
    changed = client.get(url, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert "Total 15 25 70" in pdf_text(changed.data)[1]  # 15 20 65 before, then 0 5 5


def test_another_family_gets_404_whatever_tag_it_sends(app, client, actions):
    game_id = play_two_rounds(client)
    owners = client.get(f"/games/{game_id}/sheet.pdf").headers["ETag"]
    actions.add_member("The Joneses", "jasper")
    jones = strict_client(app, "jasper")
    their_game = actions.on(jones).new_game("family-7", ["Jasper", "Jemima", "Jolyon"], first_dealer="Jasper")
    theirs = jones.get(f"/games/{their_game}/sheet.pdf").headers["ETag"]
    for tag in (owners, theirs, "*", f"{owners}, {theirs}", owners.strip('"')):
        for path in (f"/games/{game_id}/sheet.pdf", f"/games/{game_id}/rules.pdf", "/games/99999/sheet.pdf"):
            assert jones.get(path, headers={"If-None-Match": tag}).status_code == 404, (path, tag)
    # Nor does the owner get a 304 for a game gone, or for one that never was, whatever tag.
    assert client.post(f"/games/{game_id}/delete").status_code == 302
    for tag in (owners, "*"):
        assert client.get(f"/games/{game_id}/sheet.pdf", headers={"If-None-Match": tag}).status_code == 404
        assert client.get("/games/99999/sheet.pdf", headers={"If-None-Match": tag}).status_code == 404


def test_each_paper_has_its_own_tag_and_the_remembered_paper_counts(client):
    game_id = play_two_rounds(client)
    url = f"/games/{game_id}/sheet.pdf"
    letter = client.get(url + "?paper=letter").headers["ETag"]
    a4 = client.get(url + "?paper=a4")
    assert a4.headers["ETag"] != letter
    assert client.get(url + "?paper=letter", headers={"If-None-Match": a4.headers["ETag"]}).status_code == 200
    # The letter download above left "letter" in the cookie; a4 asked for again is a 304 and remembered.
    held = client.get(url + "?paper=a4", headers={"If-None-Match": a4.headers["ETag"]})
    assert held.status_code == 304 and set_cookie(held, "paper").value == "a4"
    # No paper asked: the cookie says a4, so the a4 tag is the one that matches.
    assert client.get(url, headers={"If-None-Match": a4.headers["ETag"]}).status_code == 304
    assert client.get(url, headers={"If-None-Match": letter}).status_code == 200


def test_a_game_s_rule_card_is_304_without_reading_the_game_and_new_after_a_change(app, client, actions):
    game_id = play_two_rounds(client)
    url = f"/games/{game_id}/rules.pdf"
    first = client.get(url)
    assert first.status_code == 200 and "family rules, 7 hands" in pdf_text(first.data)[1]
    etag = first.headers["ETag"]
    with counting_statements(app) as held:
        again = client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and not reads_a_game(held)
    client.post(f"/games/{game_id}/rounds/3/buy", data={"player": actions.player_ids(game_id)["Bob"]})
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 200


def test_a_keeper_link_s_tag_is_for_its_own_game_only(app, client, actions):
    page = "rules.pdf"  # the PDF a score keeper's link opens
    game_x = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    game_y = actions.new_game("family-7", ["Di", "Ed", "Flo"], first_dealer="Di")
    phone = strict_client(app, None)
    phone.get(share(client, game_x, "keep"))
    first = phone.get(f"/games/{game_x}/{page}")
    assert first.status_code == 200
    etag = first.headers["ETag"]
    assert phone.get(f"/games/{game_x}/{page}", headers={"If-None-Match": etag}).status_code == 304
    refused = phone.get(f"/games/{game_y}/{page}", headers={"If-None-Match": etag})
    assert refused.status_code == 302 and "/login" in refused.headers["Location"]
    # With a link for game Y too, Y's card is Y's: X's tag does not match it.
    phone.get(share(client, game_y, "keep"))
    other = phone.get(f"/games/{game_y}/{page}", headers={"If-None-Match": etag})
    assert other.status_code == 200 and other.headers["ETag"] != etag
    # The sheet is for members: a keeper link gets none, whatever the tag.
    sheet = phone.get(f"/games/{game_x}/sheet.pdf", headers={"If-None-Match": etag})
    assert sheet.status_code == 302 and "/login" in sheet.headers["Location"]


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_the_tag_is_the_same_for_the_same_document_and_changes_with_the_family_name(app, client):
    game_id = play_two_rounds(client)
    url = f"/games/{game_id}/sheet.pdf"
    etag = client.get(url).headers["ETag"]
    assert client.get(url).headers["ETag"] == etag
    client.post("/family", data={"family-name": "The Smiths"})
    renamed = client.get(url, headers={"If-None-Match": etag})
    assert renamed.status_code == 200 and renamed.headers["ETag"] != etag
    assert "The Smiths" in pdf_text(renamed.data)[1]


def test_a_yearbook_asked_again_with_its_etag_is_304_without_reading_a_game(app, client, monkeypatch, actions):
    fake_renderer(monkeypatch)
    seed_seasons(app, client)
    url = "/seasons/2026/booklet.pdf"
    etag = client.get(url).headers["ETag"]
    with counting_statements(app) as held:
        again = client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and not reads_a_game(held) and len(held) <= 1
    actions.add_member("The Joneses", "jasper")
    assert strict_client(app, "jasper").get(url, headers={"If-None-Match": etag}).status_code == 404  # none of theirs
