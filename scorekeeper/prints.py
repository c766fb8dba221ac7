"""PDF downloads: blank score sheets, a game's filled sheet and rule cards."""

from __future__ import annotations

from flask import Blueprint, abort, make_response, render_template, request

from . import printing, services
from .games import game_or_404

bp = Blueprint("prints", __name__)

PAPER_COOKIE = "paper"


def _paper() -> str:
    """The paper size asked for, else the one this browser used last, else Letter."""
    asked = request.args.get("paper", "")
    if asked in printing.PAPERS:
        return asked
    remembered = request.cookies.get(PAPER_COOKIE, "")
    return remembered if remembered in printing.PAPERS else "letter"


def _send(document: printing.Document):
    """The PDF, or 304 when the browser already holds this exact document."""
    if document.etag in request.if_none_match:
        response = make_response("", 304)
    else:
        response = make_response(printing.render(document))
        response.mimetype = "application/pdf"
        response.headers["Content-Disposition"] = f'inline; filename="{document.filename}"'
    response.set_etag(document.etag)
    response.headers["Cache-Control"] = "private, no-cache"
    response.set_cookie(PAPER_COOKIE, document.context["paper"], max_age=365 * 24 * 3600, samesite="Lax")
    return response


@bp.get("/print")
def blank_form():
    """The page to make blank score sheets for any preset or the family's own rules."""
    variants = services.family_variants(services.current_family())
    return render_template("prints/blank.html", variants=variants, args=request.args, paper=_paper(), error=None)


@bp.get("/print/sheet.pdf")
def blank_sheet():
    args = request.args
    variants = services.family_variants(services.current_family())
    names = [n for n in args.get("players", "").replace("\n", ",").split(",") if n.strip()]
    count = args.get("count", "").strip()
    try:
        if names:
            players: list[str] | int = names
        elif services.is_number(count) and len(count) < 4:
            players = int(count)
        else:
            raise printing.PrintError("Type the players' names, or how many players there are.")
        if args.get("variant") not in variants:
            raise printing.PrintError("Choose the rules to print.")
        sheet = printing.blank_sheet(
            variants[args["variant"]],
            players,
            first_dealer=args.get("first_dealer", "").strip() or None,
            skip_first_hand=args.get("skip_first_hand") == "y",
        )
        document = printing.sheet_document(sheet, _paper())
    except printing.PrintError as error:
        page = render_template("prints/blank.html", variants=variants, args=args, paper=_paper(), error=str(error))
        return page, 400
    return _send(document)


@bp.get("/games/<int:game_id>/sheet.pdf")
def game_sheet(game_id: int):
    game = game_or_404(game_id)
    sheet = printing.filled_sheet(game, services.current_family().name)
    return _send(printing.sheet_document(sheet, _paper()))


def send_rule_card(variant) -> object:
    """The rule card PDF of ``variant`` (or of the preset with this key), on the paper asked for."""
    return _send(printing.rule_card_document(printing.rule_card(variant), _paper()))


@bp.get("/games/<int:game_id>/rules.pdf")
def game_rule_card(game_id: int):
    """The rule card of the rules a game is played by (its own copy)."""
    return send_rule_card(game_or_404(game_id).variant)


@bp.get("/print/rules/<key>.pdf")
def rule_card(key: str):
    try:
        return send_rule_card(key)
    except printing.PrintError:
        abort(404)
