"""The load generators of the benchmark: a small Python HTTP client (http.client, one connection
per request, as gunicorn's sync workers close them anyway), a browser-like session that keeps
its cookies and CSRF token, a bounded-load runner on threads, and wrk for the GET pages.

Imports nothing of the app: the many-families run drives the server from a process of its own.
"""

from __future__ import annotations

import gzip
import http.client
import re
import shutil
import statistics
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode, urlsplit

FORM = "application/x-www-form-urlencoded"
# A refused tap or save is answered with a redirect (or the form again) and a message on the
# next page: in the page's top messages (flash-error) or in the player's row (row-message).
REFUSED = re.compile(rb'(?:class="flash flash-error"|class="row-message")[^>]*>([^<]*)')


class Response:
    __slots__ = ("status", "headers", "body", "ms")

    def __init__(self, status: int, headers, body: bytes, ms: float):
        self.status, self.headers, self.body, self.ms = status, headers, body, ms

    @property
    def text(self) -> bytes:
        """The body, unzipped when the server gzipped it."""
        if self.headers.get("Content-Encoding") == "gzip":
            return gzip.decompress(self.body)
        return self.body

    @property
    def location(self) -> str:
        """The redirect target as a path on this server."""
        parts = urlsplit(self.headers.get("Location", ""))
        return parts.path + (f"?{parts.query}" if parts.query else "")


def request(port: int, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
            timeout: float = 60) -> Response:
    """One request on a new connection, timed from connecting to the last byte read."""
    start = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        return Response(response.status, response.msg, data, (time.perf_counter() - start) * 1000)
    finally:
        connection.close()


def csrf_token(body: bytes) -> str:
    token = re.search(rb'name="csrf_token" type="hidden" value="([^"]+)"|name="csrf_token" value="([^"]+)"', body)
    if token is None:
        raise ValueError("no CSRF token on the page")
    return (token.group(1) or token.group(2)).decode()


class Browser:
    """A phone: keeps its cookies and the session's CSRF token, sends gzip like a browser."""

    def __init__(self, port: int, timeout: float = 60):
        self.port, self.timeout = port, timeout
        self.cookies: dict[str, str] = {}
        self.csrf: str | None = None

    def _headers(self, extra: dict | None) -> dict:
        headers = {"Accept-Encoding": "gzip"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        return {**headers, **(extra or {})}

    def _keep(self, response: Response) -> Response:
        for line in response.headers.get_all("Set-Cookie") or ():
            name, _, value = line.split(";")[0].partition("=")
            if value and "max-age=0" not in line.lower():
                self.cookies[name.strip()] = value
            else:
                self.cookies.pop(name.strip(), None)
        return response

    def get(self, path: str, headers: dict | None = None) -> Response:
        return self._keep(request(self.port, "GET", path, None, self._headers(headers), self.timeout))

    def post(self, path: str, form: dict) -> Response:
        body = urlencode({**form, "csrf_token": self.csrf}, doseq=True).encode()
        return self._keep(request(self.port, "POST", path, body, self._headers({"Content-Type": FORM}),
                                  self.timeout))

    @property
    def cookie(self) -> str:
        return self._headers(None).get("Cookie", "")

    def sign_in(self, username: str, password: str) -> Browser:
        """Through the sign-in page, as a person would; then a page that makes the CSRF token."""
        self.csrf = csrf_token(self.get("/login").text)
        response = self.post("/login", {"username": username, "password": password})
        if response.status != 302:
            raise SystemExit(f"signing in as {username} answered {response.status}")
        # Signing in starts a new session; its CSRF token is made (and the cookie set again) here.
        self.csrf = csrf_token(self.get("/games/new").text)
        return self


# -- bounded load -------------------------------------------------------------------------------


def percentile(values, q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil
    return ordered[int(rank) - 1]


def spread(ratios: list[float]) -> dict[str, float]:
    """Paired samples' ratios: their median, quartiles, lowest and highest (each pair was measured
    at one moment of the machine, so their spread is the noise around the median)."""
    q1, median, q3 = statistics.quantiles(ratios, n=4, method="inclusive") if len(ratios) > 1 else ratios * 3
    return {"median": median, "q1": q1, "q3": q3, "min": min(ratios), "max": max(ratios)}


def summarise(latencies, wall: float) -> dict:
    return {"median": percentile(latencies, 50), "p90": percentile(latencies, 90),
            "p95": percentile(latencies, 95), "p99": percentile(latencies, 99),
            "rps": len(latencies) / wall, "n": len(latencies), "client": "python"}


def python_load(port: int, jobs, concurrency: int) -> dict:
    """Run ``jobs`` (method, path, body, headers) at ``concurrency``; their latency summary."""
    latencies: list[float] = []
    errors = []
    lock = threading.Lock()

    def run(job):
        method, path, body, headers = job
        response = request(port, method, path, body, headers)
        with lock:
            latencies.append(response.ms)
            if response.status >= 400:
                errors.append((path, response.status))

    wall = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(run, jobs))
    wall = time.perf_counter() - wall
    if errors:
        raise SystemExit(f"requests failed: {errors[:3]}")
    return summarise(latencies, wall)


def wrk_version() -> str | None:
    if not shutil.which("wrk"):
        return None
    out = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout + ""
    match = re.search(r"wrk (\S+)", out)
    return match.group(1) if match else "unknown version"


def wrk_load(port: int, path: str, headers: dict, concurrency: int, seconds: int) -> dict:
    """wrk for ``seconds`` at ``concurrency`` connections (2 threads): median, p90, p99, req/s."""
    command = ["wrk", "-t", "2", "-c", str(concurrency), "-d", f"{seconds}s", "--latency"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    out = subprocess.run(command + [f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True,
                         check=True).stdout

    def ms(label):
        value, unit = re.search(rf"{label}\s+([\d.]+)(us|ms|s)\b", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    if re.search(r"Non-2xx or 3xx responses|Socket errors", out):
        raise SystemExit(f"wrk saw errors on {path}:\n{out}")
    count = int(re.search(r"(\d+) requests in", out).group(1))
    return {"median": ms("50%"), "p90": ms("90%"), "p99": ms("99%"), "p95": None,
            "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), "n": count, "client": "wrk"}
