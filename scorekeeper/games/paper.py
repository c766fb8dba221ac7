"""A game typed in from a paper score sheet: every round not yet scored on one grid, each read
by the rules core (``rules.paper.read_round``) and checked like any hand (``hands.check_hands``),
then stored together in one transaction, or not at all.

The grid's fields, by name: ``r<round>-p<player id>`` a number as written, ``out-<round>`` the
player tapped as having gone out, ``v-<round>`` the round's version when the grid was drawn, and
``sheet``: ``points`` when the paper has each round's points, ``running`` when it keeps running
totals (each round's number is the total so far, and its points are the difference to the one above).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from .. import rules
from ..extensions import db
from ..families import RuleError, commit_for
from ..models import ABANDONED, FINISHED, PAPER, Game, GameRound, Member, utcnow
from ..rules import paper, typed
from ..rules.figures import minus
from ..rules.typed import is_number
from .hands import check_hands, store_round


@dataclass
class GridRound:
    """One row of the grid: what was typed in it, seat by seat, and what is wrong with it."""

    round: GameRound
    typed: list[str]
    out: str  # the tapped player's id as sent ("" for no tap)
    problems: dict[int, str] = field(default_factory=dict)  # by seat
    notes: list[str] = field(default_factory=list)  # the round's own (who went out...), without "Round N: "
    hands: list[rules.Hand] = field(default_factory=list)  # with the players' ids, when it can be stored
    flagged: set[int] = field(default_factory=set)  # seats a note is about, marked like a problem
    after: list[int | None] = field(default_factory=list)  # each total after the round, on a running-total sheet

    @property
    def ok(self) -> bool:
        return bool(self.hands) and not self.problems and not self.notes


POINTS, RUNNING = "points", "running"  # what the sheet's numbers are: each round's points, or running totals


@dataclass
class Grid:
    rounds: list[GridRound]
    sheet: str = POINTS

    @property
    def ok(self) -> bool:
        return bool(self.rounds) and all(r.ok for r in self.rounds)


def open_rounds(game: Game) -> list[GameRound]:
    """The game's rounds not yet scored, in playing order: the rows the grid asks for."""
    return [r for r in game.rounds if r.recorded_at is None]


def refusal(game: Game) -> str | None:
    """Why this game has no grid to fill: abandoned, or every round scored already."""
    if game.status == ABANDONED:
        return "This game was abandoned; its scores can no longer change."
    if not open_rounds(game):
        return "Every round of this game is scored already, so there is nothing to type in."
    return None


def needs_minus(game: Game) -> bool:
    """Whether a score on the grid can be below zero (a going-out bonus): the phone's keyboard
    must then offer a minus sign."""
    variant = game.variant
    return any(
        min(paper.going_out_scores(variant, r.number)) < 0 or paper.lowest_left(variant, r.number) < 0
        for r in open_rounds(game)
    )


def going_out_text(game: Game, number: int) -> str:
    """The scores of going out in a round, as the grid's rows name them: "0", "0, −25 or −50"."""
    shown = [minus(s) for s in paper.going_out_scores(game.variant, number)]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def parse_score(text: str) -> tuple[int | None, str]:
    """A cell as typed (the forms ``rules.typed.read_whole`` takes, "5.0" among them):
    ``(points, "")``, ``(None, "")`` when blank, ``(None, why)`` when it is not a whole number of points."""
    points, problem = typed.read_whole(text)
    raw = "".join(text.split())
    shown = raw if len(raw) <= 12 else raw[:12] + "…"
    if problem == typed.TOO_BIG:
        return None, f"{shown} is far more than any hand is worth"
    if problem == typed.FRACTION:
        return None, f"write whole points: {shown} is not a whole number"
    if problem:
        return None, f"“{shown}” is not a number of points"
    return points, ""


