"""PDFs that take seconds to lay out (a season's yearbook) are made one at a time per server, in
a process of their own, and kept in the instance folder where every server process finds them.

A request for such a document writes its HTML into the queue (``instance/printed/queue``) and
starts the render process unless one is running (a lock file says so); the phone is shown a page
that refreshes itself until the PDF is there. The render process takes the queue oldest first,
writes each PDF (or the reason it could not) beside the queue, and ends when the queue is empty.
However many phones ask, the server lays out one book at a time and the web workers stay free.

Run as ``python -m scorekeeper.printing.render_queue FOLDER``.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

from flask import current_app

FOLDER = "printed"
MOST_KEPT = 24  # finished PDFs kept; the oldest go first
RUNNER_LOCK = "runner.lock"
# Tests lay documents out in their own process, with a stand-in renderer (documents.html_to_pdf).
INLINE = False
_children: list[subprocess.Popen] = []


class RenderFailed(RuntimeError):
    """The render process could not make the document; the message says why."""


def folder() -> Path:
    path = Path(current_app.instance_path) / FOLDER
    (path / "queue").mkdir(parents=True, exist_ok=True)
    return path


def made(key: str) -> Path | None:
    """The finished PDF of the document ``key``, if it is there; ``RenderFailed`` (once) if its
    render failed."""
    here = folder()
    pdf = here / f"{key}.pdf"
    if pdf.exists():
        return pdf
    error = here / f"{key}.error"
    if error.exists():
        message = error.read_text(errors="replace")
        error.unlink(missing_ok=True)
        raise RenderFailed(message)
    return None


def queued(key: str) -> bool:
    """Whether the document ``key`` waits in the queue (or is being laid out)."""
    return (folder() / "queue" / f"{key}.html").exists()


def waiting(key: str) -> int:
    """How many documents are ahead of ``key`` in the queue."""
    jobs = sorted((folder() / "queue").glob("*.html"), key=_age)
    names = [job.stem for job in jobs]
    return names.index(key) if key in names else len(names)


def enqueue(key: str, html: str) -> None:
    """Put the document's HTML in the queue and see that a render process takes it."""
    queue = folder() / "queue"
    part = queue / f"{key}.part"
    part.write_text(html)
    os.replace(part, queue / f"{key}.html")
    start()


def start() -> None:
    """Start the render process unless one runs already (two at once: the second ends at once)."""
    here = folder()
    for child in list(_children):  # render processes started from here that have ended
        if child.poll() is not None:
            _children.remove(child)
    if INLINE:
        run(here)
        return
    with open(here / RUNNER_LOCK, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # it will find the new document when it looks at the queue again
        fcntl.flock(lock, fcntl.LOCK_UN)
    with open(here / "runner.log", "ab") as log:
        _children.append(subprocess.Popen(
            [sys.executable, "-m", "scorekeeper.printing.render_queue", str(here)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, close_fds=True,
        ))


def run(here: Path) -> None:
    """Lay out every queued document, oldest first, until the queue is empty; at most one of these
    runs per instance folder (the lock)."""
    from .documents import NoPdfRenderer, html_to_pdf

    with open(here / RUNNER_LOCK, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return
        while jobs := sorted((here / "queue").glob("*.html"), key=_age):
            job = jobs[0]
            key = job.stem
            try:
                pdf = html_to_pdf(job.read_text())
            except NoPdfRenderer as error:
                _write(here / f"{key}.error", str(error).encode())
            except Exception as error:  # noqa: BLE001  the phone is told, and the next document goes on
                _write(here / f"{key}.error", f"The document could not be made ({type(error).__name__}).".encode())
            else:
                _write(here / f"{key}.pdf", pdf)
            job.unlink(missing_ok=True)
            _prune(here)


def _age(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return time.time()


def _write(path: Path, data: bytes) -> None:
    part = path.with_suffix(".part")
    part.write_bytes(data)
    os.replace(part, path)


def _prune(here: Path) -> None:
    pdfs = sorted(here.glob("*.pdf"), key=_age)
    for old in pdfs[:-MOST_KEPT]:
        old.unlink(missing_ok=True)


if __name__ == "__main__":
    run(Path(sys.argv[1]))
