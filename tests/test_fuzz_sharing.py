"""Fuzzing sharing a game: share and revoke posts, the live scoreboard and its polled part
(random tokens and ``If-None-Match``), a browser holding a score keeper link firing at every
route, and the submission ids that keep a form sent twice from counting twice."""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from scorekeeper.extensions import db
from scorekeeper.models import Game, ShareLink, Submission
from tests.databases import strict_client
from tests.fuzz_strategies import (
    DIGIT_LIMIT,
    INT4_MAX,
    INT8_MAX,
    changed_tables,
    consume,
    either,
    event,
    fuzz,
    hostile_text,
    keeper_pages,
    noise,
    nul_in,
    query,
    report_examples,  # noqa: F401 - autouse: reports the examples run
    sent,
    tick,
)
from tests.fuzz_world import World, _share, build_world, game_ids, legal_hands, table_of
from tests.pages import text_of
from tests.test_printing import pdf_text

pytestmark = pytest.mark.slow


# -- sharing: share links, score keeper links, submission ids ---------------------------------


def newest_link(app) -> ShareLink:
    with app.app_context():
        return db.session.execute(sa.select(ShareLink).order_by(ShareLink.id.desc()).limit(1)).scalar_one()


def test_share_and_revoke_posts():
    """POST /games/<id>/share with random kinds, hostile fields and other families' or missing
    games; POST .../share/<link>/revoke with random, huge, stopped, another game's or another
    family's link ids. A known kind on one of the family's games makes exactly one link of that
    kind, which opens; revoking an open link of the game stops it, once; a signed-out browser is
    sent to sign in; everything else is refused (400 or 404) with nothing written."""
    w = build_world()
    own_games = [w.play, w.fresh, w.abandoned]
    kinds = ("view", "keep")
    bad_kind = either(hostile_text, st.sampled_from(["VIEW", "Keep", " view", "keep ", "view\u200b", "admin", "revoke",
                                                     "view,keep", ""])).filter(lambda k: k not in kinds)
    links = w.links
    bad_revokes = [  # (game, link id): no open link of that game (the examples make a few hundred at most)
        (w.play, links["other-view"][0]), (w.play, links["other-keep"][0]), (w.play, links["revoked"][0]),
        (w.fresh, links["view"][0]), (w.play, links["fresh-keep"][0]), (w.other_game, links["other-view"][0]),
        (w.missing_game, links["view"][0]), (w.play, max(i for i, _ in links.values()) + 10**6), (w.play, 0),
        (w.play, INT4_MAX), (w.play, INT4_MAX + 1), (w.play, INT8_MAX), (w.play, 10**30),
        (w.play, "9" * (DIGIT_LIMIT + 1)),
    ]

    @fuzz(70)
    @given(st.data())
    def run(data):
        tick()
        case = data.draw(st.sampled_from(["share", "bad-kind", "foreign-game", "revoke", "bad-revoke", "signed-out"]))
        client = w.client
        if case == "share":
            game, kind = data.draw(st.sampled_from(own_games)), data.draw(st.sampled_from(kinds))
            url, pairs = f"/games/{game}/share", [("kind", kind)]
        elif case == "bad-kind":
            game, kind = data.draw(st.sampled_from(own_games)), data.draw(st.one_of(st.none(), bad_kind))
            url, pairs = f"/games/{game}/share", [] if kind is None else [("kind", kind)]
        elif case == "foreign-game":
            kind = data.draw(st.one_of(st.sampled_from(kinds), bad_kind))
            url, pairs = f"/games/{data.draw(game_ids(w))}/share", [("kind", kind)]
        elif case == "revoke":
            game = data.draw(st.sampled_from(own_games))
            link_id, token = _share(w.app, w.client, game, data.draw(st.sampled_from(kinds)))
            url, pairs = f"/games/{game}/share/{link_id}/revoke", []
        elif case == "bad-revoke":
            game, link_id = data.draw(st.sampled_from(bad_revokes))
            url, pairs = f"/games/{game}/share/{link_id}/revoke", []
        else:
            client = strict_client(w.app, None)
            url = data.draw(st.sampled_from([f"/games/{w.play}/share",
                                             f"/games/{w.play}/share/{links['view'][0]}/revoke"]))
            pairs = [("kind", data.draw(st.sampled_from(kinds)))]
        pairs += data.draw(noise({"kind"}))
        before = w.snapshot()
        page = client.post(url, data=MultiDict(pairs))
        event(f"{case}: {page.status_code}")
        if nul_in(*sent(pairs)):
            assert page.status_code == 400
            w.refused(page, before)
        elif case == "share":
            assert page.status_code == 302 and page.headers["Location"] == f"/games/{game}/share"
            assert changed_tables(before, w.snapshot()) == {"share_link", "family"}  # and the family's version
            link = newest_link(w.app)
            assert (link.game_id, link.kind, link.revoked_at) == (game, kind, None)
            assert link.id not in {row[0] for row in before["share_link"]}
            consume(client, page)
            opened = strict_client(w.app, None).get(f"/{'keep' if kind == 'keep' else 'live'}/{link.token}")
            assert opened.status_code == (302 if kind == "keep" else 200)
        elif case == "revoke":
            assert page.status_code == 302 and page.headers["Location"] == f"/games/{game}/share"
            assert changed_tables(before, w.snapshot()) == {"share_link", "family"}
            consume(client, page)
            assert strict_client(w.app, None).get(f"/live/{token}").status_code == 404
            again = w.snapshot()
            w.refused(client.post(url), again)  # stopped already: a 404
        elif case == "signed-out":
            assert page.status_code == 302 and urlsplit(page.headers["Location"]).path == "/login"
            assert w.snapshot() == before
        else:
            assert page.status_code == (400 if case == "bad-kind" else 404), text_of(page)[:300]
            if case == "bad-kind":
                assert "Choose a scoreboard link or a score keeper link." in text_of(page)
            w.refused(page, before)

    run()


