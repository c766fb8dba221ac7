"""Phones racing each other and a server that dies mid-game, against real gunicorn processes.

Each test starts gunicorn with the documented settings (two worker processes) on a fresh
database: SQLite, or PostgreSQL when the suite runs on it. Requests come from this process
over HTTP, with the sign-in page, session cookies and CSRF tokens a phone uses.
"""

from __future__ import annotations

import http.client
import os
import re
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest
import sqlalchemy as sa

from scorekeeper import families, rules
from scorekeeper.extensions import db
from scorekeeper.games import service
from scorekeeper.models import Game, GameRound, Player, PlayerGame, Result, RoundChange
from tests.actions import GameActions
from tests.databases import POSTGRES_URL, TEST_PASSWORD, TEST_USERNAME, make_app
from tests.pages import input_value, text_of

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["Ann", "Bob", "Cy"]


# -- a server and phones -------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """gunicorn as docs/hosting.md runs it (``scorekeeper.gunicorn_conf``: two workers)."""

    def __init__(self, database_url: str, instance: Path):
        self.database_url, self.instance = database_url, instance
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.secret = "concurrency-test-" + secrets.token_hex(16)  # the same after a restart

    def start(self, port: int | None = None) -> Server:
        """Serve on ``port`` (a free one when not given: a restart passes the old one)."""
        self.port = port or _free_port()
        env = {
            **os.environ,
            "SCOREKEEPER_DATABASE_URL": self.database_url,
            "SCOREKEEPER_INSTANCE_PATH": str(self.instance),
            "SCOREKEEPER_SECRET_KEY": self.secret,
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "python:scorekeeper.gunicorn_conf",
             "--bind", f"127.0.0.1:{self.port}", "--log-level", "warning", "scorekeeper:create_app()"],
            cwd=ROOT, env=env, start_new_session=True,  # its own process group, to kill it whole
        )
        for _ in range(300):
            try:
                if Phone(self.port).get("/healthz").status == 200:
                    return self
            except OSError:
                pass
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}")
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("gunicorn did not answer within 30 s")

    def workers(self) -> int:
        found = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return len(found.split())

    def kill(self) -> None:
        """SIGKILL to the master and every worker at once: a crash, nothing gets to clean up."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class Reply:
    status: int
    location: str
    body: str
    etag: str = ""

    @property
    def text(self) -> str:
        return text_of(self.body)


class Phone:
    """One phone at the table: its own cookies; signs in on the sign-in page like a person."""

    def __init__(self, port: int):
        self.port = port
        self.cookies: dict[str, str] = {}
        self.csrf = ""

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def request(self, method: str, path: str, form: dict | None = None, headers: dict | None = None) -> Reply:
        connection = self.connection()
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode({**form, "csrf_token": self.csrf}, doseq=True)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body, headers)
            response = connection.getresponse()
            data = response.read().decode()
            self.headers_seen = response.headers
            for header in response.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                self.cookies[name] = rest.split(";")[0]
            return Reply(response.status, urlsplit(response.headers.get("Location", "")).path, data,
                         response.headers.get("ETag", ""))
        finally:
            connection.close()

    def get(self, path: str, headers: dict | None = None) -> Reply:
        return self.request("GET", path, headers=headers)

    def post(self, path: str, form: dict) -> Reply:
        return self.request("POST", path, form)

    def follow(self, reply: Reply) -> Reply:
        assert reply.status in (302, 303), f"expected a redirect, got {reply.status}: {reply.text[:200]}"
        return self.get(reply.location)

    def sign_in(self) -> Phone:
        self.csrf = input_value(self.get("/login").body, "csrf_token")
        reply = self.post("/login", {"username": TEST_USERNAME, "password": TEST_PASSWORD, "remember": "y"})
        assert reply.status == 302, reply.text[:300]
        # A new session begins at sign-in; forms from now on carry its token.
        self.csrf = input_value(self.get("/games/new").body, "csrf_token")
        return self


def at_once(*calls):
    """Run the calls in threads released together, so their requests reach the server together."""
    start = threading.Barrier(len(calls))

    def run(call):
        start.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


# -- fixtures ------------------------------------------------------------------------------


@pytest.fixture
def served(tmp_path):
    """(app, server): the test's database, with ``tester`` signed up, served by gunicorn."""
    app = make_app(tmp_path)
    server = Server(app.config["SQLALCHEMY_DATABASE_URI"], tmp_path / "instance").start()
    yield app, server
    server.stop()


