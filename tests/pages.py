"""Reading pages as a test sees them: visible text, form inputs, elements by id or class, the
review table; and the card-entry form filled in as a phone posts it."""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from http.cookies import SimpleCookie

VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


def text_of(response_or_html) -> str:
    """Visible text of a response or an HTML string, whitespace collapsed."""
    html = response_or_html if isinstance(response_or_html, str) else response_or_html.get_data(as_text=True)
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.DOTALL)
    text = re.sub(r"<[^>]+>", " ", html)
    text = text.replace("&amp;", "&").replace("&#39;", "'").replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
    return " ".join(text.split())


def set_cookie(response, name: str):
    """The cookie ``name`` as the response sets it (a ``Morsel``), or ``None``."""
    for header in response.headers.getlist("Set-Cookie"):
        jar = SimpleCookie()
        jar.load(header)
        if name in jar:
            return jar[name]
    return None


# -- reading pages -------------------------------------------------------------------------


class _Collector(HTMLParser):
    """Inputs (with attributes) and the text of elements chosen by id or class."""

    def __init__(self, want_id: str | None = None, want_class: str | None = None):
        super().__init__(convert_charrefs=True)
        self.inputs: list[dict] = []
        self.want_id, self.want_class = want_id, want_class
        self.depth = 0  # >0 while inside a wanted element
        self.current: list[str] = []
        self.found: list[str] = []

    def _wanted(self, attrs: dict) -> bool:
        if self.want_id is not None and attrs.get("id") == self.want_id:
            return True
        if self.want_class is not None and self.want_class in (attrs.get("class") or "").split():
            return True
        return False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("input", "textarea", "select"):
            self.inputs.append({"tag": tag, **attrs})
        if tag in VOID_TAGS:
            return
        if self.depth:
            self.depth += 1
        elif self._wanted(attrs):
            self.depth = 1
            self.current = []

    def handle_endtag(self, tag):
        if tag in VOID_TAGS or not self.depth:
            return
        self.depth -= 1
        if not self.depth:
            self.found.append(" ".join(" ".join(self.current).split()))

    def handle_data(self, data):
        if self.depth:
            self.current.append(data)


def _html(response_or_html) -> str:
    return response_or_html if isinstance(response_or_html, str) else response_or_html.get_data(as_text=True)


def inputs(response_or_html) -> list[dict]:
    parser = _Collector()
    parser.feed(_html(response_or_html))
    return parser.inputs


def input_value(response_or_html, name: str) -> str | None:
    """What the page will send for ``name``: a text/number/hidden value, or the checked radio/box."""
    for field in inputs(response_or_html):
        if field.get("name") != name:
            continue
        if field.get("type") in ("radio", "checkbox"):
            if "checked" in field:
                return field.get("value", "on")
            continue
        return field.get("value", "")
    return None


def input_values(response_or_html, name: str) -> list[str]:
    """All values of a repeated field, e.g. the hidden ``seat`` inputs in order."""
    return [f.get("value", "") for f in inputs(response_or_html) if f.get("name") == name]


def element_text(response_or_html, element_id: str) -> str:
    """Visible text of the element with this id ('' if there is none)."""
    parser = _Collector(want_id=element_id)
    parser.feed(_html(response_or_html))
    return parser.found[0] if parser.found else ""


def texts_by_class(response_or_html, css_class: str) -> list[str]:
    parser = _Collector(want_class=css_class)
    parser.feed(_html(response_or_html))
    return parser.found


def review_lines(response) -> dict[str, tuple[int, int]]:
    """The review table: ``{name: (points this hand, total after it)}``."""
    html = response.get_data(as_text=True)
    rows = re.findall(
        r'<th scope="row">(.*?)</th>.*?<td class="num"><b>(-?\d+)</b></td>\s*<td class="num">(-?\d+)</td>',
        html, flags=re.DOTALL,
    )
    return {name: (int(points), int(total)) for name, points, total in rows}


def carried_fields(response) -> list[tuple[str, str]]:
    """The hidden fields the review page sends back with Save or Change."""
    return [(f["name"], f.get("value", "")) for f in inputs(response)
            if f.get("type") == "hidden" and f.get("name")]


# -- the card-entry form -------------------------------------------------------------------


def score_url(game_id: int, number: int) -> str:
    return f"/games/{game_id}/rounds/{number}/score"


def hand_fields(pid: int, hand) -> dict[str, str]:
    """Form fields for one player's hand.

    ``hand`` is a card list ``"K K 5 JK"`` (keypad codes), an ``int`` total counted by hand,
    or a dict of raw sub-field values such as ``{"k_K": "abc", "buys": "9"}``.
    """
    if hand is None:
        return {}
    if isinstance(hand, bool):
        raise TypeError("a hand is cards, a total or raw fields")
    if isinstance(hand, int):
        return {f"p{pid}-total": str(hand)}
    if isinstance(hand, str):
        return {f"p{pid}-k_{code}": str(n) for code, n in Counter(hand.split()).items()}
    return {f"p{pid}-{name}": str(value) for name, value in hand.items()}


def round_data(ids: dict[str, int], went_out: str | None, hands: dict, version, *, bonus: str | None = None,
               action: str = "save", laid_down=(), buys: dict[str, int] | None = None) -> dict[str, str]:
    """The card-entry form as posted: ``ids`` maps names to player ids."""
    data = {"version": str(version), "action": action}
    if went_out is not None:
        data["went_out"] = str(ids[went_out])
    if bonus is not None:
        data["bonus"] = bonus
    for name, hand in hands.items():
        data.update(hand_fields(ids[name], hand))
    for name in laid_down:
        data[f"p{ids[name]}-laid_down"] = "y"
    for name, n in (buys or {}).items():
        data[f"p{ids[name]}-buys"] = str(n)
    return data
