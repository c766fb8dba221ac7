"""Families, players, games and the rounds they play."""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, date, datetime
from functools import cached_property

from flask_login import UserMixin
from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .extensions import db
from .rules import Variant

IN_PROGRESS = "in_progress"
FINISHED = "finished"
ABANDONED = "abandoned"
# How a hand was recorded (``GameRound.source``), which says what it holds besides the points:
TABLE = "table"  # at the table: buys, laid-down marks and the dealer
PAPER = "paper"  # typed from a paper sheet: the dealer (from the seating), no buys or laid-down marks
SHEET = "sheet"  # imported from a spreadsheet: points only (no dealer, buys or laid-down marks)
SOURCES = (TABLE, PAPER, SHEET)
MAX_ID = 2**31 - 1  # the largest integer an Integer column holds on every database (PostgreSQL: 32 bits)
# A column that leads a unique constraint or a composite index has no index of its own: the database
# finds its rows through that one.


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Family(db.Model):
    """A household: everything else belongs to one."""

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(60))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Bumped by every change to the family's games: cached pages are keyed by it.
    version: Mapped[int] = mapped_column(default=0)
    # Bumped when its finished games change (``history.kept``): figures drawn from them are kept by it.
    stats_version: Mapped[int] = mapped_column(default=0, server_default="0")


