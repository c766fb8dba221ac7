"""Statistics kept as games are played (``history.kept``): the running tallies of
``rules.tallies`` as rows, so a history page reads a few small rows whatever the history's size.

A figure held by one game (best, worst, most hands won, most often stuck) is kept as its value,
the day it was played and the game's id. Most often stuck is ``None`` until the player has
finished a game every hand of which recorded laid-down marks (``rules.tallies``).
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from ..extensions import db

NAME_LENGTH = 200  # a kept rules name; a longer one (from an imported game) is cut


class KeptPlayer(db.Model):
    """A player's figures under one rule set over the family's finished games."""

    __tablename__ = "kept_player"
    __table_args__ = (UniqueConstraint("family_id", "player_id", "variant_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    variant_key: Mapped[str] = mapped_column(String(40))
    games: Mapped[int]
    wins: Mapped[int]
    points: Mapped[int]
    hands: Mapped[int]
    hands_won: Mapped[int]
    times_stuck: Mapped[int]
    buys: Mapped[int]
    marked_hands: Mapped[int] = mapped_column(server_default="0")
    best: Mapped[int]
    best_on: Mapped[date]
    best_game: Mapped[int]
    worst: Mapped[int]
    worst_on: Mapped[date]
    worst_game: Mapped[int]
    most_out: Mapped[int]
    most_out_on: Mapped[date]
    most_out_game: Mapped[int]
    most_stuck: Mapped[int | None]
    most_stuck_on: Mapped[date | None]
    most_stuck_game: Mapped[int | None]


class KeptMonth(db.Model):
    """A player's games and points in one month under one rule set (the profile's chart)."""

    __tablename__ = "kept_month"
    __table_args__ = (UniqueConstraint("family_id", "player_id", "month", "variant_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    month: Mapped[str] = mapped_column(String(7))
    variant_key: Mapped[str] = mapped_column(String(40))
    games: Mapped[int]
    points: Mapped[int]


class KeptYear(db.Model):
    """A player's games and points in one year under one rule set (a long history's chart)."""

    __tablename__ = "kept_year"
    __table_args__ = (UniqueConstraint("family_id", "player_id", "year", "variant_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    year: Mapped[str] = mapped_column(String(4))
    variant_key: Mapped[str] = mapped_column(String(40))
    games: Mapped[int]
    points: Mapped[int]


class KeptPair(db.Model):
    """One player against another over the finished games both played (head-to-head); each
    pair is kept both ways round."""

    __tablename__ = "kept_pair"
    __table_args__ = (UniqueConstraint("family_id", "player_id", "other_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    other_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    games: Mapped[int]
    lower: Mapped[int]
    higher: Mapped[int]
    level: Mapped[int]
    wins: Mapped[int]
    other_wins: Mapped[int]
    points: Mapped[int]
    other_points: Mapped[int]


class KeptStreak(db.Model):
    """A player's winning streak now and the longest one, in the family's finished games."""

    __tablename__ = "kept_streak"
    __table_args__ = (UniqueConstraint("family_id", "player_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    current: Mapped[int]
    longest: Mapped[int]


class KeptRules(db.Model):
    """A rules key the family's games use, with the name its newest game recorded: how the
    history names rules deleted since."""

    __tablename__ = "kept_rules"
    __table_args__ = (UniqueConstraint("family_id", "variant_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    family_id: Mapped[int] = mapped_column(ForeignKey("family.id"))
    variant_key: Mapped[str] = mapped_column(String(40))
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    newest_game: Mapped[int]
