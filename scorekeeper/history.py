"""A family's history: past games, players, records, head-to-head, export and import."""

from __future__ import annotations

from datetime import date

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    redirect,
    render_template,
    request,
    stream_with_context,
    url_for,
)
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired

from . import charts, services, stats, transfer
from .db import db
from .games import game_or_404
from .models import ABANDONED, FINISHED, IN_PROGRESS, Player
from .services import RuleError
from .speed import cached_page

bp = Blueprint("history", __name__)

STATUS_LABELS = {IN_PROGRESS: "in progress", FINISHED: "finished", ABANDONED: "abandoned"}


def _player_or_404(family, player_id: int) -> Player:
    player = db.session.get(Player, player_id) if 0 < player_id <= services.MAX_ID else None
    if player is None or player.family_id != family.id:
        abort(404)
    return player


def _date_arg(name: str, errors: dict) -> date | None:
    raw = request.args.get(name, "").strip()
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        errors[name] = "Use a date such as 2026-11-22."
        return None


@bp.get("/history")
@cached_page
def index():
    family = services.current_family()
    players = services.family_players(family)
    errors: dict[str, str] = {}
    player_arg = request.args.get("player", "")
    names = services.variant_names(family)
    filters = stats.HistoryFilters(
        player_id=int(player_arg) if services.is_number(player_arg) and int(player_arg) <= services.MAX_ID else None,
        variant_key=request.args.get("preset") if request.args.get("preset") in names else None,
        status=request.args.get("status") if request.args.get("status") in STATUS_LABELS else None,
        date_from=_date_arg("from", errors),
        date_to=_date_arg("to", errors),
    )
    page_arg = request.args.get("page", "1")
    page = int(page_arg) if services.is_number(page_arg) and len(page_arg) < 7 else 1
    result = stats.history(family, filters, page)
    # Links to other pages keep every filter: the URL is the search.
    kept = {k: v for k, v in request.args.items() if k != "page" and v}
    return render_template(
        "history/index.html",
        result=result,
        players=players,
        variant_names=names,
        statuses=STATUS_LABELS,
        args=request.args,
        errors=errors,
        kept=kept,
    )


@bp.get("/players")
@cached_page
def players():
    family = services.current_family()
    return render_template("history/players.html", lines=stats.player_table(family))


@bp.get("/players/<int:player_id>")
@cached_page
def player(player_id: int):
    family = services.current_family()
    person = _player_or_404(family, player_id)
    figures = stats.profile(family, person)
    chart = charts.line_chart(
        [("Average final score", [avg for _, avg, _ in figures.by_month])],
        [month for month, _, _ in figures.by_month],
        x_title="Month",
        y_title="Final score",
        label=f"{person.name}'s average final score by month",
    )
    return render_template(
        "history/player.html", figures=figures, chart=chart, variant_names=services.variant_names(family)
    )


@bp.get("/records")
@cached_page
def records():
    family = services.current_family()
    players = services.family_players(family)
    by_id = {p.id: p for p in players}
    first = by_id.get(request.args.get("a", type=int))
    second = by_id.get(request.args.get("b", type=int))
    duel = None
    if first and second and first != second:
        duel = stats.head_to_head(family, first, second)
    return render_template(
        "history/records.html",
        records=stats.records(family),
        lines=stats.player_table(family),
        players=players,
        first=first,
        second=second,
        duel=duel,
    )


# -- abandon and delete -------------------------------------------------------------------


@bp.route("/games/<int:game_id>/abandon", methods=["GET", "POST"])
def abandon(game_id: int):
    game = game_or_404(game_id)
    if request.method == "POST":
        try:
            services.abandon_game(game)
        except RuleError as error:
            flash(str(error), "error")
        else:
            flash("Game abandoned. It stays in the history and is left out of the records.", "success")
        return redirect(url_for("rounds.standings", game_id=game.id))
    return render_template("history/confirm.html", game=game, action="abandon")


@bp.route("/games/<int:game_id>/delete", methods=["GET", "POST"])
def delete(game_id: int):
    game = game_or_404(game_id)
    if request.method == "POST":
        services.delete_game(game)
        flash("Game deleted.", "success")
        return redirect(url_for("history.index"))
    return render_template("history/confirm.html", game=game, action="delete")


# -- export and import --------------------------------------------------------------------


EXPORTS = {"json": (transfer.export_json, "application/json"), "csv": (transfer.export_csv, "text/csv")}


@bp.get("/export.<any(json, csv):kind>")
def export(kind: str):
    """The family's whole history as a download, written while it is sent."""
    make, mimetype = EXPORTS[kind]
    name = f"scorekeeper-{date.today().isoformat()}.{kind}"
    return Response(
        stream_with_context(make(services.current_family())),
        mimetype=mimetype,
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


class ImportForm(FlaskForm):
    file = FileField("Export file (.json)", validators=[FileRequired("Choose a file to import.")])


@bp.route("/import", methods=["GET", "POST"])
def import_view():
    form = ImportForm()
    if form.validate_on_submit():
        try:
            data = transfer.parse(form.file.data.read())
            added, skipped = transfer.import_data(services.current_family(), data)
        except transfer.TransferError as error:
            form.file.errors.append(f"Nothing was imported: {error}")
        else:
            flash(f"Imported {added} games; {skipped} were already here.", "success")
            return redirect(url_for("history.index"))
    return render_template("history/import.html", form=form)
