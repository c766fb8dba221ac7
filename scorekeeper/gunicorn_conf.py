"""gunicorn settings: ``gunicorn -c python:scorekeeper.gunicorn_conf 'scorekeeper:create_app()'``."""

workers = 2


def post_worker_init(worker):
    """Load WeasyPrint and its fonts once per worker, so the first score sheet is not the slow one."""
    from scorekeeper.printing import html_to_pdf

    html_to_pdf("<p>ready</p>")
