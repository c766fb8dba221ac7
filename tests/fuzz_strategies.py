"""What the property-based fuzzing (hypothesis) of every form and route shares: its settings
and the count of examples each test ran, hostile values, and the checks every answer gets.

Random and hostile data - huge and negative numbers, floats, unknown cards, Unicode (RTL marks,
emoji, NUL), strings of 10,000 characters, missing and repeated fields, wrong types, other
families' ids, bodies over the request size limits - goes to every form and route. Each example
checks that the answer is never a 500 (``strict_client`` fails on one), that a refusal can be seen
(a 4xx, or a page with a form error or an error message) and that a refused request wrote nothing:
every row of every table is compared before and after.

Most properties post input made invalid on purpose (a legal form with one to three hostile
fields, or a legal form sent in a state that refuses it), so the expected answer is always a
refusal. Where random input may well be legal (a family name, names at the table, an import),
the property is "refused with nothing written, or accepted and stored as typed".

The properties live in tests/test_fuzz_*.py, one file per surface: games (new game, seating and
the round screen), card entry, accounts, transfer (export and import), routes (GET and PDF routes,
bodies over the size limits), sharing, house rules, and the bugs they found.

``SCOREKEEPER_FUZZ_EXAMPLES`` multiplies the number of examples (default 1; e.g. 10 for a deeper
run). Runs are derandomized and keep no example database, so CI is deterministic. How many
examples each test ran is written out when each module finishes.
"""

from __future__ import annotations

import io
import json
import os
import re
import time
from collections import Counter
from urllib.parse import quote, urlencode

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, settings
from hypothesis import event as hypothesis_event
from hypothesis import strategies as st

from scorekeeper.extensions import db
from scorekeeper.models import GameRound
from scorekeeper.web.access import KEEPER
from tests.databases import POSTGRES_URL, db_snapshot
from tests.pages import score_url, text_of

# -- settings and counting -----------------------------------------------------------------

SCALE = float(os.environ.get("SCOREKEEPER_FUZZ_EXAMPLES") or 1)
RAN: dict[str, int] = {}
SEEN: dict[str, Counter] = {}


def keeper_pages(app) -> set[str]:
    """The endpoints whose views open to a score keeper's link (``@keeper_page``)."""
    return {endpoint for endpoint, view in app.view_functions.items() if getattr(view, "access", None) == KEEPER}


def fuzz(examples: int, **kwargs):
    """Hypothesis settings for one property: deterministic, no example database, no deadline."""
    return settings(
        max_examples=max(1, round(examples * SCALE)),
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=False,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large,
            HealthCheck.large_base_example,
        ],
        **kwargs,
    )


def pinned(**kwargs):
    """Settings for a bug reproduction: its ``@example`` cases, then a few generated ones."""
    return fuzz(10, **kwargs)


def _running() -> str:
    return os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0].split("::")[-1]


def tick() -> None:
    """Count one example for the running test (reported when the module ends)."""
    RAN[_running()] = RAN.get(_running(), 0) + 1


def event(label: str) -> None:
    """What an example exercised: tallied for the summary (with -v), and a hypothesis event."""
    hypothesis_event(label)
    SEEN.setdefault(_running(), Counter())[label] += 1


@pytest.fixture(scope="module", autouse=True)
def report_examples(request):
    """Autouse in each test_fuzz_* module (imported there): how many examples each of its tests ran."""
    RAN.clear()
    SEEN.clear()
    started = time.monotonic()
    yield
    lines = []
    for name, count in RAN.items():
        lines.append(f"{count:6d}  {name}")
        if request.config.option.verbose > 0:  # what the examples exercised
            lines += [f"{'':8}{n:5d} {label}" for label, n in sorted(SEEN.get(name, Counter()).items())]
    summary = (
        f"\nhypothesis examples run in {request.module.__name__} "
        f"({'PostgreSQL' if POSTGRES_URL else 'SQLite'}, scale {SCALE:g}, "
        f"{time.monotonic() - started:.0f} s):\n" + "\n".join(lines)
        + f"\n{sum(RAN.values()):6d}  in all"
    )
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:  # pragma: no cover
        print(summary)
        return
    with capture.global_and_fixture_disabled():  # shown without -s
        reporter.write_line(summary)


