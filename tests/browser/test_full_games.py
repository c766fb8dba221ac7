"""A whole game of each preset, every round played by tapping, at phone size (390×844).

Everything the test expects comes from shared/rules/variants.md (tests/spec/variants.md), copied here by hand:
the contracts, cards dealt, buy limits, the point table and the going-out bonuses. The
scores are worked out from those literals, never with the app's own scoring code, and the
final totals are also written out as hand-worked numbers that the point table must agree
with.

Each round script says who went out (and with which bonus), what the others were left
holding (keypad codes such as "K", "JK", "2B"; an int is a total counted by hand) and
which taps happen on the round screen before the hand ends ("buy", "unbuy", "down").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from playwright import sync_api

from tests.browser.conftest import row, shot, show_hand, sign_up, tap_cards

pytestmark = pytest.mark.browser

expect = sync_api.expect


@dataclass
class Hand:
    out: str
    left: dict[str, str | int]  # player -> keypad codes, or a total counted by hand
    taps: tuple[tuple[str, str], ...] = ()  # ("buy" | "unbuy" | "down", player)
    bonus: str = ""  # the start of a bonus label, e.g. "Went out blind, no joker"


@dataclass
class Preset:
    name: str  # the radio label on the new-game page
    contracts: list[str]  # as written in variants.md
    dealt: list[int]
    buy_limits: list[int]
    cards_per_buy: int
    points: dict[str, int]  # keypad code -> points, from variants.md
    down_may_buy: bool
    players: str  # typed into the players field
    moves: list[str]  # seating buttons pressed, e.g. "Move Cy up"
    seats: list[str]  # clockwise after the moves
    first_dealer: str
    hands: list[Hand]
    totals: dict[str, int]  # hand-worked final totals
    winners: list[str]
    bonuses: dict[str, int] = field(default_factory=dict)


def _numbers(value) -> dict[str, int]:
    return {str(r): value(r) for r in range(2, 11)}


PRESETS = {
    # family-7: 2–9: 5 · 10, J, Q, K: 10 · A: 15 · Joker: 20. 4 buys of 2 cards. 11 cards dealt.
    # 4 players: 2 decks + 4 jokers.
    "family-7": Preset(
        name="Shanghai Rummy (family rules, 7 hands)",
        contracts=["two sets", "one set, one run", "two runs", "three sets", "two sets, one run",
                   "one set, two runs", "three runs"],
        dealt=[11] * 7,
        buy_limits=[4] * 7,
        cards_per_buy=2,
        points={**_numbers(lambda r: 5), "10": 10, "J": 10, "Q": 10, "K": 10, "A": 15, "JK": 20},
        down_may_buy=False,
        players="Ann, Bob, Cy, Di",
        moves=[],
        seats=["Ann", "Bob", "Cy", "Di"],
        first_dealer="Cy",
        hands=[
            Hand("Bob", {"Ann": "K 5 JK", "Cy": "A A 9", "Di": "10 Q"},
                 taps=(("buy", "Ann"), ("buy", "Ann"), ("unbuy", "Ann"), ("buy", "Cy"), ("down", "Bob"))),
            Hand("Di", {"Ann": "3 4", "Bob": 60, "Cy": "JK JK K"},  # a total counted by hand: 5s only here
                 taps=(("buy", "Cy"), ("buy", "Cy"), ("buy", "Cy"), ("buy", "Cy"), ("buy", "Cy"),
                       ("down", "Di"))),
            Hand("Ann", {"Bob": "A", "Cy": "7 8 9 10", "Di": "J Q K A 2"},
                 taps=(("buy", "Di"), ("down", "Ann"), ("buy", "Ann"))),
            Hand("Cy", {"Ann": "JK", "Bob": "2 2 2", "Di": "A K"}, taps=(("down", "Cy"),)),
            Hand("Bob", {"Ann": "Q Q", "Cy": 45, "Di": "6 JK A"}, taps=(("buy", "Bob"), ("down", "Bob"))),
            Hand("Di", {"Ann": "5", "Bob": "10 10 10", "Cy": "A A A A"}, taps=(("buy", "Ann"),)),
            Hand("Cy", {"Ann": "9 JK", "Bob": "K", "Di": "4 4"}, taps=(("down", "Cy"), ("down", "Di"))),
        ],
        # Ann 35+10+0+20+20+5+25, Bob 0+60+15+15+0+30+10, Cy 35+50+25+0+45+60+0, Di 20+0+50+25+40+0+10
        totals={"Ann": 115, "Bob": 130, "Cy": 215, "Di": 145},
        winners=["Ann"],
    ),
    # shanghai-rum: 2–10: 5 (red twos too) · J, Q, K: 10 · A: 15 · Joker: 25 · black 2: 50.
    # 2 buys of 3 cards. 3 players: 2 decks + 4 jokers.
    "shanghai-rum": Preset(
        name="Shanghai rum (black twos wild)",
        contracts=["two aces and one set of 3", "two sets of 3", "one set of 3 and one run of 4",
                   "two runs of 4", "three sets of 3", "two sets of 3 and one run of 4",
                   "one set of 3 and two runs of 4", "three runs of 4", "one run of 7 and one set of 3",
                   "one run of 5 and one run of 6"],
        dealt=[11] * 10,
        buy_limits=[2] * 10,
        cards_per_buy=3,
        points={**_numbers(lambda r: 5), "J": 10, "Q": 10, "K": 10, "A": 15, "JK": 25, "2B": 50},
        down_may_buy=False,
        players="Ann, Bob, Cy",
        moves=["Move Cy up"],
        seats=["Ann", "Cy", "Bob"],
        first_dealer="Bob",
        hands=[
            Hand("Ann", {"Cy": "2B K", "Bob": "2 2 A"},
                 taps=(("buy", "Bob"), ("buy", "Bob"), ("buy", "Bob"), ("down", "Ann"))),
            Hand("Cy", {"Ann": "JK 10", "Bob": 40}, taps=(("buy", "Ann"), ("down", "Cy"))),
            Hand("Bob", {"Ann": "A", "Cy": "3 4 5 J"}, taps=(("down", "Bob"),)),
            Hand("Ann", {"Cy": "Q", "Bob": "2B 2B JK"},
                 taps=(("down", "Ann"), ("buy", "Ann"), ("buy", "Cy"))),
            Hand("Cy", {"Ann": "7 7 7", "Bob": "K K"}, taps=(("buy", "Bob"), ("down", "Cy"))),
            Hand("Bob", {"Ann": "2 2B K", "Cy": "9"}, taps=()),  # variants.md's example: 65
            Hand("Ann", {"Cy": "JK A", "Bob": "8 10"}, taps=(("buy", "Cy"), ("unbuy", "Cy"))),
            Hand("Bob", {"Ann": "J J Q", "Cy": 5}, taps=(("down", "Bob"),)),
            Hand("Cy", {"Ann": "6", "Bob": "A A 2B"}, taps=(("buy", "Ann"), ("buy", "Ann"))),
            Hand("Ann", {"Cy": "K 5", "Bob": "JK JK"}, taps=(("down", "Ann"), ("down", "Cy"))),
        ],
        # Ann 0+30+15+0+15+65+0+30+5+0, Cy 60+0+25+10+0+5+40+5+0+15, Bob 25+40+0+125+20+0+10+0+80+50
        totals={"Ann": 160, "Cy": 160, "Bob": 350},
        winners=["Ann", "Cy"],
    ),
    # shanghai-10: 2–10: 5 · J, Q, K: 10 · A: 15 · Joker: 15. 3 buys of 2 cards in deals 1–8,
    # 4 in 9–10. Going out blind: −25, or −50 with no joker. 5 players: 3 decks + 2 jokers.
    "shanghai-10": Preset(
        name="Shanghai Rummy (10 contracts)",
        contracts=["two sets of 3", "one set of 3 and one sequence of 4", "two sequences of 4",
                   "three sets of 3", "one set of 3 and one sequence of 7",
                   "two sets of 3 and one sequence of 5", "three sequences of 4",
                   "one set of 3 and one sequence of 10", "three sets of 3 and one sequence of 5",
                   "three sequences of 5"],
        dealt=[11] * 10,
        buy_limits=[3] * 8 + [4] * 2,
        cards_per_buy=2,
        points={**_numbers(lambda r: 5), "J": 10, "Q": 10, "K": 10, "A": 15, "JK": 15},
        bonuses={"Went out blind (used a joker)": -25, "Went out blind, no joker": -50},
        down_may_buy=True,  # the documents do not forbid it (presets.py says so too)
        players="Ann, Bob, Cy, Di, Ed",
        moves=[],
        seats=["Ann", "Bob", "Cy", "Di", "Ed"],
        first_dealer="Ed",
        hands=[
            Hand("Cy", {"Ann": "10 JK A", "Bob": "K K 5", "Di": 30, "Ed": "2"},  # 35: variants.md's example
                 taps=(("buy", "Ann"), ("buy", "Ann"), ("buy", "Ann"), ("buy", "Ann"), ("down", "Cy"))),
            Hand("Ann", {"Bob": "Q", "Cy": "A A", "Di": "3 3 3", "Ed": "JK"}, bonus="Went out blind, no joker",
                 taps=(("down", "Bob"), ("buy", "Bob"), ("down", "Ann"))),
            Hand("Ed", {"Ann": "J", "Bob": "4 5 6 7", "Cy": "JK JK", "Di": "K"}, taps=(("buy", "Di"),)),
            Hand("Di", {"Ann": "9 9", "Bob": "A", "Cy": "Q J", "Ed": "8"}, bonus="Went out blind (used a joker)",
                 taps=(("buy", "Ed"), ("buy", "Cy"), ("unbuy", "Cy"))),
            Hand("Bob", {"Ann": 55, "Cy": "6", "Di": "A JK", "Ed": "10 10"}, taps=(("down", "Bob"),)),
            Hand("Ann", {"Bob": "K", "Cy": "2 2", "Di": "J J J", "Ed": "A A A"}, taps=(("buy", "Cy"),)),
            Hand("Cy", {"Ann": "7", "Bob": "JK", "Di": "Q Q", "Ed": "5 K"}, taps=(("down", "Cy"), ("down", "Di"))),
            Hand("Ed", {"Ann": "A K", "Bob": "3", "Cy": "J 10", "Di": "9 9 9 9"}, bonus="Went out blind, no joker",
                 taps=(("buy", "Bob"), ("buy", "Bob"))),
            Hand("Bob", {"Ann": "2 3", "Cy": "K K K", "Di": 20, "Ed": "JK A"},
                 taps=(("buy", "Cy"), ("buy", "Cy"), ("buy", "Cy"), ("buy", "Cy"), ("buy", "Cy"),
                       ("down", "Bob"))),
            Hand("Di", {"Ann": "Q", "Bob": "A", "Cy": "4", "Ed": "J"}, taps=(("buy", "Ed"), ("down", "Di"))),
        ],
        # Ann 35−50+10+10+55+0+5+25+10+10, Bob 25+10+20+15+0+10+15+5+0+15,
        # Cy 0+30+30+20+5+10+0+15+30+5, Di 30+15+10−25+30+30+20+20+20+0, Ed 5+15+0+5+10+45+15−50+30+10
        totals={"Ann": 110, "Bob": 115, "Cy": 145, "Di": 150, "Ed": 85},
        winners=["Ed"],
    ),
    # online-11: 2–10: face value · J, Q, K: 10 · A: 20 · Joker: 50 · 2♣: 50. 3 buys of 2 cards.
    # 11 cards dealt in rounds 1–9, 13 in 10–11. 4 players: 2 decks + 4 jokers.
    "online-11": Preset(
        name="Shanghai Rummy (11 rounds)",
        contracts=["two sets", "one set and one run", "two runs", "three sets", "two sets and one run",
                   "two runs and one set", "three runs", "three sets and one run",
                   "three runs and one set", "four sets", "four runs"],
        dealt=[11] * 9 + [13] * 2,
        buy_limits=[3] * 11,
        cards_per_buy=2,
        points={**_numbers(int), "J": 10, "Q": 10, "K": 10, "A": 20, "JK": 50, "2C": 50},
        down_may_buy=False,
        players="Ann, Bob, Cy, Di",
        moves=["Move Ann down"],
        seats=["Bob", "Ann", "Cy", "Di"],
        first_dealer="Di",
        hands=[
            Hand("Cy", {"Bob": "7 2 2C A", "Ann": "K", "Di": "JK"},  # 79: variants.md's example
                 taps=(("buy", "Di"), ("down", "Cy"))),
            Hand("Bob", {"Ann": "3 4", "Cy": 33, "Di": "10 9"}, taps=(("buy", "Ann"), ("buy", "Ann"))),
            Hand("Di", {"Bob": "A A", "Ann": "5", "Cy": "2"}, taps=(("down", "Di"),)),
            Hand("Ann", {"Bob": "Q J", "Cy": "JK 8", "Di": "6 6"}, taps=(("buy", "Bob"), ("down", "Ann"))),
            Hand("Cy", {"Bob": "9", "Ann": "2C", "Di": "K K K"},
                 taps=(("down", "Di"), ("buy", "Di"), ("down", "Cy"))),
            Hand("Bob", {"Ann": "A", "Cy": "4 4 4", "Di": "10"}, taps=(("buy", "Cy"),)),
            Hand("Di", {"Bob": "3", "Ann": "JK JK", "Cy": "J"}, taps=(("buy", "Bob"), ("unbuy", "Bob"))),
            Hand("Ann", {"Bob": "8 7", "Cy": "A", "Di": 44}, taps=(("down", "Ann"),)),
            Hand("Bob", {"Ann": "2 3 4", "Cy": "Q", "Di": "JK A"}, taps=(("buy", "Di"), ("down", "Bob"))),
            Hand("Cy", {"Bob": "5 5", "Ann": "K", "Di": "2C 2C"}, taps=(("buy", "Bob"),)),
            Hand("Di", {"Bob": "10 J", "Ann": "6", "Cy": "A K"},
                 taps=(("buy", "Ann"), ("buy", "Ann"), ("buy", "Ann"), ("buy", "Ann"), ("down", "Di"))),
        ],
        # Bob 79+0+40+20+9+0+3+15+0+10+20, Ann 10+7+5+0+50+20+100+0+9+10+6,
        # Cy 0+33+2+58+0+12+10+20+10+0+30, Di 50+19+0+12+30+10+0+44+70+100+0
        totals={"Bob": 196, "Ann": 217, "Cy": 175, "Di": 335},
        winners=["Cy"],
    ),
}


def points_of(preset: Preset, left: str | int) -> int:
    if isinstance(left, int):
        return left
    return sum(preset.points[code] for code in left.split())


def hand_scores(preset: Preset, h: Hand) -> dict[str, int]:
    scores = {name: points_of(preset, left) for name, left in h.left.items()}
    scores[h.out] = preset.bonuses[h.bonus] if h.bonus else 0
    return scores


def test_scripts_agree_with_the_hand_worked_totals():
    """The hand-worked totals above match the point table copied from variants.md."""
    for key, preset in PRESETS.items():
        assert len(preset.hands) == len(preset.contracts), key
        worked = {name: 0 for name in preset.seats}
        for h in preset.hands:
            assert set(h.left) | {h.out} == set(preset.seats) and h.out not in h.left, key
            for name, pts in hand_scores(preset, h).items():
                worked[name] += pts
        assert worked == preset.totals, key
        low = min(worked.values())
        assert [n for n in preset.seats if worked[n] == low] == preset.winners, key


def play_round_screen(page, preset: Preset, number: int, h: Hand, refusals: list[str]) -> dict[str, int]:
    """Check what the round screen shows, then make the round's taps; returns the buys made."""
    limit = preset.buy_limits[number - 1]
    buys = {name: 0 for name in preset.seats}
    down: set[str] = set()
    for name in preset.seats:
        expect(row(page, name).locator(".buy-count")).to_have_text(f"0/{limit}")
    for action, name in h.taps:
        r = row(page, name)
        if action == "buy":
            refused = (name in down and not preset.down_may_buy) or buys[name] == limit
            button = r.get_by_role("button", name=f"Buy for {name}")
            # Where a buy is refused, the button looks off (aria-disabled) but a tap still says why.
            if refused:
                expect(button).to_have_attribute("aria-disabled", "true")
            if refused:  # not under the sticky bar: a forced tap lands where the button is
                button.evaluate("b => b.scrollIntoView({block: 'center'})")
            button.click(force=refused)
            if name in down and not preset.down_may_buy:
                expect(r.locator(".row-message")).to_have_text(
                    f"{name} has laid down and may not buy any more this hand.")
                refusals.append("down")
            elif buys[name] == limit:
                expect(r.locator(".row-message")).to_have_text(f"{name} has used all {limit} buys this round.")
                refusals.append("limit")
            else:
                buys[name] += 1
                expect(r.locator(".row-message")).to_have_count(0)
            expect(r.locator(".buy-count")).to_have_text(f"{buys[name]}/{limit}")
        elif action == "unbuy":
            r.get_by_role("button", name=f"Take back a buy from {name}").click()
            buys[name] -= 1
            expect(r.locator(".buy-count")).to_have_text(f"{buys[name]}/{limit}")
        elif action == "down":
            r.get_by_role("button", name=f"{name} has not laid down").click()
            down.add(name)
            expect(r.locator(".btn-toggle")).to_have_text("Down ✓")
        else:
            raise AssertionError(action)
    return buys


