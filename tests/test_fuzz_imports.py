"""Property-based fuzzing (hypothesis) of the whole import surface: random .csv, .xlsx and JSON
bytes to both imports, workbooks whose sheet, texts or styles were damaged at random, and random
fields to the preview's form. Never a 500 (``strict_client`` fails on one), never more than the
memory budget above the process's size before the request (VmHWM, its peak reset first, from
/proc), and nothing written by a refused upload."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import attack_files as attacks
from tests.databases import db_snapshot, make_app, strict_client
from tests.test_sheet_import import GAME_1, HEADER, xlsx

pytestmark = pytest.mark.slow

FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None, print_blob=False,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])
CELL = st.one_of(st.text(max_size=12), st.integers(-10**12, 10**12).map(str), st.sampled_from(
    ["2024-05-01", "1.5.2024", "13/5/2024", "out", "x", "=1+1", "\x00", "0001-01-01", "9" * 400, "Total"]))
GOOD = xlsx([HEADER] + [["2024-05-01", *r, None] for r in GAME_1])
PARTS = ["xl/worksheets/sheet1.xml", "xl/sharedStrings.xml", "xl/styles.xml", "xl/workbook.xml",
         "xl/_rels/workbook.xml.rels"]
JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)),
                    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=6), inner,
                                                                                         max_size=5)), max_leaves=20)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    app = make_app(tmp_path_factory.mktemp("fuzz-imports"), keep=True)
    yield app, strict_client(app)
    from tests.databases import drop_app
    drop_app(app)


def csv_file(rows: list[list[str]], delimiter: str, encoding: str, line_end: str) -> bytes:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator=line_end).writerows([HEADER, *rows])
    return out.getvalue().encode(encoding, errors="replace")


def damaged_workbook(part: str, cut: int, junk: bytes) -> bytes:
    """The good workbook with one member cut at ``cut`` bytes and ``junk`` put in its place."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(GOOD)) as old, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new:
        for item in old.infolist():
            data = old.read(item.filename)
            if item.filename == part:
                data = data[:cut] + junk + data[cut + len(junk):]
            new.writestr(item.filename, data)
    return out.getvalue()


FILES = st.one_of(
    st.binary(max_size=3000),
    st.builds(csv_file, st.lists(st.lists(CELL, max_size=12), max_size=12), st.sampled_from([",", ";", "\t"]),
              st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "cp1252"]), st.sampled_from(["\r\n", "\n", "\r"])),
    st.builds(damaged_workbook, st.sampled_from(PARTS), st.integers(0, 4000), st.binary(min_size=1, max_size=200)),
    st.builds(damaged_workbook, st.sampled_from(PARTS), st.integers(0, 4000), st.sampled_from([
        b'<!DOCTYPE x [<!ENTITY a "aaaa">]>', b'<c r="XFD1048577"/>', b"<v>1e999</v>", b'<c t="s"><v>99999</v></c>',
        b'<row r="99999999">', b"<v>" + b"9" * 5000 + b"</v>", b"\x00\xff"])),
    JSON.map(lambda value: json.dumps(value).encode()),
)


class PeakMemory:
    """This process's peak resident size above its size before, from /proc (the peak reset first)."""

    def __enter__(self):
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        self.before = attacks._status("self", "VmRSS")
        return self

    def __exit__(self, *exc):
        self.rise = attacks._status("self", "VmHWM") - self.before


@given(raw=FILES, name=st.sampled_from(["games.xlsx", "games.csv", "export.json", "x"]),
       page=st.sampled_from(["/import/sheet", "/import"]), key=st.sampled_from(["family-7", "shanghai-10", "nope"]))
@FUZZ
def test_random_files_to_either_import_are_refused_or_read_within_the_budget(world, raw, name, page, key):
    app, client = world
    before = db_snapshot(app)
    with PeakMemory() as peak:
        answer = client.post(page, data={"rules": key, "file": (io.BytesIO(raw), name)},
                             content_type="multipart/form-data")
    assert answer.status_code in (200, 302, 400, 413)
    assert peak.rise <= attacks.MEMORY_BUDGET
    if answer.status_code != 302:
        assert db_snapshot(app) == before


@given(fields=st.dictionaries(st.sampled_from(["rules", "token", "cells", "action", "map:ann", "out:2:1",
                                               "csrf_token", "file"]),
                              st.one_of(st.text(max_size=60), st.sampled_from(["import", "check", "family-7"])),
                              max_size=8))
@FUZZ
def test_random_fields_to_the_preview_form_write_nothing(world, fields):
    app, client = world
    before = db_snapshot(app)
    with PeakMemory() as peak:
        answer = client.post("/import/sheet/check", data=fields)
    assert answer.status_code in (200, 302, 400)
    assert peak.rise <= attacks.MEMORY_BUDGET
    assert db_snapshot(app) == before
