"""The phone's modules one at a time, in Chromium, against the rules core: the plan's lookups
(plan.js), the state with actions laid over it (state.js), a hand's checks (checks.js), the queue
(queue.js) and the phone's storage (store.js) - each answer compared with what the server's own
code says for the same game."""

from __future__ import annotations

import json

import pytest
from playwright import sync_api

from scorekeeper import rules
from scorekeeper.families import sole_family
from scorekeeper.games import service
from scorekeeper.rules.scoring import card_totals
from tests.browser.conftest import sign_up

pytestmark = pytest.mark.browser

expect = sync_api.expect


def open_game(page, key: str, names=("Ann", "Bob", "Cy")) -> int:
    app = page.app
    with app.app_context():
        seats = [service.SeatChoice(new_name=name) for name in names]
        game_id = service.start_game(sole_family(), rules.get_variant(key), seats, first_dealer=0).id
    page.goto(f"{page.base_url}/games/{game_id}")
    return game_id


def run(page, body: str, *args):
    """Run ``body`` (an async function of the modules and ``args``) in the game's page."""
    script = """async (args) => {
      const [plan, state, checks, queue, store, sync] = await Promise.all(
        ["plan", "state", "checks", "queue", "store", "sync"].map((m) => import("/static/js/" + m + ".js")));
      const data = JSON.parse(document.querySelector("[data-plan]").textContent);
      const p = new plan.Plan(data);
      return (BODY)({plan, state, checks, queue, store, sync, p, data}, ...args);
    }""".replace("BODY", body)
    return page.evaluate(script, list(args))


@pytest.fixture
def game(page):
    sign_up(page)
    return page


def test_plan_points_are_the_rules_cores_for_every_kind_of_hand(game):
    open_game(game, "shanghai-10")
    variant = rules.get_variant("shanghai-10")
    hands = [
        rules.Hand(1, counts={"K": 2, "5": 1, "JK": 1}),
        rules.Hand(1, hand_total=35),
        rules.Hand(1, went_out=True, bonus_code="BLIND_NOJOKER"),
        rules.Hand(1, went_out=True),
    ]
    for number in (1, 10):
        as_js = [{"went_out": h.went_out, "counts": dict(h.counts), "total": h.hand_total,
                  "bonus": h.bonus_code, "event": False} for h in hands]
        shown = run(game, "(m, number, hands) => hands.map((h) => m.p.points(m.p.round(number), h))", number, as_js)
        assert shown == [rules.hand_score(variant, h, number)[0] for h in hands]


def test_plan_buy_limits_are_the_rules_cores_when_unused_buys_carry_over(game):
    carry = rules.get_variant("family-7").__class__.from_dict(
        {**rules.get_variant("family-7").to_dict(), "key": "carry", "buys_counted": "carry"})
    with game.app.app_context():
        seats = [service.SeatChoice(new_name=n) for n in ("Ann", "Bob", "Cy")]
        game_id = service.start_game(sole_family(), carry, seats, first_dealer=0).id
    game.goto(f"{game.base_url}/games/{game_id}")
    for number in (1, 3, 7):
        round_ = carry.round(number)
        earlier = [r for r in carry.rounds if r.number < number]
        for used in (0, 1, 5, 40):
            expected = carry.buys_allowed(round_, [(earlier[0], used)] + [(r, 0) for r in earlier[1:]]) if earlier \
                else carry.buys_allowed(round_, [])
            shown = run(game, "(m, number, used) => m.p.limit(m.p.round(number), used)", number, used)
            assert shown == expected, (number, used)


def test_plan_knows_which_totals_cards_can_make(game):
    open_game(game, "family-7")
    variant = rules.get_variant("family-7")
    for number in (1, 7):
        made = card_totals(variant, number)
        top = made.high + 3
        shown = run(game, "(m, number, top) => Array.from({length: top}, (_, t) => m.p.totalMade(m.p.round(number), t))",
                    number, top)
        assert shown == [t in made for t in range(top)]


