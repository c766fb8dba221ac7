"""Serving fast: cached pages, compressed responses and fingerprinted static files.

- A page is drawn once per (family version, address, kind of viewer) and then served from
  memory to every phone of the family, with an ``ETag`` so an unchanged page costs a 304. Any
  write moves the family's version on (``families.commit_for``), so a cached page is never
  stale. The viewer's kind is a signed-in member or a score keeper's link (``web.access``): the
  two see different menus. Nothing else about the viewer may show on a cached page.
- Forms on a page are signed for each browser session (CSRF), so the shared copy is drawn with a
  stand-in token, and each session gets it with its own token put in; that finished copy is
  kept too, so a phone looking again costs no substitution and no compression.
- Text responses are gzipped when the browser accepts it.
- ``url_for('static', ...)`` adds a content hash (``?v=``), and such URLs are cached for a year.
- HTML templates lose their indentation as they are compiled (``Unindented``): fewer bytes to a
  phone, at no cost per page.
"""

from __future__ import annotations

import gzip
import hashlib
import re
import secrets
from collections.abc import Callable
from functools import lru_cache, wraps
from pathlib import Path

from flask import Flask, current_app, g, make_response, request, session
from flask.globals import request_ctx
from flask_wtf.csrf import generate_csrf
from jinja2.ext import Extension

from ..families import STARTED
from ..lru import LRU
from .access import current_family, is_member

COMPRESSIBLE = {"text/html", "text/css", "text/javascript", "application/javascript", "application/json",
                "image/svg+xml", "text/csv", "text/plain"}
MIN_COMPRESS = 512
YEAR = 365 * 24 * 3600


pages = LRU(256)  # page key -> (body with the stand-in token, its mimetype, gzipped body if it has no form)
served = LRU(128)  # (page key, session's token, gzipped?) -> (body as that session gets it, mimetype)
shared = LRU(128)  # key -> (body, gzipped body): the same for everyone (``shared_response``)
# Stands in for the session's signed CSRF token in a shared page: letters and digits, so HTML
# escaping leaves it as it is, and random, so no page's own text can hold it.
STAND_IN = f"csrf{secrets.token_hex(16)}"
_STAND_IN = STAND_IN.encode()


def cached_page(view):
    """Serve a GET page from memory while the family's data is unchanged (other methods pass)."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        if (request.method not in ("GET", "HEAD") or not current_app.config.get("PAGE_CACHE", True)
                or session.get("_flashes")):
            return view(*args, **kwargs)  # a page with a one-time message is drawn fresh
        key = _page_key(current_family())
        token = _session_token()
        packed_wanted = accepts_gzip()
        digest = hashlib.sha256(f"{key}|{token}".encode()).hexdigest()[:32]
        etag = f"{digest}-gz" if packed_wanted else digest
        # Only the page's own tag: "*" would answer 304 before the view could say 404.
        if etag in request.if_none_match.as_set():
            response = make_response("", 304)
        else:
            kept = _in_memory(key)
            mine = (kept, token, packed_wanted)
            finished = served.get(mine)
            if finished is None:
                page = pages.get(kept)
                if page is None:
                    response = _draw(view, args, kwargs)
                    if response.status_code != 200 or _flashed():
                        return _with_own_token(response)  # drawn for this request only
                    page = _keep(kept, response)
                finished = _finish(page, packed_wanted)
                served.put(mine, finished)
            response = _body_response(*finished, packed_wanted)
        response.set_etag(etag)
        response.headers["Cache-Control"] = "private, no-cache"
        return response

    return wrapper


def _page_key(family) -> str:
    """What a cached page depends on: the family's data, the address and who is looking."""
    viewer = "member" if is_member() else "keeper"
    raw = f"{STARTED}|{family.id}|{family.version}|{viewer}|{request.full_path}"
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


def _in_memory(key: str) -> str:
    """``key`` for this process's memory: apps sharing a process (tests) share no page. Kept out
    of ETags, which must be the same from every gunicorn worker."""
    return f"{current_app.extensions.get('page_cache', '')}|{key}"


def _csrf_name() -> str:
    return current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token")


def _session_token() -> str:
    """The session's raw CSRF token (made now if it has none): its pages carry forms signed with it."""
    name = _csrf_name()
    if name not in session:
        generate_csrf()
    return str(session[name])


def _draw(view, args, kwargs):
    """The page drawn with the stand-in token (``generate_csrf`` keeps a request's signed token in
    ``g``), put back afterwards so later forms of this request get the real one."""
    name = _csrf_name()
    real = g.pop(name, None)
    setattr(g, name, STAND_IN)
    try:
        response = make_response(view(*args, **kwargs))
    finally:
        g.pop(name, None)
        if real is not None:
            setattr(g, name, real)
    return response


