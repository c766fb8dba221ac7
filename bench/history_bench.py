"""History pages at 10 and at 10,000 games: median time and SQL queries per page, in one run.

Run: python bench/history_bench.py [--games 10000] [--repeat 15]
Each page is requested in-process through the Flask test client (no network, no server), so the
figures are the app's own work: queries, aggregation and templates.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from signin import signed_in_client  # noqa: E402

from scorekeeper import create_app  # noqa: E402
from scorekeeper.demo import seed_demo  # noqa: E402
from scorekeeper.extensions import counting_statements, db  # noqa: E402
from scorekeeper.models import Game, Player  # noqa: E402
from scorekeeper.web import access  # noqa: E402


def build(games: int):
    folder = tempfile.mkdtemp()
    app = create_app({"SECRET_KEY": "bench-only secret, not for serving", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/h.sqlite"})
    started = time.perf_counter()
    with app.app_context():
        seed_demo(access.current_family(), games, seed=7)
        newest = db.session.execute(db.select(Game.id).order_by(Game.id.desc()).limit(1)).scalar()
        players = db.session.execute(db.select(Player.id).order_by(Player.id).limit(2)).scalars().all()
    seeded = time.perf_counter() - started
    pages = {
        "home": "/",
        "history page 1": "/history",
        "history deep page": "/history?page=300" if games > 7500 else "/history?page=1",
        "history filtered": f"/history?player={players[0]}&preset=shanghai-10",
        "players": "/players",
        "player profile": f"/players/{players[0]}",
        "records + head-to-head": f"/records?a={players[0]}&b={players[1]}",
        "game detail": f"/games/{newest}/standings",
    }
    return app, pages, seeded


def measure(app, url: str, repeat: int) -> tuple[float, int]:
    client = signed_in_client(app)
    client.get(url)  # warm
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    with counting_statements(app) as sent:
        client.get(url)
    return statistics.median(times), len(sent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=15)
    options = parser.parse_args()
    small, small_pages, _ = build(10)
    large, large_pages, seeded = build(options.games)
    print(f"seed-demo --games {options.games}: {seeded:.1f} s")
    print(f"{'page':26} {'10 games ms':>12} {'queries':>8} {options.games:>7,} games ms {'queries':>8} {'growth':>7}")
    for name in small_pages:
        a, qa = measure(small, small_pages[name], options.repeat)
        b, qb = measure(large, large_pages[name], options.repeat)
        print(f"{name:26} {a:12.1f} {qa:8} {b:16.1f} {qb:8} {b / a:7.2f}")


if __name__ == "__main__":
    main()
