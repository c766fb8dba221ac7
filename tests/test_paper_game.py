"""A past game typed in from a paper score sheet: dating a new game, the grid of every round's
totals, and what the finished game is afterwards (history, export, score sheet, statistics and
ratings as if it had been played in its place).

Points are worked out by hand in the comments; family-7 counts every card a multiple of 5
(2–9 = 5, 10 J Q K = 10, A = 15, Joker = 20), shanghai-10 gives −25 or −50 for going out blind.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import date, datetime, timedelta

import pytest
import sqlalchemy as sa

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.games import paper as sheet
from scorekeeper.games import service
from scorekeeper.games.hands import record_round
from scorekeeper.history import kept
from scorekeeper.models import Game, GameRound, Player, Rating, Result, RoundChange, utcnow
from scorekeeper.rules import paper as rules_paper
from scorekeeper.rules import scoring
from tests.actions import GameActions
from tests.databases import db_snapshot, make_app, strict_client
from tests.pages import element_text, input_value, input_values, inputs, round_data, score_url, text_of
from tests.random_games import our_family
from tests.test_printing import pdf_text

DAY = date(2024, 3, 9)
DAY_SHOWN = "Sat 09 Mar 2024"
FOUR = ["Ann", "Bob", "Cy", "Di"]

# family-7, seats Ann Bob Cy Di. "" is a box left empty; OUT below says whose "out" is tapped.
FAMILY_7_SHEET = {
    1: {"Ann": "0", "Bob": "25", "Cy": "50", "Di": "10"},
    2: {"Ann": "10", "Bob": "", "Cy": "40", "Di": "45"},    # Bob tapped "out", his box empty: 0
    3: {"Ann": "30", "Bob": "15", "Cy": "0", "Di": "20"},
    4: {"Ann": "5", "Bob": "10", "Cy": "35", "Di": "0"},
    5: {"Ann": "0", "Bob": "10", "Cy": "20", "Di": "5"},
    6: {"Ann": "20", "Bob": "0", "Cy": "5", "Di": "25"},    # Bob tapped and his 0 written too
    7: {"Ann": "15", "Bob": "5", "Cy": "0", "Di": "60"},
}
FAMILY_7_OUT = {2: "Bob", 6: "Bob"}
# Ann 0+10+30+5+0+20+15 = 80 · Bob 25+0+15+10+10+0+5 = 65 · Cy 50+40+0+35+20+5+0 = 150
# Di 10+45+20+0+5+25+60 = 165: Bob wins with 65.


def seating_page(client, variant: str, names: list[str]):
    step1 = client.post("/games/new", data={"variant": variant, "new_players": ", ".join(names)})
    assert step1.status_code == 200, text_of(step1)
    return step1


def seating_data(step1, variant: str, **fields) -> dict:
    return {"variant": variant, "seat": input_values(step1, "seat"), "first_dealer": "random", **fields}


def start_paper_game(client, variant: str, names: list[str], day: date = DAY) -> int:
    """Through both new-game pages, dated ``day``, with "Type scores from paper": the game's id."""
    step1 = seating_page(client, variant, names)
    response = client.post("/games/new/seating", data=seating_data(step1, variant, played_on=day.isoformat(),
                                                                    paper="1"))
    assert response.status_code == 302, text_of(response)
    game_id = int(response.headers["Location"].split("/")[2])
    assert response.headers["Location"] == f"/games/{game_id}/paper"
    return game_id


def grid_data(page, ids: dict[str, int], rows: dict, out: dict | None = None) -> dict:
    """The grid as a phone sends it: the page's hidden fields, ``rows`` typed, ``out`` tapped."""
    data = {f["name"]: f.get("value", "") for f in inputs(page) if f.get("type") == "hidden"}
    for number, cells in rows.items():
        for name, typed in cells.items():
            data[f"r{number}-p{ids[name]}"] = typed
    for number, name in (out or {}).items():
        data[f"out-{number}"] = str(ids[name]) if name in ids else name
    return data


def fill_grid(client, app, game_id: int, rows: dict, out: dict | None = None):
    actions = GameActions(app=app)
    page = client.get(f"/games/{game_id}/paper")
    assert page.status_code == 200, text_of(page)
    return client.post(f"/games/{game_id}/paper", data=grid_data(page, actions.player_ids(game_id), rows, out))


def count_rows(app) -> dict[str, int]:
    with app.app_context():
        return {table.name: db.session.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
                for table in db.metadata.sorted_tables}


