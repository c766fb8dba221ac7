"""One cache per family: a page is drawn once per change of the family's data and served to
every phone of the family, each with forms signed for its own session; a score keeper's link
and a member never get each other's page, two families never share; the public scoreboard is
drawn once for every watcher."""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from flask import template_rendered
from werkzeug.datastructures import MultiDict
from wtforms import BooleanField, Form
from wtforms.validators import NumberRange, Optional
from wtforms.widgets import CheckboxInput, NumberInput

from scorekeeper.extensions import db
from scorekeeper.games import forms
from scorekeeper.models import Family
from scorekeeper.web import page_cache
from scorekeeper.web.fields import IntegerField
from tests.actions import GameActions
from tests.databases import add_member, make_app, strict_client
from tests.pages import input_value, inputs, round_data, score_url, text_of
from tests.test_sharing import share


@contextmanager
def drawn(app):
    """The templates the block renders (a page served from memory renders none)."""
    names: list[str] = []

    def record(_sender, template, context, **_):
        names.append(template.name)

    template_rendered.connect(record, app)
    try:
        yield names
    finally:
        template_rendered.disconnect(record, app)


def tokens(response) -> set[str]:
    """The CSRF tokens the page's forms send."""
    return {field.get("value", "") for field in inputs(response) if field.get("name") == "csrf_token"}


@dataclass
class Table:
    """A family at the table with CSRF protection on: a game of Ann, Bob and Cy, and two
    members' phones (``ann`` is tester, ``bob`` another member)."""

    app: object
    ann: object
    bob: object
    game: int
    ids: dict

    def buy(self, phone, page, name: str):
        """Tap Buy for ``name`` with the token of ``page``, as that phone's browser would."""
        token = input_value(page, "csrf_token")
        return phone.post(f"/games/{self.game}/rounds/1/buy", data={"player": self.ids[name], "csrf_token": token})


@pytest.fixture
def table(tmp_path) -> Table:
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True)
    add_member(app, "Our family", "bob")
    ann, bob = strict_client(app), strict_client(app, "bob")
    app.config["WTF_CSRF_ENABLED"] = False  # the game is set up quickly; every check runs with it on
    actions = GameActions(ann, app)
    game = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    app.config["WTF_CSRF_ENABLED"] = True
    return Table(app, ann, bob, game, actions.player_ids(game))


# -- two phones of one family ------------------------------------------------------------------


def test_a_second_phone_gets_the_page_undrawn_with_forms_signed_for_itself(table):
    url = f"/games/{table.game}"
    with drawn(table.app) as first:
        ann_page = table.ann.get(url)
    with drawn(table.app) as second:
        bob_page = table.bob.get(url)
    assert first == ["games/round_screen.html"] and second == [], "the second phone's page was drawn again"
    assert text_of(ann_page) == text_of(bob_page)
    # Each page's forms carry one token, its own session's, and never the shared stand-in.
    assert len(tokens(ann_page)) == len(tokens(bob_page)) == 1 and tokens(ann_page) != tokens(bob_page)
    for page in (ann_page, bob_page):
        assert page_cache.STAND_IN not in page.get_data(as_text=True)

    assert table.buy(table.ann, ann_page, "Bob").status_code == 302
    assert table.buy(table.bob, bob_page, "Cy").status_code == 302
    actions = GameActions(app=table.app)
    assert actions.buys_of(table.game, 1) == {"Ann": 0, "Bob": 1, "Cy": 1}
    # A token is only good for the session it was drawn for.
    assert table.buy(table.bob, ann_page, "Ann").status_code == 400
    assert actions.buys_of(table.game, 1)["Ann"] == 0


def test_a_change_redraws_the_page_once_with_the_new_state_for_both_phones(table):
    url = f"/games/{table.game}"
    table.ann.get(url)
    page = table.bob.get(url)
    assert "0/3" in text_of(page)
    assert table.buy(table.bob, page, "Bob").status_code == 302
    with drawn(table.app) as after:
        ann_page, bob_page = table.ann.get(url), table.bob.get(url)
    assert after == ["games/round_screen.html"]
    for seen in (ann_page, bob_page):
        assert "1/3" in text_of(seen), "a buy must show on the next view, not a cached old page"
    # The redrawn page's forms work from both phones.
    assert table.buy(table.ann, ann_page, "Cy").status_code == 302
    assert table.buy(table.bob, table.bob.get(url), "Ann").status_code == 302
    assert GameActions(app=table.app).buys_of(table.game, 1) == {"Ann": 1, "Bob": 1, "Cy": 1}


