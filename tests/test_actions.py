"""The phone's queued actions, as the server takes them: each applied once whatever how often it
is sent, re-checked by the rules core, a phone's own earlier action never taken for another
phone's, and a hand made for a round another phone changed answered with both versions."""

from __future__ import annotations

import pytest

from scorekeeper.extensions import db
from scorekeeper.models import RoundChange, Submission

pass

NAMES = ["Ann", "Bob", "Cy"]


@pytest.fixture
def table(client, actions):
    """A shanghai-10 game of Ann, Bob and Cy (Ann deals first) and a way to send it actions."""

    class Table:
        game_id = actions.new_game("shanghai-10", NAMES, first_dealer="Ann")
        ids = actions.player_ids(game_id)
        sent = 0

        def send(self, kind: str, number: int, base: int, action_id: str | None = None, **fields):
            """Send one action as the phone does; the answer's JSON (and its HTTP status)."""
            Table.sent += 1
            body = {"id": action_id or f"action-{Table.sent:04d}", "kind": kind, "round": number,
                    "base": base, **fields}
            response = client.post(f"/games/{self.game_id}/actions", json=body)
            return response.status_code, response.get_json()

        def hand(self, went_out: str, cards: dict[str, dict[str, int]], buys: dict[str, int] | None = None,
                 total: dict[str, int] | None = None) -> list[dict]:
            return [{"player": self.ids[name], "went_out": name == went_out, "laid_down": name == went_out,
                     "buys": (buys or {}).get(name, 0), "counts": cards.get(name, {}),
                     "total": (total or {}).get(name)} for name in NAMES]

        def version(self, state: dict, number: int) -> int:
            return next(r["version"] for r in state["rounds"] if r["number"] == number)

    return Table()


def test_the_plan_holds_every_round_with_its_deal_dealer_and_limits(client, table):
    plan = client.get(f"/games/{table.game_id}/plan").get_json()
    assert [r["number"] for r in plan["rounds"]] == list(range(1, 11))
    assert [s["name"] for s in plan["seats"]] == NAMES
    first = plan["rounds"][0]
    # variants.md, shanghai-10: deal 1 is two sets of 3, 11 cards, 3 buys of 2 cards; 2-4 players: 2 decks + 1 joker.
    assert (first["contract"], first["cards_dealt"], first["buy_limit"]) == ("two sets of 3", 11, 3)
    assert plan["decks"] == "2 decks + 1 joker (105 cards)"
    assert (first["dealer"], first["first"]) == (0, 1)  # Ann deals, Bob plays first
    assert [r["dealer"] for r in plan["rounds"][:4]] == [0, 1, 2, 0]  # clockwise every hand
    assert plan["rounds"][8]["buy_limit"] == 4  # deals 9-10 allow 4 buys
    assert first["most_cards"] == [11, 13, 15, 17]  # dealt + buys × 2
    assert {k["code"]: (k["points"], k["copies"]) for k in plan["keys"]}["JK"] == (15, 1)  # one joker, 15 points
    assert plan["state"]["rounds"][0]["version"] == 0 and not plan["state"]["rounds"][0]["recorded"]


def test_a_buy_sent_three_times_counts_once_and_says_so_each_time(table, actions):
    answers = [table.send("buy", 1, 0, "buy-bob-once", player=table.ids["Bob"]) for _ in range(3)]
    assert [status for status, _ in answers] == [200, 200, 200]
    assert {a["outcome"]["after"] for _, a in answers} == {1}
    assert actions.buys_of(table.game_id, 1)["Bob"] == 1
    assert "buy-bob-once" in answers[-1][1]["state"]["applied"]


def test_a_hand_after_this_phones_own_offline_buy_is_not_another_phones_change(table, actions):
    # Offline: a buy for Bob (made on version 0), then the hand, made on the version after that buy.
    _, bought = table.send("buy", 1, 0, player=table.ids["Bob"])
    assert bought["outcome"] == {"round": 1, "after": 1, "base_ok": True}
    status, answer = table.send("hand", 1, bought["outcome"]["after"],
                                hands=table.hand("Ann", {"Bob": {"K": 2, "5": 1}, "Cy": {"JK": 1}}, buys={"Bob": 1}))
    assert status == 200, answer
    assert actions.stored_points(table.game_id)[1] == {"Ann": 0, "Bob": 25, "Cy": 15}
    assert answer["state"]["rounds"][0]["recorded"]


def test_another_phones_buy_in_between_is_reported_as_not_this_phones_base(table):
    table.send("buy", 1, 0, player=table.ids["Cy"])  # another phone, on version 0
    _, mine = table.send("buy", 1, 0, player=table.ids["Bob"])  # this phone, which saw version 0
    assert mine["outcome"]["base_ok"] is False