def start_game(app, variant_key: str = "shanghai-10") -> tuple[int, dict[str, int]]:
    """A new game for Ann, Bob and Cy (Ann deals first): its id and the players' ids."""
    with app.app_context():
        family = families.sole_family()
        saved = {p.name: p.id for p in families.family_players(family)}
        seats = [service.SeatChoice(player_id=saved.get(name), new_name=name) for name in NAMES]
        game = service.start_game(family, rules.get_variant(variant_key), seats, first_dealer=0)
        ids = {p.name: p.id for p in game.players}
        game_id = game.id
        db.session.remove()
    return game_id, ids


def round_form(ids: dict[str, int], went_out: str, cards: dict[str, dict[str, int]], version: str) -> dict:
    form = {"went_out": str(ids[went_out]), "action": "save", "version": version}
    for name, counts in cards.items():
        for code, count in counts.items():
            form[f"p{ids[name]}-k_{code}"] = str(count)
    return form


def opened_version(phone: Phone, game_id: int, number: int) -> str:
    """The version the card-entry page carries when the phone opens it."""
    return input_value(phone.get(f"/games/{game_id}/rounds/{number}/score").body, "version")


def changes_of(app, game_id: int, number: int) -> list[str]:
    with app.app_context():
        return list(db.session.execute(
            db.select(RoundChange.action).where(RoundChange.game_id == game_id, RoundChange.number == number)
            .order_by(RoundChange.id)
        ).scalars())


# -- the races -----------------------------------------------------------------------------

# Two different endings of the same hand, entered on two phones, and the points each gives.
HANDS = {
    "A": ("Ann", {"Bob": {"K": 1}, "Cy": {"5": 2}}),
    "B": ("Bob", {"Ann": {"A": 1}, "Cy": {"K": 2}}),
}
POINTS = {"A": {"Ann": 0, "Bob": 10, "Cy": 10}, "B": {"Ann": 15, "Bob": 0, "Cy": 20}}


def test_the_server_runs_two_worker_processes(served):
    _, server = served
    assert server.workers() >= 2


def test_two_phones_recording_the_same_round_at_the_same_moment_store_it_once(served):
    app, server = served
    game_id, ids = start_game(app)
    phones = [Phone(server.port).sign_in(), Phone(server.port).sign_in()]
    actions = GameActions(app=app)
    for number in range(1, 7):
        versions = [opened_version(phone, game_id, number) for phone in phones]
        replies = at_once(*(
            lambda phone=phone, hand=hand, version=version: phone.post(
                f"/games/{game_id}/rounds/{number}/score", round_form(ids, *hand, version))
            for phone, hand, version in zip(phones, HANDS.values(), versions)
        ))
        saved = [i for i, r in enumerate(replies) if r.location == f"/games/{game_id}"]
        assert len(saved) == 1, f"round {number}: {[(r.status, r.location) for r in replies]}"
        winner, loser = saved[0], 1 - saved[0]
        assert f"Round {number} saved." in phones[winner].follow(replies[winner]).text

        # The other phone is told, and shown what is stored: the winner's hand.
        page = phones[loser].follow(replies[loser]).text
        assert f"Round {number} was saved from another tap or phone in the meantime" in page
        assert actions.stored_points(game_id)[number] == POINTS["AB"[winner]]
        assert changes_of(app, game_id, number) == ["recorded"]
    expected_totals = [sum(actions.stored_points(game_id)[n][name] for n in range(1, 7)) for name in NAMES]
    assert f"Total {' '.join(map(str, expected_totals))}" in page


def test_two_phones_correcting_a_round_at_once_the_second_save_is_refused(served):
    app, server = served
    game_id, ids = start_game(app)
    phones = [Phone(server.port).sign_in(), Phone(server.port).sign_in()]
    phones[0].post(f"/games/{game_id}/rounds/1/score", round_form(ids, "Cy", {"Ann": {"Q": 1}, "Bob": {"Q": 1}}, "0"))
    for attempt in range(4):
        versions = [opened_version(phone, game_id, 1) for phone in phones]
        assert versions[0] == versions[1]  # both opened the same stored round
        replies = at_once(*(
            lambda phone=phone, hand=hand, version=version: phone.post(
                f"/games/{game_id}/rounds/1/score", round_form(ids, *hand, version))
            for phone, hand, version in zip(phones, HANDS.values(), versions)
        ))
        pages = [phone.follow(reply).text for phone, reply in zip(phones, replies)]
        updated = [i for i, page in enumerate(pages) if "Round 1 updated." in page]
        refused = [i for i, page in enumerate(pages) if "Round 1 was saved from another tap or phone" in page]
        assert len(updated) == 1 and len(refused) == 1, f"attempt {attempt}: {pages}"
        assert GameActions(app=app).stored_points(game_id)[1] == POINTS["AB"[updated[0]]]
        assert changes_of(app, game_id, 1) == ["recorded"] + ["edited"] * (attempt + 1)


