"""Sending a PDF: on the paper asked for (or the one this browser used last), with an ``ETag``
so a document the browser already holds costs a 304."""

from __future__ import annotations

from flask import abort, make_response, request

from . import documents

PAPER_COOKIE = "paper"


def paper() -> str:
    """The paper size asked for, else the one this browser used last, else Letter."""
    asked = request.args.get("paper", "")
    if asked in documents.PAPERS:
        return asked
    remembered = request.cookies.get(PAPER_COOKIE, "")
    return remembered if remembered in documents.PAPERS else "letter"


def unchanged(etag: str, paper_size: str):
    """A 304 when the browser already holds the document tagged ``etag``, else ``None``: for a
    view that knows the tag before reading anything (``documents.version_tag``)."""
    # Only the tag itself: "*" matches any, and would answer before the view could say 404.
    if etag not in request.if_none_match.as_set():
        return None
    return _finish(make_response("", 304), etag, paper_size)


def send_pdf(document: documents.Document, etag: str | None = None):
    """The PDF, or 304 when the browser already holds this exact document. Its ``ETag`` is
    ``etag`` when the view worked one out before making it, else the hash of its content."""
    etag = etag or document.etag
    if etag in request.if_none_match:
        response = make_response("", 304)
    else:
        try:
            response = make_response(documents.render(document))
        except documents.NoPdfRenderer as error:
            abort(503, description=str(error))
        response.mimetype = "application/pdf"
        response.headers["Content-Disposition"] = f'inline; filename="{document.filename}"'
    return _finish(response, etag, document.context["paper"])


def _finish(response, etag: str, paper_size: str):
    response.set_etag(etag)
    response.headers["Cache-Control"] = "private, no-cache"
    response.set_cookie(PAPER_COOKIE, paper_size, max_age=365 * 24 * 3600, samesite="Lax")
    return response


def send_rule_card(variant, etag: str | None = None) -> object:
    """The rule card PDF of ``variant`` (or of the preset with this key), on the paper asked for."""
    return send_pdf(documents.rule_card_document(documents.rule_card(variant), paper()), etag)
