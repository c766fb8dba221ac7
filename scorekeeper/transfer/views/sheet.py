"""Importing past games from a spreadsheet: choose the file and its rules, look over what was
found (players matched by name, questions, every problem by row and column), then import; and
the blank template for each rule set."""

from __future__ import annotations

from flask import Response, abort, flash, redirect, render_template, request, url_for
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import HiddenField, SelectField

from ...families import family_players
from ...house_rules.service import family_variants
from ...web.access import current_family
from .. import checks, previews, sheets
from ..checks import TransferError
from ..sheet_import import Preview, import_sheet, preview
from . import bp

SHOWN_PROBLEMS = 200  # a sheet with more is listed this far: the rest are more of the same
SHOWN_GAMES = 10
TEMPLATES = {
    "xlsx": (sheets.template_xlsx, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    "csv": (sheets.template_csv, "text/csv; charset=utf-8"),
}


class _RulesForm(FlaskForm):
    rules = SelectField("Rules the games were played by", validate_choice=True)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.variants = family_variants(current_family())
        self.rules.choices = [(key, variant.name) for key, variant in self.variants.items()]


class SheetForm(_RulesForm):
    file = FileField("Spreadsheet (.xlsx or .csv)", validators=[FileRequired("Choose the spreadsheet to import.")])


class CheckForm(_RulesForm):
    """The preview's form: the token of the sheet's cells, kept on the server (``previews``)."""

    token = HiddenField()


@bp.route("/import/sheet", methods=["GET", "POST"])
def sheet_upload():
    """Step 1: the file and its rules."""
    form = SheetForm()
    if form.validate_on_submit():
        family = current_family()
        try:
            cells = sheets.read_cells(form.file.data.stream)
        except TransferError as error:
            form.file.errors.append(str(error))
        else:
            token = previews.keep(family.id, cells)
            check = CheckForm(formdata=None, rules=form.rules.data, token=token)
            return _preview_page(check, preview(family, cells, form.variants[form.rules.data], token=token))
    return render_template("transfer/sheet.html", form=form)


@bp.post("/import/sheet/check")
def sheet_check():
    """Step 2: the preview checked again with the answers given, or the import."""
    form = CheckForm()
    if not form.validate_on_submit():
        flash("The preview had expired or was incomplete; choose the file again.", "error")
        return redirect(url_for("transfer.sheet_upload"))
    family, token = current_family(), form.token.data or ""
    try:
        cells = previews.load(family.id, token)
    except TransferError as error:
        flash(str(error), "error")
        return redirect(url_for("transfer.sheet_upload" if error.args[0] != previews.BUSY else "history.index"))
    # Names the sheet does not hold, or players the family does not have, are left out by ``preview``.
    mapping = {key[4:]: value for key, value in request.form.items() if key.startswith("map:") and value}
    answers = {key[4:]: value for key, value in request.form.items() if key.startswith("out:") and value}
    found = preview(family, cells, form.variants[form.rules.data], mapping, answers, token)
    del cells  # the import needs only what the preview read from them
    if request.form.get("action") != "import" or not found.sheet.ready:
        return _preview_page(form, found, mapping, answers)
    most = checks.WEB_LIMITS.games
    if len(found.sheet.games) > most:
        flash(f"This sheet holds {len(found.sheet.games):,} games, more than the page can import at once "
              f"({most:,} at most). Import it on the server with the command line, which has no time "
              f"limit: flask --app scorekeeper import-sheet FILE --rules {form.rules.data}", "error")
        return _preview_page(form, found, mapping, answers)
    try:
        previews.claim(token)
    except TransferError as error:
        flash(str(error), "error")
        return redirect(url_for("history.index"))
    imported = False
    try:
        added, skipped = import_sheet(family, found.sheet)
        imported = True
    except TransferError as error:
        flash(f"Nothing was imported: {error}", "error")
        return _preview_page(form, found, mapping, answers)
    finally:
        previews.release(token, imported)
    flash(f"Imported {added} game{'' if added == 1 else 's'} from the sheet; "
          f"{skipped} {'was' if skipped == 1 else 'were'} already here.", "success")
    return redirect(url_for("history.index"))


def _preview_page(form: CheckForm, found: Preview, mapping: dict | None = None, answers: dict | None = None):
    family_names = sorted((p.name for p in family_players(current_family())), key=str.casefold)
    return render_template(
        "transfer/sheet_preview.html", form=form, found=found, sheet=found.sheet,
        variant=found.sheet.variant, players=family_names, mapping=mapping or {}, answers=answers or {},
        shown_problems=SHOWN_PROBLEMS, shown_games=SHOWN_GAMES,
    )


@bp.get("/import/sheet/template/<key>.<any(xlsx, csv):kind>")
def sheet_template(key: str, kind: str):
    """A blank sheet for one rule set: its round columns headed with their contracts."""
    variant = family_variants(current_family()).get(key)
    if variant is None:
        abort(404)
    make, mimetype = TEMPLATES[kind]
    return Response(
        make(variant), mimetype=mimetype,
        headers={"Content-Disposition": f'attachment; filename="scorekeeper-{variant.key}.{kind}"'},
    )