def enter_cards(page, preset: Preset, number: int, h: Hand, buys: dict[str, int]) -> None:
    page.get_by_role("link", name="Hand over — enter cards").click()
    expect(page.locator("fieldset.hand")).to_have_count(len(preset.seats))
    page.locator(".chip-choice", has_text=h.out).click()
    if h.bonus:
        page.get_by_role("group", name="How did they go out?").get_by_label(h.bonus).check()
    for name, left in h.left.items():
        box = show_hand(page, name)
        if isinstance(left, int):
            box.get_by_label("Or the total, counted by hand").fill(str(left))
        else:
            tap_cards(page, name, left.split())
        # The live points under each hand, as the table in variants.md counts them.
        expect(box.locator("[data-hand-points]")).to_have_text(f"{points_of(preset, left)} pts")
    expect(show_hand(page, h.out).locator("[data-out-note]")).to_be_visible()
    for name, n in buys.items():  # the buys tapped on the round screen come along
        if n:
            expect(show_hand(page, name).get_by_label("Buys")).to_have_value(str(n))
    page.get_by_role("button", name="Check points").click()
    out_row = page.locator("table.review tbody tr", has=page.locator("th", has_text=h.out))
    expect(out_row).to_contain_text("went out")
    if h.bonus:
        expect(out_row.locator("td.num").first).to_have_text(str(preset.bonuses[h.bonus]))
    page.get_by_role("button", name=f"Save round {number}").click()


