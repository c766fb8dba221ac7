"""Sharing a game with the phones at the table: a live scoreboard anyone with the link can
watch, and a link that lets another phone keep score."""

from __future__ import annotations

import hashlib

from flask import Blueprint, abort, flash, redirect, render_template, request, session, url_for
from flask_login import current_user

from .. import rules
from ..extensions import db
from ..games.chances import chances_for
from ..games.service import buy_limits, buys_left, load_game
from ..games.table import standings
from ..hosting.addresses import external_url
from ..models import KEEP, MAX_ID, Family
from ..web.access import game_or_404, public
from ..web.page_cache import STARTED, revalidated, shared_response
from ..web.qr import qr_svg
from . import service as sharing

bp = Blueprint("sharing", __name__)
# How often an open scoreboard asks whether anything changed (milliseconds).
POLL_MS = 2000


@bp.route("/games/<int:game_id>/share", methods=["GET", "POST"])
def share(game_id: int):
    """The game's links with their QR codes; POST makes a new one of ``kind``."""
    game = game_or_404(game_id)
    if request.method == "POST":
        kind = request.form.get("kind")
        if kind not in sharing.KINDS:
            abort(400, "Choose a scoreboard link or a score keeper link.")
        sharing.create(game, kind, current_user)
        flash("New link made: show its code to the other phone.", "success")
        return redirect(url_for("sharing.share", game_id=game.id))
    links = []
    for link in sharing.open_links(game):
        endpoint = "sharing.keep" if link.kind == KEEP else "sharing.board"
        url = external_url(endpoint, token=link.token)  # an address the other phone can open
        links.append((link, url, qr_svg(url)))
    return render_template("sharing/share.html", game=game, links=links, expires=sharing.expires_at(game))


@bp.post("/games/<int:game_id>/share/<int:link_id>/revoke")
def revoke(game_id: int, link_id: int):
    game = game_or_404(game_id)
    if link_id > MAX_ID or not sharing.revoke(game, link_id):
        abort(404)
    flash("Link stopped: phones that had it can no longer open the game.", "success")
    return redirect(url_for("sharing.share", game_id=game.id))


def _link_or_404(token: str, kind: str | None = None):
    link = sharing.find(token, kind)
    if link is None:
        abort(404, "This link does not work: it was stopped, or its game ended more than a day ago.")
    return link


def _board(link) -> dict:
    """What the scoreboard shows: the hand being played, its buys, and the standings."""
    family = db.session.get(Family, link.game.family_id)
    game = load_game(family, link.game_id)
    players = game.players
    round_ = game.current_round
    table = standings(game)
    ranked = sorted(zip(players, table.totals), key=lambda pair: pair[1])
    board = {"game": game, "family": family, "round": round_, "players": players, "standings": table,
             "ranked": ranked, "variant": game.variant}
    if round_ is not None:
        board["first_player"] = players[rules.first_player_seat(round_.dealer, len(players))]
        board["rules_round"] = round_.rules
        board["reminders"] = rules.round_reminders(game.variant, round_.rules)
        board["limits"] = buy_limits(game, round_)
        board["buys_left"] = buys_left(game, round_, board["limits"])
        board["live"] = True
    chances = chances_for(game)
    if chances is not None:
        board["chances"] = chances
        board["chance_of"] = {player.id: label for player, label in zip(players, chances.labels)}
    return board


def _board_etag(link) -> str:
    """Changes with any write to the family's games (the family version), in every process."""
    version = db.session.execute(
        db.select(Family.version).where(Family.id == link.game.family_id)
    ).scalar_one()
    return hashlib.sha256(f"{STARTED}|{link.id}|{version}".encode()).hexdigest()[:24]


@bp.get("/live/<token>")
@public
def board(token: str):
    """The live scoreboard: read-only, updating itself."""
    link = _link_or_404(token)
    etag = _board_etag(link)
    if session.get("_flashes"):  # the page shows a browser's one-time messages: drawn for it alone
        return _draw_board_page(link, token, etag)
    # Drawn once per version of the game, for every phone and screen watching it.
    return shared_response(f"live|{etag}", lambda: _draw_board_page(link, token, etag))


def _draw_board_page(link, token: str, etag: str) -> str:
    return render_template("sharing/board.html", token=token, poll_ms=POLL_MS, etag=etag, **_board(link))


@bp.get("/live/<token>/board")
@public
def board_state(token: str):
    """The scoreboard's changing part, for the page to poll: a 304 while nothing changed."""
    link = _link_or_404(token)
    etag = _board_etag(link)
    return revalidated(etag, lambda: shared_response(
        f"board|{etag}", lambda: render_template("sharing/_board.html", **_board(link))))


@bp.get("/keep/<token>")
@public
def keep(token: str):
    """A score keeper's link: this browser may now record buys and hands for this game."""
    link = _link_or_404(token, KEEP)
    grants = dict(session.get("keep", {}))
    grants[str(link.game_id)] = token
    session["keep"] = dict(list(grants.items())[-5:])  # a phone keeps score for a few games at most
    return redirect(url_for("games.round_screen", game_id=link.game_id))
