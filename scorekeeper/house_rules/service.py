"""Storing a family's own rules (house rules) and naming every rule set its games use."""

from __future__ import annotations

import dataclasses

from sqlalchemy.exc import IntegrityError

from .. import rules
from ..extensions import db
from ..families import RuleError, commit_for
from ..history import kept
from ..models import Family, HouseRules, utcnow


def house_rules(family: Family) -> list[HouseRules]:
    """The family's own variants, by name."""
    return list(db.session.execute(
        db.select(HouseRules).where(HouseRules.family_id == family.id).order_by(HouseRules.name)
    ).scalars())


def save_house_rules(family: Family, variant: rules.Variant, row: HouseRules | None = None) -> HouseRules:
    """Store ``variant`` as new house rules, or over ``row``. Games already started keep the
    snapshot they took, so this never changes a recorded score."""
    taken = db.session.execute(
        db.select(HouseRules.id).where(
            HouseRules.family_id == family.id,
            db.func.lower(HouseRules.name) == variant.name.lower(),
            HouseRules.id != (row.id if row else -1),
        )
    ).first()
    if taken:
        raise RuleError(f"Your family already has rules called “{variant.name}”.")
    row = _store_house_rules(family, variant, row)
    try:
        commit_for(family.id)
    except IntegrityError:  # the same name saved from another phone a moment ago
        db.session.rollback()
        raise RuleError(f"Your family already has rules called “{variant.name}”.") from None
    return row


def _store_house_rules(family: Family, variant: rules.Variant, row: HouseRules | None = None) -> HouseRules:
    if row is None:
        row = HouseRules(family_id=family.id, name=variant.name, rules={})
        db.session.add(row)
        db.session.flush()  # the id makes the key
    row.name = variant.name
    row.rules = {**variant.to_dict(), "key": row.key}
    row.updated_at = utcnow()
    return row


def add_imported_rules(family: Family, variant: rules.Variant) -> tuple[HouseRules, bool]:
    """Add a variant read from a file, without committing: ``(row, added)``. A name the family
    already uses gets a number; rules the family already has under that name are not added twice."""
    rows = house_rules(family)
    same = _same_rules(variant)
    for row in rows:
        if row.name.casefold() == variant.name.casefold() and _same_rules(row.variant) == same:
            return row, False
    taken = {row.name.casefold() for row in rows}
    name, n = variant.name, 1
    while name.casefold() in taken:
        n += 1
        name = f"{variant.name[:70]} ({n})"
    return _store_house_rules(family, dataclasses.replace(variant, name=name)), True


def _same_rules(variant: rules.Variant) -> dict:
    return {k: v for k, v in variant.to_dict().items() if k != "key"}


def import_house_rules(family: Family, variant: rules.Variant) -> tuple[HouseRules, bool]:
    """Store a variant read from a file (see ``add_imported_rules``)."""
    row, added = add_imported_rules(family, variant)
    if added:
        commit_for(family.id)
    return row, added


def delete_house_rules(row: HouseRules) -> None:
    """Remove house rules; games played with them keep their own copy."""
    family_id = row.family_id
    db.session.delete(row)
    commit_for(family_id)


def family_variants(family: Family) -> dict[str, rules.Variant]:
    """Every variant a new game can use: the presets, then the family's own."""
    return {**rules.VARIANTS, **{row.key: row.variant for row in house_rules(family)}}


def variant_names(family: Family) -> dict[str, str]:
    """Names for every rules key in the family's games and variants, for filters and tables;
    rules since deleted are named as the last game played with them recorded them."""
    names = {key: v.name for key, v in family_variants(family).items()}
    for key, name in kept.rules_names(family.id).items():
        names.setdefault(key, f"{name} (deleted)")
    return names