# -- 1. a new game dated in the past ------------------------------------------------------------


def test_a_day_still_to_come_is_refused_next_to_the_date_and_the_seating_keeps_what_was_chosen(client, app):
    step1 = seating_page(client, "family-7", FOUR)
    before = count_rows(app)
    tomorrow = (utcnow().date() + timedelta(days=1)).isoformat()
    data = seating_data(step1, "family-7", played_on=tomorrow, first_dealer="n:Cy", skip_first_hand="y", paper="1")
    data["seat"] = ["n:Bob", "n:Ann", "n:Cy", "n:Di"]  # Bob moved up first
    page = client.post("/games/new/seating", data=data)
    assert page.status_code == 200
    assert "That day is still to come" in element_text(page, "played_on-errors")
    # Everything chosen is still there, nothing was started.
    assert input_value(page, "played_on") == tomorrow
    assert input_values(page, "seat") == ["n:Bob", "n:Ann", "n:Cy", "n:Di"]
    assert input_value(page, "first_dealer") == "n:Cy"
    assert input_value(page, "skip_first_hand") == "y"
    assert count_rows(app) == before

    for typed, message in [("1899-12-31", "Choose a day from 1 January 1900 on."),
                           ("9/3/2024", "Write the day as year-month-day"), ("0000-01-01", "year-month-day")]:
        page = client.post("/games/new/seating", data={**data, "played_on": typed})
        assert message in element_text(page, "played_on-errors"), typed
        assert input_value(page, "played_on") == typed
    assert count_rows(app) == before


def test_the_seating_page_offers_today_and_a_past_day_starts_an_ordinary_game_of_that_day(client, app, actions):
    step1 = seating_page(client, "family-7", ["Ann", "Bob", "Cy"])
    assert input_value(step1, "played_on") == utcnow().date().isoformat()
    assert "Type scores from paper" in text_of(step1) and "Start game" in text_of(step1)

    started = client.post("/games/new/seating", data=seating_data(step1, "family-7", played_on=DAY.isoformat(),
                                                                  first_dealer="n:Ann", start="1"))
    game_id = int(started.headers["Location"].rsplit("/", 1)[1])
    assert started.headers["Location"] == f"/games/{game_id}"  # the round screen, as any game
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game.started_at == datetime(2024, 3, 9, 19, 0) and game.status == "in_progress"
    history = text_of(client.get("/history"))
    assert f"{DAY_SHOWN} in progress" in history
    screen = client.get(f"/games/{game_id}")
    assert f'href="/games/{game_id}/paper"' in screen.get_data(as_text=True)
    assert "Type scores from paper" in text_of(screen)

    # Played hand by hand, its hands were really recorded now: it ends now (its links last a day
    # from now), and the history still lists it under its own day.
    ids = actions.player_ids(game_id)
    for number in range(1, 8):
        actions.record(ids, game_id, number, "Ann", {"Bob": "K", "Cy": 15})
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game.status == "finished" and game.finished_at.date() == utcnow().date()
    assert "Sat 09 Mar 2024" in text_of(client.get("/history"))

    # Today (the default) is now, as before.
    today = new_paper_or_started(client)
    with app.app_context():
        assert abs(db.session.get(Game, today).started_at - utcnow()) < timedelta(minutes=1)


def new_paper_or_started(client) -> int:
    step1 = seating_page(client, "family-7", ["Ann", "Bob", "Cy"])
    response = client.post("/games/new/seating", data=seating_data(step1, "family-7", start="1"))
    return int(response.headers["Location"].rsplit("/", 1)[1])


def test_start_game_takes_a_day_still_to_come_for_nothing(app):
    with app.app_context():
        seating = [service.SeatChoice(new_name=n) for n in ("Ann", "Bob", "Cy")]
        with pytest.raises(service.RuleError, match="still to come"):
            service.start_game(our_family(), rules.get_variant("family-7"), seating, 0,
                               started_at=utcnow().date() + timedelta(days=2))
        assert db.session.execute(sa.select(sa.func.count(Game.id))).scalar_one() == 0


