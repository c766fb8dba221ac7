"""The code keeps the shape a new maintainer can find their way in: short modules and functions,
and access that every view declares itself (closed unless marked)."""

from __future__ import annotations

import ast
from pathlib import Path

from flask import Blueprint

from scorekeeper.web.access import KEEPER, PUBLIC, public
from tests.databases import make_app, strict_client

PACKAGE = Path(__file__).resolve().parent.parent / "scorekeeper"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "migrations" not in p.parts)


def test_no_module_is_over_400_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in MODULES if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}, "split these along what they hold"


def test_no_function_is_over_60_lines():
    long = {}
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno >= 60:
                long[f"{path.relative_to(PACKAGE)}:{node.name}"] = node.end_lineno - node.lineno + 1
    assert long == {}


def _app_with_extra_views():
    app = make_app()
    extra = Blueprint("extra", __name__)
    extra.add_url_rule("/extra/closed", "closed", lambda: "members only")
    extra.add_url_rule("/extra/open", "open", public(lambda: "anyone"))
    app.register_blueprint(extra)
    return app


def test_a_view_without_a_mark_is_closed_to_a_visitor_who_is_not_signed_in():
    app = _app_with_extra_views()
    visitor = strict_client(app, None)
    closed = visitor.get("/extra/closed")
    assert closed.status_code == 302 and "/login" in closed.headers["Location"]
    assert visitor.get("/extra/open").get_data(as_text=True) == "anyone"
    member = strict_client(app)
    assert member.get("/extra/closed").get_data(as_text=True) == "members only"


def test_the_pages_open_without_signing_in_are_exactly_these(app):
    marks = {endpoint: getattr(view, "access", None) for endpoint, view in app.view_functions.items()}
    assert {e for e, mark in marks.items() if mark == PUBLIC} == {
        "static", "main.healthz", "pwa.service_worker", "pwa.manifest", "pwa.offline",
        "accounts.welcome", "accounts.signup", "accounts.login", "accounts.join",
        "sharing.board", "sharing.board_state", "sharing.keep",
        "printing.rules_index", "printing.rules_page", "printing.rule_card",
        "hosting.phone", "hosting.ca_certificate",  # a phone needs them before it can open the app
    }
    # A score keeper's link keeps score for its one game: nothing of the family's history.
    assert {e for e, mark in marks.items() if mark == KEEPER} == {
        "games.round_screen", "games.buy", "games.unbuy", "games.down", "games.card_entry", "games.standings",
        "games.undo", "games.act", "games.state", "games.plan", "printing.game_rules", "printing.game_rule_card",
    }
