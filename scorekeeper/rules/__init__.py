"""Shanghai Rummy rules as plain data and pure functions (no web framework here)."""

from __future__ import annotations

from types import MappingProxyType

from .cards import JOKER, RANKS, Card, parse_card, parse_cards
from .presets import FAMILY_7, ONLINE_11, SHANGHAI_10, SHANGHAI_RUM
from .reminders import Reminder, round_reminders
from .results import (
    Hand,
    RoundProblems,
    card_counts,
    cards_text,
    going_out_problem,
    hand_score,
    leaders,
    round_problems,
    running_totals,
)
from .rotation import dealer_seat, first_player_seat, next_game_first_dealer, schedule
from .scoring import (
    hand_problems,
    max_hand_points,
    score_hand,
    score_keys,
    table_problems,
)
from .variants import Bonus, DeckRule, Decks, Key, Meld, Round, Variant, well_typed

VARIANTS = MappingProxyType({v.key: v for v in (FAMILY_7, SHANGHAI_RUM, SHANGHAI_10, ONLINE_11)})


def get_variant(key: str) -> Variant:
    """The preset with this key; ``KeyError`` names the known keys."""
    try:
        return VARIANTS[key]
    except (KeyError, TypeError):
        raise KeyError(f"unknown variant {key!r}; known: {', '.join(VARIANTS)}") from None


__all__ = [
    "JOKER", "RANKS", "VARIANTS", "Bonus", "Card", "DeckRule", "Decks", "Hand", "Key", "Meld", "Reminder", "Round",
    "RoundProblems", "Variant", "card_counts", "cards_text", "dealer_seat", "first_player_seat", "get_variant",
    "going_out_problem", "hand_problems", "hand_score", "leaders", "max_hand_points", "next_game_first_dealer",
    "parse_card", "parse_cards",
    "round_problems", "round_reminders", "running_totals", "schedule", "score_hand", "score_keys", "table_problems",
    "well_typed",
]
