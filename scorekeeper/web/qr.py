"""QR codes drawn on the server, for a phone to scan a link off another phone's screen."""

from __future__ import annotations

import io

import segno
from markupsafe import Markup


def qr_svg(url: str) -> Markup:
    """The link as a QR code, drawn here as SVG (dark on white, whatever the page's colours)."""
    buffer = io.BytesIO()
    segno.make(url, error="m").save(
        buffer, kind="svg", xmldecl=False, svgns=True, scale=4, border=3,
        dark="#000", light="#fff", svgclass="qr", lineclass=None, omitsize=True,
    )
    return Markup(buffer.getvalue().decode())
