"""The house-rules editor's form, its starting values, and the rules-file upload."""

from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import BooleanField, FieldList, Form, FormField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional, ValidationError

from .. import rules
from ..rules import buying, house, limits
from ..web.fields import ChoiceField, IntegerField


def _number(label: str, low: int, high: int, required: bool = True, description: str = "") -> IntegerField:
    first = InputRequired(f"Enter {label.lower()}.") if required else Optional()
    return IntegerField(label, validators=[first, NumberRange(low, high, f"Between {low} and {high}.")],
                        description=description)


def _valid_melds(form, field):
    try:
        house.parse_melds(field.data or "")
    except ValueError as error:
        raise ValidationError(str(error)) from None


def _valid_joker_limits(form, field):
    try:
        house.parse_joker_limits(field.data or "")
    except ValueError as error:
        raise ValidationError(str(error)) from None


class RoundRowForm(Form):
    """One round of the editor: its melds in words, cards dealt and buys."""

    melds = StringField("Contract", validators=[InputRequired("Write what must be laid down."),
                                                Length(max=limits.LONGEST["contract"]), _valid_melds])
    cards_dealt = _number("Cards dealt", 1, limits.MOST_DEALT)
    buy_limit = _number("Buys", 0, limits.MOST_BUYS)


class DeckRowForm(Form):
    """Decks and jokers for a band of player counts."""

    min_players = _number("From", 1, house.MOST_PLAYERS)
    max_players = _number("To", 1, house.MOST_PLAYERS)
    decks = _number("Decks", 1, limits.MOST_DECKS)
    jokers = _number("Jokers", 0, limits.MOST_JOKERS)


GOING_OUT_KINDS = [SelectChoice("zero", "Scores 0"), SelectChoice("fixed", "A bonus taken off the score"),
                   SelectChoice("per-round", "A bonus × the round number")]
POINT_FIELDS = [(rank, f"p_{rank}") for rank in rules.RANKS] + [(rules.JOKER, "p_JK")]
BLIND = ("blind", "Went out blind (used a joker)")
BLIND_NO_JOKER = ("blind-no-joker", "Went out blind, no joker")
EVENT = "event"


