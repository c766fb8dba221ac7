"""Each number of the game worked out in one place and shown as it was worked out: who deals
first when the table plays again, the buys left in the reminders, the editor's fewest cards, the
demo history's summary rows, a rating's change."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

import pytest
import sqlalchemy as sa

from scorekeeper import rules
from scorekeeper.demo import seed_demo
from scorekeeper.extensions import db
from scorekeeper.games.summary import refresh_summary
from scorekeeper.house_rules import service as house_rules
from scorekeeper.models import Game, GameRound, PlayerGame, Result
from scorekeeper.rules.buying import buy_rule
from scorekeeper.rules.figures import change
from scorekeeper.rules.house import min_cards_of
from tests.pages import element_text, text_of
from tests.random_games import our_family

FIVE = ["Ann", "Bob", "Cy", "Dee", "Eve"]


def tap(client, game_id: int, number: int, button: str, player_id: int):
    response = client.post(f"/games/{game_id}/rounds/{number}/{button}", data={"player": player_id},
                           follow_redirects=True)
    assert response.status_code == 200
    return response


# -- who deals -----------------------------------------------------------------------------


def test_the_deal_passes_one_seat_on_when_the_table_plays_again_and_wraps_round():
    assert rules.next_game_first_dealer(1, 5) == 2
    assert rules.next_game_first_dealer(4, 5) == 0  # the last seat dealt first: the first seat next


def test_the_standings_name_each_dealer_and_who_deals_first_in_the_next_game(client, actions):
    # Five players, Eve (seat 4) deals first: round 1 Eve, 2 Ann, 3 Bob, 4 Cy, 5 Dee, 6 Eve, 7 Ann.
    game_id = actions.new_game("family-7", FIVE, first_dealer="Eve")
    ids = actions.player_ids(game_id)
    losers = {"Bob": "K", "Cy": "5", "Dee": "7", "Eve": "9"}
    for number in range(1, 4):
        actions.record(ids, game_id, number, "Ann", losers)
    standings = client.get(f"/games/{game_id}/standings").get_data(as_text=True)
    dealers = re.findall(r'title="Dealer: ([^"]+)"', standings)
    assert dealers == ["Eve", "Ann", "Bob", "Cy", "Dee", "Eve", "Ann"]
    assert "Dealer Cy" in text_of(client.get(f"/games/{game_id}"))  # round 4 is being dealt
    assert "Play again" not in standings  # not finished

    for number in range(4, 8):
        actions.record(ids, game_id, number, "Ann", losers)
    standings = client.get(f"/games/{game_id}/standings").get_data(as_text=True)
    assert "Play again: same rules and seats, Ann deals first" in standings
    page = client.post(f"/games/{game_id}/again", follow_redirects=True)
    assert "A new game: the same rules and seats; Ann deals first." in text_of(page)
    assert "Dealer Ann" in text_of(page)


# -- buys left -----------------------------------------------------------------------------


def test_the_buy_rule_answers_the_buys_left_and_whether_a_player_who_is_down_may_buy():
    family_7 = buy_rule(rules.get_variant("family-7"))  # a player who has laid down may not buy
    assert family_7.left(4, 2, laid_down=False) == 2
    assert family_7.left(4, 6, laid_down=False) == 0
    assert family_7.left(4, 0, laid_down=True) is None
    assert not family_7.may_buy(laid_down=True) and family_7.may_buy(laid_down=False)
    shanghai_10 = buy_rule(rules.get_variant("shanghai-10"))  # where a player who is down still buys
    assert shanghai_10.left(3, 1, laid_down=True) == 2


def test_the_reminders_show_the_buys_left_under_family_7(client, actions):
    game_id = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    tap(client, game_id, 1, "buy", ids["Ann"])
    screen = tap(client, game_id, 1, "buy", ids["Ann"])
    # Four buys a hand: Ann has made 2.
    assert element_text(screen, "buys-left") == "Buys left: Ann 2, Bob 4, Cy 4."
    screen = client.post(f"/games/{game_id}/rounds/1/down", data={"player": ids["Ann"], "laid_down": 1},
                         follow_redirects=True)
    assert element_text(screen, "buys-left") == "Buys left: Ann laid down, Bob 4, Cy 4."


def test_the_reminders_show_the_buys_left_of_the_whole_games_allowance(app, client, actions):
    with app.app_context():
        row = house_rules.save_house_rules(our_family(), replace(
            rules.get_variant("family-7"), name="Three a game", buys_counted="game", buys_per_game=3))
        key = row.key
    game_id = actions.new_game(key, ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    tap(client, game_id, 1, "buy", ids["Ann"])
    screen = tap(client, game_id, 1, "buy", ids["Ann"])
    # Three buys for the whole game, at most 4 in a hand: Ann has 1 left, the others 3.
    assert element_text(screen, "buys-left") == "Buys left: Ann 1, Bob 3, Cy 3."
    actions.record(ids, game_id, 1, "Bob", {"Ann": "K", "Cy": "5"})
    screen = client.get(f"/games/{game_id}")
    assert element_text(screen, "buys-left") == "Buys left: Ann 1, Bob 3, Cy 3."  # the next hand
    tap(client, game_id, 2, "buy", ids["Ann"])
    screen = tap(client, game_id, 2, "buy", ids["Ann"])
    assert element_text(screen, "buys-left") == "Buys left: Ann none, Bob 3, Cy 3."
    assert "Ann has used all 3 buys of this game." in text_of(screen)


# -- fewest cards --------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(rules.VARIANTS))
def test_the_editor_shows_each_rounds_fewest_cards_as_the_rules_core_counts_them(client, key):
    page = text_of(client.get(f"/house-rules/new?from={key}"))
    shown = [int(n) for n in re.findall(r"At least (\d+) cards\.", page)]
    assert shown == [r.min_cards for r in rules.VARIANTS[key].rounds]


def test_the_fewest_cards_of_melds_as_typed():
    assert min_cards_of("2 sets of 3, 1 run of 4") == 10  # a meld counted twice is two melds
    assert min_cards_of("pair of Aces and a run of 4") == 6
    assert min_cards_of("three blobs") is None and min_cards_of("") is None


# -- the demo history ----------------------------------------------------------------------


def test_the_demo_historys_summary_rows_are_the_ones_its_hands_make(app):
    columns = ("game_id", "player_id", "total", "won", "hands_played", "hands_won", "times_stuck", "buys",
               "marked_hands")

    def summaries() -> list[tuple]:
        rows = db.session.execute(sa.select(PlayerGame)).scalars()
        return sorted(tuple(getattr(row, c) for c in columns) for row in rows)

    with app.app_context():
        seed_demo(our_family(), 12, seed=5, end=datetime(2026, 6, 1))
        seeded = summaries()
        totals = {(game_id, player_id): points for game_id, player_id, points in db.session.execute(
            sa.select(Game.id, Result.player_id, sa.func.sum(Result.points))
            .join(Result.round).join(GameRound.game).group_by(Game.id, Result.player_id))}
        for game in db.session.execute(sa.select(Game)).scalars():
            refresh_summary(game)
        assert summaries() == seeded  # what a played game's summary would be
    assert len(seeded) >= 12 * 3 and {(row[0], row[1]): row[2] for row in seeded} == totals
    for game_id in {row[0] for row in seeded}:
        rows = [row for row in seeded if row[0] == game_id]
        low = min(row[2] for row in rows)
        assert [row[3] for row in rows] == [row[2] == low for row in rows]  # the lowest total wins


# -- a rating's change ---------------------------------------------------------------------


def test_a_change_is_shown_with_its_sign():
    assert [change(n) for n in (12, -3, 0)] == ["+12", "\u22123", "\u00b10"]
