"""Home: games in progress and recent finished games."""

from flask import Blueprint, render_template

from . import services
from .models import FINISHED, IN_PROGRESS

bp = Blueprint("main", __name__)


@bp.get("/")
def home():
    family = services.current_family()
    return render_template(
        "main/home.html",
        family=family,
        in_progress=services.games_of(family, IN_PROGRESS, limit=20),
        finished=services.games_of(family, FINISHED, limit=10),
        standings=services.standings,
    )


@bp.get("/healthz")
def healthz():
    return "ok", 200, {"Content-Type": "text/plain"}
