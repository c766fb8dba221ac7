"""Importing past games from a spreadsheet: seconds for 1,000 games (the budget is 10 s).

Run: python bench/sheet_bench.py [--games 1000] [--postgres URL]
A workbook (.xlsx, written by openpyxl) and a CSV of ``--games`` four-player games of the
family rules, scores drawn at random among those a hand can make, are imported into a new
database in this process as the two pages do it: the upload (read the file, read every game,
match the players, pack the cells into the preview) and the import (unpack the cells, read them
again with the answers, write every game). The import of each file is timed on its own database.
"""

from __future__ import annotations

import argparse
import io
import logging
import random
import sys
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import import_bench  # noqa: E402
from openpyxl import Workbook  # noqa: E402

from scorekeeper import rules  # noqa: E402
from scorekeeper.rules.paper import card_totals  # noqa: E402
from scorekeeper.transfer import previews, sheet_import, sheets  # noqa: E402
from scorekeeper.web import access  # noqa: E402

BUDGET = 10.0
NAMES = ["Grandma Rose", "Grandpa Joe", "Mum", "Dad", "Lily", "Sam"]


def sheet_rows(games: int, seed: int = 7) -> list[list]:
    """A header and four rows per game: a different evening each, four of six players."""
    rng = random.Random(seed)
    variant = rules.VARIANTS["family-7"]
    rows = [sheets.template_header(variant)]
    day = date(2000, 1, 1)
    for game in range(games):
        players = rng.sample(NAMES, 4)
        outs = [rng.randrange(4) for _ in variant.rounds]
        table = [[0 if outs[i] == seat else rng.choice(sorted(card_totals(variant, r.number))[:40])
                  for i, r in enumerate(variant.rounds)] for seat in range(4)]
        for seat, name in enumerate(players):
            rows.append([day + timedelta(days=game), name, *table[seat], ""])
    return rows


def as_xlsx(rows: list[list]) -> bytes:
    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def as_csv(rows: list[list]) -> bytes:
    lines = [";".join("" if c is None else (c.strftime("%d.%m.%Y") if isinstance(c, date) else str(c)) for c in row)
             for row in rows]
    return ("\ufeff" + "\n".join(lines) + "\n").encode()


def time_file(raw: bytes, games: int) -> tuple[float, float]:
    """Seconds for the upload (to the preview) and for the import itself."""
    app = import_bench.new_app()
    variant = rules.VARIANTS["family-7"]
    with app.app_context():
        family = access.current_family()
        start = time.perf_counter()  # as the pages do: the cells kept under a token, read for the preview
        cells = sheets.read_cells(raw)
        token = previews.keep(family.id, cells)
        sheet_import.preview(family, cells, variant, token=token)
        previewed = time.perf_counter()  # the import: the cells again, and what the preview read of them
        found = sheet_import.preview(family, previews.load(family.id, token), variant, token=token)
        added, _ = sheet_import.import_sheet(family, found.sheet)
        done = time.perf_counter()
    assert added == games, (added, games)
    return previewed - start, done - previewed


def measure(games: int) -> dict:
    """Each file kind: its size and the seconds of its upload and of its import."""
    logging.disable(logging.INFO)  # the migrations of each new database
    try:
        rows = sheet_rows(games)
        found = {}
        for kind, raw in (("xlsx", as_xlsx(rows)), ("csv", as_csv(rows))):
            upload, imported = time_file(raw, games)
            found[kind] = {"kb": len(raw) / 1e3, "upload_s": upload, "import_s": imported}
    finally:
        logging.disable(logging.NOTSET)
    return {"games": games, "files": found}


def section(res: dict) -> tuple[str, list[tuple[str, bool]]]:
    """The report's part for ``bench/run.py``: a table and the budget line."""
    lines = [f"### Spreadsheet import: {res['games']:,} games of four players, in-process on SQLite", "",
             "| file | size | upload to preview | import |", "|---|---:|---:|---:|"]
    for kind, figures in res["files"].items():
        lines.append(f"| .{kind} | {figures['kb']:.0f} kB | {figures['upload_s']:.2f} s | {figures['import_s']:.2f} s |")
    slowest = max(figures["import_s"] for figures in res["files"].values())
    verdict = (f"spreadsheet import of {res['games']:,} games: {slowest:.2f} s (budget {BUDGET:.0f} s for 1,000)",
               slowest <= BUDGET * res["games"] / 1000)
    return "\n".join(lines), [verdict]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--postgres", help="URL of a PostgreSQL server to make the databases on")
    args = parser.parse_args()
    import_bench.POSTGRES = args.postgres
    text, verdicts = section(measure(args.games))
    print(text)
    for line, ok in verdicts:
        print(f"{'PASS' if ok else 'FAIL'} {line}")


if __name__ == "__main__":
    main()
