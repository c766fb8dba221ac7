"""Moving a family's history: the whole of it as a JSON or CSV download, and importing an export."""

from __future__ import annotations

from datetime import date

from flask import Response, flash, redirect, render_template, stream_with_context, url_for
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired

from ...web.access import current_family
from .. import checks, importing
from ..checks import TransferError
from ..export import export_csv, export_json
from . import bp

EXPORTS = {"json": (export_json, "application/json"), "csv": (export_csv, "text/csv")}


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
            data = checks.parse(form.file.data.read(), checks.WEB_LIMITS)
            added, skipped = importing.import_data(current_family(), data)
        except TransferError as error:
            form.file.errors.append(f"Nothing was imported: {error}")
        else:
            flash(f"Imported {added} games; {skipped} were already here.", "success")
            return redirect(url_for("history.index"))
    return render_template("transfer/import.html", form=form)
