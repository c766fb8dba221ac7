"""Apps on fresh databases for the tests: each test's own copy of a migrated template database
(SQLite, or PostgreSQL when ``SCOREKEEPER_TEST_DATABASE_URL`` is set), members signed up and signed
in, and a client that fails the test on any 500."""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from jinja2 import BytecodeCache
from werkzeug.security import generate_password_hash

from scorekeeper import create_app
from scorekeeper.extensions import db
from scorekeeper.models import Family, Member
from tests.pages import text_of

# Set to a PostgreSQL URL (see .ci/postgres) to run every test on PostgreSQL instead of SQLite.
POSTGRES_URL = os.environ.get("SCOREKEEPER_TEST_DATABASE_URL")
TEST_USERNAME = "tester"
TEST_PASSWORD = "a long test password"
# Passwords hashed with few rounds: a sign-in costs microseconds, not scrypt's deliberate 0.1 s
# (test_app_setup checks a real server uses scrypt).
TEST_CONFIG = {"TESTING": True, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False, "PASSWORD_HASH": "pbkdf2:sha256:1000"}
_made: list[Flask] = []  # apps made by the running test
_numbers = itertools.count()
_TEMPLATE_DB = f"scorekeeper_template_{os.getpid()}"


@cache
def _test_password_hash() -> str:
    return generate_password_hash(TEST_PASSWORD, method=TEST_CONFIG["PASSWORD_HASH"])


@cache
def _template() -> str:
    """A database migrated to the newest revision once per test run; each test gets a copy."""
    if POSTGRES_URL:
        # One per test run, so runs sharing a server do not pull each other's template away.
        template = sa.make_url(POSTGRES_URL).set(database=_TEMPLATE_DB)
        _admin(f'DROP DATABASE IF EXISTS "{template.database}" WITH (FORCE)')
        _admin(f'CREATE DATABASE "{template.database}"')
        atexit.register(_admin, f'DROP DATABASE IF EXISTS "{template.database}" WITH (FORCE)')
        url = template.render_as_string(hide_password=False)
    else:
        url = f"sqlite:///{Path(tempfile.mkdtemp(prefix='scorekeeper-tests-')) / 'template.sqlite'}"
    app = create_app({**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": url})  # runs the migrations
    with app.app_context():
        db.engine.dispose()
    return url


class MemoryBytecodeCache(BytecodeCache):
    """Compiled templates kept in this process, shared by every app a test makes."""

    def __init__(self):
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket):
        if bucket.key in self._code:
            bucket.bytecode_from_string(self._code[bucket.key])

    def dump_bytecode(self, bucket):
        self._code[bucket.key] = bucket.bytecode_to_string()


_COMPILED_TEMPLATES = MemoryBytecodeCache()


def _admin(statement: str) -> None:
    engine = sa.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sa.text(statement))
    engine.dispose()


@contextmanager
def empty_postgres_database(prefix: str) -> Iterator[str]:
    """The URL of a new PostgreSQL database with no tables at all, dropped afterwards."""
    name = f"{prefix}{os.getpid()}_{next(_numbers)}"
    _admin(f'CREATE DATABASE "{name}"')
    try:
        yield sa.make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        drop_made_apps()
        _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def fresh_database(folder: Path) -> str:
    """The URL of a new database at the newest schema: a copy of the migrated template."""
    template = _template()
    if POSTGRES_URL:
        name = f"scorekeeper_t{os.getpid()}_{next(_numbers)}"
        _admin(f'CREATE DATABASE "{name}" TEMPLATE "{_TEMPLATE_DB}" STRATEGY FILE_COPY')
        return sa.make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"test-{next(_numbers)}.sqlite"
    shutil.copyfile(sa.make_url(template).database, path)
    return f"sqlite:///{path}"


def make_app(folder: Path | None = None, *, database_url: str | None = None, family: str | None = "Our family",
             keep: bool = False, **config) -> Flask:
    """An app for a test. Without ``database_url`` it gets a fresh database in which ``family``
    (unless ``None``) has signed up with the member ``tester``. The database goes when the test
    ends, or with ``keep`` when the caller passes the app to ``drop_app``."""
    url = database_url or fresh_database(folder or Path(tempfile.mkdtemp(prefix="scorekeeper-")))
    app = create_app({**TEST_CONFIG, "SQLALCHEMY_DATABASE_URI": url, **config})
    # Templates compiled once per test run, not once per app: most of a short test's time otherwise.
    app.jinja_env.bytecode_cache = _COMPILED_TEMPLATES
    # Files a request keeps (previews of a sheet, printed yearbooks) go to a folder of the test's own.
    app.instance_path = tempfile.mkdtemp(prefix="scorekeeper-instance-")
    app.extensions["test_database"] = None if database_url or not POSTGRES_URL else sa.make_url(url).database
    if not keep:
        _made.append(app)
    if database_url is None and family is not None:
        add_member(app, family, TEST_USERNAME)
    return app


def add_member(app: Flask, family_name: str, username: str) -> tuple[int, int]:
    """A family (made if new) with a member whose password is ``TEST_PASSWORD``: (family id, member id)."""
    with app.app_context():
        family = db.session.execute(db.select(Family).where(Family.name == family_name)).scalar()
        if family is None:
            family = Family(name=family_name)
        member = Member(family=family, username=username, password_hash=_test_password_hash())
        db.session.add(member)
        db.session.commit()
        return family.id, member.id


def drop_app(app: Flask) -> None:
    """Close the app's database connections; drop its PostgreSQL database."""
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    if app.extensions.get("test_database"):
        _admin(f'DROP DATABASE IF EXISTS "{app.extensions["test_database"]}" WITH (FORCE)')


def drop_made_apps() -> None:
    while _made:
        drop_app(_made.pop())


# -- a client that treats any 500 as a test failure ----------------------------------------


class NoServerErrorClient(FlaskClient):
    """Every request (redirects followed too) must answer below 500, with a readable reason if not."""

    def open(self, *args, **kwargs):
        response = super().open(*args, **kwargs)
        if response.status_code >= 500:
            request = response.request
            raise AssertionError(
                f"{request.method} {request.path} answered {response.status_code}: {text_of(response)[:300]}"
            )
        return response


def strict_client(app, username: str | None = TEST_USERNAME) -> FlaskClient:
    """A test client on ``app`` that renders the 500 page (instead of raising) and fails on it,
    signed in as ``username`` when that member exists (``None``: signed out)."""
    app.config["PROPAGATE_EXCEPTIONS"] = False
    app.test_client_class = NoServerErrorClient
    client = app.test_client()
    if username:
        sign_in_session(app, client, username)
    return client


def sign_in_session(app, client, username: str) -> bool:
    """Put the member's sign-in into the client's session, as the sign-in page would."""
    with app.app_context():
        member = db.session.execute(db.select(Member).where(Member.username == username)).scalar()
    if member is None:
        return False
    with client.session_transaction() as session:
        session["_user_id"] = member.get_id()
        session["_fresh"] = True
    return True


def db_snapshot(app) -> dict[str, list[tuple]]:
    """Every row of every table, for 'nothing was written' comparisons."""
    with app.app_context():
        return {
            table.name: sorted(
                (tuple(row) for row in db.session.execute(table.select())), key=repr
            )
            for table in db.metadata.sorted_tables
        }
