"""Starting a game and the round screen that lives on the phone during a hand."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from wtforms.fields.choices import SelectChoice

from . import rules, services
from .forms import NAME_MAX, NewGameForm, SeatingForm
from .models import ABANDONED, Game
from .services import RuleError, SeatChoice
from .speed import cached_page

bp = Blueprint("games", __name__, url_prefix="/games")


def game_or_404(game_id: int) -> Game:
    """The signed-in family's game, or 404 for anyone else's or a missing one."""
    game = services.load_game(services.current_family(), game_id)
    if game is None:
        abort(404)
    return game


# -- new game -----------------------------------------------------------------------------


@bp.route("/new", methods=["GET", "POST"])
def new():
    family = services.current_family()
    form = NewGameForm(services.family_players(family), services.family_variants(family))
    if request.method == "GET" and request.args.get("variant") in form.variants:
        form.variant.data = request.args["variant"]  # "New game with these rules"
    if form.validate_on_submit():
        variant = form.variants[form.variant.data]
        seating = SeatingForm(formdata=None, variant=variant.key)
        return _render_seating(seating, variant, form.seating)
    return render_template("games/new.html", form=form, variants=form.variants)


def _seats_from_request(family) -> list[tuple[str, str]] | None:
    """The ``seat`` hidden values as ``(token, name)``, or ``None`` if any is not valid."""
    saved = {p.id: p for p in services.family_players(family)}
    saved_names = {p.name.casefold(): p for p in saved.values()}
    seats, seen = [], set()
    for token in request.form.getlist("seat"):
        kind, _, value = token.partition(":")
        if kind == "n" and value.casefold() in saved_names:
            # Saved meanwhile (e.g. from another phone): seat the saved player.
            kind, value = "p", str(saved_names[value.casefold()].id)
            token = f"p:{value}"
        if kind == "p" and services.is_number(value) and int(value) in saved:
            name = saved[int(value)].name
        elif kind == "n" and 0 < len(value) <= NAME_MAX and value == value.strip():
            name = value
        else:
            return None
        if name.casefold() in seen:
            return None
        seen.add(name.casefold())
        seats.append((token, name))
    return seats


def _render_seating(form: SeatingForm, variant: rules.Variant, seats):
    form.first_dealer.choices = [SelectChoice("random", "Random")] + [SelectChoice(t, n) for t, n in seats]
    if form.first_dealer.data not in {c.value for c in form.first_dealer.choices}:
        form.first_dealer.data = "random"
    return render_template("games/seating.html", form=form, variant=variant, seats=seats)


@bp.post("/new/seating")
def seating():
    family = services.current_family()
    form = SeatingForm()
    variant = services.family_variants(family).get(form.variant.data or "")
    seats = _seats_from_request(family)
    if variant is None or not seats:
        flash("The new game form was incomplete; please start again.", "error")
        return redirect(url_for("games.new"))
    if not variant.min_players <= len(seats) <= variant.max_players:
        flash(f"{variant.name} is for {variant.min_players}–{variant.max_players} players.", "error")
        return redirect(url_for("games.new"))

    move = request.form.get("move", "")
    if move:
        direction, _, index = move.partition(":")
        i = int(index) if services.is_number(index) else -1
        j = i - 1 if direction == "up" else i + 1
        if 0 <= i < len(seats) and 0 <= j < len(seats):
            seats[i], seats[j] = seats[j], seats[i]
        return _render_seating(form, variant, seats)

    if form.validate_on_submit():
        tokens = [t for t, _ in seats]
        if form.first_dealer.data != "random" and form.first_dealer.data not in tokens:
            form.first_dealer.errors.append("Choose the first dealer from the players.")
        else:
            choices = [
                SeatChoice(player_id=int(t[2:])) if t.startswith("p:") else SeatChoice(new_name=t[2:])
                for t in tokens
            ]
            first = None if form.first_dealer.data == "random" else tokens.index(form.first_dealer.data)
            try:
                game = services.start_game(
                    family,
                    variant,
                    choices,
                    first,
                    skip_first_hand=variant.can_skip_first_hand and form.skip_first_hand.data,
                )
            except RuleError as error:
                flash(str(error), "error")
                return redirect(url_for("games.new"))
            return redirect(url_for("games.play", game_id=game.id))
    return _render_seating(form, variant, seats)


# -- the round screen ---------------------------------------------------------------------


@bp.get("/<int:game_id>")
@cached_page
def play(game_id: int):
    game = game_or_404(game_id)
    round_ = game.current_round
    if round_ is None or game.status == ABANDONED:
        return redirect(url_for("rounds.standings", game_id=game.id))
    players = game.players
    upcoming = [r for r in game.rounds if r.position > round_.position][:3]
    return render_template(
        "games/play.html",
        game=game,
        round=round_,
        rules_round=round_.rules,
        reminders=rules.round_reminders(game.variant, round_.rules),
        variant=game.variant,
        decks=game.variant.decks_for(len(players)),
        players=players,
        first_player=players[rules.first_player_seat(round_.dealer, len(players))],
        upcoming=[(r, players[r.dealer]) for r in upcoming],
        limits=services.buy_limits(game, round_),
        standings=services.standings(game),
    )


def _player_action(game_id: int, number: int, action) -> object:
    game = game_or_404(game_id)
    player_id = request.form.get("player", type=int)
    seated = player_id in {seat.player_id for seat in game.seats}
    try:
        services.once(game.family_id, request.form.get("submission"), lambda: action(game, number, player_id))
    except RuleError as error:
        # Shown in the player's row when there is one, else at the top of the page.
        flash(str(error), f"player-{player_id}" if seated else "error")
    anchor = f"player-{player_id}" if seated else None
    return redirect(url_for("games.play", game_id=game.id, _anchor=anchor))


@bp.post("/<int:game_id>/rounds/<int:number>/buy")
def buy(game_id: int, number: int):
    return _player_action(game_id, number, services.buy)


@bp.post("/<int:game_id>/rounds/<int:number>/unbuy")
def unbuy(game_id: int, number: int):
    return _player_action(game_id, number, services.undo_buy)


@bp.post("/<int:game_id>/rounds/<int:number>/down")
def down(game_id: int, number: int):
    laid_down = request.form.get("laid_down") == "1"
    return _player_action(
        game_id, number, lambda g, n, p: services.set_laid_down(g, n, p, laid_down)
    )
