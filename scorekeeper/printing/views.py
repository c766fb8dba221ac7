"""Printing: blank score sheets for any rules, a game's filled sheet, rule cards as PDFs, and the
rules pages (each rule card as a web page, open to a guest at the table)."""

from __future__ import annotations

from datetime import date

from flask import Blueprint, abort, render_template, request, url_for

from .. import rules
from ..history.seasons import parse_period
from ..house_rules.service import family_variants
from ..web.access import current_family, game_or_404, keeper_page, public
from ..web.fields import is_number
from . import documents
from .booklet import WEB_MOST_GAMES, TooManyGames, booklet_document, booklet_tag
from .responses import paper, send_pdf, send_queued_pdf, send_rule_card, unchanged

bp = Blueprint("printing", __name__)


@bp.get("/print")
def blank_form():
    """The page to make blank score sheets for any preset or the family's own rules."""
    variants = family_variants(current_family())
    return render_template("printing/blank.html", variants=variants, args=request.args, paper=paper(), error=None)


@bp.get("/print/sheet.pdf")
def blank_sheet():
    args = request.args
    variants = family_variants(current_family())
    names = [n for n in args.get("players", "").replace("\n", ",").split(",") if n.strip()]
    count = args.get("count", "").strip()
    try:
        if names:
            players: list[str] | int = names
        elif is_number(count) and len(count) < 4:
            players = int(count)
        else:
            raise documents.PrintError("Type the players' names, or how many players there are.")
        if args.get("variant") not in variants:
            raise documents.PrintError("Choose the rules to print.")
        sheet = documents.blank_sheet(
            variants[args["variant"]],
            players,
            first_dealer=args.get("first_dealer", "").strip() or None,
            skip_first_hand=args.get("skip_first_hand") == "y",
        )
        document = documents.sheet_document(sheet, paper())
    except documents.PrintError as error:
        page = render_template("printing/blank.html", variants=variants, args=args, paper=paper(), error=str(error))
        return page, 400
    return send_pdf(document)


@bp.get("/games/<int:game_id>/sheet.pdf")
def game_sheet(game_id: int):
    """A game's filled score sheet: a browser that holds it gets a 304 before the game is read."""
    family, chosen, today = current_family(), paper(), date.today()
    # The day is printed on the sheet.
    etag = documents.version_tag("score-sheet", family, game_id, chosen, today.isoformat())
    held = unchanged(etag, chosen)
    if held is not None:
        return held
    sheet = documents.filled_sheet(game_or_404(game_id), family.name, today)
    return send_pdf(documents.sheet_document(sheet, chosen), etag)


@bp.get("/seasons/<period>/booklet.pdf")
def booklet(period: str):
    """The season's yearbook: cover, contents, table, charts, records and every finished game's sheet."""
    chosen = parse_period(period)
    if chosen is None:
        abort(404, "No such season: use a year such as 2026, or two dates such as 2026-03-01..2026-06-30.")
    family, paper_size = current_family(), paper()
    held = unchanged(booklet_tag(family, chosen, paper_size), paper_size)
    if held is not None:
        return held
    try:
        document = booklet_document(family, chosen, paper_size, most_games=WEB_MOST_GAMES)
    except TooManyGames as error:
        abort(422, str(error))
    except documents.PrintError as error:
        abort(404, str(error))
    return send_queued_pdf(document, chosen.label,
                           url_for("history.season", period=period))


@bp.get("/games/<int:game_id>/rules.pdf")
@keeper_page
def game_rule_card(game_id: int):
    """The rule card of the rules a game is played by (its own copy): a browser that holds it
    gets a 304 before the game is read."""
    family, chosen = current_family(), paper()
    etag = documents.version_tag("rule-card", family, game_id, chosen)
    held = unchanged(etag, chosen)
    if held is not None:
        return held
    return send_rule_card(game_or_404(game_id).variant, etag)


@bp.get("/print/rules/<key>.pdf")
@public
def rule_card(key: str):
    try:
        return send_rule_card(key)
    except documents.PrintError:
        abort(404)


@bp.get("/rules")
@public
def rules_index():
    """Every preset, with a link to its rules."""
    cards = [documents.rule_card(key) for key in rules.VARIANTS]
    return render_template("printing/rules_index.html", cards=cards)


@bp.get("/rules/<key>")
@public
def rules_page(key: str):
    """One preset's rules: the same content as its printed rule card."""
    try:
        card = documents.rule_card(key)
    except documents.PrintError:
        abort(404)
    return render_template("printing/rules_page.html", **card, pdf_url=url_for("printing.rule_card", key=key),
                           back=(url_for("printing.rules_index"), "All rule sets"))


@bp.get("/games/<int:game_id>/rules")
@keeper_page
def game_rules(game_id: int):
    """The rules a game is played by, as it copied them when it started."""
    game = game_or_404(game_id)
    return render_template("printing/rules_page.html", **documents.rule_card(game.variant),
                           pdf_url=url_for("printing.game_rule_card", game_id=game.id),
                           back=(url_for("games.round_screen", game_id=game.id), "Back to the game"))
