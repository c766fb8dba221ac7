"""The service refuses impossible hands whoever calls it: the card entry, a phone sending a hand
it kept while offline (with a submission id), a score keeper's link, or code calling
``scorekeeper.games.hands.record_round`` directly. A refused hand writes nothing."""

from __future__ import annotations

import dataclasses
import re

import pytest

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.families import RuleError, sole_family
from scorekeeper.games.hands import record_round
from scorekeeper.games.service import load_game, round_of
from scorekeeper.models import GameRound, Player, PlayerGame, Submission
from tests.actions import GameActions
from tests.databases import db_snapshot, strict_client
from tests.pages import round_data, score_url, text_of

NAMES = ["Ann", "Bob", "Cy"]


def family_7_game(client) -> int:
    """A family-7 game for Ann, Bob and Cy (2 decks + 4 jokers; 11 dealt, 4 buys of 2 cards)."""
    actions = GameActions(client)
    return actions.new_game("family-7", NAMES, first_dealer="Ann")


def call_record_round(app, game_id: int, number: int, hands: list[rules.Hand]):
    """``record_round`` called directly, as any code other than the web form would."""
    with app.app_context():
        game = load_game(sole_family(), game_id)
        version = round_of(game, number).version
        record_round(game, number, hands, version, by="test")


def is_recorded(app, game_id: int, number: int) -> bool:
    with app.app_context():
        return db.session.execute(
            db.select(GameRound.recorded_at).where(GameRound.game_id == game_id, GameRound.number == number)
        ).scalar_one() is not None


def totals(app, game_id: int) -> dict[str, int]:
    """Each player's running total as the game's summary holds it."""
    with app.app_context():
        rows = db.session.execute(
            db.select(Player.name, PlayerGame.total).join(Player, Player.id == PlayerGame.player_id)
            .where(PlayerGame.game_id == game_id)
        ).all()
    return dict(rows)


def hands_of(ids: dict[str, int], **by_name: rules.Hand) -> list[rules.Hand]:
    """Hands keyed by name, with the player ids of this game filled in."""
    return [dataclasses.replace(hand, player_id=ids[name]) for name, hand in by_name.items()]


def H(**fields) -> rules.Hand:  # noqa: N802 - a short name for a hand in the tables below
    return rules.Hand(player_id=0, **fields)


# =============================================================================================
# record_round called directly
# =============================================================================================