# -- 2. the grid --------------------------------------------------------------------------------


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_complete_grid_finishes_the_game_on_its_day_with_the_totals_and_winner(client, app, runner, tmp_path, actions):
    game_id = start_paper_game(client, "family-7", FOUR)
    page = client.get(f"/games/{game_id}/paper")
    text = text_of(page)
    assert "Round 1 Two sets out: 0" in text and "Round 7 Three runs" in text
    assert {f.get("inputmode") for f in inputs(page) if f.get("name", "").startswith("r")} == {"numeric"}

    saved = client.post(f"/games/{game_id}/paper",
                        data=grid_data(page, actions.player_ids(game_id), FAMILY_7_SHEET, FAMILY_7_OUT))
    assert saved.status_code == 302 and saved.headers["Location"] == f"/games/{game_id}/standings"
    standings = text_of(client.get(saved.headers["Location"]))
    assert "Rounds 1–7 saved from the paper sheet: the game is over." in standings
    assert "Total 80 65 150 165" in standings
    assert "Bob wins" in standings and "with 65 points, the lowest total after 7 rounds" in standings
    assert actions.game_status(game_id) == "finished"
    assert actions.stored_points(game_id)[2] == {"Ann": 10, "Bob": 0, "Cy": 40, "Di": 45}

    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game.started_at.date() == DAY and game.finished_at.date() == DAY
        results = db.session.execute(sa.select(Result).join(Result.round).where(GameRound.game_id == game_id)).scalars()
        by_round = {(r.round.number, r.player.name): r for r in results}
        # Typed totals are stored as the card entry stores a total counted by hand.
        assert (by_round[1, "Cy"].hand_total, by_round[1, "Cy"].cards, by_round[1, "Cy"].points) == (50, "", 50)
        assert [n for n in range(1, 8) if by_round[n, "Bob"].went_out] == [2, 6]
        assert by_round[2, "Bob"].hand_total is None and by_round[2, "Bob"].points == 0

    history = text_of(client.get("/history"))
    assert f"{DAY_SHOWN} finished" in history and "Won by Bob with 65" in history
    assert "09 Mar 2024 Won by Bob with 65" in text_of(client.get("/"))

    exported = json.loads(client.get("/export.json").get_data(as_text=True))
    [game] = exported["games"]
    assert game["started_at"] == "2024-03-09T19:00:00" and game["finished_at"].startswith("2024-03-09")
    assert game["status"] == "finished"
    result = runner.invoke(args=["export", "-o", str(tmp_path / "all.json")])
    assert result.exit_code == 0, result.output
    [from_cli] = json.loads((tmp_path / "all.json").read_text())["games"]
    assert from_cli["started_at"] == "2024-03-09T19:00:00"
    assert [r["points"] for r in from_cli["rounds"][0]["results"]] == [0, 25, 50, 10]

    _, pdf = pdf_text(client.get(f"/games/{game_id}/sheet.pdf").data)
    assert "Total 80 65 150 165" in pdf and "Winner: Bob (65)" in pdf


def test_shanghai_10_going_out_blind_is_written_as_minus_25_or_minus_50(client, app, actions):
    game_id = start_paper_game(client, "shanghai-10", ["Ann", "Bob", "Cy"])
    page = client.get(f"/games/{game_id}/paper")
    assert "out: 0, −25 or −50" in text_of(page)
    # A minus sign must be on the phone's keyboard.
    assert {f.get("inputmode") for f in inputs(page) if f.get("name", "").startswith("r")} == {"text"}
    rows = {number: {"Ann": "0", "Bob": "10", "Cy": "5"} for number in range(1, 11)}
    rows[2] = {"Ann": "20", "Bob": "\u221225", "Cy": "10"}   # the minus sign U+2212: out blind, with a joker
    rows[3] = {"Ann": "15", "Bob": "25", "Cy": "-50"}        # a hyphen: out blind, no joker
    rows[4] = {"Ann": " 10 ", "Bob": "\u2013 25", "Cy": "5"}  # an en dash, spaces around
    saved = client.post(f"/games/{game_id}/paper", data=grid_data(page, actions.player_ids(game_id), rows))
    assert saved.status_code == 302, text_of(saved)
    points = actions.stored_points(game_id)
    assert points[2] == {"Ann": 20, "Bob": -25, "Cy": 10}
    assert points[3] == {"Ann": 15, "Bob": 25, "Cy": -50}
    assert points[4] == {"Ann": 10, "Bob": -25, "Cy": 5}
    with app.app_context():
        codes = dict(db.session.execute(
            sa.select(GameRound.number, Result.bonus_code).join(Result.round)
            .where(GameRound.game_id == game_id, Result.went_out, GameRound.number.in_([2, 3]))
        ).all())
    assert codes == {2: "blind", 3: "blind-no-joker"}
    # Ann 0×7 + 20+15+10 = 45 · Bob 10×7 −25+25−25 = 45 · Cy 5×7 +10−50+5 = 0
    assert "Total 45 45 0" in text_of(client.get(f"/games/{game_id}/standings"))


