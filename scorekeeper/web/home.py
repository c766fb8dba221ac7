"""Home: games in progress and recent finished games."""

from flask import Blueprint, render_template

from ..history import stats
from ..models import FINISHED
from .access import current_family, public
from .page_cache import cached_page

bp = Blueprint("main", __name__)


@bp.get("/")
@cached_page
def home():
    family = current_family()
    return render_template(
        "web/home.html",
        family=family,
        in_progress=stats.in_progress(family),
        finished=stats.history(family, stats.HistoryFilters(status=FINISHED), page_size=10, counted=False),
    )


@bp.get("/healthz")
@public
def healthz():
    return "ok", 200, {"Content-Type": "text/plain"}
