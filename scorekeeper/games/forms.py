"""Forms of a game: the rules and players of a new game, its seating, and the end-of-hand card entry."""

from __future__ import annotations

from functools import lru_cache

from flask import request
from flask_wtf import FlaskForm
from wtforms import BooleanField, Form, FormField, HiddenField, RadioField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, NumberRange, Optional

from .. import rules
from ..models import Player
from ..web.fields import NAME_MAX, ChoiceField, IntegerField, is_number, split_names

# -- new game -----------------------------------------------------------------------------


class NewGameForm(FlaskForm):
    """Step 1: the rules (a preset or the family's own) and who is playing."""

    variant = ChoiceField("Rules", validators=[InputRequired("Choose the rules you play.")])
    new_players = StringField("New players", description="Names separated by commas")

    def __init__(self, saved_players: list[Player], variants: dict[str, rules.Variant], *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.variants = variants
        self.variant.choices = [SelectChoice(v.key, v.name) for v in variants.values()]
        self.saved_players = saved_players
        self.chosen_ids: list[int] = []
        self.seating: list[tuple[str, str]] = []  # (token, name) in seating order

    def validate(self, extra_validators=None) -> bool:
        ok = super().validate(extra_validators)
        by_id = {p.id: p for p in self.saved_players}
        by_name = {p.name.casefold(): p for p in self.saved_players}
        chosen = []
        for raw in request.form.getlist("player"):
            if is_number(raw) and int(raw) in by_id and int(raw) not in chosen:
                chosen.append(int(raw))
        self.chosen_ids = chosen
        seating = [(f"p:{pid}", by_id[pid].name) for pid in chosen]
        seen = {by_id[pid].name.casefold() for pid in chosen}
        for name in split_names(self.new_players.data):
            if len(name) > NAME_MAX:
                self.new_players.errors.append(f"“{name[:20]}…” is longer than {NAME_MAX} letters.")
                ok = False
                continue
            if name.casefold() in seen:
                self.new_players.errors.append(f"{name} is in the game twice.")
                ok = False
                continue
            seen.add(name.casefold())
            saved = by_name.get(name.casefold())
            seating.append((f"p:{saved.id}", saved.name) if saved else (f"n:{name}", name))
        self.seating = seating
        if ok and self.variant.data:
            variant = self.variants[self.variant.data]
            if not variant.min_players <= len(seating) <= variant.max_players:
                self.new_players.errors.append(
                    f"{variant.name} is for {variant.min_players}–{variant.max_players} players; "
                    f"{len(seating)} chosen."
                )
                ok = False
        return ok


class SeatingForm(FlaskForm):
    """Step 2: seating order, first dealer and options. Seats travel as hidden ``seat`` values."""

    variant = HiddenField(validators=[InputRequired()])
    first_dealer = RadioField("First dealer", validate_choice=False, default="random")
    skip_first_hand = BooleanField("Skip hand 1 (a quicker game of 6 hands)")


# -- end of hand --------------------------------------------------------------------------


class _EntryBase(FlaskForm):
    version = HiddenField()

    def setup(self, variant: rules.Variant, round_: rules.Round, decks: rules.Decks, players, limits=None):
        self.variant = variant
        self.round_rules = round_
        self.decks = decks
        self.players = players
        self.limits = limits or {p.id: round_.buy_limit for p in players}
        self.out_bonuses = [b for b in variant.bonuses if not b.anyone]
        self.event_bonus = next((b for b in variant.bonuses if b.anyone), None)
        self.player_errors: dict[int, list[str]] = {p.id: [] for p in players}
        self.table_errors: list[str] = []
        self.went_out.choices = [SelectChoice(str(p.id), p.name) for p in players]
        return self

    def hand(self, player: Player):
        return getattr(self, f"p{player.id}")

    def counts(self, player: Player) -> dict[str, int]:
        hand = self.hand(player)
        return {k.code: hand[f"k_{k.code}"].data or 0 for k in self.variant.keys}

    def validate(self, extra_validators=None) -> bool:
        """The fields, then the rules core's checks of the whole hand (``rules.round_problems``,
        the same the service applies when it records it); a player's field errors come first."""
        ok = super().validate(extra_validators)
        names = {p.id: p.name for p in self.players}
        problems = rules.round_problems(
            self.variant, self.round_rules, self.decks, self.entries(), self.limits, names
        )
        for player in self.players:
            if not self.hand(player).errors:
                self.player_errors[player.id] = problems.players[player.id]
        self.table_errors = problems.table
        return ok and not self.table_errors and not any(self.player_errors.values())

    def entries(self) -> list[rules.Hand]:
        """The form as one hand per player, for the rules core and the service layer."""
        out_bonus = (self.bonus.data or "") if self.out_bonuses else ""
        return [
            rules.Hand(
                player_id=p.id,
                went_out=str(p.id) == self.went_out.data,
                laid_down=self.hand(p).laid_down.data,
                buys=self.hand(p).buys.data or 0,
                counts={c: n for c, n in self.counts(p).items() if n},
                hand_total=self.hand(p).total.data,
                bonus_code=" ".join(code for code in (
                    out_bonus if str(p.id) == self.went_out.data else "",
                    self.event_bonus.code if self.event_bonus and self.hand(p).event.data else "",
                ) if code),
            )
            for p in self.players
        ]


def entry_form(variant: rules.Variant, round_: rules.Round, decks: rules.Decks, players, limits=None, **kwargs):
    """The card-entry form for this hand: a keypad (count inputs) per player; ``limits`` are
    each player's buy limits (the round's own by default)."""
    form_class = _entry_form_class(variant, round_, decks, tuple((p.id, p.name) for p in players))
    return form_class(**kwargs).setup(variant, round_, decks, players, limits)


@lru_cache(maxsize=128)
def _entry_form_class(variant: rules.Variant, round_: rules.Round, decks: rules.Decks, players):
    """Form classes are built once per hand shape (rules, round, decks, players), then reused."""
    class HandForm(Form):
        laid_down = BooleanField("Laid down")
        buys = IntegerField(
            "Buys",
            validators=[
                Optional(),
                NumberRange(0, variant.most_buys(round_), f"Between 0 and {variant.most_buys(round_)} buys."),
            ],
        )
        total = IntegerField(
            "Total counted by hand",
            validators=[
                Optional(),
                NumberRange(
                    1,
                    rules.max_hand_points(variant, round_),
                    "A total must be at least 1 and no more than a full hand can be worth.",
                ),
            ],
        )

    event = next((b for b in variant.bonuses if b.anyone), None)
    if event:
        HandForm.event = BooleanField(f"{event.label} ({event.points})")

    # Upper bounds (copies in the decks, hand size) are checked in ``validate`` with clearer words.
    for key in variant.keys:
        setattr(
            HandForm,
            f"k_{key.code}",
            IntegerField(key.label, validators=[Optional(), NumberRange(min=0, message="Cannot be negative.")]),
        )

    attrs = {f"p{player_id}": FormField(HandForm, label=name) for player_id, name in players}
    attrs["went_out"] = RadioField("Who went out?", validators=[InputRequired("Choose who went out.")])
    attrs["bonus"] = RadioField(
        "How did they go out?",
        choices=[SelectChoice("", "Went out normally")]
        + [SelectChoice(b.code, f"{b.label} ({b.points})") for b in variant.bonuses if not b.anyone],
        default="",
        validate_choice=any(not b.anyone for b in variant.bonuses),
    )
    return type("CardEntryForm", (_EntryBase,), attrs)
