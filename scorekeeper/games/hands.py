"""Recording a hand, correcting it and taking it back, with the game's change history and its
one-row-per-player summary. The points come from the rules core (``rules.hand_score``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import update

from .. import rules
from ..extensions import db
from ..families import RuleError, commit_for
from ..models import ABANDONED, FINISHED, IN_PROGRESS, TABLE, Game, GameRound, Member, RoundChange, ShareLink, utcnow
from .service import HandRefused, StaleEntry, buy_limits, refuse_if_abandoned, round_of, stored_now
from .summary import mark_changed, refresh_summary

RESULT_FIELDS = ("went_out", "laid_down", "buys", "cards", "hand_total", "bonus_code", "bonus", "points")


def check_hands(game: Game, round_: GameRound, hands: Sequence[rules.Hand]) -> rules.RoundProblems:
    """What the rules refuse in these hands for ``round_``: buys over each player's allowance,
    more cards than a player could hold or than the decks hold, a missing or double going out."""
    players = game.players
    if sorted(hand.player_id for hand in hands) != sorted(p.id for p in players):
        return rules.RoundProblems({}, ["Every seated player's hand is needed, once."])
    problems = rules.round_problems(
        game.variant, round_.rules, game.variant.decks_for(len(players)), hands,
        buy_limits(game, round_), {p.id: p.name for p in players},
    )
    out = rules.going_out_problem(hands)
    if out:
        problems.table.insert(0, out)
    return problems


def record_round(
    game: Game, number: int, hands: Sequence[rules.Hand], version: int, by: Member | str | None = None
) -> GameRound:
    """Store (or correct) a hand's result; ``version`` is what the form was opened with.

    Whoever calls it (card entry, a phone sending a kept hand, a score keeper's link), hands the
    rules refuse are refused here (``check_hands``). A second submission of the same form - a
    double tap, another phone - finds the version moved on and is refused, so a hand is never
    stored twice. ``by`` is who did it, for the game's change history.
    """
    round_ = store_round(game, number, hands, version, by)
    commit_for(game.family_id)
    return round_


def store_round(
    game: Game, number: int, hands: Sequence[rules.Hand], version: int, by: Member | str | None = None,
    source: str = TABLE,
) -> GameRound:
    """``record_round`` without the commit, so several hands can be stored in one transaction
    (a paper sheet): the caller commits (``commit_for``), or rolls back when one is refused.
    ``source`` says how a new hand was recorded (``models.TABLE``, ``PAPER``); a correction keeps
    how the hand was first recorded."""
    refuse_if_abandoned(game)
    round_ = round_of(game, number)
    current = game.current_round
    if round_.recorded_at is None and round_ is not current:
        raise RuleError(f"Round {current.number} comes first.")
    problems = check_hands(game, round_, hands)
    if problems:
        raise HandRefused(f"Round {number} was not saved: {problems.first()}")
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
    stored_now(round_, version=version + 1, recorded_at=stamp)
    if before is None:
        round_.source = source
    variant = game.variant
    by_player = {hand.player_id: hand for hand in hands}
    for result in round_.results:
        hand = by_player[result.player_id]
        points, bonus = rules.hand_score(variant, hand, number)
        result.went_out = hand.went_out
        result.laid_down = hand.laid_down or hand.went_out
        result.buys = hand.buys
        result.cards = "" if hand.went_out or hand.hand_total is not None else rules.cards_text(variant, hand.counts)
        result.hand_total = None if hand.went_out else hand.hand_total
        result.bonus_code = hand.bonus_code
        result.bonus = bonus
        result.points = points
        mark_changed(result, RESULT_FIELDS)
    _log_change(game, round_, "edited" if before else "recorded", before, by)
    _update_status(game)
    return round_


def undo_last_round(game: Game, number: int | None = None, by: Member | str | None = None) -> GameRound:
    """Take the last scored hand back into play; its buys and laid-down marks stay.

    ``number`` is the round the user saw as last: a second tap (or phone) finds it already
    taken back and is refused instead of taking back the round before it.
    """
    refuse_if_abandoned(game)
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
    stored_now(round_, version=round_.version + 1, recorded_at=None)
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
            # The game's links end a day after its first end: an undo does not give them another.
            db.session.execute(
                update(ShareLink)
                .where(ShareLink.game_id == game.id, ShareLink.game_ended_at.is_(None))
                .values(game_ended_at=game.finished_at)
            )
        elif not done and game.status == FINISHED:
            game.status, game.finished_at = IN_PROGRESS, None
    refresh_summary(game)
