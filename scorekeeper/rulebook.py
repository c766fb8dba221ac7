"""Rules pages: each preset's rule card as a web page, open to a guest at the table, and the
rules a game is played by (its own snapshot, house rules included)."""

from __future__ import annotations

from flask import Blueprint, abort, render_template, url_for

from . import printing, rules
from .games import game_or_404

bp = Blueprint("rulebook", __name__)


@bp.get("/rules")
def index():
    """Every preset, with a link to its rules."""
    cards = [printing.rule_card(key) for key in rules.VARIANTS]
    return render_template("rulebook/index.html", cards=cards)


@bp.get("/rules/<key>")
def show(key: str):
    """One preset's rules: the same content as its printed rule card."""
    try:
        card = printing.rule_card(key)
    except printing.PrintError:
        abort(404)
    return render_template("rulebook/show.html", **card, pdf_url=url_for("prints.rule_card", key=key),
                           back=(url_for("rulebook.index"), "All rule sets"))


@bp.get("/games/<int:game_id>/rules")
def game(game_id: int):
    """The rules a game is played by, as it copied them when it started."""
    game = game_or_404(game_id)
    return render_template("rulebook/show.html", **printing.rule_card(game.variant),
                           pdf_url=url_for("prints.game_rule_card", game_id=game.id),
                           back=(url_for("games.play", game_id=game.id), "Back to the game"))
