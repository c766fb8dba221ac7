"""Families as accounts: creating one, signing in (rate-limited), invites, signing out everywhere.

Passwords are hashed with scrypt (Werkzeug's default). Sign-in failures are rows in the database,
so every server process counts the same ones.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import timedelta
from functools import cache

from sqlalchemy import func, update
from sqlalchemy.exc import IntegrityError
from werkzeug.security import check_password_hash, generate_password_hash

from ..extensions import db
from ..models import Family, Invite, Member, SignInFailure, utcnow

USERNAME = re.compile(r"^[a-z0-9][a-z0-9._-]{2,39}$")
PASSWORD_MIN, PASSWORD_MAX = 8, 200
FAILURE_WINDOW = timedelta(minutes=15)
MAX_FAILURES_PER_ACCOUNT = 5
MAX_FAILURES_PER_ADDRESS = 30
INVITE_LIFETIME = timedelta(days=7)
TOO_MANY = "Too many failed sign-ins. Wait 15 minutes, then try again."
NO_MATCH = "That username and password do not match."
USERNAME_TAKEN = "That username is taken; choose another."


class AccountError(Exception):
    """A refusal whose message is meant for the user."""


def normal_username(text: str) -> str:
    return (text or "").strip().lower()


def username_problem(username: str) -> str | None:
    if not USERNAME.match(username):
        return "Use 3–40 letters, digits, dots, dashes or underscores, starting with a letter or digit."
    return None


def password_problem(password: str) -> str | None:
    if len(password) < PASSWORD_MIN:
        return f"Use at least {PASSWORD_MIN} characters."
    if len(password) > PASSWORD_MAX:
        return f"Use at most {PASSWORD_MAX} characters."
    return None


def username_taken(username: str) -> bool:
    return db.session.execute(
        db.select(Member.id).where(Member.username == normal_username(username))
    ).first() is not None


def has_members() -> bool:
    return db.session.execute(db.select(Member.id).limit(1)).first() is not None


def _new_member(family: Family, username: str, password: str) -> Member:
    member = Member(family=family, username=normal_username(username), password_hash=generate_password_hash(password))
    db.session.add(member)
    return member


def _commit_member() -> None:
    """Commit a new member; the same username taken a moment earlier is refused, not a crash."""
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise AccountError(USERNAME_TAKEN) from None


def create_family(family_name: str, username: str, password: str) -> Member:
    """A new family with its first member. On an instance nobody has signed up to yet, a family
    that already holds games (kept from before accounts, or made on the command line) is
    taken over instead, so its history is not left behind."""
    family = None
    if not has_members():
        family = db.session.execute(db.select(Family).order_by(Family.id).limit(1)).scalar()
    if family is None:
        family = Family(name=family_name)
        db.session.add(family)
    else:
        family.name = family_name
    member = _new_member(family, username, password)
    _commit_member()
    return member


@cache
def _decoy_hash() -> str:
    return generate_password_hash(secrets.token_hex(16))


def _failures(key: str, since) -> int:
    return db.session.execute(
        db.select(func.count()).select_from(SignInFailure).where(SignInFailure.key == key, SignInFailure.at > since)
    ).scalar_one()


def authenticate(username: str, password: str, address: str) -> Member:
    """The member these credentials belong to, or ``AccountError`` with a message that never
    says whether the username exists."""
    username = normal_username(username)[:40]
    keys = (f"user:{username}", f"addr:{address}"[:120])
    now = utcnow()
    since = now - FAILURE_WINDOW
    if (_failures(keys[0], since) >= MAX_FAILURES_PER_ACCOUNT
            or _failures(keys[1], since) >= MAX_FAILURES_PER_ADDRESS):
        raise AccountError(TOO_MANY)
    member = db.session.execute(db.select(Member).where(Member.username == username)).scalar()
    # A missing account costs the same hashing time as a wrong password.
    if check_password_hash(member.password_hash if member else _decoy_hash(), password[:PASSWORD_MAX]) and member:
        db.session.execute(db.delete(SignInFailure).where(SignInFailure.key == keys[0]))
        db.session.commit()
        return member
    db.session.execute(db.delete(SignInFailure).where(SignInFailure.at <= since))
    db.session.add_all(SignInFailure(key=key, at=now) for key in keys)
    db.session.commit()
    raise AccountError(NO_MATCH)


def sign_out_everywhere(member: Member) -> None:
    """Every session and remember-me cookie of this member stops working."""
    member.session_token = secrets.token_hex(16)
    db.session.commit()


def load_member(session_id: str) -> Member | None:
    """The member a session names, if its token is still current."""
    member_id, _, token = (session_id or "").partition(":")
    if not member_id.isascii() or not member_id.isdigit() or len(member_id) > 18:
        return None
    member = db.session.get(Member, int(member_id))
    if member is None or not secrets.compare_digest(member.session_token, token):
        return None
    return member


def family_members(family: Family) -> list[Member]:
    return list(
        db.session.execute(db.select(Member).where(Member.family_id == family.id).order_by(Member.username)).scalars()
    )


# -- invites ------------------------------------------------------------------------------


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_invite(member: Member) -> str:
    """A new one-time invite into the member's family; returns the token for the link."""
    token = secrets.token_urlsafe(24)
    db.session.add(
        Invite(
            family_id=member.family_id,
            token_hash=_hash(token),
            created_by=member.id,
            expires_at=utcnow() + INVITE_LIFETIME,
        )
    )
    db.session.commit()
    return token


def open_invite(token: str) -> Invite | None:
    """The unused, unexpired invite this token belongs to."""
    if not token or len(token) > 100:
        return None
    invite = db.session.execute(db.select(Invite).where(Invite.token_hash == _hash(token))).scalar()
    if invite is None or invite.used_at is not None or invite.expires_at <= utcnow():
        return None
    return invite


def open_invites(family: Family) -> list[Invite]:
    return list(
        db.session.execute(
            db.select(Invite)
            .where(Invite.family_id == family.id, Invite.used_at.is_(None), Invite.expires_at > utcnow())
            .order_by(Invite.created_at)
        ).scalars()
    )


def cancel_invite(family: Family, invite_id: int) -> bool:
    changed = db.session.execute(
        update(Invite)
        .where(Invite.id == invite_id, Invite.family_id == family.id, Invite.used_at.is_(None))
        .values(used_at=utcnow(), expires_at=utcnow())
    ).rowcount
    db.session.commit()
    return bool(changed)


def join(token: str, username: str, password: str) -> Member:
    """Use an invite: a new member of its family. The invite is spent in the same UPDATE that
    checks it, so a link used twice at once lets in one person."""
    invite = open_invite(token)
    if invite is None:
        raise AccountError("This invite link has been used or has expired. Ask for a new one.")
    spent = db.session.execute(
        update(Invite).where(Invite.id == invite.id, Invite.used_at.is_(None)).values(used_at=utcnow())
    ).rowcount
    if not spent:
        db.session.rollback()
        raise AccountError("This invite link has been used or has expired. Ask for a new one.")
    member = _new_member(db.session.get(Family, invite.family_id), username, password)
    _commit_member()
    return member
