"""Accounts: the first family on a new instance, signing in and out, the sign-in rate limit,
invite links, open sign-up and the family page.

Sign-ins go through real POSTs to /login, so cookies are the ones a phone would keep.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import pytest
from markupsafe import escape
from sqlalchemy import delete, update

from scorekeeper.accounts import service as account_service
from scorekeeper.extensions import db
from scorekeeper.models import Family, Invite, Member, SignInFailure, utcnow
from tests.databases import TEST_PASSWORD, TEST_USERNAME, db_snapshot, make_app, strict_client
from tests.pages import element_text, input_value, inputs, set_cookie, text_of

ADDRESS = "10.0.0.7"
OTHER_ADDRESS = "10.0.0.8"
NEW_PASSWORD = "correct horse battery"


def sign_in(client, username=TEST_USERNAME, password=TEST_PASSWORD, *, remember=False, next=None,
            address=ADDRESS):
    """Post the sign-in form as a phone at ``address`` does."""
    data = {"username": username, "password": password}
    if remember:
        data["remember"] = "y"
    return client.post("/login", data=data, query_string={"next": next} if next else None,
                       environ_base={"REMOTE_ADDR": address})


def signed_out(client) -> bool:
    """The family's pages send this client to the sign-in page."""
    response = client.get("/history")
    return response.status_code == 302 and urlsplit(response.headers["Location"]).path == "/login"


def sign_in_error(response) -> tuple[int, str]:
    return response.status_code, element_text(response, "sign-in-error")


def new_family_data(family="The Parkers", username="ann", password=NEW_PASSWORD, confirm=None) -> dict:
    return {"family_name": family, "username": username, "password": password,
            "confirm": password if confirm is None else confirm}


def member_row(app, username: str) -> Member | None:
    with app.app_context():
        member = db.session.execute(db.select(Member).where(Member.username == username)).scalar()
        if member is not None:
            db.session.expunge(member)
        return member


def family_id_of(app, username: str) -> int:
    return member_row(app, username).family_id


# -- a new instance -----------------------------------------------------------------------


@pytest.fixture
def new_instance(tmp_path):
    """An app nobody has signed up to yet, and a signed-out client on it."""
    app = make_app(tmp_path, family=None)
    return app, strict_client(app, None)


@pytest.mark.parametrize("path", ["/", "/history", "/games/new", "/family", "/players", "/print", "/signup"])
def test_new_instance_sends_every_page_to_welcome(new_instance, path):
    _, client = new_instance
    response = client.get(path)
    assert response.status_code == 302
    assert response.headers["Location"] == "/welcome"


def test_welcome_creates_the_family_and_signs_in(new_instance):
    app, client = new_instance
    page = client.get("/welcome")
    assert page.status_code == 200
    assert "Welcome to Scorekeeper" in text_of(page)
    assert {"family_name", "username", "password", "confirm"} <= {i.get("name") for i in inputs(page)}

    response = client.post("/welcome", data=new_family_data(username="  Ann.Parker "))
    assert response.status_code == 302 and response.headers["Location"] == "/"
    home = client.get("/")
    assert home.status_code == 200
    assert "The Parkers" in text_of(home)
    assert "Welcome, ann.parker" in text_of(home)

    member = member_row(app, "ann.parker")  # usernames are kept trimmed and lower-case
    assert member is not None
    assert NEW_PASSWORD not in member.password_hash
    assert member.password_hash.startswith(("scrypt:", "pbkdf2:"))
    with app.app_context():
        assert db.session.get(Family, member.family_id).name == "The Parkers"


