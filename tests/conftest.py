"""Fixtures: an app on a fresh database per test (SQLite, or PostgreSQL when
``SCOREKEEPER_TEST_DATABASE_URL`` is set), a signed-in client, the actions a member takes on it,
a game being played and a CLI runner."""

import pytest

from tests.actions import GameActions
from tests.databases import drop_made_apps, make_app, strict_client


@pytest.fixture(autouse=True)
def _close_databases():
    yield
    drop_made_apps()


@pytest.fixture
def app(tmp_path):
    """The app, with the family "Our family" and its member ``tester`` signed up."""
    return make_app(tmp_path)


@pytest.fixture
def client(app):
    """A client signed in as ``tester``, on which any 500 answer fails the test where it happens."""
    return strict_client(app)


@pytest.fixture
def actions(app, request):
    """What ``tester`` does on the ``client`` (made only when an action needs it), and what the
    database then holds about the game."""
    return GameActions(lambda: request.getfixturevalue("client"), app)


@pytest.fixture
def game_variant():
    """The variant the ``game`` fixture plays; a module overrides it to play another."""
    return "family-7"


@pytest.fixture
def game(actions, game_variant):
    """A game of Ann, Bob and Cy (Ann deals first), round 1 being played: ``(game id, ids)``."""
    game_id = actions.new_game(game_variant, ["Ann", "Bob", "Cy"], first_dealer="Ann")
    return game_id, actions.player_ids(game_id)


@pytest.fixture
def runner(app):
    return app.test_cli_runner()
