"""The chance to win on the pages of a game in progress: the standings and the live scoreboard
show each player's chance and one line saying what it was built from (the family's own hands
with these rules, or the point table while there are too few)."""

from __future__ import annotations

import re

from sqlalchemy import false, func

from scorekeeper.demo import seed_demo
from scorekeeper.extensions import db
from scorekeeper.games import chances as service
from scorekeeper.models import FINISHED, Game, GameRound, Result
from scorekeeper.web import access
from tests.actions import GameActions
from tests.databases import strict_client
from tests.pages import text_of, texts_by_class
from tests.test_sharing import share

FAMILY_7_ROUNDS = [(2, "Ann", {"Bob": "K", "Cy": "JK JK"}), (3, "Cy", {"Ann": "5", "Bob": "A"})]


def game_with_hands(client, app, rounds=FAMILY_7_ROUNDS) -> int:
    """A family-7 game (hand 1 skipped) with ``rounds`` scored."""
    actions = GameActions(client, app)
    game_id = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann", skip_first_hand=True)
    ids = actions.player_ids(game_id)
    for number, out, hands in rounds:
        actions.record(ids, game_id, number, out, hands)
    return game_id


def win_row(html: str) -> list[str]:
    """The standings' chance-to-win row, seat by seat."""
    row = re.search(r'<tr class="chance">(.*?)</tr>', html, re.S)
    return re.findall(r'<td class="win">([^<]*)</td>', row.group(1)) if row else []


def family_7_hands(app, latest: int | None = None) -> int:
    """Hands of players who did not go out in the family's (latest) finished family-7 games."""
    with app.app_context():
        games = db.select(Game.id).where(Game.status == FINISHED, Game.variant_key == "family-7")
        if latest:
            games = games.order_by(Game.started_at.desc(), Game.id.desc()).limit(latest)
        return db.session.execute(
            db.select(func.count()).select_from(Result).join(GameRound, Result.round_id == GameRound.id)
            .where(GameRound.game_id.in_(games), Result.went_out == false())
        ).scalar_one()


def test_standings_of_a_game_in_progress_show_each_player_s_chance_and_what_it_comes_from(client, app, actions):
    game_id = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann", skip_first_hand=True)
    assert win_row(client.get(f"/games/{game_id}/standings").text) == []  # nothing scored: no chances yet
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 2, "Ann", {"Bob": "K", "Cy": "JK JK"})  # Ann 0, Bob 10, Cy 40
    html = client.get(f"/games/{game_id}/standings").text
    ann, bob, cy = (int(label.rstrip("%").lstrip("<>")) for label in win_row(html))
    assert ann > bob > cy and 95 <= ann + bob + cy <= 105
    (source,) = texts_by_class(html, "chance-source")
    assert source == ("Win: each player’s chance to win. Simulated 10,000 times from the point table: "
                      "too few hands played with these rules yet (0 of 300).")
    app.config["PAGE_CACHE"] = False  # drawn again, not served from memory: the same figures
    assert win_row(client.get(f"/games/{game_id}/standings").text) == win_row(html)


def test_a_finished_game_shows_its_result_not_chances(client, app):
    rounds = [(n, "Ann", {"Bob": "K", "Cy": "5"}) for n in range(2, 8)]
    game_id = game_with_hands(client, app, rounds)
    html = client.get(f"/games/{game_id}/standings").text
    assert "Ann wins" in text_of(html)
    assert win_row(html) == [] and "chance to win" not in html


def test_the_scoreboard_shows_each_player_s_chance_and_what_it_comes_from(client, app):
    game_id = game_with_hands(client, app)  # Ann 5, Bob 25, Cy 40
    guest = strict_client(app, None)
    board = guest.get(share(client, game_id, "view")).text
    rows = re.findall(r'<th scope="row">(\w+).*?<td class="num chance">([^<]*)</td>', board, re.S)
    assert [name for name, _ in rows] == ["Ann", "Bob", "Cy"]  # lowest total first
    standings = win_row(client.get(f"/games/{game_id}/standings").text)
    assert [label for _, label in rows] == standings  # the same figures as the standings (seat order here)
    assert "Win: each player’s chance to win. Simulated 10,000 times from the point table" in text_of(board)


def test_a_family_with_300_hands_of_these_rules_plays_from_its_own(client, app):
    with app.app_context():
        seed_demo(access.current_family(), 80, seed=11)
    hands = family_7_hands(app)
    assert hands >= 300
    game_id = game_with_hands(client, app)
    (source,) = texts_by_class(client.get(f"/games/{game_id}/standings").text, "chance-source")
    assert f"Simulated 10,000 times from {hands:,} hands this family played with these rules." in source


def test_only_the_latest_finished_games_with_these_rules_are_read(client, app, monkeypatch):
    with app.app_context():
        seed_demo(access.current_family(), 80, seed=11)
    monkeypatch.setattr(service, "LATEST_GAMES", 16)
    hands = family_7_hands(app, latest=16)
    assert 300 <= hands < family_7_hands(app)
    game_id = game_with_hands(client, app)
    (source,) = texts_by_class(client.get(f"/games/{game_id}/standings").text, "chance-source")
    assert f"from {hands:,} hands this family played" in source