def test_after_the_first_family_welcome_is_no_longer_offered(new_instance):
    app, client = new_instance
    client.post("/welcome", data=new_family_data())
    stranger = strict_client(app, None)
    before = db_snapshot(app)
    page = stranger.get("/welcome")
    assert page.status_code == 302 and page.headers["Location"] == "/login"
    posted = stranger.post("/welcome", data=new_family_data("Intruders", "mallory"))
    assert posted.status_code == 302 and posted.headers["Location"] == "/login"
    assert db_snapshot(app) == before
    assert signed_out(stranger)


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_first_member_takes_over_a_family_kept_from_before_accounts(app, actions):
    """Games recorded before anyone signed up stay with the family made on the welcome page."""
    game_id = actions.new_game("family-7", ["Annabel", "Bertram", "Cyril"])
    with app.app_context():
        db.session.execute(delete(Member))
        db.session.commit()
    newcomer = strict_client(app, None)
    assert newcomer.get("/").headers["Location"] == "/welcome"
    newcomer.post("/welcome", data=new_family_data("The Parkers"))
    home = text_of(newcomer.get("/"))
    assert "The Parkers" in home and "Annabel" in home
    assert newcomer.get(f"/games/{game_id}").status_code == 200
    with app.app_context():
        assert db.session.execute(db.select(db.func.count()).select_from(Family)).scalar_one() == 1


@pytest.mark.parametrize(
    "data, field, message",
    [
        (new_family_data(password="short"), "password", "at least 8 characters"),
        (new_family_data(username="ann smith!"), "username", "letters, digits, dots, dashes or underscores"),
        (new_family_data(username="an"), "username", "3–40 letters"),
        (new_family_data(confirm="something else"), "confirm", "The two passwords differ."),
        (new_family_data(family=""), "family_name", "Give the family a name."),
        (new_family_data(family="x" * 61), "family_name", "at most 60 characters"),
    ],
    ids=["short-password", "bad-username-characters", "short-username", "passwords-differ", "no-family-name",
         "long-family-name"],
)
def test_welcome_refuses_bad_input_beside_the_field_and_keeps_what_was_typed(new_instance, data, field, message):
    app, client = new_instance
    before = db_snapshot(app)
    page = client.post("/welcome", data=data)
    assert page.status_code == 200
    assert message in element_text(page, f"{field}-errors")
    assert input_value(page, "family_name") == data["family_name"]
    assert input_value(page, "username") == data["username"]
    assert not input_value(page, "password") and not input_value(page, "confirm")
    assert db_snapshot(app) == before
    assert client.get("/").headers["Location"] == "/welcome"


def test_welcome_refuses_a_family_name_of_only_spaces(new_instance):
    app, client = new_instance
    before = db_snapshot(app)
    page = client.post("/welcome", data=new_family_data(family="   "))
    assert page.status_code == 200
    assert "Give the family a name." in element_text(page, "family_name-errors")
    assert db_snapshot(app) == before


def test_signup_refuses_a_taken_username_whatever_its_case(app):
    client = strict_client(app, None)
    before = db_snapshot(app)
    page = client.post("/signup", data=new_family_data("Second family", " TESTER "))
    assert page.status_code == 200
    assert element_text(page, "username-errors") == account_service.USERNAME_TAKEN
    assert input_value(page, "family_name") == "Second family"
    assert input_value(page, "username") == " TESTER "
    assert not input_value(page, "password")
    # Nothing is written but the "taken" answer, counted as a failure from this address (usernames
    # cannot be listed faster than the sign-in limit allows).
    after = db_snapshot(app)
    assert [key for _, key, _ in after.pop("sign_in_failure")] == ["addr:127.0.0.1"]
    before.pop("sign_in_failure")
    assert after == before


# -- signing in ---------------------------------------------------------------------------


def test_wrong_password_and_unknown_username_get_the_same_answer(app):
    client = strict_client(app, None)
    before_rows = db_snapshot(app)["member"]
    wrong_password = sign_in(client, TEST_USERNAME, "not the password")
    unknown_user = sign_in(client, "nobody-here", "not the password")
    assert sign_in_error(wrong_password) == sign_in_error(unknown_user) == (200, account_service.NO_MATCH)
    assert input_value(wrong_password, "username") == TEST_USERNAME  # kept for the next try
    assert not input_value(wrong_password, "password")
    assert db_snapshot(app)["member"] == before_rows
    assert signed_out(client)


def test_username_is_not_case_sensitive_at_sign_in(app):
    client = strict_client(app, None)
    response = sign_in(client, "  TeStEr ")
    assert response.status_code == 302
    assert client.get("/history").status_code == 200


