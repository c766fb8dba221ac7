"""Every figure true: statistics count only what a game recorded, streaks run over the games a
player played, averages are rounded half up, and a correction's review shows the totals after
its own round.

A hand played at the table records buys and laid-down marks; one typed from a paper sheet or
imported from a spreadsheet records only the points (and a spreadsheet not even who dealt). Those
figures are left out of averages and records, and said to be "not recorded".

family-7 counts every card a multiple of 5 (2–9 = 5, 10 J Q K = 10, A = 15, Joker = 20); going out scores 0.
"""

from __future__ import annotations

import io
import json
import re
from datetime import date

import pytest
import sqlalchemy as sa

from scorekeeper.extensions import db
from scorekeeper.models import PAPER, SHEET, TABLE, GameRound, PlayerGame, utcnow
from tests.actions import GameActions
from tests.databases import drop_app, make_app, strict_client
from tests.pages import review_lines, round_data, score_url, text_of, texts_by_class
from tests.test_history import play, table_rows
from tests.test_paper_game import FAMILY_7_OUT, FAMILY_7_SHEET, fill_grid, start_paper_game
from tests.test_printing import pdf_text
from tests.test_recap import recap_text
from tests.test_sheet_import import HEADER, confirm, csv_bytes, upload

# -- a family with games from the table, from paper and from a spreadsheet ------------------------

# At the table, family-7 with all seven hands: Ann buys once every hand (7 buys in 7 hands), Cy is
# stuck in round 1 only.
AT_THE_TABLE = [(1, "Bob", {"Ann": "K", "Cy": "5", "Di": "5"}, {"buys": {"Ann": 1}, "stuck": ["Cy"]}),
                *[(n, "Bob", {"Ann": "K", "Cy": "5", "Di": "5"}, {"buys": {"Ann": 1}}) for n in range(2, 8)]]
PAPER_PLAYERS = ["Ann", "Bob", "Cy", "Eve"]  # Eve plays only this game, typed from paper
# Two games from a spreadsheet, seven hands each, everyone's points as the sheet has them.
SHEET_GAMES = [
    ["2024-05-01", "Ann", 0, 15, 20, 0, 5, 10, 0], ["", "Bob", 10, 0, 25, 15, 0, 5, 15],
    ["", "Cy", 5, 10, 0, 30, 20, 0, 50], ["", "Di", 5, 5, 5, 5, 5, 5, 5],
    ["2024-05-02", "Ann", 20, 25, 0, 40, 15, 35, 0], ["", "Bob", 0, 30, 5, 10, 0, 40, 10],
    ["", "Cy", 5, 0, 10, 0, 25, 0, 20], ["", "Di", 5, 5, 5, 5, 5, 5, 5],
]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """28 hands for Ann: 7 at the table (7 buys), 7 from paper, 14 from a spreadsheet."""
    app = make_app(tmp_path_factory.mktemp("mixed"), keep=True)
    client = strict_client(app)
    table = play(client, app, "family-7", ["Ann", "Bob", "Cy", "Di"], AT_THE_TABLE)
    paper = start_paper_game(client, "family-7", PAPER_PLAYERS)
    assert fill_grid(client, app, paper, {n: {("Eve" if k == "Di" else k): v for k, v in row.items()}
                                          for n, row in FAMILY_7_SHEET.items()}, FAMILY_7_OUT).status_code == 302
    lines = [",".join(HEADER)] + [",".join(map(str, row)) + "," for row in SHEET_GAMES]
    assert confirm(client, upload(client, csv_bytes(lines), name="old.csv")).status_code == 302
    with app.app_context():
        sheet = db.session.execute(sa.select(GameRound.game_id).where(GameRound.source == SHEET)).scalars().first()
    yield app, client, {"table": table, "paper": paper, "sheet": sheet}
    drop_app(app)


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_each_hand_says_how_it_was_recorded(mixed):
    app, _, games = mixed
    with app.app_context():
        sources = _sources_by_game()
        marked = dict(db.session.execute(
            sa.select(PlayerGame.game_id, sa.func.max(PlayerGame.marked_hands)).group_by(PlayerGame.game_id)).all())
    assert (sources[games["table"]], sources[games["paper"]], sources[games["sheet"]]) == ({TABLE}, {PAPER}, {SHEET})
    assert (marked[games["table"]], marked[games["paper"]], marked[games["sheet"]]) == (7, 0, 0)


