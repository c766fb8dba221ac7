"""Scores written on paper: the totals a hand could leave, the scores of going out, and a round
typed as one number per player read back into hands.

A paper sheet (or a spreadsheet kept at home) has no cards, only each player's points for the
round. The player who went out is the one with a going-out score (0, or the bonus); everyone
else's number must be one that cards left in a hand can add up to under these rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .figures import minus
from .results import Hand
from .scoring import card_totals, why_no_cards_make
from .variants import Variant

__all__ = ["PaperRound", "card_totals", "going_out_scores", "left_code", "lowest_left", "read_round"]


def going_out_scores(variant: Variant, number: int) -> dict[int, str]:
    """The scores of going out in round ``number``, each with the bonus code it carries ("" for
    going out plainly): ``{0: ""}``, or ``{0: "", -25: "blind", -50: "blind-no-joker"}``."""
    base = variant.going_out_points(number)
    scores = {base: ""}
    for bonus in variant.bonuses:
        if not bonus.anyone:
            scores.setdefault(base + bonus.points, bonus.code)
    return scores


def left_code(variant: Variant, number: int, score: int, totals=None) -> str | None:
    """The bonus code a score of a player who did not go out carries ("" for cards alone, a
    named event's code when its bonus is in the score), or ``None`` when no hand makes it.
    ``totals``: the round's ``card_totals``, when the caller has them."""
    totals = totals or card_totals(variant, number)
    if score in totals:
        return ""
    return next((b.code for b in variant.bonuses if b.anyone and score - b.points in totals), None)


def lowest_left(variant: Variant, number: int) -> int:
    """The lowest score a player who did not go out can have (a named event's bonus may take it below 0)."""
    return card_totals(variant, number).low + min([0] + [b.points for b in variant.bonuses if b.anyone])


@dataclass
class PaperRound:
    """One round read from paper: the hands (``player_id`` is the seat), who went out, and what
    is wrong, by seat. ``ask`` holds the seats to choose from when the scores do not say who
    went out (nobody, or several players, has a going-out score)."""

    hands: list[Hand]
    out: int | None
    ask: list[int] = field(default_factory=list)
    problems: dict[int, str] = field(default_factory=dict)

    def __bool__(self) -> bool:  # a round that can be recorded
        return self.out is not None and not self.problems


def read_round(
    variant: Variant, number: int, scores: Sequence[int | None], out: int | None = None
) -> PaperRound:
    """Hands from the scores written for round ``number``, seat by seat (``None``: nothing
    written). ``out`` is the seat marked as having gone out (a tap, or an answer to ``ask``);
    without it, the one seat with a going-out score went out."""
    going_out = going_out_scores(variant, number)
    totals = card_totals(variant, number)
    if out is None:
        candidates = [seat for seat, score in enumerate(scores) if score in going_out]
        if len(candidates) == 1:
            out = candidates[0]
    result = PaperRound([], out)
    if out is None:
        result.ask = candidates or list(range(len(scores)))
    shown = ", ".join(minus(s) for s in going_out)
    for seat, score in enumerate(scores):
        if seat == out:
            if score is not None and score not in going_out:
                result.problems[seat] = f"went out, so scores {shown}, not {minus(score)}"
            code = going_out.get(score, "") if score is not None else ""
            result.hands.append(Hand(seat, went_out=True, laid_down=True, bonus_code=code))
        elif out is None and score in going_out:
            result.hands.append(Hand(seat))  # one of the players to ask about
        elif score is None:
            if out is not None:  # while asking, a blank may be the player who went out
                result.problems[seat] = "no score written"
            result.hands.append(Hand(seat))
        elif (code := left_code(variant, number, score, totals)) is None:
            result.problems[seat] = _impossible(variant, number, score, going_out, out)
            result.hands.append(Hand(seat))
        else:
            bonus = sum(b.points for b in variant.bonuses if b.code == code)
            result.hands.append(Hand(seat, laid_down=True, hand_total=score - bonus, bonus_code=code))
    return result


def _impossible(variant: Variant, number: int, score: int, going_out: dict[int, str], out: int | None) -> str:
    if score in going_out and out is not None:
        return f"{minus(score)} is a going-out score, and another player went out"
    why = why_no_cards_make(variant, number, score)
    return f"{minus(score)} is not a score cards left in a hand can make: {why}"
