"""A sheet's cells kept on the server between its preview and its import, under a random token
that the preview's form carries (and nothing else of the sheet): nothing a browser sends back is
unpacked, and a sheet of any size imports with a small form.

Kept in the instance folder (every server process finds it), compressed, for a few hours; the
folder is held to a size, the oldest previews going first. An import claims its preview by
renaming the file, so a second tap on Import finds it taken and imports nothing twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import secrets
import time
import zlib
from datetime import date
from pathlib import Path

from flask import current_app

from .checks import TransferError
from .sheets import Cell

FOLDER = "sheet-previews"
LIFETIME = 3 * 3600  # seconds: time enough to look the preview over and answer its questions
MOST_KEPT = 256 * 1024 * 1024  # bytes of all kept previews together
TOKEN = re.compile(r"[A-Za-z0-9_-]{32}")
LOST = "The preview has expired or was already imported; choose the file again."
BUSY = ("This sheet is being imported already (the Import button was pressed twice): its games appear in "
        "the history when it is done.")


def _folder() -> Path:
    folder = Path(current_app.instance_path) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def keep(family_id: int, cells: list[list[Cell]]) -> str:
    """Keep the cells for ``family_id``; the token that finds them again."""
    folder = _folder()
    _prune(folder)
    token = secrets.token_urlsafe(24)
    text = json.dumps({"family": family_id, "cells": cells}, default=lambda d: {"date": d.isoformat()},
                      separators=(",", ":"))
    part = folder / f"{token}.part"
    part.write_bytes(zlib.compress(text.encode(), 6))
    os.replace(part, folder / f"{token}.json.z")
    return token


def load(family_id: int, token: str) -> list[list[Cell]]:
    """The cells kept under ``token`` for this family; ``TransferError`` when there are none (expired,
    imported, another family's, or a token never given)."""
    path = _path(token)
    try:
        fresh = time.time() - path.stat().st_mtime < LIFETIME
        data = _read(path) if fresh else None
    except FileNotFoundError:
        claimed = path.with_suffix(".importing")
        raise TransferError(BUSY if TOKEN.fullmatch(token or "") and claimed.exists() else LOST) from None
    if data is None or data.get("family") != family_id:
        raise TransferError(LOST)
    return data["cells"]


def reading_key(variant, mapping: dict, answers: dict, day: date) -> str:
    """What a reading of the cells depends on besides the cells: the rules, the names mapped, the
    answers given and the day (no game may be dated after it)."""
    text = json.dumps([variant.to_dict(), sorted(mapping.items()), sorted(answers.items()), day.isoformat()])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def keep_reading(token: str, key: str, sheet) -> None:
    """Keep what the preview read from the cells under ``token``, so its import need not read them
    again (seconds for thousands of games) when nothing it depends on changed."""
    path = _path(token).with_suffix(".read")
    part = path.with_suffix(".part")
    part.write_bytes(zlib.compress(pickle.dumps((key, sheet), protocol=pickle.HIGHEST_PROTOCOL), 1))
    os.replace(part, path)


def reading(token: str, key: str):
    """The sheet the preview read under ``token`` with ``key``, or ``None`` (read it again)."""
    path = _path(token).with_suffix(".read")
    try:
        # Written by this server into its own instance folder, next to its secret key.
        kept_key, sheet = pickle.loads(zlib.decompress(path.read_bytes()))
    except (FileNotFoundError, ValueError, zlib.error, pickle.UnpicklingError, EOFError, AttributeError):
        return None
    return sheet if kept_key == key else None


def claim(token: str) -> None:
    """Take the preview under ``token`` (read with ``load``) for its import: a second claim finds it
    gone (``BUSY``)."""
    path = _path(token)
    try:
        os.replace(path, path.with_suffix(".importing"))
    except FileNotFoundError:
        raise TransferError(BUSY) from None


def release(token: str, imported: bool) -> None:
    """After an import: forget the preview, or give it back when the import did not happen."""
    claimed = _path(token).with_suffix(".importing")
    try:
        if imported:
            claimed.unlink()
            _path(token).with_suffix(".read").unlink(missing_ok=True)
        else:
            os.replace(claimed, _path(token))
    except FileNotFoundError:
        pass


def _path(token: str) -> Path:
    if not TOKEN.fullmatch(token or ""):
        return _folder() / "none.json.z"
    return _folder() / f"{token}.json.z"


def _read(path: Path) -> dict | None:
    # Written by this server; a damaged file is a lost preview all the same.
    try:
        data = json.loads(zlib.decompress(path.read_bytes()),
                          object_hook=lambda d: date.fromisoformat(d["date"]) if "date" in d else d)
    except (ValueError, zlib.error, KeyError, TypeError):
        return None
    return data if isinstance(data, dict) else None


def _prune(folder: Path) -> None:
    """Forget expired previews, and the oldest while the folder holds more than ``MOST_KEPT``."""
    now = time.time()
    kept = []
    for path in folder.iterdir():
        try:
            stat = path.stat()
        except FileNotFoundError:
            continue
        if now - stat.st_mtime > LIFETIME:
            path.unlink(missing_ok=True)
        else:
            kept.append((stat.st_mtime, stat.st_size, path))
    total = sum(size for _, size, _ in kept)
    for _, size, path in sorted(kept):
        if total <= MOST_KEPT:
            break
        path.unlink(missing_ok=True)
        total -= size
