"""Every change to a scored round is kept, with who made it and when, on the game's page."""

from __future__ import annotations

from scorekeeper import families, rules
from scorekeeper.extensions import db
from scorekeeper.games import hands, service
from scorekeeper.models import PlayerGame, RoundChange
from tests.databases import strict_client
from tests.pages import element_text, round_data, score_url, text_of


def history_lines(client, game_id: int) -> list[str]:
    page = client.get(f"/games/{game_id}/standings")
    return [line.strip() for line in element_text(page, "changes").split(" Round ")][1:]


def test_record_edit_and_undo_are_listed_with_who_and_the_points_that_moved(client, app, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    assert "Changes to scored rounds" not in text_of(client.get(f"/games/{game_id}/standings"))

    actions.record(ids, game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})  # Bob 10, Cy 5
    actions.add_member("Our family", "grandma")
    grandma = strict_client(app, "grandma")
    actions.on(grandma).record(ids, game_id, 1, "Ann", {"Bob": "K K", "Cy": "5"})  # a correction: Bob 20
    grandma.post(f"/games/{game_id}/undo", data={"number": "1"})

    lines = history_lines(client, game_id)  # newest first
    assert len(lines) == 3
    assert lines[0].startswith("1 undone by grandma") and "taken back: Ann 0 · Bob 20 · Cy 5" in lines[0]
    assert lines[1].startswith("1 edited by grandma") and lines[1].endswith("Bob 10 → 20")
    assert lines[2].startswith("1 recorded by tester") and lines[2].endswith("Ann 0 · Bob 10 · Cy 5")
    assert "Changes to scored rounds (3)" in text_of(client.get(f"/games/{game_id}/standings"))

    with app.app_context():
        changes = db.session.execute(db.select(RoundChange).order_by(RoundChange.id)).scalars().all()
        assert [(c.action, c.points) for c in changes] == [
            ("recorded", {"before": None, "after": [0, 10, 5]}),
            ("edited", {"before": [0, 10, 5], "after": [0, 20, 5]}),
            ("undone", {"before": [0, 20, 5], "after": None}),
        ]
        assert all(c.at is not None for c in changes)


def test_a_refused_save_leaves_no_line_in_the_history(client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})
    # A second tap of the first form, still on version 0.
    client.post(score_url(game_id, 1), data=round_data(ids, "Ann", {"Bob": "K", "Cy": "5"}, 0))
    assert len(history_lines(client, game_id)) == 1


def test_hands_recorded_one_after_another_in_one_session_move_the_game_on(app):
    """The service keeps the objects it changed with conditional UPDATEs in step (the command
    line and the demo seeder record several hands with the same objects)."""
    with app.app_context():
        family = families.sole_family()
        seats = [service.SeatChoice(new_name=name) for name in ("Ann", "Bob")]
        game = service.start_game(family, rules.get_variant("online-11"), seats, first_dealer=0)
        ann, bob = (p.id for p in game.players)
        for number in range(1, 12):
            entries = [rules.Hand(player_id=ann, went_out=True),
                       rules.Hand(player_id=bob, counts={"K": 1})]
            hands.record_round(game, number, entries, version=0)
            assert game.rounds[number - 1].recorded_at is not None and game.rounds[number - 1].version == 1
        assert game.status == "finished"
        summary = db.session.execute(db.select(PlayerGame).where(PlayerGame.player_id == bob)).scalar_one()
        assert (summary.hands_played, summary.total) == (11, 110)
        hands.undo_last_round(game, 11)
        assert game.current_round.number == 11 and game.status == "in_progress"
