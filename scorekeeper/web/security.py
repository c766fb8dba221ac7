"""Cookies, response headers, request size and the secret key, set up for a server on the internet."""

from __future__ import annotations

from flask import abort, request
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import IntegerConverter

from ..hosting.addresses import check_public_url
from ..models import MAX_ID

# No inline script or style anywhere, so the policy can forbid both.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # invite links never leak to another site
    "X-Frame-Options": "DENY",
}
# Values seen in examples and tutorials, or too short to be secret.
WEAK_SECRETS = {"dev", "test", "secret", "changeme", "change-me", "development", "please-change-me"}
MIN_SECRET_LENGTH = 24


class InsecureConfig(RuntimeError):
    """The app refuses to start with settings that would make it unsafe."""


def check_secret(app) -> None:
    """Outside testing and debugging, a default or short secret key stops the start."""
    if app.testing or app.debug:
        return
    key = str(app.config.get("SECRET_KEY") or "")
    if key.lower() in WEAK_SECRETS or len(key) < MIN_SECRET_LENGTH:
        raise InsecureConfig(
            "SECRET_KEY is a default or shorter than 24 characters. Remove it to have one generated "
            "in the instance folder, or set SCOREKEEPER_SECRET_KEY to a long random value."
        )


class IdConverter(IntegerConverter):
    """``<int:...>`` in every route: an id the database can hold, else the route does not match
    (a 404), rather than a 500 from ``int()`` of thousands of digits or an out-of-range query."""

    regex = r"\d{1,10}"

    def __init__(self, url_map, *args, **kwargs):
        kwargs.setdefault("max", MAX_ID)
        super().__init__(url_map, *args, **kwargs)


def init_app(app) -> None:
    app.url_map.converters["int"] = IdConverter
    https = bool(app.config.get("HTTPS"))
    # Flask predefines the session cookie settings (SameSite None, not Secure): set them outright.
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    app.config["SESSION_COOKIE_SECURE"] = https
    app.config.setdefault("REMEMBER_COOKIE_HTTPONLY", True)
    app.config.setdefault("REMEMBER_COOKIE_SAMESITE", "Lax")
    app.config.setdefault("REMEMBER_COOKIE_SECURE", https)
    check_secret(app)
    check_public_url(app)
    proxies = int(app.config.get("PROXIES", 0) or 0)
    if proxies:  # behind a reverse proxy: trust its X-Forwarded-For / -Proto for this many hops
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)

    @app.before_request
    def limit_plain_forms():
        """Werkzeug applies MAX_FORM_MEMORY_SIZE to multipart forms only; a plain form is read
        whole into memory, so its body as a whole gets that limit (files keep the larger one)."""
        if request.mimetype != "multipart/form-data":
            request.max_content_length = min(app.config["MAX_CONTENT_LENGTH"], app.config["MAX_FORM_MEMORY_SIZE"])

    @app.before_request
    def refuse_nul():
        """No text anywhere holds a NUL character (PostgreSQL cannot store one)."""
        fields = [request.path, *(value for _, values in request.args.lists() for value in values)]
        if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            fields += [value for _, values in request.form.lists() for value in values]
        if any("\x00" in text for text in fields):
            abort(400, "Text with a NUL character cannot be used here.")

    @app.after_request
    def security_headers(response):
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        if https:
            response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
        return response
