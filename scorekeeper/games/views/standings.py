"""After a hand: the standings with the change history, taking the last hand back, and
abandoning or deleting a game."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for

from ...families import RuleError
from ...history import ratings
from ...history.charts import line_chart
from ...models import FINISHED
from ...rules.ratings import MEANING
from ...web.access import acting_person, game_or_404, is_member, keeper_page
from ...web.page_cache import cached_page
from .. import service as games
from ..chances import chances_for
from ..hands import round_changes, undo_last_round
from ..recap import night_recap
from ..table import short_names
from ..table import standings as standings_of
from . import bp


@bp.get("/<int:game_id>/standings")
@keeper_page
@cached_page
def standings(game_id: int):
    game = game_or_404(game_id)
    table = standings_of(game)
    scored = [row for row in table.rows if row.cells]
    chart = line_chart(
        [(p.name, [row.cells[i].running_total for row in scored]) for i, p in enumerate(table.players)],
        [str(row.round.number) for row in scored],
        x_title="Round",
        y_title="Running total",
        label="Running totals by round",
    ) if len(scored) > 1 else None
    return render_template(
        "games/standings.html",
        game=game,
        variant=game.variant,
        standings=table,
        # Beyond four players the table is compact: names cut where they would not fit.
        short=short_names([p.name for p in table.players]) if len(table.players) > 4 else None,
        chart=chart,
        changes=round_changes(game),
        chances=chances_for(game),
        rating_changes=ratings.game_changes(game.id) if table.finished else {},
        rating_meaning=MEANING,
        # A score keeper's link sees its one game, whoever is signed in: the records stay with the family.
        recap=night_recap(game, with_records=is_member()) if table.finished else None,
        next_dealer=games.next_first_dealer(game) if game.status == FINISHED else None,
    )


@bp.post("/<int:game_id>/undo")
@keeper_page
def undo(game_id: int):
    game = game_or_404(game_id)
    try:
        round_ = undo_last_round(game, request.form.get("number", type=int), by=acting_person(game.family_id))
    except RuleError as error:
        flash(str(error), "error")
        return redirect(url_for("games.standings", game_id=game.id))
    flash(f"Round {round_.number} is back in play; enter its cards again when the hand ends.", "success")
    return redirect(url_for("games.round_screen", game_id=game.id))


@bp.post("/<int:game_id>/again")
def play_again(game_id: int):
    game = game_or_404(game_id)
    try:
        new = games.play_again(game)
    except RuleError as error:
        flash(str(error), "error")
        return redirect(url_for("games.standings", game_id=game.id))
    dealer = new.seats[new.first_dealer].player.name
    flash(f"A new game: the same rules and seats; {dealer} deals first.", "success")
    return redirect(url_for("games.round_screen", game_id=new.id))


@bp.route("/<int:game_id>/abandon", methods=["GET", "POST"])
def abandon(game_id: int):
    game = game_or_404(game_id)
    if request.method == "POST":
        try:
            games.abandon_game(game)
        except RuleError as error:
            flash(str(error), "error")
        else:
            flash("Game abandoned. It stays in the history and is left out of the records.", "success")
        return redirect(url_for("games.standings", game_id=game.id))
    return render_template("games/confirm.html", game=game, action="abandon")


@bp.route("/<int:game_id>/delete", methods=["GET", "POST"])
def delete(game_id: int):
    game = game_or_404(game_id)
    if request.method == "POST":
        games.delete_game(game)
        flash("Game deleted.", "success")
        return redirect(url_for("history.index"))
    return render_template("games/confirm.html", game=game, action="delete")
