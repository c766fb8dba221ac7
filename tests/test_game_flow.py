"""Whole games through the pages a phone uses: new game, buys, card entry, review, standings,
edit and undo.

Every expected score below is worked out by hand from the point tables in
shared/rules/variants.md, with the arithmetic in a comment, so a wrong table or a wrong sum in
the app shows up as a wrong number here. Hands are written as keypad codes: 2..10 J Q K A,
JK (joker), 2B (black two, shanghai-rum), 2C (two of clubs, online-11); an int is a total
counted by hand.
"""

from __future__ import annotations

import re

import pytest

from scorekeeper.extensions import db
from scorekeeper.models import Game
from tests.actions import GameActions
from tests.databases import db_snapshot
from tests.pages import element_text, input_value, input_values, review_lines, round_data, score_url, text_of


def play_rounds(client, app, game_id: int, rounds, dealt_by: list[tuple[int, str]]):
    """Record every round through 'Check points' and 'Save', checking points as we go.

    ``rounds`` holds ``(number, went out, hands, expected points[, bonus])``; ``dealt_by`` the
    dealer of each round, which the round screen must name before the cards are entered.
    """
    actions = GameActions(client, app)
    ids = actions.player_ids(game_id)
    expected_dealer = dict(dealt_by)
    saved = None
    for number, went_out, hands, expected, *bonus in rounds:
        screen = text_of(client.get(f"/games/{game_id}"))
        assert f"Round {number} of" in screen
        assert f"Dealer {expected_dealer[number]}" in screen
        version, kept = actions.opened_form(game_id, number)
        data = {**kept, **round_data(ids, went_out, hands, version, bonus=bonus[0] if bonus else None,
                                     laid_down=[went_out])}
        review, saved = actions.review_then_save(game_id, number, data)
        assert {name: pts for name, (pts, _) in review_lines(review).items()} == expected, f"review of round {number}"
        assert actions.stored_points(game_id)[number] == expected, f"stored points of round {number}"
    return saved


def finished_standings(client, game_id: int, last_save) -> str:
    """Follow the last save: it lands on the standings with the result."""
    assert last_save.headers["Location"] == f"/games/{game_id}/standings"
    page = client.get(last_save.headers["Location"])
    assert page.status_code == 200
    text = text_of(page)
    assert "Last hand saved: the game is over." in text
    return text


# -- 1. four complete games -------------------------------------------------------------------

# family-7: 2–9 = 5 · 10 J Q K = 10 · A = 15 · Joker = 20. Hand 1 skipped: rounds 2–7.
FAMILY_7_ROUNDS = [
    (2, "Ann", {"Bob": "K K 5",        # 10+10+5 = 25
                "Cy": "9 10 A JK",     # 5+10+15+20 = 50 (the worked example in variants.md)
                "Di": "2 3"},          # 5+5 = 10
     {"Ann": 0, "Bob": 25, "Cy": 50, "Di": 10}),
    (3, "Bob", {"Ann": "Q",            # 10
                "Cy": 40,              # counted by hand (a multiple of 5: every card here is)
                "Di": "JK JK 7"},      # 20+20+5 = 45
     {"Ann": 10, "Bob": 0, "Cy": 40, "Di": 45}),
    (4, "Cy", {"Ann": "A A",           # 15+15 = 30
               "Bob": "4 4 4",         # 5+5+5 = 15
               "Di": "J 10"},          # 10+10 = 20
     {"Ann": 30, "Bob": 15, "Cy": 0, "Di": 20}),
    (5, "Di", {"Ann": "8",             # 5
               "Bob": "K",             # 10
               "Cy": "A JK"},          # 15+20 = 35
     {"Ann": 5, "Bob": 10, "Cy": 35, "Di": 0}),
    (6, "Ann", {"Bob": "6 6",          # 5+5 = 10
                "Cy": "Q Q",           # 10+10 = 20
                "Di": "5"},            # 5
     {"Ann": 0, "Bob": 10, "Cy": 20, "Di": 5}),
    (7, "Bob", {"Ann": "JK",           # 20
                "Cy": "3",             # 5
                "Di": "A K"},          # 15+10 = 25
     {"Ann": 20, "Bob": 0, "Cy": 5, "Di": 25}),
]
# Ann 0+10+30+5+0+20 = 65 · Bob 25+0+15+10+10+0 = 60 · Cy 50+40+0+35+20+5 = 150 · Di 10+45+20+0+5+25 = 105


