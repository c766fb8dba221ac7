"""House rules: melds written as words, wild-card choices, and the checks a family's own
variant must pass before a game can be played with it."""

from __future__ import annotations

import re

from .buying import BUYS_COUNTED, known
from .cards import RANKS
from .figures import counted
from .limits import MOST_MELDS, MOST_PLAYERS, MOST_ROUNDS, Problem, bound_problems, meld_fits, round_bounds
from .variants import Meld, SuitCard, Variant, fewest_cards

NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve")
_RANK_NAMES = {"aces": "A", "kings": "K", "queens": "Q", "jacks": "J", "tens": "10", "nines": "9",
               "eights": "8", "sevens": "7", "sixes": "6", "fives": "5", "fours": "4", "threes": "3",
               "twos": "2", **{f"{r}s": r for r in RANKS[:-4]}}
_NUMBER = r"(\d{1,2}|" + "|".join(NUMBER_WORDS) + ")"
_RANK = "(" + "|".join(sorted(_RANK_NAMES, key=len, reverse=True)) + ")"
_KINDS = {"set": "set", "group": "set", "book": "set", "run": "run", "sequence": "run"}
_KIND = r"(set|group|book|run|sequence)s?"
_COUNTED = re.compile(rf"(?:(?:a|an|{_NUMBER})\s+)?{_KIND}\s+of\s+{_NUMBER}(?:\s+{_RANK})?")
_PAIR = re.compile(rf"(?:a\s+|one\s+)?pair\s+of\s+{_RANK}")
_OF_RANK = re.compile(rf"{_NUMBER}\s+{_RANK}")

# Wild cards besides the jokers, as the editor offers them: code -> (label, suits of the 2s).
WILD_TWOS = {
    "none": ("No wild cards", ()),
    "jokers": ("Jokers", ()),
    "black-2s": ("Jokers and black 2s (2♠ 2♣)", ("S", "C")),
    "2c": ("Jokers and the 2♣", ("C",)),
    "all-2s": ("Jokers and all 2s", ("S", "H", "D", "C")),
}
_WILD_CODES = {("S", "C"): "2B", ("C",): "2C", ("S", "H", "D", "C"): "2W"}


def _number(word: str) -> int:
    return int(word) if word.isdigit() else NUMBER_WORDS.index(word)


def parse_melds(text: str) -> tuple[Meld, ...]:
    """Melds written as people say them: ``2 sets of 3, 1 run of 4``, ``pair of Aces``, ``3 Kings``.

    ``ValueError`` says which part could not be read.
    """
    melds: list[Meld] = []
    for said in re.split(r"\s*(?:,|;|\+|\band\b)\s*", text.strip(), flags=re.IGNORECASE):
        part = said.lower()
        if not part:
            continue
        if m := _COUNTED.fullmatch(part):
            count, kind, size, rank = m.groups()
            kind = _KINDS[kind]
            if rank and kind == "run":
                raise ValueError(f"“{said}”: a run is of one suit, not of one rank.")
            melds += [Meld(kind, _number(size), _RANK_NAMES.get(rank))] * (_number(count) if count else 1)
        elif m := _PAIR.fullmatch(part):
            melds.append(Meld("set", 2, _RANK_NAMES[m.group(1)]))
        elif m := _OF_RANK.fullmatch(part):
            melds.append(Meld("set", _number(m.group(1)), _RANK_NAMES[m.group(2)]))
        else:
            raise ValueError(f"Could not read “{said}”. Write melds such as “2 sets of 3, 1 run of 4” "
                             "or “pair of Aces”.")
        if len(melds) > MOST_MELDS:
            raise ValueError(f"At most {MOST_MELDS} melds in one round.")
    return tuple(melds)


def min_cards_of(text: str) -> int | None:
    """The fewest cards that meet the melds as written (``parse_melds``); ``None`` while they
    cannot be read, or name none."""
    try:
        return fewest_cards(parse_melds(text)) or None
    except ValueError:
        return None


