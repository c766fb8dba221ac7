"""Wrong, impossible and tampered input: each is refused with a message a player can act on,
next to the field it is about, with what was typed still in the form, and nothing written.

"Nothing written" is checked by comparing every row of every table before and after.
"""

from __future__ import annotations

import pytest

from scorekeeper.extensions import db
from scorekeeper.models import GameRound, Result
from tests.databases import db_snapshot, make_app, strict_client
from tests.pages import element_text, input_value, input_values, inputs, round_data, score_url, text_of, texts_by_class


@pytest.fixture
def game_variant():
    """The ``game`` fixture plays shanghai-10: Ann, Bob and Cy at 2 decks and 1 joker."""
    return "shanghai-10"


def post_round(client, game_id, number, data):
    """Press 'Check points' with ``data``; a refusal re-renders the card entry (200)."""
    return client.post(score_url(game_id, number), data={**data, "action": "review"})


def assert_form_refused(response, number: int = 1):
    assert response.status_code == 200
    text = text_of(response)
    assert f"Check round {number}" not in text, "the review page was shown for bad input"
    assert "hand over" in text or f"Edit round {number}" in text


def field(pid: int, name: str) -> str:
    return f"p{pid}-{name}"


def fill(value, names: dict):
    """Put the game's ids into a URL or form written with ``{game}``, ``{bob}``… placeholders."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {fill(k, names): fill(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, names) for v in value]
    return value.format(**names)


def hand_cards(n: int) -> str:
    """``n`` plain cards, never more than two of a rank (always possible with 2 decks)."""
    ranks = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    return " ".join(ranks[i % len(ranks)] for i in range(n))


# -- card entry ---------------------------------------------------------------------------------


def test_no_one_went_out(client, app, game):
    game_id, ids = game
    before = db_snapshot(app)
    page = post_round(client, game_id, 1, round_data(ids, None, {"Bob": "K K", "Cy": 20}, 0))
    assert_form_refused(page)
    assert "Choose who went out." in element_text(page, "went_out-errors")
    assert input_value(page, field(ids["Bob"], "k_K")) == "2"
    assert input_value(page, field(ids["Cy"], "total")) == "20"
    assert db_snapshot(app) == before


def test_a_player_who_did_not_go_out_needs_cards_or_a_total(client, app, game):
    game_id, ids = game
    before = db_snapshot(app)
    page = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": "K A"}, 0))
    assert_form_refused(page)
    assert "Tap the cards Cy holds, or enter a total." in element_text(page, f"hand-{ids['Cy']}")
    assert "Tap the cards" not in element_text(page, f"hand-{ids['Bob']}")
    assert input_value(page, "went_out") == str(ids["Ann"])
    assert input_value(page, field(ids["Bob"], "k_K")) == "1"
    assert input_value(page, field(ids["Bob"], "k_A")) == "1"
    assert db_snapshot(app) == before


def test_cards_and_a_total_for_one_player(client, app, game):
    game_id, ids = game
    before = db_snapshot(app)
    page = post_round(client, game_id, 1, round_data(
        ids, "Ann", {"Bob": {"k_K": 2, "total": 20}, "Cy": "5"}, 0))
    assert_form_refused(page)
    assert "Enter the cards or a total, not both." in element_text(page, f"hand-{ids['Bob']}")
    assert input_value(page, field(ids["Bob"], "k_K")) == "2"
    assert input_value(page, field(ids["Bob"], "total")) == "20"
    assert db_snapshot(app) == before


@pytest.mark.parametrize("left", ["Q", 10], ids=["cards", "total"])
def test_cards_for_the_player_who_went_out(client, app, game, left):
    game_id, ids = game
    before = db_snapshot(app)
    page = post_round(client, game_id, 1, round_data(ids, "Ann", {"Ann": left, "Bob": "K", "Cy": "5"}, 0))
    assert_form_refused(page)
    assert "Ann went out, so no cards are left: clear them." in element_text(page, f"hand-{ids['Ann']}")
    kept = input_value(page, field(ids["Ann"], "k_Q" if left == "Q" else "total"))
    assert kept == ("1" if left == "Q" else "10")
    assert db_snapshot(app) == before


def test_negative_counts(client, app, game):
    game_id, ids = game
    before = db_snapshot(app)
    page = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": {"k_K": -2, "k_5": 1}, "Cy": "5"}, 0))
    assert_form_refused(page)
    assert "Cannot be negative." in element_text(page, field(ids["Bob"], "k_K-errors"))
    assert input_value(page, field(ids["Bob"], "k_K")) == "-2"
    assert input_value(page, field(ids["Bob"], "k_5")) == "1"
    assert db_snapshot(app) == before


def test_non_numeric_count_says_to_type_a_whole_number(client, app, game):
    game_id, ids = game
    before = db_snapshot(app)
    page = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": {"k_K": "abc"}, "Cy": "5"}, 0))
    assert_form_refused(page)
    message = element_text(page, field(ids["Bob"], "k_K-errors"))
    assert "Enter a whole number." in message
    assert input_value(page, field(ids["Bob"], "k_K")) == "abc"
    assert db_snapshot(app) == before
    # "abc" is not a negative number: telling the player it "cannot be negative" is wrong.
    assert "Cannot be negative" not in message


@pytest.mark.parametrize("name", ["total", "buys"])
def test_non_numeric_total_or_buys(client, app, game, name):
    game_id, ids = game
    before = db_snapshot(app)
    hands = {"Bob": {name: "ten"}, "Cy": "5"}
    if name == "buys":
        hands["Bob"]["k_K"] = 1
    page = post_round(client, game_id, 1, round_data(ids, "Ann", hands, 0))
    assert_form_refused(page)
    assert "Enter a whole number." in element_text(page, field(ids["Bob"], f"{name}-errors"))
    assert input_value(page, field(ids["Bob"], name)) == "ten"
    assert db_snapshot(app) == before


# Round 1 of each preset: dealt + buy limit × cards per buy.
@pytest.mark.parametrize("variant, most, limit, sum_text", [
    ("family-7", 19, 4, "11 dealt + 4 buys × 2 = 19"),
    ("shanghai-rum", 17, 2, "11 dealt + 2 buys × 3 = 17"),
    ("shanghai-10", 17, 3, "11 dealt + 3 buys × 2 = 17"),
    ("online-11", 17, 3, "11 dealt + 3 buys × 2 = 17"),
])
def test_a_hand_larger_than_dealt_plus_every_buy(client, app, variant, most, limit, sum_text, actions):
    game_id = actions.new_game(variant, ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    before = db_snapshot(app)
    page = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": hand_cards(most + 1), "Cy": "5"}, 0))
    assert_form_refused(page)
    problem = f"{most + 1} cards is more than anyone can hold in round 1 ({sum_text})"
    assert problem in element_text(page, f"hand-{ids['Bob']}")
    assert input_value(page, field(ids["Bob"], "k_3")) == "2"
    assert db_snapshot(app) == before

    # Exactly the most is possible for a player who made every buy: it goes to the review.
    review = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": hand_cards(most), "Cy": "5"}, 0,
                                                       buys={"Bob": limit}))
    assert "Check round 1" in text_of(review)
    assert db_snapshot(app) == before


def test_a_hand_larger_than_dealt_plus_the_players_own_buys(client, app, actions):
    """family-7 round 1: 11 dealt, a buy brings 2 cards. With one buy Bob can hold 13, not 14."""
    game_id = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    before = db_snapshot(app)
    page = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": hand_cards(14), "Cy": hand_cards(12)}, 0,
                                                     buys={"Bob": 1}))
    assert_form_refused(page)
    assert "14 cards is more than Bob could hold with 1 buy (11 dealt + 1 buy × 2 = 13)" in element_text(
        page, f"hand-{ids['Bob']}")
    assert "12 cards is more than Cy could hold with 0 buys (11 dealt + 0 buys × 2 = 11)" in element_text(
        page, f"hand-{ids['Cy']}")
    assert db_snapshot(app) == before

    review = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": hand_cards(13), "Cy": hand_cards(11)}, 0,
                                                       buys={"Bob": 1}))
    assert "Check round 1" in text_of(review)
    assert db_snapshot(app) == before


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_online_11_rounds_10_and_11_allow_19_cards_not_20(client, app, actions):
    game_id = actions.new_game("online-11", ["Ann", "Bob"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    for number in range(1, 10):
        actions.record(ids, game_id, number, "Ann", {"Bob": "K"})
    before = db_snapshot(app)
    page = post_round(client, game_id, 10, round_data(ids, "Ann", {"Bob": hand_cards(20)}, 0))
    assert_form_refused(page, 10)
    assert ("20 cards is more than anyone can hold in round 10 (13 dealt + 3 buys × 2 = 19)"
            in element_text(page, f"hand-{ids['Bob']}"))
    review = post_round(client, game_id, 10, round_data(ids, "Ann", {"Bob": hand_cards(19)}, 0, buys={"Bob": 3}))
    assert "Check round 10" in text_of(review)
    assert db_snapshot(app) == before


def test_a_total_larger_than_a_full_hand_can_be_worth(client, app, game):
    game_id, ids = game
    before = db_snapshot(app)
    # shanghai-10 round 1: at most 17 cards × 15 points (A or joker) = 255
    page = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": 256, "Cy": "5"}, 0))
    assert_form_refused(page)
    assert "no more than a full hand can be worth" in element_text(page, field(ids["Bob"], "total-errors"))
    assert input_value(page, field(ids["Bob"], "total")) == "256"
    assert db_snapshot(app) == before
    assert "Check round 1" in text_of(post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": 255, "Cy": "5"}, 0)))


def test_more_jokers_than_in_play_for_one_player_and_across_players(client, app, game):
    game_id, ids = game
    before = db_snapshot(app)
    # shanghai-10 with 3 players: 2 decks + 1 joker. Bob 2 jokers, Cy 3: five in all.
    page = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": "JK JK", "Cy": "JK JK JK"}, 0))
    assert_form_refused(page)
    assert "Joker: 2 entered, but the decks in play hold only 1" in element_text(page, f"hand-{ids['Bob']}")
    assert "Joker: 3 entered, but the decks in play hold only 1" in element_text(page, f"hand-{ids['Cy']}")
    assert "across all players" not in text_of(page)  # said once, beside each hand, not again above
    assert input_value(page, field(ids["Bob"], "k_JK")) == "2"
    assert input_value(page, field(ids["Cy"], "k_JK")) == "3"
    assert db_snapshot(app) == before

    # One joker each is fine per player, but there is only one joker on the table.
    page = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": "JK", "Cy": "JK K"}, 0))
    assert_form_refused(page)
    table = " ".join(texts_by_class(page, "block"))
    assert "Joker: 2 entered across all players, but the decks in play hold only 1" in table
    assert input_value(page, field(ids["Cy"], "k_K")) == "1"
    assert db_snapshot(app) == before


@pytest.mark.parametrize("variant, players, hands, problem", [
    # 2 decks of 54: 4 black twos in play.
    ("shanghai-rum", 3, {"Bob": "2B 2B 2B", "Cy": "2B 2B"}, "5 entered across all players, but the decks in play hold only 4"),
    # 2 decks: two 2♣ in play.
    ("online-11", 3, {"Bob": "2C 2C 2C", "Cy": "5"}, "3 entered, but the decks in play hold only 2"),
    # family-7 with 3 players: 2 decks, eight kings.
    ("family-7", 3, {"Bob": "K K K K K", "Cy": "K K K K"}, "K: 9 entered across all players, but the decks in play hold only 8"),
])
def test_more_copies_of_a_card_than_the_decks_hold(client, app, variant, players, hands, problem, actions):
    game_id = actions.new_game(variant, ["Ann", "Bob", "Cy"][:players], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    before = db_snapshot(app)
    page = post_round(client, game_id, 1, round_data(ids, "Ann", hands, 0))
    assert_form_refused(page)
    assert problem in text_of(page)
    assert db_snapshot(app) == before


@pytest.mark.parametrize("buys", ["4", "-1"])
def test_buys_field_outside_the_rounds_limit(client, app, game, buys):
    game_id, ids = game
    before = db_snapshot(app)
    page = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": "K", "Cy": "5"}, 0, buys={"Bob": buys}))
    assert_form_refused(page)
    assert "Between 0 and 3 buys." in element_text(page, field(ids["Bob"], "buys-errors"))
    assert input_value(page, field(ids["Bob"], "buys")) == buys
    assert db_snapshot(app) == before


def test_unknown_bonus_is_refused(client, app, game):
    game_id, ids = game
    before = db_snapshot(app)
    page = post_round(client, game_id, 1, round_data(ids, "Ann", {"Bob": "K", "Cy": "5"}, 0, bonus="triple"))
    assert_form_refused(page)
    assert element_text(page, "bonus-errors")
    assert db_snapshot(app) == before


def test_stale_edit_is_refused_and_the_stored_result_is_shown(client, app, game, actions):
    game_id, ids = game
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})  # Bob 10, Cy 5
    phone_a = actions.version_of(game_id, 1)
    phone_b = actions.version_of(game_id, 1)
    assert phone_a == phone_b == 1
    # Phone B corrects the round first: Cy went out, Ann "A" = 15, Bob "K" = 10.
    client.post(score_url(game_id, 1), data=round_data(ids, "Cy", {"Ann": "A", "Bob": "K"}, phone_b))
    after_b = db_snapshot(app)

    # Phone A, still on version 1, saves its own correction.
    page = client.post(score_url(game_id, 1),
                       data=round_data(ids, "Bob", {"Ann": "Q", "Cy": "Q"}, phone_a), follow_redirects=True)
    text = text_of(page)
    assert "Round 1 was saved from another tap or phone in the meantime; this is the result that is stored." in text
    assert "Total 15 10 0" in text  # the standings show what phone B stored
    assert db_snapshot(app) == after_b
    assert actions.stored_points(game_id) == {1: {"Ann": 15, "Bob": 10, "Cy": 0}}


@pytest.mark.parametrize("version", ["7", "abc", ""])
def test_wrong_version_for_a_fresh_round_stores_nothing(client, app, game, version):
    game_id, ids = game
    before = db_snapshot(app)
    page = client.post(score_url(game_id, 1), data=round_data(ids, "Ann", {"Bob": "K", "Cy": "5"}, version),
                       follow_redirects=True)
    assert "Round 1 changed on another phone while you were entering cards, so nothing was saved yet." in text_of(page)
    assert db_snapshot(app) == before
    # The typed cards are still in the form, now carrying the stored version.
    assert input_value(page, f"p{ids['Bob']}-k_K") == "1"
    assert input_value(page, "version") == "0"
    assert "Round 1 of 10" in text_of(client.get(f"/games/{game_id}"))


def test_entering_cards_for_a_round_that_is_not_the_current_one(client, app, game):
    game_id, ids = game
    before = db_snapshot(app)
    opened = client.get(score_url(game_id, 3))
    assert opened.headers["Location"] == f"/games/{game_id}"
    assert "Round 1 comes first." in text_of(client.get(opened.headers["Location"]))

    saved = client.post(score_url(game_id, 3), data=round_data(ids, "Ann", {"Bob": "K", "Cy": "5"}, 0),
                        follow_redirects=True)
    assert "Round 1 comes first." in text_of(saved)
    assert db_snapshot(app) == before

    # A round this game does not have at all.
    assert client.get(score_url(game_id, 11)).status_code == 404


@pytest.mark.parametrize("button, fields", [("buy", {}), ("down", {"laid_down": "1"})])
def test_buy_or_laid_down_in_a_round_that_is_not_being_played(client, app, game, button, fields):
    """Round 3 has not started: a tampered or stale form must not mark it."""
    game_id, ids = game
    before = db_snapshot(app)
    page = client.post(f"/games/{game_id}/rounds/3/{button}", data={"player": ids["Bob"], **fields},
                       follow_redirects=True)
    assert page.status_code == 200
    assert db_snapshot(app) == before, f"a {button} was stored for round 3 while round 1 is being played"
    messages = texts_by_class(page, "row-message") + texts_by_class(page, "flash-error")
    assert messages, "the refusal should be explained on the round screen"


def test_buy_for_a_player_who_is_not_in_the_game(client, app, game, actions):
    game_id, ids = game
    other_game = actions.new_game("online-11", ["Di", "Eve"], first_dealer="Di")
    stranger = actions.player_ids(other_game)["Di"]
    before = db_snapshot(app)
    page = client.post(f"/games/{game_id}/rounds/1/buy", data={"player": stranger}, follow_redirects=True)
    assert page.status_code == 200
    assert db_snapshot(app) == before
    assert "That player is not in this game." in text_of(page), "the refusal is flashed but never shown"


def test_buy_without_a_player(client, app, game):
    game_id, _ = game
    before = db_snapshot(app)
    page = client.post(f"/games/{game_id}/rounds/1/buy", data={"player": "abc"}, follow_redirects=True)
    assert "That player is not in this game." in text_of(page)
    assert db_snapshot(app) == before


# -- new game -------------------------------------------------------------------------------


@pytest.fixture
def empty(client, app):
    """The app after its first page: the family exists, no players, no games."""
    client.get("/games/new")
    return db_snapshot(app)


@pytest.mark.parametrize("variant, count, allowed", [
    ("family-7", 2, "3–8"), ("family-7", 9, "3–8"),
    ("shanghai-rum", 2, "3–8"), ("shanghai-rum", 9, "3–8"),
    ("shanghai-10", 1, "2–8"), ("shanghai-10", 9, "2–8"),
    ("online-11", 1, "2–8"), ("online-11", 9, "2–8"),
])
def test_player_count_outside_the_presets_range(client, app, empty, variant, count, allowed):
    names = ", ".join(["Ann", "Bob", "Cy", "Di", "Eve", "Flo", "Gus", "Hal", "Ida"][:count])
    page = client.post("/games/new", data={"variant": variant, "new_players": names})
    assert page.status_code == 200
    assert f"is for {allowed} players; {count} chosen." in element_text(page, "new_players-errors")
    assert input_value(page, "new_players") == names
    assert input_value(page, "variant") == variant
    assert db_snapshot(app) == empty


@pytest.mark.parametrize("variant, count", [("family-7", 3), ("family-7", 8), ("shanghai-10", 2), ("online-11", 8)])
def test_player_count_at_the_edges_of_the_range_is_fine(client, variant, count):
    names = ", ".join(["Ann", "Bob", "Cy", "Di", "Eve", "Flo", "Gus", "Hal"][:count])
    page = client.post("/games/new", data={"variant": variant, "new_players": names})
    assert "Clockwise around the table" in text_of(page)
    assert len(input_values(page, "seat")) == count


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_duplicate_names(client, app, empty):
    page = client.post("/games/new", data={"variant": "family-7", "new_players": "Ann, Bob, ann"})
    assert "ann is in the game twice." in element_text(page, "new_players-errors")
    assert input_value(page, "new_players") == "Ann, Bob, ann"
    assert db_snapshot(app) == empty


def test_a_new_name_that_repeats_a_chosen_saved_player(client, app, actions):
    actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(1)
    before = db_snapshot(app)
    page = client.post("/games/new", data={"variant": "family-7", "player": [ids["Ann"], ids["Bob"]],
                                           "new_players": "Cy, ANN"})
    assert "ANN is in the game twice." in element_text(page, "new_players-errors")
    assert input_value(page, "new_players") == "Cy, ANN"
    chosen = {f["value"] for f in inputs(page) if f.get("name") == "player" and "checked" in f}
    assert chosen == {str(ids["Ann"]), str(ids["Bob"])}
    assert db_snapshot(app) == before


def test_over_long_names(client, app, empty):
    long_name = "Bartholomew-Maximilian Featherstonehaughs"  # 41 letters
    assert len(long_name) == 41
    typed = f"Ann, Bob, {long_name}"
    page = client.post("/games/new", data={"variant": "family-7", "new_players": typed})
    assert "is longer than 40 letters." in element_text(page, "new_players-errors")
    assert input_value(page, "new_players") == typed
    assert db_snapshot(app) == empty
    ok = client.post("/games/new", data={"variant": "family-7", "new_players": f"Ann, Bob, {long_name[:40]}"})
    assert len(input_values(ok, "seat")) == 3


@pytest.mark.parametrize("variant", ["poker", "", "FAMILY-7"])
def test_unknown_preset(client, app, empty, variant):
    page = client.post("/games/new", data={"variant": variant, "new_players": "Ann, Bob, Cy"})
    assert page.status_code == 200
    assert element_text(page, "variant-errors")  # "Not a valid choice." / "Choose the rules you play."
    assert input_values(page, "seat") == []  # still on step 1, no seating step
    assert input_value(page, "new_players") == "Ann, Bob, Cy"
    assert db_snapshot(app) == empty


@pytest.mark.parametrize("seats", [
    ["p:999", "n:Bob", "n:Cy"],            # a saved player that does not exist
    ["x:Ann", "n:Bob", "n:Cy"],            # an unknown kind of seat
    ["n:", "n:Bob", "n:Cy"],               # an empty name
    ["n: Ann", "n:Bob", "n:Cy"],           # a name with spaces around it
    ["n:Ann", "n:Bob", "n:ann"],           # the same person twice
    ["n:" + "x" * 41, "n:Bob", "n:Cy"],    # a name over 40 letters
    ["n:Ann", "n:Bob"],                    # too few for family-7
    [f"n:P{i}" for i in range(9)],         # too many for family-7
    [],                                    # no seats at all
], ids=["missing-id", "bad-kind", "empty", "spaces", "twice", "long", "too-few", "too-many", "none"])
def test_seating_with_tampered_seats_starts_nothing(client, app, empty, seats):
    page = client.post("/games/new/seating", data={"variant": "family-7", "seat": seats, "first_dealer": "random"},
                       follow_redirects=True)
    assert page.status_code == 200
    text = text_of(page)
    assert "New game" in text
    assert "please start again" in text or "is for 3–8 players" in text
    assert db_snapshot(app) == empty


def test_seating_with_an_unknown_preset_starts_nothing(client, app, empty):
    page = client.post("/games/new/seating", data={"variant": "poker", "seat": ["n:Ann", "n:Bob", "n:Cy"]},
                       follow_redirects=True)
    assert "please start again" in text_of(page)
    assert db_snapshot(app) == empty


def test_seating_with_a_first_dealer_who_is_not_at_the_table(client, app, empty):
    seats = ["n:Cy", "n:Ann", "n:Bob"]
    page = client.post("/games/new/seating", data={"variant": "family-7", "seat": seats, "first_dealer": "n:Zed"})
    assert page.status_code == 200
    assert "Choose the first dealer from the players." in element_text(page, "first_dealer-errors")
    assert input_values(page, "seat") == seats  # the seating order is kept
    assert db_snapshot(app) == empty


def test_skip_first_hand_is_ignored_where_the_preset_has_no_such_option(client, app):
    page = client.post("/games/new/seating", data={"variant": "shanghai-10", "seat": ["n:Ann", "n:Bob"],
                                                   "first_dealer": "n:Ann", "skip_first_hand": "y"})
    assert page.status_code == 302
    assert "Round 1 of 10" in text_of(client.get(page.headers["Location"]))


# -- pages that do not exist, CSRF ----------------------------------------------------------


@pytest.mark.parametrize("method, url", [
    ("GET", "/games/999"),
    ("GET", "/games/999/standings"),
    ("GET", "/games/999/rounds/1/score"),
    ("POST", "/games/999/rounds/1/score"),
    ("POST", "/games/999/rounds/1/buy"),
    ("POST", "/games/999/rounds/1/unbuy"),
    ("POST", "/games/999/rounds/1/down"),
    ("POST", "/games/999/undo"),
    ("GET", "/games/99999999999999999999"),  # beyond a 64-bit integer
    ("GET", "/games/99999999999999999999/standings"),
])
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_unknown_game_is_a_friendly_404(client, app, method, url):
    client.get("/")
    before = db_snapshot(app)
    page = client.open(url, method=method, data={"player": "1"})
    assert page.status_code == 404
    assert "There is nothing here." in text_of(page)
    assert db_snapshot(app) == before


@pytest.fixture
def csrf_app(app):
    """A second app on the same database, with CSRF protection on as in production."""
    return make_app(database_url=app.config["SQLALCHEMY_DATABASE_URI"], WTF_CSRF_ENABLED=True)


@pytest.mark.parametrize("url, data", [
    ("/games/new", {"variant": "family-7", "new_players": "Ann, Bob, Cy"}),
    ("/games/new/seating", {"variant": "family-7", "seat": ["n:Di", "n:Eve", "n:Flo"], "first_dealer": "random"}),
    ("/games/{game}/rounds/1/buy", {"player": "{bob}"}),
    ("/games/{game}/rounds/1/down", {"player": "{bob}", "laid_down": "1"}),
    ("/games/{game}/rounds/1/score", {"version": "0", "went_out": "{bob}", "p{ann}-total": "10",
                                      "p{cy}-total": "5", "action": "save"}),
    ("/games/{game}/undo", {}),
], ids=["new", "seating", "buy", "down", "score", "undo"])
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_post_without_csrf_token_gets_a_friendly_400_and_writes_nothing(app, game, csrf_app, url, data, actions):
    game_id, ids = game
    names = {"game": game_id, "ann": ids["Ann"], "bob": ids["Bob"], "cy": ids["Cy"]}
    data = fill(data, names)
    if "undo" in url:  # something to undo
        actions.record(ids, game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})
    before = db_snapshot(app)

    page = strict_client(csrf_app).post(fill(url, names), data=data)
    assert page.status_code == 400
    assert "This page was open for too long or came from elsewhere. Go back, reload it and try again." in text_of(page)
    assert db_snapshot(app) == before


def test_with_csrf_on_the_real_form_token_is_accepted(csrf_app):
    phone = strict_client(csrf_app)
    form = phone.get("/games/new")
    token = input_value(form, "csrf_token")
    assert token
    page = phone.post("/games/new", data={"csrf_token": token, "variant": "family-7", "new_players": "Ann, Bob, Cy"})
    assert page.status_code == 200
    assert input_values(page, "seat") == ["n:Ann", "n:Bob", "n:Cy"]


# -- sweep: odd requests never end in a server error -----------------------------------------

BIG = "99999999999999999999"

SWEEP = [
    ("GET", "/", None),
    ("GET", "/games/new", None),
    ("POST", "/games/new", {}),
    ("POST", "/games/new", {"variant": "family-7", "new_players": ",,, , ,"}),
    ("POST", "/games/new", {"variant": "family-7", "player": ["abc", "-1", BIG], "new_players": "Ann, Bob, Cy"}),
    ("POST", "/games/new", {"variant": "family-7", "player": "²", "new_players": "Ann, Bob, Cy"}),  # a Unicode digit
    ("POST", "/games/new", {"variant": ["family-7", "online-11"], "new_players": "Ann, Bob, Cy"}),
    ("POST", "/games/new", {"variant": "family-7", "new_players": "<b>Ann</b>, Bob\x00, Cy"}),
    ("POST", "/games/new/seating", {}),
    ("POST", "/games/new/seating", {"variant": "family-7", "seat": ["p:²", "n:Bob", "n:Cy"]}),
    ("POST", "/games/new/seating", {"variant": "family-7", "seat": [f"p:{BIG}", "n:Bob", "n:Cy"]}),
    ("POST", "/games/new/seating", {"variant": "family-7", "seat": ["n:Ann", "n:Bob", "n:Cy"], "move": "up:²"}),
    ("POST", "/games/new/seating", {"variant": "family-7", "seat": ["n:Ann", "n:Bob", "n:Cy"], "move": "sideways"}),
    ("POST", "/games/new/seating", {"variant": "family-7", "seat": ["n:Ann", "n:Bob", "n:Cy"], "move": f"down:{BIG}"}),
    ("GET", "/games/new/seating", None),
    ("GET", f"/games/{BIG}", None),
    ("POST", f"/games/{BIG}/undo", {}),
    ("GET", "/games/{game}/rounds/" + BIG + "/score", None),
    ("POST", "/games/{game}/rounds/1/buy", {}),
    ("POST", "/games/{game}/rounds/1/buy", {"player": BIG}),
    ("POST", "/games/{game}/rounds/1/unbuy", {"player": "-1"}),
    ("POST", "/games/{game}/rounds/1/down", {"player": "{bob}", "laid_down": "maybe"}),
    ("POST", f"/games/{{game}}/rounds/{BIG}/buy", {"player": "{bob}"}),
    ("GET", "/games/{game}/rounds/1/buy", None),
    ("POST", "/games/{game}/rounds/1/score", {}),
    ("POST", "/games/{game}/rounds/1/score", {"action": "save"}),
    ("POST", "/games/{game}/rounds/1/score", {"action": "save", "version": BIG, "went_out": "{ann}",
                                              "p{bob}-total": "10", "p{cy}-total": "5"}),
    ("POST", "/games/{game}/rounds/1/score", {"action": "save", "version": "-5", "went_out": "{ann}",
                                              "p{bob}-total": "10", "p{cy}-total": "5"}),
    ("POST", "/games/{game}/rounds/1/score", {"action": "review", "went_out": "999", "p{bob}-k_K": BIG}),
    ("POST", "/games/{game}/rounds/1/score", {"action": "review", "went_out": "{ann}", "p{bob}-total": BIG,
                                              "p{cy}-buys": BIG, "p{cy}-k_XX": "3"}),
    ("POST", "/games/{game}/rounds/1/score", {"action": "review", "went_out": "{ann}", "p{bob}-k_K": "1.5",
                                              "p{cy}-k_K": " 2 "}),
    ("POST", "/games/{game}/rounds/1/score", {"action": "nonsense", "went_out": "{ann}", "p{bob}-k_K": "1",
                                              "p{cy}-k_A": "1"}),
    ("POST", "/games/{game}/undo", {}),
    ("GET", "/games/{game}/undo", None),
    ("GET", "/games/{game}/standings", None),
]


@pytest.mark.parametrize("method, url, data", SWEEP,
                         ids=[f"{i:02d}-{m}-{u.split('/')[-1] or 'home'}" for i, (m, u, _) in enumerate(SWEEP)])
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_no_request_ends_in_a_server_error(client, app, game, method, url, data):
    game_id, ids = game
    names = {"game": game_id, "ann": ids["Ann"], "bob": ids["Bob"], "cy": ids["Cy"]}
    page = client.open(fill(url, names), method=method, data=fill(data, names))
    assert page.status_code < 500
    if page.status_code >= 400:
        assert "Back to your games" in text_of(page)  # the friendly error page, not a bare one


def test_a_buy_on_another_phone_while_cards_are_entered_is_not_overwritten(client, app, game, actions):
    game_id, ids = game
    opened = actions.version_of(game_id, 1)  # phone A opens card entry: nobody has bought
    client.post(f"/games/{game_id}/rounds/1/buy", data={"player": ids["Cy"]})  # phone B: Cy buys
    before = db_snapshot(app)

    page = client.post(score_url(game_id, 1), data=round_data(ids, "Ann", {"Bob": "K", "Cy": "5 5"}, opened))
    assert page.status_code == 200
    assert "Round 1 changed on another phone while you were entering cards, so nothing was saved yet." in text_of(page)
    assert db_snapshot(app) == before
    # Phone A's typed cards stay; Cy's buy from phone B is now in the form, with the new version.
    assert input_value(page, field(ids["Cy"], "k_5")) == "2"
    assert input_value(page, field(ids["Cy"], "buys")) == "1"
    resent = {i["name"]: i["value"] for i in inputs(page)
              if i.get("name") and i.get("type") not in ("radio", "checkbox", "submit")}
    resent.update(went_out=str(ids["Ann"]), action="save")
    client.post(score_url(game_id, 1), data=resent)
    assert actions.stored_points(game_id) == {1: {"Ann": 0, "Bob": 10, "Cy": 10}}
    with app.app_context():
        buys = db.session.execute(
            db.select(Result.buys).join(Result.round).where(Result.player_id == ids["Cy"], GameRound.number == 1)
        ).scalar_one()
    assert buys == 1


def test_two_phones_taking_back_the_same_hand_take_it_back_once(client, game, actions):
    game_id, ids = game
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})
    actions.record(ids, game_id, 2, "Bob", {"Ann": "K", "Cy": "5"})
    for _ in range(2):  # both phones saw round 2 as the last one
        page = client.post(f"/games/{game_id}/undo", data={"number": "2"}, follow_redirects=True)
    assert "Round 2 was already taken back." in text_of(page)
    assert sorted(actions.stored_points(game_id)) == [1]
