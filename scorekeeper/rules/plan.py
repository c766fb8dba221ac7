"""The game plan: every number a phone needs to draw every screen of one game without the server.

The phone adds up and looks up; it decides no rule of its own. So the plan holds, per round of
the game: the contract, the deal, the dealer and who plays first, the decks, each player's buy
limit for every number of buys made before (a table, whatever the way buys are counted), the
most cards a hand can hold for every number of buys, the going-out score, the highest total a
hand can be worth and (where it is small enough to send) which totals cards can make; and for the
game: the keypad's cards, points and copies in the decks, the bonuses, the reminders and the
messages the phone shows when it refuses an entry. ``PLAN_FORMAT`` moves on whenever the shape
of the plan changes, so a phone never reads a plan it does not understand.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from .messages import MESSAGES
from .reminders import round_reminders
from .results import could_hold
from .rotation import first_player_seat
from .scoring import card_step, card_totals, max_hand_points
from .variants import Round, Variant

PLAN_FORMAT = 2
# Totals sent as bits only up to this many points (2 kB of hex): beyond it the phone leaves the
# check to the server, which always makes it.
MOST_MASK_POINTS = 16_384


def rules_digest(variant: Variant) -> str:
    """A short fingerprint of the rules a game keeps: the plan's version of its rules."""
    text = json.dumps(variant.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def game_plan(variant: Variant, seats: Sequence[tuple[int, str]], deals: Sequence[tuple[int, int]]) -> dict:
    """The plan of a game of ``variant``: ``seats`` are ``(player id, name)`` clockwise, ``deals``
    the game's ``(round number, dealer seat)`` in the order they are played."""
    decks = variant.decks_for(len(seats))
    played = [variant.round(number) for number, _ in deals]
    return {
        "format": PLAN_FORMAT,
        "rules": rules_digest(variant),
        "name": variant.name,
        "seats": [{"id": player_id, "name": name} for player_id, name in seats],
        "decks": str(decks),
        "keys": [
            {"code": key.code, "label": key.label, "points": key.points, "copies": variant.copies(key, decks),
             "wild": key.wild}
            for key in variant.keys
        ],
        "out_bonuses": [_bonus(b) for b in variant.bonuses if not b.anyone],
        "event": next((_bonus(b) for b in variant.bonuses if b.anyone), None),
        "cards_per_buy": variant.cards_per_buy,
        "card_step": card_step(variant),
        "down_may_buy": variant.down_may_buy,
        "rounds": [
            _round(variant, round_, position, dealer, len(seats), played[:position])
            for position, (round_, (_, dealer)) in enumerate(zip(played, deals))
        ],
        "lowest_wins": True,
        "messages": dict(MESSAGES),
    }


def _bonus(bonus) -> dict:
    return {"code": bonus.code, "label": bonus.label, "points": bonus.points}


def _round(variant: Variant, round_: Round, position: int, dealer: int, players: int, earlier: list[Round]) -> dict:
    most_buys = variant.most_buys(round_)
    most_points = max_hand_points(variant, round_)
    small = most_points <= MOST_MASK_POINTS
    totals = card_totals(variant, round_.number) if small else None
    return {
        "number": round_.number,
        "position": position,
        "contract": round_.contract,
        "melds": " + ".join(str(m) for m in round_.melds),
        "min_cards": round_.min_cards,
        "cards_dealt": round_.cards_dealt,
        "dealer": dealer,
        "first": first_player_seat(dealer, players),
        "buy_limit": round_.buy_limit,
        "buys_fact": variant.buy_rule.fact(),
        **buy_limit_tables(variant, round_, earlier),
        "most_buys": most_buys,
        "most_cards": [could_hold(variant, round_, buys) for buys in range(most_buys + 1)],
        "out_points": variant.going_out_points(round_.number),
        "max_points": most_points,
        # Which totals cards can make, as hex bits (bit n: n points), while that stays small; and
        # what says why a total is not one of them.
        "totals": format(totals.mask, "x") if small else None,
        "totals_low": totals.low if small else None,
        "totals_high": totals.high if small else None,
        "max_hand": variant.max_hand(round_),
        "reminders": [{"topic": r.topic, "title": r.title, "text": r.text} for r in round_reminders(variant, round_)],
    }


def buy_limit_tables(variant: Variant, round_: Round, earlier: list[Round]) -> dict:
    """A player's buy limit in ``round_`` for every number of buys they made in the ``earlier``
    rounds of the game (``limits``: entry ``n`` is the limit after ``n`` earlier buys, the last
    entry holds for any number beyond), and beside each the refusal of one buy more
    (``refusals``: the message's key and values, the player's name left for the phone to fill
    in). The rules core's buy rule decides each entry."""
    rule = variant.buy_rule
    limits = []
    for used in range(rule.most_before(earlier) + 1):
        # Only the sums of the earlier hands matter: all of the buys are put in the first one.
        made = [(r, used if i == 0 else 0) for i, r in enumerate(earlier)]
        limits.append(rule.allowed(round_, made))
        if not earlier:
            break
    refusals = [dict(zip(("message", "values"), rule.refusal(round_, limit))) for limit in limits]
    return {"limits": limits, "refusals": refusals}
