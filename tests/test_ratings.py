"""Family ratings (Plackett-Luce, ``openskill``): who finishes lower rises, ties share, and the
ratings kept as games finish, change and go always equal a rating of the whole history in order.
"""

from __future__ import annotations

import json
import random
from datetime import datetime

import pytest
import sqlalchemy as sa

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.games import service, summary
from scorekeeper.games.hands import record_round
from scorekeeper.history import ratings
from scorekeeper.models import Game, Player, Rating
from scorekeeper.rules.ratings import new_skill, rate, replay
from scorekeeper.transfer import checks, importing
from scorekeeper.transfer.export import export_json
from tests.actions import GameActions
from tests.databases import make_app
from tests.pages import text_of
from tests.random_games import our_family, play_random_hand, random_action, start_game

# -- the model ----------------------------------------------------------------------------------


def test_everyone_starts_at_zero():
    assert new_skill().shown == 0


def test_the_lowest_total_rises_and_the_highest_falls():
    ann, bob, cy = rate([new_skill()] * 3, [40, 95, 180])
    assert ann.shown > bob.shown > cy.shown
    assert ann.mu > new_skill().mu > cy.mu


def test_equal_totals_share_their_place():
    ann, bob, cy = rate([new_skill()] * 3, [60, 60, 150])
    assert ann == bob
    assert cy.shown < ann.shown


def test_beating_a_strong_player_is_worth_more_than_beating_a_new_one():
    strong = new_skill()
    for _ in range(8):
        strong, _ = rate([strong, new_skill()], [10, 100])
    win_over_strong = rate([new_skill(), strong], [10, 100])[0]
    win_over_new = rate([new_skill(), new_skill()], [10, 100])[0]
    assert win_over_strong.mu > win_over_new.mu


def test_replay_changes_add_up_to_the_rating_shown():
    rated = replay([(1, [(7, 30), (8, 90)]), (2, [(7, 120), (8, 20)]), (3, [(7, 10), (8, 75)])])
    for player in (7, 8):
        mine = [r for r in rated if r.player_id == player]
        assert sum(r.change for r in mine) == mine[-1].skill.shown


# -- kept with the games ------------------------------------------------------------------------


def _stored(family_id: int) -> list[tuple]:
    return [
        (row.game_id, row.player_id, round(row.mu, 9), round(row.sigma, 9), row.shown, row.change)
        for row in db.session.execute(
            sa.select(Rating).where(Rating.family_id == family_id).order_by(Rating.game_id, Rating.player_id)
        ).scalars()
    ]


def _assert_kept_equals_rebuild(family_id: int) -> list[tuple]:
    kept = _stored(family_id)
    ratings.rebuild(family_id)
    db.session.commit()
    assert _stored(family_id) == kept
    return kept


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_ratings_kept_as_games_finish_and_change_equal_a_rating_of_the_whole_history(app, seed):
    rng = random.Random(seed)
    with app.app_context():
        family = our_family()
        done = [random_action(family, rng) for _ in range(14)]
        for _ in range(3):
            done.append(random_action(family, rng))
            _assert_kept_equals_rebuild(family.id)
        kept = _assert_kept_equals_rebuild(family.id)
    assert "finish" in done and kept


def test_an_imported_history_is_rated_as_it_was_where_it_came_from(app, tmp_path):
    rng = random.Random(7)
    with app.app_context():
        family = our_family()
        for _ in range(6):
            random_action(family, rng)
        names = {p.id: p.name for p in db.session.execute(sa.select(Player)).scalars()}
        here = {(names[pid], shown) for pid, shown in ratings.shown_now(family.id, names).items()}
        exported = "".join(export_json(family))
    other = make_app(tmp_path / "other")
    with other.app_context():
        family = our_family()
        importing.import_data(family, checks.parse(exported.encode()))
        _assert_kept_equals_rebuild(family.id)
        names = {p.id: p.name for p in db.session.execute(sa.select(Player)).scalars()}
        there = {(names[pid], shown) for pid, shown in ratings.shown_now(family.id, names).items()}
    assert there == here and any(shown for _, shown in here)


def test_deleting_an_early_game_rates_the_later_ones_again(app):
    rng = random.Random(3)
    with app.app_context():
        family = our_family()
        for _ in range(3):
            game = start_game(family, ["Ann", "Bob", "Cy"], rng)
            while game.current_round is not None:
                play_random_hand(game, rng)
        first = db.session.execute(sa.select(Game).order_by(Game.id)).scalars().first()
        before = ratings.shown_now(family.id, [s.player_id for s in first.seats])
        service.delete_game(first)
        after = ratings.shown_now(family.id, before)
        _assert_kept_equals_rebuild(family.id)
        assert after != before
        assert not db.session.execute(sa.select(Rating).where(Rating.game_id == first.id)).first()


