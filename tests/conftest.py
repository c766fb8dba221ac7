"""Fixtures: an app on a fresh database per test (SQLite, or PostgreSQL when
``SCOREKEEPER_TEST_DATABASE_URL`` is set), a signed-in client and a CLI runner."""

import pytest

from tests.helpers import drop_made_apps, make_app, strict_client


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
def runner(app):
    return app.test_cli_runner()
