"""Families as accounts: creating one, signing in (rate-limited), invites, signing out everywhere.

Passwords are hashed with scrypt (Werkzeug's default; ``PASSWORD_HASH`` in the config). Sign-in
failures are rows in the database, so every server process counts the same ones; each sign-in is a
row too, deleted at sign-out.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import timedelta
from functools import cache

from flask import current_app
from sqlalchemy import and_, func, text, update
from sqlalchemy.exc import IntegrityError
from werkzeug.security import check_password_hash, generate_password_hash

from ..extensions import db
from ..models import Family, Invite, Member, SignInFailure, SignInSession, utcnow

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
    member = Member(family=family, username=normal_username(username), password_hash=hashed(password))
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


def hashed(password: str) -> str:
    """``password`` hashed the way the config says (scrypt unless it says otherwise)."""
    return generate_password_hash(password, method=current_app.config["PASSWORD_HASH"])


def _decoy_hash() -> str:
    return _decoy_of(current_app.config["PASSWORD_HASH"])


@cache
def _decoy_of(method: str) -> str:
    return generate_password_hash(secrets.token_hex(16), method=method)


def _failures(key: str, since) -> int:
    return db.session.execute(
        db.select(func.count()).select_from(SignInFailure).where(SignInFailure.key == key, SignInFailure.at > since)
    ).scalar_one()


def _address_key(address: str) -> str:
    return f"addr:{address}"[:120]


def _lock(keys) -> None:
    """Hold these counters until the transaction ends. PostgreSQL: an advisory lock per key (in
    its own key space, apart from the upgrade's lock). SQLite has one writer at a time: the
    transaction's first statement (``_reserve`` begins with a DELETE) takes the write lock."""
    if db.engine.dialect.name == "postgresql":
        for key in sorted(keys):
            db.session.execute(text("SELECT pg_advisory_xact_lock(4117, hashtext(:key))"), {"key": key})


def _reserve(limits: dict[str, int]) -> list[int]:
    """Count an attempt against each key before it is tried, in one transaction that holds the
    keys: if any key has reached its limit within the window, ``AccountError(TOO_MANY)`` and
    nothing is counted; otherwise one failure row per key, committed, whose ids are returned.
    Attempts at once on several server processes are so counted one after another: no more
    are tried than the limit allows. ``_release`` takes back a row that turned out not to be a
    failure."""
    now = utcnow()
    since = now - FAILURE_WINDOW
    _lock(limits)
    # Old rows go; on PostgreSQL only rows nobody else is deleting (no waiting, no deadlock).
    stale = db.select(SignInFailure.id).where(SignInFailure.at <= since).limit(500).with_for_update(skip_locked=True)
    db.session.execute(db.delete(SignInFailure).where(SignInFailure.id.in_(stale)))
    if any(_failures(key, since) >= limit for key, limit in limits.items()):
        db.session.commit()
        raise AccountError(TOO_MANY)
    rows = [SignInFailure(key=key, at=now) for key in limits]
    db.session.add_all(rows)
    db.session.commit()
    return [row.id for row in rows]


def _release(ids: list[int]) -> None:
    db.session.execute(db.delete(SignInFailure).where(SignInFailure.id.in_(ids)))
    db.session.commit()


def authenticate(username: str, password: str, address: str) -> Member:
    """The member these credentials belong to, or ``AccountError`` with a message that never
    says whether the username exists. The attempt is counted as a failure before the password
    is checked (``_reserve``), and taken back if it was right."""
    username = normal_username(username)[:40]
    account, by_address = f"user:{username}", _address_key(address)
    account_row, address_row = _reserve({account: MAX_FAILURES_PER_ACCOUNT, by_address: MAX_FAILURES_PER_ADDRESS})
    member = db.session.execute(db.select(Member).where(Member.username == username)).scalar()
    # A missing account costs the same hashing time as a wrong password.
    if check_password_hash(member.password_hash if member else _decoy_hash(), password[:PASSWORD_MAX]) and member:
        db.session.execute(db.delete(SignInFailure).where(SignInFailure.key == account))
        _release([account_row, address_row])
        return member
    raise AccountError(NO_MATCH)


def reserve_username_answer(address: str) -> list[int]:
    """Before sign-up or joining checks whether a username is taken: count the answer as a
    failure from this address, so usernames cannot be listed faster than passwords can be
    guessed (``AccountError(TOO_MANY)`` beyond the limit). ``keep_username_answer`` says whether
    the answer given was "taken"; any other answer is not counted."""
    return _reserve({_address_key(address): MAX_FAILURES_PER_ADDRESS})


def keep_username_answer(reserved: list[int], taken: bool) -> None:
    if not taken:
        _release(reserved)


def _session_lifetime() -> timedelta:
    return current_app.config["REMEMBER_COOKIE_DURATION"]


def start_session(member: Member) -> None:
    """A new sign-in for this browser: its session and remember-me cookie will name it
    (``Member.get_id``). Sign-ins older than a remember-me cookie lives are cleared away."""
    token = secrets.token_urlsafe(32)
    db.session.execute(db.delete(SignInSession).where(
        SignInSession.member_id == member.id, SignInSession.created_at <= utcnow() - _session_lifetime()))
    db.session.add(SignInSession(member_id=member.id, token_hash=_hash(token)))
    db.session.commit()
    member.sign_in_token = token


def sign_out(member: Member) -> None:
    """This browser's sign-in ends on the server: a copy of its cookies no longer works; the
    member's other sign-ins go on. A session from before sign-ins were stored (its id holds the
    member's ``session_token``) can only end with every other such session."""
    if member.sign_in_token:
        db.session.execute(db.delete(SignInSession).where(SignInSession.token_hash == _hash(member.sign_in_token)))
    else:
        member.session_token = secrets.token_hex(16)
    db.session.commit()


def sign_out_everywhere(member: Member) -> None:
    """Every session and remember-me cookie of this member stops working."""
    member.session_token = secrets.token_hex(16)
    db.session.execute(db.delete(SignInSession).where(SignInSession.member_id == member.id))
    db.session.commit()


def load_member(session_id: str) -> Member | None:
    """The member a session names, if that sign-in has not ended: its token is a stored
    sign-in of the member, or (sessions from before sign-ins were stored) the member's
    ``session_token``. One query."""
    member_id, _, token = (session_id or "").partition(":")
    if not member_id.isascii() or not member_id.isdigit() or len(member_id) > 18:
        return None
    if not token or not token.isascii() or len(token) > 100:
        return None
    signed_in = and_(
        SignInSession.member_id == Member.id,
        SignInSession.token_hash == _hash(token),
        SignInSession.created_at > utcnow() - _session_lifetime(),
    )
    found = db.session.execute(
        db.select(Member, SignInSession.id).outerjoin(SignInSession, signed_in).where(Member.id == int(member_id))
    ).first()
    if found is None:
        return None
    member, sign_in = found
    if sign_in is not None:
        member.sign_in_token = token
    elif not secrets.compare_digest(member.session_token, token):
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