def _with_own_token(response):
    if not response.is_streamed:
        response.set_data(response.get_data().replace(_STAND_IN, generate_csrf().encode()))
    return response


def _flashed() -> bool:
    """Whether the view left a one-time message (shown on its page, or kept for the next)."""
    return bool(session.get("_flashes") or request_ctx.flashes)


def _keep(key: str, response) -> tuple:
    body = response.get_data()
    # A page without forms is the same for every session: compressed once, here.
    packed = None if _STAND_IN in body else gzip.compress(body, compresslevel=6)
    page = (body, response.mimetype, packed)
    pages.put(key, page)
    return page


def _finish(page: tuple, packed_wanted: bool) -> tuple[bytes, str]:
    """The page as this session gets it: its own signed token in its forms, gzipped if wanted."""
    body, mimetype, packed = page
    if packed is not None:
        return (packed if packed_wanted else body), mimetype
    body = body.replace(_STAND_IN, generate_csrf().encode())
    return (gzip.compress(body, compresslevel=6) if packed_wanted else body), mimetype


def _body_response(body: bytes, mimetype: str, packed: bool):
    response = make_response(body)
    if packed:
        response.headers["Content-Encoding"] = "gzip"
        response.vary.add("Accept-Encoding")
    response.mimetype = mimetype
    return response


def shared_response(key: str, draw: Callable[[], str]):
    """A 200 response whose body is the same for everyone who asks with ``key`` (e.g. a public
    scoreboard at one version of its game): drawn and compressed once, then served from memory."""
    if not current_app.config.get("PAGE_CACHE", True):
        return make_response(draw())  # compressed, if at all, on its way out (``_compress``)
    def packed_both_ways() -> tuple[bytes, bytes]:
        body = draw().encode()
        return body, gzip.compress(body, compresslevel=6)

    body, packed = shared.fetch(_in_memory(key), packed_both_ways)
    packed_wanted = accepts_gzip()
    return _body_response(packed if packed_wanted else body, "text/html", packed_wanted)


def revalidated(etag: str, make: Callable[[], object]):
    """A 304 when the browser already holds ``etag``, else ``make()``'s response; either way tagged
    with it, for a page that polls to ask again (the live scoreboard, a phone's game)."""
    response = make_response("", 304) if etag in request.if_none_match.as_set() else make_response(make())
    response.set_etag(etag)
    response.headers["Cache-Control"] = "no-cache"
    return response


def accepts_gzip() -> bool:
    return request.accept_encodings["gzip"] > 0


def _fingerprint(app: Flask, filename: str, memo: dict[str, str]) -> str:
    if filename not in memo:
        path = Path(app.static_folder) / filename
        memo[filename] = hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path.is_file() else ""
    return memo[filename]


class Unindented(Extension):
    """Drops the indentation at the start of every line of an HTML template's source, once, as it is
    compiled. A line break stays where one was, so the page looks the same: no template puts text in a
    ``<pre>``, and a ``<textarea>``'s text comes from a variable, which this never touches."""

    INDENT = re.compile(r"^[ \t]+", re.MULTILINE)

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return self.INDENT.sub("", source) if name and name.endswith(".html") else source


def init_app(app: Flask) -> None:
    """Fingerprinted static URLs, compression, unindented templates and this app's mark in the page caches."""
    app.extensions["page_cache"] = secrets.token_hex(8)
    app.jinja_env.add_extension(Unindented)
    memo: dict[str, str] = {}

    @app.url_defaults
    def static_fingerprint(endpoint, values):
        if endpoint == "static" and "filename" in values and "v" not in values:
            version = _fingerprint(app, values["filename"], memo)
            if version:
                values["v"] = version

    @app.after_request
    def cache_and_compress(response):
        if request.endpoint == "static" and request.args.get("v"):
            response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
        if request.endpoint == "static" and response.status_code == 200 and response.mimetype == "text/javascript":
            response.direct_passthrough = False
            response.set_data(lean_script(response.get_data()))
        return _compress(response)


_COMMENT_LINES = re.compile(rb"^[ \t]*(?://[^\n]*)?\n", re.M)


@lru_cache(maxsize=64)
def lean_script(source: bytes) -> bytes:
    """A script as the phone gets it: without its comment lines and blank lines, about a fifth of its
    compressed size (no build step: the file in the repository keeps them). A comment after code stays."""
    return _COMMENT_LINES.sub(b"", source)


def _compress(response):
    if (
        response.status_code != 200
        or (response.is_streamed and not response.direct_passthrough)  # exports stream as made
        or response.mimetype not in COMPRESSIBLE
        or "Content-Encoding" in response.headers
        or not accepts_gzip()
    ):
        return response
    response.direct_passthrough = False  # static files: read them so they can be compressed
    body = response.get_data()
    if len(body) < MIN_COMPRESS:
        return response
    response.set_data(gzip.compress(body, compresslevel=6))
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response
