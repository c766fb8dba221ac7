"""Export and import lose nothing a family can see: each hand's change history travels (older
exports without one still import), games of deleted house rules keep to themselves in the
history, bad history entries are refused by their path, and the import page refuses an export
it could not finish in one request."""

from __future__ import annotations

import json

import pytest

from scorekeeper.extensions import db
from scorekeeper.models import Game, Member, RoundChange
from scorekeeper.transfer import checks
from tests import databases
from tests.actions import GameActions
from tests.databases import add_member, db_snapshot, strict_client
from tests.pages import element_text, text_of
from tests.test_house_rules import GRAN, save
from tests.test_transfer import export_text, make_app, upload


def game_id_of(app, uid: str) -> int:
    with app.app_context():
        return db.session.execute(db.select(Game.id).where(Game.uid == uid)).scalar_one()


def uid_of(app, game_id: int) -> str:
    with app.app_context():
        return db.session.get(Game, game_id).uid


def change_lines(client, game_id: int) -> list[str]:
    """The "Changes to scored rounds" list of a game's standings page, newest first."""
    page = client.get(f"/games/{game_id}/standings")
    return [line.strip() for line in element_text(page, "changes").split(" Round ")][1:]


def stored_changes(app, game_id: int) -> list[tuple]:
    with app.app_context():
        return [
            (c.number, c.action, c.by, c.member_id, c.at, c.points)
            for c in db.session.execute(
                db.select(RoundChange).where(RoundChange.game_id == game_id).order_by(RoundChange.id)
            ).scalars()
        ]


def play_with_corrections(client, app) -> int:
    """shanghai-10: round 1 recorded by tester, corrected and taken back by grandma, recorded
    again by tester; round 2 recorded by tester. Five changes."""
    actions = GameActions(client, app)
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    actions.record(ids, game_id, 1, "Ann", {"Bob": "K", "Cy": "5"})  # Bob 10, Cy 5
    grandma = strict_client(app, "grandma")
    actions.on(grandma).record(ids, game_id, 1, "Ann", {"Bob": "K K", "Cy": "5"})  # Bob 20
    grandma.post(f"/games/{game_id}/undo", data={"number": "1"})
    actions.record(ids, game_id, 1, "Bob", {"Ann": "A", "Cy": "5"})  # Ann 15, Cy 5
    actions.record(ids, game_id, 2, "Cy", {"Ann": "Q", "Bob": "JK"})  # Ann 10, Bob 15
    return game_id


# -- the change history travels ---------------------------------------------------------------


def test_the_change_history_survives_export_and_import_into_a_fresh_family(client, app, tmp_path, actions):
    actions.add_member("Our family", "grandma")
    game_id = play_with_corrections(client, app)
    lines = change_lines(client, game_id)
    assert len(lines) == 5 and lines[2].startswith("1 undone by grandma"), lines

    copy_app = make_app(tmp_path, "copy.sqlite")
    # A grandma in another family of the copy is not the one who made the changes.
    add_member(copy_app, "The Joneses", "grandma")
    copy_client = strict_client(copy_app)
    page = upload(copy_client, client.get("/export.json").get_data())
    assert page.headers["Location"] == "/history", text_of(page)

    copied = game_id_of(copy_app, uid_of(app, game_id))
    assert change_lines(copy_client, copied) == lines
    with copy_app.app_context():
        tester = db.session.execute(db.select(Member.id).where(Member.username == "tester")).scalar_one()
    source = stored_changes(app, game_id)
    # What was said and when is kept; the member links are this instance's own.
    assert [c[:3] + c[4:] for c in stored_changes(copy_app, copied)] == [c[:3] + c[4:] for c in source]
    assert [c[3] for c in stored_changes(copy_app, copied)] == [tester, None, None, tester, tester]

    # And the copy exports the same history again.
    first = json.loads(export_text(app))["games"][0]["changes"]
    assert [c["action"] for c in first] == ["recorded", "edited", "undone", "recorded", "recorded"]
    assert first[1] == {"number": 1, "action": "edited", "by": "grandma", "at": first[1]["at"],
                        "before": [0, 10, 5], "after": [0, 20, 5]}
    assert json.loads(copy_client.get("/export.json").get_data())["games"][0]["changes"] == first


