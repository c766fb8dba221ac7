"""Forms: starting a game and the end-of-hand card entry."""

from __future__ import annotations

import re
from functools import lru_cache

from flask import request
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    Form,
    FormField,
    HiddenField,
    PasswordField,
    RadioField,
    StringField,
)
from wtforms import IntegerField as _IntegerField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import (
    DataRequired,
    EqualTo,
    InputRequired,
    Length,
    NumberRange,
    Optional,
    ValidationError,
)
from wtforms.widgets import NumberInput

from . import accounts, rules
from .models import Player
from .services import HandEntry, is_number

NAME_MAX = 40


class IntegerField(_IntegerField):
    """An integer field whose complaint about text says what to type."""

    widget = NumberInput(min=0)

    def process_formdata(self, valuelist):
        if not valuelist or valuelist[0].strip() == "":
            self.data = None
            return
        try:
            self.data = int(valuelist[0])
        except ValueError:
            self.data = None
            raise ValueError("Enter a whole number.") from None

    def validate(self, form, extra_validators=()):
        # Text that is not a number gets one message, not range complaints about nothing.
        if self.process_errors:
            self.errors = list(self.process_errors)
            return False
        return super().validate(form, extra_validators)


class ChoiceField(RadioField):
    """Radio buttons that say what to do when the posted value is not one of them."""

    def pre_validate(self, form):
        if self.data and self.data not in {c.value for c in self.choices}:
            raise ValidationError(f"Choose one of the options shown for “{self.label.text}”.")


def split_names(text: str) -> list[str]:
    """Names typed into one box, separated by commas or new lines."""
    return [" ".join(n.split()) for n in re.split(r"[,\n]", text or "") if n.strip()]


# -- new game -----------------------------------------------------------------------------


class NewGameForm(FlaskForm):
    """Step 1: the preset and who is playing."""

    variant = ChoiceField(
        "Rules",
        choices=[SelectChoice(v.key, v.name) for v in rules.VARIANTS.values()],
        validators=[InputRequired("Choose the rules you play.")],
    )
    new_players = StringField("New players", description="Names separated by commas")

    def __init__(self, saved_players: list[Player], *args, **kwargs):
        super().__init__(*args, **kwargs)
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
            variant = rules.get_variant(self.variant.data)
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

    def setup(self, variant: rules.Variant, round_: rules.Round, decks: rules.Decks, players):
        self.variant = variant
        self.round_rules = round_
        self.decks = decks
        self.players = players
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
        ok = super().validate(extra_validators)
        out_id = self.went_out.data
        hands = []
        for player in self.players:
            hand = self.hand(player)
            if hand.errors:
                continue
            counts = self.counts(player)
            held = sum(counts.values())
            total = hand.total.data
            errors = self.player_errors[player.id]
            if str(player.id) == out_id:
                if held or total is not None:
                    errors.append(f"{player.name} went out, so no cards are left: clear them.")
                continue
            if held and total is not None:
                errors.append("Enter the cards or a total, not both.")
            elif not held and total is None and out_id:
                errors.append(f"Tap the cards {player.name} holds, or enter a total.")
            errors.extend(
                rules.hand_problems(self.variant, self.round_rules, self.decks, counts)
            )
            hands.append(counts)
        self.table_errors = rules.table_problems(self.variant, self.decks, hands)
        return ok and not self.table_errors and not any(self.player_errors.values())

    def entries(self) -> list[HandEntry]:
        """The validated form as one entry per player, for the service layer."""
        bonus = self.bonus.data if self.variant.bonuses else ""
        return [
            HandEntry(
                player_id=p.id,
                went_out=str(p.id) == self.went_out.data,
                laid_down=self.hand(p).laid_down.data,
                buys=self.hand(p).buys.data or 0,
                counts={c: n for c, n in self.counts(p).items() if n},
                hand_total=self.hand(p).total.data,
                bonus_code=bonus or "",
            )
            for p in self.players
        ]


def entry_form(variant: rules.Variant, round_: rules.Round, decks: rules.Decks, players, **kwargs):
    """The card-entry form for this hand: a keypad (count inputs) per player."""
    form_class = _entry_form_class(variant, round_, decks, tuple((p.id, p.name) for p in players))
    return form_class(**kwargs).setup(variant, round_, decks, players)


@lru_cache(maxsize=128)
def _entry_form_class(variant: rules.Variant, round_: rules.Round, decks: rules.Decks, players):
    """Form classes are built once per hand shape (rules, round, decks, players), then reused."""
    class HandForm(Form):
        laid_down = BooleanField("Laid down")
        buys = IntegerField(
            "Buys",
            validators=[
                Optional(),
                NumberRange(0, round_.buy_limit, f"Between 0 and {round_.buy_limit} buys."),
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
        + [SelectChoice(b.code, f"{b.label} ({b.points})") for b in variant.bonuses],
        default="",
        validate_choice=bool(variant.bonuses),
    )
    return type("CardEntryForm", (_EntryBase,), attrs)


# -- accounts -----------------------------------------------------------------------------


def _check_username(form, field):
    problem = accounts.username_problem(accounts.normal_username(field.data))
    if problem:
        raise ValidationError(problem)
    if accounts.username_taken(field.data):
        raise ValidationError(accounts.USERNAME_TAKEN)


def _check_password(form, field):
    problem = accounts.password_problem(field.data or "")
    if problem:
        raise ValidationError(problem)


class NewMemberForm(FlaskForm):
    """A username and a password typed twice (joining a family)."""

    username = StringField(
        "Username", [InputRequired("Choose a username."), _check_username],
        render_kw={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"},
        description="What you type to sign in; letters, digits, dots and dashes.",
    )
    password = PasswordField(
        "Password", [InputRequired("Choose a password."), _check_password],
        render_kw={"autocomplete": "new-password"}, description="At least 8 characters.",
    )
    confirm = PasswordField(
        "Password again", [InputRequired("Type the password again."), EqualTo("password", "The two passwords differ.")],
        render_kw={"autocomplete": "new-password"},
    )


def _family_name_field(**kwargs) -> StringField:
    # InputRequired refuses a missing field (which would keep the old name), DataRequired one
    # that the filter left empty (only spaces).
    return StringField(
        "Family name",
        [InputRequired("Give the family a name."), DataRequired("Give the family a name."),
         Length(max=60, message="Use at most 60 characters.")],
        filters=[lambda s: " ".join(s.split()) if s else s],
        **kwargs,
    )


class NewFamilyForm(NewMemberForm):
    family_name = _family_name_field(description="Shown on score sheets, e.g. The Parkers.")


class SignInForm(FlaskForm):
    username = StringField(
        "Username", [InputRequired("Enter your username.")],
        render_kw={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"},
    )
    password = PasswordField("Password", [InputRequired("Enter your password.")],
                             render_kw={"autocomplete": "current-password"})
    remember = BooleanField("Keep me signed in on this phone", default=True)


class FamilyNameForm(FlaskForm):
    name = _family_name_field()
