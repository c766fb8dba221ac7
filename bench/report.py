"""bench/RESULTS.md: the header (commit, machine, load generators), one table per part of the
run, a PASS/FAIL line for every budget, and how to read the tables."""

from __future__ import annotations

from pages import BASELINE, QUEUED

BUDGET = {
    "page_ratio": 3.0,  # a cached page, × /healthz
    "card_entry_ratio": 3.0,  # the card entry drawn after a change, × /healthz measured the same way
    "post_ratio": 5.0,  # a phone's queued action applied, × /healthz measured the same way
    "growth": 1.3,  # drawn after a change at the large history ÷ at 10 games
    "queries": 10,
    "weight_kb": 40.0,
    "pdf_cold_ratio": 1.5,
    "pdf_repeat_speedup": 20.0,
    "rss_mb": 150.0,
}
Verdicts = list[tuple[str, bool]]


def _f(value, digits=2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def cache_hits(small: dict, large: dict) -> tuple[str, Verdicts]:
    hits = large["hits"]
    client = "wrk" if hits[BASELINE]["client"] == "wrk" else "python client"
    lines = [f"### Cache hits: each page requested again and again, nothing changing ({large['games']:,} games, "
             f"{client})", "",
             f"| page | median ms | p90 ms | p99 ms | req/s | /healthz just before, ms | × /healthz | "
             f"median ms at {small['games']} | gzip KB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    verdicts: Verdicts = []
    for name, row in hits.items():
        ratio = row["median"] / row["base"]
        kb, external = large["kb"].get(name, (None, 0))
        lines.append(f"| {name} | {row['median']:.2f} | {_f(row['p90'])} | {_f(row['p99'])} | {row['rps']:.0f} | "
                     f"{row['base']:.2f} | {ratio:.2f} | {small['hits'][name]['median']:.2f} | {_f(kb, 1)} |")
        if name != BASELINE:
            verdicts.append((f"{name}, cache hit: median {ratio:.2f}× /healthz (≤ {BUDGET['page_ratio']}×)",
                             ratio <= BUDGET["page_ratio"]))
        if kb is not None:
            verdicts.append((f"{name}: {kb:.1f} KB gzip with CSS/JS, {external} outside links "
                             f"(≤ {BUDGET['weight_kb']} KB, 0)", kb <= BUDGET["weight_kb"] and not external))
    return "\n".join(lines), verdicts


# What each page's draw after its change still finds kept, said on its budget line.
KEPT_PART = {"standings with chance to win": "its chances to win kept: a buy moves no total"}


def draws(small: dict, large: dict) -> tuple[str, Verdicts]:
    s, g = small["games"], f"{large['games']:,}"
    lines = ["### Drawn right after the change each page shows: a buy on the game at the table, or that game "
             f"finished (python client, one request at a time, {large['draws'][BASELINE]['n']} samples per page)", "",
             f"| page | drawn after | median ms at {s} | p95 ms at {s} | median ms at {g} | p95 ms at {g} | growth "
             "(paired: median, quartiles) | × /healthz (same way) |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    verdicts: Verdicts = []
    base = large["draws"][BASELINE]["median"]
    for name, row in large["draws"].items():
        before, pairs = small["draws"][name], row["pairs"]
        growth, quartiles = pairs["median"], f"{pairs['q1']:.2f}–{pairs['q3']:.2f}"
        lines.append(f"| {name} | {row['change']} | {before['median']:.2f} | {before['p95']:.2f} | {row['median']:.2f} | "
                     f"{row['p95']:.2f} | {growth:.2f} ({quartiles}) | {row['median'] / base:.2f} |")
        if name != BASELINE:
            kept = f" ({KEPT_PART[name]})" if name in KEPT_PART else ""
            verdicts.append((f"{name}, drawn after {row['change']}{kept}: {row['median']:.1f} ms at {g} games, "
                             f"{growth:.2f}× its {before['median']:.1f} ms at {s}, the median of {row['n']} paired "
                             f"draws (quartiles {quartiles}) (≤ {BUDGET['growth']}×)", growth <= BUDGET["growth"]))
    entry = large["draws"]["card entry"]["median"]
    hit_base = large["hits"][BASELINE]["median"]
    verdicts.append((f"card entry drawn after a buy in {entry:.1f} ms = {entry / base:.2f}× /healthz measured the "
                     f"same way ({base:.2f} ms, one request at a time) (≤ {BUDGET['card_entry_ratio']}×); "
                     f"{entry / hit_base:.2f}× the cache-hit /healthz median ({hit_base:.2f} ms, under load)",
                     entry / base <= BUDGET["card_entry_ratio"]))
    return "\n".join(lines), verdicts


def in_process(small: dict, large: dict) -> tuple[str, Verdicts]:
    s, g = small["games"], f"{large['games']:,}"
    lines = ["### In-process: the page drawn through the Flask test client (no cache, no HTTP), and its SQL "
             "statements", "",
             f"| page | drawn ms at {s} | drawn ms at {g} | queries at {s} | queries at {g} |",
             "|---|---:|---:|---:|---:|"]
    verdicts: Verdicts = []
    for name, queries in large["queries"].items():
        before = small["queries"][name]
        lines.append(f"| {name} | {small['drawn'][name]:.1f} | {large['drawn'][name]:.1f} | {before} | {queries} |")
        if name not in (BASELINE, QUEUED):  # a write has its own line below
            verdicts.append((f"{name}: {queries} queries, {'the same' if before == queries else f'{before}'} at "
                             f"{s} games (≤ {BUDGET['queries']}, the same at both sizes)",
                             queries <= BUDGET["queries"] and before == queries))
    post = large["post"]
    ratio = post["median"] / post["base"]
    lines += ["", f"A phone's queued hand applied over HTTP (POST /games/<id>/actions, JSON, one per fresh game, "
              f"concurrency {post['concurrency']}): median {post['median']:.1f} ms, p95 {post['p95']:.1f} ms, "
              f"{post['rps']:.0f} req/s; /healthz by the same client just before: {post['base']:.2f} ms."]
    verdicts.append((f"a queued action (a hand, the heaviest) applied: median {ratio:.2f}× /healthz measured the same "
                     f"way (≤ {BUDGET['post_ratio']}×)", ratio <= BUDGET["post_ratio"]))
    return "\n".join(lines), verdicts


def pdfs(large: dict) -> tuple[str, Verdicts]:
    pdf, book = large["pdf"], large["yearbook"]
    lines = [f"### PDFs ({large['games']:,} games): each sheet's first render over HTTP, paired with a bare "
             "WeasyPrint page of the same table size rendered in the benchmark's process right after", "",
             "| game | hands × players | bare table rows × columns | sheet ms | bare ms | ratio | ratio in CPU seconds |",
             "|---:|---|---|---:|---:|---:|---:|"]
    for p in pdf["pairs"]:
        cpu_ratio = f"{p['cpu_ratio']:.2f}" if p.get("cpu_ratio") else "–"
        lines.append(f"| {p['game']} | {p['hands']} × {p['players']} | {p['rows']} × {p['columns']} | "
                     f"{p['sheet']:.0f} | {p['bare']:.0f} | {p['ratio']:.2f} | {cpu_ratio} |")
    spread, cpu = pdf["spread"], pdf.get("cpu")
    quartiles = f"{spread['q1']:.2f}–{spread['q3']:.2f}"
    in_cpu = (f"; in CPU seconds (the workers' for the sheet, the benchmark's for the bare page, which a busy "
              f"machine stretches less) {cpu['median']:.2f}, quartiles {cpu['q1']:.2f}–{cpu['q3']:.2f}" if cpu else "")
    lines += ["", f"Medians of {len(pdf['pairs'])} pairs: sheet {pdf['sheet']:.0f} ms, bare page {pdf['bare']:.0f} ms, "
              f"ratio {pdf['ratio']:.2f} (the pairs' ratios: {spread['min']:.2f} lowest, quartiles {quartiles}, "
              f"{spread['max']:.2f} highest){in_cpu}. The sheet's time includes its request (session, the game read, its "
              "template) and its styled page (fonts, borders, the heading's rule text), which the bare page has not. "
              f"Repeated download with its ETag (304): {pdf['repeat']:.2f} ms. Yearbook "
              f"of {book['games']} games ({book['pages']} pages): {book['cold_s']:.1f} s, repeated {book['repeat']:.2f} ms."]
    speedup = pdf["sheet"] / pdf["repeat"]
    verdicts = [
        (f"filled sheet's first render: median ratio {pdf['ratio']:.2f}× a bare page of the same table "
         f"({len(pdf['pairs'])} pairs, quartiles of their ratios {quartiles}; medians {pdf['sheet']:.0f} ms and "
         f"{pdf['bare']:.0f} ms{in_cpu}) "
         f"(≤ {BUDGET['pdf_cold_ratio']}×)", pdf["ratio"] <= BUDGET["pdf_cold_ratio"]),
        (f"filled sheet repeated {pdf['repeat']:.2f} ms: {speedup:.0f}× faster than its first render "
         f"(≥ {BUDGET['pdf_repeat_speedup']:.0f}×)", speedup >= BUDGET["pdf_repeat_speedup"]),
        (f"yearbook of {book['games']} finished games ({book['pages']} pages) made by the render queue in "
         f"{book['cold_s']:.1f} s (≤ 30 s per 100 games); the waiting page answered in {book['waiting_ms']:.0f} ms "
         f"(≤ 5,000 ms); repeated with its ETag in {book['repeat']:.2f} ms",
         book["cold_s"] <= 30 * max(1, book["games"] / 100) and book["waiting_ms"] <= 5000),
        (f"worker peak RSS {large['rss_mb']:.0f} MB (≤ {BUDGET['rss_mb']:.0f} MB)", large["rss_mb"] <= BUDGET["rss_mb"]),
    ]
    return "\n".join(lines), verdicts


def families_section(res: dict) -> tuple[str, Verdicts]:
    from families import verdicts

    where = "a throwaway server started by the benchmark" if res["throwaway"] else "the server given (--pg-url)"
    database = f"{res['database']}, {where}" if res["postgres"] else res["database"]
    lines = [
        f"### Many families: {res['families']} families × {res['games']} games on {database}; "
        f"gunicorn {res['workers']} workers; {res['seconds']:.0f} s", "",
        f"{res['boards']} scoreboards poll a share link every {res['poll_every']:.0f} s with the ETag they last saw "
        f"(the first {min(res['boards'], res['tables'])} watch the tables below, the others idle games in progress). "
        f"\"10 phones at 10 tables\" is read as one phone per table: {res['tables']} tables of different families, "
        f"{res['phones_per_table']} phone(s) at each (`--phones-per-table`), {res['phones']} in all; each taps a buy "
        f"or its undo for its own player every {res['tap_every']:.0f} s (the POST and the round screen it "
        f"redirects to), and one phone per table saves a hand every {res['save_every']:.0f} s (card entry for the "
        f"round's version, the POST, the page it redirects to). Timed after an untimed warm-up (4 requests per "
        f"client that change nothing). Seeded in {res['seeded_s']:.0f} s.", "",
        "| request | count | median ms | p95 ms | max ms | errors |", "|---|---:|---:|---:|---:|---:|",
    ]
    for kind, row in [*res["kinds"].items(), ("**every request**", res["overall"])]:
        lines.append(f"| {kind} | {row['count']:,} | {row['median']:.1f} | {row['p95']:.1f} | {row['max']:.1f} | "
                     f"{row['errors']} |")
    lines += ["", f"{res['rps']:.1f} requests/s over {res['wall']:.1f} s; ticks began late by {res['lag_p95']:.1f} ms "
              f"at p95 ({res['lag_max']:.0f} ms at most); worker peak RSS {res['rss_mb']:.0f} MB; the machine's load "
              f"average (1 min) {res['load'][0]:.1f} as the load began, {res['load'][1]:.1f} as it ended."]
    if res["error_notes"]:
        lines += ["", "Errors seen: " + "; ".join(res["error_notes"])]
    if res["phones_per_table"] > 1:
        lines += ["", "With more than one phone at a table, a tap sent for a hand another phone has just saved "
                  "is refused by the app (as it should be) and counted as an error."]
    return "\n".join(lines), verdicts(res)


def reading(large: dict | None) -> str:
    """How to read the tables; with the pages run, what recording a round costs and why."""
    text = READING
    if large:
        post = large["post"]
        text += (
            f"- *A queued hand*: {post['median']:.1f} ms over HTTP, {post['median'] / post['base']:.1f}× /healthz "
            f"(budget {BUDGET['post_ratio']:.0f}×). In-process one takes {large['drawn'][QUEUED]:.1f} ms against "
            f"{large['drawn'][BASELINE]:.1f} ms for /healthz: it reads the JSON, checks the hand with the rules "
            "core, recomputes every score and writes the hand in one transaction with its id "
            f"({large['queries'][QUEUED]} statements: read the member, game, rounds and results and whether the "
            "id was applied; update the round, the results and the summaries; add the change-history line and "
            "the id; move the family's version on; read the state back for the phone), which SQLite flushes to "
            f"disk before answering. Under a concurrency of {post['concurrency']} the two workers also take turns "
            "at SQLite's single writer.\n"
        )
    return text


READING = """## Reading the tables

- *Cache hits*: pages are drawn once per change of the family's games and then served from memory
  (ETag, gzip kept), so these are the pages a phone sees between two changes. wrk (when installed)
  reports the 50/75/90/99th percentiles, so the columns are p90 and p99, not p95; the Python client
  reports the same ones. Each page is measured right after /healthz (the same client, load and
  length), and its ratio is to that neighbour. Every page here, the card entry and the public
  scoreboard included, is drawn once per change for every phone of the family.
- *Drawn right after the change each page shows* is the honest figure of a page. Each family is
  shaped like a real one: its history, and one game at its table played by five of its players
  (the busiest first, whose profile is timed) with every hand in but the last. The pages of that
  game (round screen, card entry, standings, scoreboard) are drawn after a buy and its undo sent as
  a phone sends them; home and the history pages after that game's last hand (it finishes, the
  family's statistics version moves on, so a profile's and a season's figures are worked out
  again; its undo afterwards is untimed). Every cached page is stale after either, and each page
  is drawn once per change, in an order that turns. Both histories are served at once (a gunicorn
  each) and take turns change by change, so a busy moment of the shared machine hits both alike.
  Growth is the median of the paired ratios: each sample's draw at the large history over the same
  sample's draw at 10 games, taken one after the other (with their quartiles). The card-entry budget
  compares its median to /healthz measured the same way (after the same change, one request at a
  time), not to the cache-hit /healthz under wrk's load (also shown). The phone's queued hands go
  to fresh games of a second family on the same server, which the timed family never shows.
- *In-process* is the page drawn through the Flask test client with the page cache off: the app's
  own work (queries, aggregation, templates) without HTTP; its statements are counted there.
- *PDFs*: each sample is a finished game whose sheet no worker has rendered yet, timed over HTTP,
  then a bare one-table WeasyPrint page of the same size (two rows per hand plus two, four columns
  plus two per player; `bench/pdf_bench.py`) rendered in the benchmark's own process right after,
  so both meet the same moment of the machine; the budget is the median of the pairs' ratios.
- *Many families*: every request is timed on its own from a separate process; an error is a status
  of 400 or more, a failed connection or timeout, or a tap or save the app refused (its message on
  the next page, or the card entry shown again). Ticks never skip: a slow answer makes the next
  request late (the lag above) instead of dropping it.
"""
