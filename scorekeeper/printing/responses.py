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


def send_pdf(document: documents.Document):
    """The PDF, or 304 when the browser already holds this exact document."""
    if document.etag in request.if_none_match:
        response = make_response("", 304)
    else:
        try:
            response = make_response(documents.render(document))
        except documents.NoPdfRenderer as error:
            abort(503, description=str(error))
        response.mimetype = "application/pdf"
        response.headers["Content-Disposition"] = f'inline; filename="{document.filename}"'
    response.set_etag(document.etag)
    response.headers["Cache-Control"] = "private, no-cache"
    response.set_cookie(PAPER_COOKIE, document.context["paper"], max_age=365 * 24 * 3600, samesite="Lax")
    return response


def send_rule_card(variant) -> object:
    """The rule card PDF of ``variant`` (or of the preset with this key), on the paper asked for."""
    return send_pdf(documents.rule_card_document(documents.rule_card(variant), paper()))
