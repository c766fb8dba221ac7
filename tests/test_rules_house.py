"""House rules as plain data: melds in words, wild 2s, the checks a family's variant must pass,
and the buying and going-out rules they added. Expected values are written by hand."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scorekeeper.rules import VARIANTS, Bonus, DeckRule, Meld, Round, get_variant, round_reminders
from scorekeeper.rules.house import (
    WILD_TWOS,
    Problem,
    contract_text,
    describe_joker_limits,
    describe_melds,
    parse_joker_limits,
    parse_melds,
    variant_problems,
    wild_option,
    wild_suit_cards,
)
from scorekeeper.rules.variants import LATER_FIELDS, SuitCard, Variant

S10 = get_variant("shanghai-10")  # 2-8 players; rows 2-4: 2 decks + 1 joker, 5-8: 3 decks + 2 jokers
SET3, RUN4, RUN5 = Meld("set", 3), Meld("run", 4), Meld("run", 5)
ACES, KINGS = Meld("set", 2, "A"), Meld("set", 3, "K")
PLAIN = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def with_round(variant: Variant, index: int, **changes) -> Variant:
    rounds = list(variant.rounds)
    rounds[index] = replace(rounds[index], **changes)
    return replace(variant, rounds=tuple(rounds))


def three_rounds(limits: tuple[int, int, int], **changes) -> Variant:
    rounds = tuple(Round(n, "two sets of 3", (SET3, SET3), 11, limit) for n, limit in enumerate(limits, 1))
    return replace(S10, rounds=rounds, **changes)


def reminder(variant: Variant, number: int, topic: str) -> str:
    return next(r.text for r in round_reminders(variant, variant.round(number)) if r.topic == topic)


# -- melds in words -------------------------------------------------------------------------

@pytest.mark.parametrize("text, melds", [
    ("2 sets of 3, 1 run of 4", (SET3, SET3, RUN4)),
    ("two sets of 3 and one run of 4", (SET3, SET3, RUN4)),
    ("pair of Aces", (ACES,)),
    ("3 Kings", (KINGS,)),
    ("set of 3 Queens", (Meld("set", 3, "Q"),)),
    ("a group of 3; a book of 4 + one sequence of 5", (SET3, Meld("set", 4), RUN5)),
    ("Three 10s and a pair of 2s", (Meld("set", 3, "10"), Meld("set", 2, "2"))),
    ("three runs of 4 and one set of three", (RUN4, RUN4, RUN4, SET3)),
    ("8 sets of 3", (SET3,) * 8),
    ("  ", ()),
])
def test_parse_melds_reads_what_people_write(text, melds):
    assert parse_melds(text) == melds


@pytest.mark.parametrize("text, message", [
    ("2 sets of 3, 3 kangaroos",
     "Could not read “3 kangaroos”. Write melds such as “2 sets of 3, 1 run of 4” or “pair of Aces”."),
    ("one run of 4 kings", "“one run of 4 kings”: a run is of one suit, not of one rank."),
    ("9 sets of 3", "At most 8 melds in one round."),
    ("4 sets of 3, 4 runs of 4, pair of aces", "At most 8 melds in one round."),
])
def test_parse_melds_says_which_part_it_could_not_read(text, message):
    with pytest.raises(ValueError) as error:
        parse_melds(text)
    assert str(error.value) == message


@pytest.mark.parametrize("melds, text", [
    ((SET3, SET3, RUN4), "two sets of 3 and one run of 4"),
    ((ACES, SET3), "pair of Aces and one set of 3"),
    ((SET3, RUN4, SET3), "one set of 3, one run of 4 and one set of 3"),
    ((RUN4, RUN4, RUN4, RUN4), "four runs of 4"),
    ((KINGS,), "3 Kings"),
    ((), ""),
])
def test_describe_melds_in_plain_words(melds, text):
    assert describe_melds(melds) == text
    assert parse_melds(text) == melds


@pytest.mark.parametrize("melds, said, shown", [
    ((SET3, RUN4), "one set of 3 and one sequence of 4", "one set of 3 and one sequence of 4"),
    ((ACES, SET3), "two aces and one set of 3", "two aces and one set of 3"),
    ((SET3, RUN4), "one set, one run", "one set of 3 and one run of 4"),  # cannot be read back
    ((SET3, SET3), "three sets of 3", "two sets of 3"),  # reads back to other melds
])
def test_contract_text_keeps_the_rules_words_only_when_they_read_back(melds, said, shown):
    assert contract_text(melds, said) == shown


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_every_preset_round_reads_back_from_its_plain_words(key):
    for r in VARIANTS[key].rounds:
        assert parse_melds(describe_melds(r.melds)) == r.melds, (key, r.number)


# -- joker limits and wild 2s ---------------------------------------------------------------

def test_joker_limits_in_words():
    assert parse_joker_limits("set of 3: 1, run of 4: 1") == (("set", 3, 1), ("run", 4, 1))
    assert parse_joker_limits("a sequence of 5 = 2; book of three: one") == (("run", 5, 2), ("set", 3, 1))
    assert parse_joker_limits("") == ()
    assert describe_joker_limits(S10.joker_limits) == "set of 3: 1, run of 4: 1, run of 5: 2, run of 7: 3, run of 10: 4"
    with pytest.raises(ValueError) as error:
        parse_joker_limits("set of 3: 1, run of 4 1")
    assert str(error.value) == "Could not read “run of 4 1”. Write limits such as “set of 3: 1, run of 4: 1”."


def test_wild_two_choices_and_the_cards_they_make():
    assert list(WILD_TWOS) == ["none", "jokers", "black-2s", "2c", "all-2s"]
    assert wild_suit_cards("none", 50) == wild_suit_cards("jokers", 50) == ()
    assert wild_suit_cards("black-2s", 50) == (SuitCard("2B", "2", ("S", "C"), 50, wild=True),)
    assert wild_suit_cards("2c", 25) == (SuitCard("2C", "2", ("C",), 25, wild=True),)
    assert wild_suit_cards("all-2s", 20) == (SuitCard("2W", "2", ("S", "H", "D", "C"), 20, wild=True),)


@pytest.mark.parametrize("variant, option", [
    (get_variant("shanghai-rum"), ("black-2s", 50)),
    (get_variant("online-11"), ("2c", 50)),
    (S10, ("jokers", 5)),
    (replace(S10, deck_rules=(DeckRule(2, 4, 2, 0), DeckRule(5, 8, 3, 0))), ("none", 5)),
    (replace(S10, suit_cards=wild_suit_cards("all-2s", 20)), ("all-2s", 20)),
])
def test_wild_option_names_the_editors_choice(variant, option):
    assert wild_option(variant) == option


def test_keypad_leaves_out_the_joker_without_jokers_and_the_plain_2_when_all_2s_are_wild():
    assert [k.code for k in S10.keys] == ["2", *PLAIN, "JK"]
    no_jokers = replace(S10, deck_rules=(DeckRule(2, 4, 2, 0), DeckRule(5, 8, 3, 0)))
    assert no_jokers.has_jokers is False and S10.has_jokers is True
    assert [k.code for k in no_jokers.keys] == ["2", *PLAIN]
    all_2s = replace(S10, suit_cards=wild_suit_cards("all-2s", 20))
    assert [k.code for k in all_2s.keys] == ["2W", *PLAIN, "JK"]
    wild = all_2s.key_by_code("2W")
    assert (wild.label, wild.points, wild.copies_per_deck, wild.wild) == ("2♠♥♦♣", 20, 4, True)
    black = replace(S10, suit_cards=wild_suit_cards("black-2s", 50))
    assert [k.code for k in black.keys] == ["2", "2B", *PLAIN, "JK"]
    assert (black.key_by_code("2").label, black.key_by_code("2").copies_per_deck) == ("2♥♦", 2)


# -- buying and going out -------------------------------------------------------------------

def test_carried_buys_worked_example():
    variant = three_rounds((1, 1, 2), buys_counted="carry")
    r1, r2, r3 = variant.rounds
    assert variant.buys_allowed(r1, []) == 1
    assert variant.buys_allowed(r2, [(r1, 0)]) == 2
    assert variant.buys_allowed(r3, [(r1, 0), (r2, 1)]) == 3  # 2 + (1 - 0) + (1 - 1)
    assert variant.buys_allowed(r3, [(r1, 1), (r2, 1)]) == 2
    assert [variant.most_buys(r) for r in variant.rounds] == [1, 2, 4]


def test_carried_buys_used_in_a_later_hand_are_not_carried_again():
    variant = three_rounds((1, 1, 1), buys_counted="carry")
    r1, r2, r3 = variant.rounds
    assert variant.buys_allowed(r2, [(r1, 0)]) == 2  # round 1's unused buy is spent in round 2
    assert variant.buys_allowed(r3, [(r1, 0), (r2, 2)]) == 1  # 3 buys in all, 2 used


def test_buys_for_the_whole_game():
    variant = three_rounds((3, 3, 1), buys_counted="game", buys_per_game=3)
    r1, r2, r3 = variant.rounds
    assert variant.buys_allowed(r2, [(r1, 2)]) == 1  # min(3, 3 - 2)
    assert variant.buys_allowed(r2, [(r1, 0)]) == 3
    assert variant.buys_allowed(r3, [(r1, 0), (r2, 0)]) == 1  # the round's own limit
    assert variant.buys_allowed(r3, [(r1, 2), (r2, 1)]) == 0
    assert variant.buys_allowed(r3, [(r1, 3), (r2, 2)]) == 0  # never negative
    two = replace(variant, buys_per_game=2)
    assert [two.most_buys(r) for r in two.rounds] == [2, 2, 1]


def test_buys_per_hand_ignore_earlier_hands():
    variant = three_rounds((1, 1, 2))
    assert variant.buys_counted == "hand"
    assert variant.buys_allowed(variant.rounds[2], [(variant.rounds[0], 0), (variant.rounds[1], 0)]) == 2
    assert variant.most_buys(variant.rounds[2]) == 2


def test_max_hand_is_dealt_plus_every_buy():
    assert S10.max_hand(S10.round(1)) == 17  # 11 + 3 buys × 2
    assert replace(S10, buys_counted="carry").max_hand(S10.round(3)) == 29  # 11 + 9 × 2
    assert replace(S10, buys_counted="game", buys_per_game=2).max_hand(S10.round(1)) == 15  # 11 + 2 × 2


def test_going_out_points():
    assert S10.going_out_points(4) == 0
    assert replace(S10, going_out_bonus=10).going_out_points(3) == -10
    per_round = replace(S10, going_out_bonus=5, going_out_per_round=True)
    assert (per_round.going_out_points(2), per_round.going_out_points(7)) == (-10, -35)


def test_buying_reminders_for_carry_and_game():
    brings = "A buy brings 2 cards: the discard and 1 from the draw pile."
    assert reminder(replace(S10, buys_counted="carry"), 1, "buying") == (
        f"{brings} Up to 3 buys each this round. Buys not used in earlier hands are added.")
    assert reminder(replace(S10, buys_counted="game", buys_per_game=5), 9, "buying") == (
        f"{brings} 5 buys each for the whole game, at most 4 this round.")


def test_going_out_reminders():
    plain = replace(S10, going_out="")
    assert reminder(plain, 1, "going-out") == "Going out scores 0."
    assert reminder(S10, 1, "going-out").endswith("(the whole hand in one play) earns a bonus of 25, or 50 if "
                                                  "no joker was used; a bonus is subtracted from the score. "
                                                  "Going out scores 0.")
    assert reminder(replace(plain, going_out_bonus=10), 3, "going-out") == "Going out scores \u221210."
    per_round = replace(plain, going_out_bonus=5, going_out_per_round=True)
    assert reminder(per_round, 2, "going-out") == "Going out scores \u221210 (\u22125 × round 2)."


# -- snapshots ------------------------------------------------------------------------------

def test_new_fields_survive_a_snapshot():
    variant = replace(S10, buys_counted="game", buys_per_game=6, going_out_bonus=10, going_out_per_round=True,
                      bonuses=(*S10.bonuses, Bonus("event", "Cut the exact number", -10, anyone=True)))
    data = variant.to_dict()
    assert (data["buys_counted"], data["buys_per_game"], data["going_out_bonus"]) == ("game", 6, 10)
    assert data["going_out_per_round"] is True
    assert [b["anyone"] for b in data["bonuses"]] == [False, False, True]
    assert Variant.from_dict(data) == variant


def test_an_old_snapshot_gets_the_defaults():
    data = replace(get_variant("family-7"), buys_counted="carry", going_out_bonus=10).to_dict()
    for name in LATER_FIELDS:
        del data[name]
    data["bonuses"] = [{"code": "blind", "label": "Blind", "points": -25}]
    old = Variant.from_dict(data)
    assert (old.buys_counted, old.buys_per_game, old.going_out_bonus, old.going_out_per_round) == ("hand", 0, 0, False)
    assert (old.min_natural, old.buys_per_turn, old.buy_out_of_turn_only) == (0, 0, False)
    assert old.bonuses == (Bonus("blind", "Blind", -25, anyone=False),)


# -- variant_problems -----------------------------------------------------------------------

@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_presets_have_no_problems(key):
    assert variant_problems(VARIANTS[key]) == []


ROWS_2_4 = DeckRule(2, 4, 2, 1)
PROBLEMS = {
    "too-few-players": (replace(S10, min_players=1), "min_players", "A game needs at least 2 players."),
    "too-many-players": (replace(S10, max_players=13), "max_players", "At most 12 players."),
    "players-reversed": (replace(S10, min_players=5, max_players=4), "max_players",
                         "The most players cannot be fewer than the fewest."),
    "no-card-per-buy": (replace(S10, cards_per_buy=0), "cards_per_buy",
                        "A buy brings at least the discard: 1 card or more."),
    "game-without-buys": (replace(S10, buys_counted="game"), "buys_per_game",
                          "Counting buys per game needs the game's number of buys."),
    "no-decks": (replace(S10, deck_rules=(DeckRule(2, 4, 0, 1), DeckRule(5, 8, 3, 2))), "deck_rules-0",
                 "Use at least 1 deck, 0 or more jokers, and a player range low to high."),
    "negative-jokers": (replace(S10, deck_rules=(ROWS_2_4, DeckRule(5, 8, 3, -1))), "deck_rules-1",
                        "Use at least 1 deck, 0 or more jokers, and a player range low to high."),
    "row-reversed": (replace(S10, deck_rules=(DeckRule(4, 2, 2, 1), DeckRule(5, 8, 3, 2))), "deck_rules-0",
                     "Use at least 1 deck, 0 or more jokers, and a player range low to high."),
    "row-outside": (replace(S10, deck_rules=(ROWS_2_4, DeckRule(5, 9, 3, 2))), "deck_rules-1",
                    "5–9 players is outside the variant's 2–8 players."),
    "too-few-cards": (replace(S10, max_players=12, deck_rules=(ROWS_2_4, DeckRule(5, 12, 2, 2))), "deck_rules-1",
                      ("2 decks and 2 jokers are 106 cards: too few to deal 11 each to 12 players and turn up "
                       "a discard (133 needed).")),
    "too-few-for-most-dealt": (with_round(S10, 9, cards_dealt=20), "deck_rules-1",
                               ("3 decks and 2 jokers are 158 cards: too few to deal 20 each to 8 players and "
                                "turn up a discard (161 needed).")),
    "players-without-row": (replace(S10, deck_rules=(ROWS_2_4,)), "deck_rules",
                            "No row says which decks 5 players use."),
    "players-in-two-rows": (replace(S10, deck_rules=(DeckRule(2, 5, 2, 1), DeckRule(5, 8, 3, 2))), "deck_rules",
                            "5 players are in more than one row."),
    "no-rounds": (replace(S10, rounds=()), "rounds", "Add at least one round."),
    "no-melds": (with_round(S10, 2, melds=()), "rounds-2-melds",
                 "Round 3 has no melds: write what must be laid down."),
    "set-of-1": (with_round(S10, 0, melds=(Meld("set", 1), SET3)), "rounds-0-melds",
                 "A set has 2 or more cards; a run has 3 to 14."),
    "run-of-2": (with_round(S10, 2, melds=(Meld("run", 2),)), "rounds-2-melds",
                 "A set has 2 or more cards; a run has 3 to 14."),
    "run-of-15": (with_round(S10, 2, melds=(Meld("run", 15),)), "rounds-2-melds",
                  "A set has 2 or more cards; a run has 3 to 14."),
    "too-many-cards": (with_round(S10, 2, melds=(RUN5,) * 4), "rounds-2-melds",
                       "Round 3 needs 20 cards, but a player can hold at most 18 (11 dealt + 1 drawn + 6 bought)."),
    "too-many-for-game-buys": (replace(S10, buys_counted="game", buys_per_game=1), "rounds-9-melds",
                               ("Round 10 needs 15 cards, but a player can hold at most 14 "
                                "(11 dealt + 1 drawn + 2 bought).")),
    "nothing-dealt": (with_round(S10, 0, cards_dealt=0), "rounds-0-cards_dealt", "Deal at least 1 card."),
    "negative-buys": (with_round(S10, 0, buy_limit=-1), "rounds-0-buy_limit", "Buys cannot be negative."),
    "naturals-above-meld": (replace(S10, min_natural=4), "min_natural",
                            "Round 1 has a meld of 3 cards: it cannot need 4 natural cards."),
    "negative-points": (replace(S10, points={**S10.points, "K": -5}), "points-K",
                        "Cards left in hand count against you: points cannot be negative."),
    "negative-wild-2": (replace(S10, suit_cards=wild_suit_cards("black-2s", -10)), "wild_points",
                        "Cards left in hand count against you: points cannot be negative."),
    "joker-limit-above-size": (replace(S10, joker_limits=(("run", 4, 5),)), "joker_limits",
                               "A run of 4 can hold 0 to 4 jokers, not 5."),
    "joker-limit-negative": (replace(S10, joker_limits=(("set", 3, -1),)), "joker_limits",
                             "A set of 3 can hold 0 to 3 jokers, not -1."),
    "negative-going-out-bonus": (replace(S10, going_out_bonus=-10), "going_out_bonus",
                                 "Write the bonus as a positive number: it is taken off the score."),
    "positive-bonus": (replace(S10, bonuses=(Bonus("blind", "Went out blind", 25),)), "bonus-blind",
                       "A bonus is taken off the score: write it as a positive number."),
}


@pytest.mark.parametrize("variant, field, message", PROBLEMS.values(), ids=PROBLEMS.keys())
def test_variant_problem(variant, field, message):
    assert Problem(field, message) in variant_problems(variant)


def test_limits_that_just_fit_have_no_problems():
    assert variant_problems(with_round(S10, 2, melds=(Meld("run", 6),) * 3)) == []  # 18 of 18 cards
    assert variant_problems(replace(S10, min_natural=3, joker_limits=(("set", 3, 3), ("run", 4, 0)))) == []
    # Carried buys: round 3 holds up to 11 + 1 + 9 × 2 = 30 cards.
    assert variant_problems(replace(with_round(S10, 2, melds=(RUN5,) * 4), buys_counted="carry")) == []


def test_too_few_cards_message_for_one_deck_and_one_joker():
    variant = replace(with_round(S10, 0, cards_dealt=14), deck_rules=(DeckRule(2, 4, 1, 1), DeckRule(5, 8, 3, 2)))
    assert Problem("deck_rules-0", "1 deck and 1 joker are 53 cards: too few to deal 14 each to 4 players and "
                                   "turn up a discard (57 needed).") in variant_problems(variant)
