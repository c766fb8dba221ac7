"""Times as the family reads them. The server keeps every time in UTC and draws it as a
``<time datetime="…Z">`` that says "UTC"; static/js/localtime.js shows it in the phone's own zone.
The page is the same for every phone of the family (it is cached per family), and each phone
knows its zone: no setting to keep right, and a phone abroad reads its own clock."""

from __future__ import annotations

from datetime import datetime

from markupsafe import Markup, escape

FORMATS = {
    "moment": "%d %b %H:%M",  # the day and the time: "26 Nov 14:05"
    "day": "%d %b",  # the day only: "26 Nov"
}


def local_time(value: datetime | None, shown: str = "moment") -> Markup:
    """``value`` (naive UTC, as stored) as a time element the phone redraws in its own zone."""
    if value is None:
        return Markup("")
    text = value.strftime(FORMATS[shown]) + (" UTC" if shown == "moment" else "")
    stamp = value.replace(microsecond=0).isoformat() + "Z"
    return Markup('<time datetime="{}" data-local="{}">{}</time>').format(stamp, shown, escape(text))