def read_grid(game: Game, form: Mapping[str, str], sheet: str | None = None) -> Grid:
    """Every open round of the grid read and checked: nothing is stored. ``sheet`` (else the
    form's choice) says whether the numbers are each round's points or running totals."""
    sheet = sheet or (RUNNING if form.get("sheet") == RUNNING else POINTS)
    before = scored_totals(game) if sheet == RUNNING else None
    rows = []
    for round_ in open_rounds(game):
        rows.append(_read_row(game, round_, form, before))
        before = rows[-1].after if before is not None else None
    return Grid(rows, sheet)


def scored_totals(game: Game) -> list[int]:
    """Each player's total after the rounds already scored: where a running-total sheet's grid starts."""
    points = [[r.points for r in round_.results] for round_ in game.rounds if round_.recorded_at is not None]
    return rules.running_totals(points, len(game.players))[-1] if points else [0] * len(game.players)


def looks_like_running_totals(game: Game, form: Mapping[str, str], grid: Grid) -> bool:
    """A grid of points that cannot be read, which reads whole as running totals: the family's
    sheet keeps running totals, and the grid says so rather than saving different numbers."""
    typed = sum(any(text.strip() for text in row.typed) for row in grid.rounds)
    return grid.sheet == POINTS and not grid.ok and typed > 1 and read_grid(game, form, RUNNING).ok


def _read_row(game: Game, round_: GameRound, form: Mapping[str, str], before: list[int | None] | None) -> GridRound:
    players = game.players
    number = round_.number
    typed = [str(form.get(f"r{number}-p{p.id}", ""))[:40] for p in players]
    row = GridRound(round_, typed, str(form.get(f"out-{number}", ""))[:20])
    parsed = [parse_score(text) for text in typed]
    seats = {str(p.id): seat for seat, p in enumerate(players)}
    tapped = seats.get(row.out)
    if before is not None:
        parsed = _running_to_points(game, number, parsed, before, tapped, row)
    if row.out and tapped is None:
        row.notes.append("tap who went out again: that choice is not a player of this game")
    if tapped is None and all(not text.strip() for text in typed):
        row.notes.append("no scores written")
        return row
    scores = [score for score, _ in parsed]
    read = paper.read_round(game.variant, number, scores, tapped)
    row.problems = dict(read.problems)
    if before is not None:  # a running total's problem is about the points it makes this round
        for seat, why in read.problems.items():
            if scores[seat] is not None:
                row.problems[seat] = f"{typed[seat].strip()} is {minus(scores[seat])} this round: {why}"
    for seat, (_, why) in enumerate(parsed):
        if why:
            row.problems[seat] = why
    if read.out is None:
        row.notes.append(_ask(game, number, read.ask, scores))
        going_out = paper.going_out_scores(game.variant, number)
        flagged = {seat for seat in read.ask if scores[seat] in going_out}
        row.flagged = flagged if len(flagged) > 1 else set()  # the cells of "two going-out scores"
        return row
    if row.problems:
        return row
    row.hands = [_with_player(hand, round_, players[hand.player_id].id) for hand in read.hands]
    _check_like_any_hand(game, round_, row)
    return row


def _running_to_points(game: Game, number: int, parsed: list[tuple[int | None, str]], before: list[int | None],
                       tapped: int | None, row: GridRound) -> list[tuple[int | None, str]]:
    """A running-total sheet's row as each player's points this round (the difference to the total
    above), noting the totals after it for the next row."""
    out_points = game.variant.going_out_points(number)
    points = []
    for seat, (total, why) in enumerate(parsed):
        if total is None:
            # A blank under a tapped "out" keeps the total, plus the going-out score.
            after = before[seat] + out_points if seat == tapped and not why and before[seat] is not None else None
            row.after.append(after)
            points.append((None, why))
        elif before[seat] is None:
            row.after.append(total)
            points.append((None, "the total above it is missing, so this round's points cannot be worked out"))
        else:
            row.after.append(total)
            points.append((total - before[seat], ""))
    return points


def _with_player(hand: rules.Hand, round_: GameRound, player_id: int) -> rules.Hand:
    """A hand read from paper as the player's own: their id, and the buys and laid-down mark
    counted on the round screen (a paper sheet has neither)."""
    stored = round_.result_for(player_id)
    return dataclasses.replace(hand, player_id=player_id, buys=stored.buys,
                               laid_down=hand.laid_down or stored.laid_down)