BAD_GRIDS = {
    "impossible": ({1: {"Cy": "7"}}, {}, ("cell", 1, "Cy"),
                   "7 is not a score cards left in a hand can make: every card counts a multiple of 5"),
    "too high": ({4: {"Bob": "999"}}, {}, ("cell", 4, "Bob"), "a full hand of 19 cards is worth at most 380"),
    "letter": ({2: {"Di": "4O"}}, {}, ("cell", 2, "Di"), "“4O” is not a number of points"),
    "decimal": ({3: {"Ann": "1.5"}}, {}, ("cell", 3, "Ann"), "write whole points: 1.5 is not a whole number"),
    "huge": ({5: {"Bob": "9" * 5000}}, {}, ("cell", 5, "Bob"), "is far more than any hand is worth"),
    "blank round": ({5: dict.fromkeys(FOUR, "")}, {}, ("round", 5), "Round 5: no scores written"),
    "two out": ({6: {"Ann": "0"}}, {6: ""}, ("round", 6),
                "Ann and Bob each have a going-out score (0), but only one player goes out"),
    "nobody out": ({7: {"Cy": "10"}}, {}, ("round", 7), "Round 7: nobody has a going-out score (0): tap who went out"),
    "tap and score disagree": ({}, {1: "Bob"}, ("cell", 1, "Bob"), "went out, so scores 0, not 25"),
    "out tapped for nobody here": ({}, {2: "2147483647"}, ("round", 2), "tap who went out again"),
}


@pytest.mark.parametrize("case", list(BAD_GRIDS))
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_problem_is_shown_next_to_its_cell_or_round_and_nothing_is_written(client, app, case, actions):
    changes, taps, where, message = BAD_GRIDS[case]
    game_id = start_paper_game(client, "family-7", FOUR)
    ids = actions.player_ids(game_id)
    rows = {n: {**cells, **changes.get(n, {})} for n, cells in FAMILY_7_SHEET.items()}
    out = {**FAMILY_7_OUT, **taps}
    out = {n: name for n, name in out.items() if name}
    before = db_snapshot(app)
    page = fill_grid(client, app, game_id, rows, out)

    assert page.status_code == 200
    assert db_snapshot(app) == before
    summary = element_text(page, "paper-problems")
    assert "Nothing was saved yet" in summary and message in summary
    if where[0] == "cell":
        _, number, name = where
        name_id = f"r{number}-p{ids[name]}"
        assert message in element_text(page, f"{name_id}-error")
        [cell] = [f for f in inputs(page) if f.get("name") == name_id]
        assert cell.get("aria-invalid") == "true" and cell.get("aria-describedby") == f"{name_id}-error"
    else:
        own = message.removeprefix(f"Round {where[1]}: ")  # said under the round's row, without its number
        assert own.casefold() in element_text(page, f"round-{where[1]}").casefold()
    # What was typed and tapped is all still there.
    for number, cells in rows.items():
        for name, typed in cells.items():
            assert input_value(page, f"r{number}-p{ids[name]}") == typed[:40]  # a box holds no more
    if case != "out tapped for nobody here":
        assert input_value(page, "out-2") == str(ids["Bob"])


def test_two_going_out_scores_mark_both_cells_like_any_other_problem(client, app, actions):
    game_id = start_paper_game(client, "family-7", FOUR)
    ids = actions.player_ids(game_id)
    rows = {**FAMILY_7_SHEET, 5: {"Ann": "0", "Bob": "0", "Cy": "20", "Di": "5"}}  # Bob's 10 written as 0
    page = fill_grid(client, app, game_id, rows, FAMILY_7_OUT)
    assert "Ann and Bob each have a going-out score (0)" in element_text(page, "round-5-note")
    marked = {f["name"] for f in inputs(page) if f.get("aria-invalid") == "true"}
    assert marked == {f"r5-p{ids['Ann']}", f"r5-p{ids['Bob']}"}
    for name in ("Ann", "Bob"):
        [cell] = [f for f in inputs(page) if f.get("name") == f"r5-p{ids[name]}"]
        assert cell.get("aria-describedby") == "round-5-note"
    assert page.text.count('<td class="has-error">') == 2


