"""Small inputs that once took a server worker far past its budget, and the measure of a worker:
memory above idle (VmHWM, reset through ``clear_refs``) and CPU seconds (utime + stime), read from
``/proc``. Shared by ``tests/test_attacks.py`` and ``bench/attacks.py``."""

from __future__ import annotations

import base64
import csv
import io
import os
import random
import struct
import subprocess
import zipfile
import zlib
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache

from scorekeeper import rules
from scorekeeper.rules.paper import card_totals

MB = 1024 * 1024
MEMORY_BUDGET = 150 * MB  # above the worker's idle size
CPU_BUDGET = 5.0  # seconds of a worker's CPU for one request
IMPORT_CPU_BUDGET = 10.0  # the import of 4,000 games
DOS_1980 = 0x21  # 1980-01-01, the first day a zip entry can carry
TICKS = os.sysconf("SC_CLK_TCK")
WORKBOOK_PARTS = {
    "[Content_Types].xml": b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                           b'content-types"/>',
    "xl/workbook.xml": b'<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="'
                       b'http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
                       b'<sheet name="Games" sheetId="1" r:id="rId1"/></sheets></workbook>',
    "xl/_rels/workbook.xml.rels": b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                                  b'relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml" Type="'
                                  b'http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"/>'
                                  b'</Relationships>',
}
SHEET_HEAD = b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
SHEET_TAIL = b"</sheetData></worksheet>"


def workbook(members: dict[str, list[bytes] | bytes]) -> bytes:
    """An .xlsx whose members are packed chunk by chunk (so a member of gigabytes is never held)."""
    out, directory = io.BytesIO(), []
    for name, data in {**WORKBOOK_PARTS, **members}.items():
        packed, crc, size = _deflated([data] if isinstance(data, bytes) else data)
        fields = (20, 0, zipfile.ZIP_DEFLATED, 0, DOS_1980, crc, len(packed), size, len(name))  # sizes < 4 GB
        directory.append(struct.pack("<I6H3I5H2I", 0x02014B50, 20, *fields, 0, 0, 0, 0, 0, out.tell()) + name.encode())
        out.write(struct.pack("<I5H3I2H", 0x04034B50, *fields, 0) + name.encode() + packed)
    start = out.tell()
    out.write(b"".join(directory))
    out.write(struct.pack("<I4H2IH", 0x06054B50, 0, 0, len(directory), len(directory), out.tell() - start, start, 0))
    return out.getvalue()


def _deflated(chunks) -> tuple[bytes, int, int]:
    """Raw deflate of the chunks, its CRC-32 and unpacked size. Each chunk is packed on its own
    (a full flush after it, so it refers to nothing before), so a chunk repeated is packed once."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed: dict[bytes, bytes] = {}
    parts, crc, size = [], 0, 0
    for chunk in chunks:
        if chunk not in packed:
            packed[chunk] = packer.compress(chunk) + packer.flush(zlib.Z_FULL_FLUSH)
        parts.append(packed[chunk])
        crc, size = zlib.crc32(chunk, crc), size + len(chunk)
    return b"".join(parts) + packer.flush(), crc, size


def _repeat(piece: bytes, times: int, head: bytes = b"", tail: bytes = b""):
    yield head
    per = max(1, MB // len(piece))
    block = piece * min(per, times)  # the same object each time: packed once
    while times >= per:
        yield block
        times -= per
    if times > 0:
        yield piece * times
    yield tail


@cache
def wide_row_xlsx() -> bytes:
    """One row of 20 million number cells: 0.56 MB packed, 300 MB of XML."""
    return workbook({"xl/worksheets/sheet1.xml": _repeat(b"<c><v>1</v></c>", 20_000_000,
                                                         SHEET_HEAD + b"<row>", b"</row>" + SHEET_TAIL)})


@cache
def many_cells_xlsx() -> bytes:
    """Ten million empty cells (625 rows of 16,000) in 40 MB of XML: inside the size limit, refused
    while read."""
    row = b"<row>" + b"<c/>" * 16_000 + b"</row>"
    return workbook({"xl/worksheets/sheet1.xml": _repeat(row, 625, SHEET_HEAD, SHEET_TAIL)})


@cache
def overwide_row_xlsx() -> bytes:
    """A row of 100,000 empty cells: wider than Excel allows."""
    return workbook({"xl/worksheets/sheet1.xml": _repeat(b"<c/>", 100_000, SHEET_HEAD + b"<row>",
                                                         b"</row>" + SHEET_TAIL)})


@cache
def whitespace_xlsx() -> bytes:
    """2 GB of whitespace inside the sheet's XML, packed to about 2 MB."""
    return workbook({"xl/worksheets/sheet1.xml": _repeat(b" " * 1024, 2 * 1024 * 1024, SHEET_HEAD, SHEET_TAIL)})


