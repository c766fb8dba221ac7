"""The transfer pages (blueprint ``transfer``): ``export_import`` (the family's history as a
download, and importing an export) and ``sheet`` (past games from a spreadsheet), which add
themselves to it."""

from flask import Blueprint

bp = Blueprint("transfer", __name__)

from . import export_import, sheet  # noqa: E402,F401
