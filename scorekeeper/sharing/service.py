"""Links to one game for phones at the table without a login: the live scoreboard and a
second score keeper. A link works until it is revoked or the game has been over for a while:
a day after the game first ended while the link existed, even if an undo reopened it since."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from sqlalchemy.orm import joinedload

from ..extensions import db
from ..families import commit_for
from ..models import IN_PROGRESS, KEEP, VIEW, Game, Member, ShareLink, utcnow

# Long enough to look at the final scores the next morning.
GRACE = timedelta(hours=24)
KINDS = (VIEW, KEEP)
_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")


def expires_at(game: Game) -> datetime | None:
    """When the game's links stop working; ``None`` while it is being played."""
    if game.status == IN_PROGRESS or game.finished_at is None:
        return None
    return game.finished_at + GRACE


def link_expires_at(link: ShareLink) -> datetime | None:
    """When the link stops working: a day after its game first ended (``game_ended_at``, kept
    when an undo reopens the game, so taking back the last hand through the link cannot keep
    it alive), or after the game's own end if that is sooner or not kept (older links)."""
    ends = expires_at(link.game)
    if link.game_ended_at is not None:
        first = link.game_ended_at + GRACE
        ends = first if ends is None else min(ends, first)
    return ends


def is_open(link: ShareLink, now: datetime | None = None) -> bool:
    """Whether the link still opens its game."""
    if link.revoked_at is not None:
        return False
    ends = link_expires_at(link)
    return ends is None or (now or utcnow()) < ends


def find(token: str, kind: str | None = None) -> ShareLink | None:
    """The open link with this token (of this kind), or ``None``."""
    if not _TOKEN.fullmatch(token or ""):
        return None
    # With its game: every scoreboard poll asks whether that game is over.
    link = db.session.execute(
        db.select(ShareLink).where(ShareLink.token == token).options(joinedload(ShareLink.game))
    ).scalar_one_or_none()
    if link is None or (kind and link.kind != kind) or not is_open(link):
        return None
    return link


def open_links(game: Game) -> list[ShareLink]:
    """The game's links that still work, oldest first."""
    links = db.session.execute(
        db.select(ShareLink)
        .where(ShareLink.game_id == game.id, ShareLink.revoked_at.is_(None))
        .order_by(ShareLink.id)
    ).scalars()
    return [link for link in links if is_open(link)]


def create(game: Game, kind: str, by: Member | None) -> ShareLink:
    """A new link of ``kind`` to the game."""
    if kind not in KINDS:
        raise ValueError(kind)
    ended = game.finished_at if game.status != IN_PROGRESS else None
    link = ShareLink(game_id=game.id, kind=kind, created_by=by.id if by else None, game_ended_at=ended)
    db.session.add(link)
    commit_for(game.family_id)  # the share page is cached per family version
    return link


def revoke(game: Game, link_id: int) -> bool:
    """Stop one of the game's links; ``False`` if the game has no such open link."""
    changed = db.session.execute(
        db.update(ShareLink)
        .where(ShareLink.id == link_id, ShareLink.game_id == game.id, ShareLink.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    ).rowcount
    if not changed:
        db.session.rollback()
        return False
    commit_for(game.family_id)
    return True
