"""A family's history: past games, players, records, head-to-head."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from markupsafe import Markup

from ..families import family_players
from ..house_rules.service import variant_names
from ..models import ABANDONED, FINISHED, IN_PROGRESS, MAX_ID, Player
from ..printing.booklet import WEB_MOST_GAMES
from ..rules.ratings import MEANING
from ..web.access import current_family, family_get_or_404
from ..web.fields import is_number
from ..web.page_cache import LRU, cached_page
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
    """A player's profile: figures, rating, charts and figures per rule set (finished games)."""
    family = current_family()
    person = family_get_or_404(Player, player_id)
    names = variant_names(family)
    # Figures and charts change only with the finished games: a buy or a hand of a game in
    # play redraws the page around the ones already worked out.
    key = ("profile", family.id, family.stats_version, person.id, person.name, tuple(sorted(names.items())))
    drawn = _drawn_once(key, lambda: _profile(family, person, names))
    # The player row is this request's own; a kept one would belong to a closed session.
    figures = dataclasses.replace(drawn["figures"], player=person)
    return render_template("history/player.html", variant_names=names, meaning=MEANING, **{**drawn, "figures": figures})


def _profile(family, person: Player, names: dict[str, str]) -> dict:
    """A profile's figures, its two charts, its rating and the seasons it played in."""
    figures = stats.profile(family, person)
    points = sorted({point for point, *_ in figures.months})
    step = figures.period_name.capitalize() if figures.years_per_point == 1 else "Years"
    # One line per rule set: their scores differ too much to share one.
    averages = {(point, key): average for point, key, average in figures.by_month}
    chart = charts.line_chart(
        [(names.get(row["key"], row["key"]), [averages.get((point, row["key"])) for point in points])
         for row in figures.by_variant],
        points,
        x_title=step,
        y_title="Final score",
        label=f"{person.name}'s average final score by {figures.period_name}",
    )
    years = figures.years_per_point
    rated = ratings.at_ends(family.id, person.id, {point: _period_end(point, years) for point in points})
    rating_chart = charts.line_chart(
        [("Rating", list(rated.values()))],
        list(rated),
        x_title=step,
        y_title="Rating",
        label=f"{person.name}'s rating at the end of each {figures.period_name}",
    ) if len(rated) > 1 else None
    return {"figures": figures, "chart": chart, "rating": list(rated.values())[-1] if rated else 0,
            "rating_chart": rating_chart, "seasons": figures.recent_years}


def _period_end(point: str, years: int = 1) -> datetime:
    """The first moment after a month ("2026-11"), or after ``years`` years from "2026"; the last
    moment there is after the last of them (an imported game may be dated in 9999)."""
    year, month = (int(point) + years - 1, 12) if len(point) == 4 else (int(point[:4]), int(point[5:]))
    if (year, month) >= (datetime.max.year, 12):
        return datetime.max
    return datetime(year + month // 12, month % 12 + 1, 1)


@bp.get("/records")
@cached_page
def records():
    """The family's records and the players' table, with head-to-head for two chosen players."""
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

    def draw() -> Markup:
        figures = seasons.season(family, chosen)
        return Markup(render_template(
            "history/_season_figures.html", season=figures, chart=seasons.rating_chart(figures), meaning=MEANING,
            booklet_most=WEB_MOST_GAMES,
        ))

    figures = _drawn_once(("season", family.id, family.stats_version, chosen.slug), draw)
    return render_template("history/season.html", period=chosen, figures=figures, errors=errors, args=request.args)


def _drawn_once(key: tuple, draw):
    """``draw()``, kept in the app by ``key`` (which holds the family's statistics version): what
    only the finished games decide is worked out once per change of them, not after every buy."""
    if not current_app.config.get("PAGE_CACHE", True):
        return draw()
    return current_app.extensions.setdefault("scorekeeper.history", LRU(128)).fetch(key, draw)