SUBMISSION = re.compile(r"[A-Za-z0-9-]{8,64}")  # a phone's submission id, as documented; anything else is ignored
REUSED_IDS = ("retry-0001", "RETRY-0001", "abcdefgh", "--------", "x" * 64, "00000000", "shared-with-other-family")
NEAR_IDS = ("abcdefg", "x" * 65, "abcd_efgh", "abcdefgh ", " abcdefgh", "abcdefgh\n", "abc.defgh", "abcd\u00e9fgh",
            "abcdefgh\x00", "abcdefgh\u200b", "\uff41\uff42\uff43\uff44\uff45\uff46\uff47\uff48",  # full-width letters
            "\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668")  # Arabic-Indic digits
submission_ids = either(st.none(), hostile_text, st.from_regex(SUBMISSION, fullmatch=True), st.sampled_from(REUSED_IDS),
                        st.sampled_from(NEAR_IDS))


def table_rows(app) -> dict[str, list[dict]]:
    """Every row of every table, by column name."""
    with app.app_context():
        return {t.name: [dict(r._mapping) for r in db.session.execute(t.select())] for t in db.metadata.sorted_tables}


def game_state(app, games: list[int]) -> dict[str, list]:
    """What two apps built alike must agree on after the same taps: the rows of ``games`` (the
    game, its rounds, hands, seats, summaries and change log) and the families' versions.
    Times are reduced to whether there is one; a game's random uid is left out."""
    rows = table_rows(app)
    rounds = {r["id"] for r in rows["game_round"] if r["game_id"] in games}
    kept = {
        "game": [r for r in rows["game"] if r["id"] in games],
        "result": [r for r in rows["result"] if r["round_id"] in rounds],
        "family": [{"id": r["id"], "version": r["version"]} for r in rows["family"]],
        **{name: [r for r in rows[name] if r["game_id"] in games]
           for name in ("game_round", "seat", "player_game", "round_change")},
    }
    def same(row):
        return repr({k: "a time" if isinstance(v, datetime) else v for k, v in row.items() if k != "uid"})

    return {name: sorted(map(same, table)) for name, table in kept.items()}


def stored_ids(app, family_id: int) -> set[str]:
    with app.app_context():
        return set(db.session.execute(sa.select(Submission.key).where(Submission.family_id == family_id)).scalars())


def round_now(app, game_id: int, number: int | None = None) -> tuple[int, int]:
    """``(number, version)`` of hand ``number``, or of the hand being played (the last once all are in).

    Taps go to the hand of the moment, but what hypothesis draws must not depend on it (it
    replays draws and would find them changed): hands are drawn for round 1, whose table stays
    the same, and sent with the version it has now."""
    with app.app_context():
        game = db.session.get(Game, game_id)
        round_ = next(r for r in game.rounds if r.number == number) if number else game.current_round or game.rounds[-1]
        return round_.number, round_.version


