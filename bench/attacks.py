"""The inputs that once took a worker far past its budget, timed against gunicorn (two workers, as
docs/hosting.md serves it): seconds for each answer, and the worker's memory above idle and CPU seconds
from /proc. Also a normal import of 4,000 games of eight players, and yearbooks asked for at once.

Run: python bench/attacks.py [--postgres URL]   (bench/run.py runs it too)
The budgets: every attack answered in 5 s with the worker at most 150 MB above idle; the import in
10 s and 150 MB; a yearbook's waiting page in 5 s while the render queue lays the book out.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorekeeper import families  # noqa: E402
from scorekeeper.demo import seed_demo  # noqa: E402
from tests import attack_files as attacks  # noqa: E402
from tests import databases  # noqa: E402
from tests.pages import input_value  # noqa: E402
from tests.test_attacks import Uploader  # noqa: E402
from tests.test_concurrency import Server, at_once  # noqa: E402

SECONDS, IMPORT_SECONDS = 5.0, 10.0
FILES = [
    ("one .xlsx row of 20M cells", "games.xlsx", attacks.wide_row_xlsx),
    ("10M empty cells inside the size limit", "games.xlsx", attacks.many_cells_xlsx),
    ("2 GB of whitespace in sheet1.xml", "games.xlsx", attacks.whitespace_xlsx),
    ("10M shared strings", "games.xlsx", lambda: attacks.shared_strings_xlsx(True)),
    ("one 1 GB shared string", "games.xlsx", lambda: attacks.shared_strings_xlsx(False)),
    ("one 31 MB .csv row of ab,", "games.csv", attacks.long_row_csv),
]
FIELDS = [("hidden field: zlib of 32 MB of [],", attacks.inflate_bomb),
          ("hidden field: 930k plausible rows", attacks.plausible_rows_bomb)]


def timed(server: Server, call) -> tuple[object, float, attacks.Cost]:
    with attacks.Measured(server.process.pid) as measured:
        started = time.perf_counter()
        reply = call()
        seconds = time.perf_counter() - started
    return reply, seconds, measured.cost


def run(postgres: str | None = None, book_games: int = 150, games: int = 4000) -> list[dict]:
    """Every row of the table: what was sent, its size, seconds, memory, CPU and whether it kept the budget."""
    databases.POSTGRES_URL = postgres
    folder = Path(tempfile.mkdtemp(prefix="bench-attacks-"))
    app = databases.make_app(folder, keep=True)
    server = Server(app.config["SQLALCHEMY_DATABASE_URI"], folder / "instance").start()
    rows = []
    try:
        phone = Uploader(server.port).sign_in()
        for what, name, make in FILES:
            raw = make()
            phone.csrf = input_value(phone.get("/import/sheet").body, "csrf_token")
            _, seconds, cost = timed(server, lambda: phone.upload("/import/sheet", {"rules": "family-7"}, name, raw))
            rows.append(_row(what, len(raw), seconds, cost, SECONDS))
        for what, bomb in FIELDS:
            field = bomb()
            form = {"rules": "family-7", "cells": field, "token": field[:32], "action": "import"}
            _, seconds, cost = timed(server, lambda: phone.post("/import/sheet/check", form))
            rows.append(_row(what, len(field), seconds, cost, SECONDS))
        rows += _import(server, phone, games)
        rows += _yearbooks(app, server, phone, book_games)
    finally:
        server.stop()
        databases.drop_app(app)
    return rows


def _import(server: Server, phone: Uploader, games: int) -> list[dict]:
    raw = attacks.sheet_of_games(games)
    phone.csrf = input_value(phone.get("/import/sheet").body, "csrf_token")
    page, seconds, cost = timed(server, lambda: phone.upload("/import/sheet", {"rules": "family-7"}, "g.csv", raw))
    rows = [_row(f"{games:,} games of 8: upload to preview", len(raw), seconds, cost, IMPORT_SECONDS)]
    form = {"rules": "family-7", "token": input_value(page.body, "token"), "action": "import"}
    phone.csrf = input_value(page.body, "csrf_token")
    done, seconds, cost = timed(server, lambda: phone.post("/import/sheet/check", form))
    assert done.status == 302, done.text[:300]
    rows.append(_row(f"{games:,} games of 8: import", 0, seconds, cost, IMPORT_SECONDS))
    return rows


def _yearbooks(app, server: Server, phone: Uploader, games: int) -> list[dict]:
    with app.app_context():
        seed_demo(families.sole_family(), games, seed=7, end=datetime(2021, 12, 20))
    url = "/seasons/2021/booklet.pdf"
    phones = [Uploader(server.port).sign_in() for _ in range(3)]
    started = time.perf_counter()
    _, seconds, cost = timed(server, lambda: at_once(*(lambda p=p: p.get(url) for p in phones)))
    rows = [_row(f"yearbook of {games} games, three asked at once: waiting page", 0, seconds, cost, SECONDS)]
    while (made := phone.get(url)).status == 202:
        time.sleep(0.25)
    rows.append({"what": f"yearbook of {games} games: made by the render queue", "size": "",
                 "seconds": time.perf_counter() - started, "memory": "", "cpu": "", "ok": made.status == 200})
    _, seconds, cost = timed(server, lambda: [p.get(url) for p in phones])
    rows.append(_row("the same yearbook again, three phones", 0, seconds, cost, SECONDS))
    return rows


def _row(what: str, size: int, seconds: float, cost: attacks.Cost, budget: float) -> dict:
    ok = seconds <= budget and cost.memory <= attacks.MEMORY_BUDGET
    return {"what": what, "size": f"{size / 1e3:,.1f} kB" if size else "", "seconds": seconds,
            "memory": f"{cost.memory / attacks.MB:.0f} MB", "cpu": f"{cost.cpu:.2f} s", "ok": ok, "budget": budget}


def section(rows: list[dict], database: str) -> tuple[str, list[tuple[str, bool]]]:
    """The report's part for ``bench/run.py``: a table and a budget line per row."""
    lines = [f"### Bounded cost of every upload and form: gunicorn, 2 workers, {database}", "",
             "| input | size | answered in | worker above idle | worker CPU |", "|---|---:|---:|---:|---:|"]
    verdicts = []
    for row in rows:
        lines.append(f"| {row['what']} | {row['size']} | {row['seconds']:.2f} s | {row['memory']} | {row['cpu']} |")
        budget = f"≤ {row['budget']:.0f} s and 150 MB" if "budget" in row else "made"
        verdicts.append((f"{row['what']} ({database}): {row['seconds']:.2f} s, {row['memory'] or 'off the workers'} "
                         f"({budget})", row["ok"]))
    return "\n".join(lines), verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="a PostgreSQL URL where databases may be made (else SQLite)")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--book-games", type=int, default=150)
    args = parser.parse_args()
    logging.disable(logging.INFO)
    text, verdicts = section(run(args.postgres, args.book_games, args.games),
                             "PostgreSQL" if args.postgres else "SQLite")
    print(text)
    for line, ok in verdicts:
        print(f"{'PASS' if ok else 'FAIL'} {line}")


if __name__ == "__main__":
    main()
