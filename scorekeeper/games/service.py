"""A game from its start to its end: starting it, loading it, buys and laid-down marks in the
hand being played, abandoning and deleting. Recording hands is in ``hands``."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time

from sqlalchemy import update
from sqlalchemy.orm import attributes, joinedload, selectinload

from .. import rules
from ..extensions import db
from ..families import NotFound, RuleError, commit_for, family_players
from ..history import kept, ratings
from ..models import (
    ABANDONED,
    FINISHED,
    IN_PROGRESS,
    MAX_ID,
    Family,
    Game,
    GameRound,
    Player,
    PlayerGame,
    Result,
    RoundChange,
    Seat,
    ShareLink,
    utcnow,
)
from ..rules.messages import MESSAGES
from .summary import refresh_summary


class StaleEntry(RuleError):
    """A card-entry form opened before a buy or laid-down mark changed the hand."""


class HandRefused(RuleError):
    """Hands the rules cannot accept (too many cards or buys, nobody out...): nothing was saved."""


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
    started_at: date | datetime | None = None,
) -> Game:
    """Create a game with its players, seats and every hand; ``first_dealer=None`` draws one.
    ``started_at``: the day it was played, for a game typed in later (today, or none: now), or
    the very moment."""
    variant.decks_for(len(seating))  # raises ValueError outside the player range
    start = start_time(started_at)
    if start.date() > utcnow().date():
        raise RuleError("A game cannot be played on a day still to come.")
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
        started_at=start,
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
    kept.note_rules(game)
    commit_for(family.id)
    return game


# A game typed in for an earlier day began in the evening of that day, when families play.
PAST_GAME_HOUR = time(19, 0)


def start_time(day: date | datetime | None) -> datetime:
    """When a game played on ``day`` began: now for today (or no day), else that evening (a
    ``datetime`` is the moment itself)."""
    if isinstance(day, datetime):
        return day
    now = utcnow()
    if day is None or day == now.date():
        return now
    return datetime.combine(day, PAST_GAME_HOUR)


WHOLE_GAME = (joinedload(Game.seats), selectinload(Game.rounds).selectinload(GameRound.results))


def family_game(family: Family, game_id: int) -> Game:
    """The family's game with its seats, rounds and results; ``NotFound`` for any other id."""
    game = load_game(family, game_id)
    if game is None:
        raise NotFound(f"no game {game_id} in this family")
    return game


def load_game(family: Family, game_id: int) -> Game | None:
    """The family's game with seats, rounds and results loaded in a fixed number of queries."""
    if not 0 < game_id <= MAX_ID:
        return None
    return db.session.execute(
        db.select(Game)
        .where(Game.id == game_id, Game.family_id == family.id)
        .options(*WHOLE_GAME)
    ).unique().scalar_one_or_none()


def round_of(game: Game, number: int) -> GameRound:
    """The game's round with this number; ``RuleError`` if it has none."""
    for round_ in game.rounds:
        if round_.number == number:
            return round_
    raise RuleError(f"This game has no round {number}.")


def _open_round(game: Game, number: int) -> GameRound:
    """The hand being played; buys and laying down only happen there."""
    refuse_if_abandoned(game)
    round_ = round_of(game, number)
    if round_.recorded_at is not None:
        raise RuleError(f"Round {number} is already scored; buys can be changed by editing it.")
    if round_ is not game.current_round:
        raise RuleError(f"Round {number} has not started yet; round {game.current_round.number} is being played.")
    return round_


def refuse_if_abandoned(game: Game) -> None:
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
    if not game.variant.buy_rule.may_buy(result.laid_down):
        raise RuleError(MESSAGES["down_no_buy"].format(name=name))
    _claim_open_round(round_)
    # The limit is checked in the UPDATE itself so two phones tapping at once cannot pass it.
    changed = db.session.execute(
        update(Result)
        .where(Result.id == result.id, Result.buys < limit)
        .values(buys=Result.buys + 1)
    ).rowcount
    if not changed:
        db.session.rollback()
        raise RuleError(game.variant.buy_rule.refuse(name, round_.rules, limit))
    commit_for(game.family_id)


