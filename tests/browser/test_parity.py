"""The phone and the server agree: for every preset and a house-rules set, 200 random hands entered
through the keypad in Chromium. Each hand's points and the totals the phone draws on its check of
the points (from the game plan) equal what the server stores (from the rules core)."""

from __future__ import annotations

import dataclasses
import random

import pytest
from playwright import sync_api

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.families import family_players, sole_family
from scorekeeper.games import service
from scorekeeper.house_rules.service import save_house_rules
from scorekeeper.models import Game, PlayerGame
from scorekeeper.rules.results import could_hold
from scorekeeper.rules.scoring import card_totals, score_keys
from tests.actions import GameActions
from tests.browser.conftest import game_ready, phone, served, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.slow]

expect = sync_api.expect
HANDS = 200
NAMES = ["Ann", "Bob", "Cy", "Di"]


def house_variant() -> rules.Variant:
    """Unused buys carried over, a going-out bonus times the round, a bonus anyone can earn."""
    base = rules.get_variant("family-7")
    return dataclasses.replace(
        base, key="house-x", name="Carry-over family rules", buys_counted="carry", going_out_bonus=5,
        going_out_per_round=True,
        bonuses=(*base.bonuses, rules.Bonus("CUT", "Cut the exact cards", -10, anyone=True)),
    )


def random_round(variant, number, ids, decks, limits, rng) -> list[rules.Hand]:
    """A hand the rules accept: one player out, the others' cards within the decks and their buys."""
    round_ = variant.round(number)
    out_bonuses = [b.code for b in variant.bonuses if not b.anyone]
    event = next((b for b in variant.bonuses if b.anyone), None)
    while True:
        left = {key.code: variant.copies(key, decks) for key in variant.keys}
        out = rng.choice(list(ids.values()))
        hands = []
        for pid in ids.values():
            buys = rng.randint(0, limits[pid]) if rng.random() < 0.4 else 0
            codes = [event.code] if event and rng.random() < 0.15 else []
            if pid == out:
                bonus = rng.choice(out_bonuses) if out_bonuses and rng.random() < 0.3 else ""
                hands.append(rules.Hand(pid, went_out=True, laid_down=True, buys=buys,
                                        bonus_code=" ".join(c for c in [bonus, *codes] if c)))
                continue
            counts: dict[str, int] = {}
            for _ in range(rng.randint(1, min(could_hold(variant, round_, buys), 8))):
                code = rng.choice([c for c, n in left.items() if n])
                counts[code] = counts.get(code, 0) + 1
                left[code] -= 1
            typed = score_keys(variant, counts) if rng.random() < 0.15 else None
            hands.append(rules.Hand(pid, laid_down=rng.random() < 0.6, buys=buys,
                                    counts={} if typed else counts, hand_total=typed, bonus_code=" ".join(codes)))
        names = {pid: name for name, pid in ids.items()}
        problems = rules.round_problems(variant, round_, decks, hands, limits, names)
        if not problems and typed_totals_made(variant, number, hands):
            return hands


def typed_totals_made(variant, number, hands) -> bool:
    totals = card_totals(variant, number)
    return all(h.hand_total is None or h.hand_total in totals for h in hands)


# One hand, as a phone is tapped: "Hand over", who went out (and how), each player's cards on the
# keypad (or a total typed), laid down, buys and a bonus anyone can earn; "Check points", then what the
# check shows (points and totals), then "Save". The answer: the check's lines.
PLAY_HAND = """async ([hands, event]) => {
  const visible = (name) => new Promise((resolve) => {
    const look = () => (document.querySelector("[data-view=" + name + "]").hidden ? setTimeout(look, 5) : resolve());
    look();
  });
  document.querySelector("[data-view=round] [data-go=enter]").click();
  await visible("entry");
  const form = document.querySelector("[data-view=entry] form");
  const field = (id, name) => form.querySelector("[name='p" + id + "-" + name + "']");
  const set = (input, value) => { input.value = value; input.dispatchEvent(new Event("input", {bubbles: true})); };
  for (const hand of hands) {
    if (hand.went_out) form.querySelector("input[data-went-out][value='" + hand.player + "']").click();
  }
  for (const hand of hands) {
    if (hand.went_out && hand.bonus) form.querySelector("input[name=bonus][value='" + hand.bonus + "']").click();
    form.querySelector("[data-switch='" + hand.player + "']").click();
    for (const [code, n] of Object.entries(hand.counts)) {
      for (let i = 0; i < n; i++) form.querySelector("[data-keypad] [data-add='" + code + "']").click();
    }
    if (hand.total !== null) set(field(hand.player, "total"), String(hand.total));
    if (field(hand.player, "laid_down").checked !== hand.laid_down) field(hand.player, "laid_down").click();
    set(field(hand.player, "buys"), String(hand.buys));
    if (event && hand.event) field(hand.player, "event").click();
  }
  form.querySelector("button[value=review]").click();
  await visible("review");
  const lines = Array.from(document.querySelectorAll("[data-review-lines] tr"),
    (tr) => [parseInt(tr.querySelector("[data-slot=points]").textContent, 10),
             parseInt(tr.querySelector("[data-slot=total]").textContent, 10)]);
  document.querySelector("[data-view=review] [data-save]").click();
  await Promise.race([visible("round"), visible("standings")]);
  return lines;
}"""


