"""A family's history: past games, players, records, head-to-head."""

from __future__ import annotations

from datetime import date

from flask import Blueprint, render_template, request

from ..families import family_players
from ..house_rules.service import variant_names
from ..models import ABANDONED, FINISHED, IN_PROGRESS, MAX_ID, Player
from ..web.access import current_family, family_get_or_404
from ..web.fields import is_number
from ..web.page_cache import cached_page
from . import charts, stats
from .records import head_to_head, records_of

bp = Blueprint("history", __name__)

STATUS_LABELS = {IN_PROGRESS: "in progress", FINISHED: "finished", ABANDONED: "abandoned"}




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
    family = current_family()
    players = family_players(family)
    errors: dict[str, str] = {}
    player_arg = request.args.get("player", "")
    names = variant_names(family)
    filters = stats.HistoryFilters(
        player_id=int(player_arg) if is_number(player_arg) and int(player_arg) <= MAX_ID else None,
        variant_key=request.args.get("preset") if request.args.get("preset") in names else None,
        status=request.args.get("status") if request.args.get("status") in STATUS_LABELS else None,
        date_from=_date_arg("from", errors),
        date_to=_date_arg("to", errors),
    )
    page_arg = request.args.get("page", "1")
    page = int(page_arg) if is_number(page_arg) and len(page_arg) < 7 else 1
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
    family = current_family()
    return render_template("history/players.html", lines=stats.player_table(family))


@bp.get("/players/<int:player_id>")
@cached_page
def player(player_id: int):
    family = current_family()
    person = family_get_or_404(Player, player_id)
    figures = stats.profile(family, person)
    names = variant_names(family)
    # One line per rule set: their scores differ too much to share one.
    months = sorted({month for month, _, _ in figures.by_month})
    averages = {(month, key): avg for month, key, avg in figures.by_month}
    chart = charts.line_chart(
        [(names.get(row["key"], row["key"]), [averages.get((month, row["key"])) for month in months])
         for row in figures.by_variant],
        months,
        x_title="Month",
        y_title="Final score",
        label=f"{person.name}'s average final score by month",
    )
    return render_template("history/player.html", figures=figures, chart=chart, variant_names=names)


@bp.get("/records")
@cached_page
def records():
    family = current_family()
    players = family_players(family)
    by_id = {p.id: p for p in players}
    first = by_id.get(request.args.get("a", type=int))
    second = by_id.get(request.args.get("b", type=int))
    duel = None
    if first and second and first != second:
        duel = head_to_head(family, first, second)
    return render_template(
        "history/records.html",
        records=records_of(family),
        lines=stats.player_table(family),
        players=players,
        first=first,
        second=second,
        duel=duel,
    )