@cache
def shared_strings_xlsx(many: bool) -> bytes:
    """Ten million shared strings, or one string of a billion characters."""
    head = b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    strings = (_repeat(b"<si><t>a</t></si>", 10_000_000, head, b"</sst>") if many
               else _repeat(b"a" * 1024, 1024 * 1024, head + b"<si><t>", b"</t></si></sst>"))
    sheet = SHEET_HEAD + b'<row r="1"><c r="A1" t="s"><v>0</v></c></row>' + SHEET_TAIL
    return workbook({"xl/sharedStrings.xml": strings, "xl/worksheets/sheet1.xml": sheet})


def long_row_csv() -> bytes:
    """One row of 31 MB (just under the upload limit): ``ab,`` ten million times."""
    return b"ab," * (31 * MB // 3)


def inflate_bomb(text: bytes = b"[],") -> str:
    """What the preview's hidden field once unpacked: zlib of 32 MB of ``[],``, base64."""
    packer = zlib.compressobj(9)
    packed = packer.compress(b"[" + text * (32 * MB // len(text)) + b"[]]") + packer.flush()
    return base64.urlsafe_b64encode(packed).decode()


def plausible_rows_bomb() -> str:
    row = b'["2024-05-01","Ann",5,10,15,20,25,30,35,""],'
    packer = zlib.compressobj(9)
    packed = packer.compress(b"[" + row * 930_000 + b"[]]") + packer.flush()
    return base64.urlsafe_b64encode(packed).decode()


def sheet_of_games(games: int, players: int = 8, seed: int = 3) -> bytes:
    """A CSV of ``games`` family-7 games of ``players``, a different evening each, scores drawn
    among those a hand can make."""
    rng = random.Random(seed)
    variant = rules.VARIANTS["family-7"]
    names = [f"Player {i}" for i in range(12)]
    choices = {r.number: sorted(card_totals(variant, r.number))[:40] for r in variant.rounds}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["Date", "Player", *(f"Round {r.number}" for r in variant.rounds), "Notes"])
    for game in range(games):
        day = (date(1990, 1, 1) + timedelta(days=game)).isoformat()
        outs = [rng.randrange(players) for _ in variant.rounds]
        for seat, name in enumerate(rng.sample(names, players)):
            writer.writerow([day, name, *(0 if outs[i] == seat else rng.choice(choices[r.number])
                                          for i, r in enumerate(variant.rounds)), f"night {game}"])
    return out.getvalue().encode()


# -- a worker's cost, from /proc -------------------------------------------------------------------


def _status(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def worker_pids(master: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout
    return [int(pid) for pid in found.split()]


@dataclass
class Cost:
    memory: int  # bytes above idle, the most of any worker
    cpu: float  # seconds, the most of any worker

    def __str__(self) -> str:
        return f"{self.memory / MB:.0f} MB above idle, {self.cpu:.2f} s CPU"


class Measured:
    """Around requests to gunicorn: the most any worker's memory rose above its idle size (its
    peak reset first) and the most CPU seconds any worker spent."""

    def __init__(self, master: int):
        self.pids = worker_pids(master)
        self.cost = Cost(0, 0.0)

    def __enter__(self) -> Measured:
        self.idle, self.cpu = {}, {}
        for pid in self.pids:
            with open(f"/proc/{pid}/clear_refs", "w") as refs:
                refs.write("5")  # the peak resident size starts again from now
            self.idle[pid] = _status(pid, "VmRSS")
            self.cpu[pid] = cpu_seconds(pid)
        return self

    def __exit__(self, *exc) -> None:
        self.cost = Cost(
            max(_status(pid, "VmHWM") - self.idle[pid] for pid in self.pids),
            max(cpu_seconds(pid) - self.cpu[pid] for pid in self.pids),
        )
