"""Fuzzing a family's accounts: the family name, sign-in, sign-up and joining by invite."""

from __future__ import annotations

import itertools
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from scorekeeper.accounts import service as account_service
from scorekeeper.extensions import db
from scorekeeper.models import Family
from tests.databases import TEST_PASSWORD, make_app, strict_client
from tests.fuzz_strategies import (
    CHARS,
    assert_refused,
    consume,
    event,
    fuzz,
    hostile_text,
    long_text,
    noise,
    normal_name,
    nul_in,
    report_examples,  # noqa: F401 - autouse: reports the examples run
    sent,
    snapshot,
    stored_text_problems,
    tick,
)
from tests.fuzz_world import build_world
from tests.pages import text_of

pytestmark = pytest.mark.slow


# -- family, sign-in, sign-up, invites --------------------------------------------------------


def test_family_name_is_refused_or_saved_as_typed():
    """POST /family: a name is saved (spaces collapsed) when it has 1-60 letters, else refused.
    A missing field, or one of spaces only, is refused too."""
    w = build_world()
    name = st.one_of(st.text(CHARS, max_size=70), long_text,
                     st.sampled_from(["", "A" * 60, "A" * 61, " " + "B" * 60 + " ", "\u202eylimaF", "👪"]))

    @fuzz(80)
    @given(value=st.one_of(name, st.text(st.sampled_from(" \t\n\u00a0\u2003\u3000\x1c\x85"), max_size=5), st.none()),
           extra=noise({"family-name"}))
    def run(value, extra):
        tick()
        if value is None:  # no family-name field at all
            extra = [(k, v) for k, v in extra if k != "family-name"]
        pairs = ([] if value is None else [("family-name", value)]) + extra
        before = w.snapshot()
        page = w.client.post("/family", data=MultiDict(pairs))
        event("saved" if page.status_code == 302 else f"refused ({page.status_code})")
        if value is not None and normal_name(value) and len(normal_name(value)) <= 60 and not nul_in(*sent(pairs)):
            assert page.status_code == 302, text_of(page)[:300]
            with w.app.app_context():
                assert db.session.get(Family, w.family_id).name == normal_name(value)
            assert stored_text_problems(w.app) == []
            consume(w.client, page)
        else:
            w.refused(page, before)

    run()


def test_failed_sign_ins_write_nothing_but_the_failure_count():
    """POST /login with any username, password and remember-me: a sign-in error (or 429 once
    the limit is reached), still signed out, and no table written but ``sign_in_failure``,
    where failed sign-ins are counted on purpose."""
    w = build_world()
    addresses = itertools.count(1)
    text = st.one_of(st.text(CHARS, max_size=50), long_text,
                     st.sampled_from(["tester", "TESTER ", "other", TEST_PASSWORD, TEST_PASSWORD + " "]), st.none())

    @fuzz(50)
    @given(username=text, password=st.one_of(text, hostile_text), remember=st.one_of(st.none(), hostile_text),
           extra=noise({"username", "password"}))
    def run(username, password, remember, extra):
        tick()
        extra = [(k, v) for k, v in extra if (k != "username" or username is not None)
                 and (k != "password" or password is not None)]
        signs_in = (username is not None and password is not None
                    and account_service.normal_username(username)[:40] in ("tester", "other")
                    and password[:account_service.PASSWORD_MAX] == TEST_PASSWORD)
        if signs_in:
            password += "!"
        pairs = [(k, v) for k, v in (("username", username), ("password", password), ("remember", remember))
                 if v is not None] + extra
        n = next(addresses)
        before = w.snapshot(exclude={"sign_in_failure"})
        page = w.anon.post("/login", data=MultiDict(pairs),
                           environ_base={"REMOTE_ADDR": f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"})
        assert page.status_code in ((400, 413) if nul_in(*sent(pairs)) else (200, 429, 413))
        event(f"answer {page.status_code}")
        w.refused(page, before, exclude={"sign_in_failure"})
        assert w.anon.get("/").status_code == 302  # still signed out

    run()


@st.composite
def bad_new_member(draw, with_family: bool, taken: frozenset = frozenset({"tester", "other"})):
    """The sign-up / join form with at least one field wrong or missing; ``taken`` are the
    usernames the instance already holds (none on an instance nobody has signed up to)."""
    fields = {"username": f"fuzzer{draw(st.integers(1, 999))}", "password": "correct horse battery",
              "confirm": "correct horse battery"}
    if with_family:
        fields["family_name"] = "Fuzz family"
    kinds = draw(st.lists(st.sampled_from(["username", "password", "confirm"] + (["family_name"] if with_family else [])),
                          min_size=1, max_size=3, unique=True))
    for kind in kinds:
        if draw(st.integers(0, 4)) == 0:
            del fields[kind]
        elif kind == "username":
            fields["username"] = draw(st.one_of(hostile_text, st.sampled_from(["Tester", " other ", "ab", "a" * 41, "-abc", "ümlaut"]))
                                      .filter(lambda u: account_service.username_problem(account_service.normal_username(u))
                                              or account_service.normal_username(u) in taken))
        elif kind == "password":
            fields["password"] = draw(st.one_of(st.text(CHARS, max_size=7), st.text(CHARS, min_size=201, max_size=260)))
            fields["confirm"] = fields["password"] if "confirm" not in kinds else fields.get("confirm", "")
        elif kind == "confirm":
            fields["confirm"] = draw(hostile_text.filter(lambda c: c != fields.get("password")))
        else:
            fields["family_name"] = draw(st.one_of(st.just(""), long_text, st.text(CHARS, min_size=61, max_size=80))
                                         .filter(lambda f: f == "" or len(normal_name(f)) > 60))
    return list(fields.items()) + draw(noise(fields))


def test_welcome_signup_and_join_forms_with_a_bad_field_add_nobody():
    """POST /welcome (an instance nobody has signed up to), /signup and /join/<token> with one
    or more bad or missing fields; and /join with tokens that are not invites."""
    w = build_world()
    empty = make_app(family=None)
    first_visit = strict_client(empty, None)

    @fuzz(120)
    @given(st.data())
    def run(data):
        tick()
        case = data.draw(st.sampled_from(["welcome", "signup", "join", "join-bad-token"]))
        app, client = (empty, first_visit) if case == "welcome" else (w.app, w.anon)
        url = {"welcome": "/welcome", "signup": "/signup", "join": f"/join/{w.invite_token}"}.get(case)
        if case == "join-bad-token":
            token = data.draw(st.one_of(hostile_text, st.text(st.sampled_from("abcdefABCDEF0123456789-_"), min_size=32, max_size=32)))
            url = "/join/" + quote(token, safe="")
        taken = frozenset() if case == "welcome" else frozenset({"tester", "other"})
        pairs = data.draw(bad_new_member(with_family=case in ("welcome", "signup"), taken=taken), label="form")
        # "That username is taken" is counted against the address (sign_in_failure), by design.
        before = snapshot(app, exclude={"sign_in_failure"})
        page = client.post(url, data=MultiDict(pairs))
        event(f"{case}: {page.status_code}")
        assert_refused(app, page, before, exclude={"sign_in_failure"})
        if case == "join-bad-token":
            assert 400 <= page.status_code < 500

    run()
