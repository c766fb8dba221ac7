"""The four presets. Every number is from the rules specification (tests/spec/variants.md, a copy of the
project's shared specification); the readings of contradictions between the documents are noted there.
Sources are cited by the documents' titles."""

from __future__ import annotations

from .variants import Bonus, DeckRule, Meld, Round, SuitCard, Variant

SET3 = Meld("set", 3)
RUN4 = Meld("run", 4)


def _run(size: int) -> Meld:
    return Meld("run", size)


def _rounds(contracts, cards_dealt, buy_limit) -> tuple[Round, ...]:
    """Number the contracts 1…n; ``cards_dealt``/``buy_limit`` are callables of the number."""
    return tuple(
        Round(n, text, tuple(melds), cards_dealt(n), buy_limit(n))
        for n, (text, melds) in enumerate(contracts, start=1)
    )


def _points(number_cards, tens_to_kings: dict[str, int], ace: int, joker: int) -> dict[str, int]:
    points = {str(r): number_cards(r) for r in range(2, 10)}
    points.update(tens_to_kings)
    points.update({"A": ace, "JK": joker})
    return points


FAMILY_7 = Variant(
    key="family-7",
    name="Shanghai Rummy (family rules, 7 hands)",
    source="“Shanghai Rummy — one family’s rules, handed down through the generations” (a family’s written rules)",
    min_players=3,
    max_players=8,
    # The text names no deck count; house default, all jokers in.
    deck_rules=(DeckRule(3, 4, 2, 4), DeckRule(5, 6, 3, 6), DeckRule(7, 8, 4, 8)),
    rounds=_rounds(
        [
            ("two sets", [SET3, SET3]),
            ("one set, one run", [SET3, RUN4]),
            ("two runs", [RUN4, RUN4]),
            ("three sets", [SET3, SET3, SET3]),
            ("two sets, one run", [SET3, SET3, RUN4]),
            ("one set, two runs", [SET3, RUN4, RUN4]),
            ("three runs", [RUN4, RUN4, RUN4]),
        ],
        cards_dealt=lambda n: 11,
        buy_limit=lambda n: 4,
    ),
    cards_per_buy=2,
    points=_points(lambda r: 5, {"10": 10, "J": 10, "Q": 10, "K": 10}, ace=15, joker=20),
    wild_cards="Jokers",
    wild_rule="Any number of jokers in a meld, but every meld needs at least one natural card. "
    "A joker in a run may be taken by playing the card it stands for; jokers in sets are dead.",
    min_natural=1,
    buying="Out of turn only: the buyer takes the discard and the top card of the draw pile and "
    "discards nothing. One buy per turn. Closest to the current player's left wins a tie.",
    down_may_buy=False,
    buy_out_of_turn_only=True,
    buys_per_turn=1,
    going_out="Meld or discard your last card; the hand ends at once.",
    can_skip_first_hand=True,
    notes=(
        "Sets of 3 or more, runs of 4 or more; melds may be longer than needed; "
        "two touching runs are allowed.",
        "Play on others' melds only from the turn after laying down.",
        "Hand 1 is often skipped for a quicker game (6 hands, starting at hand 2).",
    ),
)

SHANGHAI_RUM = Variant(
    key="shanghai-rum",
    name="Shanghai rum (black twos wild)",
    source="“Shanghai Card Game” web page — its “Shanghai rum” rules",
    min_players=3,
    max_players=8,
    # 7–8 players is not stated; reading: 4 decks (the text says "2-4" decks).
    deck_rules=(DeckRule(3, 4, 2, 4), DeckRule(5, 6, 3, 6), DeckRule(7, 8, 4, 8)),
    rounds=_rounds(
        [
            ("two aces and one set of 3", [Meld("set", 2, "A"), SET3]),
            ("two sets of 3", [SET3, SET3]),
            ("one set of 3 and one run of 4", [SET3, RUN4]),
            ("two runs of 4", [RUN4, RUN4]),
            ("three sets of 3", [SET3, SET3, SET3]),
            ("two sets of 3 and one run of 4", [SET3, SET3, RUN4]),
            ("one set of 3 and two runs of 4", [SET3, RUN4, RUN4]),
            ("three runs of 4", [RUN4, RUN4, RUN4]),
            ("one run of 7 and one set of 3", [_run(7), SET3]),
            ("one run of 5 and one run of 6", [_run(5), _run(6)]),
        ],
        cards_dealt=lambda n: 11,
        buy_limit=lambda n: 2,
    ),
    cards_per_buy=3,
    points=_points(lambda r: 5, {"10": 5, "J": 10, "Q": 10, "K": 10}, ace=15, joker=25),
    suit_cards=(SuitCard("2B", "2", ("S", "C"), 50, wild=True),),
    wild_cards="Jokers and black twos (2♠ 2♣); red twos are natural",
    wild_rule="A meld may not hold more wild cards than natural cards.",
    wilds_at_most_naturals=True,
    buying="The buyer takes the upcard plus 2 cards from the deck and discards nothing. "
    "The current player has precedence, then the closest to the current player's left.",
    down_may_buy=False,
    going_out="Play your last card on the table; you may not go out by discarding.",
    notes=("Hand 1: a pair of Aces plus a set of 3.",),
)

