"""The server's log: one line for a refused write and one for an import, each with the family's
id and no player's name or username (journalctl shows these lines under deploy/'s systemd units)."""

from __future__ import annotations

import io
import logging

from scorekeeper.extensions import db
from scorekeeper.transfer import export
from scorekeeper.web import access
from tests.databases import TEST_USERNAME


def lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name.startswith("scorekeeper")]


def family_id(app) -> int:
    with app.app_context():
        return access.current_family().id


def test_a_refused_buy_is_logged_once_with_the_family_and_no_name(client, app, caplog, actions):
    game_id = actions.new_game("shanghai-10", ["Annabel", "Bartholomew"], first_dealer="Annabel")
    ids = actions.player_ids(game_id)
    for _ in range(3):  # shanghai-10: 3 buys in hand 1
        client.post(f"/games/{game_id}/rounds/1/buy", data={"player": ids["Annabel"]})
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="scorekeeper"):
        refused = client.post(f"/games/{game_id}/rounds/1/buy", data={"player": ids["Annabel"]},
                              follow_redirects=True)
    assert "Annabel has used all 3 buys this round." in refused.get_data(as_text=True)
    assert lines(caplog) == [f"refused write: family={family_id(app)} POST games.buy status=302"]


def test_an_import_is_logged_once_with_its_counts_and_no_name(client, app, caplog, actions):
    game_id = actions.new_game("shanghai-10", ["Annabel", "Bartholomew"], first_dealer="Annabel")
    actions.record(actions.player_ids(game_id), game_id, 1, "Annabel", {"Bartholomew": "K"})
    with app.app_context():
        raw = "".join(export.export_json(access.current_family())).encode()
        db.session.remove()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="scorekeeper"):
        client.post("/import", data={"file": (io.BytesIO(raw), "export.json")}, content_type="multipart/form-data")
    assert lines(caplog) == [f"import: family={family_id(app)}, 0 games added, 1 already here"]
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="scorekeeper"):
        client.post("/import", data={"file": (io.BytesIO(b"{}"), "export.json")}, content_type="multipart/form-data")
    assert lines(caplog) == [f"refused write: family={family_id(app)} POST transfer.import_view status=200"]
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "Annabel" not in logged and TEST_USERNAME not in logged