class Player(db.Model):
    __table_args__ = (UniqueConstraint("family_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    name: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


def new_uid() -> str:
    return uuid.uuid4().hex


class Game(db.Model):
    __table_args__ = (
        Index("ix_game_family_started", "family_id", "started_at"),
        Index("ix_game_family_status_started", "family_id", "status", "started_at"),
        # Per family: another family importing the same export gets its own copy.
        UniqueConstraint("family_id", "uid", name="uq_game_family_uid"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # Identifies the game across exports and imports, so importing twice adds nothing.
    uid: Mapped[str] = mapped_column(String(32), default=new_uid)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    variant_key: Mapped[str] = mapped_column(String(40))
    # The rules as they were when the game started: later rule changes never touch it.
    rules: Mapped[dict] = mapped_column(JSON)
    skip_first_hand: Mapped[bool] = mapped_column(default=False)
    first_dealer: Mapped[int]  # seat position
    status: Mapped[str] = mapped_column(String(20), default=IN_PROGRESS)
    started_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    finished_at: Mapped[datetime | None]

    seats: Mapped[list[Seat]] = relationship(
        order_by="Seat.position", cascade="all, delete-orphan", back_populates="game"
    )
    rounds: Mapped[list[GameRound]] = relationship(
        order_by="GameRound.position", cascade="all, delete-orphan", back_populates="game"
    )

    @cached_property
    def variant(self) -> Variant:
        return Variant.from_dict(self.rules)

    @property
    def players(self) -> list[Player]:
        return [seat.player for seat in self.seats]

    @property
    def current_round(self) -> GameRound | None:
        """The first hand not yet recorded; ``None`` once every hand is in."""
        return next((r for r in self.rounds if r.recorded_at is None), None)

    @property
    def is_finished(self) -> bool:
        return self.status == FINISHED


class Seat(db.Model):
    """A player's place at the table, clockwise from position 0."""

    __table_args__ = (UniqueConstraint("game_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"), index=True)
    position: Mapped[int]

    game: Mapped[Game] = relationship(back_populates="seats")
    player: Mapped[Player] = relationship(lazy="joined")


class GameRound(db.Model):
    """One hand of a game. Rows exist from the start; ``recorded_at`` marks a scored hand."""

    __tablename__ = "game_round"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    position: Mapped[int]  # 0-based order within the game
    number: Mapped[int]  # the variant's round number (hand 1 may be skipped)
    dealer: Mapped[int]  # seat position
    recorded_at: Mapped[datetime | None]
    # Bumped on every change of the recorded result, so a stale edit is caught.
    version: Mapped[int] = mapped_column(default=0)
    # TABLE, PAPER or SHEET: how the hand was first recorded, so statistics leave out what it did not record.
    source: Mapped[str] = mapped_column(String(10), default=TABLE, server_default=TABLE)

    game: Mapped[Game] = relationship(back_populates="rounds")
    results: Mapped[list[Result]] = relationship(
        order_by="Result.position", cascade="all, delete-orphan", back_populates="round"
    )

    @property
    def rules(self):
        return self.game.variant.round(self.number)

    @property
    def marked(self) -> bool:
        """Whether the hand recorded buys and laid-down marks (it was played at the table)."""
        return self.source == TABLE

    @property
    def dealer_known(self) -> bool:
        """A spreadsheet does not say who dealt: its games' dealers are the app's guess."""
        return self.source != SHEET

    def result_for(self, player_id: int) -> Result:
        return next(r for r in self.results if r.player_id == player_id)


class Result(db.Model):
    """One player's part of one hand: buys, laid down, went out, cards left and points."""

    __table_args__ = (UniqueConstraint("round_id", "player_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("game_round.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"), index=True)
    position: Mapped[int]  # the player's seat, for ordering
    buys: Mapped[int] = mapped_column(default=0)
    laid_down: Mapped[bool] = mapped_column(default=False)
    went_out: Mapped[bool] = mapped_column(default=False)
    # Keypad codes as entered, e.g. "K K 5 JK"; empty when a total was typed instead.
    cards: Mapped[str] = mapped_column(String(200), default="")
    hand_total: Mapped[int | None]  # a total counted by hand, when cards were not entered
    bonus_code: Mapped[str] = mapped_column(String(30), default="")
    bonus: Mapped[int] = mapped_column(default=0)
    points: Mapped[int] = mapped_column(default=0)

    round: Mapped[GameRound] = relationship(back_populates="results")
    # The seats already hold the players: reading this finds them in the session, no query.
    player: Mapped[Player] = relationship()

    @property
    def stuck(self) -> bool:
        """Never laid down during a hand recorded at the table (paper does not say)."""
        return not self.laid_down and not self.went_out and self.round.marked


class PlayerGame(db.Model):
    """One player's result in one game, kept up to date as hands are recorded.

    History, profiles and records aggregate these rows (one per player per game) instead of
    loading every hand.
    """

    __tablename__ = "player_game"
    __table_args__ = (
        UniqueConstraint("game_id", "player_id"),
        # Each index serves one statistic without reading the table (see stats.py).
        Index("ix_player_game_profile", "family_id", "player_id", "status", "month", "total"),
        Index("ix_player_game_table", "family_id", "status", "player_id", "won", "total", "hands_played", "hands_won"),
        Index("ix_player_game_total", "family_id", "status", "total"),
        Index("ix_player_game_hands_won", "family_id", "status", "hands_won"),
        Index("ix_player_game_stuck", "family_id", "status", "times_stuck"),
        Index("ix_player_game_streak", "family_id", "status", "won", "played_on", "game_id", "player_id"),
        # A season's figures and records read only its own days.
        Index("ix_player_game_season", "family_id", "status", "played_on", "variant_key", "total"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    variant_key: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(20))
    played_on: Mapped[date]
    month: Mapped[str] = mapped_column(String(7))  # "2026-11", for charts by month on any database
    hands_played: Mapped[int] = mapped_column(default=0)
    total: Mapped[int] = mapped_column(default=0)
    won: Mapped[bool] = mapped_column(default=False)  # lowest total of a finished game (ties share)
    hands_won: Mapped[int] = mapped_column(default=0)
    times_stuck: Mapped[int] = mapped_column(default=0)
    buys: Mapped[int] = mapped_column(default=0)
    # Hands that recorded buys and laid-down marks (``GameRound.marked``): what buys and times stuck are out of.
    marked_hands: Mapped[int] = mapped_column(default=0, server_default="0")


class Rating(db.Model):
    """A player's family rating after one finished game (``rules.ratings``), and the change in
    the shown figure that game made. Games are rated in order of ``played_at`` then id; a change
    to a finished game rates it and every later game again (``history.ratings``)."""

    __table_args__ = (
        UniqueConstraint("game_id", "player_id"),
        Index("ix_rating_family_order", "family_id", "played_at", "game_id"),
        Index("ix_rating_player_order", "family_id", "player_id", "played_at", "game_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    played_at: Mapped[datetime]  # the game's start: the order games are rated in
    month: Mapped[str] = mapped_column(String(7))  # "2026-11": a profile charts the rating month by month
    mu: Mapped[float]
    sigma: Mapped[float]
    shown: Mapped[int]  # the figure players see after this game
    change: Mapped[int]  # ``shown`` minus the figure before it: a season's changes add up exactly

# -- accounts -----------------------------------------------------------------------------


class Member(UserMixin, db.Model):
    """A person who signs in; belongs to one family and sees only its games."""

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"), index=True)
    username: Mapped[str] = mapped_column(String(40), unique=True)  # stored lower-case
    password_hash: Mapped[str] = mapped_column(String(200))
    # Part of every session and remember-me cookie: a new value signs the member out everywhere.
    session_token: Mapped[str] = mapped_column(String(32), default=lambda: secrets.token_hex(16))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    family: Mapped[Family] = relationship(lazy="joined")

    # The token of the sign-in (``SignInSession``) this request came with; not stored here.
    sign_in_token = None

    def get_id(self) -> str:
        # "<id>:<token of this sign-in>"; without one, the older "<id>:<session_token>" form.
        return f"{self.id}:{self.sign_in_token or self.session_token}"


class SignInSession(db.Model):
    """One sign-in on one browser: its session and remember-me cookie name it. Signing out
    deletes it, so a copy of those cookies stops working too; only a hash of the token is kept."""

    __tablename__ = "sign_in_session"

    id: Mapped[int] = mapped_column(primary_key=True)
    member_id: Mapped[int] = mapped_column(ForeignKey("member.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Invite(db.Model):
    """A one-time link that lets someone join a family. Only a hash of the token is kept."""

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("member.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]


class SignInFailure(db.Model):
    """A failed sign-in, by account or by address. Kept in the database so every worker
    process counts the same failures."""

    __tablename__ = "sign_in_failure"
    __table_args__ = (Index("ix_sign_in_failure_key_at", "key", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(120))  # "user:ann" or "addr:192.0.2.7"
    at: Mapped[datetime] = mapped_column(default=utcnow)


class RoundChange(db.Model):
    """One change to a scored hand (recorded, edited, taken back): who, when, and the points."""

    __tablename__ = "round_change"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"), index=True)
    number: Mapped[int]  # the round's number in its variant
    action: Mapped[str] = mapped_column(String(20))  # recorded | edited | undone
    member_id: Mapped[int | None] = mapped_column(ForeignKey("member.id"))
    by: Mapped[str] = mapped_column(String(40))  # the member's name then, or "command line"
    at: Mapped[datetime] = mapped_column(default=utcnow)
    # Points per seat before and after, e.g. {"before": [5, 0, 30], "after": [5, 0, 25]}.
    points: Mapped[dict] = mapped_column(JSON)


# -- at the table -------------------------------------------------------------------------

VIEW = "view"  # a read-only live scoreboard
KEEP = "keep"  # another phone that may record buys and hands


class ShareLink(db.Model):
    """A link to one game for phones without a login: a live scoreboard, or a second score keeper.

    The token is kept as it is (not hashed) so the link and its QR code can be shown again to
    the next phone; it opens only this game, and only until it is revoked or the game has been
    over for a while.
    """

    __tablename__ = "share_link"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("game.id"), index=True)
    kind: Mapped[str] = mapped_column(String(10))  # VIEW | KEEP
    token: Mapped[str] = mapped_column(String(64), unique=True, default=lambda: secrets.token_urlsafe(24))
    created_by: Mapped[int | None] = mapped_column(ForeignKey("member.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None]
    # When the game first ended while the link existed: the link stops a day after, even if an
    # undo reopens the game (``sharing.service``).
    game_ended_at: Mapped[datetime | None]

    game: Mapped[Game] = relationship()


class Submission(db.Model):
    """A form sent with a submission id (a phone sending what it kept while offline): stored
    with the change it made, so the same submission sent twice changes nothing the second time."""

    __table_args__ = (UniqueConstraint("family_id", "key", name="uq_submission_family_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    key: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    # A phone's queued action (``games.actions``): its game (no foreign key: a log that outlives a
    # deleted game until it expires) and what it did, {"round": 3, "after": 7, "base_ok": true}.
    game_id: Mapped[int | None] = mapped_column(index=True)
    outcome: Mapped[dict | None] = mapped_column(JSON)


# -- house rules --------------------------------------------------------------------------

HOUSE_PREFIX = "house-"


class HouseRules(db.Model):
    """A family's own variant, written in the editor. A game copies it when it starts, so
    editing or deleting it later leaves recorded games as they were."""

    __tablename__ = "house_rules"
    __table_args__ = (UniqueConstraint("family_id", "name", name="uq_house_rules_family_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    name: Mapped[str] = mapped_column(String(80))
    rules: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    @property
    def key(self) -> str:
        return f"{HOUSE_PREFIX}{self.id}"

    @property
    def variant(self) -> Variant:
        return Variant.from_dict({**self.rules, "key": self.key, "name": self.name})