def test_phones_pressing_buy_at_the_limit_never_pass_it(served):
    app, server = served
    game_id, ids = start_game(app)
    limit = rules.get_variant("shanghai-10").rounds[0].buy_limit
    phones = [Phone(server.port).sign_in() for _ in range(3)]
    buy = f"/games/{game_id}/rounds/1/buy"

    def buys_of_cy() -> int:
        with app.app_context():
            return db.session.execute(
                db.select(Result.buys).join(Result.round)
                .where(GameRound.game_id == game_id, GameRound.number == 1, Result.player_id == ids["Cy"])
            ).scalar_one()

    def press_buy_together() -> list[str]:
        """Every phone presses Buy at once; the page each phone then shows."""
        replies = at_once(*(lambda phone=phone: phone.post(buy, {"player": ids["Cy"]}) for phone in phones))
        return [phone.follow(reply).text for phone, reply in zip(phones, replies)]

    # From none: everyone presses at once, again and again, past the limit.
    for _ in range(limit):
        press_buy_together()
    assert buys_of_cy() == limit

    # One buy left: three phones press together; exactly one gets it, the others are told why.
    phones[0].post(f"/games/{game_id}/rounds/1/unbuy", {"player": ids["Cy"]})
    assert buys_of_cy() == limit - 1
    refused = [page for page in press_buy_together() if f"Cy has used all {limit} buys this round." in page]
    assert len(refused) == len(phones) - 1
    assert buys_of_cy() == limit


# -- a crash in the middle of a game ------------------------------------------------------


def hand_for(number: int) -> str:
    return "AB"[number % 2]


def test_a_server_killed_mid_game_loses_no_saved_round_and_half_writes_nothing(tmp_path):
    app = make_app(tmp_path)
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    if not POSTGRES_URL:
        with app.app_context():
            settings = db.session.execute(sa.text("PRAGMA journal_mode")).scalar(), \
                db.session.execute(sa.text("PRAGMA busy_timeout")).scalar()
        assert settings == ("wal", 5000)
    games = [start_game(app) for _ in range(12)]
    server = Server(url, tmp_path / "instance").start()
    acknowledged: list[tuple[int, int]] = []
    unexpected: list[str] = []
    stop = threading.Event()

    def record_rounds(chunk):
        """Record every hand of these games in turn, noting each save the server confirmed."""
        phone = Phone(server.port).sign_in()
        try:
            for game_id, ids in chunk:
                for number in range(1, 11):
                    if stop.is_set():
                        return
                    form = round_form(ids, *HANDS[hand_for(number)], "0")
                    reply = phone.post(f"/games/{game_id}/rounds/{number}/score", form)
                    if reply.status == 302 and reply.location.startswith(f"/games/{game_id}"):
                        acknowledged.append((game_id, number))
                    else:
                        unexpected.append(f"game {game_id} round {number}: {reply.status} {reply.location}")
        except (OSError, http.client.HTTPException):
            return  # the server died under this request: its answer never came

    threads = [threading.Thread(target=record_rounds, args=(games[i::3],)) for i in range(3)]
    for thread in threads:
        thread.start()
    while len(acknowledged) < 40 and any(t.is_alive() for t in threads):
        time.sleep(0.01)
    server.kill()
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    assert not unexpected
    confirmed = set(acknowledged)
    assert len(confirmed) >= 40

    if not POSTGRES_URL:
        with sqlite3.connect(sa.make_url(url).database) as connection:
            assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    # Restarted on the same database, the app has every confirmed hand, each one whole.
    server = Server(url, tmp_path / "instance").start()
    try:
        phone = Phone(server.port).sign_in()
        with app.app_context():
            db.session.remove()
            recorded = {tuple(row) for row in db.session.execute(
                db.select(GameRound.game_id, GameRound.number).where(GameRound.recorded_at.is_not(None))
            )}
            assert confirmed <= recorded
            # At most the one hand per phone that was in flight when the server died.
            assert len(recorded - confirmed) <= len(threads)
            for game_id, ids in games:
                game = db.session.get(Game, game_id)
                scored = [r for r in game.rounds if r.recorded_at is not None]
                for round_ in scored:
                    expected = POINTS[hand_for(round_.number)]
                    assert [r.points for r in round_.results] == [expected[n] for n in NAMES]
                    assert changes_of(app, game_id, round_.number) == ["recorded"]
                # The per-player summaries were written in the same transactions as the hands.
                summaries = {row.player_id: row for row in db.session.execute(
                    db.select(PlayerGame).where(PlayerGame.game_id == game_id)).scalars()}
                for player_id in ids.values():
                    assert summaries[player_id].hands_played == len(scored)
                    assert summaries[player_id].total == sum(r.result_for(player_id).points for r in scored)
                if scored:
                    totals = " ".join(str(summaries[ids[n]].total) for n in NAMES)
                    assert f"Total {totals}" in phone.get(f"/games/{game_id}/standings").text
    finally:
        server.stop()