def running(rows: dict, start: dict[str, int] | None = None) -> dict:
    """The same scores as a sheet of running totals writes them: each round's number the total so
    far; a box left empty stays empty (a tapped "out")."""
    totals = dict(start or {})
    written = {}
    for number, cells in rows.items():
        written[number] = {}
        for name, typed in cells.items():
            totals[name] = totals.get(name, 0) + int(typed or 0)
            written[number][name] = str(totals[name]) if typed else ""
    return written


def test_a_sheet_of_running_totals_is_typed_as_it_is_and_its_rounds_read_as_points(client, actions):
    game_id = start_paper_game(client, "family-7", FOUR)
    page = client.get(f"/games/{game_id}/paper")
    assert "The sheet's numbers are each round's points running totals" in text_of(page)
    data = grid_data(page, actions.player_ids(game_id), running(FAMILY_7_SHEET), FAMILY_7_OUT)
    # As points they make no sense (Cy's 90 in round 2 leaves too many cards): the grid says what they look like.
    hinted = client.post(f"/games/{game_id}/paper", data=data)
    assert hinted.status_code == 200
    assert "These numbers read as running totals , each round added to the one above" in text_of(hinted)
    saved = client.post(f"/games/{game_id}/paper", data={**data, "sheet": "running"})
    assert saved.status_code == 302, text_of(saved)
    assert actions.stored_points(game_id)[2] == {"Ann": 10, "Bob": 0, "Cy": 40, "Di": 45}
    assert "Total 80 65 150 165" in text_of(client.get(f"/games/{game_id}/standings"))


def test_running_totals_continue_from_the_rounds_already_scored_and_a_wrong_one_says_what_it_makes(client, actions):
    game_id = start_paper_game(client, "family-7", FOUR)
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K K", "Cy": 15, "Di": "5"})  # 0 20 15 5
    rest = running({n: cells for n, cells in FAMILY_7_SHEET.items() if n > 1},
                   {"Ann": 0, "Bob": 20, "Cy": 15, "Di": 5})
    wrong = {**rest, 3: {**rest[3], "Cy": "57"}}  # Cy's 55 miswritten: 2 points this round
    page = client.get(f"/games/{game_id}/paper")
    refused = client.post(f"/games/{game_id}/paper",
                          data={**grid_data(page, ids, wrong, FAMILY_7_OUT), "sheet": "running"})
    assert "57 is 2 this round: 2 is not a score cards left in a hand can make" in element_text(
        refused, f"r3-p{ids['Cy']}-error")
    assert input_value(refused, "sheet") == "running"  # the choice is kept with what was typed
    saved = client.post(f"/games/{game_id}/paper", data={**grid_data(page, ids, rest, FAMILY_7_OUT), "sheet": "running"})
    assert saved.status_code == 302, text_of(saved)
    # Ann 0+80 = 80 · Bob 20+40 = 60 · Cy 15+100 = 115 · Di 5+155 = 160, as with each round's points
    assert "Total 80 60 115 160" in text_of(client.get(f"/games/{game_id}/standings"))


def test_a_grid_sent_twice_stores_its_rounds_once(client, app, actions):
    game_id = start_paper_game(client, "family-7", FOUR)
    page = client.get(f"/games/{game_id}/paper")
    data = grid_data(page, actions.player_ids(game_id), FAMILY_7_SHEET, FAMILY_7_OUT)
    first = client.post(f"/games/{game_id}/paper", data=data)
    assert first.status_code == 302
    after_first = db_snapshot(app)
    second = client.post(f"/games/{game_id}/paper", data=data)
    assert second.headers["Location"] == f"/games/{game_id}/standings"
    assert "nothing was saved twice" in text_of(client.get(second.headers["Location"]))
    assert db_snapshot(app) == after_first
    with app.app_context():
        changes = db.session.execute(sa.select(RoundChange.number).where(RoundChange.game_id == game_id)).scalars()
        assert sorted(changes) == [1, 2, 3, 4, 5, 6, 7]


