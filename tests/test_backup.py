"""Backups: ``flask --app scorekeeper backup -o FILE`` copies a SQLite database (online backup API)
while the app serves and writes; the copy restores as docs/hosting.md says; PostgreSQL is backed up
with pg_dump and restored with pg_restore.

The SQLite tests skip when the suite runs on PostgreSQL (``SCOREKEEPER_TEST_DATABASE_URL``), and
the PostgreSQL ones when it does not.
"""

from __future__ import annotations

import glob
import itertools
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import sqlalchemy as sa

from scorekeeper import upgrade
from scorekeeper.extensions import db
from scorekeeper.models import Game
from scorekeeper.web import page_cache
from tests import databases
from tests.actions import GameActions
from tests.databases import POSTGRES_URL, db_snapshot, drop_app, make_app, strict_client
from tests.pages import text_of

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
sqlite_only = pytest.mark.skipif(bool(POSTGRES_URL), reason="SQLite backups: this run is on PostgreSQL")
postgres_only = pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL: set SCOREKEEPER_TEST_DATABASE_URL")

# family-7 without hand 1 (rounds 2-7), Bob deals first; 2-9 = 5, 10-K = 10, A = 15, joker = 20.
HANDS = {
    2: ("Ann", {"Bob": "K K 5", "Cy": "9 10 A JK", "Di": "2 3"}, {"Ann": 0, "Bob": 25, "Cy": 50, "Di": 10}),
    3: ("Bob", {"Ann": "Q", "Cy": 40, "Di": "JK JK 7"}, {"Ann": 10, "Bob": 0, "Cy": 40, "Di": 45}),
    4: ("Cy", {"Ann": "A", "Bob": "2 3 4", "Di": "10"}, {"Ann": 15, "Bob": 15, "Cy": 0, "Di": 10}),
}


def database_path(app) -> Path:
    return Path(sa.make_url(app.config["SQLALCHEMY_DATABASE_URI"]).database)


def play(client, app, hands=(2, 3)) -> int:
    """A family-7 game with these hands scored (and a buy before each); its id."""
    actions = GameActions(client, app)
    game = actions.new_game("family-7", ["Ann", "Bob", "Cy", "Di"], first_dealer="Bob", skip_first_hand=True)
    ids = actions.player_ids(game)
    for number in hands:
        went_out, cards, _ = HANDS[number]
        buyer = next(name for name in ids if name != went_out)
        assert client.post(f"/games/{game}/rounds/{number}/buy", data={"player": ids[buyer]}).status_code == 302
        actions.record(ids, game, number, went_out, cards)
    return game


def expected_points(hands) -> dict[int, dict[str, int]]:
    return {number: HANDS[number][2] for number in hands}


def totals(hands) -> list[int]:
    return [sum(HANDS[n][2][name] for n in hands) for name in ("Ann", "Bob", "Cy", "Di")]


def standings_totals(page) -> list[int]:
    tfoot = re.search(r"<tfoot>(.*?)</tfoot>", page.get_data(as_text=True), flags=re.DOTALL)
    assert tfoot, text_of(page)[:300]
    return [int(n) for n in re.findall(r"<b>(-?\d+)</b>", tfoot.group(1))]


def backup(app, output) -> object:
    """``flask backup -o output`` in this process, as the CLI runner runs it."""
    return app.test_cli_runner().invoke(args=["backup", "-o", str(output)])