def test_family_7_skipping_hand_1_plays_rounds_2_to_7_and_lowest_total_wins(client, app, actions):
    game_id = actions.new_game("family-7", ["Ann", "Bob", "Cy", "Di"], first_dealer="Cy",
                               skip_first_hand=True)
    first = text_of(client.get(f"/games/{game_id}"))
    assert "Round 2 of 7 (hand 1 skipped)" in first
    assert "Dealer Cy · Di plays first" in first
    assert "4 buys of 2 cards" in first

    # Seats clockwise Ann, Bob, Cy, Di; Cy deals the first hand played, then the deal moves left.
    expected_dealers = [(2, "Cy"), (3, "Di"), (4, "Ann"), (5, "Bob"), (6, "Cy"), (7, "Di")]
    assert actions.dealers(game_id) == expected_dealers
    assert client.get(score_url(game_id, 1)).status_code == 404  # there is no hand 1 in this game

    last = play_rounds(client, app, game_id, FAMILY_7_ROUNDS, expected_dealers)

    text = finished_standings(client, game_id, last)
    assert "Total 65 60 150 105" in text
    assert "Bob wins" in text
    assert "with 60 points, the lowest total after 6 rounds" in text
    assert actions.game_status(game_id) == "finished"
    assert sorted(actions.stored_points(game_id)) == [2, 3, 4, 5, 6, 7]
    # A finished game has no round screen any more: it shows the result.
    assert client.get(f"/games/{game_id}").headers["Location"] == f"/games/{game_id}/standings"


# shanghai-rum: 2–10 = 5 (red twos too) · J Q K = 10 · A = 15 · Joker = 25 · black 2 (2B) = 50.
SHANGHAI_RUM_ROUNDS = [
    (1, "Bob", {"Ann": "2 2B K",       # red 2 + black 2 + K = 5+50+10 = 65 (worked example)
                "Cy": "10 JK"},        # 5+25 = 30
     {"Ann": 65, "Bob": 0, "Cy": 30}),
    (2, "Cy", {"Ann": "3",             # 5
               "Bob": "2B 2B"},        # 50+50 = 100
     {"Ann": 5, "Bob": 100, "Cy": 0}),
    (3, "Ann", {"Bob": "A",            # 15
                "Cy": 30},             # counted by hand
     {"Ann": 0, "Bob": 15, "Cy": 30}),
    (4, "Ann", {"Bob": "J Q",          # 10+10 = 20
                "Cy": "5 5"},          # 5+5 = 10
     {"Ann": 0, "Bob": 20, "Cy": 10}),
    (5, "Bob", {"Ann": "JK",           # 25
                "Cy": "K K"},          # 10+10 = 20
     {"Ann": 25, "Bob": 0, "Cy": 20}),
    (6, "Cy", {"Ann": "4",             # 5
               "Bob": "9"},            # 5
     {"Ann": 5, "Bob": 5, "Cy": 0}),
    (7, "Ann", {"Bob": "6 7",          # 5+5 = 10
                "Cy": "A"},            # 15
     {"Ann": 0, "Bob": 10, "Cy": 15}),
    (8, "Bob", {"Ann": "Q",            # 10
                "Cy": "2"},            # a red two is natural: 5
     {"Ann": 10, "Bob": 0, "Cy": 5}),
    (9, "Cy", {"Ann": "8 8",           # 5+5 = 10
               "Bob": "10 10 10"},     # tens are 5 here: 5+5+5 = 15
     {"Ann": 10, "Bob": 15, "Cy": 0}),
    (10, "Ann", {"Bob": "K",           # 10
                 "Cy": "J"},           # 10
     {"Ann": 0, "Bob": 10, "Cy": 10}),
]
# Ann 65+5+0+0+25+5+0+10+10+0 = 120 · Bob 0+100+15+20+0+5+10+0+15+10 = 175
# Cy 30+0+30+10+20+0+15+5+0+10 = 120  -> Ann and Cy share the win


