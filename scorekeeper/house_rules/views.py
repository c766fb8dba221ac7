"""House rules: the family's own variants, written in an editor, printed, shared as files."""

from __future__ import annotations

from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from werkzeug.datastructures import MultiDict

from .. import rules
from ..families import RuleError
from ..models import HouseRules
from ..printing.documents import rule_card
from ..printing.responses import send_rule_card
from ..rules import house
from ..transfer import rules_files
from ..web.access import current_family, family_get_or_404
from ..web.fields import is_number
from . import service
from .forms import BLANK_RULES, POINT_FIELDS, HouseRulesForm, VariantImportForm, house_rules_data

bp = Blueprint("house_rules", __name__, url_prefix="/house-rules")

LISTS = ("rounds", "deck_rules")


def _rules_or_404(rules_id: int) -> HouseRules:
    return family_get_or_404(HouseRules, rules_id)


@bp.get("")
def index():
    family = current_family()
    return render_template("house_rules/index.html", rows=service.house_rules(family),
                           presets=rules.VARIANTS.values(), import_form=VariantImportForm())


@bp.get("/<int:rules_id>")
def show(rules_id: int):
    row = _rules_or_404(rules_id)
    return render_template("house_rules/show.html", row=row, **rule_card(row.variant))


# -- the editor ---------------------------------------------------------------------------


def _rearranged(formdata: MultiDict, field, order: list[int | None]) -> MultiDict:
    """The form's data with the rows of list ``field`` in ``order`` (positions of its rows as shown;
    ``None`` adds an empty row), numbered again from 0, so rows move without losing what was typed."""
    prefix = f"{field.name}-"
    rows: dict[int, list[tuple[str, str]]] = {}
    data = MultiDict()
    for key, value in formdata.items(multi=True):
        if key.startswith(prefix):
            head, _, rest = key[len(prefix):].partition("-")
            rows.setdefault(int(head), []).append((rest, value))
        else:
            data.add(key, value)
    shown = sorted(rows)[:field.max_entries]  # the rows the list shows, in order; blank ones follow
    blank = [(sub.short_name, "") for sub in field.entries[0].form]
    for new, position in enumerate(order):
        old = shown[position] if position is not None and position < len(shown) else None
        for rest, value in rows[old] if old is not None else blank:
            data.add(f"{prefix}{new}-{rest}", value)
    return data


def _row_number(text: str) -> bool:
    # Only plain digits: wtforms reads any str.isdigit() text ("²" too) with int().
    return text.isascii() and text.isdigit() and len(text) < 4


def _posted() -> MultiDict:
    """The editor's post without rows whose number is not a plain row number."""
    data = MultiDict()
    for key, value in request.form.items(multi=True):
        name, _, rest = key.partition("-")
        if name not in LISTS or _row_number(rest.partition("-")[0]):
            data.add(key, value)
    return data


def _edit_step(form: HouseRulesForm, posted: MultiDict, step: str) -> MultiDict | None:
    """The form data after an Add / Remove / Up / Down button, or ``None`` for any other."""
    what, _, where = step.partition(":")
    name, _, index = where.partition(":")
    if name not in LISTS:
        return None
    field = form[name]
    order: list[int | None] = list(range(len(field.entries)))
    i = int(index) if is_number(index) else -1
    if what == "add" and len(order) < field.max_entries:
        order.append(None)
    elif what == "remove" and 0 <= i < len(order) and len(order) > 1:
        del order[i]
    elif what in ("up", "down") and 0 <= i < len(order):
        j = i - 1 if what == "up" else i + 1
        if 0 <= j < len(order):
            order[i], order[j] = order[j], order[i]
    return _rearranged(posted, field, order)


def _attach(form: HouseRulesForm, problems: list[house.Problem]) -> None:
    """Put each problem beside its field; rows and lists get theirs at the top of the list."""
    renamed = {"bonus-blind": "blind_bonus", "bonus-blind-no-joker": "blind_no_joker_bonus",
               "bonus-event": "event_bonus"}
    for problem in problems:
        name = renamed.get(problem.field, problem.field)
        if name.startswith("points-"):
            name = "p_" + name[len("points-"):]
        head, *rest = name.split("-")
        if head in LISTS and len(rest) < 2:
            form.list_errors.setdefault(name, []).append(problem.message)
        elif head in LISTS:
            form[head][int(rest[0])][rest[1]].errors.append(problem.message)
        else:
            form[name].errors.append(problem.message)


