"""Reads and writes that belong together: starting games, buys, recording hands, standings.

Every function that writes commits once at the end, so a refused request leaves nothing behind.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from flask import abort, g, has_request_context
from flask_login import current_user
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import attributes, joinedload, selectinload

from . import rules
from .db import db
from .models import (
    ABANDONED,
    FINISHED,
    IN_PROGRESS,
    Family,
    Game,
    GameRound,
    HouseRules,
    Member,
    Player,
    PlayerGame,
    Result,
    RoundChange,
    Seat,
    ShareLink,
    Submission,
    utcnow,
)

DEFAULT_FAMILY_NAME = "Our family"


class RuleError(Exception):
    """A request the rules or the game's state refuse; the message is meant for the user."""


class StaleEntry(RuleError):
    """A card-entry form opened before a buy or laid-down mark changed the hand."""


# -- family and players -------------------------------------------------------------------


def commit_for(family_id: int) -> None:
    """Commit a change to a family's games, moving its version on so cached pages are redrawn."""
    db.session.execute(update(Family).where(Family.id == family_id).values(version=Family.version + 1))
    db.session.commit()


def current_family() -> Family:
    """The signed-in member's family; on the command line, the instance's only family.

    A page opened through a score keeper's link (``auth.keeper_link``) belongs to that
    link's family, whoever is signed in.
    """
    if has_request_context():
        link = g.get("keeper_link")
        if link is not None:
            return db.session.get(Family, link.game.family_id)
        if not current_user.is_authenticated:
            abort(401)  # views are behind sign-in; this is a second lock on the door
        return current_user.family
    return sole_family()


def acting_person(game: Game) -> Member | str:
    """Who is changing the game, for its change history: a member, or a score keeper's link."""
    if current_user.is_authenticated and current_user.family_id == game.family_id:
        return current_user
    return "score keeper link"


# A phone makes these ids (random UUIDs) for what it sends; anything else is ignored.
_SUBMISSION_KEY = re.compile(r"[A-Za-z0-9-]{8,64}")
# Longer than any phone plausibly keeps a form waiting for a connection.
KEEP_SUBMISSIONS = timedelta(days=30)


def once(family_id: int, key: str | None, write: Callable[[], object]) -> None:
    """Run ``write`` (a service function that commits) at most once per submission key.

    The key is stored in the same transaction as the change, so a submission sent again -
    a phone back online retrying, or two tabs sending the same kept form - changes nothing.
    A refused write stores no key: sending it again is refused again, with the same message.
    """
    if not key or not _SUBMISSION_KEY.fullmatch(key):
        write()
        return
    if _submitted(family_id, key):
        return
    db.session.execute(
        db.delete(Submission).where(Submission.family_id == family_id, Submission.at < utcnow() - KEEP_SUBMISSIONS)
    )
    db.session.add(Submission(family_id=family_id, key=key))
    try:
        write()
    except IntegrityError:
        db.session.rollback()
        if not _submitted(family_id, key):
            raise
        # The same submission arrived twice at once; the other request stored it.


def _submitted(family_id: int, key: str) -> bool:
    return db.session.execute(
        db.select(Submission.id).where(Submission.family_id == family_id, Submission.key == key)
    ).first() is not None


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


# -- house rules --------------------------------------------------------------------------


def house_rules(family: Family) -> list[HouseRules]:
    """The family's own variants, by name."""
    return list(db.session.execute(
        db.select(HouseRules).where(HouseRules.family_id == family.id).order_by(HouseRules.name)
    ).scalars())


def load_house_rules(family: Family, rules_id: int) -> HouseRules | None:
    """One of the family's own variants; ``None`` for an unknown id or another family's."""
    if rules_id > MAX_ID:
        return None
    return db.session.execute(
        db.select(HouseRules).where(HouseRules.id == rules_id, HouseRules.family_id == family.id)
    ).scalar()


