"""What the server writes to its log: one line per refused write, import, PDF rendered and
error, each with the family's id and never a name, a username or what was typed.

The lines go to stderr (Flask's handler on the ``scorekeeper`` logger), where systemd's journal
keeps them: ``journalctl -u scorekeeper`` on a server set up with deploy/. A service logs through
``logging.getLogger(__name__)`` (a child of ``scorekeeper``) and ``family_id()`` to say whose
request it was.
"""

from __future__ import annotations

import logging

from flask import Flask, g, has_request_context, request
from flask_login import current_user

log = logging.getLogger("scorekeeper")


def family_id() -> int | str:
    """The id of the family whose request this is (a member's, or a score keeper link's), else "-"."""
    if not has_request_context():
        return "-"
    try:
        link = g.get("keeper_link")
        if link is not None:
            return link.game.family_id
        return current_user.family_id if current_user and current_user.is_authenticated else "-"
    except Exception:  # noqa: BLE001 - the database may be what failed: the line is written all the same
        return "?"


def refused(kind: str) -> None:
    """Note that this request was refused (``kind``: the refusal's class); logged when it ends."""
    if has_request_context():
        g.refused = kind


def init_app(app: Flask) -> None:
    # INFO: the events below; warnings and errors (Flask logs each unhandled error with its trace).
    app.logger.setLevel(logging.INFO)

    @app.after_request
    def log_refusal(response):
        kind = g.pop("refused", None)
        if kind is not None and request.method != "GET":
            log.info("refused write: family=%s %s %s status=%d", family_id(), request.method, request.endpoint,
                     response.status_code)
        return response
