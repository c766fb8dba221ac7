"""Lighthouse 12's mobile run of every page, signed in: its performance score and its cumulative
layout shift (CLS), with the elements that moved.

    python bench/lighthouse.py [--games 60]   # a family served by gunicorn; prints the section

Lighthouse comes from the npm registry (``npx -y lighthouse@12``) and drives Debian's Chromium
(``CHROME_PATH``, ``--headless=new --no-sandbox``); the session cookie goes with every request
(``--extra-headers``). Without npx, or when the registry cannot be reached, the section says so and
the rest of the benchmark goes on.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
PACKAGE = "lighthouse@12"
BUDGET = {"cls": 0.01}
PAGE_TIMEOUT_S = 180
# With --quick, the pages whose script places something on them (about 15 s a page).
QUICK = ("home", "round screen", "card entry", "standings with chance to win", "share", "paper grid")


def pages(ids: dict, endpoints: dict[str, str]) -> dict[str, str]:
    """The bench's pages and the others a family opens: the share page, the family page, the house
    rules and the paper grid of the game in progress."""
    playing = ids["playing"]
    chosen = {name: path for name, path in endpoints.items() if path != "/healthz"}
    chosen.update({"share": f"/games/{playing}/share", "family": "/family", "house rules": "/house-rules",
                   "paper grid": f"/games/{playing}/paper"})
    return chosen


def _npx(*args: str, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "CHROME_PATH": CHROMIUM}
    return subprocess.run(["npx", "-y", PACKAGE, *args], capture_output=True, text=True, timeout=timeout, env=env)


def _why(completed: subprocess.CompletedProcess) -> str:
    lines = [line for line in (completed.stderr or completed.stdout or "").splitlines() if line.strip()]
    return lines[-1][:200] if lines else f"exit status {completed.returncode}"


def version() -> tuple[str | None, str | None]:
    """Lighthouse's version, fetched once from the registry; or why it cannot run here."""
    if not shutil.which("npx"):
        return None, "npx is not installed (Node.js's npm)"
    if not Path(CHROMIUM).exists():
        return None, f"no Chromium at {CHROMIUM}"
    try:
        completed = _npx("--version", timeout=300)
    except subprocess.TimeoutExpired:
        return None, "npx took over 5 minutes to fetch Lighthouse (no registry?)"
    if completed.returncode != 0:
        return None, f"npx could not fetch or start Lighthouse: {_why(completed)}"
    return completed.stdout.strip(), None


def audit(url: str, cookie: str, folder: Path) -> dict:
    """One mobile run (Lighthouse's default emulation and throttling), performance only."""
    headers, report = folder / "headers.json", folder / "report.json"
    headers.write_text(json.dumps({"Cookie": cookie}))
    completed = _npx(url, "--only-categories=performance", "--output=json", f"--output-path={report}",
                     "--chrome-flags=--headless=new --no-sandbox --disable-gpu", f"--extra-headers={headers}",
                     "--quiet", timeout=PAGE_TIMEOUT_S)
    if completed.returncode != 0 or not report.exists():
        raise RuntimeError(_why(completed))
    result = json.loads(report.read_text())
    report.unlink()
    if result.get("runtimeError"):
        raise RuntimeError(result["runtimeError"].get("message", "runtime error"))
    audits = result["audits"]
    items = ((audits.get("layout-shifts") or {}).get("details") or {}).get("items", [])
    return {
        "score": round(result["categories"]["performance"]["score"] * 100),
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "shifts": [(item["node"].get("selector", "?"), item["score"]) for item in items if "node" in item],
        "final": result.get("finalDisplayedUrl", url),
    }


def run(port: int, cookie: str, paths: dict[str, str]) -> dict:
    """Every page in turn, one Lighthouse run each; a page Lighthouse could not measure is reported."""
    started = time.perf_counter()
    found, unavailable = version()
    results: dict[str, dict] = {}
    if found:
        with tempfile.TemporaryDirectory(prefix="lighthouse-") as folder:
            for name, path in paths.items():
                url = f"http://127.0.0.1:{port}{path}"
                try:
                    results[name] = {"path": path, **audit(url, cookie, Path(folder))}
                except (RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as error:
                    results[name] = {"path": path, "error": str(error) or type(error).__name__}
    return {"version": found, "unavailable": unavailable, "pages": results,
            "seconds": time.perf_counter() - started}


def section(res: dict) -> tuple[str, list[tuple[str, bool]]]:
    """The Lighthouse table and a CLS budget line per page."""
    if res["unavailable"]:
        text = (f"### Lighthouse (mobile)\n\nNot run: {res['unavailable']}. The layout shift of every page is "
                "still guarded by tests/browser/test_layout_shift.py.")
        return text, []
    lines = [f"### Lighthouse {res['version']} (mobile emulation, simulated throttling, signed in; "
             f"{len(res['pages'])} pages in {res['seconds']:.0f} s)", "",
             "| page | performance | CLS | what moved (its share of the CLS) |", "|---|---:|---:|---|"]
    verdicts = []
    for name, page in res["pages"].items():
        if "error" in page:
            lines.append(f"| {name} | – | – | not measured: {page['error']} |")
            verdicts.append((f"{name}: Lighthouse could not measure it ({page['error']})", False))
            continue
        moved = "; ".join(f"`{selector}` {score:.3f}" for selector, score in page["shifts"][:3]) or "nothing"
        lines.append(f"| {name} | {page['score']} | {page['cls']:.3f} | {moved} |")
        verdicts.append((f"{name}: cumulative layout shift {page['cls']:.3f} in Lighthouse's mobile run "
                         f"(≤ {BUDGET['cls']})", page["cls"] <= BUDGET["cls"]))
    return "\n".join(lines), verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description="Lighthouse 12's mobile run of every page, signed in.")
    parser.add_argument("--games", type=int, default=60, help="the family's finished games (default 60)")
    games = parser.parse_args().games
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from http_load import Browser
    from pages import BENCH_PASSWORD, BENCH_USER, endpoints, prepare
    from server import start_server, stop_server

    folder = Path(tempfile.mkdtemp(prefix="bench-lighthouse-"))
    try:
        ids = prepare(folder, games, fresh_games=1)
        server, port = start_server(folder, workers=2)
        try:
            browser = Browser(port).sign_in(BENCH_USER, BENCH_PASSWORD)
            res = run(port, browser.cookie, pages(ids, endpoints(ids, games)))
        finally:
            stop_server(server)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    text, verdicts = section(res)
    print(text)
    print("\n".join(f"- {'PASS' if ok else 'FAIL'} {line}" for line, ok in verdicts))


if __name__ == "__main__":
    main()