def test_each_phone_revalidates_with_its_own_tag(table):
    url = f"/games/{table.game}/standings"
    ann_page = table.ann.get(url)
    bob_page = table.bob.get(url)
    assert ann_page.headers["ETag"] != bob_page.headers["ETag"]
    assert ann_page.headers["Cache-Control"] == "private, no-cache"
    assert table.ann.get(url, headers={"If-None-Match": ann_page.headers["ETag"]}).status_code == 304
    # Bob's browser holding Ann's tag would keep a page whose forms are not signed for it.
    with_other_tag = table.bob.get(url, headers={"If-None-Match": ann_page.headers["ETag"]})
    assert with_other_tag.status_code == 200 and tokens(with_other_tag) == tokens(bob_page)


def test_a_one_time_message_shows_on_its_own_phone_only(table):
    url = f"/games/{table.game}"
    table.bob.get(url)  # the round screen is in memory
    # Round 2 is not being played yet: the card entry sends Ann back with a message.
    opened = table.ann.get(score_url(table.game, 2))
    assert opened.status_code == 302 and opened.headers["Location"] == url
    with drawn(table.app) as fresh:
        ann_page = table.ann.get(url)
    assert "Round 1 comes first." in text_of(ann_page) and fresh == ["games/round_screen.html"]
    assert "comes first" not in text_of(table.bob.get(url))
    assert "comes first" not in text_of(table.ann.get(url))


def test_pages_are_drawn_for_every_view_with_the_cache_off(table):
    table.app.config["PAGE_CACHE"] = False
    with drawn(table.app) as names:
        table.ann.get("/history")
        table.bob.get("/history")
    assert names == ["history/index.html", "history/index.html"]


# -- who is looking ------------------------------------------------------------------------------


@pytest.mark.parametrize("member_first", [True, False])
def test_a_score_keepers_link_and_a_member_never_get_each_others_page(table, member_first):
    table.app.config["WTF_CSRF_ENABLED"] = False
    keeper = strict_client(table.app, None)
    keeper.get(share(table.ann, table.game, "keep"))
    table.app.config["WTF_CSRF_ENABLED"] = True
    # What only a member is offered: sharing the game, printing it, deleting it.
    members_only = {f"/games/{table.game}": f'href="/games/{table.game}/share"',
                    f"/games/{table.game}/standings": f'href="/games/{table.game}/delete"'}
    for url, link in members_only.items():
        views = [(table.ann, True), (keeper, False)]
        for phone, is_member in views if member_first else views[::-1]:
            page = phone.get(url)
            assert page.status_code == 200
            html = page.get_data(as_text=True)
            assert (link in html) == is_member, (url, is_member)
            assert ("Score sheet (PDF)" in html) == is_member, (url, is_member)
    # The keeper's page is its own, forms signed for it: its buy counts.
    page = keeper.get(f"/games/{table.game}")
    assert table.buy(keeper, page, "Cy").status_code == 302
    assert GameActions(app=table.app).buys_of(table.game, 1)["Cy"] == 1


def test_two_families_never_share_a_page(table):
    add_member(table.app, "Other family", "stranger")
    stranger = strict_client(table.app, "stranger")
    table.app.config["WTF_CSRF_ENABLED"] = False
    GameActions(stranger).new_game("shanghai-10", ["Di", "Ed", "Flo"], first_dealer="Di")
    table.app.config["WTF_CSRF_ENABLED"] = True
    with table.app.app_context():  # the same number of changes: only the family tells them apart
        versions = db.session.execute(db.select(Family.version).order_by(Family.id)).scalars().all()
    assert versions[0] == versions[1]
    ours = [table.ann.get(url) for url in ("/", "/history")]
    with drawn(table.app) as names:
        theirs = [stranger.get(url) for url in ("/", "/history")]
    assert names == ["web/home.html", "history/index.html"]
    for page in ours:
        assert "Ann" in text_of(page) and "Di" not in text_of(page)
    for page in theirs:
        assert "Di" in text_of(page) and "Ann" not in text_of(page)
    assert stranger.get(f"/games/{table.game}").status_code == 404


