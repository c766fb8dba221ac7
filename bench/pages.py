"""The pages of the benchmark: the families' data, the endpoints, SQL statements and in-process
draws of each page, and what a phone downloads for each (Chromium). The draws over HTTP right after
a change are bench/draws.py."""

from __future__ import annotations

import os
import statistics
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from http_load import Browser

PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed"]
RESERVED = 6  # fresh games kept for the in-process count and timing of a recorded round
BENCH_USER, BENCH_PASSWORD = "bench", "a bench password"
QUEUE_USER = "bench-queue"  # the member of the second family, whose fresh games take the queued hands
BASELINE = "baseline /healthz"


def prepare(folder: Path, games: int, fresh_games: int, finished: int = 40) -> dict:
    """Seed a SQLite database and set up the games the endpoints need; returns ids for the URLs.

    The family is shaped like a real one: its history of ``games`` finished games and one game at
    its table, played by five of its own players (the busiest first, whose profile is timed), with
    every hand in but the last, so a hand finishes it and an undo opens it again. The fresh games a
    phone's queued hands are sent to belong to a second family on the same server (``ids["queue"]``)."""
    os.environ["SCOREKEEPER_INSTANCE_PATH"] = str(folder)  # its secret key is made there too
    os.environ.pop("SCOREKEEPER_DATABASE_URL", None)
    from scorekeeper import create_app, families, rules
    from scorekeeper.accounts import service as account_service
    from scorekeeper.demo import seed_demo
    from scorekeeper.extensions import db
    from scorekeeper.games import hands, service
    from scorekeeper.history.seasons import parse_period, season_games
    from scorekeeper.models import Game
    from scorekeeper.sharing import service as sharing

    app = create_app()
    with app.app_context():
        member = account_service.create_family("The Benchmarks", BENCH_USER, BENCH_PASSWORD)
        family = member.family
        seed_demo(family, games, seed=1)
        players = _busiest(family) + [p.id for p in families.family_players(family)]
        seated = list(dict.fromkeys(players))[:len(PLAYERS)]
        variant = rules.get_variant("shanghai-10")
        playing = service.start_game(family, variant, [service.SeatChoice(player_id=p) for p in seated], first_dealer=0)
        # The game at the table is the family's newest (the demo history runs to the end of today), so
        # finishing it counts it into the kept statistics as a real table's last hand does.
        newest = db.session.execute(db.select(db.func.max(Game.started_at)).where(Game.family_id == family.id)).scalar()
        playing.started_at = max(playing.started_at, newest + timedelta(minutes=1))
        db.session.commit()
        last = playing.rounds[-1].number
        for number in range(1, last):
            hands.record_round(playing, number, table_hand(seated, number % len(seated)), version=0)
        scoreboard = sharing.create(playing, "view", member)  # a phone or TV watching the game
        ids = {
            "playing": playing.id,
            "round": last,
            "seats": seated,
            "player": seated[0],
            "other": seated[1],
            "member": member.get_id(),
            "scoreboard": f"/live/{scoreboard.token}/board",
            "finished": finished_shapes(finished),
            "year": datetime.now(UTC).year,  # the demo history ends today
            "year_games": len(season_games(family, parse_period(str(datetime.now(UTC).year)))),
            "queue": _queue_family(fresh_games),
        }
        db.session.remove()
    return ids


def table_hand(seats: list[int], out: int) -> list:
    """A hand of the game at the table: the player at ``out`` goes out, the others hold a King and two Fives."""
    from scorekeeper import rules

    return [rules.Hand(player_id=pid, went_out=i == out, laid_down=True, counts={} if i == out else {"K": 1, "5": 2})
            for i, pid in enumerate(seats)]


def _busiest(family) -> list[int]:
    """The family's players, most finished games first."""
    from scorekeeper.extensions import db
    from scorekeeper.models import FINISHED, PlayerGame

    return list(db.session.execute(
        db.select(PlayerGame.player_id).where(PlayerGame.family_id == family.id, PlayerGame.status == FINISHED)
        .group_by(PlayerGame.player_id).order_by(db.func.count().desc(), PlayerGame.player_id)
    ).scalars())


def _queue_family(fresh_games: int) -> dict:
    """A second family with ``fresh_games`` games just started, for the phone's queued hands."""
    from scorekeeper import rules
    from scorekeeper.accounts import service as account_service
    from scorekeeper.games import service

    member = account_service.create_family("The Next Table", QUEUE_USER, BENCH_PASSWORD)
    players = seat_players(member.family, PLAYERS)
    seats = [service.SeatChoice(player_id=players[n].id) for n in PLAYERS]
    variant = rules.get_variant("shanghai-10")
    fresh = [service.start_game(member.family, variant, seats, first_dealer=0).id for _ in range(fresh_games)]
    return {"member": member.get_id(), "fresh": fresh, "player_ids": {n: players[n].id for n in PLAYERS}}


def seat_players(family, names: list[str]) -> dict:
    """The family's players of these names, added when missing."""
    from scorekeeper import families
    from scorekeeper.extensions import db
    from scorekeeper.models import Player

    players = {p.name: p for p in families.family_players(family)}
    for name in names:
        if name not in players:
            players[name] = Player(family_id=family.id, name=name)
            db.session.add(players[name])
    db.session.commit()
    return players