@pytest.mark.parametrize("key", list(PRESETS))
def test_full_game_by_tapping(page, key):
    preset = PRESETS[key]
    rounds = len(preset.contracts)
    seats = preset.seats
    sign_up(page)
    page.get_by_role("link", name="+ New game").click()

    radio = page.get_by_label(preset.name)
    expect(page.locator("label.choice", has=radio)).to_contain_text(f"{rounds} rounds")
    radio.check()
    page.locator("#new_players").fill(preset.players)
    page.get_by_role("button", name="Next: seating").click()
    for move in preset.moves:
        page.get_by_role("button", name=move).click()
    expect(page.locator(".seat-name")).to_have_text(seats)
    page.locator(".chip-choice", has_text=preset.first_dealer).click()
    page.get_by_role("button", name="Start game").click()

    totals = {name: 0 for name in seats}
    refusals: list[str] = []
    dealer = seats.index(preset.first_dealer)
    for number, h in enumerate(preset.hands, start=1):
        # What the players see at the start of the hand.
        contract = preset.contracts[number - 1]
        expect(page.locator("h1.contract")).to_have_text(contract[0].upper() + contract[1:])
        expect(page.locator(".round-no")).to_contain_text(f"Round {number} of {rounds}")
        first = seats[(dealer + 1) % len(seats)]
        expect(page.locator(".dealer-line")).to_contain_text(f"Dealer {seats[dealer]} · {first} plays first")
        head = page.locator(".round-head")
        expect(head).to_contain_text(f"Deal {preset.dealt[number - 1]} cards")
        expect(head).to_contain_text(f"{preset.buy_limits[number - 1]} buys of {preset.cards_per_buy} cards")

        buys = play_round_screen(page, preset, number, h, refusals)
        enter_cards(page, preset, number, h, buys)

        for name, pts in hand_scores(preset, h).items():
            totals[name] += pts
        if number < rounds:
            expect(page.locator(".flash-success")).to_contain_text(f"Round {number} saved")
            for name in seats:
                expect(row(page, name).locator(".total")).to_have_text(f"{totals[name]} pts")
        dealer = (dealer + 1) % len(seats)  # the deal passes to the left, clockwise

    # The game is over: final standings.
    assert totals == preset.totals
    expect(page.locator(".flash-success")).to_contain_text("the game is over")
    expect(page.get_by_role("heading", name="Standings")).to_be_visible()
    expect(page.locator("table.standings thead th.num")).to_have_text(seats)
    expect(page.locator("table.standings tfoot td.num")).to_have_text([str(preset.totals[n]) for n in seats])
    low = min(preset.totals.values())
    result = page.locator("section.result")
    if len(preset.winners) == 1:
        expect(result.get_by_role("heading")).to_have_text(f"{preset.winners[0]} wins")
    else:
        expect(result.get_by_role("heading")).to_have_text("Shared win: " + " & ".join(preset.winners))
    expect(result).to_contain_text(f"with {low} points, the lowest total after {rounds} rounds")
    expect(page.get_by_role("link", name="Back to round")).to_have_count(0)
    # Every buy-limit and laid-down rule the script meant to hit was hit.
    assert "limit" in refusals
    assert ("down" in refusals) == (not preset.down_may_buy)
    shot(page, f"full-{key}-final")
