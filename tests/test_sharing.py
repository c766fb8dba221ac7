"""Sharing a game at the table: the live scoreboard link, the score keeper link, revoking and
expiry; forms sent again from a phone that was offline change nothing twice; the app shell."""

from __future__ import annotations

import json
import re
from datetime import timedelta

from scorekeeper.extensions import db
from scorekeeper.models import Game, RoundChange, ShareLink, Submission, utcnow
from tests.databases import strict_client
from tests.pages import input_value, round_data, score_url, text_of

SHARE_LINK = r'value="https?://[^/"]+(/(?:live|keep)/[^"]+)"'


def share(client, game_id: int, kind: str) -> str:
    """Make a link of ``kind`` on the share page; its path (the address is ``test_addresses``' business)."""
    before = set(re.findall(SHARE_LINK, client.get(f"/games/{game_id}/share").text))
    page = client.post(f"/games/{game_id}/share", data={"kind": kind}, follow_redirects=True)
    assert page.status_code == 200
    (path,) = set(re.findall(SHARE_LINK, page.text)) - before
    return path


def board_rows(html: str) -> list[tuple[str, int, int]]:
    """The scoreboard's rows in order: (name, buys used this hand, total)."""
    rows = re.findall(
        r'<th scope="row">(\w+).*?</th>\s*<td class="num">(\d+)/\d+</td>\s*<td class="num"><b>(\d+)</b>', html, re.S
    )
    return [(name, int(used), int(total)) for name, used, total in rows]