def test_checks_say_what_the_rules_core_says_of_the_same_hands(game):
    open_game(game, "shanghai-10")
    variant = rules.get_variant("shanghai-10")
    ids = {s["name"]: s["id"] for s in run(game, "(m) => m.data.seats")}
    bad = [
        [rules.Hand(ids["Ann"], counts={"K": 9}), rules.Hand(ids["Bob"]), rules.Hand(ids["Cy"], buys=4)],
        [rules.Hand(ids["Ann"], went_out=True, counts={"5": 1}), rules.Hand(ids["Bob"], hand_total=7),
         rules.Hand(ids["Cy"], counts={"JK": 1}, hand_total=15)],
        [rules.Hand(ids["Ann"], went_out=True), rules.Hand(ids["Bob"], counts={"Q": 14}),
         rules.Hand(ids["Cy"], buys=1, counts={"A": 4, "2": 4, "3": 6})],
    ]
    decks = variant.decks_for(3)
    names = {pid: name for name, pid in ids.items()}
    for hands in bad:
        expected = rules.round_problems(variant, variant.round(1), decks, hands, {pid: 3 for pid in ids.values()}, names)
        out = rules.going_out_problem(hands)
        as_js = [{"player": h.player_id, "went_out": h.went_out, "laid_down": False, "buys": h.buys,
                  "counts": dict(h.counts), "total": h.hand_total, "bonus": "", "event": False} for h in hands]
        shown = run(game, """(m, hands) => {
            const s = m.state.shown(m.p, m.data.state, []);
            return m.checks.roundProblems(m.p, s, 0, hands);
        }""", as_js)
        assert shown["table"] == ([out] if out else []) + expected.table
        assert {int(k): v for k, v in shown["players"].items()} == expected.players


def test_state_lays_buys_marks_hands_and_an_undo_over_the_servers_state(game):
    open_game(game, "family-7")  # a player who has laid down may not buy
    result = run(game, """(m) => {
        const [ann, bob] = m.data.seats.map((s) => s.id);
        let s = m.data.state;
        const act = (a) => { s = m.state.apply(m.p, s, Object.assign({round: 1}, a)); return s; };
        for (let i = 0; i < 6; i++) act({kind: "buy", player: ann});
        const annBuys = m.state.resultOf(s.rounds[0], ann).buys;
        act({kind: "unbuy", player: bob});
        act({kind: "down", player: bob, laid_down: true});
        act({kind: "buy", player: bob});
        const bobBuys = m.state.resultOf(s.rounds[0], bob).buys;
        const hands = m.data.seats.map((seat, i) => ({player: seat.id, went_out: i === 0, laid_down: true, buys: i ? 0 : 4,
          counts: i === 0 ? {} : {"K": i}, total: null, bonus: "", event: false}));
        act({kind: "hand", hands});
        const after = m.state.totals(s), current = m.state.currentIndex(s);
        act({kind: "undo"});
        return {annBuys, bobBuys, after, current, back: m.state.currentIndex(s), cleared: m.state.totals(s),
                keptBuys: m.state.resultOf(s.rounds[0], ann).buys, server: m.data.state.rounds[0].results[0].buys};
    }""")
    limit = rules.get_variant("family-7").rounds[0].buy_limit
    assert result["annBuys"] == limit  # the limit is the plan's: no buy past it
    assert result["bobBuys"] == 0  # no take-back below 0; no buy once laid down
    assert result["after"] == [0, 10, 20] and result["current"] == 1
    assert result["back"] == 0 and result["cleared"] == [0, 0, 0]
    assert result["keptBuys"] == 4  # an undo keeps the hand's buys, as the server does
    assert result["server"] == 0  # the server's state itself is never changed


def test_state_does_not_count_twice_an_action_the_server_already_names(game):
    open_game(game, "shanghai-10")
    shown = run(game, """(m) => {
        const ann = m.data.seats[0].id;
        const server = JSON.parse(JSON.stringify(m.data.state));
        server.rounds[0].results[0].buys = 1;
        server.applied = ["done-once"];
        const queued = [{id: "done-once", kind: "buy", round: 1, player: ann},
                        {id: "still-to-send", kind: "buy", round: 1, player: ann}];
        return m.state.resultOf(m.state.shown(m.p, server, queued).rounds[0], ann).buys;
    }""")
    assert shown == 2


