"""Moving a family's history: the whole of it as a JSON or CSV download, and importing an export."""

from __future__ import annotations

from datetime import date

from flask import Blueprint, Response, flash, redirect, render_template, stream_with_context, url_for
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired

from ..web.access import current_family
from . import checks, importing
from .checks import TransferError
from .export import export_csv, export_json

bp = Blueprint("transfer", __name__)


EXPORTS = {"json": (export_json, "application/json"), "csv": (export_csv, "text/csv")}
# The most the import page takes in one request, which has 30 s (gunicorn's worker timeout); a
# larger export is refused before anything is written, pointing to the command line (no time
# limit). 3,000 games take about 4 s on SQLite and 8 s on PostgreSQL (bench/import_bench.py), and
# each different rules snapshot 5 to 9 ms more to check (a family's games share a few); each house
# rule set is compared with those stored before it (500 take 18 s).
WEB_LIMITS = checks.Limits(games=4000, rule_sets=500, house_rules=100)


@bp.get("/export.<any(json, csv):kind>")
def export(kind: str):
    """The family's whole history as a download, written while it is sent."""
    make, mimetype = EXPORTS[kind]
    name = f"scorekeeper-{date.today().isoformat()}.{kind}"
    return Response(
        stream_with_context(make(current_family())),
        mimetype=mimetype,
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


class ImportForm(FlaskForm):
    file = FileField("Export file (.json)", validators=[FileRequired("Choose a file to import.")])


@bp.route("/import", methods=["GET", "POST"])
def import_view():
    form = ImportForm()
    if form.validate_on_submit():
        try:
            data = checks.parse(form.file.data.read(), WEB_LIMITS)
            added, skipped = importing.import_data(current_family(), data)
        except TransferError as error:
            form.file.errors.append(f"Nothing was imported: {error}")
        else:
            flash(f"Imported {added} games; {skipped} were already here.", "success")
            return redirect(url_for("history.index"))
    return render_template("transfer/import.html", form=form)
from . import sheet_views  # noqa: E402,F401  (its routes join this blueprint)
