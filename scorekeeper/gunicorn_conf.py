"""gunicorn settings: ``gunicorn -c python:scorekeeper.gunicorn_conf 'scorekeeper:create_app()'``."""

import os
import secrets

workers = 2
# A season's yearbook (at most 150 games from the web) takes up to about 40 s to lay out.
timeout = 90


def on_starting(server):
    """One start token for every worker: see ``families.STARTED``."""
    os.environ["SCOREKEEPER_STARTED"] = secrets.token_hex(8)


def post_worker_init(worker):
    """Load WeasyPrint and its fonts once per worker, so the first score sheet is not the slow one."""
    from scorekeeper.printing.documents import html_to_pdf

    html_to_pdf("<p>ready</p>")
