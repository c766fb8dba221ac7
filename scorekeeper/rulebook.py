"""Rules pages: each preset's rule card as a web page, open to a guest at the table."""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from . import printing, rules

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
    return render_template("rulebook/show.html", **card)