def buy_limits(game: Game, round_: GameRound) -> dict[int, int]:
    """Each player's buy limit in ``round_``: the round's own, more with unused buys carried
    over, or what is left of the game's allowance."""
    rule = game.variant.buy_rule
    if not rule.needs_history:  # no need to load the earlier hands
        return {seat.player_id: rule.allowed(round_.rules, []) for seat in game.seats}
    earlier = [r for r in game.rounds if r.position < round_.position]
    return {
        seat.player_id: rule.allowed(
            round_.rules, [(r.rules, r.result_for(seat.player_id).buys) for r in earlier]
        )
        for seat in game.seats
    }


def buys_left(game: Game, round_: GameRound, limits: dict[int, int]) -> dict[int, int | None]:
    """Each player's buys left in ``round_`` (of ``limits``); ``None`` for one who has laid down
    where the rules say a player who has laid down may not buy."""
    rule = game.variant.buy_rule
    return {r.player_id: rule.left(limits[r.player_id], r.buys, r.laid_down) for r in round_.results}


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
        raise RuleError(MESSAGES["no_buy_back"].format(name=name))
    commit_for(game.family_id)


def set_laid_down(game: Game, number: int, player_id: int, laid_down: bool) -> None:
    """Mark whether a player has laid down the contract this hand."""
    round_ = _open_round(game, number)
    _seat_name(game, player_id)
    _claim_open_round(round_)
    round_.result_for(player_id).laid_down = laid_down
    commit_for(game.family_id)


def stored_now(round_: GameRound, **values) -> None:
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
    stored_now(round_, version=round_.version + 1)


def players_in_last_seating(family: Family) -> list[Player]:
    """The family's players as a new game offers them: the last game's table (the newest game, as for
    its rules) in its seating order
    (clockwise from its first seat), then everyone else by name. Players ticked in this order sit in
    it, so the same table needs no moving."""
    players = family_players(family)
    last = db.session.execute(
        db.select(Game.id).where(Game.family_id == family.id).order_by(Game.id.desc()).limit(1)
    ).scalar()
    seated = [] if last is None else list(db.session.execute(
        db.select(Seat.player_id).where(Seat.game_id == last).order_by(Seat.position)).scalars())
    order = {player_id: position for position, player_id in enumerate(seated)}
    return sorted(players, key=lambda p: (order.get(p.id, len(order)), p.name))


def last_rules_key(family: Family) -> str | None:
    """The rules key of the family's newest game: a new game starts with it chosen."""
    return db.session.execute(
        db.select(Game.variant_key).where(Game.family_id == family.id).order_by(Game.id.desc()).limit(1)
    ).scalar()


def next_first_dealer(game: Game) -> Player:
    """Who deals first if ``game``'s table plays again (``play_again``)."""
    return game.seats[rules.next_game_first_dealer(game.first_dealer, len(game.seats))].player


def play_again(game: Game) -> Game:
    """A new game of a finished one's rules (its own copy) and seats, the first deal one seat on."""
    if game.status != FINISHED:
        raise RuleError("Only a finished game can be played again.")
    seating = [SeatChoice(player_id=seat.player_id) for seat in game.seats]
    family = db.session.get(Family, game.family_id)
    first = rules.next_game_first_dealer(game.first_dealer, len(seating))
    return start_game(family, game.variant, seating, first, game.skip_first_hand)


def abandon_game(game: Game) -> None:
    """Stop a game for good: it stays in the history and leaves the records."""
    if game.status == ABANDONED:
        raise RuleError("This game is already abandoned.")
    game.status, game.finished_at = ABANDONED, utcnow()
    refresh_summary(game)
    commit_for(game.family_id)


def delete_game(game: Game) -> None:
    """Remove a game with all its hands, its summary, its ratings and its part in the kept statistics."""
    finished = game.status == FINISHED
    db.session.execute(db.delete(PlayerGame).where(PlayerGame.game_id == game.id))
    ratings.rate_from(game.family_id, game.started_at, game.id)  # the later games, without this one
    db.session.execute(db.delete(RoundChange).where(RoundChange.game_id == game.id))
    db.session.execute(db.delete(ShareLink).where(ShareLink.game_id == game.id))
    db.session.delete(game)
    db.session.flush()
    if finished:
        kept.rebuild(game.family_id)
    else:
        kept.rename_rules(game.family_id)
    commit_for(game.family_id)