# -- phones sending again what they kept offline, and the live scoreboard ----------------------


def test_the_same_submission_arriving_on_both_workers_at_once_counts_once(served):
    app, server = served
    game_id, ids = start_game(app)
    phones = [Phone(server.port).sign_in() for _ in range(2)]
    for attempt in range(3):
        form = {"player": str(ids["Bob"]), "submission": f"kept-buy-{attempt}-{secrets.token_hex(8)}"}
        replies = at_once(*(
            lambda phone=phone: phone.post(f"/games/{game_id}/rounds/1/buy", form) for phone in phones * 3
        ))
        assert all(r.status == 302 for r in replies), [r.status for r in replies]
        with app.app_context():
            bob = db.session.execute(db.select(Result.buys).where(Result.player_id == ids["Bob"])).scalars().first()
        assert bob == attempt + 1

    version = opened_version(phones[0], game_id, 1)
    form = {**round_form(ids, *HANDS["A"], version), "submission": "kept-hand-" + secrets.token_hex(8)}
    replies = at_once(*(lambda phone=phone: phone.post(f"/games/{game_id}/rounds/1/score", form) for phone in phones))
    # Both are told it is saved: it is one submission, however often it arrives.
    assert [r.location for r in replies] == [f"/games/{game_id}"] * 2
    assert changes_of(app, game_id, 1) == ["recorded"]
    assert GameActions(app=app).stored_points(game_id)[1] == POINTS["A"]


def test_scoreboard_polls_get_304_from_every_worker_until_a_change_on_any(served):
    app, server = served
    game_id, ids = start_game(app)
    keeper = Phone(server.port).sign_in()
    keeper.post(f"/games/{game_id}/share", {"kind": "view"})
    token = re.search(r"/live/([\w-]+)", keeper.get(f"/games/{game_id}/share").body).group(1)
    boards = [Phone(server.port) for _ in range(4)]  # phones and a TV, no login
    first = boards[0].get(f"/live/{token}/board")
    assert first.status == 200 and first.etag

    def polls(etag: str) -> list[Reply]:
        return at_once(*(lambda b=b: b.get(f"/live/{token}/board", {"If-None-Match": etag}) for b in boards * 3))

    assert {r.status for r in polls(first.etag)} == {304}
    keeper.post(f"/games/{game_id}/rounds/1/buy", {"player": str(ids["Cy"])})
    changed = polls(first.etag)
    assert {r.status for r in changed} == {200}
    assert len({r.etag for r in changed}) == 1
    assert all(re.search(r'Cy</th>\s*<td class="num">1/3', r.body) for r in changed)
    assert {r.status for r in polls(changed[0].etag)} == {304}


@pytest.mark.skipif(not POSTGRES_URL, reason="PostgreSQL: set SCOREKEEPER_TEST_DATABASE_URL (SQLite's writers queue)")
def test_two_requests_that_each_wrote_a_row_of_the_family_take_its_lock_in_turn_never_deadlocked(app):
    """A game started on one phone (its new row names the family, then its rules are noted under the
    family's lock) while another phone's hand ends a game (its submission id names the family, then the
    ratings are redone under the same lock): one waits for the other, and both are stored."""
    with app.app_context():
        family_id = families.sole_family().id
    wrote = {name: threading.Event() for name in ("A", "B")}
    failed = []

    def request(name: str, other: str) -> None:
        with app.app_context():
            try:
                db.session.execute(sa.text("SET lock_timeout = '10s'"))
                db.session.add(Player(family_id=family_id, name=f"Player {name}"))
                db.session.flush()  # the new row holds a key-share lock on the family's row
                wrote[name].set()
                assert wrote[other].wait(10)
                families.lock_family(family_id)
                db.session.commit()
            except Exception as error:  # a deadlock, reported below
                db.session.rollback()
                failed.append(f"{name}: {type(error).__name__}: {str(error).splitlines()[0]}")
                wrote[name].set()

    threads = [threading.Thread(target=request, args=pair) for pair in (("A", "B"), ("B", "A"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert failed == []
    with app.app_context():
        names = set(db.session.execute(sa.select(Player.name).where(Player.family_id == family_id))
                    .scalars())
    assert {"Player A", "Player B"} <= names
