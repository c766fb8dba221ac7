"""Rules at a glance: the round screen's reminders and the rules pages.

The expected numbers are copied by hand from shared/rules/variants.md, not computed from the code.
"""

from __future__ import annotations

import re

import pytest

from scorekeeper.printing import documents
from scorekeeper.rules import VARIANTS, Reminder, Variant, get_variant, round_reminders
from scorekeeper.rules.variants import LATER_FIELDS
from tests.databases import strict_client
from tests.pages import element_text, text_of, texts_by_class
from tests.test_printing import pdf_text

# -- variants.md, transcribed by hand ------------------------------------------------------
# brings: cards a buy brings; buys: round number -> buys per player in that round;
# no_buying: what the "No buying" reminder says (None: the preset names nobody who may not buy);
# going_out: words of the preset's going-out line; bonuses: (label, points).
SPEC = {
    "family-7": {
        "brings": 2,
        "buys": {n: 4 for n in range(1, 8)},
        "no_buying": "A player who has laid down may not buy. Nobody buys on their own turn.",
        "per_turn": "Only one buy per turn.",
        "going_out": "Meld or discard your last card",
        "bonuses": [],
    },
    "shanghai-rum": {
        "brings": 3,
        "buys": {n: 2 for n in range(1, 11)},
        "no_buying": "A player who has laid down may not buy.",
        "per_turn": None,
        "going_out": "you may not go out by discarding",
        "bonuses": [],
    },
    "shanghai-10": {
        "brings": 2,
        "buys": {**{n: 3 for n in range(1, 9)}, 9: 4, 10: 4},
        "no_buying": None,
        "per_turn": None,
        "going_out": "Going out blind",
        "bonuses": [("Went out blind (used a joker)", -25), ("Went out blind, no joker", -50)],
    },
    "online-11": {
        "brings": 2,
        "buys": {n: 3 for n in range(1, 12)},
        "no_buying": "A player who has laid down may not buy.",
        "per_turn": None,
        "going_out": "Lay down exactly the contract's melds",
        "bonuses": [],
    },
}

# The whole wild-card reminder for some rounds, worked out by hand from each preset's limits:
# family-7 every meld >= 1 natural; shanghai-rum no more wilds than naturals (half a meld, rounded
# down); shanghai-10 jokers per meld by kind and size; online-11 >= 2 naturals, wilds never touch.
WILD = [
    ("family-7", 1, "Jokers. Each set needs at least 1 natural card."),
    ("family-7", 2, "Jokers. Each set and run needs at least 1 natural card."),
    ("family-7", 7, "Jokers. Each run needs at least 1 natural card."),
    ("shanghai-rum", 1, "Jokers and black twos (2♠ 2♣); red twos are natural. No more wild cards than natural "
                        "cards in a meld: at most 1 in the pair of Aces and 1 in a set of 3."),
    ("shanghai-rum", 4, "Jokers and black twos (2♠ 2♣); red twos are natural. No more wild cards than natural "
                        "cards in a meld: at most 2 in a run of 4."),
    ("shanghai-rum", 10, "Jokers and black twos (2♠ 2♣); red twos are natural. No more wild cards than natural "
                         "cards in a meld: at most 2 in a run of 5 and 3 in a run of 6."),
    ("shanghai-10", 1, "Jokers. At most 1 joker in a set of 3."),
    ("shanghai-10", 2, "Jokers. At most 1 joker in a set of 3 and 1 in a run of 4."),
    ("shanghai-10", 5, "Jokers. At most 1 joker in a set of 3 and 3 in a run of 7."),
    ("shanghai-10", 8, "Jokers. At most 1 joker in a set of 3 and 4 in a run of 10."),
    ("shanghai-10", 10, "Jokers. At most 2 jokers in a run of 5."),
    ("online-11", 2, "Jokers and the 2♣. Each set and run needs at least 2 natural cards. Wild cards may not touch."),
    ("online-11", 10, "Jokers and the 2♣. Each set needs at least 2 natural cards. Wild cards may not touch."),
    ("online-11", 11, "Jokers and the 2♣. Each run needs at least 2 natural cards. Wild cards may not touch."),
]


def by_topic(variant: Variant, number: int) -> dict[str, Reminder]:
    return {r.topic: r for r in round_reminders(variant, variant.round(number))}


# -- round_reminders ------------------------------------------------------------------------


def test_transcription_covers_every_preset_and_round():
    assert sorted(SPEC) == sorted(VARIANTS)
    for key, spec in SPEC.items():
        assert sorted(spec["buys"]) == [r.number for r in get_variant(key).rounds], key


