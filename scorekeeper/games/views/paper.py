"""A game from a paper score sheet: one grid of every round not yet scored, saved at once."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for

from ...families import RuleError
from ...models import ABANDONED
from ...web.access import acting_person, game_or_404
from .. import paper as sheet
from ..forms import PaperForm
from ..table import short_names
from . import bp


@bp.route("/<int:game_id>/paper", methods=["GET", "POST"])
def paper(game_id: int):
    """The grid (GET), then checking every round and saving them together (POST)."""
    game = game_or_404(game_id)
    refused = _refused(game)
    if refused:
        return refused
    form = PaperForm()
    grid = None
    if form.validate_on_submit():
        versions = sheet.posted_versions(request.form)
        grid = sheet.read_grid(game, request.form)
        moved = sheet.moved_rounds(game, versions)
        if moved:
            flash(sheet.moved_message(moved), "error")
        elif grid.ok:
            numbers = [row.round.number for row in grid.rounds]
            try:
                sheet.save_grid(game, grid, versions, by=acting_person(game.family_id))
            except RuleError as error:
                flash(str(error), "error")
                game = game_or_404(game_id)
                refused = _refused(game)
                if refused:
                    return refused
                grid = sheet.read_grid(game, request.form)
            else:
                done = ": the game is over" if game.is_finished else ""
                flash(f"{_numbers(numbers)} saved from the paper sheet{done}.", "success")
                return redirect(url_for("games.standings", game_id=game.id))
    running_hint = grid is not None and sheet.looks_like_running_totals(game, request.form, grid)
    return _grid_page(form, game, grid or sheet.Grid([]), running_hint)


def _refused(game):
    """To the standings, saying why, when the game has no grid: abandoned, or all scored (a
    grid sent twice lands here the second time)."""
    why = sheet.refusal(game)
    if why is None:
        return None
    if request.method == "POST" and sheet.posted_versions(request.form) and game.status != ABANDONED:
        flash("These scores are saved already (a second tap, or another phone): nothing was saved twice.", "success")
    else:
        flash(why, "error")
    return redirect(url_for("games.standings", game_id=game.id))


def _grid_page(form: PaperForm, game, grid: sheet.Grid, running_hint: bool = False):
    players = game.players
    typed = {row.round.number: row for row in grid.rounds}
    rows = [typed.get(r.number) or sheet.GridRound(r, [""] * len(players), "") for r in sheet.open_rounds(game)]
    # Round by round, as the grid reads: the round's own problems first, then its cells'.
    summary = []
    for row in rows:
        number = row.round.number
        summary += [(f"round-{number}", f"Round {number}: {note}") for note in row.notes]
        summary += [(f"r{number}-p{players[seat].id}", f"Round {number}, {players[seat].name}: {why}")
                    for seat, why in sorted(row.problems.items())]
    return render_template(
        "games/paper.html",
        form=form,
        game=game,
        variant=game.variant,
        players=players,
        short=short_names([p.name for p in players]) if len(players) > 4 else None,
        rows={row.round.number: row for row in rows},
        going_out={r.number: sheet.going_out_text(game, r.number) for r in game.rounds},
        # Running totals fall by a going-out bonus, so they need a minus sign where points do.
        inputmode="text" if sheet.needs_minus(game) else "numeric",
        summary=summary,
        running=grid.sheet == sheet.RUNNING,
        running_hint=running_hint,
        scored_totals=sheet.scored_totals(game),
    )


def _numbers(numbers: list[int]) -> str:
    if len(numbers) == 1:
        return f"Round {numbers[0]}"
    return f"Rounds {numbers[0]}–{numbers[-1]}"
