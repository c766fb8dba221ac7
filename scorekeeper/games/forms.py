"""Forms of a game: the rules and players of a new game, its seating, and the end-of-hand card entry."""

from __future__ import annotations

from datetime import date, datetime
from functools import cache, lru_cache
from types import SimpleNamespace

from flask import request
from flask_wtf import FlaskForm
from markupsafe import Markup, escape
from wtforms import BooleanField, Form, FormField, HiddenField, RadioField, StringField
from wtforms.fields import DateField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, NumberRange, Optional, StopValidation
from wtforms.widgets import CheckboxInput, Input, NumberInput, RadioInput
from wtforms.widgets.core import clean_key

from .. import rules
from ..models import Player, utcnow
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


FIRST_DAY = date(1900, 1, 1)  # no family's paper sheets go further back


class PlayedOnField(DateField):
    """The day a game was played: today when left empty; never after today, nor before 1900."""

    def process_formdata(self, valuelist):
        raw = valuelist[0].strip() if valuelist else ""
        if not raw:
            self.data = utcnow().date()
            return
        try:
            self.data = datetime.strptime(raw, "%Y-%m-%d").date()
        except ValueError:
            self.data = None
            raise ValueError("Write the day as year-month-day, such as 2024-11-22.") from None

    def pre_validate(self, form):
        today = utcnow().date()
        if self.data is not None and self.data > today:
            raise StopValidation(f"That day is still to come: choose {today.isoformat()} or an earlier day.")
        if self.data is not None and self.data < FIRST_DAY:
            raise StopValidation("Choose a day from 1 January 1900 on.")


class SeatingForm(FlaskForm):
    """Step 2: seating order, first dealer and options. Seats travel as hidden ``seat`` values."""

    variant = HiddenField(validators=[InputRequired()])
    first_dealer = RadioField("First dealer", validate_choice=False, default="random")
    skip_first_hand = BooleanField("Skip hand 1 (a quicker game of 6 hands)")
    played_on = PlayedOnField("Played on", default=lambda: utcnow().date())


class PaperForm(FlaskForm):
    """The paper grid: CSRF only; its cells (``r<round>-p<player>``), taps (``out-<round>``) and
    round versions (``v-<round>``) vary with the game and are read by name."""


# -- end of hand --------------------------------------------------------------------------


def _quick_params(**kwargs) -> Markup:
    """The same attributes as ``wtforms.widgets.html_params``, joined as plain strings: its
    ``Markup.format`` per attribute made most of the card entry's draw (~90 inputs a page)."""
    params = []
    for key, value in sorted(kwargs.items()):
        if value is True:
            params.append(_attribute(key))
        elif value is not False:
            params.append(f'{_attribute(key)}="{escape(value)}"')
    return Markup(" ".join(params))


@cache
def _attribute(key: str) -> str:
    return str(escape(clean_key(key)))  # a handful of names, each met ~90 times a page


class _QuickInput(Input):
    """``Input`` drawing the same tag, with the field's validation flags read directly
    (``Input`` walks ``dir(field.flags)`` for every input) and ``_quick_params``. No
    ``datalist``: no card-entry field has one."""

    html_params = staticmethod(_quick_params)

    def __call__(self, field, **kwargs):
        kwargs.setdefault("id", field.id)
        kwargs.setdefault("type", self.input_type)
        if "value" not in kwargs:
            kwargs["value"] = field._value()
        flags = vars(field.flags)
        for name in self.validation_attrs:
            if name in flags and name not in kwargs:
                value = flags[name]
                kwargs[name] = value() if callable(value) else value
        return Markup(f"<input {self.html_params(name=field.name, **kwargs)}>")


class _QuickNumberInput(NumberInput, _QuickInput):
    pass


class _QuickCheckboxInput(CheckboxInput, _QuickInput):
    pass


class _QuickRadioInput(RadioInput, _QuickInput):
    pass