class HouseRulesForm(FlaskForm):
    """The house-rules editor: every number of a variant, with the rounds and deck rows as lists."""

    name = StringField("Name", validators=[DataRequired("Give your rules a name."), Length(max=80)])
    source = StringField("Where the rules come from", validators=[Length(max=limits.LONGEST["source"])],
                         description="e.g. Grandma's rules, 1987; or a book and page")
    min_players = _number("Fewest players", 1, house.MOST_PLAYERS)
    max_players = _number("Most players", 1, house.MOST_PLAYERS)
    deck_rules = FieldList(FormField(DeckRowForm), min_entries=1, max_entries=house.MOST_PLAYERS)
    rounds = FieldList(FormField(RoundRowForm), min_entries=1, max_entries=limits.MOST_ROUNDS)
    can_skip_first_hand = BooleanField("Hand 1 may be skipped for a quicker game")

    cards_per_buy = _number("A buy brings (cards, the discard included)", 1, limits.MOST_CARDS_PER_BUY)
    buys_counted = ChoiceField("Buys are counted", default="hand",
                               choices=[SelectChoice(k, label) for k, label in buying.KINDS.items()])
    buys_per_game = _number("Buys in the whole game", 0, limits.MOST_BUYS_PER_GAME, required=False)
    buys_per_turn = _number("Buys per turn, all players together (0: no limit)", 0, limits.MOST_BUYS_PER_TURN)
    down_may_buy = BooleanField("A player who has laid down may still buy")
    buy_out_of_turn_only = BooleanField("Nobody buys on their own turn")
    buying = TextAreaField("Other buying rules", validators=[Length(max=limits.LONGEST["buying"])])

    wilds = ChoiceField("Wild cards", choices=[SelectChoice(k, label) for k, (label, _) in house.WILD_TWOS.items()],
                        default="jokers")
    wild_points = _number("A wild 2 left in hand scores", 0, limits.MOST_POINTS, description="Used when 2s are wild.")
    min_natural = _number("Natural cards every meld needs (0: no rule)", 0, limits.MOST_MELD)
    wilds_at_most_naturals = BooleanField("No more wild cards than natural cards in a meld")
    wilds_no_touch = BooleanField("Wild cards may not lie side by side")
    joker_limits = StringField("Most jokers by meld size", validators=[Length(max=200), _valid_joker_limits],
                               description="e.g. set of 3: 1, run of 4: 1, run of 5: 2 (empty: no limit)")
    wild_rule = TextAreaField("Other wild-card rules", validators=[Length(max=limits.LONGEST["wild_rule"])])

    going_out_kind = ChoiceField("Going out", choices=GOING_OUT_KINDS, default="zero")
    going_out_bonus = _number("Bonus for going out", 0, limits.MOST_BONUS, required=False)
    blind_bonus = _number("Bonus for going out blind, using a joker", 0, limits.MOST_BONUS, required=False)
    blind_no_joker_bonus = _number("Bonus for going out blind, no joker", 0, limits.MOST_BONUS, required=False)
    event_label = StringField("A bonus anyone can earn, named", validators=[Length(max=limits.LONGEST["bonus_label"])],
                              description="e.g. Cut the exact number of cards")
    event_bonus = _number("That bonus", 0, limits.MOST_BONUS, required=False)
    going_out = TextAreaField("How to go out", validators=[Length(max=limits.LONGEST["going_out"])])
    notes = TextAreaField("Other rules, one per line", validators=[Length(max=limits.LONGEST["notes"])])

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.list_errors: dict[str, list[str]] = {}  # "rounds", "deck_rules", "deck_rules-0": problems of a list or row

    def validate(self, extra_validators=None) -> bool:
        ok = super().validate(extra_validators)
        needs = [(self.going_out_kind.data != "zero", self.going_out_bonus, "Enter the bonus for going out."),
                 (buying.asks_per_game(self.buys_counted.data), self.buys_per_game,
                  "Enter the buys for the whole game."),
                 (bool((self.event_label.data or "").strip()), self.event_bonus, "Enter the bonus's points."),
                 (self.event_bonus.data is not None, self.event_label, "Name the bonus.")]
        for needed, field, message in needs:
            if needed and not field.errors and field.data in (None, ""):
                field.errors.append(message)
                ok = False
        return ok

    def to_variant(self, key: str = "") -> rules.Variant:
        """The rules as typed; call after ``validate``."""
        def text(field) -> str:  # an optional text box left out of the post is empty
            return (field.data or "").strip()

        points = {rank: self[name].data for rank, name in POINT_FIELDS}
        bonuses = []
        for (code, label), field in ((BLIND, self.blind_bonus), (BLIND_NO_JOKER, self.blind_no_joker_bonus)):
            if field.data:
                bonuses.append(rules.Bonus(code, label, -field.data))
        if self.event_bonus.data is not None:
            bonuses.append(rules.Bonus(EVENT, text(self.event_label), -self.event_bonus.data, anyone=True))
        kind = self.going_out_kind.data
        return rules.Variant(
            key=key,
            name=" ".join(self.name.data.split()),
            source=text(self.source),
            min_players=self.min_players.data,
            max_players=self.max_players.data,
            deck_rules=tuple(rules.DeckRule(**row.data) for row in self.deck_rules),
            rounds=tuple(
                rules.Round(n, row.melds.data.strip(), house.parse_melds(row.melds.data),
                            row.cards_dealt.data, row.buy_limit.data)
                for n, row in enumerate((entry.form for entry in self.rounds), start=1)
            ),
            cards_per_buy=self.cards_per_buy.data,
            points=points,
            suit_cards=house.wild_suit_cards(self.wilds.data, self.wild_points.data),
            wild_cards=house.WILD_TWOS[self.wilds.data][0],
            wild_rule=text(self.wild_rule),
            joker_limits=house.parse_joker_limits(self.joker_limits.data or ""),
            min_natural=self.min_natural.data,
            wilds_at_most_naturals=self.wilds_at_most_naturals.data,
            wilds_may_touch=not self.wilds_no_touch.data,
            buying=text(self.buying),
            down_may_buy=self.down_may_buy.data,
            buy_out_of_turn_only=self.buy_out_of_turn_only.data,
            buys_per_turn=self.buys_per_turn.data,
            buys_counted=self.buys_counted.data,
            buys_per_game=self.buys_per_game.data or 0,
            going_out=text(self.going_out),
            going_out_bonus=(self.going_out_bonus.data or 0) if kind != "zero" else 0,
            going_out_per_round=kind == "per-round",
            bonuses=tuple(bonuses),
            can_skip_first_hand=self.can_skip_first_hand.data,
            notes=tuple(line.strip() for line in text(self.notes).splitlines() if line.strip()),
        )


