"""``flask --app scorekeeper serve`` as a family runs it: a process of its own on a fresh instance,
read from its terminal output (addresses, set-up code)."""

from __future__ import annotations

import os
import re
import secrets
import socket
import subprocess
import sys
import threading
from pathlib import Path

from tests.databases import fresh_database

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServeProcess:
    """``serve`` with ``args`` on a new instance in ``folder``; ``output`` is what it printed."""

    def __init__(self, folder: Path, *args: str):
        self.instance = folder / "instance"
        self.args = args
        self.output = ""
        self.process: subprocess.Popen | None = None

    def start(self) -> ServeProcess:
        env = {**os.environ, "SCOREKEEPER_INSTANCE_PATH": str(self.instance),
               "SCOREKEEPER_DATABASE_URL": fresh_database(self.instance.parent / "db"),
               "SCOREKEEPER_SECRET_KEY": "serve-test-" + secrets.token_hex(16), "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "flask", "--app", "scorekeeper", "serve", *self.args],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8",
        )
        ready = threading.Event()
        threading.Thread(target=self._read, args=(ready,), daemon=True).start()
        if not ready.wait(60):
            self.stop()
            raise RuntimeError(f"serve did not start within 60 s:\n{self.output}")
        if self.process.poll() is not None:
            raise RuntimeError(f"serve exited with {self.process.returncode}:\n{self.output}")
        return self

    def _read(self, ready: threading.Event) -> None:
        for line in self.process.stdout:
            self.output += line
            if line.startswith("Stop with Ctrl+C."):
                ready.set()
        ready.set()  # it ended

    @property
    def setup_code(self) -> str:
        return re.search(r"Set-up code for the first visit: (\S+)", self.output).group(1)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
