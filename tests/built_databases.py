"""Databases built once through the pages and copied for every test that reads them.

A module whose tests all start from the same families and games (built by many requests)
builds them once per test process and gives each test a copy: a copied SQLite file, or on
PostgreSQL a new database made with the built one as its ``TEMPLATE``. A test's copy is dropped
when the test ends, as every database ``make_app`` makes is.
"""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from scorekeeper.extensions import db
from tests import databases

_copies = itertools.count()


@contextmanager
def built(folder: Path, build: Callable[[Flask], object]) -> Iterator[tuple[str, object]]:
    """Build on a fresh app, then close it: ``(url of the built database, what build returned)``.
    The database is dropped when the block ends."""
    app = databases.make_app(folder, keep=True)
    try:
        made = build(app)
        with app.app_context():
            db.session.remove()
            db.engine.dispose()  # a PostgreSQL template must have no connections
        yield app.config["SQLALCHEMY_DATABASE_URI"], made
    finally:
        databases.drop_app(app)


def copy_app(url: str, folder: Path, **config) -> Flask:
    """An app on a new copy of the built database at ``url``, dropped when the test ends."""
    source = sa.make_url(url)
    number = next(_copies)
    if databases.POSTGRES_URL:
        name = f"scorekeeper_c{os.getpid()}_{number}"
        databases._admin(f'CREATE DATABASE "{name}" TEMPLATE "{source.database}" STRATEGY FILE_COPY')
        copy = source.set(database=name).render_as_string(hide_password=False)
    else:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"copy-{number}.sqlite"
        shutil.copyfile(source.database, path)
        copy = f"sqlite:///{path}"
    app = databases.make_app(database_url=copy, **config)
    if databases.POSTGRES_URL:
        app.extensions["test_database"] = name  # dropped with the test's other apps
    return app


def signed_in(app: Flask) -> FlaskClient:
    """A client signed in as ``tester``, on which any 500 fails the test."""
    return databases.strict_client(app)


def signed_in_copy(url: str, folder: Path) -> tuple[Flask, FlaskClient]:
    """``copy_app``, and a client signed in on it."""
    app = copy_app(url, folder)
    return app, signed_in(app)
