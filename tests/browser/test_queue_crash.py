"""A server killed (SIGKILL, master and workers) while a phone sends the twenty actions it kept
offline: after the restart the phone sends the rest, and every action is applied exactly once."""

from __future__ import annotations

import time

import pytest
from playwright import sync_api

from scorekeeper.extensions import db
from scorekeeper.models import RoundChange, Submission
from tests.actions import GameActions
from tests.browser.conftest import game_ready, phone, row, tap_cards
from tests.test_concurrency import Server, start_game

pytestmark = [pytest.mark.browser, pytest.mark.slow]

expect = sync_api.expect


def tap_times(page, name: str, button: str, times: int) -> None:
    for _ in range(times):
        row(page, name).get_by_role("button", name=f"{button} {name}").click()


def enter_round(page, number: int, went_out: str, cards: dict[str, list[str]]) -> None:
    page.get_by_role("link", name="Hand over — enter cards").click()
    page.locator(".chip-choice", has_text=went_out).click()
    for name, keys in cards.items():
        tap_cards(page, name, keys)
    page.get_by_role("button", name="Check points").click()
    page.get_by_role("button", name=f"Save round {number}").click()
    expect(page.locator("[data-slot=round-no]")).to_have_text(f"Round {number + 1} of 10")


def submissions(app) -> int:
    with app.app_context():
        db.session.remove()
        return len(db.session.execute(db.select(Submission.id)).all())


def test_a_server_killed_while_twenty_kept_actions_are_sent_applies_each_once(tmp_path, browser):
    from tests.databases import make_app

    app = make_app(tmp_path)
    game_id, _ = start_game(app)
    server = Server(app.config["SQLALCHEMY_DATABASE_URI"], tmp_path / "instance").start()
    # No service worker: the phone's own offline switch then reaches every request it makes.
    page = phone(browser, service_workers="block").new_page()
    base = f"http://127.0.0.1:{server.port}"
    actions = GameActions(app=app)
    try:
        page.goto(base + "/login")
        page.get_by_label("Username").fill("tester")
        page.get_by_label("Password").fill("a long test password")
        page.get_by_role("button", name="Sign in").click()
        page.goto(f"{base}/games/{game_id}")
        game_ready(page)
        page.context.set_offline(True)

        tap_times(page, "Ann", "Buy for", 3)
        tap_times(page, "Bob", "Buy for", 3)
        tap_times(page, "Cy", "Buy for", 2)
        row(page, "Ann").get_by_role("button", name="Ann has not laid down (tap when they do)").click()
        row(page, "Bob").get_by_role("button", name="Bob has not laid down (tap when they do)").click()
        enter_round(page, 1, "Ann", {"Bob": ["K", "5"], "Cy": ["JK", "A", "2"]})  # 11 actions
        tap_times(page, "Bob", "Buy for", 2)
        tap_times(page, "Cy", "Buy for", 1)
        row(page, "Cy").get_by_role("button", name="Cy has not laid down (tap when they do)").click()
        enter_round(page, 2, "Cy", {"Ann": ["Q"], "Bob": ["3", "3"]})  # 16
        for name in ("Ann", "Bob", "Cy"):
            tap_times(page, name, "Buy for", 1)
        enter_round(page, 3, "Bob", {"Ann": ["7"], "Cy": ["J", "J"]})  # 20
        expect(page.locator(".game")).to_have_attribute("data-pending", "20")
        assert submissions(app) == 0

        # Back online over a slow network, and the server dies while the actions go out.
        page.context.set_offline(False)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions",
                 {"offline": False, "latency": 150, "downloadThroughput": -1, "uploadThroughput": -1})
        page.evaluate("window.dispatchEvent(new Event('online'))")
        deadline = time.monotonic() + 30
        while submissions(app) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        server.kill()
        sent_before = submissions(app)
        assert 4 <= sent_before < 20, sent_before
        # The phone finds no server (what it was sending, or its next send, is not answered) ...
        expect(page.locator("[data-sync]")).to_contain_text("No answer from the server")
        server.start(port=server.port)  # ... and it comes back on the address the phone knows
        expect(page.locator(".game")).to_have_attribute("data-pending", "0", timeout=60_000)

        assert submissions(app) == 20
        with app.app_context():
            changes = db.session.execute(db.select(RoundChange.number, RoundChange.action).order_by(RoundChange.id)).all()
        assert [tuple(c) for c in changes] == [(1, "recorded"), (2, "recorded"), (3, "recorded")]
        assert actions.buys_of(game_id, 1) == {"Ann": 3, "Bob": 3, "Cy": 2}
        assert actions.buys_of(game_id, 2) == {"Ann": 0, "Bob": 2, "Cy": 1}
        assert actions.buys_of(game_id, 3) == {"Ann": 1, "Bob": 1, "Cy": 1}
        points = actions.stored_points(game_id)
        # shanghai-10: 2-10 count 5, J Q K 10, A and the joker 15.
        assert points == {1: {"Ann": 0, "Bob": 15, "Cy": 35}, 2: {"Ann": 10, "Bob": 10, "Cy": 0},
                          3: {"Ann": 5, "Bob": 0, "Cy": 20}}
        page.get_by_role("link", name="Standings").click()
        totals = page.locator("[data-view=standings] tfoot td[data-seat] b").all_inner_texts()
        assert totals == [str(sum(r[name] for r in points.values())) for name in ("Ann", "Bob", "Cy")]
    finally:
        server.stop()
