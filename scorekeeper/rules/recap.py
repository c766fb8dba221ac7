"""The game-night recap of a finished game: who won and by how much, who went out and how often,
the biggest hand caught, who was stuck most, the family records set that evening, and a short
plain-text summary for the family's group chat. Plain data in, a small dataclass out: the
standings page and its Share button read the same figures."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from .figures import minus
from .results import leaders, running_totals


@dataclass(frozen=True)
class RoundPlay:
    """One scored round, seat by seat. ``marked``: played at the table, so its laid-down marks
    say who was stuck (a hand typed from paper or a spreadsheet does not say)."""

    number: int
    points: Sequence[int]
    went_out: Sequence[bool]
    laid_down: Sequence[bool]
    marked: bool = True


@dataclass(frozen=True)
class NightRecord:
    """A family record now held by a game of that evening."""

    title: str  # as the records page names it: "Lowest final score"
    player: str
    value: int
    rules_name: str | None = None  # a score record holds within one rule set
    game_id: int | None = None


@dataclass(frozen=True)
class WentOut:
    """How often one player went out, in which rounds, and the going-out bonuses they scored
    (round number, points) where the rules give one."""

    name: str
    rounds: tuple[int, ...]
    bonuses: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Place:
    """A player's finishing place: equal totals share a place, and the next place is skipped
    (1st, 2nd, 2nd, 4th), as a family table ranks."""

    place: int
    seat: int
    name: str
    total: int

    @property
    def ordinal(self) -> str:
        """``"1st"``, ``"2nd"``, ``"3rd"``, ``"4th"`` … ``"11th"``."""
        suffix = "th" if 10 <= self.place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(self.place % 10, "th")
        return f"{self.place}{suffix}"


@dataclass(frozen=True)
class Catch:
    """A round's hand caught with the most points: who held it, and who went out on them."""

    round_number: int
    name: str
    points: int
    went_out: str


@dataclass(frozen=True)
class Recap:
    """What the standings page tells of a finished game, and what Share sends."""

    rules_name: str
    played_on: date
    winners: tuple[str, ...]  # several on a shared win
    winning_total: int
    runners_up: tuple[str, ...]  # the next lowest total; empty when everyone shares the win
    margin: int | None  # points between the winners and the runners-up
    places: tuple[Place, ...]  # every player, lowest total first
    went_out: tuple[WentOut, ...]  # most often first
    biggest_catch: Catch | None  # None when every hand left was 0 or less
    stuck_most: tuple[str, ...]  # empty when nobody was stuck
    stuck_hands: int  # hands each of them ended stuck
    marked_hands: int  # hands that say who laid down (played at the table): stuck is counted in these
    hands: int
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
    marked = [r for r in rounds if r.marked]
    stuck = [sum(not (r.laid_down[seat] or r.went_out[seat]) for r in marked) for seat in range(len(names))]
    most = max(stuck, default=0)
    return Recap(
        rules_name=rules_name,
        played_on=played_on,
        winners=tuple(names[seat] for seat in won),
        winning_total=low,
        runners_up=tuple(names[seat] for seat, total in enumerate(totals) if total == next_low),
        margin=None if next_low is None else next_low - low,
        places=_places(names, totals),
        went_out=_went_out(names, rounds),
        biggest_catch=_biggest_catch(names, rounds),
        stuck_most=tuple(names[seat] for seat, n in enumerate(stuck) if most and n == most),
        stuck_hands=most,
        marked_hands=len(marked),
        hands=len(rounds),
        records=tuple(records),
    )


def _places(names: Sequence[str], totals: Sequence[int]) -> tuple[Place, ...]:
    """Every player by final total, lowest first (seat order among equals)."""
    order = sorted(range(len(names)), key=lambda seat: (totals[seat], seat))
    return tuple(Place(1 + sum(t < totals[seat] for t in totals), seat, names[seat], totals[seat]) for seat in order)


def _went_out(names: Sequence[str], rounds: Sequence[RoundPlay]) -> tuple[WentOut, ...]:
    """Who went out, most often first (then in seat order)."""
    found = []
    for seat, name in enumerate(names):
        out = [r for r in rounds if r.went_out[seat]]
        if out:
            bonuses = tuple((r.number, r.points[seat]) for r in out if r.points[seat])
            found.append(WentOut(name, tuple(r.number for r in out), bonuses))
    return tuple(sorted(found, key=lambda w: -len(w.rounds)))