def test_shanghai_rum_black_twos_and_a_shared_win(client, app, actions):
    game_id = actions.new_game("shanghai-rum", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    assert "2 buys of 3 cards" in text_of(client.get(f"/games/{game_id}"))
    expected_dealers = [(1, "Ann"), (2, "Bob"), (3, "Cy"), (4, "Ann"), (5, "Bob"),
                        (6, "Cy"), (7, "Ann"), (8, "Bob"), (9, "Cy"), (10, "Ann")]
    assert actions.dealers(game_id) == expected_dealers

    last = play_rounds(client, app, game_id, SHANGHAI_RUM_ROUNDS, expected_dealers)

    text = finished_standings(client, game_id, last)
    assert "Total 120 175 120" in text
    assert "Shared win: Ann & Cy" in text
    assert "with 120 points, the lowest total after 10 rounds" in text
    assert actions.game_status(game_id) == "finished"
    home = text_of(client.get("/"))
    assert "Won by Ann & Cy with 120" in home


# shanghai-10: 2–10 = 5 · J Q K = 10 · A = 15 · Joker = 15; going out blind −25, no joker −50.
SHANGHAI_10_ROUNDS = [
    (1, "Ann", {"Bob": "10 JK A",      # 5+15+15 = 35 (worked example)
                "Cy": "K"},            # 10
     {"Ann": 0, "Bob": 35, "Cy": 10}, ""),
    (2, "Bob", {"Ann": "Q Q",          # 10+10 = 20
                "Cy": "3 4"},          # 5+5 = 10
     {"Ann": 20, "Bob": -25, "Cy": 10}, "blind"),           # Bob out blind with a joker: −25
    (3, "Cy", {"Ann": "A",             # 15
               "Bob": 25},             # counted by hand
     {"Ann": 15, "Bob": 25, "Cy": -50}, "blind-no-joker"),  # Cy out blind, no joker: −50
    (4, "Ann", {"Bob": "7",            # 5
                "Cy": "J"},            # 10
     {"Ann": 0, "Bob": 5, "Cy": 10}, ""),
    (5, "Bob", {"Ann": "9 9",          # 5+5 = 10
                "Cy": "JK"},           # 15
     {"Ann": 10, "Bob": 0, "Cy": 15}, ""),
    (6, "Cy", {"Ann": "K",             # 10
               "Bob": "2 2"},          # 5+5 = 10
     {"Ann": 10, "Bob": 10, "Cy": 0}, ""),
    (7, "Ann", {"Bob": "5",            # 5
                "Cy": "A A"},          # 15+15 = 30
     {"Ann": 0, "Bob": 5, "Cy": 30}, ""),
    (8, "Bob", {"Ann": "6",            # 5
                "Cy": "10"},           # 5
     {"Ann": 5, "Bob": 0, "Cy": 5}, ""),
    (9, "Cy", {"Ann": "J",             # 10
               "Bob": "8 8 8"},        # 5+5+5 = 15
     {"Ann": 10, "Bob": 15, "Cy": 0}, ""),
    (10, "Ann", {"Bob": "Q",           # 10
                 "Cy": "4"},           # 5
     {"Ann": -50, "Bob": 10, "Cy": 5}, "blind-no-joker"),   # Ann out blind, no joker: −50
]
# Ann 0+20+15+0+10+10+0+5+10−50 = 20 · Bob 35−25+25+5+0+10+5+0+15+10 = 80
# Cy 10+10−50+10+15+0+30+5+0+5 = 35


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_shanghai_10_blind_bonuses_are_subtracted(client, app, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Bob")
    expected_dealers = [(1, "Bob"), (2, "Cy"), (3, "Ann"), (4, "Bob"), (5, "Cy"),
                        (6, "Ann"), (7, "Bob"), (8, "Cy"), (9, "Ann"), (10, "Bob")]
    assert actions.dealers(game_id) == expected_dealers

    last = play_rounds(client, app, game_id, SHANGHAI_10_ROUNDS, expected_dealers)

    text = finished_standings(client, game_id, last)
    assert "Total 20 80 35" in text
    assert "Ann wins" in text
    assert "with 20 points" in text
    assert actions.game_status(game_id) == "finished"


# online-11: 2–9 face value · 10 J Q K = 10 · A = 20 · Joker = 50 · 2♣ (2C) = 50; other 2s = 2.
ONLINE_11_ROUNDS = [
    (1, "Ann", {"Bob": "7 2 2C A",     # 7+2+50+20 = 79 (worked example)
                "Cy": "K",             # 10
                "Di": "3 4"},          # 3+4 = 7
     {"Ann": 0, "Bob": 79, "Cy": 10, "Di": 7}),
    (2, "Bob", {"Ann": "JK",           # 50
                "Cy": "9",             # 9
                "Di": 33},             # counted by hand
     {"Ann": 50, "Bob": 0, "Cy": 9, "Di": 33}),
    (3, "Cy", {"Ann": "5",             # 5
               "Bob": "10",            # 10
               "Di": "2 2"},           # 2+2 = 4
     {"Ann": 5, "Bob": 10, "Cy": 0, "Di": 4}),
    (4, "Di", {"Ann": "A",             # 20
               "Bob": "6 6",           # 6+6 = 12
               "Cy": "Q"},             # 10
     {"Ann": 20, "Bob": 12, "Cy": 10, "Di": 0}),
    (5, "Ann", {"Bob": "8",            # 8
                "Cy": "2C",            # 50
                "Di": "J"},            # 10
     {"Ann": 0, "Bob": 8, "Cy": 50, "Di": 10}),
    (6, "Bob", {"Ann": "3",            # 3
                "Cy": "K K",           # 10+10 = 20
                "Di": "4"},            # 4
     {"Ann": 3, "Bob": 0, "Cy": 20, "Di": 4}),
    (7, "Cy", {"Ann": "9",             # 9
               "Bob": "5 5",           # 5+5 = 10
               "Di": "A"},             # 20
     {"Ann": 9, "Bob": 10, "Cy": 0, "Di": 20}),
    (8, "Di", {"Ann": "7",             # 7
               "Bob": "J",             # 10
               "Cy": "6"},             # 6
     {"Ann": 7, "Bob": 10, "Cy": 6, "Di": 0}),
    (9, "Ann", {"Bob": "2",            # 2
                "Cy": "8 8",           # 8+8 = 16
                "Di": "JK"},           # 50
     {"Ann": 0, "Bob": 2, "Cy": 16, "Di": 50}),
    (10, "Bob", {"Ann": "10 10",       # 10+10 = 20
                 "Cy": "3",            # 3
                 "Di": "Q"},           # 10
     {"Ann": 20, "Bob": 0, "Cy": 3, "Di": 10}),
    (11, "Cy", {"Ann": "4",            # 4
                "Bob": "K",            # 10
                "Di": "5"},            # 5
     {"Ann": 4, "Bob": 10, "Cy": 0, "Di": 5}),
]
# Ann 0+50+5+20+0+3+9+7+0+20+4 = 118 · Bob 79+0+10+12+8+0+10+10+2+0+10 = 141
# Cy 10+9+0+10+50+20+0+6+16+3+0 = 124 · Di 7+33+4+0+10+4+20+0+50+10+5 = 143


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_online_11_two_of_clubs_and_thirteen_cards_in_the_last_rounds(client, app, actions):
    game_id = actions.new_game("online-11", ["Ann", "Bob", "Cy", "Di"], first_dealer="Di")
    expected_dealers = [(1, "Di"), (2, "Ann"), (3, "Bob"), (4, "Cy"), (5, "Di"), (6, "Ann"),
                        (7, "Bob"), (8, "Cy"), (9, "Di"), (10, "Ann"), (11, "Bob")]
    assert actions.dealers(game_id) == expected_dealers

    last = play_rounds(client, app, game_id, ONLINE_11_ROUNDS[:9], expected_dealers)
    assert last.headers["Location"] == f"/games/{game_id}"
    assert "Deal 13 cards" in text_of(client.get(f"/games/{game_id}"))  # round 10
    last = play_rounds(client, app, game_id, ONLINE_11_ROUNDS[9:], expected_dealers)

    text = finished_standings(client, game_id, last)
    assert "Total 118 141 124 143" in text
    assert "Ann wins" in text
    assert "with 118 points, the lowest total after 11 rounds" in text
    assert actions.game_status(game_id) == "finished"


# -- 2. buys ------------------------------------------------------------------------------------


def tap(client, game_id: int, number: int, button: str, player_id: int, **fields):
    """Tap Buy / − / Down on the round screen and land back on it."""
    response = client.post(f"/games/{game_id}/rounds/{number}/{button}",
                           data={"player": player_id, **fields}, follow_redirects=True)
    assert response.status_code == 200
    return response


def test_buys_are_counted_taken_back_and_carried_to_the_card_entry(client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)

    tap(client, game_id, 1, "buy", ids["Bob"])
    screen = tap(client, game_id, 1, "buy", ids["Bob"])
    assert "2/3" in element_text(screen, f"player-{ids['Bob']}")
    assert "0/3" in element_text(screen, f"player-{ids['Ann']}")
    assert actions.buys_of(game_id, 1) == {"Ann": 0, "Bob": 2, "Cy": 0}

    screen = tap(client, game_id, 1, "unbuy", ids["Bob"])
    assert "1/3" in element_text(screen, f"player-{ids['Bob']}")
    assert actions.buys_of(game_id, 1) == {"Ann": 0, "Bob": 1, "Cy": 0}

    # Taking back a buy nobody made is refused, next to that player.
    screen = tap(client, game_id, 1, "unbuy", ids["Cy"])
    assert "Cy has no buy to take back this round." in element_text(screen, f"player-{ids['Cy']}")
    assert actions.buys_of(game_id, 1) == {"Ann": 0, "Bob": 1, "Cy": 0}

    # The hand-over form starts with the buys counted during the hand.
    entry = client.get(score_url(game_id, 1))
    assert input_value(entry, f"p{ids['Bob']}-buys") == "1"
    assert input_value(entry, f"p{ids['Ann']}-buys") == "0"


@pytest.mark.parametrize("variant, limit", [
    ("family-7", 4), ("shanghai-rum", 2), ("shanghai-10", 3), ("online-11", 3),
])
def test_a_buy_beyond_the_rounds_limit_is_refused_with_a_message(client, variant, limit, actions):
    game_id = actions.new_game(variant, ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    for _ in range(limit):
        tap(client, game_id, 1, "buy", ids["Ann"])
    screen = tap(client, game_id, 1, "buy", ids["Ann"])
    row = element_text(screen, f"player-{ids['Ann']}")
    assert f"Ann has used all {limit} buys this round." in row
    assert f"{limit}/{limit}" in row
    assert actions.buys_of(game_id, 1)["Ann"] == limit


def test_shanghai_10_allows_3_buys_in_deals_1_to_8_and_4_in_deals_9_and_10(client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    for _ in range(3):
        tap(client, game_id, 1, "buy", ids["Bob"])
    refused = tap(client, game_id, 1, "buy", ids["Bob"])
    assert "Bob has used all 3 buys this round." in element_text(refused, f"player-{ids['Bob']}")

    for number in range(1, 9):
        actions.record(ids, game_id, number, "Ann", {"Bob": "K"})
    screen = text_of(client.get(f"/games/{game_id}"))
    assert "Round 9 of 10" in screen
    assert "4 buys of 2 cards" in screen

    for _ in range(4):
        tap(client, game_id, 9, "buy", ids["Bob"])
    assert actions.buys_of(game_id, 9)["Bob"] == 4
    refused = tap(client, game_id, 9, "buy", ids["Bob"])
    assert "Bob has used all 4 buys this round." in element_text(refused, f"player-{ids['Bob']}")
    assert actions.buys_of(game_id, 9)["Bob"] == 4
    assert actions.buys_of(game_id, 1)["Bob"] == 3  # the recorded round keeps its buys


def test_family_7_player_who_has_laid_down_may_not_buy(client, actions):
    game_id = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    tap(client, game_id, 1, "buy", ids["Bob"])
    screen = tap(client, game_id, 1, "down", ids["Bob"], laid_down="1")
    assert "Down ✓" in element_text(screen, f"player-{ids['Bob']}")
    assert "A player who has laid down may not buy." in text_of(screen)
    # Bob is not counted among those who may still buy, and his Buy looks off (a tap still says why).
    assert element_text(screen, "buys-left") == "Buys left: Ann 4, Bob laid down, Cy 4."
    buy = re.search(rf'<li id="player-{ids["Bob"]}".*?(<button[^>]*>Buy</button>)', screen.text, re.S).group(1)
    assert 'aria-disabled="true"' in buy and " disabled" not in buy.replace("aria-disabled", "")

    screen = tap(client, game_id, 1, "buy", ids["Bob"])
    row = element_text(screen, f"player-{ids['Bob']}")
    assert "Bob has laid down and may not buy any more this hand." in row
    assert "1/4" in row
    assert actions.buys_of(game_id, 1)["Bob"] == 1

    # A mistaken "down" tap is undone and buying works again.
    tap(client, game_id, 1, "down", ids["Bob"], laid_down="0")
    tap(client, game_id, 1, "buy", ids["Bob"])
    assert actions.buys_of(game_id, 1)["Bob"] == 2


def test_shanghai_10_player_who_has_laid_down_may_still_buy(client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    tap(client, game_id, 1, "down", ids["Cy"], laid_down="1")
    screen = tap(client, game_id, 1, "buy", ids["Cy"])
    row = element_text(screen, f"player-{ids['Cy']}")
    assert "may not buy" not in row
    assert "1/3" in row
    assert actions.buys_of(game_id, 1)["Cy"] == 1


def test_buys_in_a_recorded_round_are_refused_on_the_round_screen(client, actions):
    game_id = actions.new_game("online-11", ["Ann", "Bob"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K"})
    screen = tap(client, game_id, 1, "buy", ids["Bob"])
    assert "Round 1 is already scored" in element_text(screen, f"player-{ids['Bob']}")
    assert actions.buys_of(game_id, 1)["Bob"] == 0


# -- 3. edit and undo ---------------------------------------------------------------------------

# family-7, hand 1 skipped, Ann Bob Cy. Points: 2–9 = 5 · 10 J Q K = 10 · A = 15 · Joker = 20.
SHORT_GAME = [
    (2, "Ann", {"Bob": "K", "Cy": "K K"}),     # Bob 10, Cy 10+10 = 20
    (3, "Ann", {"Bob": "Q", "Cy": "Q Q"}),     # Bob 10, Cy 20
    (4, "Bob", {"Ann": "5", "Cy": "A"}),       # Ann 5, Cy 15
    (5, "Ann", {"Bob": "J", "Cy": "J J"}),     # Bob 10, Cy 20
    (6, "Cy", {"Ann": "5", "Bob": "5"}),       # Ann 5, Bob 5
    (7, "Ann", {"Bob": "10", "Cy": "10 10"}),  # Bob 10, Cy 20
]
# Ann 0+0+5+0+5+0 = 10 · Bob 10+10+0+10+5+10 = 45 · Cy 20+20+15+20+0+20 = 95


def play_short_game(client, app, upto: int = 7) -> tuple[int, dict[str, int]]:
    actions = GameActions(client, app)
    game_id = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann", skip_first_hand=True)
    ids = actions.player_ids(game_id)
    for number, went_out, hands in SHORT_GAME:
        if number > upto:
            break
        actions.record(ids, game_id, number, went_out, hands, laid_down=[went_out])
    return game_id, ids


def test_editing_a_round_of_a_finished_game_changes_totals_and_winner(client, app, actions):
    game_id, ids = play_short_game(client, app)
    before = text_of(client.get(f"/games/{game_id}/standings"))
    assert "Total 10 45 95" in before
    assert "Ann wins" in before

    # The Edit link opens round 3 with what was stored.
    edit = client.get(score_url(game_id, 3))
    assert "Edit round 3" in text_of(edit)
    assert input_value(edit, "went_out") == str(ids["Ann"])
    assert input_value(edit, f"p{ids['Bob']}-k_Q") == "1"
    assert input_value(edit, f"p{ids['Cy']}-k_Q") == "2"
    version = int(input_value(edit, "version"))
    assert version == 1

    # Really Bob went out in round 3, and Ann was caught with two jokers and an ace.
    data = round_data(ids, "Bob", {"Ann": "JK JK A",  # 20+20+15 = 55
                                   "Cy": "Q Q"},      # 10+10 = 20
                      version, laid_down=["Bob"])
    review, saved = actions.review_then_save(game_id, 3, data)
    # Review shows the new hand and the totals after round 3, as the standings show them (not the
    # game's totals after round 7): Ann 0+55 = 55, Bob 10+0 = 10, Cy 20+20 = 40.
    assert review_lines(review) == {"Ann": (55, 55), "Bob": (0, 10), "Cy": (20, 40)}
    assert saved.headers["Location"] == f"/games/{game_id}/standings"

    after = text_of(client.get(f"/games/{game_id}/standings"))
    assert "Total 65 35 95" in after
    assert "Bob wins" in after
    assert "with 35 points" in after
    assert actions.stored_points(game_id)[3] == {"Ann": 55, "Bob": 0, "Cy": 20}
    assert actions.game_status(game_id) == "finished"
    assert "Won by Bob with 35" in text_of(client.get("/"))


def test_editing_an_earlier_round_mid_game_changes_the_leader(client, app, actions):
    game_id, ids = play_short_game(client, app, upto=3)
    # After rounds 2 and 3: Ann 0, Bob 10+10 = 20, Cy 20+20 = 40.
    standings = text_of(client.get(f"/games/{game_id}/standings"))
    assert "Leading after 2 of 6: Ann (0)" in standings

    version = actions.version_of(game_id, 2)
    data = round_data(ids, "Bob", {"Ann": "A A",  # 15+15 = 30
                                   "Cy": "K K"},  # 10+10 = 20
                      version)
    actions.review_then_save(game_id, 2, data)
    # Ann 30+0 = 30, Bob 0+10 = 10, Cy 20+20 = 40
    standings = text_of(client.get(f"/games/{game_id}/standings"))
    assert "Leading after 2 of 6: Bob (10)" in standings
    assert "Total 30 10 40" in standings
    # The round screen still waits for round 4 and shows the new totals.
    screen = client.get(f"/games/{game_id}")
    assert "Round 4 of 7" in text_of(screen)
    assert "30 pts" in element_text(screen, f"player-{ids['Ann']}")
    assert "10 pts" in element_text(screen, f"player-{ids['Bob']}")


def test_undo_last_round_reopens_a_finished_game_and_the_round_is_played_again(client, app, actions):
    game_id, ids = play_short_game(client, app)
    assert actions.game_status(game_id) == "finished"

    undone = client.post(f"/games/{game_id}/undo")
    assert undone.headers["Location"] == f"/games/{game_id}"
    screen = text_of(client.get(undone.headers["Location"]))
    assert "Round 7 is back in play" in screen
    assert "Round 7 of 7" in screen
    assert actions.game_status(game_id) == "in_progress"
    with app.app_context():
        assert db.session.get(Game, game_id).finished_at is None
    assert sorted(actions.stored_points(game_id)) == [2, 3, 4, 5, 6]
    # Totals without round 7: Ann 10, Bob 45−10 = 35, Cy 95−20 = 75
    standings = text_of(client.get(f"/games/{game_id}/standings"))
    assert "Total 10 35 75" in standings
    assert "Leading after 5 of 6: Ann (10)" in standings
    home = text_of(client.get("/"))
    assert "Round 7 of 7" in home.split("Recently finished")[0]  # hand 1 skipped: rounds 2–7

    # Round 7 again, this time Cy went out: Ann "K A" = 10+15 = 25, Bob "JK" = 20.
    assert actions.version_of(game_id, 7) == 2  # saved once, undone once
    last = actions.record(ids, game_id, 7, "Cy", {"Ann": "K A", "Bob": "JK"})
    assert last.headers["Location"] == f"/games/{game_id}/standings"
    # Ann 10+25 = 35, Bob 35+20 = 55, Cy 75+0 = 75
    standings = text_of(client.get(f"/games/{game_id}/standings"))
    assert "Total 35 55 75" in standings
    assert "Ann wins" in standings
    assert actions.game_status(game_id) == "finished"


def test_undo_with_nothing_scored_says_so(client, app, actions):
    game_id = actions.new_game("online-11", ["Ann", "Bob"], first_dealer="Ann")
    before = db_snapshot(app)
    page = client.post(f"/games/{game_id}/undo", follow_redirects=True)
    assert "No round has been scored yet." in text_of(page)
    assert db_snapshot(app) == before


# -- 4. review, double submission, home page --------------------------------------------------


def test_review_and_change_save_nothing(client, app, actions):
    game_id = actions.new_game("shanghai-rum", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    before = db_snapshot(app)
    data = round_data(ids, "Ann", {"Bob": "2B K",  # 50+10 = 60
                                   "Cy": 40}, 0)
    review = client.post(score_url(game_id, 1), data={**data, "action": "review"})
    assert "Nothing is saved until you press Save." in text_of(review)
    assert review_lines(review) == {"Ann": (0, 0), "Bob": (60, 60), "Cy": (40, 40)}
    assert db_snapshot(app) == before

    change = client.post(score_url(game_id, 1), data={**data, "action": "change"})
    assert "Round 1: hand over" in text_of(change)
    assert input_value(change, f"p{ids['Bob']}-k_2B") == "1"
    assert input_value(change, f"p{ids['Cy']}-total") == "40"
    assert db_snapshot(app) == before
    assert "Round 1 of 10" in text_of(client.get(f"/games/{game_id}"))


def test_a_second_submission_of_the_same_save_stores_nothing_and_says_so(client, app, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    version = actions.version_of(game_id, 1)
    first = round_data(ids, "Ann", {"Bob": "K", "Cy": "A"}, version, bonus="")  # Bob 10, Cy 15
    saved = client.post(score_url(game_id, 1), data=first)
    assert saved.headers["Location"] == f"/games/{game_id}"
    after_first = db_snapshot(app)

    # A double tap: the very same form again.
    again = client.post(score_url(game_id, 1), data=first, follow_redirects=True)
    assert "Round 1 was saved from another tap or phone in the meantime" in text_of(again)
    assert db_snapshot(app) == after_first

    # A second phone opened the form before the save and sends other cards.
    other = round_data(ids, "Bob", {"Ann": "Q Q", "Cy": "5"}, version, bonus="")
    page = client.post(score_url(game_id, 1), data=other, follow_redirects=True)
    assert "Round 1 was saved from another tap or phone in the meantime" in text_of(page)
    assert db_snapshot(app) == after_first
    assert actions.stored_points(game_id) == {1: {"Ann": 0, "Bob": 10, "Cy": 15}}
    assert "Round 2 of 10" in text_of(client.get(f"/games/{game_id}"))


def test_home_lists_the_game_in_progress_then_among_the_finished(client, app, actions):
    assert "No game in progress" in text_of(client.get("/"))
    game_id, ids = play_short_game(client, app, upto=3)
    home = text_of(client.get("/"))
    playing, finished = home.split("Recently finished")
    assert "Shanghai Rummy (family rules, 7 hands)" in playing
    assert "Round 4 of 7" in playing  # round number 4, the 3rd of 6 hands played
    assert "Ann 0 Bob 20 Cy 40" in playing
    assert "Finished games will appear here." in finished

    for number, went_out, hands in SHORT_GAME[2:]:
        actions.record(ids, game_id, number, went_out, hands)
    home = text_of(client.get("/"))
    playing, finished = home.split("Recently finished")
    assert "No game in progress" in playing
    assert "Shanghai Rummy (family rules, 7 hands)" in finished
    assert "Won by Ann with 10" in finished


def test_play_again_starts_the_same_rules_and_seats_with_the_deal_moved_one_seat_on(client, app, actions):
    game_id = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Bob")
    ids = actions.player_ids(game_id)
    assert client.post(f"/games/{game_id}/again").status_code == 302  # not finished: refused
    with app.app_context():
        assert db.session.execute(db.select(db.func.count(Game.id))).scalar() == 1
    for number in range(1, 8):
        actions.record(ids, game_id, number, "Ann", {"Bob": "K", "Cy": "5"})
    standings = client.get(f"/games/{game_id}/standings")
    assert "Play again: same rules and seats, Cy deals first" in standings.get_data(as_text=True)

    page = client.post(f"/games/{game_id}/again", follow_redirects=True)
    assert "A new game: the same rules and seats; Cy deals first." in text_of(page)
    with app.app_context():
        old, new = db.session.execute(db.select(Game).order_by(Game.id)).scalars().all()
        assert new.status == "in_progress" and new.variant_key == old.variant_key and new.rules == old.rules
        assert [s.player_id for s in new.seats] == [s.player_id for s in old.seats]
        assert new.first_dealer == 2 and new.rounds[0].dealer == 2  # Cy, one seat on from Bob
    assert "Dealer Cy" in text_of(page)


def test_short_names_cut_to_three_letters_or_as_many_as_tell_two_apart():
    from scorekeeper.games.table import short_names

    assert short_names(["Annabel", "Annette", "Bartholomew", "Cy", "Dana", "Dimitri"]) == [
        "Anna", "Anne", "Bar", "Cy", "Dan", "Dim"]
    # The shortest beginning that tells each apart, never more: Grandma and Grandpa are Grandm and Grandp.
    assert short_names(["Grandma", "Grandpa", "Cousin Bernadette", "Cousin Bert", "Ann", "Anna"]) == [
        "Grandm", "Grandp", "Cousin Bern", "Cousin Bert", "Ann", "Anna"]


def test_a_new_game_offers_the_saved_players_in_the_last_games_seating(client, actions):
    table = ["Sam", "Mom", "Dad", "Lee", "Grandma", "Grandpa"]
    actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    actions.new_game("family-7", table, first_dealer="Sam")
    page = client.get("/games/new")
    offered = re.findall(r'<input type="checkbox" name="player" value="(\d+)"[^>]*>\s*<span>([^<]*)</span>', page.text)
    # The last game's table clockwise as it sat, then everyone else by name: no ▲ taps to restore it.
    assert [name for _, name in offered] == [*table, "Ann", "Bob", "Cy"]
    ticked = client.post("/games/new", data={"variant": "family-7", "player": [pid for pid, _ in offered[:6]]})
    seats = [value.partition(":")[2] for value in input_values(ticked, "seat")]
    names = {pid: name for pid, name in offered}
    assert [names[pid] for pid in seats] == table
