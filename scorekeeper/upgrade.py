"""Bringing the database schema up to date with its migrations (Flask-Migrate/Alembic).

Every start brings the database up to date (``upgrade_database``): a new database gets every
migration, an older one the ones it lacks. A database made before migrations existed has the
tables of the first migration and no version, so it is marked as being at that migration first.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import flask_migrate
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from .extensions import MIGRATIONS, db, migrate

FIRST_REVISION = "0001"


@cache
def head_revision() -> str:
    config = migrate.get_config(MIGRATIONS)
    return ScriptDirectory.from_config(config).get_current_head()


def current_revision() -> str | None:
    with db.engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade_database() -> bool:
    """Apply the migrations this database lacks; ``True`` if any ran. Safe when several
    processes start at once: one upgrades, the others wait and find the work done."""
    if current_revision() == head_revision():
        return False
    with _upgrade_lock():
        revision = current_revision()
        if revision == head_revision():
            return False
        if revision is None and inspect(db.engine).has_table("family"):
            flask_migrate.stamp(directory=MIGRATIONS, revision=FIRST_REVISION)
        flask_migrate.upgrade(directory=MIGRATIONS)
    return True


@contextmanager
def _upgrade_lock():
    """One upgrade at a time: a PostgreSQL advisory lock, or a lock file beside the SQLite file."""
    engine = db.engine
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(7220411)"))
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(7220411)"))
        return
    database = engine.url.database
    lock_path = Path(f"{database}.upgrade-lock") if database and database != ":memory:" else None
    if lock_path is None:
        yield
        return
    with open(lock_path, "w") as handle, _locked(handle):
        yield


@contextmanager
def _locked(handle):
    """An exclusive lock on an open file: ``flock`` on Linux and macOS, ``msvcrt`` on Windows."""
    if sys.platform == "win32":
        import msvcrt

        while True:
            try:
                msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
                break
            except OSError:
                continue  # it gives up after 10 s; the other process is still upgrading
        try:
            yield
        finally:
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(handle, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)


def init_app(app) -> None:
    migrate.init_app(app)
    if app.config.get("UPGRADE_ON_START", True):
        with app.app_context():
            upgrade_database()
