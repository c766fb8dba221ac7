"""Fuzzing the card entry: hostile fields and posts the game's state refuses write nothing;
random legal hands are stored with the points ``scorekeeper.rules`` gives them."""

from __future__ import annotations

from collections import Counter

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.models import GameRound, Result
from tests.actions import GameActions
from tests.databases import make_app, strict_client
from tests.fuzz_strategies import (
    HUGE,
    bad_int,
    event,
    fuzz,
    hostile_text,
    noise,
    nul_in,
    plain_int,
    report_examples,  # noqa: F401 - autouse: reports the examples run
    sent,
    tick,
)
from tests.fuzz_world import Table, World, build_world, game_ids, legal_hands, table_of
from tests.pages import review_lines, score_url, text_of

pytestmark = pytest.mark.slow


# -- card entry -------------------------------------------------------------------------------

SCORE_POISONS = ("count", "total", "buys", "went_out", "bonus", "out_holds", "empty_hand", "too_many",
                 "table_overflow")


@st.composite
def poisoned_hands(draw, w: World, t: Table, action: str):
    """A legal card entry with one to three hostile fields: it must be refused."""
    hands = draw(legal_hands(t))
    fields = dict(hands.fields)
    pids, variant = t.pids, t.variant
    others = [p for p in pids if p != hands.out]
    kinds = list(SCORE_POISONS) + (["version"] if action == "save" else [])
    if not variant.bonuses:
        kinds.remove("bonus")
    chosen = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=3, unique=True))
    codes = [k.code for k in variant.keys]

    def clear_hand(pid):
        for name in [n for n in fields if n.startswith(f"p{pid}-k_") or n == f"p{pid}-total"]:
            del fields[name]

    for kind in chosen:
        if kind == "count":
            pid, key = draw(st.sampled_from(pids)), draw(st.sampled_from(list(variant.keys)))
            copies = variant.copies(key, t.decks)
            fields[f"p{pid}-k_{key.code}"] = draw(hostile_text.filter(lambda v, n=copies: bad_int(v, 0, n)))
        elif kind == "total":
            top = rules.max_hand_points(variant, t.round)
            fields[f"p{draw(st.sampled_from(pids))}-total"] = draw(hostile_text.filter(lambda v, n=top: bad_int(v, 1, n)))
        elif kind == "buys":
            limit = t.round.buy_limit
            fields[f"p{draw(st.sampled_from(pids))}-buys"] = draw(hostile_text.filter(lambda v, n=limit: bad_int(v, 0, n)))
        elif kind == "went_out":
            value = draw(st.one_of(st.none(), st.sampled_from(w.foreign_pids).map(str), hostile_text)
                         .filter(lambda v: v not in {str(p) for p in pids}))
            if value is None:
                del fields["went_out"]
            else:
                fields["went_out"] = value
        elif kind == "bonus":
            fields["bonus"] = draw(hostile_text.filter(lambda v: v not in {"", *(b.code for b in variant.bonuses)}))
        elif kind == "out_holds":
            if draw(st.booleans()):
                fields[f"p{hands.out}-k_{draw(st.sampled_from(codes))}"] = "1"
            else:
                fields[f"p{hands.out}-total"] = str(draw(st.integers(1, 50)))
        elif kind == "empty_hand":
            clear_hand(draw(st.sampled_from(others)))
        elif kind == "too_many":
            pid = draw(st.sampled_from(others))
            clear_hand(pid)
            held, most = 0, variant.max_hand(t.round)
            for key in draw(st.permutations(list(variant.keys))):
                n = variant.copies(key, t.decks)
                if n:
                    fields[f"p{pid}-k_{key.code}"] = str(n)
                    held += n
                if held > most:
                    break
        elif kind == "table_overflow" and len(others) >= 2:
            key = draw(st.sampled_from([k for k in variant.keys if variant.copies(k, t.decks)]))
            for pid in draw(st.permutations(others))[:2]:
                clear_hand(pid)
                fields[f"p{pid}-k_{key.code}"] = str(variant.copies(key, t.decks))
        elif kind == "version":
            fields["version"] = draw(hostile_text.filter(lambda v: not plain_int(v, t.version)))
        else:  # table_overflow with one other player: a count the decks cannot hold
            fields[f"p{others[0]}-k_{rules.JOKER}"] = str(variant.copies(variant.key_by_code(rules.JOKER), t.decks) + 1)
    fields["action"] = action
    pairs = list(fields.items()) + draw(noise(fields))
    return chosen, pairs


