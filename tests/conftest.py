"""Fixtures: an app on a fresh SQLite database per test, its client and CLI runner."""

import pytest

from scorekeeper import create_app
from tests.helpers import strict_client


@pytest.fixture
def app(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test",
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'test.sqlite'}",
            "WTF_CSRF_ENABLED": False,
        }
    )
    yield app


@pytest.fixture
def client(app):
    """A test client on which any 500 answer fails the test where it happens."""
    return strict_client(app)


@pytest.fixture
def runner(app):
    return app.test_cli_runner()