@pytest.mark.parametrize("key", sorted(SPEC))
def test_buying_says_what_a_buy_brings_and_this_rounds_limit(key):
    spec = SPEC[key]
    variant = get_variant(key)
    for number, limit in spec["buys"].items():
        text = by_topic(variant, number)["buying"].text
        assert f"A buy brings {spec['brings']} cards: the discard and {spec['brings'] - 1} from the draw pile." in text
        assert f"Up to {limit} buys each this round." in text, (number, text)
        assert ("per turn" in text) == (spec["per_turn"] is not None)
        if spec["per_turn"]:
            assert spec["per_turn"] in text


@pytest.mark.parametrize("key", sorted(SPEC))
def test_who_may_not_buy_is_named_only_where_the_preset_says_so(key):
    reminders = by_topic(get_variant(key), 1)
    expected = SPEC[key]["no_buying"]
    if expected is None:
        assert "no-buying" not in reminders
    else:
        assert reminders["no-buying"].text == expected


@pytest.mark.parametrize("key, number, text", WILD, ids=[f"{k}-{n}" for k, n, _ in WILD])
def test_wild_card_limits_for_this_rounds_contract(key, number, text):
    assert by_topic(get_variant(key), number)["wild"].text == text


@pytest.mark.parametrize("key", sorted(SPEC))
def test_going_out_and_bonuses(key):
    spec = SPEC[key]
    reminders = by_topic(get_variant(key), 1)
    assert spec["going_out"] in reminders["going-out"].text
    assert "Going out scores 0" in reminders["going-out"].text
    if spec["bonuses"]:
        for label, points in spec["bonuses"]:
            assert f"{label}: −{-points}" in reminders["bonuses"].text  # a true minus sign
    else:
        assert "bonuses" not in reminders


def test_reminders_come_in_a_fixed_order():
    topics = [r.topic for r in round_reminders(get_variant("shanghai-10"), get_variant("shanghai-10").round(1))]
    assert topics == ["buying", "wild", "going-out", "bonuses"]
    topics = [r.topic for r in round_reminders(get_variant("family-7"), get_variant("family-7").round(1))]
    assert topics == ["buying", "no-buying", "wild", "going-out"]


def test_a_snapshot_saved_before_the_limits_were_written_down_claims_none_of_them():
    data = get_variant("online-11").to_dict()
    for name in LATER_FIELDS:
        del data[name]
    old = Variant.from_dict(data)
    reminders = by_topic(old, 10)
    assert reminders["wild"].text == "Jokers and the 2♣."
    assert "Up to 3 buys each this round." in reminders["buying"].text
    assert reminders["no-buying"].text == "A player who has laid down may not buy."


def test_new_rules_survive_the_games_snapshot():
    for key in VARIANTS:
        variant = get_variant(key)
        assert Variant.from_dict(variant.to_dict()) == variant
    family = get_variant("family-7").to_dict()
    assert (family["min_natural"], family["buy_out_of_turn_only"], family["buys_per_turn"]) == (1, True, 1)


# -- the round screen -----------------------------------------------------------------------


def tap(client, game_id: int, number: int, button: str, player_id: int, **fields):
    """Tap Buy / Down on the round screen and land back on it."""
    response = client.post(f"/games/{game_id}/rounds/{number}/{button}",
                           data={"player": player_id, **fields}, follow_redirects=True)
    assert response.status_code == 200
    return response


@pytest.mark.parametrize("key", sorted(SPEC))
def test_round_screen_shows_this_rounds_reminders_and_links_to_the_rules(client, app, key, actions):
    game_id = actions.new_game(key, ["Ann", "Bob", "Cy"], first_dealer="Ann")
    screen = client.get(f"/games/{game_id}")
    assert "Rules this round" in text_of(screen)
    for reminder in round_reminders(get_variant(key), get_variant(key).round(1)):
        shown = element_text(screen, f"reminder-{reminder.topic}")
        assert shown.startswith(f"{reminder.title} {reminder.text}"), shown
    link = re.search(r'<a href="([^"]+)">All rules</a>', screen.get_data(as_text=True))
    assert link and link.group(1) == f"/rules/{key}"
    visitor = strict_client(app, None)
    assert get_variant(key).name in text_of(visitor.get(link.group(1)))