def test_queue_sends_in_order_keeps_a_refusal_first_and_keeps_everything_without_a_connection(game):
    game_id = open_game(game, "shanghai-10")
    answers = []

    def answer(route):
        body = json.loads(route.request.post_data)
        answers.append((body["id"], body["base"]))
        if body["kind"] == "unbuy":
            route.fulfill(status=422, json={"status": "refused", "reason": "Ann has no buy to take back this round.",
                                            "state": {"revision": 0, "rounds": []}})
        else:
            route.fulfill(json={"status": "applied", "state": {"revision": 0, "rounds": []}})

    game.evaluate("localStorage.clear()")
    game.route("**/actions", answer)
    result = run(game, """async (m, game) => {
        m.queue.add(game, {kind: "buy", round: 1, player: 1, id: "a1"}, 0);
        m.queue.add(game, {kind: "unbuy", round: 1, player: 1, id: "a2"}, 1);
        m.queue.add(game, {kind: "buy", round: 1, player: 2, id: "a3"}, 2);
        const hooks = {url: "/games/" + game + "/actions", csrf: "", answered() {}, changed() {}, blocked() {}};
        const reached = await m.queue.send(game, hooks);
        return {reached, left: m.queue.ofGame(game).map((a) => [a.id, a.status, a.reason])};
    }""", game_id)
    assert answers == [("a1", 0), ("a2", 1)]  # in order; nothing after the refusal is sent
    assert result["reached"] is True
    assert result["left"] == [["a2", "refused", "Ann has no buy to take back this round."], ["a3", "pending", ""]]
    game.unroute("**/actions")
    game.route("**/actions", lambda route: route.abort())
    result = run(game, """async (m, game) => {
        m.queue.discard(m.queue.ofGame(game)[0].id);
        m.queue.rebase(game, 1, 5);
        const hooks = {url: "/games/" + game + "/actions", csrf: "", answered() {}, changed() {}, blocked() {}};
        const reached = await m.queue.send(game, hooks);
        return {reached, left: m.queue.ofGame(game).map((a) => [a.id, a.status, a.base])};
    }""", game_id)
    assert result == {"reached": False, "left": [["a3", "pending", 5]]}  # made again on the version now held


def test_a_tab_sending_its_actions_rewrites_no_other_tabs_kept_action(game):
    """Two tabs of the app on one phone share its storage. Each kept action has a key of its own, so
    a tab that sends and drops its actions writes only theirs: an action another tab kept a moment
    before cannot be written over by a copy of the queue that did not have it yet."""
    game_id = open_game(game, "shanghai-10")
    game.evaluate("localStorage.clear()")
    game.route("**/actions", lambda route: route.fulfill(json={"status": "applied", "state": {"revision": 0,
                                                                                             "rounds": []}}))
    run(game, """(m, game) => {
        m.queue.add(game, {kind: "buy", round: 1, player: 1, id: "a1"}, 0);
        m.queue.add(game, {kind: "buy", round: 1, player: 2, id: "a2"}, 1);
    }""", game_id)
    other = game.context.new_page()
    other.goto(f"{game.base_url}/games/{game_id}/standings")
    other.evaluate("""() => import("/static/js/queue.js").then((q) => q.add(999, {kind: "buy", round: 1, player: 1,
                                                                               id: "b1"}, 0))""")
    result = run(game, """async (m, game) => {
        const touched = [];
        const [set, remove] = [Storage.prototype.setItem, Storage.prototype.removeItem];
        Storage.prototype.setItem = function (key, value) { touched.push(key); return set.call(this, key, value); };
        Storage.prototype.removeItem = function (key) { touched.push(key); return remove.call(this, key); };
        const sent = m.queue.ofGame(game).map((a) => a.key);
        const hooks = {url: "/games/" + game + "/actions", csrf: "", answered() {}, changed() {}, blocked() {}};
        await m.queue.send(game, hooks);
        [Storage.prototype.setItem, Storage.prototype.removeItem] = [set, remove];
        return {touched, sent, left: m.queue.all().map((a) => a.id)};
    }""", game_id)
    assert result["left"] == ["b1"]
    assert result["touched"] == result["sent"]  # each sent action's own key dropped, nothing else written