def backup_command(url: str, output: Path, instance: Path) -> subprocess.CompletedProcess:
    """``flask --app scorekeeper backup -o output`` as its own process, as cron or a shell runs it
    beside the serving workers."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SCOREKEEPER_")},
           "SCOREKEEPER_DATABASE_URL": url, "SCOREKEEPER_INSTANCE_PATH": str(instance), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "flask", "--app", "scorekeeper", "backup", "-o", str(output)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def sqlite_tables(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table of a SQLite file, read with the sqlite3 module alone."""
    connection = sqlite3.connect(path)
    try:
        names = [n for n, in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        return {name: connection.execute(f'SELECT * FROM "{name}" ORDER BY 1').fetchall() for name in names}
    finally:
        connection.close()


def integrity(path: Path) -> list[tuple]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("PRAGMA integrity_check").fetchall() + \
            connection.execute("PRAGMA foreign_key_check").fetchall()
    finally:
        connection.close()


# -- 1. a copy of the database --------------------------------------------------------------------


@sqlite_only
def test_backup_copies_the_whole_database(app, client, tmp_path, actions):
    game = play(client, app)
    out = tmp_path / "backups" / "scorekeeper-backup.sqlite"
    out.parent.mkdir()

    result = backup(app, out)

    assert result.exit_code == 0, result.output
    assert f"Wrote {out}" in result.output
    assert integrity(out) == [("ok",)]
    copied, live = sqlite_tables(out), sqlite_tables(database_path(app))
    assert copied == live
    assert {"alembic_version", "member", "game", "game_round", "result", "player_game", "round_change"} <= set(copied)
    assert len(copied["result"]) == 6 * 4 and len(copied["round_change"]) == 2
    # Only the copy is left in the folder: no temporary file, no journal beside it.
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]

    # A second backup to the same name replaces the first with what is there now.
    actions.record(actions.player_ids(game), game, 4, *HANDS[4][:2])
    result = backup(app, out)
    assert result.exit_code == 0, result.output
    assert sqlite_tables(out) == sqlite_tables(database_path(app)) != copied
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]


# -- 2. while the app is serving and writing -----------------------------------------------------


class Writer(threading.Thread):
    """Plays game after game through its own client (as a phone does): a buy, then the hand
    saved, round after round. ``saved`` counts the hands whose save has answered."""

    NAMES = ("Ann", "Bob", "Cy")

    def __init__(self, app):
        super().__init__(daemon=True)
        self.app = app
        self.client = strict_client(app)
        self.stop = threading.Event()
        self.changed = threading.Condition()
        self.saved = 0
        self.error: BaseException | None = None

    def run(self):
        actions = GameActions(self.client, self.app)
        try:
            for g in itertools.count():
                names = [f"{name} {g}" for name in self.NAMES]
                game = actions.new_game("family-7", names, first_dealer=names[0])
                ids = actions.player_ids(game)
                for i, number in enumerate(range(1, 8)):
                    if self.stop.is_set():
                        return
                    went_out, buyer = names[i % 3], names[(i + 1) % 3]
                    buy = self.client.post(f"/games/{game}/rounds/{number}/buy", data={"player": ids[buyer]})
                    assert buy.status_code == 302, text_of(buy)
                    actions.record(ids, game, number, went_out, {n: "K" for n in names if n != went_out})
                    with self.changed:
                        self.saved += 1
                        self.changed.notify_all()
        except BaseException as error:  # noqa: BLE001 - reported by the test
            self.error = error
            with self.changed:
                self.changed.notify_all()

    def wait_for(self, saved: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: self.saved >= saved or self.error, timeout=120), "writer stalled"
        if self.error:
            raise self.error