@pytest.mark.parametrize(
    "next_page, landing",
    [
        ("/history", "/history"),
        ("/games/new?x=1", "/games/new?x=1"),
        ("https://evil.example/", "/"),
        ("//evil.example", "/"),
        ("/\\evil.example", "/"),
        ("\\\\evil.example", "/"),
        ("javascript:alert(1)", "/"),
    ],
)
def test_sign_in_goes_to_next_only_when_it_is_a_page_of_this_site(app, next_page, landing):
    client = strict_client(app, None)
    response = sign_in(client, next=next_page)
    assert response.status_code == 302
    assert response.headers["Location"] == landing


def test_sign_in_next_with_a_tab_does_not_leave_the_site(app):
    client = strict_client(app, None)
    response = sign_in(client, next="/\t/evil.example")
    assert response.status_code == 302
    assert not response.headers["Location"].startswith("//")


def test_sign_in_next_with_a_line_break_goes_home(app):
    client = strict_client(app, None)
    response = sign_in(client, next="/\r\nSet-Cookie: x=1")
    assert response.status_code == 302
    assert response.headers["Location"] == "/"


def test_already_signed_in_login_page_follows_next_safely(client):
    assert client.get("/login?next=/records").headers["Location"] == "/records"
    assert client.get("/login?next=//evil.example").headers["Location"] == "/"


def test_keep_me_signed_in_sets_a_long_lived_http_only_remember_cookie(app):
    client = strict_client(app, None)
    response = sign_in(client, remember=True)
    assert response.status_code == 302
    cookie = set_cookie(response, "remember_token")
    assert cookie is not None
    assert cookie["httponly"]
    assert cookie["samesite"].lower() == "lax"
    lifetime = parsedate_to_datetime(cookie["expires"]) - datetime.now(UTC)
    assert timedelta(days=89) < lifetime <= timedelta(days=90, minutes=1)

    # The cookie alone (a phone whose browser was closed) still signs the member in.
    phone = strict_client(app, None)
    phone.set_cookie("remember_token", cookie.value)
    assert phone.get("/history").status_code == 200


def test_without_keep_me_signed_in_there_is_no_remember_cookie(app):
    client = strict_client(app, None)
    response = sign_in(client, remember=False)
    assert response.status_code == 302
    assert set_cookie(response, "remember_token") is None
    assert client.get("/history").status_code == 200


# -- signing out --------------------------------------------------------------------------


def test_sign_out_sends_every_page_to_sign_in(client):
    assert client.get("/history").status_code == 200
    response = client.post("/logout")
    assert response.status_code == 302 and response.headers["Location"] == "/login"
    assert "Signed out." in text_of(client.get("/login"))
    for path in ("/", "/history", "/family", "/games/new"):
        page = client.get(path)
        assert page.status_code == 302 and urlsplit(page.headers["Location"]).path == "/login", path


def test_sign_out_also_ends_keep_me_signed_in(app):
    client = strict_client(app, None)
    sign_in(client, remember=True)
    response = client.post("/logout")
    assert response.status_code == 302
    assert signed_out(client)


def test_sign_out_needs_a_post(client):
    assert client.get("/logout").status_code == 405
    assert client.get("/logout/everywhere").status_code == 405
    assert client.get("/history").status_code == 200  # still signed in


def test_sign_out_everywhere_ends_other_sessions_and_remember_cookies(app):
    laptop, phone = strict_client(app, None), strict_client(app, None)
    sign_in(laptop)
    remembered = set_cookie(sign_in(phone, remember=True), "remember_token")
    tablet = strict_client(app, None)  # only the phone's remember cookie, no session
    tablet.set_cookie("remember_token", remembered.value)
    assert laptop.get("/history").status_code == 200
    assert phone.get("/history").status_code == 200
    assert tablet.get("/history").status_code == 200

    response = laptop.post("/logout/everywhere")
    assert response.status_code == 302 and response.headers["Location"] == "/login"
    assert signed_out(phone)
    assert signed_out(tablet)
    assert signed_out(laptop)

    assert sign_in(phone).status_code == 302  # the password still works
    assert phone.get("/history").status_code == 200


# -- sign-in rate limit -------------------------------------------------------------------


