"""Benchmark harness: every page under gunicorn at 10 and at 10,000 games, and many families.

    python bench/run.py                   # the full run; writes bench/RESULTS.md
    python bench/run.py --quick           # small histories, few requests, a tiny many-families run (CI)
    python bench/run.py --families-only   # only the many-families run (bench/families.py); prints it
    python bench/run.py --no-families     # everything but the many-families run

For each history size it makes a fresh SQLite database (seed-demo: a family with that history and
one game at its table, and a second family whose fresh games take the phone's queued hands), counts
each page's SQL statements and times its draw in-process, and starts a gunicorn (2 workers) on
127.0.0.1; both servers stay up and are driven from this separate process: cache hits with wrk when
installed (else a Python client), what a phone downloads per page (Chromium), each page drawn right
after the change its content depends on (bench/draws.py; the two sizes take turns), queued hands,
and at the large size the PDFs, the phone's timings, the attacks and Lighthouse's mobile run of every
page (bench/lighthouse.py; a subset with --quick). /healthz, which touches no database, is the
baseline of the same run. Then the many-families run on PostgreSQL (bench/families.py). Timings
never fail the run (FAIL lines are printed); errors do.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import attacks  # noqa: E402
import families  # noqa: E402
import lighthouse  # noqa: E402
import phone_bench  # noqa: E402
import report  # noqa: E402
import sheet_bench  # noqa: E402
from draws import measure_draws  # noqa: E402
from http_load import Browser, python_load, request, wrk_load, wrk_version  # noqa: E402
from pages import (  # noqa: E402
    BASELINE,
    BENCH_PASSWORD,
    BENCH_USER,
    QUEUE_USER,
    RESERVED,
    count_queries,
    endpoints,
    hand_action,
    page_weights,
    prepare,
)
from pdf_run import measure_pdf, measure_yearbook  # noqa: E402
from server import commit, machine, start_server, stop_server, worker_peak_rss_mb  # noqa: E402


def cache_hits(browser: Browser, ids: dict, games: int, options) -> dict:
    """Each page again and again while nothing changes (wrk, else the Python client), each right
    after /healthz measured the same way: its ratio is to that neighbour, so a busy moment of the
    shared machine does not land on one page alone."""
    paths = dict(endpoints(ids, games))
    board = paths["scoreboard poll (304)"] = ids["scoreboard"]
    # Every open scoreboard asks every 2 s whether the game changed: almost always a 304.
    etag = request(browser.port, "GET", board).headers["ETag"]
    if request(browser.port, "GET", board, headers={"If-None-Match": etag}).status != 304:
        raise SystemExit("the scoreboard did not answer 304 to its own ETag")
    cookie = {"Cookie": browser.cookie, "Accept-Encoding": "gzip"}
    rows = {}
    for name, path in paths.items():
        for _ in range(4):  # the first views draw the page in each worker
            browser.get(path)
        base = None if name == BASELINE else _hits(browser.port, paths[BASELINE], cookie, options)["median"]
        rows[name] = _hits(browser.port, path, {"If-None-Match": etag} if name.endswith("(304)") else cookie, options)
        rows[name]["base"] = base or rows[name]["median"]
    return rows


def _hits(port: int, path: str, headers: dict, options) -> dict:
    if options.use_wrk:
        return wrk_load(port, path, headers, options.concurrency, options.wrk_seconds)
    return python_load(port, [("GET", path, None, headers)] * options.requests, options.concurrency)


def queued_hands(browser: Browser, queue: dict, options) -> dict:
    """A phone's queued hand as the server applies it (POST /games/<id>/actions, JSON, one per fresh
    game of the second family), and /healthz by the same client and concurrency just before: the
    server's cost of one action."""
    cookie = {"Cookie": browser.cookie}
    base = python_load(browser.port, [("GET", "/healthz", None, cookie)] * options.posts, options.concurrency)
    headers = {**cookie, "Content-Type": "application/json", "X-CSRFToken": browser.csrf}
    jobs = [("POST", f"/games/{game}/actions", json.dumps(hand_action(queue, game)).encode(), headers)
            for game in queue["fresh"][: options.posts]]
    return {**python_load(browser.port, jobs, options.concurrency), "concurrency": options.concurrency,
            "base": base["median"]}