def check_consistent(path: Path) -> int:
    """A backup holds only whole hands: each scored hand has every seat's result with the writer's
    points and its buy, each hand in play has none, and the per-game summary rows and the change
    history agree with the hands. Returns how many hands are scored."""
    assert integrity(path) == [("ok",)]
    connection = sqlite3.connect(path)
    try:
        scored_in_total = 0
        games = connection.execute("SELECT id, status FROM game ORDER BY id").fetchall()
        assert games, "the backup holds no game"
        for game, status in games:
            seats = [p for p, in connection.execute(
                "SELECT player_id FROM seat WHERE game_id = ? ORDER BY position", (game,))]
            assert len(seats) == 3
            rounds = connection.execute(
                "SELECT id, number, recorded_at FROM game_round WHERE game_id = ? ORDER BY position", (game,)
            ).fetchall()
            assert [n for _, n, _ in rounds] == list(range(1, 8))
            scored, points_by_player, buys_by_player = [], {p: 0 for p in seats}, {p: 0 for p in seats}
            for round_id, number, recorded_at in rounds:
                results = connection.execute(
                    "SELECT player_id, went_out, cards, points, buys FROM result WHERE round_id = ? ORDER BY position",
                    (round_id,)).fetchall()
                assert [r[0] for r in results] == seats, f"game {game} round {number}: a seat's result is missing"
                i = number - 1
                if recorded_at is None:
                    assert [(r[1], r[2], r[3]) for r in results] == [(0, "", 0)] * 3, f"game {game} round {number}"
                    continue
                scored.append(number)
                out_seat, buyer_seat = i % 3, (i + 1) % 3
                assert [(r[1], r[2], r[3]) for r in results] == [
                    (1, "", 0) if seat == out_seat else (0, "K", 10) for seat in range(3)
                ], f"game {game} round {number} is scored but not whole"
                assert [r[4] for r in results] == [int(seat == buyer_seat) for seat in range(3)]
                for player, _, _, points, buys in results:
                    points_by_player[player] += points
                    buys_by_player[player] += buys
            assert scored == list(range(1, len(scored) + 1)), f"game {game}: hands scored out of order"
            assert status == ("finished" if len(scored) == 7 else "in_progress")
            summary = {p: (hands, total, buys) for p, hands, total, buys in connection.execute(
                "SELECT player_id, hands_played, total, buys FROM player_game WHERE game_id = ?", (game,))}
            assert summary == {p: (len(scored), points_by_player[p], buys_by_player[p]) for p in seats}, \
                f"game {game}: summary and hands disagree"
            changes = [n for n, in connection.execute(
                "SELECT number FROM round_change WHERE game_id = ? AND action = 'recorded' ORDER BY id", (game,))]
            assert changes == scored, f"game {game}: change history and hands disagree"
            scored_in_total += len(scored)
        return scored_in_total
    finally:
        connection.close()


@sqlite_only
def test_backups_while_hands_are_saved_hold_whole_hands(app, tmp_path):
    """Backups taken while a phone keeps buying and saving hands: each is a sound database holding
    whole hands only, and at least every hand saved before it began. Taken both in the serving
    process and by the command as its own process."""
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    writer = Writer(app)
    writer.start()
    held, saved_before = [], 0
    try:
        for n in range(4):  # two of each kind: enough to see later backups hold more
            writer.wait_for(saved_before + 2)  # more hands saved since the last backup began
            saved_before = writer.saved
            out = tmp_path / f"backup-{n}.sqlite"
            if n % 2:
                result = backup_command(url, out, tmp_path / "instance")
                assert result.returncode == 0, result.stderr[-3000:]
                assert "Traceback" not in result.stderr
            else:
                result = backup(app, out)
                assert result.exit_code == 0, result.output
            held.append(check_consistent(out))
            assert held[-1] >= saved_before, f"backup {n} lacks hands saved before it began"
    finally:
        writer.stop.set()
        writer.join(timeout=120)
    assert not writer.is_alive()
    if writer.error:
        raise writer.error
    assert held == sorted(held) and held[0] < held[-1], held
    assert not list(tmp_path.glob("*.part")), "a temporary file was left behind"
    # The live database is sound too and holds everything the writer saved.
    assert check_consistent(database_path(app)) == writer.saved


# -- 3. restore ----------------------------------------------------------------------------------