def test_submission_ids_never_apply_a_tap_or_hand_twice():
    """Buy, take back a buy, laid down and saved hands with random ``submission`` fields:
    hostile text, huge, Unicode, near misses of the id's form, valid ids (new ones, and ids
    used before, by this family or another). Two worlds built alike get the same taps, one
    with the submission field and one without: each tap goes twice to the first; the second
    gets it as many times as it must count - twice when the id is not valid (ignored: the form
    behaves as before), once for a new valid id, never for one already used (or with a NUL: a
    400). The same valid id sent again never changes the database; a change made under a valid
    id keeps that id, a refused tap does not; the games then agree, and no answer is a 500."""
    worlds = build_world(), build_world()
    for world in worlds:  # another family used an id first: ours is still new to this family
        other = strict_client(world.app, "other")
        tap = {"player": world.other_ids["Zed"], "submission": "shared-with-other-family"}
        assert other.post(f"/games/{world.other_game}/rounds/1/buy", data=tap, follow_redirects=True).status_code == 200
    x, y = worlds
    games = [x.play, x.fresh, x.other_game]  # (the abandoned game's first dealer was drawn at random)
    assert (x.play, x.fresh, x.ids, x.fresh_ids) == (y.play, y.fresh, y.ids, y.fresh_ids)
    assert game_state(x.app, games) == game_state(y.app, games)

    first_hands = {game: table_of(x.app, None, game, 1, version=0) for game in (x.play, x.fresh)}

    @fuzz(45)
    @given(st.data())
    def run(data):
        tick()
        game = data.draw(st.sampled_from([x.play, x.fresh]), label="game")
        kind = data.draw(st.sampled_from(["buy", "unbuy", "down", "score"]), label="kind")
        usual = data.draw(st.sampled_from([True, True, True, False]), label="usual tap")  # else a random round or player
        t = first_hands[game]
        if kind == "score":  # the first hand: saved, then corrected
            version = round_now(x.app, game, 1)[1] - (0 if usual else 1)  # else opened before the last change
            hand = {**data.draw(legal_hands(t), label="hand").fields, "version": str(version), "action": "save"}
            url, pairs = t.url, list(hand.items())
        else:
            number = round_now(x.app, game)[0] if usual else data.draw(st.integers(0, 11), label="round")
            player = data.draw(st.sampled_from(t.pids if usual else t.pids + x.foreign_pids[:1]), label="player")
            url, pairs = f"/games/{game}/rounds/{number}/{kind}", [("player", str(player))]
            if kind == "down":
                pairs.append(("laid_down", data.draw(st.sampled_from(["1", "0"]), label="laid_down")))
        sub = data.draw(st.one_of(submission_ids, st.sampled_from(REUSED_IDS)), label="submission")
        sent_x = ([] if sub is None else [("submission", sub)]) + pairs + data.draw(noise({"submission"}), label="extra")
        sent_y = [(k, v) for k, v in sent_x if k != "submission"]
        read = next((v for k, v in sent_x if k == "submission"), None)  # the first one counts
        valid = read is not None and bool(SUBMISSION.fullmatch(read))
        used = valid and read in stored_ids(x.app, x.family_id)
        if nul_in(*sent(sent_x)):
            times, label = 0, "NUL: refused"
        elif not valid:
            times, label = 2, "no id" if read is None else "id ignored"
        else:
            times, label = (0, "id used before") if used else (1, "new id")

        first_x = x.snapshot()
        answers = [x.client.post(url, data=MultiDict(sent_x), follow_redirects=True)]
        second_x = x.snapshot()
        answers.append(x.client.post(url, data=MultiDict(sent_x), follow_redirects=True))
        if times == 0:
            assert second_x == first_x and x.snapshot() == first_x
        if valid:
            assert x.snapshot() == second_x, "the same submission id changed the database a second time"
        if valid and not used:  # every write moves the family's version on: a refused tap wrote nothing
            wrote = bool(changed_tables(first_x, second_x) - {"submission"})
            kept = read in stored_ids(x.app, x.family_id)
            assert kept == wrote, "a change made under an id keeps it; a refused one must not (its retry would be lost)"
        if times == 0 and nul_in(*sent(sent_x)):
            assert all(a.status_code == 400 for a in answers)
        for _ in range(times):
            y.client.post(url, data=MultiDict(sent_y), follow_redirects=True)
        assert game_state(x.app, games) == game_state(y.app, games)
        event(f"{kind}, {label}: {'changed' if changed_tables(first_x, x.snapshot()) else 'nothing changed'}")

    run()


