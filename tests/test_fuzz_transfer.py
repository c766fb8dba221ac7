"""Fuzzing the import of an export: random bytes and JSON refused, a tampered export refused or
imported whole."""

from __future__ import annotations

import itertools
import json

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st
from werkzeug.datastructures import MultiDict

from scorekeeper.extensions import db
from scorekeeper.models import Game
from tests.fuzz_strategies import (
    CHARS,
    DELETED,
    consume,
    event,
    fuzz,
    game_pages,
    hostile_text,
    json_values,
    long_text,
    noise,
    numbers,
    places_in,
    put_at,
    report_examples,  # noqa: F401 - autouse: reports the examples run
    stored_text_problems,
    tick,
    upload,
)
from tests.fuzz_world import build_world

pytestmark = pytest.mark.slow


# -- import -----------------------------------------------------------------------------------


def test_import_of_random_bytes_or_json_is_refused():
    """POST /import with random bytes, random JSON (sometimes with the export's format and
    version), no file, or the file sent as a plain field."""
    w = build_world()

    @fuzz(120)
    @given(st.data())
    def run(data):
        tick()
        case = data.draw(st.sampled_from(["bytes", "json", "json-export-head", "no-file", "plain-field"]))
        before = w.snapshot()
        if case == "bytes":
            content = data.draw(st.one_of(st.binary(max_size=2000), st.sampled_from([b"", b"\x00" * 100, b"\xff\xfe{", b"[" * 100_000, b'"' + b"a" * 500_000])))
            page = upload(w.client, content, data.draw(st.text(CHARS, max_size=30)))
        elif case in ("json", "json-export-head"):
            value = data.draw(json_values)
            if case == "json-export-head":
                value = {"format": "scorekeeper-export", "version": data.draw(st.sampled_from([1, 1, 2, "1", True, 1.0])),
                         **data.draw(st.dictionaries(st.sampled_from(["family", "players", "games", "x"]), json_values, max_size=4))}
            page = upload(w.client, json.dumps(value).encode())
        elif case == "no-file":
            page = w.client.post("/import", data=MultiDict(data.draw(noise())), content_type="multipart/form-data")
        else:
            page = w.client.post("/import", data={"file": data.draw(hostile_text)})
        event(f"{case}: {page.status_code}")
        if page.status_code == 302:  # an export with nothing in it is a legal, empty import
            assert case == "json-export-head"
            after = w.snapshot()
            assert {name for name in after if after[name] != before[name]} <= {"family", "player"}
            assert stored_text_problems(w.app) == []
            consume(w.client, page)
        else:
            w.refused(page, before)

    run()


uids = itertools.count(1)


def test_import_of_a_tampered_export_is_refused_or_imported_whole():
    """POST /import with a real export in which one to three values were replaced by hostile
    ones (wrong types, huge or negative numbers, unknown cards, Unicode) or removed. Refused:
    nothing written. Imported: every page of the new games opens, and nothing stored is more
    than its column holds."""
    w = build_world()
    export = json.loads(w.client.get("/export.json").get_data(as_text=True))
    places = [p for p, _ in places_in(export) if p]
    replacement = st.one_of(
        st.none(), st.booleans(), numbers, st.floats(), st.text(CHARS, max_size=25), long_text, st.just(DELETED),
        st.sampled_from(["K", "ZZ", "JK JK JK", "2B", "K" * 3, "finished", "abandoned", "in_progress", "",
                         "2026-13-01", "0001-01-01T00:00:00", "9999-12-31T23:59:59", "2026-01-01T00:00:00+14:00",
                         [], {}, [1], {"x": 1}]),
    )

    @fuzz(120)
    @given(changes=st.lists(st.tuples(st.sampled_from(places), replacement), min_size=1, max_size=3))
    def run(changes):
        tick()
        document = json.loads(json.dumps(export))
        for path, new in changes:
            try:
                put_at(document, path, new)
            except (KeyError, IndexError, TypeError):
                pass  # an earlier change removed or replaced the place
        n = next(uids)
        games = document.get("games") if isinstance(document, dict) else None
        for i, game in enumerate(games if isinstance(games, list) else []):
            if isinstance(game, dict) and game.get("uid") in {g["uid"] for g in export["games"]}:
                game["uid"] = f"fuzz-{n}-{i}"
        before = w.snapshot()
        with w.app.app_context():
            known = set(db.session.execute(sa.select(Game.id)).scalars())
        page = upload(w.client, json.dumps(document).encode())
        event("imported" if page.status_code == 302 else f"refused ({page.status_code})")
        if page.status_code == 302:
            consume(w.client, page)
            assert stored_text_problems(w.app) == []
            with w.app.app_context():
                new = set(db.session.execute(sa.select(Game.id)).scalars()) - known
            for game_id in sorted(new):
                for url in game_pages(w.app, game_id):
                    assert w.client.get(url, follow_redirects=True).status_code == 200
            for url in ("/", "/history", "/players", "/records", "/export.csv", "/export.json", "/games/new", "/print",
                        "/house-rules"):
                assert w.client.get(url).status_code == 200, url
        else:
            w.refused(page, before)

    run()
