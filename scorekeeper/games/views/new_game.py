"""Starting a game: the rules and players, then the seating, the first dealer and options."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from wtforms.fields.choices import SelectChoice

from ... import rules
from ...families import RuleError, family_players
from ...house_rules.service import family_variants
from ...models import utcnow
from ...web.access import current_family
from ...web.fields import NAME_MAX, is_number
from ..forms import NewGameForm, SeatingForm
from ..service import SeatChoice, last_rules_key, players_in_last_seating, start_game
from . import bp


@bp.route("/new", methods=["GET", "POST"])
def new():
    family = current_family()
    form = NewGameForm(players_in_last_seating(family), family_variants(family))
    if request.method == "GET":
        # "New game with these rules", else the rules of the family's last game: one tap fewer.
        wanted = request.args.get("variant") or last_rules_key(family)
        if wanted in form.variants:
            form.variant.data = wanted
    if form.validate_on_submit():
        variant = form.variants[form.variant.data]
        seating = SeatingForm(formdata=None, variant=variant.key)
        return _render_seating(seating, variant, form.seating)
    return render_template("games/new.html", form=form, variants=form.variants)


def _seats_from_request(family) -> list[tuple[str, str]] | None:
    """The ``seat`` hidden values as ``(token, name)``, or ``None`` if any is not valid."""
    saved = {p.id: p for p in family_players(family)}
    saved_names = {p.name.casefold(): p for p in saved.values()}
    seats, seen = [], set()
    for token in request.form.getlist("seat"):
        kind, _, value = token.partition(":")
        if kind == "n" and value.casefold() in saved_names:
            # Saved meanwhile (e.g. from another phone): seat the saved player.
            kind, value = "p", str(saved_names[value.casefold()].id)
            token = f"p:{value}"
        if kind == "p" and is_number(value) and int(value) in saved:
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
    return render_template(
        "games/seating.html", form=form, variant=variant, seats=seats, today=utcnow().date().isoformat()
    )


@bp.post("/new/seating")
def seating():
    family = current_family()
    form = SeatingForm()
    variant = family_variants(family).get(form.variant.data or "")
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
        i = int(index) if is_number(index) else -1
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
                game = start_game(
                    family,
                    variant,
                    choices,
                    first,
                    skip_first_hand=variant.can_skip_first_hand and form.skip_first_hand.data,
                    started_at=form.played_on.data,
                )
            except RuleError as error:
                flash(str(error), "error")
                return redirect(url_for("games.new"))
            # "Type scores from paper": every round's totals on one grid instead of hand by hand.
            if request.form.get("paper"):
                return redirect(url_for("games.paper", game_id=game.id))
            return redirect(url_for("games.round_screen", game_id=game.id))
    return _render_seating(form, variant, seats)