def describe_melds(melds: tuple[Meld, ...]) -> str:
    """``two sets of 3 and one run of 4``; ``parse_melds`` reads it back."""
    groups: list[list] = []
    for meld in melds:
        if groups and groups[-1][0] == meld and not meld.rank:
            groups[-1][1] += 1
        else:
            groups.append([meld, 1])
    parts = []
    for meld, n in groups:
        if meld.rank:
            parts.append(str(meld))
        else:
            word = NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n)
            parts.append(f"{word} {meld.kind}{'s' if n > 1 else ''} of {meld.size}")
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def wild_suit_cards(option: str, points: int) -> tuple[SuitCard, ...]:
    """The suit-dependent wild 2s for one of ``WILD_TWOS``."""
    suits = WILD_TWOS[option][1]
    return (SuitCard(_WILD_CODES[suits], "2", suits, points, wild=True),) if suits else ()


def copied_wild_rule(variant: Variant) -> str:
    """The wild-card words a copy of ``variant`` starts with: its own, less the sentences its
    wild-card settings already say (natural cards a meld needs, no more wild cards than natural
    ones, wild cards not touching, jokers per meld). The card prints each setting in its own line,
    and a copied sentence would say it twice, or stay behind when the setting changes."""
    said = (
        ("natural card", bool(variant.min_natural or variant.wilds_at_most_naturals)),
        ("may not touch", not variant.wilds_may_touch),
        ("Jokers per meld", bool(variant.joker_limits)),
    )
    sentences = re.split(r"(?<=[.;])\s+", variant.wild_rule.strip())
    kept = [s for s in sentences if s and not any(words in s and on for words, on in said)]
    return " ".join(kept)


def wild_option(variant: Variant) -> tuple[str, int]:
    """``(WILD_TWOS code, points of a wild 2)`` describing ``variant``'s wild cards."""
    for sc in variant.suit_cards:
        if sc.wild and sc.rank == "2":
            code = next((c for c, (_, suits) in WILD_TWOS.items() if suits == sc.suits), None)
            if code:
                return code, sc.points
    return ("jokers" if variant.has_jokers else "none"), variant.points.get("2", 0)


def _deck_problems(variant: Variant) -> list[Problem]:
    problems = []
    lo, hi = variant.min_players, variant.max_players
    for i, rule in enumerate(variant.deck_rules):
        where = f"deck_rules-{i}"
        if rule.decks < 1 or rule.jokers < 0 or rule.min_players > rule.max_players:
            problems.append(Problem(where, "Use at least 1 deck, 0 or more jokers, and a player range low to high."))
            continue
        if rule.min_players < lo or rule.max_players > hi:
            problems.append(Problem(where, f"{rule.min_players}–{rule.max_players} players is outside "
                                           f"the variant's {lo}–{hi} players."))
            continue
        cards = rule.decks * 52 + rule.jokers
        most_dealt = max((r.cards_dealt for r in variant.rounds), default=0)
        needed = rule.max_players * most_dealt + 1
        if needed > cards:
            decks = f"{counted(rule.decks, 'deck')} and {counted(rule.jokers, 'joker')}"
            problems.append(Problem(where, f"{decks} are {cards} cards: too few "
                                           f"to deal {most_dealt} each to {rule.max_players} players and turn up "
                                           f"a discard ({needed} needed)."))
    if 2 <= lo <= hi <= MOST_PLAYERS:
        for n in range(lo, hi + 1):
            serving = [r for r in variant.deck_rules if r.min_players <= n <= r.max_players]
            if not serving:
                problems.append(Problem("deck_rules", f"No row says which decks {n} players use."))
            elif len(serving) > 1:
                problems.append(Problem("deck_rules", f"{n} players are in more than one row."))
    return problems


def _round_problems(variant: Variant) -> list[Problem]:
    if not variant.rounds:
        return [Problem("rounds", "Add at least one round.")]
    if len(variant.rounds) > MOST_ROUNDS:
        return []  # bound_problems says so; each of thousands of rounds is not worth checking
    problems = []
    for i, r in enumerate(variant.rounds):
        where = f"rounds-{i}"
        problems += round_bounds(where, r.cards_dealt, r.buy_limit, r.melds)
        if r.cards_dealt < 1:
            problems.append(Problem(f"{where}-cards_dealt", "Deal at least 1 card."))
        if r.buy_limit < 0:
            problems.append(Problem(f"{where}-buy_limit", "Buys cannot be negative."))
        if not r.melds:
            problems.append(Problem(f"{where}-melds", f"Round {r.number} has no melds: write what must be laid down."))
            continue
        short = [m for m in r.melds if not meld_fits(m.kind, m.size)]
        if short:
            problems.append(Problem(f"{where}-melds", "A set has 2 or more cards; a run has 3 to 14."))
            continue
        if r.cards_dealt >= 1 and r.buy_limit >= 0 and variant.cards_per_buy >= 1:
            bought = variant.most_buys(r) * variant.cards_per_buy
            most = r.cards_dealt + 1 + bought
            if r.min_cards > most:
                problems.append(Problem(
                    f"{where}-melds",
                    f"Round {r.number} needs {r.min_cards} cards, but a player can hold at most {most} "
                    f"({r.cards_dealt} dealt + 1 drawn + {bought} bought).",
                ))
        if variant.min_natural > min(m.size for m in r.melds):
            problems.append(Problem("min_natural", f"Round {r.number} has a meld of "
                                                   f"{min(m.size for m in r.melds)} cards: it cannot need "
                                                   f"{variant.min_natural} natural cards."))
    return problems


