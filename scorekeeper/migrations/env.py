"""Alembic environment: migrate the app's database (``flask db ...`` or ``schema.upgrade_database``)."""

import logging

from alembic import context
from flask import current_app

logger = logging.getLogger("alembic.env")
config = context.config
if config.cmd_opts is not None:  # ``flask db ...`` on a terminal: say what was done
    logging.basicConfig(format="%(message)s")
    for name in ("alembic.env", "alembic.runtime.migration"):
        logging.getLogger(name).setLevel(logging.INFO)
migrate = current_app.extensions["migrate"]


def _skip_empty_revision(_context, _revision, directives):
    """``flask db migrate`` with no model change writes no empty revision."""
    if getattr(config.cmd_opts, "autogenerate", False) and directives[0].upgrade_ops.is_empty():
        directives[:] = []
        logger.info("No changes in schema detected.")


def run_migrations_online() -> None:
    options = dict(migrate.configure_args)
    options.setdefault("process_revision_directives", _skip_empty_revision)
    with migrate.db.engine.connect() as connection:
        context.configure(connection=connection, target_metadata=migrate.db.metadata, **options)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    context.configure(url=str(migrate.db.engine.url), target_metadata=migrate.db.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()