def as_entered(variant, hand: rules.Hand) -> dict:
    codes = hand.bonus_code.split()
    event = next((b.code for b in variant.bonuses if b.anyone), None)
    return {"player": hand.player_id, "went_out": hand.went_out, "laid_down": hand.laid_down, "buys": hand.buys,
            "counts": dict(hand.counts), "total": hand.hand_total, "event": event in codes,
            "bonus": next((c for c in codes if c != event), "")}


def new_game(app, variant) -> int:
    """A game of Ann, Bob, Cy and Di (Ann deals first), saved players kept from game to game."""
    with app.app_context():
        family = sole_family()
        saved = {p.name: p.id for p in family_players(family)}
        seats = [service.SeatChoice(player_id=saved.get(name), new_name=None if name in saved else name)
                 for name in NAMES]
        return service.start_game(family, variant, seats, first_dealer=0).id


def play_game(page, app, variant, rng) -> tuple[int, list[list[tuple[int, int]]]]:
    """A whole game of random hands through the keypad: its id and what the phone's check showed."""
    actions = GameActions(app=app)
    game_id = new_game(app, variant)
    ids = actions.player_ids(game_id)
    decks = variant.decks_for(len(NAMES))
    page.goto(f"{page.base_url}/games/{game_id}")
    game_ready(page)
    shown, earlier = [], []
    for round_ in variant.rounds:
        limits = {pid: variant.buys_allowed(round_, [(r, h.buys) for r, hands in earlier for h in hands
                                                      if h.player_id == pid]) for pid in ids.values()}
        hands = random_round(variant, round_.number, ids, decks, limits, rng)
        lines = page.evaluate(PLAY_HAND, [[as_entered(variant, h) for h in hands], variant.bonuses != ()])
        shown.append([tuple(line) for line in lines])
        earlier.append((round_, hands))
    expect(page.locator("[data-view=standings]")).to_be_visible()
    return game_id, shown


@pytest.fixture(scope="module")
def family(tmp_path_factory, chromium):
    """One family, signed up once, whose games every preset's test plays on one server (each game is
    its own; the saved players are shared); ``app.signed_in`` is a phone's signed-in storage."""
    with served(tmp_path_factory.mktemp("parity")) as app:
        page = phone(chromium).new_page()
        page.base_url = app.base_url
        sign_up(page)
        expect(page.get_by_role("heading", name="The Parkers")).to_be_visible()
        app.signed_in = page.context.storage_state()
        page.context.close()
        yield app


@pytest.fixture
def phones(family, browser):
    """Two signed-in phones of the family, each with its own storage, taking turns game by game: one
    sends its game's last hands while the next game is played on the other."""
    pages = []
    for _ in range(2):
        page = phone(browser, storage_state=family.signed_in).new_page()
        page.base_url, page.app = family.base_url, family
        pages.append(page)
    return pages


def check_stored(page, variant, game_id: int, shown) -> None:
    """Once the game's phone has sent everything: each hand's points and the totals the phone showed
    are the server's, and the standings it drew show the stored totals."""
    app, actions = page.app, GameActions(app=page.app)
    expect(page.locator(".game")).to_have_attribute("data-pending", "0", timeout=30_000)
    stored = actions.stored_points(game_id)
    seated = actions.player_ids(game_id)
    assert len(shown) == len(variant.rounds)
    for number, lines in zip((r.number for r in variant.rounds), shown):
        assert [points for points, _ in lines] == [stored[number][n] for n in seated], f"round {number}"
    with app.app_context():
        totals = dict(db.session.execute(
            db.select(PlayerGame.player_id, PlayerGame.total).where(PlayerGame.game_id == game_id)).all())
        assert db.session.get(Game, game_id).status == "finished"
    assert [total for _, total in shown[-1]] == [totals[pid] for pid in seated.values()]
    drawn = page.locator("[data-view=standings] tfoot td[data-seat] b").all_inner_texts()
    assert drawn == [str(totals[pid]) for pid in seated.values()]


@pytest.mark.parametrize("key", ["family-7", "shanghai-rum", "shanghai-10", "online-11", "house"])
def test_the_phones_points_and_totals_are_the_servers(phones, family, key):
    app = family
    if key == "house":
        with app.app_context():
            key = save_house_rules(sole_family(), house_variant()).key
    variant = rules.VARIANTS.get(key) or _house(app, key)
    rng = random.Random(key)
    played, turn, last = 0, 0, {}
    while played < HANDS:
        side = turn % 2
        if side in last:  # this phone's previous game, sent while the other phone played one
            check_stored(phones[side], variant, *last.pop(side))
        last[side] = play_game(phones[side], app, variant, rng)
        played += len(last[side][1])
        turn += 1
    for side, (game_id, shown) in last.items():
        check_stored(phones[side], variant, game_id, shown)


def _house(app, key: str) -> rules.Variant:
    with app.app_context():
        from scorekeeper.house_rules.service import family_variants
        return family_variants(sole_family())[key]
