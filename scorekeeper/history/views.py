"""A family's history: past games, players, records, head-to-head."""

from __future__ import annotations

from datetime import date

from flask import Blueprint, abort, redirect, render_template, request, url_for

from ..families import family_players
from ..house_rules.service import variant_names
from ..models import ABANDONED, FINISHED, IN_PROGRESS, MAX_ID, Player
from ..printing.booklet import WEB_MOST_GAMES
from ..rules.ratings import MEANING
from ..web.access import current_family, family_get_or_404
from ..web.fields import is_number
from ..web.page_cache import cached_page
from . import charts, ratings, seasons, stats
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
    lines = stats.player_table(family)
    shown = ratings.shown_now(family.id, [line.player.id for line in lines])
    return render_template("history/players.html", lines=lines, ratings=shown, meaning=MEANING)


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
    rated = ratings.by_month(family.id, person.id)
    rating_chart = charts.line_chart(
        [("Rating", [shown for _, shown in rated])],
        [month for month, _ in rated],
        x_title="Month",
        y_title="Rating",
        label=f"{person.name}'s rating at the end of each month",
    ) if len(rated) > 1 else None
    return render_template(
        "history/player.html", figures=figures, chart=chart, variant_names=names,
        rating=rated[-1][1] if rated else 0, rating_chart=rating_chart, meaning=MEANING,
        seasons=sorted({int(month[:4]) for month, _ in rated}, reverse=True),
    )


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


@bp.get("/seasons")
def seasons_index():
    """The newest season with finished games (this year's before the first)."""
    years = seasons.played_years(current_family())
    return redirect(url_for("history.season", period=years[0] if years else date.today().year))


@bp.get("/seasons/<period>")
@cached_page
def season(period: str):
    """A year (``/seasons/2026``) or any range of days (``/seasons/2026-03-01..2026-06-30``)."""
    chosen = seasons.parse_period(period)
    if chosen is None:
        abort(404, "No such season: use a year such as 2026, or two dates such as 2026-03-01..2026-06-30.")
    errors: dict[str, str] = {}
    if "from" in request.args or "to" in request.args:
        # The form for any range of days: two good dates become the season's own address.
        start, end = _date_arg("from", errors), _date_arg("to", errors)
        for name, value in (("from", start), ("to", end)):
            if value is None and name not in errors:
                errors[name] = "Choose a date."
            elif value is not None and not seasons.within(value):
                errors[name] = f"Choose a day in the years {seasons.FIRST_YEAR} to {seasons.LAST_YEAR}."
        if not errors and start > end:
            errors["to"] = "The last day cannot come before the first."
        if not errors:
            return redirect(url_for("history.season", period=seasons.Period(start, end).slug))
    family = current_family()
    figures = seasons.season(family, chosen)
    chart = seasons.rating_chart(figures)
    return render_template(
        "history/season.html", season=figures, chart=chart, meaning=MEANING, errors=errors, args=request.args,
        booklet_most=WEB_MOST_GAMES,
    )

