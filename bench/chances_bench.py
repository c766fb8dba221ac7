"""The chance to win at 10 and at 10,000 games: the time one draw takes (the family's hands read
from the database, then 10,000 simulated finishes), and the standings page drawn without its cache.

Run: python bench/chances_bench.py [--games 10000] [--repeat 25]
In-process, like history_bench.py: the figures are the app's own work, no network.
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

from scorekeeper import create_app, families, rules  # noqa: E402
from scorekeeper.demo import seed_demo  # noqa: E402
from scorekeeper.extensions import counting_statements, db  # noqa: E402
from scorekeeper.games import chances, hands, service  # noqa: E402
from scorekeeper.models import Player  # noqa: E402
from scorekeeper.rules.chances import chance_to_win, seed_for  # noqa: E402
from scorekeeper.web import access  # noqa: E402

PLAYERS = ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal")


def build(games: int, variant_key: str):
    """A family with ``games`` demo games and an 8-player game of ``variant_key`` two hands in."""
    folder = tempfile.mkdtemp()
    app = create_app({"SECRET_KEY": "bench-only secret, not for serving",
                      "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/c.sqlite", "PAGE_CACHE": False})
    with app.app_context():
        family = access.current_family()
        seed_demo(family, games, seed=7)
        players = [Player(family_id=family.id, name=name) for name in PLAYERS]
        db.session.add_all(players)
        db.session.commit()
        variant = rules.get_variant(variant_key)
        game = service.start_game(family, variant, [service.SeatChoice(player_id=p.id) for p in players], 0)
        for number in variant.hand_numbers()[:2]:
            entries = [rules.Hand(player_id=p.id, went_out=(i == number), laid_down=True,
                                  hand_total=None if i == number else 5 * i + 10) for i, p in enumerate(players)]
            hands.record_round(game, number, entries, version=0)
        game_id = game.id
        db.session.remove()
    return app, game_id


def median_ms(work, repeat: int) -> float:
    work()  # warm
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(app, game_id: int, repeat: int) -> dict[str, float]:
    with app.app_context():
        family = families.sole_family()
        game = service.load_game(family, game_id)
        samples = chances.family_hands(family.id, game.variant_key)
        left = [r.number for r in game.rounds if r.recorded_at is None]
        totals = [0] * len(game.seats)
        figures = {
            "hands": sum(map(len, samples.values())),
            "read hands ms": median_ms(lambda: chances.family_hands(family.id, game.variant_key), repeat),
            "simulate ms": median_ms(lambda: chance_to_win(
                game.variant, totals, left, len(totals), samples, seed_for(game_id, totals, 2)), repeat),
            "draw ms": median_ms(lambda: chances.chances_for(game), repeat),
            # Rules the family never finished a game with: every finished game is looked at.
            "unplayed rules read ms": median_ms(lambda: chances.family_hands(family.id, "house-0"), repeat),
        }
        with counting_statements(app) as sent:
            chances.chances_for(game)
        figures["queries"] = len(sent)
    client = signed_in_client(app)
    figures["standings page ms"] = median_ms(lambda: client.get(f"/games/{game_id}/standings"), repeat)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=25)
    options = parser.parse_args()
    for variant_key in ("family-7", "online-11"):
        print(f"{variant_key}, 8 players, 2 hands in ({len(rules.get_variant(variant_key).rounds) - 2} left):")
        for games in (10, options.games):
            app, game_id = build(games, variant_key)
            figures = measure(app, game_id, options.repeat)
            print(f"  {games:>6,} games: " + " · ".join(
                f"{name} {value:,.1f}" if isinstance(value, float) else f"{name} {value:,}"
                for name, value in figures.items()))


if __name__ == "__main__":
    main()
