"""Sending a PDF: on the paper asked for (or the one this browser used last), with an ``ETag``
so a document the browser already holds costs a 304."""

from __future__ import annotations

from flask import abort, make_response, render_template, request

from . import documents, render_queue

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


REFRESH_SECONDS = 3
SECONDS_PER_PAGE = 0.25  # WeasyPrint's layout of one game's sheet, about


def send_queued_pdf(document: documents.Document, title: str, back: str):
    """A long document made by the render queue (``render_queue``): the PDF once it is made, until
    then a page that says so and looks again by itself (a ``Refresh`` header: no script)."""
    key = document.etag
    if key in request.if_none_match:
        return _finish(make_response("", 304), key, document.context["paper"])
    try:
        pdf = render_queue.made(key)
        if pdf is None:
            if render_queue.queued(key):
                render_queue.start()  # a render process that ended before its queue did is started again
            else:
                render_queue.enqueue(key, render_template(document.template, **document.context))
                pdf = render_queue.made(key)
    except render_queue.RenderFailed as error:
        abort(503, description=str(error))
    if pdf is None:
        games = document.context["games"]
        page = render_template(
            "printing/being_made.html", title=title, games=games, waiting=render_queue.waiting(key),
            seconds=max(5, round(games * SECONDS_PER_PAGE / 5) * 5), refresh=REFRESH_SECONDS,
            again=request.full_path.rstrip("?"), back=back,
        )
        response = make_response(page, 202)
        response.headers["Refresh"] = str(REFRESH_SECONDS)
        response.headers["Cache-Control"] = "no-store"
        return response
    response = make_response(pdf.read_bytes())
    response.mimetype = "application/pdf"
    response.headers["Content-Disposition"] = f'inline; filename="{document.filename}"'
    return _finish(response, key, document.context["paper"])