def setup(games: int, options) -> dict:
    """A fresh SQLite database of ``games`` demo games, its statements counted and pages drawn in-process."""
    folder = Path(tempfile.mkdtemp(prefix=f"bench-{games}-"))
    try:
        started = time.perf_counter()
        ids = prepare(folder, games, fresh_games=options.posts + RESERVED)
        seeded = time.perf_counter() - started
        queries, drawn = count_queries(folder, ids, games)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return {"games": games, "folder": folder, "ids": ids, "seeded_s": seeded, "queries": queries, "drawn": drawn}


def measure(options) -> tuple[dict, dict]:
    """Both histories served at once (gunicorn, 2 workers each), so the draws after a change at 10
    and at the large size take turns, sample by sample, and a busy moment of the machine hits both."""
    sizes, servers = [], []
    try:
        sizes.append(setup(10, options))
        sizes.append(setup(options.games, options))
        for size in sizes:
            server, port = start_server(size["folder"], workers=2)
            servers.append(server)
            size["browser"] = Browser(port).sign_in(BENCH_USER, BENCH_PASSWORD)
            size["queue_browser"] = Browser(port).sign_in(QUEUE_USER, BENCH_PASSWORD)
        load_before = os.getloadavg()[0]
        for size in sizes:
            browser, ids, games = size["browser"], size["ids"], size["games"]
            size["hits"] = cache_hits(browser, ids, games, options)
            size["kb"] = page_weights(browser, {name: path for name, path in endpoints(ids, games).items()
                                                if name != BASELINE and not path.startswith("/live/")})
        draws = measure_draws([(s["browser"], s["ids"], s["games"]) for s in sizes], options.samples)
        for size, drawn in zip(sizes, draws):
            size["draws"] = drawn
            size["post"] = queued_hands(size["queue_browser"], size["ids"]["queue"], options)
        small, large = sizes
        if not options.no_lighthouse:
            chosen = lighthouse.pages(large["ids"], endpoints(large["ids"], large["games"]))
            if options.quick:
                chosen = {name: chosen[name] for name in lighthouse.QUICK}
            large["lighthouse"] = lighthouse.run(large["browser"].port, large["browser"].cookie, chosen)
        large["pdf"] = measure_pdf(large["browser"], large["ids"], options.pdf_samples, options.requests,
                                   servers[-1].pid)
        large["yearbook"] = measure_yearbook(large["browser"], large["ids"])
        large["sheet"] = sheet_bench.measure(100 if options.quick else 1000)
        large["phone"] = phone_bench.measure(taps=21 if options.quick else 49)
        large["attacks"] = attacks.run(book_games=20 if options.quick else 150, games=400 if options.quick else 4000)
        for size, server in zip(sizes, servers):
            size["rss_mb"] = worker_peak_rss_mb(server.pid)
        large["load"] = (load_before, os.getloadavg()[0])
    finally:
        for server in servers:
            stop_server(server)
        for size in sizes:
            shutil.rmtree(size["folder"], ignore_errors=True)
    return small, large


