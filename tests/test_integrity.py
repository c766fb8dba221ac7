"""Games keep their integrity: abandoned games stay put, undo takes back one round, imports make sense."""

import copy
import io
import json

import pytest

from scorekeeper.transfer import checks, export
from scorekeeper.web import access
from tests.actions import GameActions
from tests.databases import db_snapshot
from tests.pages import text_of


def test_an_abandoned_game_refuses_buys_scores_and_undo(client, app, game, actions):
    game_id, ids = game
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})
    client.post(f"/games/{game_id}/abandon")
    before = db_snapshot(app)
    page = client.post(f"/games/{game_id}/rounds/2/buy", data={"player": ids["Bob"]}, follow_redirects=True)
    assert "This game was abandoned" in text_of(page)
    client.post(f"/games/{game_id}/rounds/2/score", data={"went_out": str(ids["Bob"]), "action": "save",
                                                          "version": "0", f"p{ids['Ann']}-total": "10",
                                                          f"p{ids['Cy']}-total": "10"})
    client.post(f"/games/{game_id}/undo", data={"number": "1"})
    assert db_snapshot(app) == before
    # The round screen is gone; the standings say why.
    standings = client.get(f"/games/{game_id}", follow_redirects=True)
    assert "This game was abandoned" in text_of(standings)
    assert "Undo round" not in text_of(standings)


def test_a_second_undo_of_the_same_round_takes_back_nothing_more(client, game, actions):
    game_id, ids = game
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})
    actions.record(ids, game_id, 2, "Bob", {"Ann": "Q", "Cy": "JK"})
    assert "Undo round 2" in text_of(client.get(f"/games/{game_id}/standings"))
    client.post(f"/games/{game_id}/undo", data={"number": "2"})
    page = client.post(f"/games/{game_id}/undo", data={"number": "2"}, follow_redirects=True)
    assert "Round 2 was already taken back." in text_of(page)
    standings = text_of(client.get(f"/games/{game_id}/standings"))
    assert "Leading after 1 of 7" in standings  # round 1 is still scored


def _export(app, client, game):
    actions = GameActions(client)
    game_id, ids = game
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})
    with app.app_context():
        return json.loads("".join(export.export_json(access.current_family())))


@pytest.mark.parametrize("spoil, message", [
    (lambda g: g.update(seats=g["seats"][:2]) or [r.update(results=r["results"][:2]) for r in g["rounds"]],
     "is for 3–8 players"),
    (lambda g: g.update(status="finished"), "a finished game has every round recorded"),
    (lambda g: g["rules"]["points"].update(K="10"), "every count and point value must be a whole number"),
    (lambda g: g["rounds"][0]["results"][0].update(points=10**19), "far outside"),
    (lambda g: g.update(variant_key="family-7\nX"), "is not a rules key"),
    (lambda g: g["rules"].update(key="other"), "does not match"),
    (lambda g: g.update(rounds=g["rounds"][:3]), "each of its rules' rounds once"),
    (lambda g: g["rounds"][1].update(position=0), "each of its rules' rounds once"),
])
def test_imports_that_make_no_sense_are_refused_whole(app, client, game, spoil, message):
    data = _export(app, client, game)
    data["games"][0]["uid"] = "another"
    spoil(data["games"][0])
    before = db_snapshot(app)
    page = client.post("/import", data={"file": (io.BytesIO(json.dumps(data).encode()), "x.json")},
                       content_type="multipart/form-data")
    assert page.status_code == 200
    assert message in text_of(page)
    assert db_snapshot(app) == before


def test_skipping_hand_one_is_refused_for_rules_without_that_option(app, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob"], first_dealer="Ann")
    with app.app_context():
        data = json.loads("".join(export.export_json(access.current_family())))
    spoiled = copy.deepcopy(data)
    spoiled["games"][0].update(uid="x2", skip_first_hand=True)
    with pytest.raises(checks.TransferError, match="cannot skip hand 1"):
        checks.parse(json.dumps(spoiled))
    assert game_id


def test_a_file_over_the_upload_limit_gets_a_friendly_answer(app, client):
    app.config["MAX_CONTENT_LENGTH"] = 1024
    page = client.post("/import", data={"file": (io.BytesIO(b"x" * 4096), "big.json")},
                       content_type="multipart/form-data")
    assert page.status_code == 413
    assert "flask --app scorekeeper import FILE" in text_of(page)