def test_a_grid_gone_stale_on_another_phone_says_so_keeps_what_was_typed_and_saves_next_time(client, app, actions):
    game_id = start_paper_game(client, "family-7", FOUR)
    ids = actions.player_ids(game_id)
    grid = client.get(f"/games/{game_id}/paper")
    # Meanwhile, another phone scores round 1 from its cards and counts a buy in round 2.
    actions.record(ids, game_id, 1, "Di", {"Ann": "K", "Bob": "5", "Cy": "A"})
    client.post(f"/games/{game_id}/rounds/2/buy", data={"player": ids["Cy"]})
    before = db_snapshot(app)

    stale = client.post(f"/games/{game_id}/paper", data=grid_data(grid, ids, FAMILY_7_SHEET, FAMILY_7_OUT))
    assert stale.status_code == 200
    text = text_of(stale)
    assert "Rounds 1 and 2 changed on another phone" in text and "nothing was saved yet" in text
    assert "Round 1 now shows its stored points" in text
    assert db_snapshot(app) == before
    assert input_value(stale, f"r1-p{ids['Ann']}") is None  # round 1 is scored: no boxes
    assert "Round 1 Two sets scored 10 5 15 0 ★" in text
    assert input_value(stale, f"r3-p{ids['Cy']}") == "0" and input_value(stale, "out-2") == str(ids["Bob"])

    # Sent again from the page as it came back: rounds 2 to 7 saved, round 1 as the cards gave it.
    again = grid_data(stale, ids, {n: c for n, c in FAMILY_7_SHEET.items() if n > 1}, FAMILY_7_OUT)
    saved = client.post(f"/games/{game_id}/paper", data=again)
    assert saved.headers["Location"] == f"/games/{game_id}/standings"
    assert "Rounds 2–7 saved from the paper sheet: the game is over." in text_of(client.get(saved.headers["Location"]))
    points = actions.stored_points(game_id)
    assert points[1] == {"Ann": 10, "Bob": 5, "Cy": 15, "Di": 0} and points[7] == {"Ann": 15, "Bob": 5, "Cy": 0, "Di": 60}
    with app.app_context():
        buys = db.session.execute(sa.select(Result.buys).join(Result.round).where(
            GameRound.game_id == game_id, GameRound.number == 2, Result.player_id == ids["Cy"])).scalar_one()
    assert buys == 1  # the buy counted on the round screen is kept


def test_a_round_refused_while_storing_leaves_every_round_unwritten(client, app, actions):
    game_id = start_paper_game(client, "family-7", FOUR)
    page = client.get(f"/games/{game_id}/paper")
    form = grid_data(page, actions.player_ids(game_id), FAMILY_7_SHEET, FAMILY_7_OUT)
    before = db_snapshot(app)
    with app.app_context():
        game = service.load_game(our_family(), game_id)
        grid = sheet.read_grid(game, form)
        assert grid.ok
        versions = {r.number: r.version for r in game.rounds}
        versions[5] += 1  # round 5 moved on meanwhile: the conditional update finds nothing
        with pytest.raises(service.RuleError, match="nothing was saved"):
            sheet.save_grid(game, grid, versions, by="test")
    assert db_snapshot(app) == before


def test_the_grid_continues_a_game_in_progress_from_its_round_screen(client, actions):
    game_id = start_paper_game(client, "family-7", FOUR)
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K K", "Cy": 15, "Di": "5"})
    page = client.get(f"/games/{game_id}/paper")
    assert input_value(page, f"r1-p{ids['Bob']}") is None and input_value(page, f"r2-p{ids['Bob']}") == ""
    assert "Round 1 Two sets scored 0 ★ 20 15 5" in text_of(page)
    rest = {n: cells for n, cells in FAMILY_7_SHEET.items() if n > 1}
    saved = client.post(f"/games/{game_id}/paper", data=grid_data(page, ids, rest, FAMILY_7_OUT))
    assert saved.status_code == 302
    # Ann 0+80 = 80 · Bob 20+40 = 60 · Cy 15+100 = 115 · Di 5+155 = 160
    assert "Total 80 60 115 160" in text_of(client.get(f"/games/{game_id}/standings"))


