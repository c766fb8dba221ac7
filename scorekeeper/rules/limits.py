"""What a card table can mean: the largest number each rule may hold, and the checks that keep every
number of a variant inside them. The editor's fields, rules files, a family's export and a stored
game's rules are all held to these same bounds (``house.variant_problems`` calls ``bound_problems``).

With these bounds no score can leave a 32-bit integer column: a hand holds at most
``MOST_DEALT + MOST_BUYS × MOST_ROUNDS × MOST_CARDS_PER_BUY`` cards (buys carried over every hand)
of at most ``MOST_POINTS`` each, about 6 million points, and a game at most 20 such hands.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import JOKER, RANKS
from .variants import Variant

MOST_PLAYERS = 12
MOST_ROUNDS = 20
MOST_DEALT = 30  # cards dealt to each player
MOST_BUYS = 20  # buys in one hand
MOST_CARDS_PER_BUY = 10
MOST_BUYS_PER_TURN = 10
MOST_BUYS_PER_GAME = MOST_BUYS * MOST_ROUNDS  # the editor's ceiling; a variant's own is MOST_BUYS × its rounds
MOST_DECKS = 8
MOST_JOKERS = 32
MOST_POINTS = 1000  # one card left in hand
MOST_BONUS = 1000  # a bonus's size, either sign
MOST_BONUSES = 8
MOST_MELDS = 8  # melds in one round's contract
MOST_MELD = 14  # cards in one meld: a run is at most A to A
MOST_JOKER_LIMITS = 2 * MOST_MELD  # one per kind and size
SUITS = "SHDC"
# Longest text of each rule, as the editor takes it: field -> characters.
LONGEST = {"contract": 120, "source": 200, "wild_cards": 200, "wild_rule": 500, "buying": 500, "going_out": 500,
           "notes": 2000, "bonus_label": 60}


@dataclass(frozen=True)
class Problem:
    """A rule that cannot work, and the field it belongs beside."""

    field: str  # "min_players", "rounds-2-melds", "deck_rules-0", "points-A", ...
    message: str


def bound_problems(variant: Variant) -> list[Problem]:
    """Numbers (and texts) of ``variant`` beyond what a card table can mean. The lower bounds and
    whether the rules can be played at all are ``house.variant_problems``'s."""
    problems = []
    if len(variant.rounds) > MOST_ROUNDS:
        problems.append(Problem("rounds", f"At most {MOST_ROUNDS} rounds."))
    elif [r.number for r in variant.rounds] != list(range(1, len(variant.rounds) + 1)):
        problems.append(Problem("rounds", "Rounds are numbered 1, 2, 3… in order."))
    if len(variant.deck_rules) > MOST_PLAYERS:
        problems.append(Problem("deck_rules", f"At most {MOST_PLAYERS} rows of decks."))
    if variant.cards_per_buy > MOST_CARDS_PER_BUY:
        problems.append(Problem("cards_per_buy", f"A buy brings at most {MOST_CARDS_PER_BUY} cards."))
    if not 0 <= variant.buys_per_turn <= MOST_BUYS_PER_TURN:
        problems.append(Problem("buys_per_turn", f"Between 0 and {MOST_BUYS_PER_TURN} buys per turn."))
    most = MOST_BUYS * min(max(len(variant.rounds), 1), MOST_ROUNDS)
    if not 0 <= variant.buys_per_game <= most:
        problems.append(Problem("buys_per_game", f"Between 0 and {most} buys in the whole game "
                                                 f"({MOST_BUYS} a hand at most)."))
    if not 0 <= variant.min_natural <= MOST_MELD:
        problems.append(Problem("min_natural", f"Between 0 and {MOST_MELD} natural cards."))
    return problems + _card_bounds(variant) + _text_bounds(variant)


def round_bounds(where: str, cards_dealt: int, buy_limit: int, melds: tuple) -> list[Problem]:
    """One round's numbers beyond the bounds (``where`` is ``rounds-2``)."""
    problems = []
    if cards_dealt > MOST_DEALT:
        problems.append(Problem(f"{where}-cards_dealt", f"Deal at most {MOST_DEALT} cards."))
    if buy_limit > MOST_BUYS:
        problems.append(Problem(f"{where}-buy_limit", f"At most {MOST_BUYS} buys in a hand."))
    if len(melds) > MOST_MELDS:
        problems.append(Problem(f"{where}-melds", f"At most {MOST_MELDS} melds in one round."))
    if any(m.rank is not None and m.rank not in RANKS for m in melds):
        problems.append(Problem(f"{where}-melds", "A set of one rank names a rank from 2 to A."))
    return problems


def meld_fits(kind: str, size: int) -> bool:
    """Whether a meld of this kind and size can be laid down: a set of 2 or more, a run of 3 to 14."""
    return kind in ("set", "run") and (3 if kind == "run" else 2) <= size <= MOST_MELD


def _card_bounds(variant: Variant) -> list[Problem]:
    problems = []
    for i, rule in enumerate(variant.deck_rules):
        if rule.decks > MOST_DECKS or rule.jokers > MOST_JOKERS:
            problems.append(Problem(f"deck_rules-{i}", f"At most {MOST_DECKS} decks and {MOST_JOKERS} jokers."))
    for rank, points in variant.points.items():
        if points > MOST_POINTS:
            problems.append(Problem(f"points-{rank if rank in (*RANKS, JOKER) else JOKER}",
                                    f"At most {MOST_POINTS} points a card."))
    taken = [(sc.rank, suit) for sc in variant.suit_cards for suit in sc.suits]
    odd = [sc for sc in variant.suit_cards if sc.rank not in RANKS or not sc.suits or not set(sc.suits) <= set(SUITS)]
    if len(variant.suit_cards) > len(SUITS) or len(set(taken)) != len(taken) or odd:
        problems.append(Problem("wild_points", "Cards scored by suit name a rank and suits (S, H, D, C), each once."))
    if any(sc.points > MOST_POINTS for sc in variant.suit_cards):
        problems.append(Problem("wild_points", f"At most {MOST_POINTS} points a card."))
    if len(variant.joker_limits) > MOST_JOKER_LIMITS or any(
            not meld_fits(kind, size) for kind, size, _ in variant.joker_limits):
        problems.append(Problem("joker_limits", "Limit jokers in sets of 2 to 14 and runs of 3 to 14 cards."))
    if variant.going_out_bonus > MOST_BONUS:
        problems.append(Problem("going_out_bonus", f"At most {MOST_BONUS}."))
    if len(variant.bonuses) > MOST_BONUSES:
        problems.append(Problem("bonus-event", f"At most {MOST_BONUSES} bonuses."))
    problems += [Problem(f"bonus-{b.code}", f"At most {MOST_BONUS}.")
                 for b in variant.bonuses[:MOST_BONUSES] if b.points < -MOST_BONUS]
    return problems


def _text_bounds(variant: Variant) -> list[Problem]:
    texts = [("source", variant.source, "source"), ("wild_cards", variant.wild_cards, "wilds"),
             ("wild_rule", variant.wild_rule, "wild_rule"), ("buying", variant.buying, "buying"),
             ("going_out", variant.going_out, "going_out"), ("notes", "\n".join(variant.notes), "notes")]
    texts += [("contract", r.contract, f"rounds-{i}-melds") for i, r in enumerate(variant.rounds[:MOST_ROUNDS])]
    texts += [("bonus_label", b.label, f"bonus-{b.code}") for b in variant.bonuses[:MOST_BONUSES]]
    return [Problem(field, f"At most {LONGEST[kind]} characters.") for kind, text, field in texts
            if len(text) > LONGEST[kind]]
