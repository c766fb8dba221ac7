"""Home: games in progress and recent finished games."""

from flask import Blueprint, render_template

from . import services, stats
from .models import FINISHED
from .speed import cached_page

bp = Blueprint("main", __name__)


@bp.get("/")
@cached_page
def home():
    family = services.current_family()
    return render_template(
        "main/home.html",
        family=family,
        in_progress=stats.in_progress(family),
        finished=stats.history(family, stats.HistoryFilters(status=FINISHED), page_size=10),
    )


@bp.get("/healthz")
def healthz():
    return "ok", 200, {"Content-Type": "text/plain"}
