"""PDFs over HTTP: a filled score sheet's first render against a bare WeasyPrint page of the same
table size (paired samples), its repeat with the ETag, and the season's yearbook."""

from __future__ import annotations

import io
import statistics
import time

from http_load import Browser, python_load, spread


def measure_pdf(browser: Browser, ids: dict, samples: int, repeats: int) -> dict:
    """For each of ``samples`` distinct finished games: its sheet's first render over HTTP (no
    worker has drawn it), then at once a bare one-table page of the same size in this process."""
    from pdf_bench import bare_page, sheet_shape

    from scorekeeper.printing.documents import html_to_pdf

    html_to_pdf(bare_page(11, 5))  # fonts and caches loaded once, as each worker did at its start
    games = ids["finished"][:samples]
    if len(games) < samples:
        raise SystemExit(f"only {len(games)} finished games for {samples} PDF samples")
    pairs = []
    for game, hands, players in games:
        response = browser.get(f"/games/{game}/sheet.pdf")
        if response.status != 200 or response.headers.get("Content-Type") != "application/pdf":
            raise SystemExit(f"sheet of game {game} answered {response.status}")
        rows, columns = sheet_shape(hands, players)
        bare = bare_page(rows, columns)
        start = time.perf_counter()
        html_to_pdf(bare)
        bare_ms = (time.perf_counter() - start) * 1000
        pairs.append({"game": game, "hands": hands, "players": players, "rows": rows, "columns": columns,
                      "sheet": response.ms, "bare": bare_ms, "ratio": response.ms / bare_ms})
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
