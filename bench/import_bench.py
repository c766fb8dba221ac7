"""Importing an export: seconds to read, check and write 1,000 and 3,000 games into a fresh instance.

Run: python bench/import_bench.py [--games 1000 3000] [--no-changes] [--postgres URL]
The export is made once from demo games (seed-demo), with a "recorded" change per hand added as
the pages would have logged it (``--no-changes`` leaves them out, like an export from before
change histories travelled). Each size is then imported into a new SQLite database (or a new
database on the PostgreSQL server of ``--postgres``, e.g. from .ci/postgres) in this process: ``checks.parse`` of the file's bytes plus ``importing.import_data``, the work the import
page does inside one request (gunicorn gives a request 30 s).
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorekeeper import create_app  # noqa: E402
from scorekeeper.demo import seed_demo  # noqa: E402
from scorekeeper.transfer import checks, export, importing  # noqa: E402
from scorekeeper.web import access  # noqa: E402

CONFIG = {"SECRET_KEY": "bench-only secret, not for serving"}
POSTGRES: str | None = None  # a server URL from --postgres
_numbers = itertools.count()


def new_app():
    if POSTGRES:
        name = f"import_bench_{next(_numbers)}"
        admin = sa.create_engine(POSTGRES, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        url = sa.make_url(POSTGRES).set(database=name).render_as_string(hide_password=False)
    else:
        url = f"sqlite:///{tempfile.mkdtemp(prefix='import-bench-')}/i.sqlite"
    return create_app({**CONFIG, "SQLALCHEMY_DATABASE_URI": url})


def make_export(games: int, changes: bool) -> dict:
    app = new_app()
    with app.app_context():
        seed_demo(access.current_family(), games, seed=7)
        data = json.loads("".join(export.export_json(access.current_family())))
    if changes:
        for game in data["games"]:
            for round_ in game["rounds"]:
                after = [r["points"] for r in round_["results"]]
                at = datetime.fromisoformat(round_["recorded_at"]) + timedelta(seconds=5)
                game.setdefault("changes", []).append({
                    "number": round_["number"], "action": "recorded", "by": "mum", "at": at.isoformat(),
                    "before": None, "after": after,
                })
    return data


def time_import(data: dict, games: int) -> tuple[float, float, int]:
    raw = json.dumps({**data, "games": data["games"][:games]}, ensure_ascii=False).encode()
    app = new_app()
    with app.app_context():
        family = access.current_family()
        start = time.perf_counter()
        parsed = checks.parse(raw)
        checked = time.perf_counter()
        added, _ = importing.import_data(family, parsed)
        done = time.perf_counter()
    assert added == games, (added, games)
    return checked - start, done - start, len(raw)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 3000])
    parser.add_argument("--no-changes", action="store_true", help="export without change histories")
    parser.add_argument("--postgres", help="URL of a PostgreSQL server to make the databases on")
    args = parser.parse_args()
    global POSTGRES
    POSTGRES = args.postgres
    logging.disable(logging.INFO)  # the migrations of each new database
    data = make_export(max(args.games), not args.no_changes)
    for games in args.games:
        checked, total, size = time_import(data, games)
        print(f"{games:>6} games ({size / 1e6:.1f} MB): {total:.2f} s (checking {checked:.2f} s)")


if __name__ == "__main__":
    main()