def test_scoreboard_link_shows_contract_dealer_buys_and_standings_without_signing_in(app, client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K 5", "Cy": "JK"})
    client.post(f"/games/{game_id}/rounds/2/buy", data={"player": ids["Cy"]})
    path = share(client, game_id, "view")
    assert path.startswith("/live/")

    guest = strict_client(app, None)
    page = guest.get(path)
    assert page.status_code == 200
    text = text_of(page)
    assert "Round 2 of 10" in text
    assert "One set of 3 and one sequence of 4" in text
    assert "Dealer Bob · Cy plays first" in text
    points = actions.stored_points(game_id)[1]
    rows = board_rows(page.text)
    # Lowest total first, with this hand's buys.
    assert [(name, total) for name, _, total in rows] == sorted(points.items(), key=lambda kv: kv[1])
    assert {name: used for name, used, _ in rows} == {"Ann": 0, "Bob": 0, "Cy": 1}
    # The scoreboard gives no way to change anything.
    assert "<form" not in page.text


def test_scoreboard_answers_304_until_the_game_changes_then_the_new_state(app, client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    path = share(client, game_id, "view")
    guest = strict_client(app, None)
    first = guest.get(path + "/board")
    etag = first.headers["ETag"]
    assert first.status_code == 200 and board_rows(first.text) == [("Ann", 0, 0), ("Bob", 0, 0), ("Cy", 0, 0)]
    # The page itself carries the same tag, so its first poll costs nothing.
    assert f'data-etag="{etag.strip(chr(34))}"' in guest.get(path).text
    assert guest.get(path + "/board", headers={"If-None-Match": etag}).status_code == 304

    client.post(f"/games/{game_id}/rounds/1/buy", data={"player": ids["Bob"]})
    changed = guest.get(path + "/board", headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["ETag"] != etag
    assert ("Bob", 1, 0) in board_rows(changed.text)


def test_stopped_link_and_a_game_over_for_a_day_no_longer_open(app, client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"])
    view = share(client, game_id, "view")
    keep = share(client, game_id, "keep")
    guest = strict_client(app, None)
    assert guest.get(view).status_code == 200

    with app.app_context():
        link_id = db.session.execute(db.select(ShareLink.id).where(ShareLink.kind == "view")).scalar_one()
    client.post(f"/games/{game_id}/share/{link_id}/revoke")
    assert guest.get(view).status_code == 404
    assert "stopped" in text_of(guest.get(view + "/board"))
    assert view not in client.get(f"/games/{game_id}/share").text
    assert client.post(f"/games/{game_id}/share/{link_id}/revoke").status_code == 404  # already stopped

    # The keeper link outlives the end of the game by the grace period only.
    assert guest.get(keep).status_code == 302
    with app.app_context():
        game = db.session.get(Game, game_id)
        game.status, game.finished_at = "finished", utcnow() - timedelta(hours=23)
        db.session.commit()
    assert guest.get(keep).status_code == 302
    with app.app_context():
        game = db.session.get(Game, game_id)
        game.finished_at -= timedelta(hours=2)
        db.session.commit()
    assert guest.get(keep).status_code == 404


def test_share_page_needs_the_family_and_makes_only_known_kinds(app, client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"])
    guest = strict_client(app, None)
    assert guest.get(f"/games/{game_id}/share").status_code == 302  # to sign in
    refused = client.post(f"/games/{game_id}/share", data={"kind": "admin"})
    assert refused.status_code == 400 and "Choose a scoreboard link" in text_of(refused)
    with app.app_context():
        assert db.session.execute(db.select(ShareLink)).first() is None
    share(client, game_id, "view")
    page = client.get(f"/games/{game_id}/share")
    assert page.text.count('<svg xmlns="http://www.w3.org/2000/svg"') == 1  # its QR code


def test_keeper_link_records_buys_and_hands_for_its_game_only(app, client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    other_game = actions.new_game("shanghai-10", ["Ann", "Bob", "Di"])
    ids = actions.player_ids(game_id)
    keep = share(client, game_id, "keep")

    phone = strict_client(app, None)
    assert phone.get(keep).headers["Location"] == f"/games/{game_id}"
    assert "Round 1 of 10" in text_of(phone.get(f"/games/{game_id}"))
    phone.post(f"/games/{game_id}/rounds/1/buy", data={"player": ids["Cy"]})
    assert actions.buys_of(game_id, 1)["Cy"] == 1
    actions.on(phone).record(ids, game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})
    assert actions.stored_points(game_id)[1] == {"Ann": 0, "Bob": 10, "Cy": 5}
    with app.app_context():
        change = db.session.execute(db.select(RoundChange)).scalar_one()
        assert (change.by, change.member_id) == ("score keeper link", None)
    assert phone.get(f"/games/{game_id}/standings").status_code == 200

    # Nothing else of the family's: other games, history, new games, sharing, printing.
    for path in (f"/games/{other_game}", "/history", "/games/new", f"/games/{game_id}/share",
                 f"/games/{game_id}/sheet.pdf", "/"):
        response = phone.get(path)
        assert response.status_code in (302, 404), path
        if response.status_code == 302:
            assert "/login" in response.headers["Location"], path
    refused = phone.post(f"/games/{other_game}/rounds/1/buy", data={"player": ids["Ann"]})
    assert refused.status_code == 302 and "/login" in refused.headers["Location"]

    # Stopped: the phone is shown the door on its next tap.
    with app.app_context():
        link_id = db.session.execute(db.select(ShareLink.id)).scalar_one()
    client.post(f"/games/{game_id}/share/{link_id}/revoke")
    refused = phone.post(f"/games/{game_id}/rounds/2/buy", data={"player": ids["Cy"]})
    assert "/login" in refused.headers["Location"]
    assert actions.buys_of(game_id, 2)["Cy"] == 0


def test_scoreboard_link_does_not_let_a_phone_keep_score(app, client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"])
    ids = actions.player_ids(game_id)
    view = share(client, game_id, "view")
    phone = strict_client(app, None)
    assert phone.get(view.replace("/live/", "/keep/")).status_code == 404
    phone.post(f"/games/{game_id}/rounds/1/buy", data={"player": ids["Cy"]})
    assert actions.buys_of(game_id, 1)["Cy"] == 0


def test_a_submission_sent_twice_counts_once(app, client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    buy = {"player": ids["Bob"], "submission": "3f2a9c0e5b7d4e1f8a6c2b9d0e4f7a1c"}
    for _ in range(3):  # the phone retried: its connection dropped before the answer came
        client.post(f"/games/{game_id}/rounds/1/buy", data=buy)
    assert actions.buys_of(game_id, 1)["Bob"] == 1
    client.post(f"/games/{game_id}/rounds/1/buy", data={**buy, "submission": "another-tap-0001"})
    assert actions.buys_of(game_id, 1)["Bob"] == 2

    version, kept = actions.opened_form(game_id, 1)
    hand = {**kept, **round_data(ids, "Ann", {"Bob": "K", "Cy": "5"}, version), "submission": "hand-1-from-phone"}
    first = client.post(score_url(game_id, 1), data=hand, follow_redirects=True)
    again = client.post(score_url(game_id, 1), data=hand, follow_redirects=True)
    assert "Round 1 saved" in text_of(first)
    # Answered as the first time: the hand was saved, not "updated", and round 2 is next.
    assert "Round 1 saved" in text_of(again) and again.request.path == f"/games/{game_id}"
    assert "another phone" not in text_of(again) and "flash-error" not in again.text
    with app.app_context():
        assert len(db.session.execute(db.select(RoundChange)).all()) == 1
    assert actions.stored_points(game_id)[1] == {"Ann": 0, "Bob": 10, "Cy": 5}


def test_a_refused_submission_is_refused_again_and_hostile_ids_are_ignored(app, client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"])
    ids = actions.player_ids(game_id)
    for i in range(3):
        client.post(f"/games/{game_id}/rounds/1/buy", data={"player": ids["Cy"], "submission": f"buy-number-{i}"})
    over = {"player": ids["Cy"], "submission": "buy-number-3"}
    for _ in range(2):
        page = client.post(f"/games/{game_id}/rounds/1/buy", data=over, follow_redirects=True)
        assert "Cy has used all 3 buys this round." in text_of(page)
    with app.app_context():
        keys = set(db.session.execute(db.select(Submission.key)).scalars())
    assert keys == {"buy-number-0", "buy-number-1", "buy-number-2"}  # the refused one is not kept

    client.post(f"/games/{game_id}/rounds/1/unbuy", data={"player": ids["Cy"], "submission": "x" * 65})
    client.post(f"/games/{game_id}/rounds/1/unbuy", data={"player": ids["Cy"], "submission": "<b>"})
    assert actions.buys_of(game_id, 1)["Cy"] == 1  # both taken: the ids were not valid, so not kept


def test_another_familys_submission_id_is_not_mistaken_for_ours(app, client, actions):
    pass

    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"])
    actions.add_member("The Joneses", "jo")
    jo = strict_client(app, "jo")
    theirs = actions.on(jo).new_game("shanghai-10", ["Xi", "Yu", "Zo"])
    same = "same-id-on-two-phones"
    client.post(f"/games/{game_id}/rounds/1/buy", data={"player": actions.player_ids(game_id)["Ann"], "submission": same})
    jo.post(f"/games/{theirs}/rounds/1/buy", data={"player": actions.player_ids(theirs)["Xi"], "submission": same})
    assert actions.buys_of(game_id, 1)["Ann"] == 1
    assert actions.buys_of(theirs, 1)["Xi"] == 1


def test_app_shell_manifest_worker_and_offline_page(app, client):
    guest = strict_client(app, None)
    manifest = guest.get("/manifest.webmanifest")
    assert manifest.mimetype == "application/manifest+json"
    data = json.loads(manifest.data)
    assert data["display"] == "standalone" and data["start_url"] == "/"
    sizes = {icon["sizes"] for icon in data["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in data["icons"]:
        assert guest.get(icon["src"]).status_code == 200

    worker = guest.get("/sw.js")
    assert worker.mimetype == "text/javascript"
    assert worker.headers["Cache-Control"] == "no-cache"
    shell = json.loads(re.search(r"var SHELL = (\[.*?\]);", worker.text).group(1))
    assert "/offline" in shell and any("main.js?v=" in url for url in shell) and "/static/js/game.js" in shell
    for url in shell:  # every file the worker keeps exists, without signing in
        assert guest.get(url).status_code == 200, url
    offline = guest.get("/offline")
    assert "No connection" in text_of(offline)

    page = client.get("/")
    assert 'rel="manifest"' in page.text and 'data-service-worker="/sw.js"' in page.text


def test_signing_out_tells_the_browser_to_forget_kept_pages(client):
    response = client.post("/logout")
    assert response.headers["Clear-Site-Data"] == '"cache", "storage"'
    assert input_value(client.get("/login"), "username") is not None


def test_share_link_times_are_drawn_for_the_phone_to_show_in_its_own_zone(app, client, actions):
    """Each time is a <time> in UTC (what a phone without the script reads, saying so), which
    static/js/localtime.js redraws in the phone's zone (tests/browser/test_local_times.py)."""
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"])
    share(client, game_id, "view")
    with app.app_context():
        made = db.session.execute(db.select(ShareLink.created_at)).scalar_one()
        game = db.session.get(Game, game_id)
        game.status, game.finished_at = "finished", made.replace(hour=21, minute=30, second=5)
        db.session.commit()
    page = client.get(f"/games/{game_id}/share").text
    stamp = made.replace(microsecond=0).isoformat()
    assert (f'Made <time datetime="{stamp}Z" data-local="moment">{made:%d %b %H:%M} UTC</time>') in page
    ends = made.replace(hour=21, minute=30, second=5) + timedelta(days=1)
    assert f'<time datetime="{ends:%Y-%m-%dT%H:%M:%S}Z" data-local="moment">{ends:%d %b} 21:30 UTC</time>' in page
    assert "(a day after the game ended)" in page