# -- hostile values ------------------------------------------------------------------------

HUGE = (10**18, 10**30, 10**100, 2**31, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, -(10**100))
WEIRD = (
    "", " ", "\t", "\n", "\x00", "0", "-0", "+1", "-1", "1.5", "1e3", "1_0", "0x1f", "½", "²", "١٢",
    "３", "NaN", "inf", "-inf", "null", "None", "true", "[]", "{}", "\u202e12", "1\u200b", "🂡", "🃏",
    "<b>1</b>", "' OR 1=1 --", "%00", "../..", "k_ZZ", "JK", "10♦",
)
CHARS = st.characters(codec="utf-8")  # any Unicode character but surrogates (they cannot be sent)
NO_NUL = st.characters(codec="utf-8", exclude_characters="\x00")

numbers = st.one_of(st.integers(-20, 300), st.integers(), st.sampled_from(HUGE))
unicode_text = st.text(CHARS, max_size=40)
DIGIT_LIMIT = 4300  # Python will not turn a longer string of digits into an int (ValueError)


long_text = st.builds(
    lambda piece, n: (piece * n)[:n], st.text(CHARS, min_size=1, max_size=3),
    st.sampled_from((41, 61, 201, 4301, 10_000)),
)
hostile_text = st.one_of(
    numbers.map(str), st.floats().map(str), st.sampled_from(WEIRD), unicode_text, long_text,
)


def either(*strategies) -> st.SearchStrategy:
    """One of ``strategies``, each as likely: ``st.one_of`` flattens nested ``one_of``s (even
    mapped ones) into its branches, so ``hostile_text`` alone would outweigh the rest."""
    return st.integers(0, len(strategies) - 1).flatmap(lambda i: strategies[i])


INVALID = object()


def parse_int(text):
    """What an ``IntegerField`` or ``request.form.get(type=int)`` makes of ``text``:
    ``None`` for nothing, ``INVALID`` for text that is not a whole number."""
    if text is None or text.strip() == "":
        return None
    try:
        return int(text)
    except ValueError:
        return INVALID


INT4_MAX = 2**31 - 1  # id and version columns are Integer: 32 bits on PostgreSQL
INT8_MAX = 2**63 - 1  # what models.MAX_ID said the database stores, until 7cac5dc


def plain_int(text, value: int) -> bool:
    """True when ``fields.is_number(text)`` holds and ``text`` reads as ``value`` (the version check)."""
    return text.isascii() and text.isdigit() and len(text) <= DIGIT_LIMIT and int(text) == value


def bad_int(text, low: int, high: int) -> bool:
    """True when an integer field limited to ``low..high`` must refuse ``text``."""
    n = parse_int(text)
    return n is INVALID or (n is not None and not low <= n <= high)


def id_of(text):
    """The id ``request.form.get(name, type=int)`` reads from ``text`` (``None`` if none)."""
    n = parse_int(text)
    return None if n is INVALID else n


# -- checking answers ----------------------------------------------------------------------

ERROR_MARKS = ('class="errors', 'class="flash flash-error"', 'class="row-message"', 'id="sign-in-error"')


def shows_refusal(response) -> bool:
    """A 4xx, or a page with a form error or an error message on it."""
    if 400 <= response.status_code < 500:
        return True
    html = response.get_data(as_text=True)
    return response.status_code == 200 and any(mark in html for mark in ERROR_MARKS)


def snapshot(app, exclude=()) -> dict:
    return {name: rows for name, rows in db_snapshot(app).items() if name not in exclude}


def assert_refused(app, response, before, exclude=()) -> None:
    assert response.status_code < 500
    assert shows_refusal(response), (
        f"neither a 4xx nor a visible error: {response.status_code} {text_of(response)[:400]}"
    )
    assert "flash-success" not in response.get_data(as_text=True), text_of(response)[:400]
    after = snapshot(app, exclude)
    changed = [name for name in after if after[name] != before.get(name)]
    assert not changed, f"a refused request wrote to {changed}"