def test_buys_left_count_down_for_each_player(client, actions):
    game_id = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    screen = client.get(f"/games/{game_id}")
    assert element_text(screen, "buys-left") == "Buys left: Ann 4, Bob 4, Cy 4."
    screen = tap(client, game_id, 1, "buy", ids["Bob"])
    assert element_text(screen, "buys-left") == "Buys left: Ann 4, Bob 3, Cy 4."
    for _ in range(4):
        screen = tap(client, game_id, 1, "buy", ids["Cy"])
    assert element_text(screen, "buys-left") == "Buys left: Ann 4, Bob 3, Cy none."
    screen = tap(client, game_id, 1, "unbuy", ids["Cy"])
    assert element_text(screen, "buys-left") == "Buys left: Ann 4, Bob 3, Cy 1."


def test_the_buy_limit_follows_the_round(client, actions):
    """shanghai-10: 3 buys in deals 1–8, 4 in deals 9–10."""
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    assert "Up to 3 buys each this round." in element_text(client.get(f"/games/{game_id}"), "reminder-buying")
    for number in range(1, 9):
        actions.record(ids, game_id, number, "Ann", {"Bob": "K"})
    screen = tap(client, game_id, 9, "buy", ids["Bob"])
    assert "Up to 4 buys each this round." in element_text(screen, "reminder-buying")
    assert element_text(screen, "buys-left") == "Buys left: Ann 4, Bob 3."
    assert "At most 1 joker in a set of 3 and 2 in a run of 5." in element_text(screen, "reminder-wild")


def test_a_player_who_laid_down_is_named_where_that_stops_buying(client, actions):
    game_id = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    assert element_text(client.get(f"/games/{game_id}"), "down-no-buy") == ""
    tap(client, game_id, 1, "down", ids["Bob"], laid_down="1")
    screen = tap(client, game_id, 1, "down", ids["Ann"], laid_down="1")
    no_buying = element_text(screen, "reminder-no-buying")
    assert "A player who has laid down may not buy." in no_buying
    assert element_text(screen, "down-no-buy") == "Laid down, so not buying: Ann, Bob."
    screen = tap(client, game_id, 1, "down", ids["Ann"], laid_down="0")
    assert element_text(screen, "down-no-buy") == "Laid down, so not buying: Bob."


def test_where_laid_down_players_may_buy_nobody_is_named(client, actions):
    game_id = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    ids = actions.player_ids(game_id)
    screen = tap(client, game_id, 1, "down", ids["Cy"], laid_down="1")
    assert element_text(screen, "reminder-no-buying") == ""
    assert element_text(screen, "down-no-buy") == ""
    assert "may not buy" not in text_of(screen)


# -- the rules pages ------------------------------------------------------------------------


def squashed(text: str) -> str:
    """Text without whitespace or list bullets: a PDF's extracted text and a page's text compare."""
    return re.sub(r"[\s•]", "", text)


@pytest.mark.parametrize("key", sorted(SPEC))
@pytest.mark.slow  # a sweep or a long build: in the full suite, not the quick loop
def test_rules_page_says_exactly_what_the_rule_card_pdf_says(client, app, key):
    variant = get_variant(key)
    visitor = strict_client(app, None)
    page = visitor.get(f"/rules/{key}")
    assert page.status_code == 200
    card = texts_by_class(page, "rulecard")
    assert len(card) == 1
    _, pdf = pdf_text(client.get(f"/print/rules/{key}.pdf").data)
    assert squashed(card[0]) == squashed(pdf)
    # What a player looks for: every contract in order, and the point table.
    position = 0
    for round_ in variant.rounds:
        found = card[0].find(f"{round_.number} {round_.contract.capitalize()} {round_.min_cards} "
                             f"{round_.cards_dealt} {round_.buy_limit}", position)
        assert found >= 0, f"round {round_.number} missing or out of order"
        position = found
    assert documents._point_key(variant) in card[0]


def test_rules_index_lists_every_preset_with_its_points_without_sign_in(app):
    visitor = strict_client(app, None)
    page = visitor.get("/rules")
    assert page.status_code == 200
    html, text = page.get_data(as_text=True), text_of(page)
    for key, variant in VARIANTS.items():
        assert f'href="/rules/{key}"' in html
        assert variant.name in text
        assert f"Points: {documents._point_key(variant)}" in text
        assert visitor.get(f"/rules/{key}").status_code == 200


def test_a_guest_can_print_the_rule_card_too(app):
    guest = strict_client(app, None)
    assert "/print/rules/online-11.pdf" in guest.get("/rules/online-11").get_data(as_text=True)
    card = guest.get("/print/rules/online-11.pdf")
    assert card.status_code == 200 and card.mimetype == "application/pdf"


def test_unknown_rules_are_not_found(client, app):
    assert client.get("/rules/canasta").status_code == 404
    assert strict_client(app, None).get("/rules/canasta").status_code == 404
