"""gunicorn for the benchmark: started on a free port of 127.0.0.1, stopped at the end, and
the machine it runs on described in one line."""

from __future__ import annotations

import os
import platform
import re
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from http_load import request

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(folder: Path, workers: int = 2, database_url: str | None = None) -> tuple[subprocess.Popen, int]:
    """gunicorn with the app's own settings (scorekeeper.gunicorn_conf) and ``workers`` workers."""
    port = free_port()
    env = {**os.environ, "SCOREKEEPER_INSTANCE_PATH": str(folder)}
    env.pop("SCOREKEEPER_DATABASE_URL", None)
    if database_url:
        env["SCOREKEEPER_DATABASE_URL"] = database_url
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:scorekeeper.gunicorn_conf", "--workers", str(workers),
         "--bind", f"127.0.0.1:{port}", "--log-level", "warning", "scorekeeper:create_app()"],
        cwd=ROOT, env=env,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if request(port, "GET", "/healthz").status == 200:
                _wait_for_workers(server.pid, workers, deadline)
                return server, port
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("gunicorn did not start within 60 s")


def _wait_for_workers(master: int, workers: int, deadline: float) -> None:
    """Every worker up (each loads WeasyPrint once at start), so none starts during a measurement."""
    while time.monotonic() < deadline and len(_workers(master)) < workers:
        time.sleep(0.2)
    time.sleep(1.0)  # post_worker_init (fonts) of the last one


def stop_server(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def _workers(master: int) -> list[str]:
    texts = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        if re.search(rf"^PPid:\s+{master}$", text, re.M):
            texts.append(text)
    return texts


def worker_peak_rss_mb(master: int) -> float:
    """The largest peak resident size (VmHWM) among the master's worker processes."""
    peaks = [int(m.group(1)) / 1024 for text in _workers(master)
             if (m := re.search(r"^VmHWM:\s+(\d+) kB", text, re.M))]
    return max(peaks) if peaks else float("nan")


def cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "unknown CPU"
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    return match.group(1).strip() if match else "unknown CPU"


def machine(postgres: str | None = None) -> str:
    """Cores, CPU, Python, SQLite and (when the run used one) the PostgreSQL server's version."""
    parts = [f"{os.cpu_count()} cores ({cpu_model()}, {platform.machine()})", f"Linux {platform.release()}",
             f"Python {platform.python_version()}", f"SQLite {sqlite3.sqlite_version}"]
    if postgres:
        parts.append(f"PostgreSQL {postgres}")
    return " · ".join(parts)


def commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip() or "unknown"
