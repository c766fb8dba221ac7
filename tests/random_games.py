"""Random family histories for the tests of kept figures and ratings: games started, finished,
edited, undone, deleted and abandoned through the services, as many phones would over months."""

from __future__ import annotations

import random

import sqlalchemy as sa

from scorekeeper import rules
from scorekeeper.extensions import db
from scorekeeper.games import service
from scorekeeper.games.hands import record_round, undo_last_round
from scorekeeper.models import FINISHED, IN_PROGRESS, Family, Game, Player


def our_family() -> Family:
    """The test app's family."""
    return db.session.execute(sa.select(Family).where(Family.name == "Our family")).scalar_one()


def play_random_hand(game: Game, rng: random.Random) -> None:
    """Record the current hand: one player, drawn at random, goes out; the rest hold 5 to 90
    (a multiple of 5: in family-7 every card counts one)."""
    round_ = game.current_round
    seats = [seat.player_id for seat in game.seats]
    out = rng.choice(seats)
    hands = [rules.Hand(pid, went_out=True, laid_down=True) if pid == out else rules.Hand(pid, hand_total=rng.randint(1, 18) * 5)
             for pid in seats]
    record_round(game, round_.number, hands, round_.version, by="test")


def start_game(family: Family, names: list[str], rng: random.Random) -> Game:
    """A family-7 game of these players (new ones added), the first dealer drawn."""
    known = {p.name: p.id for p in db.session.execute(sa.select(Player).where(Player.family_id == family.id)).scalars()}
    seating = [service.SeatChoice(player_id=known[n]) if n in known else service.SeatChoice(new_name=n) for n in names]
    return service.start_game(family, rules.get_variant("family-7"), seating, rng.randrange(len(names)))


NAMES = ["Ann", "Bob", "Cy", "Di", "Ed"]


def random_action(family: Family, rng: random.Random) -> str:
    """Finish a game, or edit, undo, delete or abandon one, at random; returns what it did."""
    games = db.session.execute(sa.select(Game).where(Game.family_id == family.id).order_by(Game.id)).scalars().all()
    finished = [g for g in games if g.status == FINISHED]
    playing = [g for g in games if g.status == IN_PROGRESS]
    action = rng.choice(["finish", "finish", "edit", "undo", "delete", "abandon"])
    if action == "finish" or not finished:
        game = playing[0] if playing else start_game(family, rng.sample(NAMES, rng.randint(3, 5)), rng)
        while game.current_round is not None:
            play_random_hand(game, rng)
        return "finish"
    game = rng.choice(finished)
    if action == "edit":
        round_ = rng.choice(game.rounds)
        seats = [seat.player_id for seat in game.seats]
        hands = [rules.Hand(pid, went_out=True, laid_down=True) if i == 0 else rules.Hand(pid, hand_total=rng.randint(1, 18) * 5)
                 for i, pid in enumerate(seats)]
        record_round(game, round_.number, hands, round_.version, by="test")
    elif action == "undo":
        undo_last_round(game, by="test")
        if rng.random() < 0.5:
            play_random_hand(game, rng)
    elif action == "delete":
        service.delete_game(game)
    else:
        for other in playing:
            service.abandon_game(other)
    return action