def fail_sign_ins(client, username: str, times: int, address=ADDRESS) -> None:
    for _ in range(times):
        response = sign_in(client, username, "not the password", address=address)
        assert sign_in_error(response) == (200, account_service.NO_MATCH)


def test_five_wrong_passwords_lock_the_account_like_an_unknown_username(app, actions):
    actions.add_member("Our family", "ann")
    client = strict_client(app, None)
    fail_sign_ins(client, TEST_USERNAME, 5)
    locked = sign_in(client, TEST_USERNAME, TEST_PASSWORD)  # even the right password
    assert sign_in_error(locked) == (429, account_service.TOO_MANY)
    assert signed_out(client)

    fail_sign_ins(client, "nobody-here", 5)
    assert sign_in_error(sign_in(client, "nobody-here", "anything")) == sign_in_error(locked)

    # The lock is on the account: another address is refused too; other accounts are not.
    elsewhere = strict_client(app, None)
    assert sign_in_error(sign_in(elsewhere, address=OTHER_ADDRESS)) == (429, account_service.TOO_MANY)
    assert sign_in(elsewhere, "ann", address=OTHER_ADDRESS).status_code == 302
    assert elsewhere.get("/history").status_code == 200


def test_changing_the_case_of_the_username_does_not_escape_the_lock(app):
    client = strict_client(app, None)
    for username in ("Tester", "TESTER", " tester", "tEsTeR ", "tester"):
        fail_sign_ins(client, username, 1)
    assert sign_in_error(sign_in(client)) == (429, account_service.TOO_MANY)


def test_a_successful_sign_in_clears_the_account_failures(app):
    client = strict_client(app, None)
    fail_sign_ins(client, TEST_USERNAME, 4)
    assert sign_in(client).status_code == 302
    client.post("/logout")
    fail_sign_ins(client, TEST_USERNAME, 4)
    assert sign_in(client).status_code == 302


def test_thirty_failures_from_one_address_lock_that_address_only(app, actions):
    actions.add_member("Our family", "ann")
    client = strict_client(app, None)
    for n in range(10):  # three tries each: no single account reaches its limit
        fail_sign_ins(client, f"guess{n}", 3)
    for username, password in ((TEST_USERNAME, TEST_PASSWORD), ("ann", TEST_PASSWORD), ("new-name", "x" * 9)):
        assert sign_in_error(sign_in(client, username, password)) == (429, account_service.TOO_MANY), username
    assert signed_out(client)

    elsewhere = strict_client(app, None)
    assert sign_in(elsewhere, address=OTHER_ADDRESS).status_code == 302
    assert elsewhere.get("/history").status_code == 200


def add_failures(app, key: str, count: int, minutes_ago: float) -> None:
    with app.app_context():
        at = utcnow() - timedelta(minutes=minutes_ago)
        db.session.add_all(SignInFailure(key=key, at=at) for _ in range(count))
        db.session.commit()


@pytest.mark.parametrize(
    "key, count",
    [(f"user:{TEST_USERNAME}", account_service.MAX_FAILURES_PER_ACCOUNT),
     (f"addr:{ADDRESS}", account_service.MAX_FAILURES_PER_ADDRESS)],
    ids=["account", "address"],
)
@pytest.mark.parametrize("minutes_ago, locked", [(14, True), (16, False)])
def test_failures_count_for_fifteen_minutes(app, key, count, minutes_ago, locked):
    add_failures(app, key, count, minutes_ago)
    client = strict_client(app, None)
    response = sign_in(client)
    if locked:
        assert sign_in_error(response) == (429, account_service.TOO_MANY)
    else:
        assert response.status_code == 302
        assert client.get("/history").status_code == 200


# -- invite links -------------------------------------------------------------------------


def make_invite(client) -> str:
    """Press 'Make an invite link' on the family page; the path of the link shown."""
    response = client.post("/family/invites")
    assert response.status_code == 302
    page = client.get("/family")
    links = [i["value"] for i in inputs(page) if i.get("aria-label") == "Invite link"]
    assert len(links) == 1, text_of(page)
    return urlsplit(links[0]).path


