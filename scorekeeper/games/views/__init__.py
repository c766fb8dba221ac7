"""The games pages (blueprint ``games``, under ``/games``): ``new_game``, ``round_screen``,
``card_entry``, ``standings`` and ``paper``, which add themselves to it."""

from flask import Blueprint

bp = Blueprint("games", __name__, url_prefix="/games")

from . import actions, card_entry, new_game, paper, round_screen, standings  # noqa: E402,F401
