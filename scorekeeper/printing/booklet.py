"""The printed yearbook of a season: a cover, the contents with page numbers, the season's table,
charts and records, then every finished game of the season as its filled score sheet, one a page.

It is one WeasyPrint document (``printing/booklet.html``): the contents find their page numbers
with CSS ``target-counter``, and each game's page is drawn by the score sheet's own partial
(``printing/_sheet.html``), its style written once per layout rather than once per game.

The ``ETag`` (and the key of the PDF cache) is the family's data version (which every change to
its games, players or name moves on), the season and the paper (``documents.version_tag``), so it
is known before a game is read: a browser holding this yearbook gets a 304, and a cached one is
sent again, without loading anything.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial

from markupsafe import Markup

from ..extensions import db
from ..games.service import WHOLE_GAME
from ..history import seasons
from ..models import Family, Game
from ..rules.ratings import MEANING
from . import documents

TEMPLATE = "printing/booklet.html"
# Ink for paper: the charts' grid, axes and words, which the app's stylesheet draws on screen.
CHART_STYLE = (
    "<style>text { fill: #000; font-size: 10px; font-family: 'DejaVu Sans', sans-serif; }"
    " .grid { stroke: #bbb; stroke-width: 0.7; } .axis { stroke: #000; stroke-width: 1; }"
    " .axis-title { font-weight: bold; }</style>"
)


@dataclass
class GamePage:
    """One game of the yearbook: its filled sheet and how the contents list it."""

    id: int
    sheet: dict
    layout: str  # the class its sheet's style is written under
    first_of_layout: bool  # this page writes that style
    day: str  # "3 Jan"
    winners: list[str]


# A web request draws a yearbook of at most this many games (about 0.2 s a page, in under a
# minute); the command line has no limit.
WEB_MOST_GAMES = 150


class TooManyGames(documents.PrintError):
    """A yearbook too long to draw while a phone waits."""


def booklet_document(
    family: Family, period: seasons.Period, paper: str, most_games: int | None = None
) -> documents.Document:
    """The season's yearbook, ready to render (or to find in the cache); ``PrintError`` when the
    season has no finished game or the paper is unknown."""
    if paper not in documents.PAPERS:
        raise documents.PrintError(f"Paper must be letter or a4, not '{paper}'.")
    game_ids = seasons.season_games(family, period)
    if not game_ids:
        raise documents.PrintError(f"{family.name} has no finished games in {period.label}.")
    if most_games is not None and len(game_ids) > most_games:
        raise TooManyGames(
            f"{period.label} has {len(game_ids)} finished games; a yearbook from the web holds at most {most_games}. "
            "Choose fewer days at the foot of the season's page, or print it with "
            f"flask --app scorekeeper booklet (no limit there)."
        )
    etag = booklet_tag(family, period, paper)
    name = period.slug.replace("..", "-to-")
    # What the template draws is read only when it is drawn: a cached yearbook reads no game.
    context = {"paper": paper, "games": len(game_ids), "contents": partial(contents, family, period, game_ids)}
    return documents.Document(f"yearbook-{name}.pdf", etag, TEMPLATE, context, apart=True)


def booklet_tag(family: Family, period: seasons.Period, paper: str) -> str:
    """The yearbook's ``ETag`` and the key of its PDF in the cache: known before a game is read."""
    return documents.version_tag("booklet", family, period.slug, paper)


def contents(family: Family, period: seasons.Period, game_ids: list[int]) -> dict:
    """Everything the yearbook shows."""
    figures = seasons.season(family, period)
    games = load_games(family, game_ids)
    return {
        "family": family.name,
        "season": figures,
        "first_day": games[0].started_at.date(),
        "last_day": games[-1].started_at.date(),
        "players": len(figures.lines),
        "rating_chart": rating_chart(figures),
        "wins": bars([(line.player.name, line.wins) for line in figures.lines if line.wins]),
        "by_month": bars(games_by_month(games, period)),
        "meaning": MEANING,
        "records": figures.records,
        "in_book": set(game_ids),
        "games": game_pages(family, games),
    }


def load_games(family: Family, game_ids: list[int]) -> list[Game]:
    """The games with their seats, rounds and results: a fixed number of queries for any count."""
    games = db.session.execute(
        db.select(Game).where(Game.family_id == family.id, Game.id.in_(game_ids)).options(*WHOLE_GAME)
    ).unique().scalars().all()
    order = {game_id: index for index, game_id in enumerate(game_ids)}
    return sorted(games, key=lambda game: order[game.id])


def game_pages(family: Family, games: list[Game]) -> list[GamePage]:
    """Each game's filled sheet, grouped by layout (rounds, players, widest number) for its style."""
    pages, layouts = [], {}
    for game in games:
        sheet = documents.filled_sheet(game, family.name)
        key = (len(sheet["rows"]), len(sheet["players"]), sheet["widest"])
        first = key not in layouts
        layout = layouts.setdefault(key, f"layout-{len(layouts) + 1}")
        day = game.started_at.date()
        pages.append(GamePage(game.id, sheet, layout, first, f"{day.day} {day:%b}", sheet["winners"] or []))
    return pages


def rating_chart(figures: seasons.Season) -> Markup | None:
    """Each player's rating at the end of each month, as on the season page, styled for print."""
    chart = seasons.rating_chart(figures)
    if chart is None:
        return None
    return Markup(str(chart).replace("<title>", CHART_STYLE + "<title>", 1))  # str: Markup would escape the style


def games_by_month(games: list[Game], period: seasons.Period) -> list[tuple[str, int]]:
    """How many games each month had (months without one left out): ``Mar`` in a year, else ``Mar 2026``."""
    counts = Counter(game.started_at.date().replace(day=1) for game in games)
    shown = "%b" if period.is_year else "%b %Y"
    return [(month.strftime(shown), count) for month, count in sorted(counts.items())]


def bars(items: list[tuple[str, int]]) -> list[tuple[str, int, float]]:
    """Label, value and the bar's length as a share of the longest (0 to 100)."""
    top = max((value for _, value in items), default=0) or 1
    return [(label, value, round(100 * value / top, 1)) for label, value in items]