def join(app, path: str, username: str):
    """A signed-out phone opens the invite link and joins; (client, response)."""
    phone = strict_client(app, None)
    assert phone.get(path).status_code == 200
    response = phone.post(path, data={"username": username, "password": NEW_PASSWORD, "confirm": NEW_PASSWORD})
    return phone, response


def assert_link_refused(app, path: str) -> None:
    before = db_snapshot(app)
    phone = strict_client(app, None)
    page = phone.get(path)
    assert page.status_code == 404
    assert "This link does not work" in text_of(page)
    assert "used or has expired" in text_of(page)
    posted = phone.post(path, data={"username": "late-comer", "password": NEW_PASSWORD, "confirm": NEW_PASSWORD})
    assert posted.status_code == 404
    assert db_snapshot(app) == before
    assert signed_out(phone)


def test_invite_link_is_shown_once_and_lets_one_person_join_the_family(app, client, actions):
    game_id = actions.new_game("family-7", ["Annabel", "Bertram", "Cyril"])
    path = make_invite(client)
    assert re.fullmatch(r"/join/[\w-]{20,}", path)
    again = client.get("/family")
    assert not [i for i in inputs(again) if i.get("aria-label") == "Invite link"], "the link is shown only once"
    assert "Links not used yet" in text_of(again)

    phone, response = join(app, path, "Bob")
    assert response.status_code == 302 and response.headers["Location"] == "/"
    home = text_of(phone.get("/"))
    assert "Welcome to Our family, bob." in home
    assert "Annabel" in home
    assert phone.get(f"/games/{game_id}").status_code == 200
    assert family_id_of(app, "bob") == family_id_of(app, TEST_USERNAME)
    assert "bob" in text_of(client.get("/family"))

    assert_link_refused(app, path)


def test_join_refuses_bad_input_beside_the_field_and_keeps_the_link_usable(app, client):
    path = make_invite(client)
    phone = strict_client(app, None)
    before = db_snapshot(app)
    for data, field, message in [
        ({"username": TEST_USERNAME.upper(), "password": NEW_PASSWORD, "confirm": NEW_PASSWORD},
         "username", account_service.USERNAME_TAKEN),
        ({"username": "bob", "password": "short", "confirm": "short"}, "password", "at least 8 characters"),
        ({"username": "b!b", "password": NEW_PASSWORD, "confirm": NEW_PASSWORD}, "username", "letters, digits"),
    ]:
        page = phone.post(path, data=data)
        assert page.status_code == 200
        assert message in element_text(page, f"{field}-errors")
        assert input_value(page, "username") == data["username"]
        assert not input_value(page, "password")
    after = db_snapshot(app)
    assert [key for _, key, _ in after.pop("sign_in_failure")] == ["addr:127.0.0.1"]  # the "taken" answer
    before.pop("sign_in_failure")
    assert after == before
    assert join(app, path, "bob")[1].status_code == 302


def test_expired_invite_is_refused(app, client):
    path = make_invite(client)
    with app.app_context():
        db.session.execute(update(Invite).values(expires_at=utcnow() - timedelta(minutes=1)))
        db.session.commit()
    assert_link_refused(app, path)
    assert "Links not used yet" not in text_of(client.get("/family"))


def test_cancelled_invite_is_refused(app, client):
    path = make_invite(client)
    family_page = client.get("/family").get_data(as_text=True)
    cancel = re.findall(r'action="(/family/invites/\d+/cancel)"', family_page)
    assert len(cancel) == 1
    response = client.post(cancel[0])
    assert response.status_code == 302
    assert "Invite link cancelled." in text_of(client.get("/family"))
    assert_link_refused(app, path)
    assert client.post(cancel[0]).status_code == 404  # nothing left to cancel


