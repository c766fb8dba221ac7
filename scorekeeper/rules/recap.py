"""The game-night recap of a finished game: who won and by how much, who went out in each round,
who was stuck most, the family records set that evening, and a short plain-text summary for the
family's group chat. Plain data in, a small dataclass out: the standings page and its Share
button read the same figures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from .results import leaders, running_totals

MINUS = "\u2212"  # a real minus sign: a hyphen reads as a dash in a chat message


@dataclass(frozen=True)
class RoundPlay:
    """One scored round, seat by seat."""

    number: int
    points: Sequence[int]
    went_out: Sequence[bool]
    laid_down: Sequence[bool]


@dataclass(frozen=True)
class NightRecord:
    """A family record now held by a game of that evening."""

    title: str  # as the records page names it: "Lowest final score"
    player: str
    value: int
    rules_name: str | None = None  # a score record holds within one rule set
    game_id: int | None = None


@dataclass(frozen=True)
class BestHand:
    """Who went out in a round, and what that hand scored (0, or a going-out bonus)."""

    round_number: int
    name: str
    points: int


@dataclass(frozen=True)
class Recap:
    """What the standings page tells of a finished game, and what Share sends."""

    rules_name: str
    played_on: date
    winners: tuple[str, ...]  # several on a shared win
    winning_total: int
    runners_up: tuple[str, ...]  # the next lowest total; empty when everyone shares the win
    margin: int | None  # points between the winners and the runners-up
    best_hands: tuple[BestHand, ...]
    stuck_most: tuple[str, ...]  # empty when nobody was stuck
    stuck_hands: int  # hands each of them ended stuck
    records: tuple[NightRecord, ...] = ()

    @property
    def shared(self) -> bool:
        return len(self.winners) > 1

    @property
    def title(self) -> str:
        """The share sheet's title: ``"Game night, Sat 21 Nov 2026"``."""
        return f"Game night, {day_text(self.played_on)}"

    @property
    def text(self) -> str:
        return share_text(self)


def game_recap(
    names: Sequence[str],
    rounds: Sequence[RoundPlay],
    rules_name: str,
    played_on: date,
    records: Sequence[NightRecord] = (),
) -> Recap:
    """The recap of a finished game of ``names`` (seat order) over its scored ``rounds``: lowest
    total wins, ties share; the margin is to the next lowest total."""
    totals = running_totals([r.points for r in rounds], len(names))[-1] if rounds else [0] * len(names)
    won = leaders(totals)
    others = [total for seat, total in enumerate(totals) if seat not in won]
    low = totals[won[0]] if won else 0
    next_low = min(others) if others else None
    stuck = [sum(not (r.laid_down[seat] or r.went_out[seat]) for r in rounds) for seat in range(len(names))]
    most = max(stuck, default=0)
    return Recap(
        rules_name=rules_name,
        played_on=played_on,
        winners=tuple(names[seat] for seat in won),
        winning_total=low,
        runners_up=tuple(names[seat] for seat, total in enumerate(totals) if total == next_low),
        margin=None if next_low is None else next_low - low,
        best_hands=tuple(
            BestHand(r.number, names[seat], r.points[seat])
            for r in rounds for seat in range(len(names)) if r.went_out[seat]
        ),
        stuck_most=tuple(names[seat] for seat, n in enumerate(stuck) if most and n == most),
        stuck_hands=most,
        records=tuple(records),
    )


def share_text(recap: Recap) -> str:
    """A few short lines for a group chat::

        Shanghai Rummy (family rules, 7 hands) · Sat 21 Nov 2026
        Ann wins with 85, 20 ahead of Bob.
        Best hands: R2 Ann, R3 Bob (−25), R4 Cy.
        Stuck most: Cy (3 hands).
        Record: lowest final score, Ann 85.
    """
    lines = [f"{recap.rules_name} · {day_text(recap.played_on)}", _result_line(recap)]
    if recap.best_hands:
        hands = ", ".join(
            f"R{h.round_number} {h.name}" + (f" ({signed(h.points)})" if h.points else "") for h in recap.best_hands
        )
        lines.append(f"Best hands: {hands}.")
    lines.append(f"Stuck most: {stuck_text(recap)}." if recap.stuck_most else "Nobody stuck.")
    if recap.records:
        label = "Record" if len(recap.records) == 1 else "Records"
        lines.append(f"{label}: " + "; ".join(_record_text(r, recap.rules_name) for r in recap.records) + ".")
    return "\n".join(lines)


def _result_line(recap: Recap) -> str:
    who = f"{joined(recap.winners)} share the win" if recap.shared else f"{recap.winners[0]} wins"
    ahead = f", {recap.margin} ahead of {joined(recap.runners_up)}" if recap.runners_up else ""
    return f"{who} with {signed(recap.winning_total)}{ahead}."


def _record_text(record: NightRecord, rules_name: str) -> str:
    title = record.title[:1].lower() + record.title[1:]
    if record.rules_name and record.rules_name != rules_name:
        title += f" under {record.rules_name}"
    return f"{title}, {record.player} {signed(record.value)}"


def stuck_text(recap: Recap) -> str:
    """``"Cy (3 hands)"``, or ``"Bob & Cy (2 hands each)"`` on a tie."""
    hands = f"{recap.stuck_hands} hand{'' if recap.stuck_hands == 1 else 's'}"
    each = " each" if len(recap.stuck_most) > 1 else ""
    return f"{joined(recap.stuck_most)} ({hands}{each})"


def joined(names: Sequence[str]) -> str:
    """``"Ann"``, ``"Ann & Bob"``, ``"Ann, Bob & Cy"``."""
    return " & ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} & {names[-1]}"


def signed(points: int) -> str:
    """Points with a real minus sign: ``"−25"``."""
    return str(points).replace("-", MINUS)


def day_text(day: date) -> str:
    """``"Sat 21 Nov 2026"``, as the standings page dates a game."""
    return day.strftime("%a %d %b %Y")
