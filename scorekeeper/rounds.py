"""End of hand: card entry, review and save; standings; edit and undo."""

from __future__ import annotations

from types import SimpleNamespace

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from . import charts, services
from .db import db
from .forms import entry_form
from .games import game_or_404
from .models import GameRound
from .services import RuleError
from .speed import cached_page

bp = Blueprint("rounds", __name__, url_prefix="/games/<int:game_id>")


def _round_or_404(game, number: int) -> GameRound:
    try:
        return services.round_of(game, number)
    except RuleError:
        abort(404)


def _stored_data(round_: GameRound, variant) -> dict:
    """The form's starting values: what is stored for this hand (live buys and marks included)."""
    data = {"version": round_.version}
    out_codes = {b.code for b in variant.bonuses if not b.anyone}
    for result in round_.results:
        codes = result.bonus_code.split()
        hand = {"laid_down": result.laid_down, "buys": result.buys, "total": result.hand_total,
                "event": any(b.anyone and b.code in codes for b in variant.bonuses)}
        for code, n in services.card_counts(result.cards).items():
            hand[f"k_{code}"] = n
        data[f"p{result.player_id}"] = SimpleNamespace(**hand)
        if result.went_out:
            data["went_out"] = str(result.player_id)
            data["bonus"] = next((c for c in codes if c in out_codes), "")
    return data


@bp.route("/rounds/<int:number>/score", methods=["GET", "POST"])
def score(game_id: int, number: int):
    game = game_or_404(game_id)
    round_ = _round_or_404(game, number)
    if round_.recorded_at is None and round_ is not game.current_round:
        flash(f"Round {game.current_round.number} comes first.", "error")
        return redirect(url_for("games.play", game_id=game.id))

    variant, players = game.variant, game.players
    decks = variant.decks_for(len(players))
    kwargs = {} if request.method == "POST" else _stored_data(round_, variant)
    limits = services.buy_limits(game, round_)
    form = entry_form(variant, round_.rules, decks, players, limits, **kwargs)
    editing = round_.recorded_at is not None
    action = request.form.get("action")

    if action != "change" and form.validate_on_submit():
        entries = form.entries()
        if action == "save":
            raw_version = form.version.data or ""
            version = int(raw_version) if services.is_number(raw_version) else -1
            if version > services.MAX_ID:
                version = -1
            try:
                services.once(game.family_id, request.form.get("submission"), lambda: services.record_round(
                    game, number, entries, version, by=services.acting_person(game)
                ))
            except services.StaleEntry as error:
                _take_fresh_marks(form, round_)
                flash(str(error), "error")
                return _entry_page(form, game, round_, editing)
            except RuleError as error:
                flash(str(error), "error")
                return redirect(url_for("rounds.standings", game_id=game.id))
            if editing:
                flash(f"Round {number} updated.", "success")
                return redirect(url_for("rounds.standings", game_id=game.id))
            if game.is_finished:
                flash("Last hand saved: the game is over.", "success")
                return redirect(url_for("rounds.standings", game_id=game.id))
            flash(f"Round {number} saved.", "success")
            return redirect(url_for("games.play", game_id=game.id))
        return render_template(
            "rounds/review.html",
            **_review(game, round_, entries),
            form=form,
            game=game,
            round=round_,
            variant=variant,
            editing=editing,
        )
    return _entry_page(form, game, round_, editing)


def _entry_page(form, game, round_: GameRound, editing: bool):
    return render_template(
        "rounds/entry.html",
        form=form,
        game=game,
        round=round_,
        rules_round=round_.rules,
        variant=game.variant,
        players=game.players,
        limits=form.limits,
        editing=editing,
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
    standing = services.standings(game)
    lines = []
    for player, entry, old in zip(game.players, entries, round_.results):
        points, bonus = services.hand_points(game.variant, entry, round_.number)
        before = standing.total_of(player) - (old.points if round_.recorded_at else 0)
        lines.append(
            SimpleNamespace(
                player=player,
                entry=entry,
                keys=[(game.variant.key_by_code(c), n) for c, n in entry.counts.items()],
                points=points,
                bonus=bonus,
                total=before + points,
            )
        )
    low = min(line.total for line in lines)
    return {"lines": lines, "low": low}


@bp.get("/standings")
@cached_page
def standings(game_id: int):
    game = game_or_404(game_id)
    table = services.standings(game)
    scored = [row for row in table.rows if row.cells]
    chart = charts.line_chart(
        [(p.name, [row.cells[i].running_total for row in scored]) for i, p in enumerate(table.players)],
        [str(row.round.number) for row in scored],
        x_title="Round",
        y_title="Running total",
        label="Running totals by round",
    ) if len(scored) > 1 else None
    return render_template(
        "rounds/standings.html",
        game=game,
        variant=game.variant,
        standings=table,
        chart=chart,
        changes=services.round_changes(game),
    )


@bp.post("/undo")
def undo(game_id: int):
    game = game_or_404(game_id)
    try:
        round_ = services.undo_last_round(
            game, request.form.get("number", type=int), by=services.acting_person(game)
        )
    except RuleError as error:
        flash(str(error), "error")
        return redirect(url_for("rounds.standings", game_id=game.id))
    flash(f"Round {round_.number} is back in play; enter its cards again when the hand ends.", "success")
    return redirect(url_for("games.play", game_id=game.id))