for _rank, _name in POINT_FIELDS:
    setattr(HouseRulesForm, _name, IntegerField("Joker" if _rank == rules.JOKER else _rank, validators=[
        InputRequired("Enter the points."),
        NumberRange(min=0, message="Points cannot be negative: cards left in hand count against you."),
        NumberRange(max=limits.MOST_POINTS, message=f"At most {limits.MOST_POINTS}."),
    ]))


def house_rules_data(variant: rules.Variant) -> dict:
    """The editor's starting values for ``variant`` (a preset to copy, or house rules to edit)."""
    wilds, wild_points = house.wild_option(variant)
    bonus = {b.code: b for b in variant.bonuses}
    event = next((b for b in variant.bonuses if b.anyone), None)
    kind = "zero" if not variant.going_out_bonus else "per-round" if variant.going_out_per_round else "fixed"
    return {
        "name": variant.name, "source": variant.source,
        "min_players": variant.min_players, "max_players": variant.max_players,
        "deck_rules": [vars(rule) for rule in variant.deck_rules],
        "rounds": [{"melds": house.contract_text(r.melds, r.contract), "cards_dealt": r.cards_dealt,
                    "buy_limit": r.buy_limit} for r in variant.rounds],
        "can_skip_first_hand": variant.can_skip_first_hand,
        "cards_per_buy": variant.cards_per_buy, "buys_counted": variant.buys_counted,
        "buys_per_game": variant.buys_per_game or None, "buys_per_turn": variant.buys_per_turn,
        "down_may_buy": variant.down_may_buy, "buy_out_of_turn_only": variant.buy_out_of_turn_only,
        "buying": variant.buying,
        "wilds": wilds, "wild_points": wild_points, "min_natural": variant.min_natural,
        "wilds_at_most_naturals": variant.wilds_at_most_naturals, "wilds_no_touch": not variant.wilds_may_touch,
        "joker_limits": house.describe_joker_limits(variant.joker_limits), "wild_rule": variant.wild_rule,
        "going_out_kind": kind, "going_out_bonus": variant.going_out_bonus or None,
        "blind_bonus": -bonus[BLIND[0]].points if BLIND[0] in bonus else None,
        "blind_no_joker_bonus": -bonus[BLIND_NO_JOKER[0]].points if BLIND_NO_JOKER[0] in bonus else None,
        "event_label": event.label if event else "", "event_bonus": -event.points if event else None,
        "going_out": variant.going_out, "notes": "\n".join(variant.notes),
        **{name: variant.points.get(rank, 0) for rank, name in POINT_FIELDS},
    }


BLANK_RULES = rules.Variant(
    key="", name="", source="", min_players=3, max_players=6,
    deck_rules=(rules.DeckRule(3, 4, 2, 4), rules.DeckRule(5, 6, 3, 6)),
    rounds=(rules.Round(1, "", (), 11, 3),),
    cards_per_buy=2,
    # Face value: number cards their pips, court cards 10.
    points={**{r: int(r) for r in rules.RANKS[:9]}, "J": 10, "Q": 10, "K": 10, "A": 15, rules.JOKER: 25},
)


class VariantImportForm(FlaskForm):
    """A variant file exported by this app (this family's or another's)."""

    file = FileField("Rules file (.json)", validators=[FileRequired("Choose the rules file to import.")])