@sqlite_only
def test_restore_brings_back_what_the_backup_held(tmp_path):
    """The restore of docs/hosting.md: stop the app, copy the backup over the database file, delete any
    ``-wal``/``-shm`` files beside it, start the app. Hands saved after the backup are gone."""
    app = make_app(tmp_path, keep=True)
    client = strict_client(app)
    game = play(client, app, hands=(2, 3))
    out = tmp_path / "nightly.sqlite"
    assert backup(app, out).exit_code == 0
    before_backup = db_snapshot(app)

    actions = GameActions(client, app)
    actions.record(actions.player_ids(game), game, 4, *HANDS[4][:2])  # after the backup
    assert sorted(actions.stored_points(game)) == [2, 3, 4]
    database = database_path(app)

    # 1. Stop the app (every connection closed).
    drop_app(app)
    # 2. Copy the backup over the database file; 3. delete its -wal and -shm files.
    shutil.copyfile(out, database)
    for suffix in ("-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    # 4. Start the app again.
    restored = make_app(database_url=f"sqlite:///{database}")

    assert db_snapshot(restored) == before_backup
    client = strict_client(restored)  # the member is in the backup: the same sign-in works
    actions = GameActions(client, restored)
    assert actions.stored_points(game) == expected_points((2, 3))
    page = client.get(f"/games/{game}/standings")
    assert page.status_code == 200, text_of(page)
    assert standings_totals(page) == totals((2, 3))
    assert "Leading after 2 of 6: Ann (10)" in text_of(page)
    # Play goes on from the restored hand.
    actions.record(actions.player_ids(game), game, 4, *HANDS[4][:2])
    assert actions.stored_points(game) == expected_points((2, 3, 4))
    assert standings_totals(client.get(f"/games/{game}/standings")) == totals((2, 3, 4))


@sqlite_only
def test_a_phone_is_not_shown_pages_from_before_the_restore(tmp_path, monkeypatch):
    """The same phone (same session cookie) before and after a restore: its cached standings,
    drawn from a hand the restore took away, must not be confirmed as current."""
    app = make_app(tmp_path, keep=True)
    phone = strict_client(app)
    game = play(phone, app, hands=(2, 3))
    out = tmp_path / "nightly.sqlite"
    assert backup(app, out).exit_code == 0

    actions = GameActions(phone, app)
    actions.record(actions.player_ids(game), game, 4, *HANDS[4][:2])  # after the backup: lost in the restore
    phone.get(f"/games/{game}")  # shows the "saved" message; later pages are cacheable
    seen = phone.get(f"/games/{game}/standings")
    assert standings_totals(seen) == totals((2, 3, 4)) and seen.headers.get("ETag")
    session_cookie = phone.get_cookie("session").value

    database = database_path(app)
    drop_app(app)
    shutil.copyfile(out, database)
    for suffix in ("-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    # A restarted server process starts with no pages in memory, and a new start mark.
    page_cache.pages.clear()
    monkeypatch.setattr(page_cache, "STARTED", "restarted")
    restored = make_app(database_url=f"sqlite:///{database}")
    phone = strict_client(restored, None)
    phone.set_cookie("session", session_cookie)  # the phone kept its cookie and its cached page

    # Hand 4 entered again, this time correctly: Di held an ace (15), not a ten (10).
    went_out, cards, _ = HANDS[4]
    actions = GameActions(phone, restored)
    actions.record(actions.player_ids(game), game, 4, went_out, {**cards, "Di": "A"})
    expected = [t + (5 if name == "Di" else 0) for name, t in zip(("Ann", "Bob", "Cy", "Di"), totals((2, 3, 4)))]
    phone.get(f"/games/{game}")
    assert standings_totals(phone.get(f"/games/{game}/standings")) == expected

    revalidated = phone.get(f"/games/{game}/standings", headers={"If-None-Match": seen.headers["ETag"]})
    assert revalidated.status_code == 200, "the phone was told its page from before the restore is current"
    assert standings_totals(revalidated) == expected


# -- 4. mistakes ---------------------------------------------------------------------------------


@sqlite_only
def test_backup_over_the_database_itself_is_refused(app, runner):
    database = database_path(app)
    before = database.read_bytes()
    result = runner.invoke(args=["backup", "-o", str(database)])
    assert result.exit_code == 1
    assert "is the database itself" in result.output
    assert database.read_bytes() == before


@sqlite_only
def test_backup_into_a_missing_folder_says_so(app, runner, tmp_path):
    out = tmp_path / "no such folder" / "backup.sqlite"
    result = runner.invoke(args=["backup", "-o", str(out)])
    assert result.exit_code == 1
    assert f"The folder {out.parent} does not exist." in result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    assert not out.parent.exists()


@sqlite_only
def test_backup_onto_a_folder_says_so(app, runner, tmp_path):
    folder = tmp_path / "backups"
    folder.mkdir()
    result = runner.invoke(args=["backup", "-o", str(folder)])
    assert result.exit_code == 2  # a usage error
    assert "is a directory" in result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    assert list(folder.iterdir()) == []


@sqlite_only
def test_backup_without_output_says_so(runner):
    result = runner.invoke(args=["backup"])
    assert result.exit_code == 2
    assert "Missing option '-o' / '--output'" in result.output


@postgres_only
def test_backup_on_postgresql_points_to_pg_dump(app, runner, tmp_path):
    out = tmp_path / "backup.sqlite"
    result = runner.invoke(args=["backup", "-o", str(out)])
    assert result.exit_code == 1
    assert "not SQLite" in result.output and "pg_dump" in result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    assert not out.exists() and list(tmp_path.glob("*.part")) == []


# -- 5. PostgreSQL: pg_dump and pg_restore ---------------------------------------------------------


def postgres_tool(name: str) -> str | None:
    """The newest server version's tool, else the one on PATH."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    return found[-1] if found else shutil.which(name)


def libpq_url(url: str) -> str:
    """pg_dump takes ``postgresql://``, not SQLAlchemy's ``postgresql+psycopg://``."""
    return sa.make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture
def new_database():
    """The URL of a new, empty PostgreSQL database, dropped after the test."""
    with databases.empty_postgres_database("scorekeeper_restore") as url:
        yield url


def run_tool(*args) -> None:
    done = subprocess.run([postgres_tool(args[0]), *args[1:]], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, f"{args[0]}: {done.stderr}"


@postgres_only
@pytest.mark.skipif(not (postgres_tool("pg_dump") and postgres_tool("pg_restore")),
                    reason="pg_dump and pg_restore are not installed")
@pytest.mark.parametrize("target", ["same-database", "new-database"])
def test_pg_dump_and_pg_restore_keep_the_games(app, client, tmp_path, request, target, actions):
    """The PostgreSQL procedure of docs/hosting.md: ``pg_dump --format=custom`` while serving; later, with the
    app stopped, ``pg_restore --clean --if-exists --no-owner`` over the same database (or into a
    new empty one); the app then shows what the dump held, and play goes on."""
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    game = play(client, app, hands=(2, 3, 4))
    dump = tmp_path / "scorekeeper.dump"
    run_tool("pg_dump", "--format=custom", f"--file={dump}", libpq_url(url))
    at_dump = db_snapshot(app)

    # Changes after the dump, which the restore takes away.
    actions.record(actions.player_ids(game), game, 5, "Di", {"Ann": "K", "Bob": "5", "Cy": 30})
    later = actions.new_game("family-7", ["Fay", "Gus", "Hal"], first_dealer="Fay")
    assert db_snapshot(app) != at_dump

    with app.app_context():  # stop the app: every connection closed
        db.session.remove()
        db.engine.dispose()
    if target == "new-database":
        url = request.getfixturevalue("new_database")
    run_tool("pg_restore", "--clean", "--if-exists", "--no-owner", "--exit-on-error", f"--dbname={libpq_url(url)}",
             str(dump))

    restored = make_app(database_url=url)
    assert db_snapshot(restored) == at_dump
    with restored.app_context():
        assert upgrade.upgrade_database() is False  # at the newest revision already
        assert db.session.get(Game, later) is None
    client = strict_client(restored)  # the member came back with the rest
    page = client.get(f"/games/{game}/standings")
    assert page.status_code == 200, text_of(page)
    assert standings_totals(page) == totals((2, 3, 4))
    assert "Leading after 3 of 6: Ann (25)" in text_of(page)
    # Play goes on, and the sequences came back too: new rows get fresh ids.
    again = GameActions(client, restored)
    again.record(again.player_ids(game), game, 5, "Di", {"Ann": "K", "Bob": "5", "Cy": 30})
    assert again.stored_points(game)[5] == {"Ann": 10, "Bob": 5, "Cy": 30, "Di": 0}
    another = again.new_game("family-7", ["Fay", "Gus", "Hal"], first_dealer="Fay")
    assert again.stored_points(another) == {}
