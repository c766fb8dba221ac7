"""Form fields and input checks every feature's forms use."""

from __future__ import annotations

import re

from wtforms import IntegerField as _IntegerField
from wtforms import RadioField
from wtforms.validators import ValidationError
from wtforms.widgets import NumberInput

from ..rules.typed import is_number  # noqa: F401 (the pages' views read plain numbers with it)

NAME_MAX = 40


class IntegerField(_IntegerField):
    """An integer field whose complaint about text says what to type."""

    widget = NumberInput(min=0)

    def process_formdata(self, valuelist):
        if not valuelist or valuelist[0].strip() == "":
            self.data = None
            return
        try:
            self.data = int(valuelist[0])
        except ValueError:
            self.data = None
            raise ValueError("Enter a whole number.") from None

    def validate(self, form, extra_validators=()):
        # Text that is not a number gets one message, not range complaints about nothing.
        if self.process_errors:
            self.errors = list(self.process_errors)
            return False
        return super().validate(form, extra_validators)


class ChoiceField(RadioField):
    """Radio buttons that say what to do when the posted value is not one of them."""

    def pre_validate(self, form):
        if self.data and self.data not in {c.value for c in self.choices}:
            raise ValidationError(f"Choose one of the options shown for “{self.label.text}”.")


def split_names(text: str) -> list[str]:
    """Names typed into one box, separated by commas or new lines."""
    return [" ".join(n.split()) for n in re.split(r"[,\n]", text or "") if n.strip()]