# -- what players see ---------------------------------------------------------------------------


def _finish_two_player_game(app, client) -> int:
    actions = GameActions(client, app)
    game_id = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    for number in range(1, 8):
        actions.record(ids, game_id, number, "Ann", {"Bob": "K", "Cy": "5"})
    return game_id


def test_a_finished_games_standings_show_each_rating_change(app, client, actions):
    game_id = _finish_two_player_game(app, client)
    with app.app_context():
        changes = ratings.game_changes(game_id)
        ids = actions.player_ids(game_id)
    ann, bob = changes[ids["Ann"]], changes[ids["Bob"]]
    assert ann.change > 0 > bob.change
    page = text_of(client.get(f"/games/{game_id}/standings"))
    # The places, lowest total first, each with the rating after the game, from how many games, and settling.
    assert f"Places 1st Ann 0 Rating {ann.shown} (+{ann.change}) 1 game: settling" in page
    assert f"3rd Bob 70 Rating {bob.shown} (−{-bob.change}) 1 game: settling".replace("-", "−") in page
    assert "a cautious estimate of skill" in page and "settled over a player's first 5 games" in page
    assert (ann.games, bob.games) == (1, 1)


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_the_players_list_and_profile_show_the_rating_with_what_it_means(app, client, actions):
    game_id = _finish_two_player_game(app, client)
    ids = actions.player_ids(game_id)
    with app.app_context():
        shown = ratings.shown_now(1, ids.values())
    players = text_of(client.get("/players"))
    assert "a cautious estimate of skill" in players
    assert str(shown[ids["Ann"]]) in players
    profile = text_of(client.get(f"/players/{ids['Ann']}"))
    assert f"{shown[ids['Ann']]} Rating" in profile


def test_a_family_of_many_players_is_looked_up_in_batches(app):
    """SQLite joins at most 500 selects in one statement; a family may have more players."""
    with app.app_context():
        family = our_family()
        db.session.add_all(Player(family_id=family.id, name=f"Cousin {n}") for n in range(501))
        db.session.commit()
        ids = list(db.session.execute(sa.select(Player.id).where(Player.family_id == family.id)).scalars())
        assert ratings.shown_now(family.id, ids) == dict.fromkeys(ids, 0)


def test_games_started_out_of_order_or_at_the_same_moment_are_rated_in_start_order(app):
    rng = random.Random(11)
    with app.app_context():
        family = our_family()
        games = []
        for _ in range(4):
            game = start_game(family, ["Ann", "Bob", "Cy"], rng)
            while game.current_round is not None:
                play_random_hand(game, rng)
            games.append(game)
        # The last game was played first; the two middle ones started at the same moment.
        moved = {games[3].id: datetime(2026, 1, 5, 14), games[1].id: datetime(2026, 2, 1, 15),
                 games[2].id: datetime(2026, 2, 1, 15)}
        for game in games:
            if game.id in moved:
                game.started_at = moved[game.id]
                summary.refresh_summary(game)
        db.session.commit()
        kept = _assert_kept_equals_rebuild(family.id)
        order = [game_id for _, game_id in sorted(
            db.session.execute(sa.select(Rating.played_at, Rating.game_id).distinct()).all())]
        assert order[:3] == [games[3].id, games[1].id, games[2].id] and kept
        # An edit of the earliest game rates every later one again.
        first = games[3]
        round_ = first.rounds[-1]
        seats = [seat.player_id for seat in first.seats]
        record_round(first, round_.number, [rules.Hand(seats[1], went_out=True, laid_down=True)] + [
            rules.Hand(pid, hand_total=80) for pid in (seats[0], seats[2])], round_.version, by="test")
        assert _assert_kept_equals_rebuild(family.id) != kept


def test_an_import_with_times_in_several_forms_is_rated_from_its_earliest_game(app, tmp_path):
    rng = random.Random(5)
    with app.app_context():
        family = our_family()
        for _ in range(3):
            random_action(family, rng)
        data = json.loads("".join(export_json(family)))
    data["games"][0]["started_at"] = data["games"][0]["started_at"][:19] + "+02:00"
    other = make_app(tmp_path / "other")
    with other.app_context():
        family = our_family()
        importing.import_data(family, checks.parse(json.dumps(data).encode()))
        assert _assert_kept_equals_rebuild(family.id)
