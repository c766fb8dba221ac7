"""Each page drawn over HTTP right after the change its content depends on, at both sizes at once.

- *a buy* (and its undo) on the game at the family's table, as a phone sends them (JSON actions):
  the round screen, the card entry, the standings and the public scoreboard, which show that game.
  Each action moves the family's version on, so every cached page is stale.
- *a finished game*: the last hand of the game at the table, as a phone sends it, then its undo
  (untimed): home, the history, the profile, the records, head-to-head and the season page. The
  finished game moves the family's statistics version on too, so what those pages keep per
  version (a profile's figures and charts, a season's figures) is worked out again.

After each change every page it concerns is drawn once (the first draw of that page since the
change), in an order that turns from sample to sample, and /healthz is timed the same way. The two
sizes take turns change by change, so a busy moment of the shared machine hits both. The buys come
first, all of them, as at a table where no game ends meanwhile: the standings' chances to win read
the family's latest hands once per statistics version (untimed, before the first sample).
"""

from __future__ import annotations

import json
import secrets
import statistics

from http_load import REFUSED, Browser, percentile, request, spread
from pages import BASELINE, endpoints, table_hand

BUY, FINISH = "a buy", "a finished game"
WARM_UP = 2  # untimed rounds first: each worker has drawn every page once, as on a server that has been up
CHANGE_OF = {
    BASELINE: BUY,
    "home": FINISH,
    "round screen": BUY,
    "card entry": BUY,
    "standings with chance to win": BUY,
    "scoreboard (public board)": BUY,
    "history page 1": FINISH,
    "history deep page": FINISH,
    "player profile": FINISH,
    "records": FINISH,
    "head-to-head": FINISH,
    "season page": FINISH,
}


class Table:
    """The game at a family's table, driven as a phone drives it: each action posted once as JSON,
    the round's version taken from each answer."""

    def __init__(self, browser: Browser, ids: dict):
        self.browser, self.ids = browser, ids
        self.url = f"/games/{ids['playing']}/actions"
        self.sent, self.run = 0, secrets.token_hex(4)  # a phone's action ids are never used twice
        state = json.loads(browser.get(f"/games/{ids['playing']}/state").text)
        self.version = self._version(state)

    def _version(self, state: dict) -> int:
        return next(r["version"] for r in state["rounds"] if r["number"] == self.ids["round"])

    def act(self, kind: str, **fields) -> None:
        self.sent += 1
        action = {"id": f"bench-{self.run}-{kind}-{self.sent}", "kind": kind, "round": self.ids["round"], "base": self.version,
                  **fields}
        headers = {"Content-Type": "application/json", "X-CSRFToken": self.browser.csrf, "Cookie": self.browser.cookie}
        response = request(self.browser.port, "POST", self.url, json.dumps(action).encode(), headers)
        answer = json.loads(response.text)
        if response.status != 200 or answer.get("status") != "applied":
            raise SystemExit(f"the bench's {kind} was not applied: {response.status} {answer.get('reason', '')}")
        self.version = self._version(answer["state"])

    def buy_and_undo(self) -> None:
        for kind in ("buy", "unbuy"):
            self.act(kind, player=self.ids["seats"][1])

    def finish(self) -> None:
        seats = self.ids["seats"]
        self.act("hand", hands=[
            {"player": h.player_id, "went_out": h.went_out, "laid_down": True, "buys": 0, "counts": h.counts,
             "total": None} for h in table_hand(seats, 0)])

    def reopen(self) -> None:
        self.act("undo")


def measure_draws(sites: list[tuple[Browser, dict, int]], samples: int) -> list[dict[str, dict]]:
    """``samples`` draws of every page after its change, on each site (browser, ids, games)."""
    names = list(endpoints(sites[0][1], sites[0][2]))
    tables = [Table(browser, ids) for browser, ids, _ in sites]
    times = [{name: [] for name in names} for _ in sites]
    etags = [request(browser.port, "GET", ids["scoreboard"]).headers["ETag"] for browser, ids, _ in sites]
    for change in (BUY, FINISH):
        pages = [name for name in names if CHANGE_OF[name] == change]
        for sample in range(-WARM_UP, samples):
            turn = sample % len(pages)
            for index, ((browser, ids, games), table) in enumerate(zip(sites, tables)):
                table.buy_and_undo() if change == BUY else table.finish()
                paths = endpoints(ids, games)
                for name in pages[turn:] + pages[:turn]:
                    drawn = _draw(browser, paths[name], ids, etags, index, name)
                    if sample >= 0:
                        times[index][name].append(drawn)
                if change == FINISH:
                    table.reopen()
    found = [{name: {"median": statistics.median(v), "p95": percentile(v, 95), "n": len(v), "change": CHANGE_OF[name]}
              for name, v in site.items()} for site in times]
    for name, row in found[-1].items():  # each sample's two draws came one after the other: their ratio
        row["pairs"] = spread([large / small for small, large in zip(times[0][name], times[-1][name], strict=True)])
    return found



def _draw(browser: Browser, path: str, ids: dict, etags: list, index: int, name: str) -> float:
    board = path == ids["scoreboard"]  # it polls with the ETag it last saw
    response = browser.get(path, {"If-None-Match": etags[index]} if board else None)
    if response.status != 200:
        raise SystemExit(f"{name} after a change answered {response.status}")
    if REFUSED.search(response.text):
        raise SystemExit(f"{name} after a change shows a refusal")
    if board:
        etags[index] = response.headers["ETag"]
    return response.ms