KEEPER_ROUTES = (  # (method, path, a page a score keeper's link opens for its own game)
    ("GET", "/games/{game}", True), ("GET", "/games/{game}/standings", True),
    ("GET", "/games/{game}/rounds/{number}/score", True), ("POST", "/games/{game}/rounds/{number}/score", True),
    ("POST", "/games/{game}/rounds/{number}/buy", True), ("POST", "/games/{game}/rounds/{number}/unbuy", True),
    ("POST", "/games/{game}/rounds/{number}/down", True), ("POST", "/games/{game}/undo", True),
    ("POST", "/games/{game}/actions", True), ("GET", "/games/{game}/state", True), ("GET", "/games/{game}/plan", True),
    ("GET", "/games/{game}/share", False), ("POST", "/games/{game}/share", False),
    ("POST", "/games/{game}/share/{link}/revoke", False), ("GET", "/games/{game}/abandon", False),
    ("POST", "/games/{game}/abandon", False), ("GET", "/games/{game}/delete", False),
    ("POST", "/games/{game}/delete", False), ("GET", "/games/{game}/sheet.pdf", False),
    ("GET", "/games/{game}/rules", True), ("GET", "/games/{game}/rules.pdf", True),
    # Pages of the family rather than of a game (asked by the signed-out keeper only).
    ("GET", "/", False), ("GET", "/history", False), ("GET", "/players", False), ("GET", "/players/{player}", False),
    ("GET", "/records", False), ("GET", "/export.json", False), ("GET", "/export.csv", False),
    ("GET", "/games/new", False), ("POST", "/games/new", False), ("POST", "/games/new/seating", False),
    ("GET", "/family", False), ("POST", "/family", False), ("POST", "/family/invites", False),
    ("POST", "/family/invites/{invite}/cancel", False), ("GET", "/import", False), ("POST", "/import", False),
    ("GET", "/print", False), ("POST", "/logout", False), ("POST", "/logout/everywhere", False),
    ("GET", "/house-rules", False), ("GET", "/house-rules/new", False), ("POST", "/house-rules/new", False),
    ("GET", "/house-rules/{rules}", False), ("GET", "/house-rules/{rules}/card.pdf", False),
    ("GET", "/house-rules/{rules}/rules.json", False), ("GET", "/house-rules/{rules}/edit", False),
    ("POST", "/house-rules/{rules}/edit", False), ("GET", "/house-rules/{rules}/delete", False),
    ("POST", "/house-rules/{rules}/delete", False), ("POST", "/house-rules/import", False),
)
KEEPER_FIELDS = ("player", "laid_down", "number", "version", "went_out", "action", "kind", "submission", "bonus",
                 "family-name", "variant", "new_players", "seat", "first_dealer", "step", "name", "rounds-0-melds")
# Names seated only in games other than ``play``: never on a page a keeper of ``play`` is shown.
NOT_AT_PLAY = re.compile(r"\b(Di|Eve|Flo|Zed|Yan)\b")


def outside_the_game(w: World, game_id: int) -> dict:
    """Every row but those a score keeper of ``game_id`` may change: that game's rounds, hands,
    summaries and change log, its family's version, and that family's submission ids."""
    rows = table_rows(w.app)
    rounds = {r["id"] for r in rows["game_round"] if r["game_id"] == game_id}

    def others(name, row):
        if name == "game":
            return row["id"] != game_id
        if name in ("game_round", "player_game", "round_change"):
            return row["game_id"] != game_id
        if name == "result":
            return row["round_id"] not in rounds
        if name == "submission":
            return row["family_id"] != w.family_id
        return True

    kept = {name: [r for r in table if others(name, r)] for name, table in rows.items()}
    kept["family"] = [{**r, "version": None} if r["id"] == w.family_id else r for r in kept["family"]]
    return {name: sorted(map(repr, table)) for name, table in kept.items()}


