"""Who may open what, declared on each view.

Every page needs a signed-in member of the family unless its view says otherwise:

- ``@public``: anyone, signed in or not (sign-in pages, rules pages, a scoreboard link);
- ``@keeper_page``: also a browser holding a score keeper's link for the game in the URL
  (``sharing``), for that game only.

``accounts.views.require_sign_in`` enforces it before every request.

Nothing is listed by endpoint name: a new view is closed until it says it is open.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from flask import abort, current_app, g, has_request_context
from flask_login import current_user

from ..extensions import db
from ..families import sole_family
from ..games.service import family_game
from ..models import MAX_ID, Family, Member

PUBLIC = "public"
KEEPER = "keeper"


def public(view: Callable) -> Callable:
    """Anyone may open this page."""
    view.access = PUBLIC
    return view


def keeper_page(view: Callable) -> Callable:
    """A score keeper's link may open this page for its own game (``game_id`` in the URL)."""
    view.access = KEEPER
    return view


def access_of(endpoint: str | None) -> str | None:
    """What the view of ``endpoint`` declared: ``PUBLIC``, ``KEEPER`` or ``None`` (members only)."""
    view = current_app.view_functions.get(endpoint) if endpoint else None
    return getattr(view, "access", None)


def current_family() -> Family:
    """The signed-in member's family; on the command line, the instance's only family.

    A page opened through a score keeper's link (``accounts.views.keeper_link``) belongs to that link's
    family, whoever is signed in.
    """
    if has_request_context():
        link = g.get("keeper_link")
        if link is not None:
            return db.session.get(Family, link.game.family_id)
        if not current_user.is_authenticated:
            abort(401)  # views are behind sign-in; this is a second lock on the door
        return current_user.family
    return sole_family()


def is_member() -> bool:
    """Whether the signed-in member belongs to the family this page is about: not so for a member of
    another family who opened a score keeper's link, who sees that game only, as anyone with the link."""
    if not (has_request_context() and current_user.is_authenticated):
        return False
    link = g.get("keeper_link")
    return link is None or current_user.family_id == link.game.family_id


def acting_person(family_id: int) -> Member | str:
    """Who is changing the family's game, for its change history: a member, or a score keeper's link."""
    if current_user.is_authenticated and current_user.family_id == family_id:
        return current_user
    return "score keeper link"


def family_get_or_404(model, ident: int, *options):
    """The signed-in family's row of ``model`` with this id (loaded with ``options``), or 404
    for another family's, a missing one, or an id no column could hold."""
    if not 0 < ident <= MAX_ID:
        abort(404)
    row = db.session.execute(
        db.select(model).where(model.id == ident, model.family_id == current_family().id).options(*options)
    ).unique().scalar_one_or_none()
    if row is None:
        abort(404)
    return row


def game_or_404(game_id: int):
    """The signed-in family's game with its seats, rounds and results, or 404 (``NotFound``)."""
    return family_game(current_family(), game_id)


def init_app(app) -> None:
    app.jinja_env.globals["is_member"] = is_member
    # Flask's own static view is public: wrap it to carry the mark.
    static = app.view_functions.get("static")
    if static is not None:
        @wraps(static)
        def static_files(*args, **kwargs):
            return static(*args, **kwargs)

        app.view_functions["static"] = public(static_files)