def save_house_rules(family: Family, variant: rules.Variant, row: HouseRules | None = None) -> HouseRules:
    """Store ``variant`` as new house rules, or over ``row``. Games already started keep the
    snapshot they took, so this never changes a recorded score."""
    taken = db.session.execute(
        db.select(HouseRules.id).where(
            HouseRules.family_id == family.id,
            db.func.lower(HouseRules.name) == variant.name.lower(),
            HouseRules.id != (row.id if row else -1),
        )
    ).first()
    if taken:
        raise RuleError(f"Your family already has rules called “{variant.name}”.")
    row = _store_house_rules(family, variant, row)
    try:
        commit_for(family.id)
    except IntegrityError:  # the same name saved from another phone a moment ago
        db.session.rollback()
        raise RuleError(f"Your family already has rules called “{variant.name}”.") from None
    return row


def _store_house_rules(family: Family, variant: rules.Variant, row: HouseRules | None = None) -> HouseRules:
    if row is None:
        row = HouseRules(family_id=family.id, name=variant.name, rules={})
        db.session.add(row)
        db.session.flush()  # the id makes the key
    row.name = variant.name
    row.rules = {**variant.to_dict(), "key": row.key}
    row.updated_at = utcnow()
    return row


def add_imported_rules(family: Family, variant: rules.Variant) -> tuple[HouseRules, bool]:
    """Add a variant read from a file, without committing: ``(row, added)``. A name the family
    already uses gets a number; rules the family already has under that name are not added twice."""
    rows = house_rules(family)
    same = _same_rules(variant)
    for row in rows:
        if row.name.casefold() == variant.name.casefold() and _same_rules(row.variant) == same:
            return row, False
    taken = {row.name.casefold() for row in rows}
    name, n = variant.name, 1
    while name.casefold() in taken:
        n += 1
        name = f"{variant.name[:70]} ({n})"
    return _store_house_rules(family, dataclasses.replace(variant, name=name)), True


def _same_rules(variant: rules.Variant) -> dict:
    return {k: v for k, v in variant.to_dict().items() if k != "key"}


def import_house_rules(family: Family, variant: rules.Variant) -> tuple[HouseRules, bool]:
    """Store a variant read from a file (see ``add_imported_rules``)."""
    row, added = add_imported_rules(family, variant)
    if added:
        commit_for(family.id)
    return row, added


def delete_house_rules(row: HouseRules) -> None:
    """Remove house rules; games played with them keep their own copy."""
    family_id = row.family_id
    db.session.delete(row)
    commit_for(family_id)


def family_variants(family: Family) -> dict[str, rules.Variant]:
    """Every variant a new game can use: the presets, then the family's own."""
    return {**rules.VARIANTS, **{row.key: row.variant for row in house_rules(family)}}


def variant_names(family: Family) -> dict[str, str]:
    """Names for every rules key in the family's games and variants, for filters and tables;
    rules since deleted are named as the last game played with them recorded them."""
    names = {key: v.name for key, v in family_variants(family).items()}
    latest = (
        db.select(db.func.max(Game.id))
        .where(Game.family_id == family.id, Game.variant_key.not_in(list(names)))
        .group_by(Game.variant_key)
    )
    for game in db.session.execute(db.select(Game).where(Game.id.in_(latest))).scalars():
        names[game.variant_key] = f"{game.rules.get('name', game.variant_key)} (deleted)"
    return names


# -- games --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatChoice:
    """A seat at the new game's table: a saved player, or a new name to save."""

    player_id: int | None = None
    new_name: str | None = None


def start_game(
    family: Family,
    variant: rules.Variant,
    seating: Sequence[SeatChoice],
    first_dealer: int | None,
    skip_first_hand: bool = False,
) -> Game:
    """Create a game with its players, seats and every hand; ``first_dealer=None`` draws one."""
    variant.decks_for(len(seating))  # raises ValueError outside the player range
    if first_dealer is None:
        first_dealer = secrets.randbelow(len(seating))
    players = []
    for choice in seating:
        if choice.player_id is not None:
            player = db.session.get(Player, choice.player_id)
            if player is None or player.family_id != family.id:
                raise RuleError("One of the chosen players no longer exists.")
        else:
            player = Player(family_id=family.id, name=choice.new_name)
            db.session.add(player)
        players.append(player)

    game = Game(
        family_id=family.id,
        variant_key=variant.key,
        rules=variant.to_dict(),
        skip_first_hand=skip_first_hand,
        first_dealer=first_dealer,
        status=IN_PROGRESS,
    )
    game.seats = [Seat(player=p, position=i) for i, p in enumerate(players)]
    numbers = variant.hand_numbers(skip_first_hand)
    for position, (number, dealer) in enumerate(
        rules.schedule(numbers, first_dealer, len(players))
    ):
        game.rounds.append(
            GameRound(
                position=position,
                number=number,
                dealer=dealer,
                results=[Result(player=p, position=i) for i, p in enumerate(players)],
            )
        )
    db.session.add(game)
    db.session.flush()
    refresh_summary(game, new=True)
    commit_for(family.id)
    return game