SHANGHAI_10 = Variant(
    key="shanghai-10",
    name="Shanghai Rummy (10 contracts)",
    source=(
        "“Shanghai Card Game” web page — its “Shanghai Rummy” rules with ten contracts; "
        "Angie’s Products, “Shanghai Rummy: Rules”"
    ),
    min_players=2,
    max_players=8,
    deck_rules=(DeckRule(2, 4, 2, 1), DeckRule(5, 8, 3, 2)),
    rounds=_rounds(
        [
            ("two sets of 3", [SET3, SET3]),
            ("one set of 3 and one sequence of 4", [SET3, RUN4]),
            ("two sequences of 4", [RUN4, RUN4]),
            ("three sets of 3", [SET3, SET3, SET3]),
            ("one set of 3 and one sequence of 7", [SET3, _run(7)]),
            ("two sets of 3 and one sequence of 5", [SET3, SET3, _run(5)]),
            ("three sequences of 4", [RUN4, RUN4, RUN4]),
            ("one set of 3 and one sequence of 10", [SET3, _run(10)]),
            ("three sets of 3 and one sequence of 5", [SET3, SET3, SET3, _run(5)]),
            ("three sequences of 5", [_run(5), _run(5), _run(5)]),
        ],
        cards_dealt=lambda n: 11,
        buy_limit=lambda n: 3 if n <= 8 else 4,
    ),
    cards_per_buy=2,
    points=_points(lambda r: 5, {"10": 5, "J": 10, "Q": 10, "K": 10}, ace=15, joker=15),
    wild_cards="Jokers",
    wild_rule="Jokers per meld: 1 in a set of 3 or a sequence of 4, 2 in a sequence of 5, "
    "3 in a sequence of 7, 4 in a sequence of 10.",
    joker_limits=(("set", 3, 1), ("run", 4, 1), ("run", 5, 2), ("run", 7, 3), ("run", 10, 4)),
    buying="The buyer takes the discard plus 1 penalty card from the stock. The player whose "
    "turn comes first has priority; the player who passed on the discard then draws from the stock.",
    # The documents do not forbid it; the app lets a player who is down buy.
    down_may_buy=True,
    going_out="Play all your remaining cards. Going out blind (the whole hand in one play) "
    "earns a bonus of 25, or 50 if no joker was used; a bonus is subtracted from the score.",
    bonuses=(
        Bonus("blind", "Went out blind (used a joker)", -25),
        Bonus("blind-no-joker", "Went out blind, no joker", -50),
    ),
    notes=(
        "Lowest card on the cut deals first (Ace low).",
        "Lay off only from the turn after laying down the contract.",
        "Two sequences of one suit in the same contract must not join into one run.",
    ),
)

ONLINE_11 = Variant(
    key="online-11",
    name="Shanghai Rummy (11 rounds)",
    source="“Shanghai Rummy Rules” of an online Shanghai Rummy game (share-link play with hints)",
    min_players=2,
    max_players=8,
    deck_rules=(DeckRule(2, 6, 2, 4), DeckRule(7, 8, 3, 6)),
    rounds=_rounds(
        [
            ("two sets", [SET3, SET3]),
            ("one set and one run", [SET3, RUN4]),
            ("two runs", [RUN4, RUN4]),
            ("three sets", [SET3, SET3, SET3]),
            ("two sets and one run", [SET3, SET3, RUN4]),
            ("two runs and one set", [RUN4, RUN4, SET3]),
            ("three runs", [RUN4, RUN4, RUN4]),
            ("three sets and one run", [SET3, SET3, SET3, RUN4]),
            ("three runs and one set", [RUN4, RUN4, RUN4, SET3]),
            ("four sets", [SET3, SET3, SET3, SET3]),
            ("four runs", [RUN4, RUN4, RUN4, RUN4]),
        ],
        cards_dealt=lambda n: 13 if n >= 10 else 11,
        buy_limit=lambda n: 3,
    ),
    cards_per_buy=2,
    points=_points(int, {"10": 10, "J": 10, "Q": 10, "K": 10}, ace=20, joker=50),
    suit_cards=(SuitCard("2C", "2", ("C",), 50, wild=True),),
    wild_cards="Jokers and the 2♣",
    wild_rule="Every set or run needs at least 2 natural cards; wild cards may not touch.",
    min_natural=2,
    wilds_may_touch=False,
    buying="The buyer gets the discard plus 1 card from the draw pile. The active player and "
    "every player ahead of the buyer have first dibs; a discard is dead once the next player "
    "draws from the draw pile.",
    down_may_buy=False,
    going_out="Lay down exactly the contract's melds, no extra ones; then play off all cards.",
    notes=(
        "Sets of 3 or more, runs of 4 or more, runs as long as you like.",
        "A wild card on the table may be exchanged only by a player ready to lay down.",
    ),
)
