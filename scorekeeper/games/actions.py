"""Actions a phone queued at the table - buys, take-backs, Down marks, hands, edits and undo -
read, checked by the rules core and applied once each, in the order the phone sends them.

Each action names the version of its round the phone last knew, counting its own earlier
actions (``base``). Buys and marks add to whatever is stored, so they apply whatever the version;
a hand or an undo applies only to the version it was made for, and otherwise answers with a
conflict holding both versions, for the family to choose. An action sent again (a lost answer,
a restarted server) is found by its id and answers as it did the first time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import rules
from ..extensions import db
from ..families import SUBMISSION_KEY, RuleError, once, submitted
from ..models import MAX_ID, Game, GameRound, Member, RoundChange
from .hands import record_round, undo_last_round
from .plan import state_of
from .service import StaleEntry, buy, round_of, set_laid_down, undo_buy

KINDS = ("buy", "unbuy", "down", "hand", "undo")
MOST_COUNT = 1_000  # cards of one kind, buys: far above any rules allowed, below any overflow
MOST_TOTAL = 10_000_000


class Unreadable(ValueError):
    """An action the phone could not have made; nothing was applied."""


@dataclass
class Action:
    id: str
    kind: str
    round: int
    base: int
    player: int | None = None
    laid_down: bool = False
    hands: list[rules.Hand] = field(default_factory=list)


@dataclass
class Answer:
    """What the phone is told: ``applied`` (or ``refused`` with the reason, or ``conflict``), the
    game's state now, and for an applied action the round's version after it."""

    status: str
    state: dict
    reason: str = ""
    outcome: dict | None = None
    by: str = ""

    @property
    def http_status(self) -> int:
        return {"applied": 200, "conflict": 409}.get(self.status, 422)

    def as_json(self) -> dict:
        body = {"status": self.status, "state": self.state}
        if self.reason:
            body["reason"] = self.reason
        if self.outcome is not None:
            body["outcome"] = self.outcome
        if self.by:
            body["by"] = self.by
        return body


def _whole(value, low: int, high: int, what: str) -> int:
    if type(value) is not int or not low <= value <= high:
        raise Unreadable(f"{what} is not a number this game can hold.")
    return value


def read_action(data, game: Game) -> Action:
    """The action in a phone's JSON, every field checked for type and size; ``Unreadable`` otherwise."""
    if not isinstance(data, dict):
        raise Unreadable("This entry could not be read.")
    key, kind = data.get("id"), data.get("kind")
    if not isinstance(key, str) or not SUBMISSION_KEY.fullmatch(key):
        raise Unreadable("This entry has no id the server can keep.")
    if kind not in KINDS:
        raise Unreadable("This entry is not one the table makes.")
    action = Action(key, kind, _whole(data.get("round"), 1, MAX_ID, "The round"),
                    _whole(data.get("base"), 0, MAX_ID, "The round's version"))
    if kind in ("buy", "unbuy", "down"):
        action.player = _whole(data.get("player"), 1, MAX_ID, "The player")
        action.laid_down = data.get("laid_down") is True
    elif kind == "hand":
        action.hands = _hands(data.get("hands"), game)
    return action


def _hands(raw, game: Game) -> list[rules.Hand]:
    seats = {seat.player_id for seat in game.seats}
    if not isinstance(raw, list) or len(raw) != len(seats):
        raise Unreadable("Every seated player's hand is needed, once.")
    variant = game.variant
    codes = {key.code for key in variant.keys}
    out_codes = {b.code for b in variant.bonuses if not b.anyone}
    event = next((b for b in variant.bonuses if b.anyone), None)
    hands = []
    for item in raw:
        if not isinstance(item, dict):
            raise Unreadable("A hand could not be read.")
        player = _whole(item.get("player"), 1, MAX_ID, "The player")
        counts = item.get("counts") or {}
        if player not in seats or not isinstance(counts, dict) or not set(counts) <= codes:
            raise Unreadable("A hand names a player or a card this game does not have.")
        total = item.get("total")
        bonus = item.get("bonus") or ""
        if bonus and bonus not in out_codes:
            raise Unreadable("A hand names a bonus these rules do not have.")
        went_out = item.get("went_out") is True
        hands.append(rules.Hand(
            player_id=player, went_out=went_out, laid_down=item.get("laid_down") is True,
            buys=_whole(item.get("buys", 0), 0, MOST_COUNT, "Buys"),
            counts={code: _whole(n, 0, MOST_COUNT, "A card count") for code, n in counts.items() if n},
            hand_total=None if total is None else _whole(total, 0, MOST_TOTAL, "A total"),
            bonus_code=" ".join(c for c in (bonus if went_out else "", event.code if event and item.get("event") is True
                                                                           else "") if c),
        ))
    if len({hand.player_id for hand in hands}) != len(hands):
        raise Unreadable("Every seated player's hand is needed, once.")
    return hands


def apply_action(game: Game, action: Action, by: Member | str) -> Answer:
    """Apply ``action`` once: the answer the phone gets (its state after, whatever happened)."""
    earlier = submitted(game.family_id, action.id)
    if earlier is not None:  # sent again: the first answer was lost on the way
        return Answer("applied", state_of(game), outcome=earlier.outcome)
    try:
        round_ = round_of(game, action.round)
    except RuleError as error:
        return Answer("refused", state_of(game), str(error))
    version = round_.version
    outcome = {"round": action.round, "after": version + 1, "base_ok": version == action.base}
    if action.kind in ("hand", "undo") and version != action.base:
        return _conflict(game, round_)
    try:
        earlier = once(game.family_id, action.id, lambda: _write(game, action, by), game_id=game.id,
                       outcome=outcome, checked=True)
    except StaleEntry:  # another phone changed the round between reading it and writing
        db.session.rollback()
        return _conflict(game, round_of(game, action.round))
    except RuleError as error:
        db.session.rollback()
        return Answer("refused", state_of(game), str(error))
    return Answer("applied", state_of(game), outcome=earlier.outcome if earlier is not None else outcome)


def _write(game: Game, action: Action, by: Member | str) -> None:
    if action.kind == "buy":
        buy(game, action.round, action.player)
    elif action.kind == "unbuy":
        undo_buy(game, action.round, action.player)
    elif action.kind == "down":
        set_laid_down(game, action.round, action.player, action.laid_down)
    elif action.kind == "hand":
        record_round(game, action.round, action.hands, action.base, by=by)
    else:
        undo_last_round(game, action.round, by=by)


def _conflict(game: Game, round_: GameRound) -> Answer:
    """The round changed on another phone since this one saw it: the state holds their version."""
    change = db.session.execute(
        db.select(RoundChange.by).where(RoundChange.game_id == game.id, RoundChange.number == round_.number)
        .order_by(RoundChange.id.desc()).limit(1)
    ).scalar()
    scored = "scored" if round_.recorded_at is not None else "changed"
    return Answer("conflict", state_of(game), f"Round {round_.number} was {scored} on another phone meanwhile.",
                  by=change or "")
