"""The pages of the benchmark: the family's data, the endpoints, SQL statements and in-process
draws of each page, and the pages drawn over HTTP right after a change (a buy and its undo)."""

from __future__ import annotations

import os
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

from http_load import REFUSED, Browser, percentile, request

PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed"]
RESERVED = 6  # fresh games kept for the in-process count and timing of a recorded round
BENCH_USER, BENCH_PASSWORD = "bench", "a bench password"
BASELINE = "baseline /healthz"


def prepare(folder: Path, games: int, fresh_games: int, finished: int = 40) -> dict:
    """Seed a SQLite database and set up the games the endpoints need; returns ids for the URLs."""
    os.environ["SCOREKEEPER_INSTANCE_PATH"] = str(folder)  # its secret key is made there too
    os.environ.pop("SCOREKEEPER_DATABASE_URL", None)
    from scorekeeper import create_app, rules
    from scorekeeper.accounts import service as account_service
    from scorekeeper.demo import seed_demo
    from scorekeeper.extensions import db
    from scorekeeper.games import hands, service
    from scorekeeper.history.seasons import parse_period, season_games
    from scorekeeper.models import FINISHED, PlayerGame
    from scorekeeper.sharing import service as sharing

    app = create_app()
    with app.app_context():
        member = account_service.create_family("The Benchmarks", BENCH_USER, BENCH_PASSWORD)
        family = member.family
        seed_demo(family, games, seed=1)
        players = seat_players(family, PLAYERS)
        variant = rules.get_variant("shanghai-10")
        seats = [service.SeatChoice(player_id=players[n].id) for n in PLAYERS]
        playing = service.start_game(family, variant, seats, first_dealer=0)
        for number in (1, 2):  # a game in progress with two hands in
            entries = [rules.Hand(player_id=players[n].id, went_out=(i == number), laid_down=True,
                                  counts={} if i == number else {"K": 1, "5": 2}) for i, n in enumerate(PLAYERS)]
            hands.record_round(playing, number, entries, version=0)
        scoreboard = sharing.create(playing, "view", member)  # a phone or TV watching the game
        fresh = [service.start_game(family, variant, seats, first_dealer=0).id for _ in range(fresh_games)]
        current = playing.current_round.number
        # The profile and head-to-head of the players with the most finished games: the heaviest ones.
        busiest = db.session.execute(
            db.select(PlayerGame.player_id).where(PlayerGame.family_id == family.id, PlayerGame.status == FINISHED)
            .group_by(PlayerGame.player_id).order_by(db.func.count().desc(), PlayerGame.player_id).limit(2)
        ).scalars().all()
        ids = {
            "playing": playing.id,
            "round": current,
            "fresh": fresh,
            "finished": finished_shapes(finished),
            "player": busiest[0],
            "other": busiest[1],
            "player_ids": {n: players[n].id for n in PLAYERS},
            "member": member.get_id(),
            "scoreboard": f"/live/{scoreboard.token}/board",
            "year": datetime.now(UTC).year,  # the demo history ends today
            "year_games": len(season_games(family, parse_period(str(datetime.now(UTC).year)))),
        }
        db.session.remove()
    return ids


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




def hand_action(ids: dict, game: int) -> dict:
    """The hand of ``round_form`` as a phone queues it (``games.actions``), for round 1 of ``game``."""
    pid = ids["player_ids"]
    return {"id": f"bench-hand-{game}", "kind": "hand", "round": 1, "base": 0, "hands": [
        {"player": pid[name], "went_out": name == "Ann", "laid_down": True, "buys": 0,
         "counts": {} if name == "Ann" else {"K": 1, "5": 2}, "total": None} for name in PLAYERS]}


def round_form(ids: dict, csrf: str | None, version: int = 0) -> dict:
    """A hand of the five-player game: Ann goes out, the others hold a King and two Fives."""
    pid = ids["player_ids"]
    data = {"action": "save", "version": str(version), "went_out": str(pid["Ann"])}
    for name in PLAYERS[1:]:
        data[f"p{pid[name]}-k_K"] = "1"
        data[f"p{pid[name]}-k_5"] = "2"
        data[f"p{pid[name]}-laid_down"] = "y"
    if csrf:
        data["csrf_token"] = csrf
    return data


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
    # A phone's queued hand on reserved fresh games: time a few, count one.
    reserved = ids["fresh"][-RESERVED:]
    drawn[QUEUED] = statistics.median(
        _time(lambda g=game: client.post(f"/games/{g}/actions", json=hand_action(ids, g))) for game in reserved[1:])
    with counting_statements(app) as sent:
        client.post(f"/games/{reserved[0]}/actions", json=hand_action(ids, reserved[0]))
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


def measure_draws(sites: list[tuple[Browser, dict, int]], samples: int) -> list[dict[str, dict]]:
    """Each page drawn over HTTP right after a change, on each site (browser, ids, games): ``samples``
    times, a buy and its undo on the game in progress (each moves the family's version on, so every
    cached page is stale), then one timed GET of the page. Pages and sites take turns, so a slow
    moment of the machine hits them all alike."""
    names = list(endpoints(sites[0][1], sites[0][2]))
    times = [{name: [] for name in names} for _ in sites]
    etags = [request(browser.port, "GET", ids["scoreboard"]).headers["ETag"] for browser, ids, _ in sites]
    for _ in range(samples):
        for name in names:
            for index, (browser, ids, games) in enumerate(sites):
                path = endpoints(ids, games)[name]
                where = f"/games/{ids['playing']}/rounds/{ids['round']}"
                for action in ("buy", "unbuy"):
                    response = browser.post(f"{where}/{action}", {"player": ids["player_ids"]["Bob"]})
                    if response.status != 302:
                        raise SystemExit(f"{action} answered {response.status}")
                board = path == ids["scoreboard"]  # it polls with the ETag it last saw
                response = browser.get(path, {"If-None-Match": etags[index]} if board else None)
                if response.status != 200:
                    raise SystemExit(f"{name} after a change answered {response.status}")
                if REFUSED.search(response.text):
                    raise SystemExit(f"a buy or its undo was refused (seen on {name})")
                if board:
                    etags[index] = response.headers["ETag"]
                times[index][name].append(response.ms)
    return [{name: {"median": statistics.median(v), "p95": percentile(v, 95), "n": len(v)} for name, v in site.items()}
            for site in times]
