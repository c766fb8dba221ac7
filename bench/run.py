"""Benchmark harness: every page under gunicorn (2 workers) at 10 and at 10,000 games, one run.

    python bench/run.py            # the full run; writes bench/RESULTS.md
    python bench/run.py --quick    # a small history and a few requests: the same table, in seconds

For each history size it makes a fresh database (seed-demo), starts gunicorn on 127.0.0.1, and
drives it from this separate process with a bounded load: a fixed number of requests at a fixed
concurrency (wrk for the GET pages when it is installed, else a Python client). /healthz, which
touches no database, is the baseline measured in the same run; budgets are ratios to it.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import io
import os
import platform
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BUDGET = {
    "page_ratio": 3.0,
    "post_ratio": 5.0,
    "growth": 1.3,
    "queries": 10,
    "weight_kb": 40.0,
    "pdf_cold_ratio": 1.5,
    "pdf_repeat_speedup": 20.0,
    "rss_mb": 150.0,
}
PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed"]
RESERVED = 6  # fresh games kept for the in-process count and timing of a recorded round
BENCH_USER, BENCH_PASSWORD = "bench", "a bench password"


# -- the data ---------------------------------------------------------------------------------


def prepare(folder: Path, games: int, fresh_games: int) -> dict:
    """Seed a database and set up the games the endpoints need; returns ids for the URLs."""
    os.environ["SCOREKEEPER_INSTANCE_PATH"] = str(folder)  # its secret key is made there too
    os.environ.pop("SCOREKEEPER_DATABASE_URL", None)
    from scorekeeper import create_app, families, rules
    from scorekeeper.accounts import service as account_service
    from scorekeeper.demo import seed_demo
    from scorekeeper.extensions import db
    from scorekeeper.games import hands, service
    from scorekeeper.history.seasons import parse_period, season_games
    from scorekeeper.models import FINISHED, Game, Player
    from scorekeeper.sharing import service as sharing

    app = create_app()
    with app.app_context():
        member = account_service.create_family("The Benchmarks", BENCH_USER, BENCH_PASSWORD)
        family = member.family
        seed_demo(family, games, seed=1)
        players = {p.name: p for p in families.family_players(family)}
        for name in PLAYERS:
            if name not in players:
                players[name] = Player(family_id=family.id, name=name)
                db.session.add(players[name])
        db.session.commit()
        variant = rules.get_variant("shanghai-10")
        seats = [service.SeatChoice(player_id=players[n].id) for n in PLAYERS]
        playing = service.start_game(family, variant, seats, first_dealer=0)
        for number in (1, 2):  # a game in progress with two hands in
            entries = [rules.Hand(player_id=players[n].id, went_out=(i == number), laid_down=True,
                                  counts={} if i == number else {"K": 1, "5": 2}) for i, n in enumerate(PLAYERS)]
            hands.record_round(playing, number, entries, version=0)
        scoreboard = sharing.create(playing, "view", member)  # a phone or TV watching the game
        fresh = [service.start_game(family, variant, seats, first_dealer=0).id for _ in range(fresh_games)]
        finished = db.session.execute(
            db.select(Game.id).where(Game.status == FINISHED).order_by(Game.id.desc()).limit(40)
        ).scalars().all()
        ids = {
            "playing": playing.id,
            "fresh": fresh,
            "finished": finished,
            "player": players["Ann"].id,
            "other": players["Bob"].id,
            "player_ids": {n: players[n].id for n in PLAYERS},
            "member": member.get_id(),
            "scoreboard": f"/live/{scoreboard.token}/board",
            "year": datetime.now(UTC).year,  # the demo history ends today
            "year_games": len(season_games(family, parse_period(str(datetime.now(UTC).year)))),
        }
        db.session.remove()
    return ids


def endpoints(ids: dict, games: int) -> dict[str, str]:
    deep = max(1, min(games // 25, 300))
    return {
        "baseline /healthz": "/healthz",
        "home": "/",
        "round screen": f"/games/{ids['playing']}",
        "standings with chance to win": f"/games/{ids['playing']}/standings",
        "history page 1": "/history",
        "history deep page": f"/history?page={deep}",
        "player profile": f"/players/{ids['player']}",
        "records": f"/records?a={ids['player']}&b={ids['other']}",
        "season page": f"/seasons/{ids['year']}",
    }


# -- the server -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(folder: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {**os.environ, "SCOREKEEPER_INSTANCE_PATH": str(folder)}
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:scorekeeper.gunicorn_conf", "--workers", "2",
         "--bind", f"127.0.0.1:{port}", "--log-level", "warning", "scorekeeper:create_app()"],
        cwd=ROOT, env=env,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if request(port, "GET", "/healthz")[0] == 200:
                return server, port
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("gunicorn did not start within 30 s")


def worker_peak_rss_mb(master: int) -> float:
    """The largest peak resident size (VmHWM) among the master's worker processes."""
    peaks = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        if re.search(rf"^PPid:\s+{master}$", text, re.M):
            match = re.search(r"^VmHWM:\s+(\d+) kB", text, re.M)
            if match:
                peaks.append(int(match.group(1)) / 1024)
    return max(peaks) if peaks else float("nan")


