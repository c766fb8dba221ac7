"""What every feature shares about a family's data: its version (every write moves it on, so
cached pages are redrawn), its players, submissions counted once, and the family a command
line works on. Every function that writes commits once at the end, so a refused request leaves
nothing behind.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import update

from . import logs
from .extensions import db
from .models import Family, Player, Submission, utcnow

DEFAULT_FAMILY_NAME = "Our family"
# A restored backup takes family versions back to numbers phones have already seen; the restart
# it needs changes this, so their old ETags (pages, PDFs) no longer match. gunicorn's master sets
# it once for all its workers (``gunicorn_conf``), so a 304 does not depend on which worker answers.
STARTED = os.environ.get("SCOREKEEPER_STARTED") or secrets.token_hex(8)


class RuleError(Exception):
    """A request the rules or the game's state refuse; the message is meant for the user (and,
    as it may name a player, is not logged: the log says only that the request was refused)."""

    def __init__(self, *args):
        super().__init__(*args)
        logs.refused(type(self).__name__)


class NotFound(LookupError):
    """No such row for this family (another family's, a missing one, or an id no column could
    hold); a view answers 404 (``web.errors``)."""


def lock_family(family_id: int) -> None:
    """Hold the family's row until the transaction ends, so family-wide work (its ratings, its kept
    rules) runs one request at a time.

    ``FOR NO KEY UPDATE``, not ``FOR UPDATE``: a request that has already added a row naming the
    family (a game, a submission id) holds PostgreSQL's key-share lock on it, which ``FOR UPDATE``
    waits for; two such requests each waiting for the other's was a deadlock. SQLite's writers
    queue anyway."""
    db.session.execute(db.select(Family.id).where(Family.id == family_id).with_for_update(key_share=True))


def commit_for(family_id: int) -> None:
    """Commit a change to a family's games, moving its version on so cached pages are redrawn."""
    db.session.execute(update(Family).where(Family.id == family_id).values(version=Family.version + 1))
    db.session.commit()


# A phone makes these ids (random UUIDs) for what it sends; anything else is ignored.
SUBMISSION_KEY = re.compile(r"[A-Za-z0-9-]{8,64}")
# Longer than any phone plausibly keeps a form waiting for a connection.
KEEP_SUBMISSIONS = timedelta(days=30)
PRUNE_EVERY = 50


def once(family_id: int, key: str | None, write: Callable[[], object], *, game_id: int | None = None,
         outcome: dict | None = None, checked: bool = False) -> Submission | None:
    """Run ``write`` (a service function that commits) at most once per submission key.

    The key is stored in the same transaction as the change, so a submission sent again -
    a phone back online retrying, or two tabs sending the same kept form - changes nothing, and
    gets back the stored submission (with the ``outcome`` stored the first time); ``None`` when
    ``write`` ran. A refused write stores no key: sending it again is refused again, with the
    same message. ``checked``: the caller has just asked ``submitted`` itself.
    """
    if not key or not SUBMISSION_KEY.fullmatch(key):
        write()
        return None
    earlier = None if checked else submitted(family_id, key)
    if earlier is not None:
        return earlier
    if secrets.randbelow(PRUNE_EVERY) == 0:  # the old ids go now and then, not with every write
        db.session.execute(
            db.delete(Submission).where(Submission.family_id == family_id, Submission.at < utcnow() - KEEP_SUBMISSIONS)
        )
    db.session.add(Submission(family_id=family_id, key=key, game_id=game_id, outcome=outcome))
    try:
        write()
    except Exception:
        db.session.rollback()  # a refused write leaves its key unstored, whatever comes next
        # The same submission arriving twice at once: the other request stored it, and this one
        # failed on its key or was refused by the change the other made first ("already scored").
        earlier = submitted(family_id, key)
        if earlier is not None:
            return earlier
        raise
    return None


def submitted(family_id: int, key: str) -> Submission | None:
    """The family's stored submission with this key, if it was applied."""
    return db.session.execute(
        db.select(Submission).where(Submission.family_id == family_id, Submission.key == key)
    ).scalar()


def sole_family(name: str | None = None) -> Family:
    """The family a command works on: the one named, or the only one (made if there is none)."""
    families = list(db.session.execute(db.select(Family).order_by(Family.id)).scalars())
    if name is not None:
        chosen = [f for f in families if f.name == name or str(f.id) == name]
        if not chosen:
            raise RuleError(f"There is no family {name!r}.")
        return chosen[0]
    if len(families) > 1:
        names = ", ".join(f"{f.id} ({f.name})" for f in families)
        raise RuleError(f"This instance has several families; choose one with --family: {names}.")
    if not families:
        families.append(Family(name=DEFAULT_FAMILY_NAME))
        db.session.add(families[0])
        db.session.commit()
    return families[0]


def family_players(family: Family) -> list[Player]:
    return list(
        db.session.execute(
            db.select(Player).where(Player.family_id == family.id).order_by(Player.name)
        ).scalars()
    )
