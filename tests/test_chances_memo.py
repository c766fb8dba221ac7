"""The chance to win is kept in memory (``games.chances``): the same position drawn again (after a
buy and its undo, which redraw the page) does not simulate again, and any change to the hands it
is drawn from - a finished game with these rules edited, reopened, abandoned, deleted, or another
one finished - makes it simulate again, with the same figures as a draw from scratch."""

from __future__ import annotations

import pytest
from sqlalchemy import func

from scorekeeper.demo import seed_demo
from scorekeeper.extensions import counting_statements, db
from scorekeeper.games import chances as service
from scorekeeper.games.service import load_game
from scorekeeper.models import FINISHED, Family, Game, GameRound
from scorekeeper.rules import chances as simulation
from scorekeeper.web import access
from tests.actions import GameActions
from tests.test_chances_pages import family_7_hands, game_with_hands, win_row


@pytest.fixture
def simulations(monkeypatch) -> list[tuple]:
    """Every simulation run: the arguments ``chance_to_win`` was called with."""
    calls = []
    real = simulation.chance_to_win

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(simulation, "chance_to_win", spy)
    return calls


@pytest.fixture
def seeded(app, client):
    """80 finished demo games (enough family-7 hands to leave the point table); pages drawn fresh."""
    with app.app_context():
        seed_demo(access.current_family(), 80, seed=11)
    app.config["PAGE_CACHE"] = False
    return app


def from_scratch(app, game_id: int) -> simulation.Chances:
    """The figures worked out without anything kept: the hands read and the finishes simulated."""
    with app.app_context():
        game = load_game(_family(game_id), game_id)
        scored = [r for r in game.rounds if r.recorded_at is not None]
        left = [r.number for r in game.rounds if r.recorded_at is None]
        totals = [sum(r.results[seat].points for r in scored) for seat in range(len(game.seats))]
        samples = service.family_hands(game.family_id, game.variant_key)
        return simulation.chance_to_win(game.variant, totals, left, len(totals), samples,
                                        seed=simulation.seed_for(game.id, totals, len(scored)))


def _family(game_id: int) -> Family:
    return db.session.get(Family, db.session.get(Game, game_id).family_id)


def drawn(app, game_id: int) -> simulation.Chances:
    """The figures as the pages draw them."""
    with app.app_context():
        return service.chances_for(load_game(_family(game_id), game_id))


def latest_family_7(app, skip: int = 0) -> int:
    """The id of a finished family-7 game among the latest (the ones the hands come from)."""
    with app.app_context():
        return db.session.execute(
            db.select(Game.id).where(Game.status == FINISHED, Game.variant_key == "family-7")
            .order_by(Game.started_at.desc(), Game.id.desc()).offset(skip).limit(1)
        ).scalar_one()


def buy_and_take_back(client, app, game_id: int) -> None:
    """A buy and its undo: the family's version moves on twice, the position stays."""
    actions = GameActions(app=app)
    bob = actions.player_ids(game_id)["Bob"]
    with app.app_context():
        number = db.session.execute(
            db.select(func.min(GameRound.number)).where(GameRound.game_id == game_id, GameRound.recorded_at.is_(None))
        ).scalar_one()
    for action in ("buy", "unbuy"):
        assert client.post(f"/games/{game_id}/rounds/{number}/{action}", data={"player": bob}).status_code == 302


def test_the_same_position_drawn_again_is_not_simulated_again(seeded, client, simulations):
    game_id = game_with_hands(client, seeded)
    first = client.get(f"/games/{game_id}/standings").text
    assert len(simulations) == 1 and win_row(first)
    buy_and_take_back(client, seeded, game_id)
    again = client.get(f"/games/{game_id}/standings").text
    assert win_row(again) == win_row(first) and len(simulations) == 1
    assert drawn(seeded, game_id) == from_scratch(seeded, game_id)
    assert len(simulations) == 2  # from_scratch's own


