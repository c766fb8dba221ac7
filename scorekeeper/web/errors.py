"""Friendly pages for every error a user can reach."""

from flask import render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError

from .. import logs
from ..extensions import db
from ..families import NotFound

MESSAGES = {
    400: "That request could not be understood.",
    404: "There is nothing here. The game may have been deleted, or the link is mistyped.",
    405: "That page cannot be used that way.",
    413: "That is too large to send here: a file may be up to 32 MB (import bigger ones with "
    "flask --app scorekeeper import FILE), and a form's fields 1 MB together.",
}


def init_app(app):
    @app.errorhandler(CSRFError)
    def csrf_error(error):
        logs.refused("CSRFError")
        message = "This page was open for too long or came from elsewhere. Go back, reload it and try again."
        return render_template("web/error.html", code=400, message=message), 400

    @app.errorhandler(NotFound)
    def not_found(error):
        return render_template("web/error.html", code=404, message=MESSAGES[404]), 404

    @app.errorhandler(HTTPException)
    def http_error(error):
        # A message given where the error was raised says more than the general one.
        specific = error.description != type(error).description
        message = error.description if specific else MESSAGES.get(error.code, error.description)
        return render_template("web/error.html", code=error.code, message=message), error.code

    @app.errorhandler(InternalServerError)
    def server_error(error):
        db.session.rollback()
        logs.log.error("error: family=%s %s %s", logs.family_id(), request.method, request.endpoint)
        message = "Something went wrong on our side; nothing was saved. Go back and try again."
        return render_template("web/error.html", code=500, message=message), 500