def test_a_change_links_to_the_member_of_the_same_username_in_the_importing_family(client, app, tmp_path, actions):
    actions.add_member("Our family", "grandma")
    game_id = play_with_corrections(client, app)
    raw = client.get("/export.json").get_data()
    copy_app = make_app(tmp_path, "copy.sqlite")
    _, grandma = add_member(copy_app, "Our family", "grandma")
    path = tmp_path / "export.json"
    path.write_bytes(raw)
    result = copy_app.test_cli_runner().invoke(args=["import", str(path)])
    assert result.output.strip() == "Imported 1 games (0 were already here).", result.output
    copied = game_id_of(copy_app, uid_of(app, game_id))
    assert [(c[2], c[3]) for c in stored_changes(copy_app, copied)][1:3] == [("grandma", grandma)] * 2


@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_an_export_without_change_histories_still_imports_and_exports_an_empty_history(client, app, tmp_path, actions):
    actions.add_member("Our family", "grandma")
    game_id = play_with_corrections(client, app)
    data = json.loads(export_text(app))
    for game in data["games"]:
        del game["changes"]  # as exports made before change histories travelled
    copy_app = make_app(tmp_path, "copy.sqlite")
    copy_client = strict_client(copy_app)
    page = upload(copy_client, json.dumps(data).encode())
    assert page.headers["Location"] == "/history", text_of(page)
    assert "Imported 1 games; 0 were already here." in text_of(copy_client.get("/history"))

    copied = game_id_of(copy_app, uid_of(app, game_id))
    assert stored_changes(copy_app, copied) == []
    assert "Changes to scored rounds" not in text_of(copy_client.get(f"/games/{copied}/standings"))
    assert json.loads(export_text(copy_app))["games"][0]["changes"] == []


# -- deleted house rules ----------------------------------------------------------------------


def test_games_of_deleted_house_rules_keep_to_themselves_in_the_history(client, app, tmp_path, actions):
    gran = save(client, GRAN)
    first = actions.new_game(f"house-{gran}", ["Ann", "Bob"], first_dealer="Ann")
    actions.record(actions.player_ids(first), first, 1, "Ann", {"Bob": "K"})
    second = actions.new_game(f"house-{gran}", ["Cy", "Dot"], first_dealer="Dot")
    client.post(f"/house-rules/{gran}/delete")
    data = json.loads(export_text(app))
    assert data["house_rules"] == [] and {g["variant_key"] for g in data["games"]} == {f"house-{gran}"}

    # Another household whose own rules have the same number, and a game played with them.
    copy_app = make_app(tmp_path, "copy.sqlite")
    copy_client = strict_client(copy_app)
    ours = save(copy_client, {**GRAN, "name": "Our Shanghai", "p_K": "25"})
    assert ours == gran
    own = actions.on(copy_client).new_game(f"house-{ours}", ["Ann", "Cy"], first_dealer="Ann")

    # The second game first, then the whole export: one rule set keeps one key.
    later = {**data, "games": [g for g in data["games"] if g["uid"] == uid_of(app, second)]}
    assert upload(copy_client, json.dumps(later).encode()).headers["Location"] == "/history"
    assert upload(copy_client, json.dumps(data).encode()).headers["Location"] == "/history"
    assert "Imported 1 games; 1 were already here." in text_of(copy_client.get("/history"))

    imported = [game_id_of(copy_app, uid_of(app, g)) for g in (first, second)]
    history = copy_client.get(f"/history?preset=house-{ours}").get_data(as_text=True)
    assert f"/games/{own}/" in history
    assert not any(f"/games/{g}/" in history for g in imported), "imported games under another rule set"

    with copy_app.app_context():
        keys = {db.session.get(Game, g).variant_key for g in imported}
        snapshots = {db.session.get(Game, g).rules["key"] for g in imported}
    assert len(keys) == 1 and snapshots == keys
    (key,) = keys
    assert key.startswith("deleted-") and checks.KEY.fullmatch(key)
    assert len(key) <= Game.__table__.c.variant_key.type.length
    deleted = copy_client.get(f"/history?preset={key}")
    assert "Gran's Shanghai (deleted)" in text_of(deleted)
    assert all(f"/games/{g}/" in deleted.get_data(as_text=True) for g in imported)
    assert f"/games/{own}/" not in deleted.get_data(as_text=True)
    assert "Gran's Shanghai" in text_of(copy_client.get(f"/games/{imported[0]}/standings"))

    # The copy's export imports elsewhere in turn.
    third = make_app(tmp_path, "third.sqlite")
    page = upload(strict_client(third), export_text(copy_app).encode())
    assert page.headers["Location"] == "/history", text_of(page)


