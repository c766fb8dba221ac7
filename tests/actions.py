"""What a member does on a phone, as the tests drive it: sign in, start a game through both
new-game steps, open the card entry, record a hand, review then save; and what a test reads
back about that game. Handed to tests by the ``actions`` fixture in conftest.py."""

from __future__ import annotations

import re
from collections.abc import Callable

from flask import Flask
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from scorekeeper.extensions import db
from scorekeeper.models import Game, GameRound, Player, Result, Seat
from tests import databases
from tests.pages import carried_fields, input_value, input_values, inputs, round_data, score_url, text_of


class GameActions:
    """A member's phone (``client``) on ``app``. The client may be given as a function that makes
    it, so a test that only reads the database never makes one."""

    def __init__(self, client: FlaskClient | Callable[[], FlaskClient] | None = None, app: Flask | None = None):
        self._client = client
        self.app = app

    @property
    def client(self) -> FlaskClient:
        if not isinstance(self._client, FlaskClient) and callable(self._client):
            self._client = self._client()
        return self._client

    def on(self, client: FlaskClient, app: Flask | None = None) -> GameActions:
        """The same actions from another phone (another member, a score keeper's link)."""
        return GameActions(client, app or self.app)

    # -- members ---------------------------------------------------------------------------

    def add_member(self, family_name: str, username: str) -> tuple[int, int]:
        """A family (made if new) with a member ``username``: (family id, member id)."""
        return databases.add_member(self.app, family_name, username)

    def sign_in(self, username: str) -> bool:
        """Sign this phone in as ``username``, as the sign-in page would; False if no such member."""
        return databases.sign_in_session(self.app, self.client, username)

    # -- a game ----------------------------------------------------------------------------

    def new_game(self, variant: str, names: list[str], first_dealer: str | None = None,
                 skip_first_hand: bool = False) -> int:
        """Start a game through both new-game steps; ``first_dealer`` is a name (None draws one)."""
        step1 = self.client.post("/games/new", data={"variant": variant, "new_players": ", ".join(names)})
        assert step1.status_code == 200, text_of(step1)
        seats = input_values(step1, "seat")
        assert len(seats) == len(names), text_of(step1)
        token = {t.partition(":")[2]: t for t in seats}
        data = {"variant": variant, "seat": seats,
                "first_dealer": token[first_dealer] if first_dealer else "random"}
        if skip_first_hand:
            data["skip_first_hand"] = "y"
        step2 = self.client.post("/games/new/seating", data=data)
        assert step2.status_code == 302, text_of(step2)
        match = re.fullmatch(r"/games/(\d+)", step2.headers["Location"])
        assert match, step2.headers["Location"]
        return int(match.group(1))

    def version_of(self, game_id: int, number: int) -> int:
        """The hidden version on the card-entry page, as a phone would send it back."""
        page = self.client.get(score_url(game_id, number))
        assert page.status_code == 200, text_of(page)
        return int(input_value(page, "version"))

    def opened_form(self, game_id: int, number: int) -> tuple[int, dict[str, str]]:
        """Open the card entry: its version, and the buys and laid-down marks it starts with."""
        page = self.client.get(score_url(game_id, number))
        assert page.status_code == 200, text_of(page)
        kept = {}
        for field in inputs(page):
            name = field.get("name", "")
            if name.endswith("-buys"):
                kept[name] = field.get("value", "")
            elif name.endswith("-laid_down") and "checked" in field:
                kept[name] = "y"
        return int(input_value(page, "version")), kept

    def record(self, ids, game_id: int, number: int, went_out: str, hands: dict, **kwargs):
        """Open the card entry for ``number``, fill in the hands, save; returns the save response.

        Buys and laid-down marks counted on the round screen stay as the form shows them.
        """
        version, kept = self.opened_form(game_id, number)
        data = {**kept, **round_data(ids, went_out, hands, version, **kwargs)}
        response = self.client.post(score_url(game_id, number), data=data)
        assert response.status_code == 302, text_of(response)
        return response

    def review_then_save(self, game_id: int, number: int, data: dict):
        """Press 'Check points', then 'Save' on the review page, as a player does."""
        url = score_url(game_id, number)
        review = self.client.post(url, data={**data, "action": "review"})
        assert review.status_code == 200, text_of(review)
        assert f"Check round {number}" in text_of(review), text_of(review)
        saved = self.client.post(url, data=MultiDict(carried_fields(review) + [("action", "save")]))
        assert saved.status_code == 302, text_of(saved)
        return review, saved

    # -- what the database holds about a game ----------------------------------------------

    def player_ids(self, game_id: int) -> dict[str, int]:
        """Player name -> id, in seat order (clockwise)."""
        with self.app.app_context():
            rows = db.session.execute(
                db.select(Player.name, Player.id).join(Seat, Seat.player_id == Player.id)
                .where(Seat.game_id == game_id).order_by(Seat.position)
            ).all()
        return {name: pid for name, pid in rows}

    def game_status(self, game_id: int) -> str:
        with self.app.app_context():
            return db.session.execute(db.select(Game.status).where(Game.id == game_id)).scalar_one()

    def dealers(self, game_id: int) -> list[tuple[int, str]]:
        """``(round number, dealer's name)`` for every round, in playing order."""
        with self.app.app_context():
            names = [n for n, in db.session.execute(
                db.select(Player.name).join(Seat, Seat.player_id == Player.id)
                .where(Seat.game_id == game_id).order_by(Seat.position)
            )]
            rounds = db.session.execute(
                db.select(GameRound.number, GameRound.dealer).where(GameRound.game_id == game_id)
                .order_by(GameRound.position)
            ).all()
        return [(number, names[dealer]) for number, dealer in rounds]

    def stored_points(self, game_id: int) -> dict[int, dict[str, int]]:
        """Points stored per recorded round: ``{round number: {name: points}}``."""
        with self.app.app_context():
            rows = db.session.execute(
                db.select(GameRound.number, Player.name, Result.points)
                .join(Result.round).join(Result.player)
                .where(GameRound.game_id == game_id, GameRound.recorded_at.is_not(None))
                .order_by(GameRound.position, Result.position)
            ).all()
        points: dict[int, dict[str, int]] = {}
        for number, name, pts in rows:
            points.setdefault(number, {})[name] = pts
        return points

    def buys_of(self, game_id: int, number: int) -> dict[str, int]:
        """Buys stored for each player in round ``number``."""
        with self.app.app_context():
            rows = db.session.execute(
                db.select(Player.name, Result.buys).join(Result.round).join(Result.player)
                .where(GameRound.game_id == game_id, GameRound.number == number)
                .order_by(Result.position)
            ).all()
        return dict(rows)
