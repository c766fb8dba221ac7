"""The load of the many-families run, driven from a process of its own (Python threads and
http.client; nothing of the app imported):

    python bench/families_load.py PLAN.json SAMPLES.json

- each scoreboard polls its ``/live/<token>/board`` every 2 s with the ETag it last saw, as the
  page's JS does (a 304 while nothing changed, the board's HTML when something did);
- each phone, signed in as its family's member, taps a buy or its undo every second for its own
  player (the POST, then the round screen it redirects to, as a browser follows it), and one
  phone per table saves a hand every 10 s (the card entry for the round's version, the POST,
  then the page it redirects to).

The schedule is open-loop-ish: every client sleeps until its next tick and never skips one, so
a slow answer makes the next request late (recorded as lag) rather than dropping it. Before the
clock starts, each client sends a few requests that change nothing (untimed), so no worker loads
its templates during the run. Every request is timed on its own and written to SAMPLES.json as [kind, ms, ok, note].
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from abc import ABC, abstractmethod
from pathlib import Path

from http_load import REFUSED, Browser

TAP, TAP_PAGE = "tap: buy or undo (POST)", "tap: round screen (GET, redirect)"
ENTRY, SAVE, SAVE_PAGE = "save: card entry (GET)", "save: hand (POST)", "save: round screen (GET, redirect)"
BOARD_304, BOARD_200 = "scoreboard poll → 304", "scoreboard poll → 200 (redrawn)"
KINDS = (BOARD_304, BOARD_200, TAP, TAP_PAGE, ENTRY, SAVE, SAVE_PAGE)


class Client(ABC):
    """One schedule of requests in one thread; records every request and how late each tick began."""

    def __init__(self, port: int, samples: list, lags: list, lock: threading.Lock):
        self.browser = Browser(port, timeout=30)
        self.samples, self.lags, self.lock = samples, lags, lock

    def record(self, kind: str, ms: float, ok: bool, note: str = "") -> None:
        with self.lock:
            self.samples.append([kind, round(ms, 3), ok, note])

    def run(self, events: list[tuple[float, str]], end: float) -> None:
        for at, what in events:
            if at >= end:
                break
            delay = at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            with self.lock:
                self.lags.append(time.monotonic() - at)
            self.act(what)

    @abstractmethod
    def act(self, what: str) -> None:
        """Send what the schedule says now (a board polls; a phone taps or saves)."""

    def send(self, kind: str, method: str, path: str, form: dict | None = None, headers: dict | None = None):
        """A request, recorded as an error when it raises (a timeout, a refused connection)."""
        start = time.perf_counter()
        try:
            if method == "GET":
                return self.browser.get(path, headers)
            return self.browser.post(path, form or {})
        except Exception as error:  # noqa: BLE001 - any failure of the request is an error of the run
            self.record(kind, (time.perf_counter() - start) * 1000, False, f"{type(error).__name__}: {error}")
            return None


class Board(Client):
    def __init__(self, url: str, *args):
        super().__init__(*args)
        self.url = url
        self.etag = self.browser.get(url).headers.get("ETag")  # as the page is first drawn with it

    def warm(self) -> None:
        self.browser.get(self.url, {"If-None-Match": self.etag})

    def act(self, what: str) -> None:
        response = self.send(BOARD_200, "GET", self.url, headers={"If-None-Match": self.etag})
        if response is None:
            return
        if response.status == 304:
            self.record(BOARD_304, response.ms, True)
            return
        self.record(BOARD_200, response.ms, response.status == 200, f"status {response.status}")
        if response.status == 200:
            self.etag = response.headers.get("ETag")


class Phone(Client):
    def __init__(self, phone: dict, *args):
        super().__init__(*args)
        self.game, self.player, self.players = phone["game"], phone["player"], phone["players"]
        self.went_out = phone["went_out"]
        self.browser.sign_in(phone["username"], phone["password"])
        self.round, self.buys = 0, 0
        self.observe(self.browser.get(f"/games/{self.game}").text)

    def observe(self, html: bytes) -> bool:
        """Read the round screen: the round in play and this phone's player's buys."""
        number = re.search(rb"/rounds/(\d+)/buy\"", html)
        buys = re.search(rf'id="player-{self.player}".*?class="buy-count[^"]*"[^>]*>(\d+)/'.encode(), html, re.S)
        if not number or not buys:
            return False
        self.round, self.buys = int(number.group(1)), int(buys.group(1))
        return True

    def warm(self) -> None:
        """Pages that change nothing, so every worker has its templates loaded before the clock starts."""
        self.browser.get(f"/games/{self.game}")
        self.browser.get(f"/games/{self.game}/rounds/{self.round}/score")

    def act(self, what: str) -> None:
        if what == "tap":
            self.tap()
        else:
            self.save()

    def follow(self, kind: str, first_kind: str, first, expected: int = 302) -> None:
        """Record ``first`` (a POST) once the page it leads to shows whether it was refused."""
        if first.status != expected:
            self.record(first_kind, first.ms, False, f"status {first.status}")
            return
        page = self.send(kind, "GET", first.location)
        if page is None:
            self.record(first_kind, first.ms, True)
            return
        refused = REFUSED.search(page.text)
        self.record(first_kind, first.ms, not refused,
                    f"refused: {refused.group(1).decode()[:100]}" if refused else "")
        read = page.status == 200 and self.observe(page.text)
        self.record(kind, page.ms, read, "" if read else f"status {page.status}, not the round screen")

    def tap(self) -> None:
        action = "buy" if self.buys == 0 else "unbuy"
        response = self.send(TAP, "POST", f"/games/{self.game}/rounds/{self.round}/{action}", {"player": self.player})
        if response is not None:
            self.follow(TAP_PAGE, TAP, response)

    def save(self) -> None:
        path = f"/games/{self.game}/rounds/{self.round}/score"
        entry = self.send(ENTRY, "GET", path)
        if entry is None:
            return
        html = entry.text
        version = re.search(rb'name="version" type="hidden" value="(\d+)"', html)
        self.record(ENTRY, entry.ms, entry.status == 200 and version is not None,
                    "" if version else f"status {entry.status}, no version on the page")
        if entry.status != 200 or version is None:
            return
        form = {"action": "save", "version": version.group(1).decode(),
                "went_out": str(self.went_out)}
        for pid in self.players:
            buys = re.search(rf'name="p{pid}-buys"[^>]*value="(\d+)"'.encode(), html)
            form[f"p{pid}-buys"] = buys.group(1).decode() if buys else "0"
            if pid != self.went_out:
                form.update({f"p{pid}-k_K": "1", f"p{pid}-k_5": "2", f"p{pid}-laid_down": "y"})
        response = self.send(SAVE, "POST", path, form)
        if response is None:
            return
        if response.status == 200:  # the form again: refused (a stale version, a rule)
            message = REFUSED.search(response.text)
            self.record(SAVE, response.ms, False, message.group(1).decode()[:120] if message else "form shown again")
            return
        self.follow(SAVE_PAGE, SAVE, response)


def schedule(every: float, phase: float, start: float, end: float, kind: str) -> list[tuple[float, str]]:
    events, at = [], start + phase
    while at < end:
        events.append((at, kind))
        at += every
    return events


def drive(plan: dict) -> dict:
    samples: list = []
    lags: list = []
    lock = threading.Lock()
    args = (plan["port"], samples, lags, lock)
    boards = [Board(url, *args) for url in plan["boards"]]  # set up before the clock starts
    phones = [Phone(phone, *args) for phone in plan["phones"]]
    for _ in range(plan["warm_up"]):  # untimed: a server that has been up a while
        for client in boards + phones:
            client.warm()
    start = time.monotonic() + 1.0
    end = start + plan["seconds"]
    threads = []
    for i, board in enumerate(boards):
        events = schedule(plan["poll_every"], plan["poll_every"] * i / len(boards), start, end, "poll")
        threads.append(threading.Thread(target=board.run, args=(events, end)))
    for i, (phone, spec) in enumerate(zip(phones, plan["phones"])):
        phase = plan["tap_every"] * i / len(phones)
        events = schedule(plan["tap_every"], phase, start, end, "tap")
        if spec["saves"]:  # half a tick after a tap, the first halfway through the first period
            events += schedule(plan["save_every"], phase + plan["save_every"] / 2 + plan["tap_every"] / 2,
                               start, end, "save")
        threads.append(threading.Thread(target=phone.run, args=(sorted(events), end)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - start
    return {"samples": samples, "lags": lags, "wall": wall}


def main() -> None:
    plan = json.loads(Path(sys.argv[1]).read_text())
    Path(sys.argv[2]).write_text(json.dumps(drive(plan)))


if __name__ == "__main__":
    main()