MAX_ID = 2**31 - 1  # the largest integer an Integer column holds on every database (PostgreSQL: 32 bits)


def is_number(text: str) -> bool:
    """Plain ASCII digits only (``"²".isdigit()`` is true but ``int("²")`` fails), and few enough
    that ``int`` takes them (it refuses over 4300)."""
    return text.isascii() and text.isdigit() and len(text) <= 18


# Seats, rounds and results in one query each, however many games are listed.
_WHOLE_GAME = (joinedload(Game.seats), selectinload(Game.rounds).selectinload(GameRound.results))


def load_game(family: Family, game_id: int) -> Game | None:
    """The family's game with seats, rounds and results loaded in a fixed number of queries."""
    if not 0 < game_id <= MAX_ID:
        return None
    return db.session.execute(
        db.select(Game)
        .where(Game.id == game_id, Game.family_id == family.id)
        .options(*_WHOLE_GAME)
    ).unique().scalar_one_or_none()


def round_of(game: Game, number: int) -> GameRound:
    """The game's round with this number; ``RuleError`` if it has none."""
    for round_ in game.rounds:
        if round_.number == number:
            return round_
    raise RuleError(f"This game has no round {number}.")


def _open_round(game: Game, number: int) -> GameRound:
    """The hand being played; buys and laying down only happen there."""
    _refuse_if_abandoned(game)
    round_ = round_of(game, number)
    if round_.recorded_at is not None:
        raise RuleError(f"Round {number} is already scored; buys can be changed by editing it.")
    if round_ is not game.current_round:
        raise RuleError(f"Round {number} has not started yet; round {game.current_round.number} is being played.")
    return round_


def _refuse_if_abandoned(game: Game) -> None:
    if game.status == ABANDONED:
        raise RuleError("This game was abandoned; its scores can no longer change.")


def _seat_name(game: Game, player_id: int) -> str:
    for seat in game.seats:
        if seat.player_id == player_id:
            return seat.player.name
    raise RuleError("That player is not in this game.")


def buy(game: Game, number: int, player_id: int) -> None:
    """Count one buy, refused at the round's limit or for a player who may no longer buy."""
    round_ = _open_round(game, number)
    name = _seat_name(game, player_id)
    result = round_.result_for(player_id)
    limit = buy_limits(game, round_)[player_id]
    if result.laid_down and not game.variant.down_may_buy:
        raise RuleError(f"{name} has laid down and may not buy any more this hand.")
    _claim_open_round(round_)
    # The limit is checked in the UPDATE itself so two phones tapping at once cannot pass it.
    changed = db.session.execute(
        update(Result)
        .where(Result.id == result.id, Result.buys < limit)
        .values(buys=Result.buys + 1)
    ).rowcount
    if not changed:
        db.session.rollback()
        if game.variant.buys_counted == "game" and limit < round_.rules.buy_limit:
            raise RuleError(f"{name} has used all {game.variant.buys_per_game} buys of this game.")
        raise RuleError(f"{name} has used all {limit} buys this round.")
    commit_for(game.family_id)


def buy_limits(game: Game, round_: GameRound) -> dict[int, int]:
    """Each player's buy limit in ``round_``: the round's own, more with unused buys carried
    over, or what is left of the game's allowance."""
    variant = game.variant
    if variant.buys_counted == "hand":  # no need to load the earlier hands
        return {seat.player_id: round_.rules.buy_limit for seat in game.seats}
    earlier = [r for r in game.rounds if r.position < round_.position]
    return {
        seat.player_id: variant.buys_allowed(
            round_.rules, [(r.rules, r.result_for(seat.player_id).buys) for r in earlier]
        )
        for seat in game.seats
    }