def test_buys_per_hand_count_only_the_hands_that_recorded_buys(mixed):
    app, client, games = mixed
    ids = GameActions(app=app).player_ids(games["table"])
    tiles = texts_by_class(client.get(f"/players/{ids['Ann']}"), "stat")
    assert any(tile.endswith("hands won (went out) of 28") for tile in tiles)
    # 7 buys in the 7 hands played at the table: 1.00, not the 0.25 of 7 buys over all 28 hands.
    assert "1.00 buys per hand (of 7 hands played at the table)" in tiles
    assert "0 times stuck (of 7 hands played at the table)" in tiles
    cy = texts_by_class(client.get(f"/players/{ids['Cy']}"), "stat")
    assert "1 times stuck (of 7 hands played at the table)" in cy


def test_a_player_of_paper_games_only_has_no_buys_or_times_stuck_recorded(mixed):
    app, client, games = mixed
    eve = GameActions(app=app).player_ids(games["paper"])["Eve"]
    tiles = texts_by_class(client.get(f"/players/{eve}"), "stat")
    assert "– times stuck and buys: not recorded (games from paper or a spreadsheet)" in tiles
    assert not any("buys per hand" in tile or tile.startswith("0 times stuck") for tile in tiles)


def test_a_paper_games_recap_says_stuck_is_not_recorded(mixed):
    _, client, games = mixed
    page = client.get(f"/games/{games['paper']}/standings")
    assert "Stuck most Not recorded: a score sheet does not say who laid down." in recap_text(page)
    assert "Nobody: everyone laid down every hand" not in recap_text(page)
    assert "Typed in from a paper score sheet: buys and laid-down marks were not recorded" in text_of(page)


def test_stuck_most_often_in_one_game_is_held_by_a_game_played_at_the_table(mixed):
    _, client, games = mixed
    rows = table_rows(client.get("/records"))
    assert ["Stuck most often in one game", "Cy", "1", utcnow().date().isoformat()] in [r[:4] for r in rows]


def test_a_spreadsheet_games_dealers_and_buys_are_not_recorded_on_screen_or_paper(mixed):
    _, client, games = mixed
    page = client.get(f"/games/{games['sheet']}/standings")
    dealers = re.findall(r'<small class="dealer" title="Dealer: ([^"]*)">([^<]*)</small>', page.text)
    assert dealers == [("not recorded", "—")] * 7
    assert "Imported from a spreadsheet: who dealt, buys and laid-down marks were not recorded (—)." in text_of(page)
    _, sheet = pdf_text(client.get(f"/games/{games['sheet']}/sheet.pdf").data)
    assert "Imported from a spreadsheet: who dealt, buys and laid-down marks were not recorded" in sheet
    # No made-up dealer (the dealer's column) and no empty buy boxes (under each player): "—".
    assert "1 Two sets (6) 4 buys 11 — 0 0 10 10 5 5 5 5 — out ● — out ○ — out ○ — out ○" in sheet
    assert "☐" not in sheet

    _, paper = pdf_text(client.get(f"/games/{games['paper']}/sheet.pdf").data)
    assert "Typed in from a paper score sheet: buys and laid-down marks were not recorded (—)." in paper
    assert "☐" not in paper
    _, table = pdf_text(client.get(f"/games/{games['table']}/sheet.pdf").data)
    assert "☐" in table and "not recorded" not in table  # a game played at the table prints its buy boxes


def test_the_export_carries_how_each_hand_was_recorded_and_an_old_export_is_read_the_same_way(mixed, tmp_path):
    _, client, games = mixed
    exported = json.loads(client.get("/export.json").get_data(as_text=True))
    sources = {tuple(sorted({r["source"] for r in g["rounds"]})) for g in exported["games"]}
    assert sources == {(TABLE,), (PAPER,), (SHEET,)}
    # An export made before hands said so: paper and spreadsheet hands are told apart by what they hold.
    for game in exported["games"]:
        for round_ in game["rounds"]:
            del round_["source"]
    other = make_app(tmp_path)
    importer = strict_client(other)
    imported = importer.post("/import", data={"file": (_file(exported), "old.json")},
                             content_type="multipart/form-data")
    assert imported.status_code == 302, text_of(imported)
    with other.app_context():
        found = {frozenset(sources) for sources in _sources_by_game().values()}
    assert found == {frozenset({TABLE}), frozenset({PAPER}), frozenset({SHEET})}


def _file(data: dict):
    return io.BytesIO(json.dumps(data).encode())


def _sources_by_game() -> dict[int, set[str]]:
    """Game id -> how its hands were recorded."""
    by_game: dict[int, set[str]] = {}
    for game_id, source in db.session.execute(sa.select(GameRound.game_id, GameRound.source)):
        by_game.setdefault(game_id, set()).add(source)
    return by_game


