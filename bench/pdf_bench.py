"""PDF speed: each document's render time against a bare one-table WeasyPrint page, same run.

Run: python bench/pdf_bench.py [--repeat N]
Prints median render times, the ratio to the bare page (target ≤ 1.5×) and the time of a repeated
download of an unchanged filled sheet (ETag → 304, target ≥ 20× faster than a render).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from flask import render_template  # noqa: E402
from signin import signed_in_client  # noqa: E402

from scorekeeper import (  # noqa: E402
    create_app,
    families,  # noqa: E402
    rules,
)
from scorekeeper.extensions import db  # noqa: E402
from scorekeeper.games import service  # noqa: E402
from scorekeeper.printing import documents as printing  # noqa: E402
from scorekeeper.rules import limits  # noqa: E402


def bare_page(rows: int, columns: int, orientation: str = "landscape") -> str:
    """A bare one-table page: no styling beyond borders, ``rows`` × ``columns`` cells of short text."""
    cells = "".join(
        "<tr>" + "".join(f"<td>{r * columns + c}</td>" for c in range(columns)) + "</tr>" for r in range(rows)
    )
    return (
        '<!doctype html><html><head><meta charset="utf-8"><style>'
        f"@page {{ size: letter {orientation}; margin: 10mm; }} html {{ font-family: 'DejaVu Sans'; font-size: 8pt; }}"
        "table { border-collapse: collapse; width: 100%; } td { border: 1px solid #000; }"
        f"</style></head><body><table>{cells}</table></body></html>"
    )


def sheet_shape(hands: int, players: int) -> tuple[int, int]:
    """The bare table of a score sheet's size: two rows per hand plus the heading and totals rows,
    four columns for the hand (number, contract, cards, dealer) plus two per player."""
    return 2 * hands + 2, 4 + 2 * players


def paired_medians_ms(first, second, repeat: int) -> tuple[float, float]:
    """Median times of two renders measured turn about, so load on a shared machine hits both alike."""
    a, b = [], []
    for _ in range(repeat):
        for fn, times in ((first, a), (second, b)):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(a), statistics.median(b)


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def play_game(client) -> int:
    response = client.post("/games/new/seating", data={
        "variant": "shanghai-10", "seat": [f"n:{n}" for n in ("Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal")],
        "first_dealer": "n:Cy"})
    game_id = int(response.headers["Location"].rsplit("/", 1)[1])
    for number in range(1, 11):
        data = {"went_out": "1", "action": "save", "version": "0"}
        data.update({f"p{p}-k_K": "1" for p in range(2, 9)})
        client.post(f"/games/{game_id}/rounds/{number}/score", data=data)
    return game_id


def largest_rules() -> rules.Variant:
    """The largest rules the bounds allow (``rules.limits``), for 8 players."""
    base = rules.get_variant("shanghai-10")
    return rules.Variant(
        key="largest", name="Largest rules allowed", source="", min_players=2, max_players=8,
        deck_rules=(rules.DeckRule(2, 8, limits.MOST_DECKS, limits.MOST_JOKERS),),
        rounds=tuple(rules.Round(n, "two sets of 3", (rules.Meld("set", 3),) * 2, limits.MOST_DEALT, limits.MOST_BUYS)
                     for n in range(1, limits.MOST_ROUNDS + 1)),
        cards_per_buy=limits.MOST_CARDS_PER_BUY, points={**base.points, "K": limits.MOST_POINTS},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    repeat = parser.parse_args().repeat

    folder = tempfile.mkdtemp()
    app = create_app({"SECRET_KEY": "bench-only secret, not for serving", "WTF_CSRF_ENABLED": False,
                      "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/bench.sqlite"})
    client = signed_in_client(app)
    game_id = play_game(client)

    with app.test_request_context():
        game = service.load_game(families.sole_family(), game_id)
        documents = {}
        names = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
        for key in rules.VARIANTS:
            documents[f"blank sheet {key} (8 players)"] = printing.sheet_document(
                printing.blank_sheet(key, names, "Cy"), "letter")
            documents[f"rule card {key}"] = printing.rule_card_document(printing.rule_card(key), "letter")
        documents["filled sheet shanghai-10 (8 players, 10 rounds)"] = printing.sheet_document(
            printing.filled_sheet(game, "Bench family"), "letter")
        largest = largest_rules()
        documents["blank sheet, largest rules allowed (8 players)"] = printing.sheet_document(
            printing.blank_sheet(largest, names, "Cy"), "letter")
        documents["rule card, largest rules allowed"] = printing.rule_card_document(
            printing.rule_card(largest), "letter")
        htmls = {name: render_template(doc.template, **doc.context) for name, doc in documents.items()}
        db.session.remove()

        small = bare_page(11, 5)
        printing.html_to_pdf(small)  # warm fonts and caches once, for everyone alike
        small_ms = median_ms(lambda: printing.html_to_pdf(small), repeat)
        print(f"{'document':50} {'median ms':>9} {'bare same-size ms':>17} {'× same-size':>11} {'× small bare':>12}")
        print(f"{'bare one-table page, 11 × 5':50} {small_ms:9.1f}")
        worst = 0.0
        for name, html in htmls.items():
            doc = documents[name]
            if "players" in doc.context:  # a sheet: 2 rows per round
                shape = (*sheet_shape(len(doc.context["rows"]), len(doc.context["players"])), "landscape")
            else:  # a rule card: its contract table plus the facts around it
                shape = (len(doc.context["variant"].rounds) + 14, 5, "portrait")
            bare = bare_page(*shape)
            ms, bare_ms = paired_medians_ms(
                lambda: printing.html_to_pdf(html), lambda: printing.html_to_pdf(bare), repeat
            )
            worst = max(worst, ms / bare_ms)
            print(f"{name:50} {ms:9.1f} {bare_ms:17.1f} {ms / bare_ms:11.2f} {ms / small_ms:12.2f}")

    url = f"/games/{game_id}/sheet.pdf"
    printing.cache._items.clear()
    cold = median_ms(lambda: (printing.cache._items.clear(), client.get(url)), repeat)
    etag = client.get(url).headers["ETag"]
    not_modified = median_ms(lambda: client.get(url, headers={"If-None-Match": etag}), repeat * 5)
    cached = median_ms(lambda: client.get(url), repeat * 5)
    print()
    print(f"filled sheet download, cold render:        {cold:8.1f} ms")
    print(f"repeated download, If-None-Match → 304:    {not_modified:8.2f} ms  ({cold / not_modified:.0f}× faster)")
    print(f"repeated download, cached PDF (200):       {cached:8.2f} ms  ({cold / cached:.0f}× faster)")
    print()
    print(f"worst document / bare page of the same size: {worst:.2f}× (target ≤ 1.5×)")


if __name__ == "__main__":
    main()