def test_card_entry_with_hostile_fields_is_refused():
    """POST .../score (review, save or an unknown action) with one to three hostile fields in an
    otherwise legal hand, for the hand being played and for editing a scored one."""
    w = build_world()

    @fuzz(300)
    @given(st.data())
    def run(data):
        tick()
        t = w.tables[data.draw(st.sampled_from(["current", "edit"]), label="table")]
        action = data.draw(st.one_of(st.sampled_from(["review", "save"]),
                                     hostile_text.filter(lambda a: a not in ("save", "change"))), label="action")
        kinds, pairs = data.draw(poisoned_hands(w, t, action), label="form")
        before = w.snapshot()
        page = w.client.post(t.url, data=MultiDict(pairs), follow_redirects=True)
        for kind in kinds:
            event(f"hostile {kind}")
        event(f"answer {page.status_code}")
        w.refused(page, before)
        assert f"Check round {t.number}" not in text_of(page), "the review page was shown for bad input"

    run()


def test_card_entry_refused_by_the_games_state_writes_nothing():
    """A legal card entry sent where it must not be saved: an abandoned game, a round not yet
    reached or not there at all, another family's or a missing game, an out-of-date form."""
    w = build_world()

    @fuzz(160)
    @given(st.data())
    def run(data):
        tick()
        case = data.draw(st.sampled_from(["abandoned", "future", "no-round", "foreign", "stale-current", "stale-edit"]))
        table = {"abandoned": "abandoned", "future": "future", "no-round": "current", "foreign": "other",
                 "stale-current": "current", "stale-edit": "edit"}[case]
        t = w.tables[table]
        hands = data.draw(legal_hands(t), label="hands")
        fields = {**hands.fields, "action": "save"}
        url = t.url
        if case == "no-round":
            url = score_url(w.play, data.draw(st.sampled_from([0, 11, 99, 10**30, 2**63, 2**64]), label="round"))
        elif case == "foreign":
            url = score_url(data.draw(game_ids(w), label="game"), 1)
        elif case.startswith("stale"):
            fields["version"] = data.draw(st.one_of(st.integers(-5, 50).filter(lambda v: v != t.version).map(str),
                                                    st.sampled_from(HUGE).map(str), hostile_text)
                                          .filter(lambda v: not plain_int(v, t.version)),
                                          label="version")
        before = w.snapshot()
        pairs = list(fields.items()) + data.draw(noise(fields))
        page = w.client.post(url, data=MultiDict(pairs), follow_redirects=True)
        event(f"{case}: {page.status_code}")
        w.refused(page, before)
        if case in ("no-round", "foreign"):
            assert page.status_code == (400 if nul_in(*sent(pairs)) else 404)

    run()


def test_random_legal_hands_are_stored_with_the_rules_points():
    """Random legal leftover hands in every preset and player count: the review shows, and the
    database stores, the points ``scorekeeper.rules`` gives the same cards; an edit too."""
    app = make_app()
    client = strict_client(app)
    games: dict[tuple[str, int], int] = {}

    def game_for(key: str, n: int) -> int:
        if (key, n) not in games:
            games[key, n] = GameActions(client).new_game(key, [f"P{i}" for i in range(1, n + 1)])
        return games[key, n]

    @st.composite
    def tables(draw):
        variant = draw(st.sampled_from(list(rules.VARIANTS.values())))
        n = draw(st.integers(variant.min_players, min(variant.max_players, 6)))
        game_id = game_for(variant.key, n)
        return table_of(app, client, game_id, 1)

    def check(game_id, t, hands, page):
        names = {pid: name for name, pid in GameActions(app=app).player_ids(game_id).items()}
        assert review_lines(page) == {names[p]: (pts, pts) for p, pts in hands.points.items()}

    def stored(game_id):
        with app.app_context():
            rows = db.session.execute(
                sa.select(Result.player_id, Result.points, Result.cards, Result.went_out)
                .join(Result.round).where(GameRound.game_id == game_id, GameRound.number == 1)
            ).all()
        return {pid: (points, Counter(cards.split()), out) for pid, points, cards, out in rows}

    @fuzz(90)
    @given(st.data())
    def run(data):
        tick()
        t = data.draw(tables(), label="table")
        first = data.draw(legal_hands(t), label="hands")
        event(f"{t.variant.key}, {len(t.pids)} players")
        event("some hand entered as a total" if any(f.endswith("-total") for f in first.fields) else "cards only")
        review = client.post(t.url, data={**first.fields, "action": "review"})
        assert "Check round 1" in text_of(review), text_of(review)[:600]
        check(t.game_id, t, first, review)
        assert client.post(t.url, data={**first.fields, "action": "save"}).status_code == 302
        got = stored(t.game_id)
        assert got == {p: (first.points[p], Counter(first.counts[p]), p == first.out) for p in t.pids}
        if data.draw(st.booleans(), label="edit"):
            edited = table_of(app, client, t.game_id, 1)
            second = data.draw(legal_hands(edited), label="edit hands")
            assert client.post(t.url, data={**second.fields, "action": "save"}).status_code == 302
            got = stored(t.game_id)
            assert got == {p: (second.points[p], Counter(second.counts[p]), p == second.out) for p in t.pids}
        undo = client.post(f"/games/{t.game_id}/undo", data={"number": "1"})
        assert undo.status_code == 302 and undo.headers["Location"] == f"/games/{t.game_id}"

    run()
