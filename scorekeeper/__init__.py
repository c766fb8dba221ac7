"""Scorekeeper: a score pad for Shanghai Rummy played with real cards."""

from __future__ import annotations

import os
import secrets
import tempfile
from datetime import timedelta
from pathlib import Path

from flask import Flask

from .extensions import csrf, db
from .rules import figures

_PACKAGE = Path(__file__).resolve().parent


def _asset_dir(name: str) -> str:
    """``templates``/``static`` sit inside an installed wheel, or beside the package in a checkout."""
    inside = _PACKAGE / name
    return str(inside if inside.is_dir() else _PACKAGE.parent / name)


def _secret_key(instance_path: Path) -> str:
    """Read the instance's secret key, creating it on first start.

    Several server processes may start at once: the key is written whole to a private temporary
    file and linked into place, so every process reads the same complete key.
    """
    path = instance_path / "secret_key"
    if not path.exists():
        fd, tmp = tempfile.mkstemp(dir=instance_path, prefix=".secret_key.")
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_hex(32))
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process was first; use its key
        finally:
            os.unlink(tmp)
    return path.read_text().strip()


FILTERS = {
    # Capital first letter, the rest as written ("pair of Aces"), unlike Jinja's capitalize.
    "sentence": lambda text: text[:1].upper() + text[1:],
    # A negative number with a real minus sign, which reads better than a hyphen.
    "minus": figures.minus,
    # A rating's change: +12, −3, ±0.
    "change": figures.change,
    # Averages and shares rounded half up, as families round them (131.25: 131.3; 12.5%: 13%).
    "decimal": figures.half_up,
    "percent": figures.percent,
}


def _template_helpers(app: Flask) -> None:
    from .games.table import short_names
    from .rules import VARIANTS
    from .web.times import local_time

    app.jinja_env.globals["preset_keys"] = frozenset(VARIANTS)  # their rules pages are public
    app.jinja_env.globals["short_names"] = short_names  # a name where it would not fit (static/js/names.js)
    app.jinja_env.filters.update(FILTERS, local_time=local_time)  # local_time: shown in the phone's own zone


# The config a family's server starts from; config.py in the instance folder and SCOREKEEPER_*
# variables change it.
DEFAULTS = dict(
    WTF_CSRF_TIME_LIMIT=None,  # a form may sit open for a whole hand
    MAX_CONTENT_LENGTH=32 * 1024 * 1024,  # imports larger than this go through the command line
    MAX_FORM_MEMORY_SIZE=1024 * 1024,  # form fields (not files) together
    OPEN_SIGNUP=True,  # anyone may start a new family on this server
    REMEMBER_COOKIE_DURATION=timedelta(days=90),  # phones stay signed in for weeks
    HTTPS=False,  # True when served over HTTPS: cookies are then sent only over it
    PROXIES=0,  # reverse proxies in front of the app, whose X-Forwarded-* headers to trust
    PUBLIC_URL=None, SETUP_CODE=None,  # see hosting.addresses.base_url and accounts.forms (set by ``serve``)
    PASSWORD_HASH="scrypt",  # Werkzeug's method for new passwords (tests choose a cheaper one)
)


def create_app(test_config: dict | None = None) -> Flask:
    """Build the app: config from the instance folder and ``SCOREKEEPER_*`` environment."""
    app = Flask(
        __name__,
        instance_relative_config=True,
        instance_path=os.environ.get("SCOREKEEPER_INSTANCE_PATH") or None,
        template_folder=_asset_dir("templates"),
        static_folder=_asset_dir("static"),
    )
    instance_path = Path(app.instance_path)
    instance_path.mkdir(parents=True, exist_ok=True)
    app.config.from_mapping(DEFAULTS, SQLALCHEMY_DATABASE_URI=f"sqlite:///{instance_path / 'scorekeeper.sqlite'}")
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
        # SCOREKEEPER_SECRET_KEY, SCOREKEEPER_DATABASE_URL, ...
        app.config.from_prefixed_env("SCOREKEEPER")
    else:
        app.config.from_mapping(test_config)
    if app.config.get("DATABASE_URL"):
        app.config["SQLALCHEMY_DATABASE_URI"] = app.config["DATABASE_URL"]
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(instance_path)

    from . import cli, logs, upgrade
    from .accounts import views as accounts
    from .games import views as games
    from .history import views as history
    from .hosting import views as hosting
    from .house_rules import views as house_rules
    from .printing import views as printing
    from .sharing import views as sharing
    from .transfer import views as transfer
    from .web import access, errors, home, page_cache, pwa, security

    security.init_app(app)
    db.init_app(app)
    csrf.init_app(app)
    accounts.init_app(app)
    for blueprint in (home.bp, accounts.bp, games.bp, printing.bp, sharing.bp, history.bp, transfer.bp,
                      house_rules.bp, pwa.bp, hosting.bp):
        app.register_blueprint(blueprint)
    access.init_app(app)
    _template_helpers(app)
    errors.init_app(app)
    cli.init_app(app)
    page_cache.init_app(app)
    upgrade.init_app(app)
    logs.init_app(app)

    return app
