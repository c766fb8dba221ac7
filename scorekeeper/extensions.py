"""The extensions, created unbound and attached to the app in ``create_app``: the database,
CSRF protection, sign-in and migrations."""

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect
from sqlalchemy import MetaData, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    # Named constraints keep future schema migrations predictable.
    metadata = MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )


# Objects keep their values after a commit: a request reads what it just wrote without reloading.
db = SQLAlchemy(model_class=Base, session_options={"expire_on_commit": False})
csrf = CSRFProtect()
login_manager = LoginManager()
# Batch mode lets SQLite alter tables (it copies them); the same scripts serve PostgreSQL.
MIGRATIONS = str(Path(__file__).resolve().parent / "migrations")
migrate = Migrate(db=db, directory=MIGRATIONS, render_as_batch=True, compare_type=True)


@event.listens_for(Engine, "connect")
def _sqlite_settings(connection, _record) -> None:
    """SQLite: readers never wait for a writer (WAL), a saved hand survives a power cut
    (synchronous FULL), and a writer waits for another instead of failing at once (several
    server processes)."""
    if isinstance(connection, sqlite3.Connection):
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.close()


@contextmanager
def counting_statements(app) -> Iterator[list[str]]:
    """Collect the SQL statements sent while the block runs (for tests and benchmarks)."""
    with app.app_context():
        engine = db.engine
    sent: list[str] = []

    def record(_connection, _cursor, statement, *_):
        sent.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)