def test_the_grid_is_the_familys_and_only_for_a_game_still_being_played(client, app, actions):
    game_id = start_paper_game(client, "family-7", FOUR)
    actions.add_member("Other family", "olga")
    olga = strict_client(app, "olga")
    assert olga.get(f"/games/{game_id}/paper").status_code == 404
    assert olga.post(f"/games/{game_id}/paper", data={}).status_code == 404
    assert client.get("/games/99999999999/paper").status_code == 404
    visitor = strict_client(app, None)
    assert "/login" in visitor.get(f"/games/{game_id}/paper").headers["Location"]

    client.post(f"/games/{game_id}/abandon")
    for response in (client.get(f"/games/{game_id}/paper"), client.post(f"/games/{game_id}/paper", data={})):
        assert response.headers["Location"] == f"/games/{game_id}/standings"
    assert "abandoned; its scores can no longer change" in text_of(client.get(f"/games/{game_id}/standings"))

    done = start_paper_game(client, "family-7", FOUR)
    fill_grid(client, app, done, FAMILY_7_SHEET, FAMILY_7_OUT)
    response = client.get(f"/games/{done}/paper")
    assert response.headers["Location"] == f"/games/{done}/standings"
    assert "Every round of this game is scored already" in text_of(client.get(response.headers["Location"]))


def test_a_grid_with_no_versions_or_strange_fields_is_refused_without_a_500(client, app):
    game_id = start_paper_game(client, "family-7", FOUR)
    before = db_snapshot(app)
    response = client.post(f"/games/{game_id}/paper", data={"v-1": "x", "v-99999999999999999999": "1",
                                                            "r1-p1": "\u221210", "out-1": "-1"})
    assert response.status_code == 200 and "changed on another phone" in text_of(response)
    assert db_snapshot(app) == before


# -- statistics and ratings: a past game typed in after later ones ------------------------------


def service_game(names: list[str], day: date, winner: str) -> None:
    """A family-7 game dated ``day`` played hand by hand: ``winner`` goes out every hand."""
    family = our_family()
    known = {p.name: p.id for p in db.session.execute(sa.select(Player).where(Player.family_id == family.id)).scalars()}
    seating = [service.SeatChoice(player_id=known[n]) if n in known else service.SeatChoice(new_name=n) for n in names]
    game = service.start_game(family, rules.get_variant("family-7"), seating, 0, started_at=day)
    ids = {p.name: p.id for p in game.players}
    for round_ in game.rounds:
        hands = [rules.Hand(ids[n], went_out=True, laid_down=True) if n == winner else
                 rules.Hand(ids[n], laid_down=True, hand_total=5 * (seat + round_.number % 3 + 1))
                 for seat, n in enumerate(names)]
        record_round(game, round_.number, hands, round_.version, by="test")


def figures(app) -> dict:
    """Every kept statistic and rating, players by name and games by day (ids differ between apps)."""
    with app.app_context():
        names = dict(db.session.execute(sa.select(Player.id, Player.name)).all())
        days = dict(db.session.execute(sa.select(Game.id, Game.started_at)).all())
        found = {}
        for model, *_ in kept.TABLES:
            rows = []
            for row in db.session.execute(sa.select(model)).scalars():
                columns = {a.key: getattr(row, a.key) for a in sa.inspect(model).column_attrs
                           if a.key not in ("id", "family_id")}
                for key, value in columns.items():
                    if key in ("player_id", "other_id"):
                        columns[key] = names[value]
                    elif key.endswith("_game") and value:
                        columns[key] = days[value]
                rows.append(tuple(sorted(columns.items())))
            found[model.__name__] = sorted(rows)
        found["ratings"] = sorted(
            (days[r.game_id], names[r.player_id], round(r.mu, 9), round(r.sigma, 9), r.shown, r.change)
            for r in db.session.execute(sa.select(Rating)).scalars()
        )
        found["streaks"] = {names[r.player_id]: (r.current, r.longest) for r in
                            db.session.execute(sa.select(kept.KeptStreak)).scalars()}
    return found


def pages(client, app) -> dict[str, str]:
    """What the family sees of its statistics: the players list and each player's profile."""
    with app.app_context():
        ids = dict(db.session.execute(sa.select(Player.name, Player.id)).all())
    shown = {"players": text_of(client.get("/players"))}
    shown.update({name: text_of(client.get(f"/players/{pid}")) for name, pid in ids.items()})
    return shown


