"""The shape of a rule set: rounds, decks, buying, wild cards and the point table.

A variant is plain data. It can be written to a dict (``to_dict``) and read back
(``Variant.from_dict``) so that a game keeps a snapshot of the rules it started with.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from functools import cached_property

from .buying import BuyRule, buy_rule
from .cards import JOKER, RANKS, SUIT_DISPLAY, Card


@dataclass(frozen=True)
class Meld:
    """One meld of a contract: a set (same rank) or a run (same suit, in sequence)."""

    kind: str  # "set" or "run"
    size: int
    rank: str | None = None  # a set that must be of this rank ("two aces")

    def __str__(self) -> str:
        if self.rank:
            plural = {"A": "Aces", "K": "Kings", "Q": "Queens", "J": "Jacks"}.get(self.rank)
            plural = plural or self.rank + "s"
            return f"pair of {plural}" if self.size == 2 else f"{self.size} {plural}"
        return f"{self.kind} of {self.size}"


@dataclass(frozen=True)
class Round:
    """One hand of a game: what must be laid down, how many cards are dealt, how many buys."""

    number: int
    contract: str
    melds: tuple[Meld, ...]
    cards_dealt: int
    buy_limit: int

    @property
    def min_cards(self) -> int:
        """The fewest cards that meet the contract."""
        return fewest_cards(self.melds)


def fewest_cards(melds: tuple[Meld, ...]) -> int:
    """The fewest cards that meet a contract of ``melds``: each meld at its size, none wild or extra."""
    return sum(m.size for m in melds)


@dataclass(frozen=True)
class DeckRule:
    """How many decks and jokers go in for a band of player counts."""

    min_players: int
    max_players: int
    decks: int
    jokers: int


@dataclass(frozen=True)
class Decks:
    """The cards shuffled in for one game."""

    decks: int
    jokers: int

    @property
    def cards(self) -> int:
        return self.decks * 52 + self.jokers

    def __str__(self) -> str:
        joker_word = "joker" if self.jokers == 1 else "jokers"
        return f"{self.decks} decks + {self.jokers} {joker_word} ({self.cards} cards)"


@dataclass(frozen=True)
class SuitCard:
    """A card whose value depends on its suit, e.g. black twos that are wild."""

    code: str  # keypad code, e.g. "2B"
    rank: str
    suits: tuple[str, ...]
    points: int
    wild: bool

    @property
    def label(self) -> str:
        return self.rank + "".join(SUIT_DISPLAY[s] for s in self.suits)


@dataclass(frozen=True)
class Key:
    """One key of the card keypad: a rank, the joker, or a suit-dependent card."""

    code: str
    label: str
    points: int
    copies_per_deck: int  # 0 for the joker: its copies come from the deck rule
    wild: bool = False


@dataclass(frozen=True)
class Bonus:
    """A score change for the player who went out in a special way (negative is good)."""

    code: str
    label: str
    points: int
    anyone: bool = False  # True: any player can earn it (a named event), not only who went out


# Fields added after games had been saved with rules snapshots that lack them.
LATER_FIELDS = (
    "min_natural", "wilds_at_most_naturals", "wilds_may_touch", "buy_out_of_turn_only", "buys_per_turn",
    "going_out_bonus", "going_out_per_round", "buys_counted", "buys_per_game",
)


@dataclass(frozen=True)
class Variant:
    """A complete rule set. Numbers only; the app, PDFs and scripts read them from here."""

    key: str
    name: str
    source: str
    min_players: int
    max_players: int
    deck_rules: tuple[DeckRule, ...]
    rounds: tuple[Round, ...]
    cards_per_buy: int
    points: dict[str, int] = field(hash=False)  # rank (and "JK") -> points
    suit_cards: tuple[SuitCard, ...] = ()
    wild_cards: str = "Jokers"
    wild_rule: str = ""
    joker_limits: tuple[tuple[str, int, int], ...] = ()  # (kind, size, most jokers)
    min_natural: int = 0  # natural cards every meld needs; 0: the rules set no number
    wilds_at_most_naturals: bool = False  # a meld may not hold more wild cards than natural ones
    wilds_may_touch: bool = True  # False: two wild cards may not lie side by side
    buying: str = ""
    down_may_buy: bool = False
    buy_out_of_turn_only: bool = False  # the player whose turn it is may not buy
    buys_per_turn: int = 0  # buys allowed during one player's turn, all buyers together; 0: no limit set
    buys_counted: str = "hand"  # one of buying.BUYS_COUNTED
    buys_per_game: int = 0  # the whole game's allowance when buys_counted is "game"
    going_out: str = ""
    going_out_bonus: int = 0  # subtracted from the score of who goes out
    going_out_per_round: bool = False  # the bonus is multiplied by the round number
    bonuses: tuple[Bonus, ...] = ()
    can_skip_first_hand: bool = False
    notes: tuple[str, ...] = ()

    # -- players and decks ------------------------------------------------------------
    def decks_for(self, players: int) -> Decks:
        """Decks and jokers for ``players``; ``ValueError`` outside the preset's range."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"{self.name} is for {self.min_players}–{self.max_players} players, not {players}"
            )
        for rule in self.deck_rules:
            if rule.min_players <= players <= rule.max_players:
                return Decks(rule.decks, rule.jokers)
        raise ValueError(f"{self.name} has no deck rule for {players} players")

    # -- rounds -----------------------------------------------------------------------
    def round(self, number: int) -> Round:
        """The round with this (1-based) number."""
        for r in self.rounds:
            if r.number == number:
                return r
        raise ValueError(f"{self.name} has no round {number}")

    def hand_numbers(self, skip_first_hand: bool = False) -> list[int]:
        """The round numbers a game plays, in order."""
        numbers = [r.number for r in self.rounds]
        if skip_first_hand:
            if not self.can_skip_first_hand:
                raise ValueError(f"{self.name} has no option to skip hand 1")
            numbers = numbers[1:]
        return numbers

    @property
    def buy_rule(self) -> BuyRule:
        """How this variant counts buys (``rules.buying``): limits, refusals and their words."""
        return buy_rule(self)

    def most_buys(self, round_: Round) -> int:
        """The most buys anyone can make in ``round_``, whatever the earlier hands were."""
        return self.buy_rule.most(round_)

    def buys_allowed(self, round_: Round, earlier: list[tuple[Round, int]]) -> int:
        """One player's buy limit in ``round_``, given ``(round, buys made)`` of the hands played before."""
        return self.buy_rule.allowed(round_, earlier)

    def max_hand(self, round_: Round) -> int:
        """Most cards a player can hold when the hand ends: dealt plus every buy."""
        return round_.cards_dealt + self.most_buys(round_) * self.cards_per_buy

    def going_out_points(self, round_number: int) -> int:
        """Points for the player who goes out (a bonus is negative)."""
        per = round_number if self.going_out_per_round else 1
        return -self.going_out_bonus * per

    @property
    def has_jokers(self) -> bool:
        return any(rule.jokers for rule in self.deck_rules)

    # -- cards and points -------------------------------------------------------------
    @cached_property
    def keys(self) -> tuple[Key, ...]:
        """The keypad: one key per rank 2…A, a key per suit-dependent card, the joker."""
        keys = []
        for rank in RANKS:
            special = [sc for sc in self.suit_cards if sc.rank == rank]
            plain_suits = 4 - sum(len(sc.suits) for sc in special)
            label = rank
            if special:
                taken = {s for sc in special for s in sc.suits}
                label = rank + "".join(SUIT_DISPLAY[s] for s in "SHDC" if s not in taken)
            if plain_suits:  # all four 2s wild: the 2 has only its wild key
                keys.append(Key(rank, label, self.points[rank], plain_suits))
            for sc in special:
                keys.append(Key(sc.code, sc.label, sc.points, len(sc.suits), sc.wild))
        if self.has_jokers:
            keys.append(Key(JOKER, "Joker", self.points[JOKER], 0, True))
        return tuple(keys)

    def key_by_code(self, code: str) -> Key:
        for k in self.keys:
            if k.code == code:
                return k
        raise ValueError(f"'{code}' is not a card key of {self.name}")

    def key_for_card(self, card: Card) -> Key:
        """The keypad key a physical card is entered with."""
        if card.is_joker:
            return self.key_by_code(JOKER)
        for sc in self.suit_cards:
            if sc.rank == card.rank and card.suit in sc.suits:
                return self.key_by_code(sc.code)
        return self.key_by_code(card.rank)

    def copies(self, key: Key, decks: Decks) -> int:
        """How many cards of this key the decks in play hold."""
        return decks.jokers if key.code == JOKER else key.copies_per_deck * decks.decks

    # -- snapshot ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        """A JSON-ready copy of every rule, for a game's snapshot."""
        return {
            "key": self.key,
            "name": self.name,
            "source": self.source,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "deck_rules": [dict(vars(d)) for d in self.deck_rules],
            "rounds": [
                {
                    "number": r.number,
                    "contract": r.contract,
                    "melds": [dict(vars(m)) for m in r.melds],
                    "cards_dealt": r.cards_dealt,
                    "buy_limit": r.buy_limit,
                }
                for r in self.rounds
            ],
            "cards_per_buy": self.cards_per_buy,
            "points": dict(self.points),
            "suit_cards": [
                {**vars(sc), "suits": list(sc.suits)} for sc in self.suit_cards
            ],
            "wild_cards": self.wild_cards,
            "wild_rule": self.wild_rule,
            "joker_limits": [list(j) for j in self.joker_limits],
            "min_natural": self.min_natural,
            "wilds_at_most_naturals": self.wilds_at_most_naturals,
            "wilds_may_touch": self.wilds_may_touch,
            "buying": self.buying,
            "down_may_buy": self.down_may_buy,
            "buy_out_of_turn_only": self.buy_out_of_turn_only,
            "buys_per_turn": self.buys_per_turn,
            "buys_counted": self.buys_counted,
            "buys_per_game": self.buys_per_game,
            "going_out": self.going_out,
            "going_out_bonus": self.going_out_bonus,
            "going_out_per_round": self.going_out_per_round,
            "bonuses": [dict(vars(b)) for b in self.bonuses],
            "can_skip_first_hand": self.can_skip_first_hand,
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Variant:
        """Rebuild a variant written by ``to_dict``."""
        return cls(
            key=data["key"],
            name=data["name"],
            source=data["source"],
            min_players=data["min_players"],
            max_players=data["max_players"],
            deck_rules=tuple(DeckRule(**d) for d in data["deck_rules"]),
            rounds=tuple(
                Round(
                    number=r["number"],
                    contract=r["contract"],
                    melds=tuple(Meld(**m) for m in r["melds"]),
                    cards_dealt=r["cards_dealt"],
                    buy_limit=r["buy_limit"],
                )
                for r in data["rounds"]
            ),
            cards_per_buy=data["cards_per_buy"],
            points=dict(data["points"]),
            suit_cards=tuple(
                SuitCard(**{**sc, "suits": tuple(sc["suits"])}) for sc in data["suit_cards"]
            ),
            wild_cards=data["wild_cards"],
            wild_rule=data["wild_rule"],
            joker_limits=tuple(tuple(j) for j in data["joker_limits"]),
            buying=data["buying"],
            down_may_buy=data["down_may_buy"],
            going_out=data["going_out"],
            bonuses=tuple(Bonus(**b) for b in data["bonuses"]),
            can_skip_first_hand=data["can_skip_first_hand"],
            notes=tuple(data["notes"]),
            # Games saved before these rules were written down keep the defaults: "not stated".
            **{name: data[name] for name in LATER_FIELDS if name in data},
        )


def well_typed(value, hint=Variant) -> bool:
    """Whether ``value`` matches the type ``hint`` all the way down (a ``Variant`` by default):
    a rules snapshot read from a file can hold a list where text belongs, which would break
    pages far from where it was read. Text must hold no NUL character."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(well_typed(value, arg) for arg in args)
    if hint is type(None):
        return value is None
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(well_typed(item, args[0]) for item in value)
        return len(value) == len(args) and all(map(well_typed, value, args))
    if origin is dict:
        return isinstance(value, dict) and all(
            well_typed(k, args[0]) and well_typed(v, args[1]) for k, v in value.items()
        )
    if dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return isinstance(value, hint) and all(
            well_typed(getattr(value, f.name), hints[f.name]) for f in dataclasses.fields(hint)
        )
    if hint is str:
        return isinstance(value, str) and "\x00" not in value
    return type(value) is hint  # int and bool, which are not each other here
