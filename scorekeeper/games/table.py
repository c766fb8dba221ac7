"""The standings of a game: per-hand points, running totals and who leads or won, as the round
screen, the standings page, the scoreboard, score sheets and exports show them. The numbers come
from the rules core (``rules.running_totals``, ``rules.leaders``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace

from .. import rules
from ..models import FINISHED, PAPER, SHEET, Game, GameRound, Player, Result


@dataclass
class Cell:
    result: Result
    running_total: int

    @property
    def view(self) -> SimpleNamespace:
        """What the standings table shows of it (``_standings_table.html``)."""
        r = self.result
        return SimpleNamespace(points=r.points, went_out=r.went_out, stuck=r.stuck, run=self.running_total, buys=r.buys)


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

    @property
    def source_note(self) -> str:
        """What the game did not record, for hands not played at the table ("—" where it shows)."""
        scored = [row.round for row in self.rows if row.cells is not None]
        paper = [r.number for r in scored if r.source == PAPER]
        if any(r.source == SHEET for r in scored):
            return "Imported from a spreadsheet: who dealt, buys and laid-down marks were not recorded (—)."
        if not paper:
            return ""
        if len(paper) == len(scored):
            return "Typed in from a paper score sheet: buys and laid-down marks were not recorded (—)."
        listed = f"Round {paper[0]}" if len(paper) == 1 else f"Rounds {', '.join(map(str, paper[:-1]))} and {paper[-1]}"
        return f"{listed} typed in from a paper score sheet: buys and laid-down marks not recorded (—)."


def standings(game: Game) -> Standings:
    """Per-hand points and running totals, and who leads (or won: lowest total, ties shared)."""
    players = game.players
    scored = [r for r in game.rounds if r.recorded_at is not None]
    running = iter(rules.running_totals([[r.points for r in round_.results] for round_ in scored], len(players)))
    rows = []
    for round_ in game.rounds:
        cells = None
        if round_.recorded_at is not None:
            cells = [Cell(result, total) for result, total in zip(round_.results, next(running))]
        rows.append(Row(round_, players[round_.dealer], cells))
    totals = next((row.cells for row in reversed(rows) if row.cells), None)
    totals = [cell.running_total for cell in totals] if totals else [0] * len(players)
    leaders = [players[seat] for seat in rules.leaders(totals)] if scored else []
    return Standings(players, rows, totals, leaders, game.status == FINISHED)


def preview(game: Game, round_: GameRound, hands: Sequence[rules.Hand]) -> list[tuple[int, int, int]]:
    """``(points, bonus, total after)`` for each player if ``hands`` were this round's result:
    what the review shows before a hand is saved (or corrected). The total is the one after this
    round, as the standings show it, even when later rounds are scored (a correction)."""
    scores = [rules.hand_score(game.variant, hand, round_.number) for hand in hands]
    points = [
        [p for p, _ in scores] if r is round_ else [result.points for result in r.results]
        for r in game.rounds
        if r.position <= round_.position and (r is round_ or r.recorded_at is not None)
    ]
    totals = rules.running_totals(points, len(hands))[-1]
    return [(p, bonus, total) for (p, bonus), total in zip(scores, totals)]


def short_names(names: Sequence[str], shortest: int = 3) -> list[str]:
    """Each name as its shortest beginning (``shortest`` letters at least) that no other name of
    the table begins with: Grandma and Grandpa are "Grandm" and "Grandp", Bartholomew "Bar"; a
    name no longer than that stays whole. Where a column or a button is too narrow for a name."""
    short = []
    for name in names:
        length = shortest
        while length < len(name) and any(
            other != name and other[:length].casefold() == name[:length].casefold() for other in names
        ):
            length += 1
        short.append(name[:length].rstrip())
    return short