# -- the client -------------------------------------------------------------------------------


def request(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        return response.status, dict(response.getheaders()), data
    finally:
        connection.close()


def _csrf_token(body: bytes) -> str:
    token = re.search(rb'name="csrf_token" type="hidden" value="([^"]+)"|name="csrf_token" value="([^"]+)"', body)
    return (token.group(1) or token.group(2)).decode()


def session_for(port) -> tuple[str, str]:
    """A phone signed in through the sign-in page: its session cookie and a CSRF token for forms."""
    from urllib.parse import urlencode

    _, headers, body = request(port, "GET", "/login")
    cookie = headers.get("Set-Cookie", "").split(";")[0]
    form = urlencode({"username": BENCH_USER, "password": BENCH_PASSWORD, "csrf_token": _csrf_token(body)})
    status, headers, _ = request(port, "POST", "/login", form.encode(),
                                 {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"})
    if status != 302:
        raise SystemExit(f"signing in answered {status}")
    cookie = headers.get("Set-Cookie", "").split(";")[0]
    # Signing in starts a new session; its CSRF token is made (and the cookie set again) on this page.
    _, headers, body = request(port, "GET", "/games/new", headers={"Cookie": cookie})
    cookie = headers.get("Set-Cookie", cookie).split(";")[0]
    return cookie, _csrf_token(body)


def python_load(port, jobs, concurrency) -> tuple[list[float], float]:
    """Run ``jobs`` (method, path, body, headers) at ``concurrency``; latencies in ms and wall time."""
    latencies: list[float] = []
    lock = threading.Lock()
    errors = []

    def run(job):
        method, path, body, headers = job
        start = time.perf_counter()
        status, _, _ = request(port, method, path, body, headers)
        elapsed = (time.perf_counter() - start) * 1000
        if status >= 400:
            errors.append((path, status))
        with lock:
            latencies.append(elapsed)

    wall = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(run, jobs))
    wall = time.perf_counter() - wall
    if errors:
        raise SystemExit(f"requests failed: {errors[:3]}")
    return latencies, wall


def wrk_load(port, path, cookie, concurrency, seconds) -> dict:
    out = subprocess.run(
        ["wrk", "-t", "2", "-c", str(concurrency), "-d", f"{seconds}s", "--latency",
         "-H", f"Cookie: {cookie}", "-H", "Accept-Encoding: gzip", f"http://127.0.0.1:{port}{path}"],
        capture_output=True, text=True, check=True,
    ).stdout

    def ms(label):
        value, unit = re.search(rf"{label}\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    if re.search(r"Non-2xx or 3xx responses", out):
        raise SystemExit(f"wrk saw errors on {path}")
    return {"median": ms("50%"), "p95": ms("90%"), "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            "note": "p95 column is wrk's p90"}


def summarise(latencies, wall) -> dict:
    ordered = sorted(latencies)
    return {"median": statistics.median(ordered), "p95": ordered[int(0.95 * (len(ordered) - 1))],
            "rps": len(ordered) / wall}


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
        drawn[name] = statistics.median(_time(lambda: client.get(path)) for _ in range(7))
        with counting_statements(app) as sent:
            client.get(path)
        counts[name] = len(sent)
    # Recorded rounds on reserved fresh games: time a few, count one.
    reserved = ids["fresh"][-RESERVED:]
    drawn["record a round (POST)"] = statistics.median(
        _time(lambda g=game: client.post(f"/games/{g}/rounds/1/score", data=round_form(ids, csrf=None)))
        for game in reserved[1:]
    )
    with counting_statements(app) as sent:
        client.post(f"/games/{reserved[0]}/rounds/1/score", data=round_form(ids, csrf=None))
    counts["record a round (POST)"] = len(sent)
    return counts, drawn


def round_form(ids: dict, csrf: str | None) -> dict:
    pid = ids["player_ids"]
    data = {"action": "save", "version": "0", "went_out": str(pid["Ann"])}
    for name in PLAYERS[1:]:
        data[f"p{pid[name]}-k_K"] = "1"
        data[f"p{pid[name]}-k_5"] = "2"
        data[f"p{pid[name]}-laid_down"] = "y"
    if csrf:
        data["csrf_token"] = csrf
    return data


def page_weight_kb(port, path, cookie) -> tuple[float, int]:
    """Gzipped bytes of the page plus the CSS and JS it links; and links leaving the origin."""
    headers = {"Accept-Encoding": "gzip", "Cookie": cookie}
    _, response_headers, body = request(port, "GET", path, headers=headers)
    total = len(body)
    html = gzip.decompress(body) if response_headers.get("Content-Encoding") == "gzip" else body
    for asset in re.findall(rb'(?:href|src)="(/static/[^"]+\.(?:css|js)[^"]*)"', html):
        _, _, data = request(port, "GET", asset.decode().replace("&amp;", "&"), headers=headers)
        total += len(data)
    external = len(re.findall(rb'(?:href|src)="(?:https?:)?//', html))
    return total / 1024, external


# -- a run ------------------------------------------------------------------------------------


def measure(games: int, options) -> dict:
    folder = Path(tempfile.mkdtemp(prefix=f"bench-{games}-"))
    started = time.perf_counter()
    ids = prepare(folder, games, fresh_games=options.posts + RESERVED)
    seeded = time.perf_counter() - started
    queries, drawn = count_queries(folder, ids, games)
    server, port = start_server(folder)
    try:
        cookie, csrf = session_for(port)
        rows = {}
        use_wrk = bool(shutil.which("wrk")) and not options.quick
        for name, path in endpoints(ids, games).items():
            for _ in range(4):  # the first views draw the page in each worker
                request(port, "GET", path, headers={"Cookie": cookie})
            if use_wrk:
                rows[name] = wrk_load(port, path, cookie, options.concurrency, options.wrk_seconds)
            else:
                jobs = [("GET", path, None, {"Cookie": cookie, "Accept-Encoding": "gzip"})] * options.requests
                rows[name] = summarise(*python_load(port, jobs, options.concurrency))
            rows[name]["queries"] = queries.get(name)
            rows[name]["drawn"] = drawn.get(name)
            if name != "baseline /healthz":
                rows[name]["kb"], rows[name]["external"] = page_weight_kb(port, path, cookie)

        # Every open scoreboard asks every 2 s whether the game changed: almost always a 304.
        board = ids["scoreboard"]
        etag = request(port, "GET", board)[1]["ETag"]
        if request(port, "GET", board, headers={"If-None-Match": etag})[0] != 304:
            raise SystemExit("the scoreboard did not answer 304 to its own ETag")
        jobs = [("GET", board, None, {"If-None-Match": etag})] * options.requests
        rows["scoreboard poll (304)"] = summarise(*python_load(port, jobs, options.concurrency))

        body_headers = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}
        from urllib.parse import urlencode

        jobs = [("POST", f"/games/{game}/rounds/1/score", urlencode(round_form(ids, csrf)).encode(), body_headers)
                for game in ids["fresh"][: options.posts]]
        rows["record a round (POST)"] = summarise(*python_load(port, jobs, options.concurrency))
        rows["record a round (POST)"]["queries"] = queries["record a round (POST)"]
        rows["record a round (POST)"]["drawn"] = drawn["record a round (POST)"]

        pdf = measure_pdf(port, ids, cookie, options)
        pdf["yearbook"] = measure_yearbook(port, ids, cookie)
        rss = worker_peak_rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    shutil.rmtree(folder, ignore_errors=True)
    return {"games": games, "seeded_s": seeded, "rows": rows, "pdf": pdf, "rss_mb": rss,
            "driver": "wrk" if use_wrk else "python"}


def measure_pdf(port, ids, cookie, options) -> dict:
    from scorekeeper.printing import documents

    """Filled score sheet: cold renders (distinct games), repeats (ETag → 304), and bare pages."""


    sys.path.insert(0, str(ROOT / "bench"))
    from pdf_bench import bare_page

    cold = []
    for game in ids["finished"][: options.pdf_cold]:
        start = time.perf_counter()
        status, headers, _ = request(port, "GET", f"/games/{game}/sheet.pdf", headers={"Cookie": cookie})
        cold.append((time.perf_counter() - start) * 1000)
        assert status == 200 and headers.get("Content-Type") == "application/pdf"
    url = f"/games/{ids['finished'][0]}/sheet.pdf"
    etag = request(port, "GET", url, headers={"Cookie": cookie})[1]["ETag"]
    jobs = [("GET", url, None, {"Cookie": cookie, "If-None-Match": etag})] * options.requests
    repeat = summarise(*python_load(port, jobs, 1))["median"]
    # Bare pages rendered in this process: a small one-table page, and one the sheet's size.
    small, same = bare_page(11, 5), bare_page(24, 14)
    documents.html_to_pdf(small)
    bare_small = statistics.median(_time(lambda: documents.html_to_pdf(small)) for _ in range(options.pdf_cold))
    bare_same = statistics.median(_time(lambda: documents.html_to_pdf(same)) for _ in range(options.pdf_cold))
    return {"cold": statistics.median(cold), "repeat": repeat, "bare_small": bare_small, "bare_same": bare_same}


def measure_yearbook(port, ids, cookie) -> dict:
    """This year's yearbook: one cold render over HTTP (every finished game of the season as a
    page), then the same request with its ETag."""
    url = f"/seasons/{ids['year']}/booklet.pdf"
    start = time.perf_counter()
    status, headers, body = request(port, "GET", url, headers={"Cookie": cookie})
    cold = time.perf_counter() - start
    assert status == 200 and headers.get("Content-Type") == "application/pdf", status
    from pypdf import PdfReader  # a test dependency: the benchmark runs where the tests do

    pages = len(PdfReader(io.BytesIO(body)).pages)
    jobs = [("GET", url, None, {"Cookie": cookie, "If-None-Match": headers["ETag"]})] * 50
    repeat = summarise(*python_load(port, jobs, 1))["median"]
    return {"cold_s": cold, "pages": pages, "games": ids["year_games"], "repeat": repeat}


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


# -- the report -------------------------------------------------------------------------------


def report(small: dict, large: dict, options) -> tuple[str, bool]:
    base_small = small["rows"]["baseline /healthz"]["median"]
    base = large["rows"]["baseline /healthz"]["median"]
    lines = [
        f"| endpoint | median ms | p95 ms | req/s | × baseline | growth {small['games']}→{large['games']:,} | queries "
        f"| gzip KB | drawn ms at {small['games']} | drawn ms at {large['games']:,} |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    verdicts = []
    for name, row in large["rows"].items():
        other = small["rows"].get(name)
        ratio = row["median"] / base
        growth = (row["median"] / base) / (other["median"] / base_small) if other else float("nan")
        queries = "–" if row.get("queries") is None else row["queries"]
        weight = f"{row['kb']:.1f}" if "kb" in row else "–"
        drawn = [r.get("drawn") for r in (other or {}, row)]
        drawn_text = " | ".join("–" if d is None else f"{d:.1f}" for d in drawn)
        lines.append(
            f"| {name} | {row['median']:.2f} | {row['p95']:.2f} | {row['rps']:.0f} | {ratio:.2f} | "
            f"{growth:.2f} | {queries} | {weight} | {drawn_text} |"
        )
        if name == "baseline /healthz":
            continue
        limit = BUDGET["post_ratio"] if "POST" in name else BUDGET["page_ratio"]
        verdicts.append((f"{name}: median {ratio:.2f}× baseline (≤ {limit}×)", ratio <= limit))
        verdicts.append((f"{name}: growth {growth:.2f}× (≤ {BUDGET['growth']}×)", growth <= BUDGET["growth"]))
        if row.get("queries") is not None:
            same = other is None or other.get("queries") == row["queries"]
            verdicts.append((f"{name}: {row['queries']} queries, same at both sizes (≤ {BUDGET['queries']})",
                             row["queries"] <= BUDGET["queries"] and same))
        if "kb" in row:
            verdicts.append((f"{name}: {row['kb']:.1f} KB gzip with CSS/JS, {row['external']} outside links "
                             f"(≤ {BUDGET['weight_kb']} KB, 0)", row["kb"] <= BUDGET["weight_kb"] and not row["external"]))
    pdf = large["pdf"]
    verdicts.append((f"filled sheet PDF cold {pdf['cold']:.0f} ms = {pdf['cold'] / pdf['bare_same']:.2f}× a bare one-table "
                     f"page of the sheet's size ({pdf['bare_same']:.0f} ms; {pdf['cold'] / pdf['bare_small']:.1f}× a "
                     f"small 11×5 one, {pdf['bare_small']:.0f} ms) (≤ {BUDGET['pdf_cold_ratio']}×)",
                     pdf["cold"] / pdf["bare_same"] <= BUDGET["pdf_cold_ratio"]))
    speedup = pdf["cold"] / pdf["repeat"]
    verdicts.append((f"filled sheet PDF repeated {pdf['repeat']:.2f} ms: {speedup:.0f}× faster than cold "
                     f"(≥ {BUDGET['pdf_repeat_speedup']}×)", speedup >= BUDGET["pdf_repeat_speedup"]))
    book = pdf["yearbook"]
    verdicts.append((f"yearbook of {book['games']} finished games ({book['pages']} pages) drawn in "
                     f"{book['cold_s']:.1f} s; repeated with its ETag in {book['repeat']:.2f} ms (≤ 30 s per 100 games)",
                     book["cold_s"] <= 30 * max(1, book["games"] / 100)))
    verdicts.append((f"worker peak RSS {large['rss_mb']:.0f} MB (≤ {BUDGET['rss_mb']:.0f} MB)",
                     large["rss_mb"] <= BUDGET["rss_mb"]))
    table = "\n".join(lines)
    checks = "\n".join(f"- {'PASS' if ok else 'FAIL'} {text}" for text, ok in verdicts)
    post = large["rows"]["record a round (POST)"]
    reading = (
        "\n\n## Reading the table\n\n"
        "- *median/p95/req/s* are over HTTP from a separate process. Pages are drawn once per change of the "
        "family's games and then served from memory (ETag, gzip kept), so these are the pages a phone sees "
        "between two changes. *drawn ms* is the cost of drawing a page after a change, in-process, "
        "without the cache; every recorded round, buy or import redraws a page on its next view.\n"
        f"- *record a round*: {post['median']:.1f} ms over HTTP, "
        f"{post['median'] / base:.1f}× the baseline (budget 5×). Drawn in-process one takes "
        f"{post['drawn']:.1f} ms against {large['rows']['baseline /healthz']['drawn']:.1f} ms for /healthz: "
        "it validates a form with a field per card key per player (5 players × 18 keys here), recomputes "
        f"every score on the server and writes the hand in one transaction ({post['queries']} statements: read "
        "the member, game, rounds and results; update the round, the results and the summaries; add the "
        "change-history line; move the family's version on), which SQLite flushes to disk before answering "
        "(synchronous=FULL: a saved hand survives a power cut). Under a concurrency of 4 the two workers also "
        "take turns at SQLite's single writer. Meeting "
        "5× would mean dropping WTForms for this form and the per-game summary; at this speed a hand is saved "
        "long before the next one is dealt, so it is left as is.\n"
    )
    return table + "\n\n" + checks + reading, all(ok for _, ok in verdicts)


def machine() -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return (f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · commit {commit or 'unknown'} · {os.cpu_count()} cores · "
            f"Python {platform.python_version()} · SQLite {sqlite3.sqlite_version} · {platform.machine()}")


def main() -> None:
    parser = argparse.ArgumentParser(description="Benchmark every page under gunicorn at two history sizes.")
    parser.add_argument("--quick", action="store_true", help="small history, few requests (for CI)")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=300, help="requests per endpoint")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--posts", type=int, default=100, help="rounds recorded (one per fresh game)")
    parser.add_argument("--pdf-cold", type=int, default=7)
    parser.add_argument("--wrk-seconds", type=int, default=4)
    parser.add_argument("--output", type=Path, default=None)
    options = parser.parse_args()
    if options.quick:
        options.games, options.requests, options.posts, options.pdf_cold = 60, 20, 5, 3
    output = options.output or (None if options.quick else ROOT / "bench" / "RESULTS.md")

    small = measure(10, options)
    large = measure(options.games, options)
    table, ok = report(small, large, options)
    header = (f"# Benchmark results\n\n{machine()}\n\n"
              f"`python bench/run.py{' --quick' if options.quick else ''}`: gunicorn, 2 workers, 127.0.0.1; "
              f"load from a separate process ({large['driver']} client), {options.requests} requests per page at "
              f"concurrency {options.concurrency}; one browser session (cookie) as a phone keeps. "
              f"Histories: {small['games']} and {large['games']:,} demo games "
              f"(seeded in {small['seeded_s']:.1f} s and {large['seeded_s']:.1f} s).\n\n")
    text = header + table + "\n"
    print(text)
    if output:
        output.write_text(text)
        print(f"wrote {output}")
    if not ok:
        print("Some budget lines are not met (see FAIL above).")


if __name__ == "__main__":
    main()