# -- bad change histories are refused whole ---------------------------------------------------


@pytest.fixture(scope="module")
def history_export(tmp_path_factory) -> str:
    """One game (games[0]) whose changes are: recorded, edited, undone, recorded, recorded."""
    source = make_app(tmp_path_factory.mktemp("source"), "source.sqlite", keep=True)
    add_member(source, "Our family", "grandma")
    play_with_corrections(strict_client(source), source)
    text = export_text(source)
    databases.drop_app(source)
    return text


def changed(change):
    def make(text: str) -> bytes:
        data = json.loads(text)
        change(data["games"][0])
        return json.dumps(data).encode()
    return make


def entry(n: int, **fields):
    return lambda game: game["changes"][n].update(fields)


BAD_CHANGES = [
    ("not a list", lambda g: g.update(changes={"number": 1}), "games[0].changes: must be a list."),
    ("not an object", lambda g: g["changes"].__setitem__(0, "recorded"),
     "games[0].changes[0]: the field 'number' is missing."),
    ("no number", lambda g: g["changes"][0].pop("number"), "games[0].changes[0]: the field 'number' is missing."),
    ("a round the game lacks", entry(0, number=11), "games[0].changes[0].number: the game has no round 11."),
    ("number as text", entry(0, number="1"), "games[0].changes[0].number: must be a whole number."),
    ("unknown action", entry(3, action="deleted"),
     "games[0].changes[3].action: 'deleted' is not one of recorded, edited, undone."),
    ("action too long", entry(3, action="r" * 21), "games[0].changes[3].action: must be at most 20 characters."),
    ("by as a number", entry(1, by=7), "games[0].changes[1].by: must be text."),
    ("by too long", entry(1, by="g" * 41), "games[0].changes[1].by: must be at most 40 characters."),
    ("by blank", entry(1, by="  "), "games[0].changes[1].by: must name who made the change."),
    ("by with NUL", entry(1, by="gran\x00"), "games[0].changes[1].by: holds a NUL character"),
    ("no time", lambda g: g["changes"][2].pop("at"), "games[0].changes[2].at: must be a date and time."),
    ("a time that is not one", entry(2, at="yesterday"),
     "games[0].changes[2].at: 'yesterday' is not a date and time."),
    ("points for too few seats", entry(4, after=[10, 15]),
     "games[0].changes[4].after: must be 3 whole numbers, one for each seat."),
    ("points as text", entry(4, after=[10, "15", 0]),
     "games[0].changes[4].after: must be 3 whole numbers, one for each seat."),
    ("true for points", entry(4, after=[10, True, 0]),
     "games[0].changes[4].after: must be 3 whole numbers, one for each seat."),
    ("points far too large", entry(4, after=[10, 10**12, 0]),
     "games[0].changes[4].after: must be 3 whole numbers, one for each seat."),
    ("points as an object", entry(1, before={"Ann": 0}), "games[0].changes[1].before: must be a list."),
    ("an edit without points before", entry(1, before=None), "games[0].changes[1].before: must be a list."),
    ("a recording with points before", entry(0, before=[0, 0, 0]),
     "games[0].changes[0].before: must be null: a round first recorded has no points before."),
    ("a taking back with points after", entry(2, after=[0, 0, 0]),
     "games[0].changes[2].after: must be null: a round taken back has no points after."),
    ("a recording without points after", lambda g: g["changes"][0].pop("after"),
     "games[0].changes[0]: the field 'after' is missing."),
]