def _editor(row: HouseRules | None, start: rules.Variant):
    family = current_family()
    posted = _posted() if request.method == "POST" else None
    form = HouseRulesForm(formdata=posted, data=None if posted is not None else house_rules_data(start))
    step = request.form.get("step", "")
    flagged = False  # the page says to look at the marked fields
    if step:
        # Moving rows saves nothing: the page comes back with the rows rearranged.
        data = _edit_step(form, posted, step)
        if data is not None:
            form = HouseRulesForm(formdata=data)
    elif form.validate_on_submit():
        variant = form.to_variant()
        problems = house.variant_problems(variant)
        if form.wilds.data == "none" and variant.has_jokers:
            problems.append(house.Problem("wilds", "No wild cards, so no jokers: set the jokers to 0 in every row."))
        if form.wilds.data == "jokers" and not variant.has_jokers:
            problems.append(house.Problem("wilds", "Jokers are wild, but no row of decks adds any jokers."))
        if not problems:
            try:
                row = service.save_house_rules(family, variant, row)
            except RuleError as error:
                form.name.errors.append(str(error))
            else:
                flash(f"“{row.name}” saved.", "success")
                return redirect(url_for("house_rules.show", rules_id=row.id))
        _attach(form, problems)
        flagged = True
    elif request.method == "POST":
        flagged = True
    return render_template("house_rules/edit.html", form=form, row=row, min_cards=_min_cards(form), flagged=flagged,
                           point_fields=[name for _, name in POINT_FIELDS])


def _min_cards(form: HouseRulesForm) -> list[int | None]:
    """Each round's fewest cards, from the melds as typed (``None`` until readable)."""
    return [house.min_cards_of(entry.form.melds.data or "") for entry in form.rounds]


@bp.route("/new", methods=["GET", "POST"])
def new():
    """Write new house rules, from blank or as a copy (``?from=`` a preset's or house rules' key)."""
    family = current_family()
    start = service.family_variants(family).get(request.args.get("from", ""))
    if start is None:
        start = BLANK_RULES
    else:
        preset = start.key in rules.VARIANTS
        start = rules.Variant.from_dict({
            **start.to_dict(),
            "name": f"{start.name} ({'our rules' if preset else 'copy'})",
            "source": f"Based on the preset “{start.name}”" if preset else start.source,
            "wild_rule": house.copied_wild_rule(start) if preset else start.wild_rule,
        })
    return _editor(None, start)


@bp.route("/<int:rules_id>/edit", methods=["GET", "POST"])
def edit(rules_id: int):
    row = _rules_or_404(rules_id)
    return _editor(row, row.variant)


@bp.route("/<int:rules_id>/delete", methods=["GET", "POST"])
def delete(rules_id: int):
    row = _rules_or_404(rules_id)
    if request.method == "POST":
        service.delete_house_rules(row)
        flash(f"“{row.name}” deleted. Games played with them keep their rules.", "success")
        return redirect(url_for("house_rules.index"))
    return render_template("house_rules/delete.html", row=row)


# -- files ----------------------------------------------------------------------------------


@bp.get("/<int:rules_id>/card.pdf")
def card_pdf(rules_id: int):
    return send_rule_card(_rules_or_404(rules_id).variant)


@bp.get("/<int:rules_id>/rules.json")
def export(rules_id: int):
    row = _rules_or_404(rules_id)
    slug = "".join(c if c.isalnum() else "-" for c in row.name.lower()).strip("-")[:40] or "rules"
    return Response(rules_files.variant_json(row.variant), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{slug}.json"'})


@bp.post("/import")
def import_file():
    family = current_family()
    form = VariantImportForm()
    if form.validate_on_submit():
        try:
            variant = rules_files.parse_variant(form.file.data.read(rules_files.VARIANT_FILE_LIMIT + 1))
            row, added = service.import_house_rules(family, variant)
        except (rules_files.TransferError, RuleError) as error:
            form.file.errors.append(f"Nothing was imported: {error}")
        else:
            flash(f"Imported “{row.name}”." if added else f"“{row.name}” is already here, unchanged.", "success")
            return redirect(url_for("house_rules.show", rules_id=row.id))
    return render_template("house_rules/index.html", rows=service.house_rules(family),
                           presets=rules.VARIANTS.values(), import_form=form), 400