def test_actions_kept_as_one_list_by_the_earlier_script_are_taken_over_in_order(game):
    game_id = open_game(game, "shanghai-10")
    result = run(game, """(m, game) => {
        localStorage.clear();
        localStorage.setItem("scorekeeper-queue", JSON.stringify([
            {id: "old1", game, kind: "buy", round: 1, player: 1, base: 0, status: "pending", reason: ""},
            {id: "old2", game, kind: "unbuy", round: 1, player: 1, base: 1, status: "refused", reason: "No buy."}]));
        m.queue.add(game, {kind: "buy", round: 1, player: 2, id: "new1"}, 2);
        return {kept: m.queue.ofGame(game).map((a) => [a.id, a.status, a.base]),
                list: localStorage.getItem("scorekeeper-queue")};
    }""", game_id)
    assert result["kept"] == [["old1", "pending", 0], ["old2", "refused", 1], ["new1", "pending", 2]]
    assert result["list"] is None


def test_store_makes_ids_the_server_keeps_and_reads_what_it_wrote(game):
    open_game(game, "shanghai-10")
    result = run(game, """(m) => {
        m.store.write("scorekeeper-test", {a: [1, 2]});
        return {ids: [m.store.newId(), m.store.newId()], back: m.store.read("scorekeeper-test", null),
                missing: m.store.read("scorekeeper-none", "fallback")};
    }""")
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in result["ids"]) and result["ids"][0] != result["ids"][1]
    assert result["back"] == {"a": [1, 2]} and result["missing"] == "fallback"



def test_round_says_why_a_buy_is_refused_in_the_servers_words(game):
    open_game(game, "family-7")  # 4 buys a hand; a player who has laid down may not buy
    said = run(game, """async (m) => {
        const round = await import("/static/js/round.js");
        const [ann, bob] = m.data.seats.map((s) => s.id);
        let s = m.data.state;
        for (let i = 0; i < 4; i++) s = m.state.apply(m.p, s, {kind: "buy", round: 1, player: ann});
        s = m.state.apply(m.p, s, {kind: "down", round: 1, player: bob, laid_down: true});
        return [round.buyRefusal(m.p, s, 0, ann), round.buyRefusal(m.p, s, 0, bob), round.buysLeft(m.p, s, 0)];
    }""")
    assert said[0] == "Ann has used all 4 buys this round."
    assert said[1] == "Bob has laid down and may not buy any more this hand."
    assert list(said[2].values()) == [0, None, 4]


def test_sync_names_each_kept_action_and_shows_both_versions_of_a_disputed_round(game):
    open_game(game, "shanghai-10")
    shown = run(game, """(m) => {
        const [ann, bob, cy] = m.data.seats.map((s) => s.id);
        const labels = [{kind: "buy", player: bob}, {kind: "unbuy", player: cy}, {kind: "down", player: ann, laid_down: true},
                        {kind: "undo", round: 3}, {kind: "hand", round: 2}].map((a) => m.sync.labelOf(m.p, a));
        const box = document.createElement("div");
        const theirs = {recorded: true, results: [{player: ann, points: 5}, {player: bob, points: 0}, {player: cy, points: 10}]};
        const mine = {id: "x", kind: "hand", round: 1, status: "conflict", reason: "Round 1 was scored on another phone meanwhile.",
          by: "ann", theirs, hands: [ann, bob, cy].map((p, i) => ({player: p, went_out: i === 2, counts: i === 2 ? {} : {"K": 1},
          total: null, bonus: "", event: false}))};
        m.sync.drawSync(box, m.p, [mine], "", {discard() {}, useMine() {}, change() {}}, "");
        return {labels, text: box.textContent, buttons: [...box.querySelectorAll("button")].map((b) => b.textContent)};
    }""")
    assert shown["labels"] == ["Buy for Bob", "Take back a buy from Cy", "Ann has laid down", "Undo round 3",
                               "Round 2 cards"]
    assert "Round 1 was scored on another phone meanwhile (by ann)." in shown["text"]
    assert "On the other phoneAnn 5 · Bob 0 · Cy 10" in shown["text"]
    assert "On this phoneAnn 10 · Bob 10 · Cy 0" in shown["text"]
    assert shown["buttons"] == ["Use this phone's", "Change this phone's", "Keep the other phone's"]
