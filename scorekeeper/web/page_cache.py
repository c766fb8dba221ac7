"""Serving fast: cached pages, compressed responses and fingerprinted static files.

- A page is drawn once per (family version, address, browser session) and then served from
  memory, with an ``ETag`` so an unchanged page costs a 304. Any write moves the family's
  version on (``families.commit_for``), so a cached page is never stale. The session's CSRF
  token is part of the key because pages carry forms signed for that session.
- Text responses are gzipped when the browser accepts it.
- ``url_for('static', ...)`` adds a content hash (``?v=``), and such URLs are cached for a year.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import secrets
import threading
from collections import OrderedDict
from functools import wraps
from pathlib import Path

from flask import Flask, current_app, make_response, request, session
from flask_login import current_user
from flask_wtf.csrf import generate_csrf

from .access import current_family

COMPRESSIBLE = {"text/html", "text/css", "text/javascript", "application/javascript", "application/json",
                "image/svg+xml", "text/csv", "text/plain"}
MIN_COMPRESS = 512
YEAR = 365 * 24 * 3600


class LRU:
    """A small thread-safe least-recently-used cache (pages here, PDFs in ``printing.documents``)."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str):
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key: str, item) -> None:
        with self._lock:
            self._items[key] = item
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


pages = LRU(256)  # key -> (body, gzipped body, mimetype)
# A restored backup takes family versions back to numbers phones have already seen; the restart
# it needs changes this, so their old ETags no longer match. gunicorn's master sets it once for
# all its workers (``gunicorn_conf``), so a 304 does not depend on which worker answers.
STARTED = os.environ.get("SCOREKEEPER_STARTED") or secrets.token_hex(8)


def cached_page(view):
    """Serve a GET page from memory while the family's data is unchanged."""

    @wraps(view)
    def wrapper(*args, **kwargs):
        if not current_app.config.get("PAGE_CACHE", True) or session.get("_flashes"):
            return view(*args, **kwargs)  # a page with a one-time message is drawn fresh
        family = current_family()
        generate_csrf()  # make sure the session's token exists before it joins the key
        member = current_user.get_id()
        raw = f"{STARTED}|{family.id}|{family.version}|{member}|{request.full_path}|{session.get('csrf_token')}"
        key = hashlib.sha256(raw.encode()).hexdigest()[:32]
        packed_wanted = accepts_gzip()
        etag = f"{key}-gz" if packed_wanted else key
        # Only the page's own tag: "*" would answer 304 before the view could say 404.
        if etag in request.if_none_match.as_set():
            response = make_response("", 304)
        else:
            hit = pages.get(key)
            if hit is None:
                response = make_response(view(*args, **kwargs))
                if response.status_code != 200:
                    return response
                body = response.get_data()
                hit = (body, gzip.compress(body, compresslevel=6), response.mimetype)
                pages.put(key, hit)
            body, packed, mimetype = hit
            # The compressed copy is kept too: a cached page is never compressed twice.
            if packed_wanted:
                response = make_response(packed)
                response.headers["Content-Encoding"] = "gzip"
                response.vary.add("Accept-Encoding")
            else:
                response = make_response(body)
            response.mimetype = mimetype
        response.set_etag(etag)
        response.headers["Cache-Control"] = "private, no-cache"
        return response

    return wrapper


def accepts_gzip() -> bool:
    return request.accept_encodings["gzip"] > 0


def _fingerprint(app: Flask, filename: str, memo: dict[str, str]) -> str:
    if filename not in memo:
        path = Path(app.static_folder) / filename
        memo[filename] = hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path.is_file() else ""
    return memo[filename]


def init_app(app: Flask) -> None:
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
        return _compress(response)


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
