"""Short reminders for the hand being played: buying, wild cards, going out, bonuses.

Every sentence is made from the variant's data, so a game's own rules snapshot speaks for it,
and a rule the data does not hold is not stated.
"""

from __future__ import annotations

from dataclasses import dataclass

from .figures import counted, minus
from .variants import Meld, Round, Variant


@dataclass(frozen=True)
class Reminder:
    """One reminder. ``topic`` stays the same for pages and tests; ``title`` and ``text`` are shown."""

    topic: str  # "buying", "no-buying", "wild", "going-out" or "bonuses"
    title: str
    text: str


def _listed(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _a(meld: Meld) -> str:
    # "the pair of Aces" (a set of one named rank), "a set of 3"
    return f"the {meld}" if meld.rank else f"a {meld}"


def _distinct(melds: tuple[Meld, ...]) -> list[Meld]:
    """The contract's kinds of meld once each, in order: "three runs of 4" is one run of 4."""
    seen: list[Meld] = []
    for meld in melds:
        if meld not in seen:
            seen.append(meld)
    return seen


def _buying(variant: Variant, round_: Round) -> Reminder:
    extra = variant.cards_per_buy - 1
    if extra > 0:
        brings = (f"A buy brings {counted(variant.cards_per_buy, 'card')}: "
                  f"the discard and {extra} from the draw pile.")
    else:
        brings = "A buy brings the discard only."
    text = f"{brings} {variant.buy_rule.reminder(round_)}"
    if variant.buys_per_turn == 1:
        text += " Only one buy per turn."
    elif variant.buys_per_turn > 1:
        text += f" At most {variant.buys_per_turn} buys per turn."
    return Reminder("buying", "Buying", text)


def _no_buying(variant: Variant) -> Reminder | None:
    sentences = []
    if not variant.down_may_buy:
        sentences.append("A player who has laid down may not buy.")
    if variant.buy_out_of_turn_only:
        sentences.append("Nobody buys on their own turn.")
    return Reminder("no-buying", "No buying", " ".join(sentences)) if sentences else None


def _wild(variant: Variant, round_: Round) -> Reminder:
    melds = _distinct(round_.melds)
    # Jokers are the only wild cards unless a suit-dependent card (a black 2, the 2♣) is wild too.
    word = "wild card" if any(sc.wild for sc in variant.suit_cards) else "joker"
    sentences = [f"{variant.wild_cards}."]

    limits = {(kind, size): most for kind, size, most in variant.joker_limits}
    capped = [(m, limits[m.kind, m.size]) for m in melds if (m.kind, m.size) in limits]
    if capped:
        parts = [f"{counted(most, 'joker') if i == 0 else most} in {_a(m)}" for i, (m, most) in enumerate(capped)]
        sentences.append(f"At most {_listed(parts)}.")

    if variant.wilds_at_most_naturals:
        # At the contract's size: half the cards, rounded down, may be wild.
        parts = [f"{m.size // 2} in {_a(m)}" for m in melds]
        sentences.append(f"No more {word}s than natural cards in a meld: at most {_listed(parts)}.")

    if variant.min_natural:
        kinds = [kind for kind in ("set", "run") if any(m.kind == kind for m in melds)]
        sentences.append(
            f"Each {' and '.join(kinds)} needs at least {counted(variant.min_natural, 'natural card')}."
        )

    if not variant.wilds_may_touch:
        sentences.append(f"{word.capitalize()}s may not touch.")
    return Reminder("wild", "Wild cards", " ".join(sentences))


def _going_out(variant: Variant, round_: Round) -> Reminder:
    text = f"{variant.going_out} " if variant.going_out else ""
    points = variant.going_out_points(round_.number)
    score = minus(points)
    if variant.going_out_per_round and points:
        score += f" ({minus(-variant.going_out_bonus)} × round {round_.number})"
    return Reminder("going-out", "Going out", text + f"Going out scores {score}.")


def _bonuses(variant: Variant) -> Reminder | None:
    if not variant.bonuses:
        return None
    # A true minus sign: a line never breaks between it and the number.
    points = [f"{b.label}: {minus(b.points)}" for b in variant.bonuses]
    return Reminder("bonuses", "Bonuses", " · ".join(points))


def round_reminders(variant: Variant, round_: Round) -> list[Reminder]:
    """What to keep in mind during ``round_`` of ``variant``, most pressing first."""
    reminders = [
        _buying(variant, round_),
        _no_buying(variant),
        _wild(variant, round_),
        _going_out(variant, round_),
        _bonuses(variant),
    ]
    return [r for r in reminders if r is not None]
