"""Sign-in limits that hold under load, sign-out that ends the session on the server, and share
links that end a day after their game first ended (issue 17, D7-D10).

The lockout test starts gunicorn with four workers (as ``test_concurrency`` does, on SQLite or on
PostgreSQL when the suite runs there) and sends forty wrong passwords at once.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from urllib.parse import urlsplit

import pytest

from scorekeeper.accounts import service as account_service
from scorekeeper.extensions import db
from scorekeeper.models import Game, Member, SignInFailure, utcnow
from scorekeeper.sharing import service as sharing_service
from tests.databases import TEST_PASSWORD, TEST_USERNAME, make_app, strict_client
from tests.pages import element_text, input_value, set_cookie, text_of
from tests.test_accounts import ADDRESS, NEW_PASSWORD, OTHER_ADDRESS, sign_in, signed_out
from tests.test_concurrency import Phone, Server, at_once
from tests.test_sharing import share


def failures(app, key: str) -> int:
    with app.app_context():
        return len(db.session.execute(db.select(SignInFailure.id).where(SignInFailure.key == key)).all())


# -- D7: the account lock under forty attempts at once ------------------------------------------


@pytest.mark.slow
def test_forty_wrong_passwords_at_once_on_four_workers_check_at_most_five(tmp_path, monkeypatch):
    # GUNICORN_CMD_ARGS outranks the settings file's two workers.
    monkeypatch.setenv("GUNICORN_CMD_ARGS", "--workers 4")
    app = make_app(tmp_path)
    server = Server(app.config["SQLALCHEMY_DATABASE_URI"], tmp_path / "instance").start()
    try:
        assert server.workers() == 4
        phones = [Phone(server.port) for _ in range(40)]
        for phone in phones:
            phone.csrf = input_value(phone.get("/login").body, "csrf_token")
        replies = at_once(*(
            lambda phone=phone: phone.post("/login", {"username": TEST_USERNAME, "password": "not the password"})
            for phone in phones
        ))
        right_password = Phone(server.port)
        right_password.csrf = input_value(right_password.get("/login").body, "csrf_token")
        locked = right_password.post("/login", {"username": TEST_USERNAME, "password": TEST_PASSWORD})
    finally:
        server.stop()

    # Every password checked and found wrong is one failure row of the account, kept for 15 minutes.
    checks = failures(app, f"user:{TEST_USERNAME}")
    statuses = Counter(reply.status for reply in replies)
    print(f"password checks under 40 concurrent attempts: {checks}; answers {dict(statuses)}")
    assert checks <= account_service.MAX_FAILURES_PER_ACCOUNT
    assert statuses == {200: checks, 429: 40 - checks}
    for reply in replies:
        assert (account_service.NO_MATCH if reply.status == 200 else account_service.TOO_MANY) in reply.text
    assert locked.status == 429 and account_service.TOO_MANY in locked.text  # even the right password


def test_a_right_password_leaves_no_failure_behind(app):
    client = strict_client(app, None)
    sign_in(client, TEST_USERNAME, "not the password")
    assert failures(app, f"addr:{ADDRESS}") == failures(app, f"user:{TEST_USERNAME}") == 1
    assert sign_in(client).status_code == 302
    assert failures(app, f"user:{TEST_USERNAME}") == 0
    assert failures(app, f"addr:{ADDRESS}") == 1  # the wrong one still counts for the address


# -- D8: sign-up and join cannot list the usernames in use --------------------------------------


def new_family_data(username: str) -> dict:
    return {"family_name": "Guessers", "username": username, "password": NEW_PASSWORD, "confirm": NEW_PASSWORD}


def invite_path(client) -> str:
    assert client.post("/family/invites").status_code == 302
    with client.session_transaction() as session:
        return urlsplit(session["new_invite"]).path


def test_thirty_taken_usernames_from_one_address_then_signup_and_join_refuse_alike(app, client):
    join = invite_path(client)
    guesser = strict_client(app, None)
    for n in range(account_service.MAX_FAILURES_PER_ADDRESS):
        url, data = ("/signup", new_family_data("Tester")) if n % 2 else (join, new_family_data("tester"))
        page = guesser.post(url, data=data, environ_base={"REMOTE_ADDR": ADDRESS})
        assert page.status_code == 200
        assert element_text(page, "username-errors") == account_service.USERNAME_TAKEN, n

    answers = {}
    for name in ("tester", "nobody-has-this"):  # taken, and free
        for url in ("/signup", join):
            page = guesser.post(url, data=new_family_data(name), environ_base={"REMOTE_ADDR": ADDRESS})
            answers[name, url] = page
            assert page.status_code == 429, (name, url)
            assert element_text(page, "username-errors") == account_service.TOO_MANY, (name, url)
            assert account_service.USERNAME_TAKEN not in text_of(page)
    # Taken or free, the same page (the form keeps only what was typed).
    for url in ("/signup", join):
        assert text_of(answers["tester", url]) == text_of(answers["nobody-has-this", url])
    with app.app_context():
        assert db.session.execute(db.select(Member.id).where(Member.username == "nobody-has-this")).first() is None
    # Sign-in shares the address's limit; another address is not held back.
    assert sign_in(guesser, address=ADDRESS).status_code == 429
    elsewhere = strict_client(app, None)
    page = elsewhere.post("/signup", data=new_family_data("nobody-has-this"), environ_base={"REMOTE_ADDR": OTHER_ADDRESS})
    assert page.status_code == 302
    assert elsewhere.get("/history").status_code == 200


def test_free_usernames_and_other_mistakes_do_not_count(app):
    guesser = strict_client(app, None)
    for n in range(account_service.MAX_FAILURES_PER_ADDRESS + 5):
        data = {**new_family_data(f"free-name-{n}"), "confirm": "something else"}
        page = guesser.post("/signup", data=data, environ_base={"REMOTE_ADDR": ADDRESS})
        assert page.status_code == 200 and "The two passwords differ." in text_of(page)
    assert failures(app, f"addr:{ADDRESS}") == 0
    assert guesser.post("/signup", data=new_family_data("free-name"),
                        environ_base={"REMOTE_ADDR": ADDRESS}).status_code == 302


# -- D9: signing out ends that session on the server ----------------------------------------------


def test_signing_out_ends_copies_of_its_cookies_and_no_other_session(app):
    cookie_name = app.config["SESSION_COOKIE_NAME"]
    phone, laptop = strict_client(app, None), strict_client(app, None)
    remembered = set_cookie(sign_in(phone, remember=True), "remember_token")
    laptop_remembered = set_cookie(sign_in(laptop, remember=True), "remember_token")
    assert phone.get("/history").status_code == 200
    copied_session = phone.get_cookie(cookie_name).value

    thief = strict_client(app, None)  # the session cookie, copied off the phone
    thief.set_cookie(cookie_name, copied_session)
    thief_remembered = strict_client(app, None)  # the remember-me cookie alone
    thief_remembered.set_cookie("remember_token", remembered.value)
    assert thief.get("/history").status_code == 200
    assert thief_remembered.get("/history").status_code == 200

    assert phone.post("/logout").status_code == 302
    assert signed_out(phone)
    assert signed_out(thief)
    assert signed_out(thief_remembered)

    # The member's other phone is still signed in, and its remember-me cookie still works alone.
    assert laptop.get("/history").status_code == 200
    closed_browser = strict_client(app, None)
    closed_browser.set_cookie("remember_token", laptop_remembered.value)
    assert closed_browser.get("/history").status_code == 200

    assert sign_in(phone).status_code == 302  # signing in again makes a new session
    assert phone.get("/history").status_code == 200
    assert signed_out(thief)


def test_sign_out_everywhere_ends_sessions_made_before_and_after(app):
    phone, laptop = strict_client(app, None), strict_client(app, None)
    remembered = set_cookie(sign_in(phone, remember=True), "remember_token")
    sign_in(laptop)
    assert laptop.post("/logout/everywhere").status_code == 302
    tablet = strict_client(app, None)
    tablet.set_cookie("remember_token", remembered.value)
    assert signed_out(phone) and signed_out(laptop) and signed_out(tablet)


# -- D10: a link ends a day after its game first ended -------------------------------------------


def test_an_undo_after_the_game_ended_does_not_give_its_links_another_day(app, client, monkeypatch, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    keep = share(client, game_id, "keep")
    view = share(client, game_id, "view")
    keeper, watcher = strict_client(app, None), strict_client(app, None)
    assert keeper.get(keep).status_code == 302
    assert watcher.get(view).status_code == 200
    for number in range(1, 11):
        actions.on(keeper).record(ids, game_id, number, "Ann", {"Bob": "K", "Cy": "5"})
    with app.app_context():
        assert db.session.get(Game, game_id).status == "finished"

    # Within the day, the keeper takes the last hand back: the game is being played again.
    page = keeper.post(f"/games/{game_id}/undo", data={"number": 10}, follow_redirects=True)
    assert "Round 10 is back in play" in text_of(page)
    with app.app_context():
        assert db.session.get(Game, game_id).status == "in_progress"
    assert keeper.get(f"/games/{game_id}").status_code == 200

    # A day and an hour after the game first ended, both links are refused.
    later = utcnow() + timedelta(hours=25)
    monkeypatch.setattr(sharing_service, "utcnow", lambda: later)
    refused = keeper.get(f"/games/{game_id}")
    assert refused.status_code == 302 and urlsplit(refused.headers["Location"]).path == "/login"
    assert watcher.get(view).status_code == 404
    assert keeper.get(keep).status_code == 404
    # An undo sent through the keeper link then changes nothing: it is refused like any tap.
    undo = keeper.post(f"/games/{game_id}/undo", data={"number": 9})
    assert undo.status_code == 302 and urlsplit(undo.headers["Location"]).path == "/login"
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert sum(r.recorded_at is not None for r in game.rounds) == 9
    # The family itself plays on, and may make a new link for the game it reopened.
    assert client.get(f"/games/{game_id}").status_code == 200
    assert share(client, game_id, "keep") != keep
