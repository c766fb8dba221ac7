"""Rules files: a family's house rules as a small JSON file another family imports."""

from __future__ import annotations

import json

from .. import rules
from ..models import HouseRules
from .checks import VARIANT_FORMAT, VERSION, TransferError, check_rules, need, read

VARIANT_FILE_LIMIT = 64 * 1024  # a variant is a few KB

__all__ = ["VARIANT_FILE_LIMIT", "TransferError", "parse_variant", "variant_json"]


def variant_json(variant: rules.Variant) -> str:
    """House rules as a small file another family can import."""
    data = variant.to_dict()
    del data["key"]  # the importing family gives it its own
    return json.dumps({"format": VARIANT_FORMAT, "version": VERSION, "variant": data}, ensure_ascii=False, indent=1)


def parse_variant(text: str | bytes) -> rules.Variant:
    """Read and check a variant file; ``TransferError`` says what is wrong."""
    if len(text) > VARIANT_FILE_LIMIT:
        raise TransferError("This file is far too big for one set of rules.")
    data = read(text, VARIANT_FORMAT, "rules file", "rules file")
    variant_data = need(data, "variant", dict, "file")
    name = need(variant_data, "name", str, "variant", longest=HouseRules.__table__.c.name.type.length)
    if not name.strip():
        raise TransferError("variant.name: the rules need a name.")
    # The editor's checks too, bounds and playability (check_rules runs house.variant_problems).
    return check_rules({**variant_data, "key": ""}, "", "variant")