def variant_problems(variant: Variant) -> list[Problem]:
    """Why ``variant`` cannot be played as written; empty if it can."""
    problems = []
    if variant.min_players < 2:
        problems.append(Problem("min_players", "A game needs at least 2 players."))
    if variant.max_players > MOST_PLAYERS:
        problems.append(Problem("max_players", f"At most {MOST_PLAYERS} players."))
    if variant.min_players > variant.max_players:
        problems.append(Problem("max_players", "The most players cannot be fewer than the fewest."))
    if variant.cards_per_buy < 1:
        problems.append(Problem("cards_per_buy", "A buy brings at least the discard: 1 card or more."))
    if not known(variant.buys_counted):
        problems.append(Problem("buys_counted", f"Buys are counted one of these ways: {', '.join(BUYS_COUNTED)}."))
    problems += [Problem(where, message) for where, message in variant.buy_rule.problems()]
    problems += bound_problems(variant)
    return problems + _deck_problems(variant) + _round_problems(variant) + _point_problems(variant)


def _point_problems(variant: Variant) -> list[Problem]:
    """Card points, joker limits and bonuses that cannot be meant."""
    problems = []
    for rank, points in variant.points.items():
        if points < 0:
            problems.append(Problem(f"points-{rank}", "Cards left in hand count against you: "
                                                      "points cannot be negative."))
    for sc in variant.suit_cards:
        if sc.points < 0:
            problems.append(Problem("wild_points", "Cards left in hand count against you: "
                                                   "points cannot be negative."))
    for kind, size, most in variant.joker_limits:
        if not 0 <= most <= size:
            problems.append(Problem("joker_limits", f"A {kind} of {size} can hold 0 to {size} jokers, not {most}."))
    if variant.going_out_bonus < 0:
        problems.append(Problem("going_out_bonus", "Write the bonus as a positive number: it is taken off the score."))
    for bonus in variant.bonuses:
        if bonus.points > 0:
            problems.append(Problem(f"bonus-{bonus.code}", "A bonus is taken off the score: "
                                                           "write it as a positive number."))
    return problems


_LIMIT = re.compile(rf"(?:a\s+)?{_KIND}\s+of\s+{_NUMBER}\s*[:=]\s*{_NUMBER}")


def parse_joker_limits(text: str) -> tuple[tuple[str, int, int], ...]:
    """``set of 3: 1, run of 4: 1`` as ``(kind, size, most jokers)``; ``ValueError`` names the bad part."""
    limits = []
    for part in re.split(r"\s*[,;]\s*", text.strip().lower()):
        if not part:
            continue
        m = _LIMIT.fullmatch(part)
        if not m:
            raise ValueError(f"Could not read “{part}”. Write limits such as “set of 3: 1, run of 4: 1”.")
        kind, size, most = m.groups()
        limits.append((_KINDS[kind], _number(size), _number(most)))
    return tuple(limits)


def describe_joker_limits(limits: tuple[tuple[str, int, int], ...]) -> str:
    """``parse_joker_limits`` read backwards."""
    return ", ".join(f"{kind} of {size}: {most}" for kind, size, most in limits)


def contract_text(round_melds: tuple[Meld, ...], said: str) -> str:
    """How a round's melds are written in the editor: as the rules say them when that reads
    back to the same melds, else in plain words."""
    try:
        if parse_melds(said) == round_melds:
            return said
    except ValueError:
        pass
    return describe_melds(round_melds)
