"""How a house counts buys, in one place: a fresh allowance each hand, unused buys carried to the
next hand, or one allowance for the whole game (each hand still capped by its own limit).

``buy_rule(variant)`` gives the rule object; everything else — the service that counts a buy, the
reminders, the rule card, the house-rules editor, the import checks, the templates and the
phone's game plan — asks it and never looks at ``Variant.buys_counted`` itself.

A new way of counting buys is a new subclass of ``BuyRule`` added to ``RULES`` (and its words to
``KINDS``); see docs/developing.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .figures import counted
from .messages import MESSAGES

if TYPE_CHECKING:
    from .variants import Round, Variant

# The ways buys are counted, with the words the house-rules editor offers for each.
KINDS = {
    "hand": "Per hand; unused buys are lost",
    "carry": "Per hand; unused buys carry over to the next hand",
    "game": "For the whole game",
}
BUYS_COUNTED = tuple(KINDS)


@dataclass(frozen=True)
class BuyRule:
    """Buys counted per hand: each hand's own limit, unused buys lost."""

    rounds: tuple[Round, ...]
    cards_per_buy: int
    per_game: int = 0  # the whole game's allowance, for the rule that counts one
    down_may_buy: bool = True  # whether a player who has laid down may still buy

    # Whether a player's limit depends on the buys made in earlier hands.
    needs_history = False

    def most(self, round_: Round) -> int:
        """The most buys anyone can make in ``round_``, whatever the earlier hands were."""
        return round_.buy_limit

    def allowed(self, round_: Round, earlier: list[tuple[Round, int]]) -> int:
        """One player's buy limit in ``round_``, given ``(round, buys made)`` of the hands played before."""
        return round_.buy_limit

    def most_before(self, earlier: list[Round]) -> int:
        """The most buys made in the ``earlier`` rounds that can still change the limit."""
        return 0

    def may_buy(self, laid_down: bool) -> bool:
        """Whether a player may buy at all: not one who has laid down, where the rules say so."""
        return self.down_may_buy or not laid_down

    def left(self, limit: int, made: int, laid_down: bool) -> int | None:
        """The buys a player may still make this hand, with ``limit`` (``allowed``) and ``made``
        already; ``None`` for one who has laid down where that ends buying."""
        return max(limit - made, 0) if self.may_buy(laid_down) else None

    def refusal(self, round_: Round, limit: int) -> tuple[str, dict]:
        """The message (its key in ``MESSAGES`` and values, the player's name left out) refusing
        one more buy to a player at ``limit`` in ``round_``."""
        return "buy_limit", {"limit": limit}

    def refuse(self, name: str, round_: Round, limit: int) -> str:
        """The refusal's words for the player ``name``."""
        key, values = self.refusal(round_, limit)
        return MESSAGES[key].format(name=name, **values)

    def fact(self) -> str:
        """The words after the round's buy limit on the round screen ("buys of 2 cards + unused")."""
        return f"buys of {self.cards_per_buy} cards" + self.short_note()

    def short_note(self) -> str:
        """What follows "buys of 2 cards" on the round screen: "" here."""
        return ""

    def board_note(self) -> str:
        """What follows "4 buys each" on the scoreboard: "" here."""
        return ""

    def sentence(self, per_hand: str) -> str:
        """The rule card's words, given the hands' own limits (``per_hand``: "3 buys per hand")."""
        return per_hand

    def reminder(self, round_: Round) -> str:
        """The reminder's sentence for ``round_`` (after what a buy brings)."""
        return f"Up to {counted(round_.buy_limit, 'buy')} each this round."

    def problems(self) -> list[tuple[str, str]]:
        """``(field, message)`` for what the rule lacks to be played."""
        return []


class CarriedBuys(BuyRule):
    """Buys counted per hand, and the buys a player did not use carry over to the next hand."""

    needs_history = True

    def most(self, round_: Round) -> int:
        return sum(r.buy_limit for r in self.rounds if r.number <= round_.number)

    def allowed(self, round_: Round, earlier: list[tuple[Round, int]]) -> int:
        # Buys carried in and spent are gone: what is left of every earlier hand's limit.
        carried = sum(r.buy_limit for r, _ in earlier) - sum(used for _, used in earlier)
        return round_.buy_limit + max(carried, 0)

    def most_before(self, earlier: list[Round]) -> int:
        return sum(r.buy_limit for r in earlier)

    def short_note(self) -> str:
        return " + unused"

    def board_note(self) -> str:
        return ", plus unused"

    def sentence(self, per_hand: str) -> str:
        return per_hand + ", and buys not used carry over to the next hand"

    def reminder(self, round_: Round) -> str:
        return super().reminder(round_) + " Buys not used in earlier hands are added."


class GameBuys(BuyRule):
    """One allowance of buys for the whole game; each hand's own limit still caps that hand."""

    needs_history = True

    def most(self, round_: Round) -> int:
        return min(round_.buy_limit, self.per_game)

    def allowed(self, round_: Round, earlier: list[tuple[Round, int]]) -> int:
        left = self.per_game - sum(used for _, used in earlier)
        return max(min(round_.buy_limit, left), 0)

    def most_before(self, earlier: list[Round]) -> int:
        return self.per_game

    def refusal(self, round_: Round, limit: int) -> tuple[str, dict]:
        if limit < round_.buy_limit:  # the game's allowance ran out, not the hand's
            return "buy_game_limit", {"per_game": self.per_game}
        return super().refusal(round_, limit)

    def short_note(self) -> str:
        return f" ({self.per_game} a game)"

    def board_note(self) -> str:
        return self.short_note()

    def sentence(self, per_hand: str) -> str:
        return f"{counted(self.per_game, 'buy')} in the whole game ({per_hand} at most)"

    def reminder(self, round_: Round) -> str:
        return (f"{counted(self.per_game, 'buy')} each for the whole game, "
                f"at most {self.most(round_)} this round.")

    def problems(self) -> list[tuple[str, str]]:
        if self.per_game < 1:
            return [("buys_per_game", "Counting buys per game needs the game's number of buys.")]
        return []


RULES: dict[str, type[BuyRule]] = {"hand": BuyRule, "carry": CarriedBuys, "game": GameBuys}


def buy_rule(variant: Variant) -> BuyRule:
    """How ``variant`` counts buys. A way not known (refused by the house-rules and import
    checks) counts per hand."""
    return RULES.get(variant.buys_counted, BuyRule)(
        variant.rounds, variant.cards_per_buy, variant.buys_per_game, variant.down_may_buy)


def asks_per_game(kind: str) -> bool:
    """Whether the way ``kind`` needs the whole game's number of buys (the editor asks for it)."""
    return RULES.get(kind) is GameBuys


def known(kind: object) -> bool:
    """Whether ``kind`` is a way of counting buys this version knows."""
    return kind in RULES
