"""End of a hand: the card entry (a keypad per player), the review of the points, and saving
or correcting the hand."""

from __future__ import annotations

from types import SimpleNamespace

from flask import abort, flash, redirect, render_template, request, url_for

from ...extensions import db
from ...families import RuleError, once
from ...models import MAX_ID, GameRound
from ...web.access import acting_person, game_or_404, keeper_page
from ...web.fields import is_number
from ...web.page_cache import cached_page
from ..forms import entry_form, stored_entry_data
from ..hands import record_round
from ..service import HandRefused, StaleEntry, buy_limits, round_of
from ..table import preview
from . import bp


def _round_or_404(game, number: int) -> GameRound:
    try:
        return round_of(game, number)
    except RuleError:
        abort(404)


@bp.route("/<int:game_id>/rounds/<int:number>/score", methods=["GET", "POST"])
@keeper_page
@cached_page  # the empty form, as every phone opens it; a POST is answered for itself
def card_entry(game_id: int, number: int):
    """End of a hand: the keypads (GET), then the review of the points and saving (POST)."""
    game = game_or_404(game_id)
    round_ = _round_or_404(game, number)
    if round_.recorded_at is None and round_ is not game.current_round:
        flash(f"Round {game.current_round.number} comes first.", "error")
        return redirect(url_for("games.round_screen", game_id=game.id))

    variant, players = game.variant, game.players
    decks = variant.decks_for(len(players))
    kwargs = {} if request.method == "POST" else stored_entry_data(round_, variant)
    limits = buy_limits(game, round_)
    form = entry_form(variant, round_.rules, decks, players, limits, **kwargs)
    editing = round_.recorded_at is not None
    action = request.form.get("action")

    if action != "change" and form.validate_on_submit():
        entries = form.entries()
        if action == "save":
            raw_version = form.version.data or ""
            version = int(raw_version) if is_number(raw_version) else -1
            if version > MAX_ID:
                version = -1
            try:
                earlier = once(game.family_id, request.form.get("submission"), lambda: record_round(
                    game, number, entries, version, by=acting_person(game.family_id)
                ), outcome={"editing": editing})
            except StaleEntry as error:
                _take_fresh_marks(form, round_)
                flash(str(error), "error")
                return _entry_page(form, game, round_, editing)
            except HandRefused as error:  # e.g. a hand kept offline while the buys changed
                flash(str(error), "error")
                return _entry_page(form, game, round_, editing)
            except RuleError as error:
                flash(str(error), "error")
                return redirect(url_for("games.standings", game_id=game.id))
            if earlier is not None:  # sent again (or from two phones at once): answered as the first time
                editing = bool((earlier.outcome or {}).get("editing"))
            if editing:
                flash(f"Round {number} updated.", "success")
                return redirect(url_for("games.standings", game_id=game.id))
            if game.is_finished:
                flash("Last hand saved: the game is over.", "success")
                return redirect(url_for("games.standings", game_id=game.id))
            flash(f"Round {number} saved.", "success")
            return redirect(url_for("games.round_screen", game_id=game.id))
        return render_template(
            "games/review.html",
            **_review(game, round_, entries),
            form=form,
            game=game,
            round=round_,
            variant=variant,
            editing=editing,
        )
    return _entry_page(form, game, round_, editing)


def _entry_page(form, game, round_: GameRound, editing: bool):
    variant = game.variant
    decks = variant.decks_for(len(game.players))
    return render_template(
        "games/card_entry.html",
        form=form,
        game=game,
        round=round_,
        rules_round=round_.rules,
        variant=game.variant,
        players=game.players,
        limits=form.limits,
        editing=editing,
        # How many of each card the decks in play hold: the keypad warns as one too many is tapped.
        copies={key.code: variant.copies(key, decks) for key in variant.keys},
    )


def _take_fresh_marks(form, round_: GameRound) -> None:
    """Keep the typed cards but show the buys and laid-down marks stored meanwhile."""
    db.session.refresh(round_)
    form.version.data = round_.version
    for result in round_.results:
        db.session.refresh(result)
        hand = form[f"p{result.player_id}"]
        hand.buys.data, hand.buys.raw_data = result.buys, None  # raw_data would redraw what was typed
        hand.laid_down.data = result.laid_down


def _review(game, round_: GameRound, entries) -> dict:
    """Each player's points for this hand and the totals they lead to, before saving."""
    lines = [
        SimpleNamespace(
            player=player,
            entry=entry,
            keys=[(game.variant.key_by_code(c), n) for c, n in entry.counts.items()],
            points=points,
            bonus=bonus,
            total=total,
        )
        for player, entry, (points, bonus, total) in zip(game.players, entries, preview(game, round_, entries))
    ]
    return {"lines": lines, "low": min(line.total for line in lines)}
