"""Forms for families and members: signing up, in, joining and naming the family."""

from __future__ import annotations

import hmac
import re

from flask import current_app
from flask_wtf import FlaskForm
from wtforms import BooleanField, PasswordField, StringField
from wtforms.validators import DataRequired, EqualTo, InputRequired, Length, ValidationError

from . import service as accounts


def _check_username(form, field):
    problem = accounts.username_problem(accounts.normal_username(field.data))
    if problem:
        raise ValidationError(problem)
    if accounts.username_taken(field.data):
        raise ValidationError(accounts.USERNAME_TAKEN)


def _check_password(form, field):
    problem = accounts.password_problem(field.data or "")
    if problem:
        raise ValidationError(problem)


class NewMemberForm(FlaskForm):
    """A username and a password typed twice (joining a family)."""

    username = StringField(
        "Username", [InputRequired("Choose a username."), _check_username],
        render_kw={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"},
        description="What you type to sign in; letters, digits, dots and dashes.",
    )
    password = PasswordField(
        "Password", [InputRequired("Choose a password."), _check_password],
        render_kw={"autocomplete": "new-password"}, description="At least 8 characters.",
    )
    confirm = PasswordField(
        "Password again", [InputRequired("Type the password again."), EqualTo("password", "The two passwords differ.")],
        render_kw={"autocomplete": "new-password"},
    )


def _family_name_field(**kwargs) -> StringField:
    # InputRequired refuses a missing field (which would keep the old name), DataRequired one
    # that the filter left empty (only spaces).
    return StringField(
        "Family name",
        [InputRequired("Give the family a name."), DataRequired("Give the family a name."),
         Length(max=60, message="Use at most 60 characters.")],
        filters=[lambda s: " ".join(s.split()) if s else s],
        **kwargs,
    )


SETUP_CODE_MISSING = "Type the set-up code shown where Scorekeeper was started."
SETUP_CODE_WRONG = "That is not the set-up code: look again where Scorekeeper was started."


def _normal_code(text: str) -> str:
    return re.sub(r"[\s-]", "", text or "").casefold()


def _check_setup_code(form, field):
    """The code ``serve`` printed (``SETUP_CODE``), however it was spaced; a wrong one is not shown again."""
    expected = _normal_code(str(current_app.config.get("SETUP_CODE") or ""))
    if not hmac.compare_digest(_normal_code(field.data).encode(), expected.encode()):
        field.data = ""
        raise ValidationError(SETUP_CODE_WRONG)


class NewFamilyForm(NewMemberForm):
    # Only on the first visit to a server started with ``serve``, which prints it; the view drops it otherwise.
    setup_code = StringField(
        "Set-up code", [InputRequired(SETUP_CODE_MISSING), _check_setup_code],
        render_kw={"autocomplete": "off", "inputmode": "numeric", "autocapitalize": "none", "spellcheck": "false"},
        description="Printed where Scorekeeper was started, e.g. 4821-0937. Needed once, to create the family.",
    )
    family_name = _family_name_field(description="Shown on score sheets, e.g. The Parkers.")


class SignInForm(FlaskForm):
    username = StringField(
        "Username", [InputRequired("Enter your username.")],
        render_kw={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"},
    )
    password = PasswordField("Password", [InputRequired("Enter your password.")],
                             render_kw={"autocomplete": "current-password"})
    remember = BooleanField("Keep me signed in on this phone", default=True)


class FamilyNameForm(FlaskForm):
    name = _family_name_field()