def test_a_score_keeper_link_opens_its_game_and_nothing_else():
    """A browser that opened a score keeper link for ``play`` - signed out, or signed in to the
    other family - fires random GETs and POSTs (random ids, fields and submission ids) at every
    route of a game and of the family. For ``play``, the round screen, card entry, standings,
    buys, laid down and undo work (answers stay in that game; nothing of any other game is
    written or shown). Anything else - another game of the same family or of another family, a
    missing one, sharing, abandoning, deleting, printing, the family's pages - is a 404 or a
    redirect to sign in, and writes nothing at all."""
    w = build_world()
    keep = w.links["keep"][1]
    keepers = {"signed out": strict_client(w.app, None), "other family's member": strict_client(w.app, "other")}
    for keeper in keepers.values():
        assert keeper.get(f"/keep/{keep}").headers["Location"] == f"/games/{w.play}"
    routing = w.app.url_map.bind("localhost")
    ids = dict(game=1, number=1, link=1, player=1, invite=1, rules=1)
    assert {routing.match(path.format(**ids), method=method)[0] for method, path, kept in KEEPER_ROUTES if kept} \
        == keeper_pages(w.app), "the pages a keeper link opens changed: update KEEPER_ROUTES"
    game_routes = [r for r in KEEPER_ROUTES if "{game}" in r[1]]
    everyone = list(w.ids.values()) + list(w.fresh_ids.values()) + w.foreign_pids
    link_ids = [i for i, _ in w.links.values()]
    value = either(st.sampled_from(everyone).map(str), st.integers(-1, 12).map(str), hostile_text,
                   st.sampled_from(["1", "0", "save", "review", "view", "keep", "family-7", "p:1", "n:Zed", "Zed, Yan, Di"]))

    @fuzz(120)
    @given(st.data())
    def run(data):
        tick()
        who = data.draw(st.sampled_from(list(keepers)), label="who")
        client = keepers[who]
        aim = data.draw(st.sampled_from(["its game", "its game", "another game", "not for keepers"]), label="aim")
        routes = {"its game": [r for r in game_routes if r[2]], "another game": game_routes,
                  "not for keepers": [r for r in (KEEPER_ROUTES if who == "signed out" else game_routes) if not r[2]]}
        method, path, keeper_page = data.draw(st.sampled_from(routes[aim]), label="route")
        game = w.play
        if aim == "another game":
            game = data.draw(st.one_of(st.sampled_from([w.fresh, w.abandoned, w.other_game]), game_ids(w)), label="game")
            if who != "signed out" and game == w.other_game:
                game = w.fresh  # the member's own game is theirs to change
        number = data.draw(st.one_of(st.integers(0, 11), st.sampled_from([10**30, 2**63])), label="number")
        url = path.format(game=game, number=number, link=data.draw(st.sampled_from(link_ids + [0, 10**30])),
                          player=data.draw(st.sampled_from(everyone)),
                          invite=data.draw(st.sampled_from([w.own_invite, w.other_invite])),
                          rules=data.draw(st.sampled_from([w.house_rules, w.other_rules])))
        pairs = []
        if method == "POST" and "/score" in path and game == w.play and data.draw(st.booleans(), label="legal hand"):
            t = w.tables["edit"]  # its first hand, corrected with the version it has now (see round_now)
            hand = {**data.draw(legal_hands(t), label="hand").fields, "action": "save"}
            url, pairs = t.url, list({**hand, "version": str(round_now(w.app, w.play, 1)[1])}.items())
        pairs += data.draw(st.lists(st.tuples(st.sampled_from(KEEPER_FIELDS), value), max_size=5), label="fields")
        pairs += data.draw(noise(), label="noise")
        allowed = keeper_page and game == w.play and url.split("/")[2] == str(w.play)
        before, outside = w.snapshot(), outside_the_game(w, w.play)
        if method == "GET":
            page = client.get(url + ("?" + query(pairs[:3]) if pairs else ""))
        else:
            page = client.post(url, data=MultiDict(pairs))
        location = urlsplit(page.headers.get("Location", "")).path
        event(f"{who}, {aim}: {page.status_code}"
              + (f" to {location.replace(str(w.play), '{play}')}" if page.status_code == 302 else ""))
        assert page.status_code < 500
        assert outside_the_game(w, w.play) == outside, "a score keeper changed something outside its game"
        if allowed and w.snapshot() != before:
            event(f"{who}: changed its game")
        if allowed:
            if page.status_code == 302:
                assert location in (f"/games/{w.play}", f"/games/{w.play}/standings") or location.startswith(
                    f"/games/{w.play}/rounds/"), location
        else:
            assert page.status_code in (400, 404, 405) or (page.status_code == 302 and location == "/login"), (
                page.status_code, location)
            assert w.snapshot() == before, f"{method} {url} wrote"
        if page.status_code == 200:
            shown = pdf_text(page.data)[1] if page.mimetype == "application/pdf" else text_of(page)
            assert not NOT_AT_PLAY.search(shown), NOT_AT_PLAY.search(shown)
        if page.status_code == 302:  # read the page it leads to, as the phone would
            shown = client.get(page.headers["Location"])
            if shown.status_code == 200:
                assert not NOT_AT_PLAY.search(text_of(shown)), NOT_AT_PLAY.search(text_of(shown))

    run()