def _biggest_catch(names: Sequence[str], rounds: Sequence[RoundPlay]) -> Catch | None:
    """The most points one hand was caught with; the earlier round where two share it."""
    best = None
    for r in rounds:
        out = next((names[seat] for seat, went in enumerate(r.went_out) if went), "")
        for seat, points in enumerate(r.points):
            if not r.went_out[seat] and points > 0 and (best is None or points > best.points):
                best = Catch(r.number, names[seat], points, out)
    return best


def share_text(recap: Recap) -> str:
    """A few short lines for a group chat::

        Shanghai Rummy (family rules, 7 hands) · Sat 21 Nov 2026
        Ann wins with 85, 20 ahead of Bob.
        Went out: Ann 2 (R2, R4), Bob 1 (R3, −25).
        Biggest catch: Cy 95 in R3, when Bob went out.
        Stuck most: Cy (3 hands).
        Record: lowest final score, Ann 85.
    """
    lines = [f"{recap.rules_name} · {day_text(recap.played_on)}", _result_line(recap)]
    if recap.went_out:
        lines.append(f"Went out: {', '.join(went_out_text(w) for w in recap.went_out)}.")
    if recap.biggest_catch:
        lines.append(f"Biggest catch: {catch_text(recap.biggest_catch)}.")
    lines.append(_stuck_line(recap))
    if recap.records:
        label = "Record" if len(recap.records) == 1 else "Records"
        lines.append(f"{label}: " + "; ".join(_record_text(r, recap.rules_name) for r in recap.records) + ".")
    return "\n".join(lines)


def _result_line(recap: Recap) -> str:
    who = f"{joined(recap.winners)} share the win" if recap.shared else f"{recap.winners[0]} wins"
    ahead = f", {recap.margin} ahead of {joined(recap.runners_up)}" if recap.runners_up else ""
    return f"{who} with {minus(recap.winning_total)}{ahead}."


def _record_text(record: NightRecord, rules_name: str) -> str:
    title = record.title[:1].lower() + record.title[1:]
    if record.rules_name and record.rules_name != rules_name:
        title += f" under {record.rules_name}"
    return f"{title}, {record.player} {minus(record.value)}"


def went_out_text(went: WentOut) -> str:
    """``"Ann 2 (R2, R4)"``; a going-out bonus beside its round: ``"Bob 1 (R3, −25)"``."""
    bonus = dict(went.bonuses)
    rounds = ", ".join(f"R{n}" + (f" {minus(bonus[n])}" if n in bonus else "") for n in went.rounds)
    return f"{went.name} {len(went.rounds)} ({rounds})"


def catch_text(catch: Catch) -> str:
    """``"Cy 95 in R3, when Bob went out"``."""
    return f"{catch.name} {minus(catch.points)} in R{catch.round_number}, when {catch.went_out} went out"


def _stuck_line(recap: Recap) -> str:
    if not recap.marked_hands:
        return "Stuck: not recorded (a score sheet does not say who laid down)."
    line = f"Stuck most: {stuck_text(recap)}" if recap.stuck_most else "Nobody stuck"
    return line + ("." if recap.marked_hands == recap.hands else f", in the {recap.marked_hands} hands played "
                   "at the table.")


def stuck_text(recap: Recap) -> str:
    """``"Cy (3 hands)"``, or ``"Bob & Cy (2 hands each)"`` on a tie."""
    hands = f"{recap.stuck_hands} hand{'' if recap.stuck_hands == 1 else 's'}"
    each = " each" if len(recap.stuck_most) > 1 else ""
    return f"{joined(recap.stuck_most)} ({hands}{each})"


def joined(names: Sequence[str]) -> str:
    """``"Ann"``, ``"Ann & Bob"``, ``"Ann, Bob & Cy"``."""
    return " & ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} & {names[-1]}"


def day_text(day: date) -> str:
    """``"Sat 21 Nov 2026"``, as the standings page dates a game."""
    return day.strftime("%a %d %b %Y")
