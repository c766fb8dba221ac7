"""PDFs over HTTP: a filled score sheet's first render against a bare WeasyPrint page of the same
table size (paired samples), its repeat with the ETag, and the season's yearbook."""

from __future__ import annotations

import io
import os
import statistics
import time
from pathlib import Path

from http_load import Browser, python_load, spread


def workers_cpu_s(master: int) -> float:
    """The CPU seconds (user and system) the gunicorn ``master``'s workers have used, from /proc."""
    total = 0
    for worker in Path(f"/proc/{master}/task/{master}/children").read_text().split():
        after_name = Path(f"/proc/{worker}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(after_name[11]) + int(after_name[12])  # utime and stime, fields 14 and 15
    return total / os.sysconf("SC_CLK_TCK")


def measure_pdf(browser: Browser, ids: dict, samples: int, repeats: int, master: int | None = None) -> dict:
    """For each of ``samples`` distinct finished games: its sheet's first render over HTTP (no
    worker has drawn it), then at once a bare one-table page of the same size in this process.
    With the server's ``master`` pid, each is also timed in CPU seconds (the workers' for the sheet,
    this process's for the bare page), which a busy machine does not stretch as it does the clock."""
    from pdf_bench import bare_page, sheet_shape

    from scorekeeper.printing.documents import html_to_pdf

    html_to_pdf(bare_page(11, 5))  # fonts and caches loaded once, as each worker did at its start
    games = ids["finished"][:samples]
    if len(games) < samples:
        raise SystemExit(f"only {len(games)} finished games for {samples} PDF samples")
    pairs = []
    for game, hands, players in games:
        cpu = workers_cpu_s(master) if master else 0.0
        response = browser.get(f"/games/{game}/sheet.pdf")
        sheet_cpu = (workers_cpu_s(master) - cpu) * 1000 if master else None
        if response.status != 200 or response.headers.get("Content-Type") != "application/pdf":
            raise SystemExit(f"sheet of game {game} answered {response.status}")
        rows, columns = sheet_shape(hands, players)
        bare = bare_page(rows, columns)
        start, cpu = time.perf_counter(), time.process_time()
        html_to_pdf(bare)
        bare_ms, bare_cpu = (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000
        pairs.append({"game": game, "hands": hands, "players": players, "rows": rows, "columns": columns,
                      "sheet": response.ms, "bare": bare_ms, "ratio": response.ms / bare_ms,
                      "cpu_ratio": sheet_cpu / bare_cpu if sheet_cpu is not None else None})
    url = f"/games/{games[0][0]}/sheet.pdf"
    etag = browser.get(url).headers["ETag"]
    not_modified(browser, url, etag)
    jobs = [("GET", url, None, {"Cookie": browser.cookie, "If-None-Match": etag})] * repeats
    return {
        "pairs": pairs,
        "sheet": statistics.median(p["sheet"] for p in pairs),
        "bare": statistics.median(p["bare"] for p in pairs),
        "ratio": statistics.median(p["ratio"] for p in pairs),
        "spread": spread([p["ratio"] for p in pairs]),
        "cpu": spread([p["cpu_ratio"] for p in pairs]) if master else None,
        "repeat": python_load(browser.port, jobs, 1)["median"],
    }


def not_modified(browser: Browser, url: str, etag: str) -> None:
    status = browser.get(url, {"If-None-Match": etag}).status
    if status != 304:
        raise SystemExit(f"{url} answered {status} to its own ETag, not 304")


def measure_yearbook(browser: Browser, ids: dict) -> dict:
    """This year's yearbook: one cold render over HTTP (every finished game of the season as a
    page), then the same request with its ETag."""
    from pypdf import PdfReader  # a test dependency: the benchmark runs where the tests do

    url = f"/seasons/{ids['year']}/booklet.pdf"
    started = time.perf_counter()
    response = browser.get(url)
    waiting_ms = response.ms
    while response.status == 202:  # the render queue lays it out; the waiting page looks again by itself
        time.sleep(0.25)
        response = browser.get(url)
    made_s = time.perf_counter() - started
    if response.status != 200 or response.headers.get("Content-Type") != "application/pdf":
        raise SystemExit(f"the yearbook answered {response.status}")
    pages = len(PdfReader(io.BytesIO(response.body)).pages)
    not_modified(browser, url, response.headers["ETag"])
    jobs = [("GET", url, None, {"Cookie": browser.cookie, "If-None-Match": response.headers["ETag"]})] * 50
    return {"cold_s": made_s, "waiting_ms": waiting_ms, "pages": pages, "games": ids["year_games"],
            "repeat": python_load(browser.port, jobs, 1)["median"]}
