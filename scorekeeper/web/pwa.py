"""Installing the app on a phone and keeping it useful offline: the web app manifest, the
service worker that keeps the app shell and the last pages seen, and the offline page."""

from __future__ import annotations

import hashlib

from flask import Blueprint, jsonify, make_response, render_template, url_for

from .access import public

bp = Blueprint("pwa", __name__)

# Files every page needs, kept on the phone when the service worker installs.
SHELL = ("app.css", "app.js", "js/https_hint.js", "favicon.svg", "icon-192.png", "icon-512.png")


def _shell_urls() -> list[str]:
    return [url_for("static", filename=name) for name in SHELL] + [url_for("pwa.offline")]


@bp.get("/sw.js")
@public
def service_worker():
    """Served from the root so it may look after every page of the site."""
    shell = _shell_urls()
    # Fingerprinted file names change with their contents, so a new version of any of them
    # makes a new worker, which replaces the old cache.
    version = hashlib.sha256("|".join(shell).encode()).hexdigest()[:12]
    response = make_response(render_template("web/sw.js", shell=shell, version=version))
    response.mimetype = "text/javascript"
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/manifest.webmanifest")
@public
def manifest():
    response = jsonify(
        name="Scorekeeper",
        short_name="Scorekeeper",
        description="The score pad for Shanghai Rummy played with real cards.",
        start_url=url_for("main.home"),
        scope="/",
        display="standalone",
        background_color="#f6f4ef",
        theme_color="#0b6e4f",
        icons=[
            {"src": url_for("static", filename="icon-192.png"), "sizes": "192x192", "type": "image/png",
             "purpose": "any maskable"},
            {"src": url_for("static", filename="icon-512.png"), "sizes": "512x512", "type": "image/png",
             "purpose": "any maskable"},
            {"src": url_for("static", filename="favicon.svg"), "sizes": "any", "type": "image/svg+xml"},
        ],
    )
    response.mimetype = "application/manifest+json"
    return response


@bp.get("/offline")
@public
def offline():
    """Shown by the service worker for a page this phone has not seen yet, while offline."""
    return render_template("web/offline.html")