def undo_buy(game: Game, number: int, player_id: int) -> None:
    """Take back one buy (a mistaken tap)."""
    round_ = _open_round(game, number)
    name = _seat_name(game, player_id)
    result = round_.result_for(player_id)
    _claim_open_round(round_)
    changed = db.session.execute(
        update(Result).where(Result.id == result.id, Result.buys > 0).values(buys=Result.buys - 1)
    ).rowcount
    if not changed:
        db.session.rollback()
        raise RuleError(f"{name} has no buy to take back this round.")
    commit_for(game.family_id)


def set_laid_down(game: Game, number: int, player_id: int, laid_down: bool) -> None:
    """Mark whether a player has laid down the contract this hand."""
    round_ = _open_round(game, number)
    _seat_name(game, player_id)
    _claim_open_round(round_)
    round_.result_for(player_id).laid_down = laid_down
    commit_for(game.family_id)


def _now_stored(round_: GameRound, **values) -> None:
    """Keep the object in step with a row just changed by a conditional UPDATE, without
    writing it again."""
    for name, value in values.items():
        attributes.set_committed_value(round_, name, value)


def _claim_open_round(round_: GameRound) -> None:
    """Move the hand's version on, so a card-entry form opened before this buy or mark cannot
    overwrite it; refused if the hand was scored meanwhile (the row lock orders the two)."""
    changed = db.session.execute(
        update(GameRound)
        .where(GameRound.id == round_.id, GameRound.recorded_at.is_(None))
        .values(version=GameRound.version + 1)
        .execution_options(synchronize_session=False)
    ).rowcount
    if not changed:
        db.session.rollback()
        raise RuleError(f"Round {round_.number} was scored meanwhile; buys can be changed by editing it.")
    _now_stored(round_, version=round_.version + 1)


# -- recording a hand ---------------------------------------------------------------------


@dataclass
class HandEntry:
    """What the card-entry form says about one player at the end of a hand."""

    player_id: int
    went_out: bool = False
    laid_down: bool = False
    buys: int = 0
    counts: Mapping[str, int] = field(default_factory=dict)
    hand_total: int | None = None
    bonus_code: str = ""  # codes of the bonuses earned, space-separated


def cards_text(variant: rules.Variant, counts: Mapping[str, int]) -> str:
    """Keypad counts as the stored card list, in keypad order: ``"5 5 K JK"``."""
    return " ".join(
        " ".join([key.code] * counts.get(key.code, 0)) for key in variant.keys if counts.get(key.code)
    )


def card_counts(cards: str) -> dict[str, int]:
    """The stored card list back as keypad counts."""
    counts: dict[str, int] = {}
    for code in cards.split():
        counts[code] = counts.get(code, 0) + 1
    return counts


def hand_points(variant: rules.Variant, entry: HandEntry, round_number: int) -> tuple[int, int]:
    """``(points, bonus)`` for one player, recomputed from the cards on the server; the points
    include the bonus (going out, the way out, a named event)."""
    codes = entry.bonus_code.split()
    bonus = sum(b.points for b in variant.bonuses if b.code in codes and (b.anyone or entry.went_out))
    if entry.went_out:
        bonus += variant.going_out_points(round_number)
        return bonus, bonus
    if entry.hand_total is not None:
        return entry.hand_total + bonus, bonus
    return rules.score_keys(variant, entry.counts) + bonus, bonus