def header(options, small: dict | None, large: dict | None, crowd: dict | None) -> str:
    command = "python bench/run.py" + "".join(f" --{flag.replace('_', '-')}" for flag in
                                              ("quick", "families_only", "no_families") if getattr(options, flag))
    generators = []
    if large:
        hits = (f"wrk {options.wrk} (2 threads, {options.concurrency} connections, {options.wrk_seconds} s per page)"
                if options.use_wrk else f"Python client ({options.requests} requests per page at concurrency "
                f"{options.concurrency})")
        generators.append(f"cache hits: {hits}")
        generators.append(f"everything else: Python {platform.python_version()} http.client, a new connection per "
                          "request, from this separate process, signed in through the sign-in page")
    if crowd:
        generators.append("many families: Python threads and http.client in a process of its own "
                          "(bench/families_load.py), one thread per scoreboard and per phone")
    lines = ["# Benchmark results", "",
             f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · commit {commit()} · `{command}`", "",
             f"Machine: {machine(crowd and crowd['postgres'])}", "",
             "Load generators: " + "; ".join(generators) + "."]
    if large:
        lines += ["", f"Pages: gunicorn, 2 workers, 127.0.0.1, SQLite; histories of {small['games']} and "
                  f"{large['games']:,} demo games (seeded in {small['seeded_s']:.1f} s and {large['seeded_s']:.1f} s), each "
                  "served by its own gunicorn, both up at once. The machine's load average (1 min) as the HTTP "
                  f"part began and ended: {large['load'][0]:.1f} and {large['load'][1]:.1f}."]
    return "\n".join(lines) + "\n"


def assemble(options, small, large, crowd) -> tuple[str, bool]:
    sections, verdicts = [], []
    if large:
        for text, checks in (report.cache_hits(small, large), report.draws(small, large),
                             report.in_process(small, large), report.pdfs(large), sheet_bench.section(large["sheet"]),
                             attacks.section(large["attacks"], "SQLite"), phone_bench.section(large["phone"])):
            sections.append(text)
            verdicts += checks
        if "lighthouse" in large:
            text, checks = lighthouse.section(large["lighthouse"])
            sections.append(text)
            verdicts += checks
    if crowd:
        text, checks = report.families_section(crowd)
        sections.append(text)
        verdicts += checks
    budgets = "## Budgets\n\n" + "\n".join(f"- {'PASS' if ok else 'FAIL'} {line}" for line, ok in verdicts)
    body = "\n\n".join([header(options, small, large, crowd), *sections, budgets, report.reading(large)])
    return body.rstrip() + "\n", all(ok for _, ok in verdicts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small histories, few requests (for CI)")
    parser.add_argument("--families-only", action="store_true", help="only the many-families run")
    parser.add_argument("--no-families", action="store_true", help="skip the many-families run")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=300, help="requests per endpoint (Python client)")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--samples", type=int, default=15, help="draws after its change, per page and size")
    parser.add_argument("--posts", type=int, default=100, help="queued hands sent (one per fresh game)")
    parser.add_argument("--pdf-samples", type=int, default=15, help="paired sheet / bare page samples")
    parser.add_argument("--wrk-seconds", type=int, default=4)
    parser.add_argument("--no-wrk", action="store_true", help="the Python client even when wrk is installed")
    parser.add_argument("--no-lighthouse", action="store_true", help="without Lighthouse's run of every page")
    parser.add_argument("--output", type=Path, default=None, help="where to write (default: RESULTS.md on a full run)")
    families.add_arguments(parser)
    options = parser.parse_args()
    if options.quick:
        options.games, options.requests, options.posts, options.samples = 60, 20, 5, 3
        options.pdf_samples, options.wrk_seconds = 3, 1
    options.wrk = wrk_version()
    options.use_wrk = bool(options.wrk) and not options.no_wrk
    whole = not (options.quick or options.families_only or options.no_families)
    output = options.output or (ROOT / "bench" / "RESULTS.md" if whole else None)

    small = large = crowd = None
    if not options.families_only:
        small, large = measure(options)
    if not options.no_families:
        crowd = families.run(options)
    text, ok = assemble(options, small, large, crowd)
    print(text)
    if output:
        output.write_text(text)
        print(f"wrote {output}")
    if not ok:
        print("Some budget lines are not met (see FAIL above).")


if __name__ == "__main__":
    main()
