"""The "many families" run: one server shared by many families, on PostgreSQL.

    python bench/families.py                  # 200 families × 50 games, 4 workers, 30 s
    python bench/families.py --quick          # 5 families × 5 games, 8 s (what CI runs)
    python bench/families.py --pg-url URL     # an existing, empty database instead of a throwaway one

Without ``--pg-url`` it starts a throwaway PostgreSQL server (.ci/postgres; SQLite when
PostgreSQL is not installed), seeds the families (each its own member and saved games, and a
game in progress at its table), starts gunicorn on that database and drives it from a separate
process (families_load.py) for the run's length: scoreboards polling share links, and phones at
tables tapping buys and saving hands. Budgets: p95 of every request ≤ 50 ms, and no errors.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from families_load import KINDS
from http_load import percentile
from server import free_port, start_server, stop_server, worker_peak_rss_mb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PASSWORD = "a bench password"
SEATED = ["Ann", "Bob", "Cy", "Di", "Ed"]  # the table of each family's game in progress
BUDGET = {"p95_ms": 50.0, "errors": 0}
FULL = {"families": 200, "games": 50, "workers": 4, "seconds": 30, "boards": 20, "tables": 10}
QUICK = {"families": 5, "games": 5, "workers": 4, "seconds": 8, "boards": 4, "tables": 2}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("many families run")
    group.add_argument("--pg-url", help="an empty PostgreSQL database (SQLAlchemy URL); default: a throwaway server")
    group.add_argument("--families", type=int, help=f"families seeded (default {FULL['families']})")
    group.add_argument("--family-games", type=int, help=f"finished games per family (default {FULL['games']})")
    group.add_argument("--family-workers", type=int, help=f"gunicorn workers (default {FULL['workers']})")
    group.add_argument("--family-seconds", type=float, help=f"length of the load (default {FULL['seconds']})")
    group.add_argument("--boards", type=int, help=f"scoreboards polling (default {FULL['boards']})")
    group.add_argument("--tables", type=int, help=f"tables with phones, one family each (default {FULL['tables']})")
    group.add_argument("--phones-per-table", type=int, default=1,
                       help="phones at each table, each tapping for its own player (default 1)")


def settings(options) -> dict:
    chosen = dict(QUICK if options.quick else FULL)
    for key, option in (("families", "families"), ("games", "family_games"), ("workers", "family_workers"),
                        ("seconds", "family_seconds"), ("boards", "boards"), ("tables", "tables")):
        if getattr(options, option) is not None:
            chosen[key] = getattr(options, option)
    chosen.update(phones_per_table=options.phones_per_table, tap_every=1.0, save_every=10.0, poll_every=2.0)
    if not 1 <= chosen["phones_per_table"] <= len(SEATED) - 1:
        raise SystemExit(f"--phones-per-table is 1 to {len(SEATED) - 1} (a player is left to go out)")
    if max(chosen["tables"], chosen["boards"]) > chosen["families"]:
        raise SystemExit("tables and scoreboards are each at most one per family")
    saves = int((chosen["seconds"] - chosen["save_every"] / 2) // chosen["save_every"]) + 1
    if saves >= 10:  # shanghai-10: the game would end, and its round screen with it
        raise SystemExit(f"{saves} saved hands per table would end the 10-hand game: shorten the run")
    return chosen


# -- the database -------------------------------------------------------------------------------


class Postgres:
    """A throwaway server from Debian's packages, started by .ci/postgres (with fsync off, for a
    quick seeding) and restarted with fsync on before the run, as a real server runs."""

    def __init__(self, bindir: str):
        self.bindir, self.port = bindir, free_port()
        self.data = tempfile.mkdtemp(prefix="bench-pg-")
        out = subprocess.run(["bash", str(ROOT / ".ci" / "postgres"), str(self.port), self.data],
                             capture_output=True, text=True)
        if out.returncode:
            self.stop()
            raise SystemExit(f"PostgreSQL did not start:\n{out.stderr}")
        self.url = out.stdout.strip()

    @classmethod
    def start(cls) -> Postgres | None:
        bindirs = glob.glob("/usr/lib/postgresql/*/bin")
        if not bindirs:
            return None
        return cls(max(bindirs, key=lambda d: int(Path(d).parent.name.split(".")[0])))

    def _pg_ctl(self, *args: str) -> subprocess.CompletedProcess:
        command = [f"{self.bindir}/pg_ctl", "-D", self.data, *args]
        if os.getuid() == 0:  # the server refuses to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True)

    def fsync_on(self) -> None:
        options = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.data} -c max_connections=300 "
                   "-c fsync=on")
        out = self._pg_ctl("-l", f"{self.data}/server.log", "-w", "-m", "fast", "restart", "-o", options)
        if out.returncode:
            raise SystemExit(f"PostgreSQL did not restart:\n{out.stderr}")

    def stop(self) -> None:
        self._pg_ctl("-m", "fast", "stop")
        shutil.rmtree(self.data, ignore_errors=True)
        Path(f"{self.data}.log").unlink(missing_ok=True)


def seed(folder: Path, url: str | None, chosen: dict) -> dict:
    """Families with members, saved games and a game in progress each; share links for the boards."""
    os.environ["SCOREKEEPER_INSTANCE_PATH"] = str(folder)
    if url:
        os.environ["SCOREKEEPER_DATABASE_URL"] = url
    else:
        os.environ.pop("SCOREKEEPER_DATABASE_URL", None)
    from pages import seat_players

    from scorekeeper import create_app, rules
    from scorekeeper.accounts import service as account_service
    from scorekeeper.demo import seed_demo
    from scorekeeper.extensions import db
    from scorekeeper.games import service
    from scorekeeper.sharing import service as sharing

    app = create_app()
    tables, boards = [], []
    with app.app_context():
        variant = rules.get_variant("shanghai-10")
        for i in range(chosen["families"]):
            member = account_service.create_family(f"Family {i}", f"family{i}", PASSWORD)
            seed_demo(member.family, chosen["games"], seed=i)
            players = seat_players(member.family, SEATED)
            seats = [service.SeatChoice(player_id=players[n].id) for n in SEATED]
            game = service.start_game(member.family, variant, seats, first_dealer=0)
            if i < chosen["tables"]:
                tables.append({"username": f"family{i}", "game": game.id,
                               "players": [players[n].id for n in SEATED]})
            if i < chosen["boards"]:
                boards.append(f"/live/{sharing.create(game, 'view', member).token}/board")
        postgres = None
        if db.engine.dialect.name == "postgresql":
            postgres = db.session.execute(db.text("SHOW server_version")).scalar()
            db.session.commit()
            # A server that has been up a while has its statistics: not autovacuum during the run.
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
                connection.execute(db.text("VACUUM ANALYZE"))
        db.session.remove()
        db.engine.dispose()
    os.environ.pop("SCOREKEEPER_DATABASE_URL", None)
    return {"tables": tables, "boards": boards, "postgres": postgres}


def pg_fsync(url: str) -> str:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.connect() as connection:
        value = connection.execute(sa.text("SHOW fsync")).scalar()
    engine.dispose()
    return value


# -- the run ------------------------------------------------------------------------------------


def plan_for(port: int, data: dict, chosen: dict) -> dict:
    phones = []
    for table in data["tables"]:
        for seat in range(chosen["phones_per_table"]):
            phones.append({"username": table["username"], "password": PASSWORD, "game": table["game"],
                           "player": table["players"][seat], "players": table["players"],
                           "went_out": table["players"][-1], "saves": seat == 0})
    return {"port": port, "seconds": chosen["seconds"], "warm_up": 4, "boards": data["boards"], "phones": phones,
            **{k: chosen[k] for k in ("tap_every", "save_every", "poll_every")}}


def run(options) -> dict:
    """Set up, drive and summarise one many-families run."""
    chosen = settings(options)
    folder = Path(tempfile.mkdtemp(prefix="bench-families-"))
    postgres = None if options.pg_url else Postgres.start()
    url = options.pg_url or (postgres and postgres.url)
    try:
        begun = time.perf_counter()
        data = seed(folder, url, chosen)
        seeded = time.perf_counter() - begun
        if postgres:
            postgres.fsync_on()
        fsync = pg_fsync(url) if url else None
        server, port = start_server(folder, workers=chosen["workers"], database_url=url)
        try:
            load_before = os.getloadavg()[0]
            result = drive(port, plan_for(port, data, chosen), folder)
            load_after = os.getloadavg()[0]
            rss = worker_peak_rss_mb(server.pid)
        finally:
            stop_server(server)
    finally:
        if postgres:
            postgres.stop()
        shutil.rmtree(folder, ignore_errors=True)
    database = f"PostgreSQL {data['postgres']} (fsync {fsync})" if url else "SQLite (no PostgreSQL installed)"
    return {**chosen, **summarise(result), "seeded_s": seeded, "database": database, "postgres": data["postgres"],
            "throwaway": bool(postgres), "rss_mb": rss,
            "load": (load_before, load_after), "phones": len(data["tables"]) * chosen["phones_per_table"]}


def drive(port: int, plan: dict, folder: Path) -> dict:
    plan_file, samples_file = folder / "plan.json", folder / "samples.json"
    plan_file.write_text(json.dumps(plan))
    subprocess.run([sys.executable, str(ROOT / "bench" / "families_load.py"), str(plan_file), str(samples_file)],
                   check=True, timeout=plan["seconds"] + 300)
    return json.loads(samples_file.read_text())


def summarise(result: dict) -> dict:
    samples = result["samples"]
    kinds = {}
    for kind in KINDS:
        mine = [s for s in samples if s[0] == kind]
        if mine:
            kinds[kind] = _stats(mine)
    errors = [s for s in samples if not s[2]]
    lags = [lag * 1000 for lag in result["lags"]] or [0.0]
    return {"kinds": kinds, "overall": _stats(samples), "rps": len(samples) / max(result["wall"], 1e-9),
            "wall": result["wall"], "lag_p95": percentile(lags, 95), "lag_max": max(lags),
            "error_notes": sorted({f"{s[0]}: {s[3]}" for s in errors})[:8]}


def _stats(samples: list) -> dict:
    ms = [s[1] for s in samples]
    return {"count": len(ms), "median": statistics.median(ms), "p95": percentile(ms, 95), "max": max(ms),
            "errors": sum(1 for s in samples if not s[2])}


def verdicts(res: dict) -> list[tuple[str, bool]]:
    overall = res["overall"]
    return [
        (f"many families: p95 of every request {overall['p95']:.1f} ms over {overall['count']:,} requests "
         f"(≤ {BUDGET['p95_ms']:.0f} ms)", overall["p95"] <= BUDGET["p95_ms"]),
        (f"many families: {overall['errors']} errors (= {BUDGET['errors']})", overall["errors"] == BUDGET["errors"]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 families × 5 games for 8 s")
    add_arguments(parser)
    options = parser.parse_args()
    from report import families_section

    res = run(options)
    text, checks = families_section(res)
    print(text)
    print("\n".join(f"- {'PASS' if ok else 'FAIL'} {line}" for line, ok in checks))


if __name__ == "__main__":
    main()