def record_round(
    game: Game, number: int, entries: Sequence[HandEntry], version: int, by: Member | str | None = None
) -> GameRound:
    """Store (or correct) a hand's result; ``version`` is what the form was opened with.

    A second submission of the same form - a double tap, another phone - finds the version
    moved on and is refused, so a hand is never stored twice. ``by`` is who did it, for the
    game's change history.
    """
    _refuse_if_abandoned(game)
    round_ = round_of(game, number)
    current = game.current_round
    if round_.recorded_at is None and round_ is not current:
        raise RuleError(f"Round {current.number} comes first.")
    before = [r.points for r in round_.results] if round_.recorded_at else None
    stamp = round_.recorded_at or utcnow()
    changed = db.session.execute(
        update(GameRound)
        .where(GameRound.id == round_.id, GameRound.version == version)
        .values(version=GameRound.version + 1, recorded_at=stamp)
        .execution_options(synchronize_session=False)
    ).rowcount
    if not changed:
        db.session.rollback()
        if round_.recorded_at is None:
            raise StaleEntry(
                f"Round {number} changed on another phone while you were entering cards, so nothing "
                "was saved yet. Your cards are kept below with the buys and marks stored now: check and save again."
            )
        raise RuleError(
            f"Round {number} was saved from another tap or phone in the meantime; "
            "this is the result that is stored."
        )
    _now_stored(round_, version=version + 1, recorded_at=stamp)
    variant = game.variant
    by_player = {e.player_id: e for e in entries}
    for result in round_.results:
        entry = by_player[result.player_id]
        points, bonus = hand_points(variant, entry, number)
        result.went_out = entry.went_out
        result.laid_down = entry.laid_down or entry.went_out
        result.buys = entry.buys
        result.cards = "" if entry.went_out or entry.hand_total is not None else cards_text(
            variant, entry.counts
        )
        result.hand_total = None if entry.went_out else entry.hand_total
        result.bonus_code = entry.bonus_code
        result.bonus = bonus
        result.points = points
        _mark_changed(result, RESULT_FIELDS)
    _log_change(game, round_, "edited" if before else "recorded", before, by)
    _update_status(game)
    commit_for(game.family_id)
    return round_


def undo_last_round(game: Game, number: int | None = None, by: Member | str | None = None) -> GameRound:
    """Take the last scored hand back into play; its buys and laid-down marks stay.

    ``number`` is the round the user saw as last: a second tap (or phone) finds it already
    taken back and is refused instead of taking back the round before it.
    """
    _refuse_if_abandoned(game)
    recorded = [r for r in game.rounds if r.recorded_at is not None]
    if not recorded:
        raise RuleError("No round has been scored yet.")
    round_ = recorded[-1]
    if number is not None and round_.number != number:
        raise RuleError(f"Round {number} was already taken back.")
    # Conditional, so two phones taking the same hand back at once take it back once.
    changed = db.session.execute(
        update(GameRound)
        .where(GameRound.id == round_.id, GameRound.version == round_.version)
        .values(version=GameRound.version + 1, recorded_at=None)
        .execution_options(synchronize_session=False)
    ).rowcount
    if not changed:
        db.session.rollback()
        raise RuleError(f"Round {round_.number} was changed on another phone; look again before taking it back.")
    _now_stored(round_, version=round_.version + 1, recorded_at=None)
    _log_change(game, round_, "undone", [r.points for r in round_.results], by)
    for result in round_.results:
        result.went_out = False
        result.cards = ""
        result.hand_total = None
        result.bonus_code = ""
        result.bonus = 0
        result.points = 0
    _update_status(game)
    commit_for(game.family_id)
    return round_


def _log_change(
    game: Game, round_: GameRound, action: str, before: list[int] | None, by: Member | str | None
) -> None:
    after = None if action == "undone" else [r.points for r in round_.results]
    member = by if isinstance(by, Member) else None
    db.session.add(
        RoundChange(
            game_id=game.id,
            number=round_.number,
            action=action,
            member_id=member.id if member else None,
            by=member.username if member else (by or "command line"),
            points={"before": before, "after": after},
        )
    )


@dataclass
class ChangeLine:
    change: RoundChange
    # (player name, points before, points after) for each player whose points changed
    moves: list[tuple[str, int | None, int | None]]


def round_changes(game: Game) -> list[ChangeLine]:
    """The game's scored-hand changes, newest first, with whose points moved."""
    names = [p.name for p in game.players]
    lines = []
    for change in db.session.execute(
        db.select(RoundChange).where(RoundChange.game_id == game.id).order_by(RoundChange.id.desc())
    ).scalars():
        before = change.points.get("before") or [None] * len(names)
        after = change.points.get("after") or [None] * len(names)
        moves = [(n, b, a) for n, b, a in zip(names, before, after) if b != a]
        lines.append(ChangeLine(change, moves))
    return lines