def test_invites_of_one_family_never_add_anyone_to_another(app, client, actions):
    actions.add_member("Other family", "zed")
    other = strict_client(app, "zed")
    other_game = actions.on(other).new_game("family-7", ["Xavier", "Yolanda", "Zachary"])
    path = make_invite(client)
    cancel = re.findall(r'action="(/family/invites/\d+/cancel)"', client.get("/family").get_data(as_text=True))[0]

    # A member of the other family can neither cancel this link nor join through it.
    before = db_snapshot(app)
    assert other.post(cancel).status_code == 404
    signed_in_page = other.get(path)
    assert "You are signed in" in text_of(signed_in_page)
    other.post(path, data={"username": "zed-two", "password": NEW_PASSWORD, "confirm": NEW_PASSWORD})
    assert db_snapshot(app) == before

    phone, response = join(app, path, "bob")
    assert response.status_code == 302
    assert family_id_of(app, "bob") == family_id_of(app, TEST_USERNAME) != family_id_of(app, "zed")
    assert "Xavier" not in text_of(phone.get("/"))
    assert phone.get(f"/games/{other_game}").status_code == 404
    assert "bob" not in text_of(other.get("/family"))


def test_invite_links_are_stored_only_as_hashes(app, client):
    token = make_invite(client).rsplit("/", 1)[1]
    with app.app_context():
        stored = db.session.execute(db.select(Invite.token_hash)).scalar_one()
    assert token not in stored and len(stored) == 64


@pytest.mark.parametrize("token", ["not-a-token", "x" * 101])
def test_made_up_invite_links_are_refused(app, token):
    assert_link_refused(app, f"/join/{token}")


# -- open sign-up -------------------------------------------------------------------------


def test_closed_signup_is_not_found(tmp_path):
    app = make_app(tmp_path, OPEN_SIGNUP=False)
    client = strict_client(app, None)
    before = db_snapshot(app)
    assert client.get("/signup").status_code == 404
    assert client.post("/signup", data=new_family_data("Second family", "zed")).status_code == 404
    assert db_snapshot(app) == before
    assert "New family" not in text_of(client.get("/login"))


def test_open_signup_makes_a_separate_family(app, client, actions):
    game_id = actions.new_game("family-7", ["Annabel", "Bertram", "Cyril"])
    newcomer = strict_client(app, None)
    assert "New family" in text_of(newcomer.get("/login"))
    response = newcomer.post("/signup", data=new_family_data("Second family", "zed"))
    assert response.status_code == 302 and response.headers["Location"] == "/"

    assert family_id_of(app, "zed") != family_id_of(app, TEST_USERNAME)
    home = text_of(newcomer.get("/"))
    assert "Second family" in home and "Annabel" not in home
    for path in (f"/games/{game_id}", f"/games/{game_id}/standings", f"/games/{game_id}/sheet.pdf"):
        assert newcomer.get(path).status_code == 404, path
    assert "Annabel" not in text_of(newcomer.get("/history"))
    assert "Annabel" not in text_of(newcomer.get("/players"))
    assert json.loads(newcomer.get("/export.json").get_data(as_text=True))["games"] == []
    assert TEST_USERNAME not in text_of(newcomer.get("/family"))

    # The first family is untouched.
    assert "Annabel" in text_of(client.get("/"))
    assert "Our family" in text_of(client.get("/"))


# -- the family page ----------------------------------------------------------------------


def test_family_can_be_renamed_and_the_name_is_escaped(app, client):
    name = '<b>Bold & "quoted"</b>'
    response = client.post("/family", data={"family-name": name})
    assert response.status_code == 302 and response.headers["Location"] == "/family"
    for path in ("/family", "/"):
        html = client.get(path).get_data(as_text=True)
        assert str(escape(name)) in html, path
        assert "<b>Bold" not in html, path
    with app.app_context():
        assert db.session.get(Family, family_id_of(app, TEST_USERNAME)).name == name


@pytest.mark.parametrize(
    "name, message", [("", "Give the family a name."), ("x" * 61, "Use at most 60 characters.")],
    ids=["empty", "too-long"],
)
def test_family_rename_refuses_bad_names_beside_the_field(app, client, name, message):
    before = db_snapshot(app)
    page = client.post("/family", data={"family-name": name})
    assert page.status_code == 200
    assert element_text(page, "family-name-errors") == message
    assert input_value(page, "family-name") == name
    assert db_snapshot(app) == before


def test_family_rename_refuses_a_name_of_only_spaces(app, client):
    before = db_snapshot(app)
    page = client.post("/family", data={"family-name": "   "})
    assert page.status_code == 200
    assert element_text(page, "family-name-errors") == "Give the family a name."
    assert db_snapshot(app) == before
