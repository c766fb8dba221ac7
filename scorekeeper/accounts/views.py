"""Signing up, in and out; the family page with its members and invite links."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_login import current_user, login_user, logout_user

from ..extensions import db, login_manager
from ..families import commit_for
from ..hosting.addresses import external_url
from ..models import MAX_ID, Family
from ..sharing import service as sharing
from ..web.access import KEEPER, PUBLIC, access_of, public
from . import service as accounts
from .forms import FamilyNameForm, NewFamilyForm, NewMemberForm, SignInForm
from .service import AccountError

bp = Blueprint("accounts", __name__)
login_manager.login_view = "accounts.login"
login_manager.login_message = "Sign in to see your family's games."
login_manager.login_message_category = "info"


@login_manager.user_loader
def _load(session_id: str):
    return accounts.load_member(session_id)


def _safe_next(target: str | None) -> str:
    """Only a path on this site, so a crafted link cannot send a fresh sign-in elsewhere.

    Browsers drop tabs and line breaks from a URL (``/\t/evil`` becomes ``//evil``), and a
    backslash counts as a slash: any of them, or a host, and the sign-in goes home instead.
    """
    if (
        target
        and target.startswith("/")
        and not target.startswith("//")
        and "\\" not in target
        and target.isprintable()
        and not urlsplit(target).netloc
    ):
        return target
    return url_for("main.home")


def _sign_in(member, remember: bool) -> None:
    session.clear()  # a fresh session (and form token) for the signed-in person
    accounts.start_session(member)  # stored, so signing out ends it on the server too
    login_user(member, remember=remember)


def _address() -> str:
    return request.remote_addr or ""


def _username_answer_refused(form) -> bool:
    """On a sent sign-up or join form, before the username is looked up: refuse (the sign-in
    limit's message, beside the username) when this address has had too many failures. A
    "taken" answer then counts as one (``_count_username_answer``)."""
    if not form.is_submitted():
        return False
    try:
        g.username_answer = accounts.reserve_username_answer(_address())
    except AccountError as refusal:
        form.username.errors = [str(refusal)]
        return True
    return False


def _count_username_answer(form) -> None:
    reserved = g.pop("username_answer", None)
    if reserved:
        # A wrong set-up code counts too: guessing it is held to the sign-in limit.
        wrong_code = bool(getattr(form, "setup_code", None) and form.setup_code.errors)
        accounts.keep_username_answer(reserved, wrong_code or accounts.USERNAME_TAKEN in (form.username.errors or ()))


def keeper_link():
    """The score keeper's link this browser opened for the game this request is about, if any."""
    if access_of(request.endpoint) != KEEPER:
        return None  # and the session is left alone: static files stay the same for everyone
    game_id = request.view_args["game_id"]
    token = session.get("keep", {}).get(str(game_id))
    if not token:
        return None
    link = sharing.find(token, sharing.KEEP)
    return link if link is not None and link.game_id == game_id else None


def require_sign_in():
    """Every page but the public ones needs a signed-in member, or a score keeper's link for
    the pages its view opens to one (``web.access``): default deny."""
    g.keeper_link = keeper_link()
    if request.endpoint is None:
        return None  # a 404 or 405 is answered as such
    if access_of(request.endpoint) == PUBLIC or current_user.is_authenticated or g.keeper_link is not None:
        return None
    if not accounts.has_members():
        return redirect(url_for("accounts.welcome"))
    return login_manager.unauthorized()


@bp.route("/welcome", methods=["GET", "POST"])
@public
def welcome():
    """First visit on a new instance: name the family, make the first login."""
    if accounts.has_members():
        return redirect(url_for("accounts.login"))
    return _new_family(first=True)


@bp.route("/signup", methods=["GET", "POST"])
@public
def signup():
    """Another family on the same server (when sign-up is open)."""
    if not accounts.has_members():
        return redirect(url_for("accounts.welcome"))
    if not current_app.config["OPEN_SIGNUP"]:
        abort(404)
    return _new_family(first=False)


def _new_family(first: bool):
    form = NewFamilyForm()
    if not (first and current_app.config.get("SETUP_CODE")):
        del form.setup_code  # asked only before the first family, when ``serve`` printed one
    if _username_answer_refused(form):
        return render_template("accounts/new_family.html", form=form, first=first), 429
    if form.validate_on_submit():
        try:
            member = accounts.create_family(form.family_name.data, form.username.data, form.password.data)
        except AccountError as error:
            form.username.errors.append(str(error))
        else:
            _count_username_answer(form)
            _sign_in(member, remember=True)
            flash(f"Welcome, {member.username}. Invite the rest of the family from the Family page.", "success")
            return redirect(url_for("main.home"))
    _count_username_answer(form)
    return render_template("accounts/new_family.html", form=form, first=first)


@bp.route("/login", methods=["GET", "POST"])
@public
def login():
    if current_user.is_authenticated:
        return redirect(_safe_next(request.args.get("next")))
    form = SignInForm()
    error = None
    if form.validate_on_submit():
        try:
            member = accounts.authenticate(form.username.data, form.password.data, _address())
        except AccountError as refusal:
            error = str(refusal)
        else:
            _sign_in(member, remember=form.remember.data)
            return redirect(_safe_next(request.args.get("next")))
    return render_template(
        "accounts/login.html", form=form, error=error, open_signup=current_app.config["OPEN_SIGNUP"]
    ), (429 if error == accounts.TOO_MANY else 200)


def _sign_out():
    """Sign out, and have the browser forget the pages and unsent forms it kept of the family."""
    session.clear()
    logout_user()  # after the clear: it leaves the note that deletes the remember-me cookie
    response = redirect(url_for("accounts.login"))
    response.headers["Clear-Site-Data"] = '"cache", "storage"'
    return response


@bp.post("/logout")
def logout():
    accounts.sign_out(current_user)  # a copy of this browser's cookies stops working too
    response = _sign_out()
    flash("Signed out.", "success")
    return response


@bp.post("/logout/everywhere")
def logout_everywhere():
    accounts.sign_out_everywhere(current_user)
    response = _sign_out()
    flash("Signed out on every phone and computer. Sign in again here.", "success")
    return response


@bp.route("/join/<token>", methods=["GET", "POST"])
@public
def join(token: str):
    """An invite link: choose a username and password to join the family."""
    invite = accounts.open_invite(token)
    if invite is None:
        return render_template("accounts/join.html", invite=None), 404
    if current_user.is_authenticated:
        return render_template("accounts/join.html", invite=invite, signed_in=True)
    form = NewMemberForm()
    family = db.session.get(Family, invite.family_id)
    if _username_answer_refused(form):
        return render_template("accounts/join.html", invite=invite, family=family, form=form), 429
    if form.validate_on_submit():
        try:
            member = accounts.join(token, form.username.data, form.password.data)
        except AccountError as error:
            form.username.errors.append(str(error))
        else:
            _count_username_answer(form)
            _sign_in(member, remember=True)
            flash(f"Welcome to {member.family.name}, {member.username}.", "success")
            return redirect(url_for("main.home"))
    _count_username_answer(form)
    return render_template("accounts/join.html", invite=invite, family=family, form=form)


@bp.route("/family", methods=["GET", "POST"])
def family():
    """The family: its name, members, invite links, signing out everywhere."""
    family = current_user.family
    form = FamilyNameForm(prefix="family", data={"name": family.name})
    if form.validate_on_submit():
        family.name = form.name.data
        commit_for(family.id)  # the name is on cached pages and sheets
        flash("Family name saved.", "success")
        return redirect(url_for("accounts.family"))
    return render_template(
        "accounts/family.html",
        family=family,
        form=form,
        members=accounts.family_members(family),
        invites=accounts.open_invites(family),
        new_link=session.pop("new_invite", None),
    )


@bp.post("/family/invites")
def invite():
    token = accounts.create_invite(current_user)
    # Shown once on the next page: only a hash of it is stored.
    session["new_invite"] = external_url("accounts.join", token=token)
    return redirect(url_for("accounts.family") + "#invite")


@bp.post("/family/invites/<int:invite_id>/cancel")
def cancel_invite(invite_id: int):
    if invite_id > MAX_ID or not accounts.cancel_invite(current_user.family, invite_id):
        abort(404)
    flash("Invite link cancelled.", "success")
    return redirect(url_for("accounts.family"))


def init_app(app) -> None:
    login_manager.init_app(app)
    app.before_request(require_sign_in)