def _update_status(game: Game) -> None:
    """Finish a game when its last hand is in (or reopen it), then refresh its summary."""
    if game.status != ABANDONED:
        done = all(r.recorded_at is not None for r in game.rounds)
        if done and game.status != FINISHED:
            game.status, game.finished_at = FINISHED, utcnow()
        elif not done and game.status == FINISHED:
            game.status, game.finished_at = IN_PROGRESS, None
    refresh_summary(game)


RESULT_FIELDS = ("went_out", "laid_down", "buys", "cards", "hand_total", "bonus_code", "bonus", "points")
SUMMARY_FIELDS = ("status", "hands_played", "total", "won", "hands_won", "times_stuck", "buys")


def _mark_changed(row, names) -> None:
    """Rows written with the same columns go to the database as one batched statement."""
    for name in names:
        attributes.flag_modified(row, name)


def refresh_summary(game: Game, new: bool = False) -> None:
    """Recompute the game's one-row-per-player summary (``PlayerGame``) from its hands.

    ``new`` says the game was just created, so there are no rows to look up.
    """
    rows = {} if new else {
        row.player_id: row
        for row in db.session.execute(
            db.select(PlayerGame).where(PlayerGame.game_id == game.id)
        ).scalars()
    }
    table = standings(game)
    recorded = [r for r in game.rounds if r.recorded_at is not None]
    for seat, player in enumerate(table.players):
        row = rows.get(player.id)
        if row is None:
            row = PlayerGame(family_id=game.family_id, game_id=game.id, player_id=player.id)
            db.session.add(row)
        results = [r.results[seat] for r in recorded]
        row.variant_key = game.variant_key
        row.status = game.status
        row.played_on = game.started_at.date()
        row.month = game.started_at.strftime("%Y-%m")
        row.hands_played = len(recorded)
        row.total = table.totals[seat]
        row.won = game.status == FINISHED and player in table.leaders
        row.hands_won = sum(r.went_out for r in results)
        row.times_stuck = sum(r.stuck for r in results)
        row.buys = sum(r.buys for r in results)
        if row.id is not None:
            _mark_changed(row, SUMMARY_FIELDS)


def abandon_game(game: Game) -> None:
    """Stop a game for good: it stays in the history and leaves the records."""
    if game.status == ABANDONED:
        raise RuleError("This game is already abandoned.")
    game.status, game.finished_at = ABANDONED, utcnow()
    refresh_summary(game)
    commit_for(game.family_id)


def delete_game(game: Game) -> None:
    """Remove a game with all its hands and its summary."""
    db.session.execute(db.delete(PlayerGame).where(PlayerGame.game_id == game.id))
    db.session.execute(db.delete(RoundChange).where(RoundChange.game_id == game.id))
    db.session.execute(db.delete(ShareLink).where(ShareLink.game_id == game.id))
    db.session.delete(game)
    commit_for(game.family_id)


# -- standings ----------------------------------------------------------------------------


@dataclass
class Cell:
    result: Result
    running_total: int


@dataclass
class Row:
    round: GameRound
    dealer: Player
    cells: list[Cell] | None  # None for a hand not yet scored


@dataclass
class Standings:
    players: list[Player]
    rows: list[Row]
    totals: list[int]
    leaders: list[Player]  # lowest total so far; several on a tie
    finished: bool

    @property
    def scored_rounds(self) -> int:
        return sum(1 for row in self.rows if row.cells is not None)

    def total_of(self, player: Player) -> int:
        return self.totals[self.players.index(player)]


def standings(game: Game) -> Standings:
    """Per-hand points and running totals, and who leads (or won: lowest total, ties shared)."""
    players = game.players
    totals = [0] * len(players)
    rows = []
    for round_ in game.rounds:
        dealer = players[round_.dealer]
        if round_.recorded_at is None:
            rows.append(Row(round_, dealer, None))
            continue
        cells = []
        for i, result in enumerate(round_.results):
            totals[i] += result.points
            cells.append(Cell(result, totals[i]))
        rows.append(Row(round_, dealer, cells))
    scored = any(row.cells for row in rows)
    low = min(totals) if scored else None
    leaders = [p for p, t in zip(players, totals) if t == low]
    return Standings(players, rows, totals, leaders, game.status == FINISHED)