def _check_like_any_hand(game: Game, round_: GameRound, row: GridRound) -> None:
    """The checks every recorded hand passes (``hands.check_hands``), by seat and for the round."""
    problems = check_hands(game, round_, row.hands)
    seats = {p.id: seat for seat, p in enumerate(game.players)}
    for player_id, messages in problems.players.items():
        if messages:
            row.problems[seats[player_id]] = " ".join(messages)
    row.notes.extend(problems.table)
    if row.problems or row.notes:
        row.hands = []


def _ask(game: Game, number: int, ask: list[int], scores: list[int | None]) -> str:
    """The round's message when the scores do not say who went out."""
    going_out = going_out_text(game, number)
    named = [game.players[seat].name for seat in ask if scores[seat] in paper.going_out_scores(game.variant, number)]
    if len(named) > 1:
        return (f"{' and '.join(named)} each have a going-out score ({going_out}), but only one player "
                "goes out: tap who did, and correct the other score")
    return f"nobody has a going-out score ({going_out}): tap who went out"


def posted_versions(form: Mapping[str, str]) -> dict[int, int]:
    """The round versions the grid was drawn with: round number -> version."""
    versions = {}
    for name in form:
        number, value = name[2:], str(form.get(name, ""))
        if name.startswith("v-") and is_number(number) and is_number(value):
            versions[int(number)] = int(value)
    return versions


def moved_rounds(game: Game, versions: Mapping[int, int]) -> list[GameRound]:
    """The rounds that changed since the grid was drawn: a buy, a score or an undo on another
    phone, or the same grid saved a moment ago."""
    moved = []
    for round_ in game.rounds:
        on_grid = round_.number in versions
        if round_.recorded_at is None and versions.get(round_.number) != round_.version:
            moved.append(round_)
        elif round_.recorded_at is not None and on_grid:
            moved.append(round_)
    return moved


def moved_message(moved: list[GameRound]) -> str:
    """What the grid says when ``moved_rounds`` found some."""
    numbers = _numbers([r.number for r in moved])
    scored = [r.number for r in moved if r.recorded_at is not None]
    shows = "shows its" if len(scored) == 1 else "show their"
    also = f" {_numbers(scored)} now {shows} stored points." if scored else ""
    return (f"{numbers} changed on another phone (or with another tap) while you were typing, so nothing "
            f"was saved yet.{also} What you typed is kept below: check it and save again.")


def save_grid(game: Game, grid: Grid, versions: Mapping[int, int], by: Member | str | None = None) -> None:
    """Store every round of a valid grid, in playing order, in one transaction; a round changed
    meanwhile (its version moved on) refuses them all, so a sheet is never stored twice."""
    if not grid.ok:
        raise RuleError("The grid has problems; nothing was saved.")
    try:
        for row in grid.rounds:
            store_round(game, row.round.number, row.hands, versions.get(row.round.number, -1), by, source=PAPER)
    except RuleError:
        db.session.rollback()  # the rounds stored before the refused one go too
        raise RuleError(
            "Another phone (or another tap) changed this game while you were typing, so nothing was saved. "
            "What you typed is kept below: check it and save again."
        ) from None
    if game.status == FINISHED:
        game.finished_at = finishing_time(game)
    commit_for(game.family_id)


def _numbers(numbers: list[int]) -> str:
    if len(numbers) == 1:
        return f"Round {numbers[0]}"
    return f"Rounds {', '.join(map(str, numbers[:-1]))} and {numbers[-1]}"


# About how long a hand takes at the table: a game dated in the past ends this long after it began.
MINUTES_PER_HAND = 12


def finishing_time(game: Game) -> datetime:
    """When a game typed in from a paper sheet ended: now, or, for a game dated before today, on
    its own day, a few minutes per hand after it began, so the history does not say it ended today."""
    now = utcnow()
    if game.started_at is None or game.started_at.date() >= now.date():
        return now
    return min(now, game.started_at + timedelta(minutes=MINUTES_PER_HAND * len(game.rounds)))