@pytest.fixture
def target(app):
    """An instance with a game of its own, so a partial write would show."""
    actions = GameActions(strict_client(app), app)
    game_id = actions.new_game("family-7", ["Mum", "Dad", "Lily"], first_dealer="Mum")
    actions.record(actions.player_ids(game_id), game_id, 1, "Mum", {"Dad": "K", "Lily": "5"})
    return app


@pytest.mark.parametrize("make, message", [(m, msg) for _, m, msg in BAD_CHANGES], ids=[c[0] for c in BAD_CHANGES])
def test_a_bad_change_history_is_refused_whole_with_its_path(target, client, runner, tmp_path, history_export,
                                                             make, message):
    raw = changed(make)(history_export)
    before = db_snapshot(target)
    page = upload(client, raw, "bad.json")
    assert page.status_code == 200
    assert element_text(page, "file-errors").startswith("Nothing was imported: " + message)
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    result = runner.invoke(args=["import", str(path)])
    assert result.exit_code != 0
    assert result.output.startswith("Error: Nothing imported: " + message), result.output
    assert db_snapshot(target) == before


def test_the_good_history_behind_the_bad_ones_imports(target, client, history_export):
    assert upload(client, history_export.encode()).headers["Location"] == "/history"
    assert "Imported 1 games; 0 were already here." in text_of(client.get("/history"))
    game_id = game_id_of(target, json.loads(history_export)["games"][0]["uid"])
    assert [c[1] for c in stored_changes(target, game_id)] == ["recorded", "edited", "undone", "recorded", "recorded"]


# -- too large for one request ----------------------------------------------------------------


def three_games(history_export: str) -> dict:
    """The one-game export and two copies of its game: one with other rules, one with house rules."""
    data = json.loads(history_export)
    game = data["games"][0]
    other = {**game, "uid": "copy1", "rules": {**game["rules"], "name": "Shanghai, our way"}}
    data["games"] += [{**game, "uid": "copy0"}, other]
    data["house_rules"] = [{"key": "house-7", "name": "Ours", "rules": {**game["rules"], "key": "house-7"}}]
    return data


@pytest.mark.parametrize("limits, message", [
    (checks.Limits(games=2, rule_sets=10, house_rules=10), "This export holds 3 games, more than the import page"),
    (checks.Limits(games=10, rule_sets=2, house_rules=10),
     "This export holds 3 different rules snapshots, more than the import page"),
    (checks.Limits(games=10, rule_sets=10, house_rules=0), "This export holds 1 house rules, more than the import page"),
], ids=["games", "rules snapshots", "house rules"])
def test_the_import_page_refuses_more_than_it_can_write_in_time(target, client, runner, tmp_path, history_export,
                                                                monkeypatch, limits, message):
    raw = json.dumps(three_games(history_export)).encode()
    monkeypatch.setattr(checks, "WEB_LIMITS", limits)
    before = db_snapshot(target)
    page = upload(client, raw, "big.json")
    assert page.status_code == 200
    shown = element_text(page, "file-errors")
    assert shown.startswith("Nothing was imported: " + message), shown
    assert shown.endswith("Import it on the server with the command line, which has no time limit: "
                          "flask --app scorekeeper import FILE"), shown
    assert db_snapshot(target) == before

    # The command line has no time limit.
    path = tmp_path / "big.json"
    path.write_bytes(raw)
    result = runner.invoke(args=["import", str(path)])
    assert result.output.strip() == "Imported 3 games (0 were already here).", result.output


def test_the_import_page_takes_what_its_limits_allow(target, client, history_export, monkeypatch):
    monkeypatch.setattr(checks, "WEB_LIMITS", checks.Limits(games=3, rule_sets=3, house_rules=1))
    assert upload(client, json.dumps(three_games(history_export)).encode()).headers["Location"] == "/history"
    assert "Imported 3 games; 0 were already here." in text_of(client.get("/history"))