REFUSED = {
    "buys over the allowance": (
        dict(Ann=H(went_out=True), Bob=H(buys=5, counts={"K": 1}), Cy=H(counts={"5": 1})),
        "Bob may buy at most 4 times this hand.",
    ),
    "negative buys": (
        dict(Ann=H(went_out=True), Bob=H(buys=-1, counts={"K": 1}), Cy=H(counts={"5": 1})),
        "Buys cannot be negative.",
    ),
    "14 cards with 1 buy in round 1": (
        dict(Ann=H(went_out=True), Bob=H(buys=1, counts={"K": 7, "Q": 7}), Cy=H(counts={"5": 1})),
        "14 cards is more than Bob could hold with 1 buy (11 dealt + 1 buy × 2 = 13)",
    ),
    "more cards than anyone can hold": (
        dict(Ann=H(went_out=True), Bob=H(buys=4, counts={"K": 7, "Q": 7, "J": 6}), Cy=H(counts={"5": 1})),
        "20 cards is more than anyone can hold in round 1 (11 dealt + 4 buys × 2 = 19)",
    ),
    "more jokers than the decks hold": (
        dict(Ann=H(went_out=True), Bob=H(counts={"JK": 3}), Cy=H(counts={"JK": 2})),
        "Joker: 5 entered across all players, but the decks in play hold only 4",
    ),
    "cards for who went out": (
        dict(Ann=H(went_out=True, counts={"A": 1}), Bob=H(counts={"K": 1}), Cy=H(counts={"5": 1})),
        "Ann went out, so no cards are left: clear them.",
    ),
    "no cards or total for a player": (
        dict(Ann=H(went_out=True), Bob=H(), Cy=H(counts={"5": 1})),
        "Tap the cards Bob holds, or enter a total.",
    ),
    "nobody out": (
        dict(Ann=H(counts={"A": 1}), Bob=H(counts={"K": 1}), Cy=H(counts={"5": 1})),
        "Choose who went out.",
    ),
    "two out": (
        dict(Ann=H(went_out=True), Bob=H(went_out=True), Cy=H(counts={"5": 1})),
        "Only one player can go out in a hand.",
    ),
    "a missing player": (
        dict(Ann=H(went_out=True), Bob=H(counts={"K": 1})),
        "Every seated player's hand is needed, once.",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_record_round_refuses_an_impossible_hand_and_writes_nothing(app, client, case, actions):
    game_id = family_7_game(client)
    ids = actions.player_ids(game_id)
    by_name, problem = REFUSED[case]
    before = db_snapshot(app)

    with pytest.raises(RuleError) as refused:
        call_record_round(app, game_id, 1, hands_of(ids, **by_name))

    assert str(refused.value) == f"Round 1 was not saved: {problem}"
    assert db_snapshot(app) == before
    assert not is_recorded(app, game_id, 1)


def test_record_round_refuses_a_hand_given_twice_for_one_player(app, client, actions):
    game_id = family_7_game(client)
    ids = actions.player_ids(game_id)
    hands = hands_of(ids, Ann=H(went_out=True), Bob=H(counts={"K": 1}))
    hands.append(rules.Hand(player_id=ids["Bob"], counts={"5": 1}))
    before = db_snapshot(app)
    with pytest.raises(RuleError, match=r"^Round 1 was not saved: Every seated player's hand is needed, once\.$"):
        call_record_round(app, game_id, 1, hands)
    assert db_snapshot(app) == before
    assert not is_recorded(app, game_id, 1)


def test_record_round_stores_a_valid_hand_with_the_rules_points_and_moves_the_totals(app, client, actions):
    game_id = family_7_game(client)
    ids = actions.player_ids(game_id)
    variant = rules.get_variant("family-7")

    first = hands_of(ids, Ann=H(went_out=True), Bob=H(buys=1, counts={"K": 2, "A": 1}),
                     Cy=H(counts={"JK": 1, "5": 1}))
    call_record_round(app, game_id, 1, first)
    # K + K + A = 10 + 10 + 15; Joker + 5 = 20 + 5 (family-7)
    assert actions.stored_points(game_id) == {1: {"Ann": 0, "Bob": 35, "Cy": 25}}
    assert [rules.hand_score(variant, hand, 1)[0] for hand in first] == [0, 35, 25]
    assert is_recorded(app, game_id, 1)
    assert totals(app, game_id) == {"Ann": 0, "Bob": 35, "Cy": 25}

    second = hands_of(ids, Ann=H(hand_total=40), Bob=H(went_out=True), Cy=H(counts={"Q": 1}))
    call_record_round(app, game_id, 2, second)
    assert actions.stored_points(game_id)[2] == {"Ann": 40, "Bob": 0, "Cy": 10}
    assert totals(app, game_id) == {"Ann": 40, "Bob": 35, "Cy": 35}

    with app.app_context():
        game = load_game(sole_family(), game_id)
        bob = round_of(game, 1).result_for(ids["Bob"])
        assert (bob.buys, bob.cards, bob.points) == (1, "K K A", 35)


def test_record_round_stores_shanghai_10s_blind_bonus(app, actions):
    game_id = actions.new_game("shanghai-10", NAMES, first_dealer="Ann")
    ids = actions.player_ids(game_id)
    hands = hands_of(ids, Ann=H(went_out=True, bonus_code="blind-no-joker"), Bob=H(counts={"10": 1, "JK": 1, "A": 1}),
                     Cy=H(bonus_code="blind", counts={"K": 1}))
    call_record_round(app, game_id, 1, hands)
    # Bob: 5 + 15 + 15 (the spec's worked example); Cy did not go out, so "blind" earns nothing.
    assert actions.stored_points(game_id) == {1: {"Ann": -50, "Bob": 35, "Cy": 10}}
    assert totals(app, game_id) == {"Ann": -50, "Bob": 35, "Cy": 10}


def test_after_a_refusal_the_same_round_can_still_be_recorded(app, client, actions):
    game_id = family_7_game(client)
    ids = actions.player_ids(game_id)
    with pytest.raises(RuleError):
        call_record_round(app, game_id, 1, hands_of(ids, Ann=H(went_out=True), Bob=H(buys=5, counts={"K": 1}),
                                                    Cy=H(counts={"5": 1})))
    call_record_round(app, game_id, 1, hands_of(ids, Ann=H(went_out=True), Bob=H(buys=4, counts={"K": 1}),
                                                Cy=H(counts={"5": 1})))
    assert actions.stored_points(game_id) == {1: {"Ann": 0, "Bob": 10, "Cy": 5}}


# =============================================================================================
# Through HTTP: a kept hand sent by a phone back online, and a score keeper's link
# =============================================================================================


def kept_hand_with_too_many_buys(client, ids, game_id: int, submission: str) -> dict[str, str]:
    """The card entry as a phone kept it: Bob with 5 buys where family-7 allows 4."""
    actions = GameActions(client)
    version, kept = actions.opened_form(game_id, 1)
    data = {**kept, **round_data(ids, "Ann", {"Bob": "K", "Cy": "5"}, version, buys={"Bob": 5})}
    data["submission"] = submission
    return data


def assert_refused_without_a_write(app, response, game_id: int) -> None:
    actions = GameActions(app=app)
    assert response.status_code == 200, text_of(response)
    assert "Between 0 and 4 buys." in text_of(response)
    assert "Round 1 saved" not in text_of(response)
    assert not is_recorded(app, game_id, 1)
    assert actions.stored_points(game_id) == {}


def test_a_kept_hand_with_buys_over_the_limit_is_refused_even_with_a_submission_id(app, client, actions):
    game_id = family_7_game(client)
    ids = actions.player_ids(game_id)
    data = kept_hand_with_too_many_buys(client, ids, game_id, "kept-hand-3f2a9c0e5b7d4e1f")
    before = db_snapshot(app)

    first = client.post(score_url(game_id, 1), data=data, follow_redirects=True)
    assert_refused_without_a_write(app, first, game_id)
    assert db_snapshot(app) == before

    # The phone sends it again (its connection dropped): refused again, still nothing stored,
    # and the refused submission id was not kept as if it had been saved.
    again = client.post(score_url(game_id, 1), data=data, follow_redirects=True)
    assert_refused_without_a_write(app, again, game_id)
    assert db_snapshot(app) == before
    with app.app_context():
        assert db.session.execute(db.select(Submission)).first() is None


def test_a_kept_hand_refused_once_can_be_saved_when_corrected(app, client, actions):
    game_id = family_7_game(client)
    ids = actions.player_ids(game_id)
    data = kept_hand_with_too_many_buys(client, ids, game_id, "kept-hand-0000aaaa")
    assert_refused_without_a_write(app, client.post(score_url(game_id, 1), data=data), game_id)
    fixed = {**data, f"p{ids['Bob']}-buys": "4"}
    saved = client.post(score_url(game_id, 1), data=fixed, follow_redirects=True)
    assert "Round 1 saved" in text_of(saved)
    assert actions.stored_points(game_id) == {1: {"Ann": 0, "Bob": 10, "Cy": 5}}


def keeper_link(client, game_id: int) -> str:
    """A score keeper's link made on the share page, as its path."""
    page = client.post(f"/games/{game_id}/share", data={"kind": "keep"}, follow_redirects=True)
    assert page.status_code == 200, text_of(page)
    (path,) = set(re.findall(r'value="https?://[^/"]+(/keep/[^"]+)"', page.text))
    return path


def test_a_score_keepers_over_limit_hand_is_refused_the_same_way(app, client, actions):
    game_id = family_7_game(client)
    ids = actions.player_ids(game_id)
    keep = keeper_link(client, game_id)
    phone = strict_client(app, None)
    assert phone.get(keep).headers["Location"] == f"/games/{game_id}"
    before = db_snapshot(app)

    for _ in range(2):
        data = kept_hand_with_too_many_buys(phone, ids, game_id, "keeper-hand-77c1d2e3")
        refused = phone.post(score_url(game_id, 1), data=data, follow_redirects=True)
        assert_refused_without_a_write(app, refused, game_id)
        assert db_snapshot(app) == before