def finished_shapes(limit: int) -> list[tuple[int, int, int]]:
    """The newest finished games as (id, hands, players): the size of each one's score sheet."""
    from scorekeeper.extensions import db
    from scorekeeper.models import FINISHED, Game, GameRound, Seat

    newest = db.select(Game.id).where(Game.status == FINISHED).order_by(Game.id.desc()).limit(limit).subquery()
    hands = db.select(GameRound.game_id, db.func.count().label("n")).group_by(GameRound.game_id).subquery()
    seats = db.select(Seat.game_id, db.func.count().label("n")).group_by(Seat.game_id).subquery()
    rows = db.session.execute(
        db.select(newest.c.id, hands.c.n, seats.c.n)
        .join(hands, hands.c.game_id == newest.c.id).join(seats, seats.c.game_id == newest.c.id)
        .order_by(newest.c.id.desc())
    ).all()
    return [tuple(row) for row in rows]


def endpoints(ids: dict, games: int) -> dict[str, str]:
    """Every page of the benchmark, /healthz first (the baseline)."""
    deep = max(1, min(games // 25, 300))  # page 300 at 10,000 games; the last page of a small history
    playing = ids["playing"]
    return {
        BASELINE: "/healthz",
        "home": "/",
        "round screen": f"/games/{playing}",
        "card entry": f"/games/{playing}/rounds/{ids['round']}/score",
        "standings with chance to win": f"/games/{playing}/standings",
        "scoreboard (public board)": ids["scoreboard"],
        "history page 1": "/history",
        "history deep page": f"/history?page={deep}",
        "player profile": f"/players/{ids['player']}",
        "records": "/records",
        "head-to-head": f"/records?a={ids['player']}&b={ids['other']}",
        "season page": f"/seasons/{ids['year']}",
    }


def hand_action(queue: dict, game: int) -> dict:
    """Round 1 of a fresh game of the second family as a phone queues it (``games.actions``): Ann goes
    out, the others hold a King and two Fives."""
    pid = queue["player_ids"]
    return {"id": f"bench-hand-{game}", "kind": "hand", "round": 1, "base": 0, "hands": [
        {"player": pid[name], "went_out": name == "Ann", "laid_down": True, "buys": 0,
         "counts": {} if name == "Ann" else {"K": 1, "5": 2}, "total": None} for name in PLAYERS]}


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


QUEUED = "a queued hand (POST /actions)"


def count_queries(folder: Path, ids: dict, games: int) -> tuple[dict[str, int], dict[str, float]]:
    """SQL statements per request and the median time to draw each page, in-process, no cache."""
    from scorekeeper import create_app
    from scorekeeper.extensions import counting_statements

    os.environ["SCOREKEEPER_INSTANCE_PATH"] = str(folder)
    app = create_app()
    app.config.update(PAGE_CACHE=False, WTF_CSRF_ENABLED=False)
    client = app.test_client()
    with client.session_transaction() as session:  # signed in, as after the sign-in page
        session["_user_id"], session["_fresh"] = ids["member"], True
    counts, drawn = {}, {}
    for name, path in endpoints(ids, games).items():
        if client.get(path).status_code != 200:
            raise SystemExit(f"{name} ({path}) did not answer 200 in-process")
        drawn[name] = statistics.median(_time(lambda: client.get(path)) for _ in range(7))
        with counting_statements(app) as sent:
            client.get(path)
        counts[name] = len(sent)
    # A phone's queued hand on reserved fresh games of the second family: time a few, count one.
    queue = ids["queue"]
    with client.session_transaction() as session:
        session["_user_id"] = queue["member"]
    reserved = queue["fresh"][-RESERVED:]
    drawn[QUEUED] = statistics.median(
        _time(lambda g=game: client.post(f"/games/{g}/actions", json=hand_action(queue, g))) for game in reserved[1:])
    with counting_statements(app) as sent:
        client.post(f"/games/{reserved[0]}/actions", json=hand_action(queue, reserved[0]))
    counts[QUEUED] = len(sent)
    return counts, drawn


def page_weights(browser: Browser, paths: dict[str, str]) -> dict[str, tuple[float, int]]:
    """What a phone downloads for each page, in Chromium with this browser's cookies and no service
    worker (which would fetch the whole app once): the compressed bytes of the page and of every file it
    loads (its CSS, and the script's modules it imports; not the icons); and the requests leaving the origin."""
    from playwright.sync_api import sync_playwright

    origin = f"http://127.0.0.1:{browser.port}"
    weights = {}
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        for name, path in paths.items():  # each in a context of its own: nothing cached from the page before
            context = chromium.new_context(viewport={"width": 390, "height": 844}, service_workers="block")
            context.add_cookies([{"name": k, "value": v, "url": origin} for k, v in browser.cookies.items()])
            page = context.new_page()
            loaded = []
            page.on("requestfinished", lambda request: loaded.append(request))
            page.goto(origin + path, wait_until="networkidle")
            kb = sum(r.sizes()["responseBodySize"] for r in loaded
                     if r.resource_type in ("document", "stylesheet", "script")) / 1024
            weights[name] = (kb, sum(1 for r in loaded if not r.url.startswith(origin)))
            context.close()
        chromium.close()
    return weights