def test_a_hand_recorded_simulates_again_from_the_hands_already_read(seeded, client, simulations, monkeypatch, actions):
    game_id = game_with_hands(client, seeded)
    before = drawn(seeded, game_id)
    reads = []
    real = service._hands_in
    monkeypatch.setattr(service, "_hands_in", lambda games: reads.append(games) or real(games))
    actions.record(actions.player_ids(game_id), game_id, 4, "Bob", {"Ann": "K", "Cy": "5"})
    after = drawn(seeded, game_id)
    assert len(simulations) == 2 and after != before and reads == []
    assert after == from_scratch(seeded, game_id)


def test_a_kept_position_reads_nothing_but_the_family(seeded, client):
    game_id = game_with_hands(client, seeded)
    drawn(seeded, game_id)
    with seeded.app_context():
        game = load_game(_family(game_id), game_id)
        db.session.expunge(db.session.get(Family, game.family_id))  # not already loaded, this time
        with counting_statements(seeded) as sent:
            service.chances_for(game)
    assert len(sent) == 1 and "FROM family" in sent[0] and "result" not in sent[0], sent


def edit_a_hand(client, app, game_id: int) -> None:
    """The game's first hand corrected: the first seat went out, everyone else held 95."""
    actions = GameActions(client, app)
    with app.app_context():
        number = db.session.execute(
            db.select(func.min(GameRound.number)).where(GameRound.game_id == game_id)
        ).scalar_one()
    ids = actions.player_ids(game_id)
    first, *others = ids
    actions.record(ids, game_id, number, first, {name: 95 for name in others})


def finish_another(client, app, _game_id: int) -> None:
    """Another family-7 game played to the end: it joins the latest."""
    actions = GameActions(client, app)
    game_id = actions.new_game("family-7", ["Xena", "Yuri", "Zoe"], first_dealer="Xena", skip_first_hand=True)
    ids = actions.player_ids(game_id)
    for number in range(2, 8):
        actions.record(ids, game_id, number, "Xena", {"Yuri": "K", "Zoe": "5"})


CHANGES = {
    "a hand edited": edit_a_hand,
    "the last hand taken back": lambda client, app, game_id: client.post(f"/games/{game_id}/undo"),
    "abandoned": lambda client, app, game_id: client.post(f"/games/{game_id}/abandon"),
    "deleted": lambda client, app, game_id: client.post(f"/games/{game_id}/delete"),
    "another finished": finish_another,
}


@pytest.mark.parametrize("latest", [None, 16])
@pytest.mark.parametrize("change", list(CHANGES))
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_change_to_the_hands_it_is_drawn_from_simulates_again(seeded, client, simulations, monkeypatch,
                                                                change, latest):
    if latest:
        monkeypatch.setattr(service, "LATEST_GAMES", latest)
    game_id = game_with_hands(client, seeded)
    before = drawn(seeded, game_id)
    assert before.hands == family_7_hands(seeded, latest) >= 300
    assert drawn(seeded, game_id) == before and len(simulations) == 1
    CHANGES[change](client, seeded, latest_family_7(seeded, skip=3))
    with counting_statements(seeded) as sent:
        page = client.get(f"/games/{game_id}/standings")
    assert win_row(page.text) and len(sent) <= 10
    after = drawn(seeded, game_id)
    assert len(simulations) == 2, "simulated again, once"
    assert after.hands == family_7_hands(seeded, latest)
    assert after == from_scratch(seeded, game_id)
    if change != "a hand edited":  # a game more or less: other hands
        assert after.hands != before.hands


def test_a_finished_game_with_other_rules_changes_nothing(seeded, client, simulations):
    game_id = game_with_hands(client, seeded)
    before = drawn(seeded, game_id)
    with seeded.app_context():
        other = db.session.execute(
            db.select(Game.id).where(Game.status == FINISHED, Game.variant_key != "family-7").limit(1)
        ).scalar_one()
    edit_a_hand(client, seeded, other)
    assert drawn(seeded, game_id) == before
    assert len(simulations) == 1