def test_a_family_of_paper_games_only_holds_no_stuck_record(client, app):
    game_id = start_paper_game(client, "family-7", ["Ann", "Bob", "Cy", "Di"])
    assert fill_grid(client, app, game_id, FAMILY_7_SHEET, FAMILY_7_OUT).status_code == 302
    rows = [r[:3] for r in table_rows(client.get("/records"))]
    assert ["Stuck most often in one game", "not recorded: only games played at the table say who was stuck",
            ""] in rows
    assert not any(r[0] == "Stuck most often in one game" and r[2] == "0" for r in rows)


# -- streaks and averages ---------------------------------------------------------------------------------

# family-7, hand 1 skipped (rounds 2–7), typed totals. Mom never goes out but always wins with
# 130 (20 20 20 20 25 25) or 135 (20 20 20 25 25 25); the two others share going out, 50 when caught.
def mom_wins(others: list[str], last: int) -> list:
    points = [20, 20, 20, 20, 25, 25] if last == 130 else [20, 20, 20, 25, 25, 25]
    rounds = []
    for i, number in enumerate(range(2, 8)):
        out, caught = others[i % 2], others[1 - i % 2]
        rounds.append((number, out, {"Mom": points[i], caught: 50}))
    return rounds


def sweep(winner: str, others: list[str]) -> list:
    return [(n, winner, {name: "5" for name in others}) for n in range(2, 8)]


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_a_winning_streak_counts_the_games_the_player_played_and_an_average_is_rounded_half_up(client, app):
    games = [  # Mom wins all four games she plays; two games without her come between.
        (["Mom", "Dad", "Lee"], mom_wins(["Dad", "Lee"], 130)),
        (["Dad", "Lee", "Sam"], sweep("Dad", ["Lee", "Sam"])),
        (["Mom", "Lee", "Sam"], mom_wins(["Lee", "Sam"], 130)),
        (["Dad", "Lee", "Sam"], sweep("Lee", ["Dad", "Sam"])),
        (["Mom", "Dad", "Sam"], mom_wins(["Dad", "Sam"], 130)),
        (["Mom", "Dad", "Lee"], mom_wins(["Dad", "Lee"], 135)),
    ]
    for names, rounds in games:
        play(client, app, "family-7", names, rounds, skip_first_hand=True)
    records = [r[:3] for r in table_rows(client.get("/records"))]
    assert ["Longest winning streak (games in a row)", "Mom", "4"] in records
    season = [r[:3] for r in table_rows(client.get(f"/seasons/{date.today().year}"), "season-table tight")]
    assert ["Mom", "4 /4", "131.3"] in season  # 525 ÷ 4 = 131.25, rounded half up
    season_records = table_rows(client.get(f"/seasons/{date.today().year}"))
    assert ["Longest winning streak (games in a row)", "Mom", "4", ""] in season_records
    players = {row[0]: row for row in table_rows(client.get("/players"))}
    assert players["Mom"][1:4] == ["4 /4", "100", "131.3"]
    assert players["Lee"][1:3] == ["1 /5", "20"] and players["Dad"][1:3] == ["1 /5", "20"]


# -- the review of a correction -----------------------------------------------------------------------------


def test_correcting_an_earlier_round_reviews_the_totals_after_that_round(client, actions):
    game_id = actions.new_game("family-7", ["Grandma", "Lee", "Sam"], first_dealer="Grandma", skip_first_hand=True)
    ids = actions.player_ids(game_id)
    for number, hands in ((2, {"Lee": "K", "Sam": "5"}), (3, {"Lee": "Q Q", "Sam": "5"}),
                          (4, {"Lee": "5", "Sam": "A"})):
        actions.review_then_save(game_id, number,
                                 round_data(ids, "Grandma", hands, actions.version_of(game_id, number), laid_down=list(ids)))
    # After round 2: Grandma 0, Lee 10, Sam 5; after round 3: Lee 30, Sam 10; after round 4: Lee 35, Sam 25.
    review = client.post(score_url(game_id, 3), data={**round_data(
        ids, "Lee", {"Grandma": "5 5", "Sam": "5"}, actions.version_of(game_id, 3), laid_down=list(ids)),
        "action": "review"})
    # Round 3 corrected: Grandma 10, Lee 0, Sam 5; the totals after round 3, as the standings will show them.
    assert review_lines(review) == {"Grandma": (10, 10), "Lee": (0, 10), "Sam": (5, 10)}
