"""What the rules say when they refuse an entry, worded once: the server fills the words in, and
the phone does too (from the game plan) when it checks a hand before keeping it."""

MESSAGES = {
    "choose_out": "Choose who went out.",
    "one_out": "Only one player can go out in a hand.",
    "nothing_entered": "Tap the cards {name} holds, or enter a total.",
    "out_no_cards": "{name} went out, so no cards are left: clear them.",
    "cards_and_total": "Enter the cards or a total, not both.",
    "total_range": "A total must be at least 1 and no more than a full hand can be worth.",
    "total_not_made": "{total} is not a total cards left in a hand can make in round {number}: {why}.",
    "why_too_high": "a full hand of {cards} cards is worth at most {high}",
    "why_too_low": "the lowest card counts {low}",
    "why_step": "every card counts a multiple of {step}",
    "why_none": "no cards add up to it",
    "negative_buys": "Buys cannot be negative.",
    "buys_over": "{name} may buy at most {times} this hand.",
    "no_buys": "{name} may not buy this hand.",
    "held_over_buys": "{held} cards is more than {name} could hold with {bought} "
                      "({dealt} dealt + {bought} × {per_buy} = {could})",
    "held_over_round": "{held} cards is more than anyone can hold in round {number} "
                       "({dealt} dealt + {buys} buys × {per_buy} = {most})",
    "copies_over": "{label}: {n} entered, but the decks in play hold only {available}",
    "table_copies_over": "{label}: {n} entered across all players, but the decks in play hold only {available}",
    "buy_limit": "{name} has used all {limit} buys this round.",
    "buy_game_limit": "{name} has used all {per_game} buys of this game.",
    "down_no_buy": "{name} has laid down and may not buy any more this hand.",
    "no_buy_back": "{name} has no buy to take back this round.",
}
