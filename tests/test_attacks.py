"""Each small input that once took a gunicorn worker far past its budget, sent to gunicorn as the
docs/hosting.md serves it (two workers): it is answered with a message a family can act on, nothing is
written, and no worker's memory rises more than 150 MB above its idle size nor spends more than
5 s of CPU (read from /proc; the wall-clock times are bench/attacks.py's). The normal import of
4,000 games of eight players keeps to the same memory and 10 s."""

from __future__ import annotations

import http.client
import time
import uuid
from dataclasses import replace
from datetime import datetime
from urllib.parse import urlencode, urlsplit

import pytest

from scorekeeper import families
from scorekeeper.demo import seed_demo
from scorekeeper.extensions import db
from scorekeeper.games import service
from scorekeeper.house_rules.service import family_variants, import_house_rules
from scorekeeper.models import Game
from tests import attack_files as attacks
from tests.pages import input_value
from tests.test_concurrency import Phone, Reply, Server, at_once
from tests.test_rules_limits import LARGEST_CARRY

pytestmark = pytest.mark.slow


class Uploader(Phone):
    """A phone that also sends files, and reads any answer (a PDF too) as text."""

    def request(self, method: str, path: str, form: dict | None = None, headers: dict | None = None) -> Reply:
        body = urlencode({**form, "csrf_token": self.csrf}, doseq=True).encode() if form is not None else None
        kind = "application/x-www-form-urlencoded" if form is not None else None
        return self._send(method, path, body, kind, headers)

    def _send(self, method: str, path: str, body: bytes | None, kind: str | None, headers: dict | None = None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        headers = {**(headers or {}), "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        if kind:
            headers["Content-Type"] = kind
        try:
            connection.request(method, path, body, headers)
            response = connection.getresponse()
            data = response.read().decode(errors="replace")
            for header in response.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                self.cookies[name] = rest.split(";")[0]
            return Reply(response.status, urlsplit(response.headers.get("Location", "")).path, data)
        finally:
            connection.close()

    def upload(self, path: str, fields: dict, filename: str, data: bytes) -> Reply:
        boundary = uuid.uuid4().hex
        parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
                 for k, v in {**fields, "csrf_token": self.csrf}.items()]
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
                     "Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        return self._send("POST", path, body, f"multipart/form-data; boundary={boundary}")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(app, server, phone): gunicorn on the module's database, a signed-in phone."""
    from tests.databases import make_app
    folder = tmp_path_factory.mktemp("attacks")
    app = make_app(folder, keep=True)
    server = Server(app.config["SQLALCHEMY_DATABASE_URI"], folder / "instance").start()
    phone = Uploader(server.port).sign_in()
    yield app, server, phone
    server.stop()
    from tests.databases import drop_app
    drop_app(app)


def games_of(app) -> int:
    with app.app_context():
        return db.session.execute(db.select(db.func.count(Game.id))).scalar_one()


def within_budget(cost: attacks.Cost, cpu: float = attacks.CPU_BUDGET) -> None:
    assert cost.memory <= attacks.MEMORY_BUDGET and cost.cpu <= cpu, str(cost)


def sheet_form(phone: Uploader) -> None:
    phone.csrf = input_value(phone.get("/import/sheet").body, "csrf_token")


@pytest.mark.parametrize("make, message", [
    (attacks.wide_row_xlsx, "The workbook's sheet unpacks to 286 MB, more than 48 MB"),
    (attacks.many_cells_xlsx, "The workbook's sheet holds more than 2,500,000 cells and rows"),
    (attacks.overwide_row_xlsx, "Row 1 of the workbook has more than 16,384 cells"),
    (attacks.whitespace_xlsx, "The workbook's sheet unpacks to 2,048 MB, more than 48 MB"),
    (lambda: attacks.shared_strings_xlsx(True), "xl/sharedStrings.xml unpacks to more than 16 MB"),
    (lambda: attacks.shared_strings_xlsx(False), "xl/sharedStrings.xml unpacks to more than 16 MB"),
    (attacks.long_row_csv, "Row 1 of the file is longer than 65,536 characters"),
], ids=["wide-row", "many-cells", "overwide-row", "whitespace", "shared-strings", "one-long-string", "long-csv-row"])
def test_a_file_that_would_unpack_past_the_budget_is_refused_with_the_limit(served, make, message):
    app, server, phone = served
    raw = make()
    sheet_form(phone)
    with attacks.Measured(server.process.pid) as measured:
        page = phone.upload("/import/sheet", {"rules": "family-7"}, "games.xlsx", raw)
    assert page.status == 200 and message in page.text, page.text[:500]
    within_budget(measured.cost)
    assert games_of(app) == 0


@pytest.mark.parametrize("bomb", [attacks.inflate_bomb, attacks.plausible_rows_bomb], ids=["brackets", "rows"])
def test_the_preview_form_unpacks_nothing_a_browser_sends(served, bomb):
    app, server, phone = served
    sheet_form(phone)
    with attacks.Measured(server.process.pid) as measured:
        reply = phone.post("/import/sheet/check", {"rules": "family-7", "cells": bomb(), "token": bomb()[:32],
                                                   "action": "import"})
    assert reply.status == 302 and "choose the file again" in phone.follow(reply).text
    within_budget(measured.cost)
    assert games_of(app) == 0


def test_four_thousand_games_of_eight_import_within_the_budget_and_a_double_tap_stores_them_once(served):
    app, server, phone = served
    sheet_form(phone)
    with attacks.Measured(server.process.pid) as measured:
        page = phone.upload("/import/sheet", {"rules": "family-7"}, "games.csv", attacks.sheet_of_games(4000))
    assert page.status == 200 and "4000 games found" in page.text, page.text[:300]
    within_budget(measured.cost)
    form = {"rules": "family-7", "token": input_value(page.body, "token"), "action": "import"}
    phone.csrf = input_value(page.body, "csrf_token")
    with attacks.Measured(server.process.pid) as measured:
        first, second = at_once(lambda: phone.post("/import/sheet/check", form),
                                lambda: phone.post("/import/sheet/check", form))
    within_budget(measured.cost, attacks.IMPORT_CPU_BUDGET)
    # One imports; the other finds the preview taken (to the history) or gone (to choose the file again).
    assert (first.status, second.status) == (302, 302)
    assert sorted([first.location, second.location]) in (["/history", "/history"], ["/history", "/import/sheet"])
    assert games_of(app) == 4000


def test_the_paper_grid_of_the_largest_rules_allowed_costs_seconds_not_minutes(served):
    app, server, phone = served
    # Point values no earlier rules had, so nothing is counted already.
    points = {code: 901 + i * 7 for i, code in enumerate(LARGEST_CARRY.points)}
    with app.app_context():
        family = families.sole_family()
        row, _ = import_house_rules(family, replace(LARGEST_CARRY, key="house-x", name="Biggest", points=points))
        seats = [service.SeatChoice(new_name=f"Grid player {n}") for n in range(8)]
        game_id = service.start_game(family, family_variants(family)[row.key], seats, first_dealer=0).id
        db.session.remove()
    with attacks.Measured(server.process.pid) as measured:
        grid = phone.get(f"/games/{game_id}/paper")
    assert grid.status == 200 and "Round 20" in grid.text
    within_budget(measured.cost)


def test_yearbooks_asked_for_at_once_are_made_one_at_a_time_off_the_workers(served):
    app, server, phone = served
    # A dozen games: what is tested is that the book is laid out once, off the workers, and kept
    # for all of them; how long the 150 games a web yearbook may hold take is bench/attacks.py's.
    with app.app_context():
        seed_demo(families.sole_family(), 12, seed=7, end=datetime(2021, 12, 20))
    url = "/seasons/2021/booklet.pdf"
    phones = [Uploader(server.port).sign_in() for _ in range(3)]
    with attacks.Measured(server.process.pid) as measured:
        waiting = at_once(*(lambda p=p: p.get(url) for p in phones))
        health = phone.get("/healthz")
    assert [reply.status for reply in waiting] == [202, 202, 202] and health.status == 200
    assert all("The yearbook is being made" in reply.text for reply in waiting)
    within_budget(measured.cost)
    for _ in range(1200):  # the waiting page looks again every 3 s; here every 0.25 s, at most 5 minutes
        made = phone.get(url)
        if made.status != 202:
            break
        time.sleep(0.25)
    assert made.status == 200 and made.body.startswith("%PDF")
    with attacks.Measured(server.process.pid) as measured:
        again = [p.get(url) for p in phones]  # on either worker: kept in the instance folder
    assert all(reply.status == 200 and reply.body == made.body for reply in again)
    within_budget(measured.cost, 1.0)