def stored_text_problems(app) -> list[str]:
    """Stored text that PostgreSQL could not hold: NUL characters, or more than the column's length.

    SQLite stores either without complaint, so this is how a test on SQLite sees what would be
    a 500 on PostgreSQL."""
    problems = []
    with app.app_context():
        for table in db.metadata.sorted_tables:
            columns = [c for c in table.columns if isinstance(c.type, sa.String)]
            if not columns:
                continue
            for row in db.session.execute(sa.select(*columns)):
                for column, value in zip(columns, row):
                    if value is None:
                        continue
                    if "\x00" in value:
                        problems.append(f"{table.name}.{column.name} holds a NUL: {value[:60]!r}")
                    if column.type.length and len(value) > column.type.length:
                        problems.append(
                            f"{table.name}.{column.name} holds {len(value)} characters "
                            f"(the column holds {column.type.length}): {value[:60]!r}…"
                        )
    return problems


FIELD_NAMES = {
    "action", "went_out", "bonus", "version", "player", "number", "laid_down", "username", "password",
    "confirm", "family_name", "family-name", "remember", "variant", "new_players", "seat", "first_dealer",
    "skip_first_hand", "move", "file", "next",
}


def noise(keys=()) -> st.SearchStrategy:
    """Fields the form does not have (unknown cards, other players' fields, random names), or
    repeats of ``keys``; they come after the form's own fields, whose first value is the one read."""
    names = st.one_of(
        st.sampled_from(["k_ZZ", "p0-k_K", "p-1-total", "p99999999999999999999-k_K", "went_out_", "x", "?", ""]),
        st.text(CHARS, max_size=12).filter(lambda k: k not in FIELD_NAMES and not re.match(r"p\d+-", k)),
        *([st.sampled_from(sorted(keys))] if keys else []),
    )
    return st.lists(st.tuples(names, hostile_text), max_size=4)


def nul_in(*values) -> bool:
    """A value sent (a path, query or form value; not a field's name) holds a NUL character: the
    request is refused with a 400 before any view (since 7cac5dc)."""
    return any(isinstance(v, str) and "\x00" in v for v in values)


def sent(pairs) -> list:
    return [value for _, value in pairs]


def consume(client, response) -> None:
    """Open the page an accepted request redirects to, so its message leaves the session."""
    if response.status_code == 302:
        client.get(response.headers["Location"])


def query(pairs) -> str:
    return urlencode(pairs, quote_via=quote) if pairs else ""


# -- shared by several surfaces ----------------------------------------------------------


def normal_name(text: str) -> str:
    return " ".join(text.split())


def upload(client, content: bytes, filename: str = "export.json", url: str = "/import"):
    return client.post(url, data={"file": (io.BytesIO(content), filename)}, content_type="multipart/form-data")


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), numbers, st.floats(allow_nan=False, allow_infinity=False), st.text(CHARS, max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(CHARS, max_size=12), inner, max_size=4)),
    max_leaves=20,
)


def places_in(value, path=()):
    """Every place in a JSON value: ``(path, value)``."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from places_in(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from places_in(item, path + (index,))


def put_at(value, path, new):
    """Replace the value at ``path`` (from ``places_in``) with ``new``, or delete it (``DELETED``)."""
    for step in path[:-1]:
        value = value[step]
    if new is DELETED:
        del value[path[-1]]
    else:
        value[path[-1]] = new


DELETED = object()


def game_pages(app, game_id: int) -> list[str]:
    """A game's pages: the round screen, standings and the card entry of its first hand."""
    with app.app_context():
        first = db.session.execute(sa.select(GameRound.number).where(
            GameRound.game_id == game_id, GameRound.position == 0)).scalar()
    return [f"/games/{game_id}", f"/games/{game_id}/standings"] + ([score_url(game_id, first)] if first else [])


def changed_tables(before: dict, after: dict) -> set[str]:
    return {name for name in after if after[name] != before.get(name)}


def exported(client) -> dict:
    """The family's export, as the export page sends it."""
    return json.loads(client.get("/export.json").get_data(as_text=True))