# -- the card entry --------------------------------------------------------------------------------


def test_the_card_entry_is_drawn_once_and_saves_from_the_second_phone(table):
    url = score_url(table.game, 1)
    with drawn(table.app) as names:
        ann_page = table.ann.get(url)
        bob_page = table.bob.get(url)
    assert names == ["games/card_entry.html"]
    assert tokens(ann_page) != tokens(bob_page) and len(tokens(bob_page)) == 1

    actions = GameActions(table.bob, table.app)
    version, kept = actions.opened_form(table.game, 1)
    # A typo: the form comes back with it, drawn for this post alone.
    hand = round_data(table.ids, "Ann", {"Bob": {"k_K": "abc"}, "Cy": "K 5"}, version, action="review")
    with drawn(table.app) as again:
        typo = table.bob.post(url, data={**kept, **hand, "csrf_token": input_value(bob_page, "csrf_token")})
    assert typo.status_code == 200 and again == ["games/card_entry.html"]
    assert input_value(typo, f"p{table.ids['Bob']}-k_K") == "abc" and "Enter a whole number." in text_of(typo)

    data = round_data(table.ids, "Ann", {"Bob": "K K", "Cy": 20}, version)
    saved = table.bob.post(url, data={**kept, **data, "csrf_token": input_value(bob_page, "csrf_token")})
    assert saved.status_code == 302
    assert actions.stored_points(table.game)[1] == {"Ann": 0, "Bob": 20, "Cy": 20}
    # Ann's open form is now out of date: her next look shows the saved hand.
    assert input_value(table.ann.get(url), f"p{table.ids['Cy']}-total") == "20"


@pytest.mark.parametrize("value", ["", "7", "abc", '"><b>', "x&y"])
def test_card_entry_inputs_are_drawn_as_wtforms_draws_them(app, value):
    """The card entry draws its ~90 inputs with its own quicker widgets: the same markup."""

    class Hand(Form):
        count = IntegerField("K", validators=[Optional(), NumberRange(min=0)])
        total = IntegerField("Total", validators=[Optional(), NumberRange(1, 255)])
        buys = IntegerField("Buys", validators=[Optional(), NumberRange(0, 4)])

    class Box(Form):
        down = BooleanField("Down")

    with app.test_request_context():
        hand = Hand(MultiDict({"count": value, "total": value, "buys": value}), prefix="p3")
        for field in hand:
            attributes = {"inputmode": "numeric", "data-key": "K&<", "data-points": 10, "max": 4, "placeholder": value}
            assert forms._NUMBER(field, **attributes) == NumberInput(min=0)(field, **attributes)
        box = Box(MultiDict({"down": "y"}))
        assert forms._CHECKBOX(box.down, data_x=value) == CheckboxInput()(box.down, data_x=value)


# -- the public scoreboard -----------------------------------------------------------------------


def test_the_scoreboard_is_drawn_once_for_every_watcher_until_the_game_changes(table):
    table.app.config["WTF_CSRF_ENABLED"] = False
    path = share(table.ann, table.game, "view")
    table.app.config["WTF_CSRF_ENABLED"] = True
    tv, phone = strict_client(table.app, None), strict_client(table.app, None)
    with drawn(table.app) as names:
        pages = [tv.get(path), phone.get(path)]
        boards = [tv.get(path + "/board"), phone.get(path + "/board", headers={"Accept-Encoding": "gzip"})]
    assert names == ["sharing/board.html", "sharing/_board.html"]
    assert pages[0].data == pages[1].data and "Round 1 of 10" in text_of(pages[1])
    assert boards[1].headers["Content-Encoding"] == "gzip" and boards[0].headers["ETag"] == boards[1].headers["ETag"]
    etag = boards[0].headers["ETag"]
    assert phone.get(path + "/board", headers={"If-None-Match": etag}).status_code == 304

    page = table.ann.get(f"/games/{table.game}")
    assert table.buy(table.ann, page, "Bob").status_code == 302
    with drawn(table.app) as after:
        changed = [w.get(path + "/board", headers={"If-None-Match": etag}) for w in (tv, phone)]
    assert after == ["sharing/_board.html"]
    for response in changed:
        assert response.status_code == 200 and response.headers["ETag"] != etag
        assert re.search(r'<th scope="row">Bob.*?<td class="num">1/\d+</td>', response.text, re.S)
