"""The buy rule: how many buys a player may still make, the most in a round, the refusal and the
rule's words — the same answers for the round screen, the rule card, the reminders and the phone."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from scorekeeper.rules import Round, get_variant
from scorekeeper.rules.buying import BUYS_COUNTED, asks_per_game, buy_rule, known
from scorekeeper.rules.plan import buy_limit_tables
from scorekeeper.rules.variants import Meld

S10 = get_variant("shanghai-10")
SET3 = Meld("set", 3)
ROOT = Path(__file__).resolve().parents[1]


def three_rounds(limits: tuple[int, int, int], **changes):
    rounds = tuple(Round(n, "two sets of 3", (SET3, SET3), 11, limit) for n, limit in enumerate(limits, 1))
    return replace(S10, rounds=rounds, **changes)


def test_per_hand_a_refusal_names_the_hands_limit():
    variant = three_rounds((3, 3, 4))
    rule = variant.buy_rule
    assert not rule.needs_history
    assert rule.refuse("Ann", variant.round(3), 4) == "Ann has used all 4 buys this round."
    assert rule.fact() == "buys of 2 cards" and rule.board_note() == ""
    assert rule.sentence("3 buys per hand") == "3 buys per hand"


def test_carried_buys_add_up_in_the_plan_table_and_in_the_words():
    variant = three_rounds((1, 1, 2), buys_counted="carry")
    r1, r2, r3 = variant.rounds
    tables = buy_limit_tables(variant, r3, [r1, r2])
    # 0, 1 or 2 buys made in rounds 1-2: 4, 3 or 2 left for round 3.
    assert tables["limits"] == [4, 3, 2]
    assert tables["refusals"][0] == {"message": "buy_limit", "values": {"limit": 4}}
    assert variant.buy_rule.fact() == "buys of 2 cards + unused"
    assert variant.buy_rule.reminder(r1) == "Up to 1 buy each this round. Buys not used in earlier hands are added."


def test_a_game_allowance_spent_says_so_and_not_the_hands_limit():
    variant = three_rounds((3, 3, 1), buys_counted="game", buys_per_game=3)
    rule = variant.buy_rule
    r1, r2, r3 = variant.rounds
    assert rule.refuse("Bo", r2, 1) == "Bo has used all 3 buys of this game."  # 2 of 3 spent in round 1
    assert rule.refuse("Bo", r3, 1) == "Bo has used all 1 buys this round."  # round 3's own limit
    tables = buy_limit_tables(variant, r2, [r1])
    assert tables["limits"] == [3, 2, 1, 0]
    assert [r["message"] for r in tables["refusals"]] == ["buy_limit", "buy_game_limit", "buy_game_limit",
                                                          "buy_game_limit"]
    assert rule.sentence("3 buys per hand") == "3 buys in the whole game (3 buys per hand at most)"
    assert rule.board_note() == " (3 a game)"


def test_a_game_allowance_needs_its_number():
    assert asks_per_game("game") and not asks_per_game("hand") and not asks_per_game("carry")
    assert buy_rule(three_rounds((1, 1, 1), buys_counted="game", buys_per_game=0)).problems() == [
        ("buys_per_game", "Counting buys per game needs the game's number of buys.")]
    assert set(BUYS_COUNTED) == {"hand", "carry", "game"} and not known("week")


def test_only_the_buy_rule_asks_how_buys_are_counted():
    """A new way of counting buys is added in rules/buying.py alone: no other module, template or
    script of the phone compares the way buys are counted."""
    asks = re.compile(r"buys_counted\s*(==|!=|\bin\b|\bnot in\b)|per_game\s*!==|==\s*[\"'](carry|game)[\"']")
    sources = [*(ROOT / "scorekeeper").rglob("*.py"), *(ROOT / "templates").rglob("*.html"),
               *(ROOT / "static" / "js").rglob("*.js")]
    assert len(sources) > 50
    askers = [str(p.relative_to(ROOT)) for p in sources if asks.search(p.read_text(encoding="utf-8"))]
    assert askers == []
    # What it looks for: the branches this rule object replaced.
    assert asks.search('if variant.buys_counted == "game":') and asks.search("plan.data.per_game !== null")
    assert asks.search("{% if variant.buys_counted == 'carry' %}")


def test_no_template_works_out_the_buys_left():
    """The buys a player has left (an empty box on the sheet, "1 buy left" in a reminder) come from the
    buy rule (``BuyRule.left``), never from a template subtracting buys from a limit."""
    subtracts = re.compile(r"(buy_limit|limit)\s*-\s*\w|\w\s*-\s*(buy_limit|used|made)\b")
    templates = list((ROOT / "templates").rglob("*.html"))
    assert [str(p.relative_to(ROOT)) for p in templates if subtracts.search(p.read_text(encoding="utf-8"))] == []
    assert subtracts.search("{{ '☐' * (row.buy_limit - used) }}") and subtracts.search("{{ limit - made }}")