_NUMBER = _QuickNumberInput(min=0)  # what ``web.fields.IntegerField`` draws, drawn faster
_CHECKBOX = _QuickCheckboxInput()
_RADIO = _QuickRadioInput()


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

    def opens_on(self) -> int:
        """The hand the card entry shows first with the script (static/js/keypad.js does the same):
        the first with a problem, else the first; the next one when that player went out."""
        ids = [p.id for p in self.players]
        flagged = [p.id for p in self.players if self.player_errors[p.id] or self.hand(p).errors]
        start = ids.index(flagged[0]) if flagged else 0
        return next((ids[(start + step) % len(ids)] for step in range(len(ids))
                     if str(ids[(start + step) % len(ids)]) != self.went_out.data), ids[start])

    def went_out_line(self) -> str | None:
        """Who went out and how, as the script folds the choice into one line; ``None`` while it is
        open (no choice yet, or a problem with it)."""
        name = next((p.name for p in self.players if str(p.id) == self.went_out.data), None)
        if name is None or self.went_out.errors:
            return None
        if not self.out_bonuses:
            return f"{name} went out"
        how = next((c.label for c in self.bonus.choices if c.value == (self.bonus.data or "")), "")
        return f"{name}: {how[:1].lower()}{how[1:]}" if how else f"{name} went out"

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


def stored_entry_data(round_, variant: rules.Variant) -> dict:
    """The form's starting values: what is stored for this hand (live buys and marks included)."""
    data = {"version": round_.version}
    out_codes = {b.code for b in variant.bonuses if not b.anyone}
    for result in round_.results:
        codes = result.bonus_code.split()
        hand = {"laid_down": result.laid_down, "buys": result.buys, "total": result.hand_total,
                "event": any(b.anyone and b.code in codes for b in variant.bonuses)}
        for code, n in rules.card_counts(result.cards).items():
            hand[f"k_{code}"] = n
        data[f"p{result.player_id}"] = SimpleNamespace(**hand)
        if result.went_out:
            data["went_out"] = str(result.player_id)
            data["bonus"] = next((c for c in codes if c in out_codes), "")
    return data


def entry_form(variant: rules.Variant, round_: rules.Round, decks: rules.Decks, players, limits=None, **kwargs):
    """The card-entry form for this hand: a keypad (count inputs) per player; ``limits`` are
    each player's buy limits (the round's own by default)."""
    form_class = _entry_form_class(variant, round_, decks, tuple((p.id, p.name) for p in players))
    return form_class(**kwargs).setup(variant, round_, decks, players, limits)


@lru_cache(maxsize=128)
def _entry_form_class(variant: rules.Variant, round_: rules.Round, decks: rules.Decks, players):
    """Form classes are built once per hand shape (rules, round, decks, players), then reused."""
    class HandForm(Form):
        laid_down = BooleanField("Laid down", widget=_CHECKBOX)
        buys = IntegerField(
            "Buys",
            widget=_NUMBER,
            validators=[
                Optional(),
                NumberRange(0, variant.most_buys(round_), f"Between 0 and {variant.most_buys(round_)} buys."),
            ],
        )
        total = IntegerField(
            "Total counted by hand",
            widget=_NUMBER,
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
        HandForm.event = BooleanField(f"{event.label} ({event.points})", widget=_CHECKBOX)

    # Upper bounds (copies in the decks, hand size) are checked in ``validate`` with clearer words.
    for key in variant.keys:
        setattr(
            HandForm,
            f"k_{key.code}",
            IntegerField(key.label, widget=_NUMBER,
                         validators=[Optional(), NumberRange(min=0, message="Cannot be negative.")]),
        )

    attrs = {f"p{player_id}": FormField(HandForm, label=name) for player_id, name in players}
    attrs["went_out"] = RadioField(
        "Who went out?", validators=[InputRequired("Choose who went out.")], option_widget=_RADIO
    )
    attrs["bonus"] = RadioField(
        "How did they go out?",
        choices=[SelectChoice("", "Went out normally")]
        + [SelectChoice(b.code, f"{b.label} ({b.points})") for b in variant.bonuses if not b.anyone],
        default="",
        validate_choice=any(not b.anyone for b in variant.bonuses),
        option_widget=_RADIO,
    )
    return type("CardEntryForm", (_EntryBase,), attrs)
