"""What a hand produces: each player's points (cards left, going out, bonuses), the checks a
hand must pass before it is recorded, running totals, and who leads or won.

Every score in the app comes from here: the card entry, its review, the recorded hand, the
standings, the demo games, score sheets and exports all call these functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .messages import MESSAGES
from .scoring import card_totals, hand_problems, max_hand_points, score_keys, table_problems, why_no_cards_make
from .variants import Decks, Round, Variant


def could_hold(variant: Variant, round_: Round, buys: int) -> int:
    """The most cards a player who bought ``buys`` times can hold when ``round_`` ends."""
    return round_.cards_dealt + max(buys, 0) * variant.cards_per_buy


@dataclass(frozen=True)
class Hand:
    """What one player's end of a hand was: who went out, buys, and the cards left (keypad
    counts) or a total counted by hand."""

    player_id: int
    went_out: bool = False
    laid_down: bool = False
    buys: int = 0
    counts: Mapping[str, int] = field(default_factory=dict)
    hand_total: int | None = None
    bonus_code: str = ""  # codes of the bonuses earned, space-separated

    @property
    def held(self) -> int:
        return sum(n for n in self.counts.values() if n > 0)


def hand_score(variant: Variant, hand: Hand, round_number: int) -> tuple[int, int]:
    """``(points, bonus)`` for one player's hand; the points include the bonus (going out, the
    way out, a named event anyone can earn)."""
    codes = hand.bonus_code.split()
    bonus = sum(b.points for b in variant.bonuses if b.code in codes and (b.anyone or hand.went_out))
    if hand.went_out:
        bonus += variant.going_out_points(round_number)
        return bonus, bonus
    if hand.hand_total is not None:
        return hand.hand_total + bonus, bonus
    return score_keys(variant, hand.counts) + bonus, bonus


def cards_text(variant: Variant, counts: Mapping[str, int]) -> str:
    """Keypad counts as the stored card list, in keypad order: ``"5 5 K JK"``."""
    return " ".join(
        " ".join([key.code] * counts.get(key.code, 0)) for key in variant.keys if counts.get(key.code)
    )


def card_counts(cards: str) -> dict[str, int]:
    """A stored card list back as keypad counts."""
    counts: dict[str, int] = {}
    for code in cards.split():
        counts[code] = counts.get(code, 0) + 1
    return counts


@dataclass
class RoundProblems:
    """Why a round's hands cannot be recorded: per player (by id) and for the table as a whole."""

    players: dict[int, list[str]]
    table: list[str]

    def __bool__(self) -> bool:
        return bool(self.table) or any(self.players.values())

    def first(self) -> str:
        return next(iter(self.table + [m for ms in self.players.values() for m in ms]), "")


def round_problems(
    variant: Variant,
    round_: Round,
    decks: Decks,
    hands: Sequence[Hand],
    limits: Mapping[int, int],
    names: Mapping[int, str],
) -> RoundProblems:
    """Everything that makes these hands impossible at the end of ``round_``: buys over a
    player's allowance (``limits``), more cards than a player could hold (cards dealt + buys ×
    cards per buy) or than the decks hold, cards for the player who went out, and no cards or
    total for one who did not (once someone went out: see ``going_out_problem``)."""
    someone_out = any(hand.went_out for hand in hands)
    players = {
        hand.player_id: _hand_problems(
            variant, round_, decks, hand, limits[hand.player_id], names[hand.player_id], someone_out
        )
        for hand in hands
    }
    return RoundProblems(players, table_problems(variant, decks, [h.counts for h in hands if not h.went_out]))


def going_out_problem(hands: Sequence[Hand]) -> str | None:
    """A hand ends when exactly one player goes out."""
    out = sum(hand.went_out for hand in hands)
    if out == 1:
        return None
    return MESSAGES["choose_out"] if not out else MESSAGES["one_out"]


def _hand_problems(
    variant: Variant, round_: Round, decks: Decks, hand: Hand, limit: int, name: str, someone_out: bool
) -> list[str]:
    errors = []
    if hand.buys < 0:
        errors.append(MESSAGES["negative_buys"])
    elif hand.buys > limit:
        errors.append(MESSAGES["buys_over"].format(name=name, times=_times(limit)) if limit
                      else MESSAGES["no_buys"].format(name=name))
    if hand.went_out:
        if hand.held or hand.hand_total is not None:
            errors.append(MESSAGES["out_no_cards"].format(name=name))
        return errors
    if hand.held and hand.hand_total is not None:
        errors.append(MESSAGES["cards_and_total"])
    elif not hand.held and hand.hand_total is None and someone_out:
        errors.append(MESSAGES["nothing_entered"].format(name=name))
    if hand.hand_total is not None and not 1 <= hand.hand_total <= max_hand_points(variant, round_):
        errors.append(MESSAGES["total_range"])
    elif hand.hand_total is not None and hand.hand_total not in card_totals(variant, round_.number):
        # A total counted by hand is checked like a paper score: one no cards make is a misreading.
        why = why_no_cards_make(variant, round_.number, hand.hand_total)
        errors.append(MESSAGES["total_not_made"].format(total=hand.hand_total, number=round_.number, why=why))
    errors.extend(hand_problems(variant, round_, decks, hand.counts))
    held, buys = hand.held, max(hand.buys, 0)
    could = could_hold(variant, round_, buys)
    if could < held <= variant.max_hand(round_):
        bought = f"{buys} buy{'' if buys == 1 else 's'}"
        errors.append(MESSAGES["held_over_buys"].format(
            held=held, name=name, bought=bought, dealt=round_.cards_dealt, per_buy=variant.cards_per_buy, could=could,
        ))
    return errors


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def running_totals(points_by_round: Sequence[Sequence[int]], players: int) -> list[list[int]]:
    """Each scored round's running totals, seat by seat."""
    totals = [0] * players
    rows = []
    for points in points_by_round:
        totals = [total + p for total, p in zip(totals, points)]
        rows.append(totals)
    return rows


def leaders(totals: Sequence[int]) -> list[int]:
    """The seats with the lowest total: the leader, or the winners of a finished game (ties
    share the win)."""
    if not totals:
        return []
    low = min(totals)
    return [seat for seat, total in enumerate(totals) if total == low]