def test_a_past_game_typed_in_after_later_games_counts_as_if_played_in_its_place(tmp_path):
    # Ann wins the paper game of 5 March, Bob the game of 10 March, Ann the game of 12 March.
    later = [(["Ann", "Bob", "Cy"], date(2024, 3, 10), "Bob"), (["Ann", "Bob", "Di"], date(2024, 3, 12), "Ann")]
    paper_rows = {n: {"Ann": "0", "Bob": "10", "Cy": "15", "Di": str(5 * n)} for n in range(1, 8)}

    typed_last = make_app(tmp_path / "last")
    last = strict_client(typed_last)
    with typed_last.app_context():
        for names, day, winner in later:
            service_game(names, day, winner)
    game_id = start_paper_game(last, "family-7", FOUR, date(2024, 3, 5))
    assert fill_grid(last, typed_last, game_id, paper_rows).status_code == 302

    in_order = make_app(tmp_path / "order")
    order = strict_client(in_order)
    game_id = start_paper_game(order, "family-7", FOUR, date(2024, 3, 5))
    assert fill_grid(order, in_order, game_id, paper_rows).status_code == 302
    with in_order.app_context():
        for names, day, winner in later:
            service_game(names, day, winner)

    typed, played = figures(typed_last), figures(in_order)
    assert typed == played
    # Bob's win on 10 March broke Ann's run: hers is one game now, not two.
    assert typed["streaks"]["Ann"] == (1, 1)
    assert len(typed["ratings"]) == 10
    assert pages(last, typed_last) == pages(order, in_order)


# -- 3. the card entry: a typed total no cards make ----------------------------------------------


def test_the_card_entry_refuses_a_total_no_cards_can_make(client, app, actions):
    step1 = seating_page(client, "family-7", ["Ann", "Bob", "Cy"])
    game_id = int(client.post("/games/new/seating", data=seating_data(step1, "family-7"))
                  .headers["Location"].rsplit("/", 1)[1])
    ids = actions.player_ids(game_id)
    before = db_snapshot(app)
    data = round_data(ids, "Ann", {"Bob": 7, "Cy": "K"}, actions.version_of(game_id, 1))
    page = client.post(score_url(game_id, 1), data=data)
    assert page.status_code == 200
    assert ("7 is not a total cards left in a hand can make in round 1: every card counts a multiple of 5."
            in element_text(page, f"hand-{ids['Bob']}"))
    assert input_value(page, f"p{ids['Bob']}-total") == "7"
    assert db_snapshot(app) == before
    with app.app_context():
        game = db.session.get(Game, game_id)
        with pytest.raises(service.HandRefused, match="every card counts a multiple of 5"):
            record_round(game, 1, [rules.Hand(ids["Ann"], went_out=True), rules.Hand(ids["Bob"], hand_total=12),
                                   rules.Hand(ids["Cy"], hand_total=10)], 0, by="test")
    assert db_snapshot(app) == before
    actions.record(ids, game_id, 1, "Ann", {"Bob": 35, "Cy": "K"})
    assert actions.stored_points(game_id)[1] == {"Ann": 0, "Bob": 35, "Cy": 10}


# -- the rules core's part ----------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "read"), [
    ("25", (25, "")), ("\u221225", (-25, "")), ("-50", (-50, "")), ("\u2013 5", (-5, "")), ("+10", (10, "")),
    (" 1 0 ", (10, "")), ("", (None, "")), ("  ", (None, "")),
])
def test_a_cell_is_read_with_any_minus_sign(typed, read):
    assert sheet.parse_score(typed) == read


@pytest.mark.parametrize("typed", ["abc", "1.5", "1,5", "5.", "--5", "²", "9" * 5000, "1e3", "0x10"])
def test_a_cell_that_is_not_whole_points_says_why(typed):
    points, why = sheet.parse_score(typed)
    assert points is None and why


def test_card_totals_moved_to_the_scoring_rules_are_the_same_from_the_paper_rules():
    variant = rules.get_variant("family-7")
    assert rules_paper.card_totals is scoring.card_totals
    totals = scoring.card_totals(variant, 1)
    assert 7 not in totals and {5, 10, 380} <= set(totals) and totals.high == max(totals) == 380


def test_totals_of_rules_with_big_cards_and_many_buys_are_quick_to_ask(app):
    from scorekeeper.rules import scoring
    heavy = dataclasses.replace(
        rules.VARIANTS["family-7"], points={**rules.VARIANTS["family-7"].points, "A": 1000}, cards_per_buy=10,
        buys_counted="carry", rounds=tuple(dataclasses.replace(r, buy_limit=20) for r in rules.VARIANTS["family-7"].rounds))
    totals = scoring.card_totals(heavy, 7)  # millions of totals, kept as bits rather than listed
    assert 1000 * 140 in totals and 7 not in totals and totals.low == 5 and totals.high > 1000 * 140