def test_a_hand_for_a_round_another_phone_scored_answers_with_both_versions(table, actions):
    actions.record(table.ids, table.game_id, 1, "Bob", {"Ann": "K", "Cy": "5"})  # the other phone
    status, answer = table.send("hand", 1, 0, hands=table.hand("Ann", {"Bob": {"Q": 1}, "Cy": {"3": 1}}))
    assert status == 409
    assert answer["status"] == "conflict" and answer["reason"] == "Round 1 was scored on another phone meanwhile."
    theirs = answer["state"]["rounds"][0]
    assert [r["points"] for r in theirs["results"]] == [10, 0, 5]
    assert answer["by"] == "tester"
    assert actions.stored_points(table.game_id)[1] == {"Ann": 10, "Bob": 0, "Cy": 5}  # nothing of mine written
    # The family chose this phone's version: sent again on the version that is stored now.
    status, _ = table.send("hand", 1, theirs["version"],
                           hands=table.hand("Ann", {"Bob": {"Q": 1}, "Cy": {"3": 1}}))
    assert status == 200
    assert actions.stored_points(table.game_id)[1] == {"Ann": 0, "Bob": 10, "Cy": 5}


def test_a_hand_the_rules_refuse_is_refused_with_the_rules_words_and_nothing_is_written(app, table, actions):
    status, answer = table.send("hand", 1, 0, hands=table.hand("Ann", {"Bob": {"K": 20}, "Cy": {"5": 1}}))
    assert status == 422 and answer["status"] == "refused"
    assert answer["reason"] == "Round 1 was not saved: K: 20 entered, but the decks in play hold only 8"
    assert 1 not in actions.stored_points(table.game_id)
    with app.app_context():
        assert db.session.execute(db.select(Submission)).scalars().all() == []


def test_a_buy_past_the_limit_is_refused_with_the_limit(table):
    for _ in range(3):
        table.send("buy", 1, 0, player=table.ids["Cy"])
    status, answer = table.send("buy", 1, 0, player=table.ids["Cy"])
    assert (status, answer["reason"]) == (422, "Cy has used all 3 buys this round.")


def test_undo_then_score_again_then_edit_each_apply_once_in_order(app, table, actions):
    hand1 = table.hand("Ann", {"Bob": {"K": 1}, "Cy": {"5": 1}})
    _, a = table.send("hand", 1, 0, hands=hand1)
    _, b = table.send("hand", 2, 0, hands=table.hand("Bob", {"Ann": {"A": 1}, "Cy": {"2": 1}}))
    _, c = table.send("undo", 2, b["outcome"]["after"])
    _, d = table.send("hand", 2, c["outcome"]["after"], hands=table.hand("Cy", {"Ann": {"3": 1}, "Bob": {"4": 1}}))
    status, e = table.send("hand", 1, a["outcome"]["after"],
                           hands=table.hand("Ann", {"Bob": {"K": 2}, "Cy": {"5": 1}}))
    assert status == 200, e
    assert actions.stored_points(table.game_id) == {1: {"Ann": 0, "Bob": 20, "Cy": 5}, 2: {"Ann": 5, "Bob": 5, "Cy": 0}}
    with app.app_context():
        changes = db.session.execute(db.select(RoundChange.number, RoundChange.action).order_by(RoundChange.id)).all()
    assert changes == [(1, "recorded"), (2, "recorded"), (2, "undone"), (2, "recorded"), (1, "edited")]


@pytest.mark.parametrize("body", [
    None, [], {"id": "x", "kind": "buy"}, {"id": "short", "kind": "buy", "round": 1, "base": 0, "player": 1},
    {"id": "action-bad1", "kind": "fly", "round": 1, "base": 0},
    {"id": "action-bad2", "kind": "buy", "round": 10**20, "base": 0, "player": 1},
    {"id": "action-bad3", "kind": "hand", "round": 1, "base": 0, "hands": "lots"},
    {"id": "action-bad4", "kind": "hand", "round": 1, "base": 0, "hands": [{"player": 1, "counts": {"ZZ": 1}}] * 3},
    {"id": "action-bad5", "kind": "buy", "round": 1, "base": True, "player": 1},
])
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_an_entry_no_phone_could_make_is_refused_plainly(table, client, body):
    response = client.post(f"/games/{table.game_id}/actions", json=body)
    assert response.status_code == 400
    assert response.get_json()["status"] == "refused"


def test_an_oversized_entry_is_refused_before_it_is_read(table, client):
    response = client.post(f"/games/{table.game_id}/actions", data="[" + " " * 70_000 + "]",
                           content_type="application/json")
    assert response.status_code == 413


def test_the_state_is_a_304_until_the_game_changes(client, table):
    first = client.get(f"/games/{table.game_id}/state")
    again = client.get(f"/games/{table.game_id}/state", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    table.send("buy", 1, 0, player=table.ids["Ann"])
    changed = client.get(f"/games/{table.game_id}/state", headers={"If-None-Match": first.headers["ETag"]})
    assert changed.status_code == 200 and changed.get_json()["rounds"][0]["results"][0]["buys"] == 1
