"""The round screen that lives on the phone during a hand: the contract, cards to deal, decks,
the dealer and who plays first, and each player's total, buys and laid-down mark."""

from __future__ import annotations

from types import SimpleNamespace

from flask import flash, redirect, render_template, request, url_for

from ... import rules
from ...families import RuleError, once
from ...models import ABANDONED
from ...web.access import game_or_404, keeper_page
from ...web.page_cache import cached_page
from .. import service as games
from ..forms import entry_form, stored_entry_data
from ..plan import plan_of
from ..table import short_names, standings
from . import bp


@bp.get("/<int:game_id>")
@keeper_page
@cached_page
def round_screen(game_id: int):
    """The round being played, with the game's plan for the phone to draw every other screen."""
    game = game_or_404(game_id)
    round_ = game.current_round
    if round_ is None or game.status == ABANDONED:
        return redirect(url_for("games.standings", game_id=game.id))
    table = standings(game)
    current = _round_view(game, round_, table.totals, table.leaders if table.scored_rounds else [])
    players = game.players
    variant = game.variant
    decks = variant.decks_for(len(players))
    return render_template(
        "games/round_screen.html",
        game=game,
        variant=variant,
        players=players,
        current=current,
        plan=plan_of(game),
        # The card entry and standings the phone fills in for any round (``round_screen.html``).
        entry=entry_form(variant, round_.rules, decks, players, current.limits, **stored_entry_data(round_, variant)),
        copies={key.code: variant.copies(key, decks) for key in variant.keys},
        table=table,
        short=short_names([p.name for p in players]) if len(players) > 4 else None,
        blank_cells=[SimpleNamespace(points="", went_out=True, stuck=True, run="", buys=1)] * len(players),
    )


def _round_view(game, round_, totals: list[int], leaders: list) -> SimpleNamespace:
    """What the round screen shows of ``round_``: its rules, deal, dealer and buy limits."""
    players = game.players
    upcoming = [r for r in game.rounds if r.position > round_.position][:3]
    limits = games.buy_limits(game, round_)
    return SimpleNamespace(
        round=round_,
        rules_round=round_.rules,
        reminders=rules.round_reminders(game.variant, round_.rules),
        decks=game.variant.decks_for(len(players)),
        buys_fact=game.variant.buy_rule.fact(),
        first_player=players[rules.first_player_seat(round_.dealer, len(players))],
        upcoming=[(r, players[r.dealer]) for r in upcoming],
        limits=limits,
        buys_left=games.buys_left(game, round_, limits),
        totals=totals,
        leaders=leaders,
    )


def _player_action(game_id: int, number: int, action) -> object:
    game = game_or_404(game_id)
    player_id = request.form.get("player", type=int)
    seated = player_id in {seat.player_id for seat in game.seats}
    try:
        once(game.family_id, request.form.get("submission"), lambda: action(game, number, player_id))
    except RuleError as error:
        # Shown in the player's row when there is one, else at the top of the page.
        flash(str(error), f"player-{player_id}" if seated else "error")
    anchor = f"player-{player_id}" if seated else None
    return redirect(url_for("games.round_screen", game_id=game.id, _anchor=anchor))


@bp.post("/<int:game_id>/rounds/<int:number>/buy")
@keeper_page
def buy(game_id: int, number: int):
    return _player_action(game_id, number, games.buy)


@bp.post("/<int:game_id>/rounds/<int:number>/unbuy")
@keeper_page
def unbuy(game_id: int, number: int):
    return _player_action(game_id, number, games.undo_buy)


@bp.post("/<int:game_id>/rounds/<int:number>/down")
@keeper_page
def down(game_id: int, number: int):
    laid_down = request.form.get("laid_down") == "1"
    return _player_action(
        game_id, number, lambda g, n, p: games.set_laid_down(g, n, p, laid_down)
    )
