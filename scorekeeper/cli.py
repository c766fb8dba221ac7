"""Command line: serving (``hosting.serve``), score sheets, rule cards, export and import, demo games,
recounting, backups."""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from flask.cli import with_appcontext

from . import demo
from .extensions import db
from .families import RuleError, commit_for, sole_family
from .history import kept, ratings
from .history.seasons import Period, parse_period
from .hosting.serve import serve_command
from .house_rules.service import family_variants
from .models import Family, Game
from .printing import documents as printing
from .printing.booklet import booklet_document
from .transfer import checks, export, importing, sheet_import, sheets
from .web.fields import is_number

DEFAULT_COLUMNS = 4  # a blank sheet without --players has room for a usual table
PAPER = click.option("--paper", type=click.Choice(printing.PAPERS), default="letter", show_default=True)
FAMILY = click.option("--family", help="Family name or id (needed when the instance has several).")
OUTPUT = click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path))


def _family(name: str | None) -> Family:
    try:
        return sole_family(name)
    except RuleError as error:
        raise click.ClickException(str(error)) from None


@contextmanager
def _atomic_file(output: Path) -> Iterator[str]:
    """A temporary file beside ``output`` that replaces it when the block ends well, so a
    failure part way never leaves a partial file."""
    folder = output.parent if str(output.parent) else Path(".")
    if not folder.is_dir():
        raise click.ClickException(f"The folder {folder} does not exist.")
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".part")
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, output)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_atomically(chunks, output: Path) -> None:
    """Write ``chunks`` (bytes or text) to ``output`` in one piece."""
    with _atomic_file(output) as tmp, open(tmp, "wb") as handle:
        for chunk in chunks:
            handle.write(chunk.encode() if isinstance(chunk, str) else chunk)


def _write(document: printing.Document, output: Path) -> None:
    """Render the PDF, then write it."""
    try:
        pdf = printing.render(document)
    except printing.NoPdfRenderer as error:
        raise click.ClickException(str(error)) from None
    _write_atomically([pdf], output)
    click.echo(f"Wrote {output} ({document.filename}, {len(pdf):,} bytes).")


@click.command("sheet")
@with_appcontext
@click.option("--variant", help="Preset key for a blank sheet, e.g. shanghai-10.")
@click.option("--players", help='Names, "Ann,Bob,Cy", or a number of players.')
@click.option("--first-dealer", help="Name of the player who deals round 1.")
@click.option("--game", type=int, help="Game id for a filled sheet.")
@PAPER
@OUTPUT
def sheet_command(variant, players, first_dealer, game, paper, output):
    """Print a blank score sheet for a preset, or a filled one for a game."""
    try:
        if (variant is None) == (game is None):
            raise printing.PrintError("Give either --variant KEY (blank sheet) or --game ID (filled sheet).")
        if game is not None:
            if players or first_dealer:
                raise printing.PrintError("--players and --first-dealer go with --variant, not --game.")
            record = db.session.get(Game, game)
            if record is None:
                raise printing.PrintError(f"There is no game {game}.")
            family = db.session.get(Family, record.family_id)
            sheet = printing.filled_sheet(record, family.name)
        else:
            spec = (players or "").strip()
            names: list[str] | int
            if is_number(spec) and len(spec) < 4:
                names = int(spec)
            elif spec:
                names = [n for n in spec.split(",") if n.strip()]
            else:
                names = DEFAULT_COLUMNS
            sheet = printing.blank_sheet(variant, names, first_dealer=first_dealer)
        document = printing.sheet_document(sheet, paper)
    except printing.PrintError as error:
        raise click.ClickException(str(error)) from None
    _write(document, output)


@click.command("rulecard")
@with_appcontext
@click.option("--variant", required=True, help="Preset key, e.g. family-7.")
@PAPER
@OUTPUT
def rulecard_command(variant, paper, output):
    """Print a one-page rule card for a preset."""
    try:
        document = printing.rule_card_document(printing.rule_card(variant), paper)
    except printing.PrintError as error:
        raise click.ClickException(str(error)) from None
    _write(document, output)


def _season(year: str | None, start: str | None, end: str | None) -> Period:
    """The season asked for: ``--year``, or ``--from`` and ``--to`` (days, both included)."""
    if year is not None and start is None and end is None:
        period = parse_period(year.strip())
        if period is None or not year.strip().isdigit():
            raise click.ClickException(f"--year must be a year such as 2026, not '{year}'.")
        return period
    if year is None and start is not None and end is not None:
        period = parse_period(f"{start.strip()}..{end.strip()}")
        if period is None:
            raise click.ClickException(
                f"--from and --to must be dates such as 2026-03-01, the first not after the last, not '{start}' "
                f"and '{end}'."
            )
        return period
    raise click.ClickException("Give either --year YYYY, or both --from and --to (dates such as 2026-03-01).")


@click.command("booklet")
@click.option("--year", help="The season's year, e.g. 2026.")
@click.option("--from", "start", help="First day of a season that is not a calendar year, e.g. 2026-03-01.")
@click.option("--to", "end", help="Last day of that season, e.g. 2026-06-30.")
@FAMILY
@PAPER
@OUTPUT
@with_appcontext
def booklet_command(year, start, end, family, paper, output):
    """Print a season's yearbook: cover, contents, table, charts, records and every finished game's sheet."""
    period = _season(year, start, end)
    family = _family(family)
    began = time.perf_counter()
    try:
        document = booklet_document(family, period, paper)
    except printing.PrintError as error:
        raise click.ClickException(str(error)) from None
    _write(document, output)
    click.echo(f"{period.label}: {document.context['games']} games in {time.perf_counter() - began:.1f} s.")


@click.command("export")
@click.option("--csv", "as_csv", is_flag=True, help="One row per player per round, for spreadsheets.")
@FAMILY
@OUTPUT
@with_appcontext
def export_command(as_csv, family, output):
    """Export the family's whole history as JSON (lossless) or CSV."""
    family = _family(family)
    _write_atomically(export.export_csv(family) if as_csv else export.export_json(family), output)
    click.echo(f"Wrote {output}.")


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@FAMILY
@with_appcontext
def import_command(file, family):
    """Import a JSON export; games already here are skipped."""
    family = _family(family)
    try:
        data = checks.parse(file.read_bytes())
        added, skipped = importing.import_data(family, data)
    except checks.TransferError as error:
        raise click.ClickException(f"Nothing imported: {error}") from None
    click.echo(f"Imported {added} games ({skipped} were already here).")


@click.command("import-sheet")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--rules", "key", required=True, help="The rules the games were played by: a preset key "
              "(family-7, shanghai-rum, shanghai-10, online-11) or a house rules key (house-3).")
@FAMILY
@click.option("--dry-run", is_flag=True, help="Check the sheet and say what an import would do; write nothing.")
@click.option("--as", "names", multiple=True, metavar="NAME=PLAYER", help="A name in the sheet is this player.")
@click.option("--out", "answers", multiple=True, metavar="ROW:ROUND=NAME",
              help="Who went out where the scores do not say, e.g. 14:3=Ann (the game's first row, the round).")
@with_appcontext
def import_sheet_command(file, key, family, dry_run, names, answers):
    """Import past games from a spreadsheet (.xlsx or .csv): one row per player per game."""
    family = _family(family)
    variant = family_variants(family).get(key)
    if variant is None:
        raise click.ClickException(f"No rules '{key}' here; choose one of: {', '.join(family_variants(family))}.")
    try:
        with file.open("rb") as stream:
            cells = sheets.read_cells(stream)
    except checks.TransferError as error:
        raise click.ClickException(f"Nothing imported: {error}") from None
    found = sheet_import.preview(family, cells, variant, _pairs(names, "--as"), _pairs(answers, "--out"))
    sheet = found.sheet
    click.echo(f"{len(sheet.games)} games read as {variant.name}; {found.known_games} already here.")
    if found.unknown:
        click.echo(f"New players: {', '.join(found.unknown)}.")
    for question in sheet.open_questions:
        click.echo(f"Row {question.row}, round {question.number}: who went out? "
                   f"Answer with --out {question.key}=NAME ({' or '.join(question.names)}).", err=True)
    for problem in sheet.problems:
        click.echo(str(problem), err=True)
    if not sheet.ready:
        raise click.ClickException("Nothing imported: the sheet has problems or questions (above).")
    if dry_run:
        click.echo("Nothing written (--dry-run).")
        return
    added, skipped = sheet_import.import_sheet(family, sheet)
    click.echo(f"Imported {added} games ({skipped} were already here).")


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    pairs = {}
    for value in values:
        left, sign, right = value.partition("=")
        if not sign or not left.strip() or not right.strip():
            raise click.BadParameter(f"'{value}' is not LEFT=RIGHT.", param_hint=option)
        pairs[left.strip().casefold() if option == "--as" else left.strip()] = right.strip()
    return pairs


@click.command("seed-demo")
@click.option("--games", type=click.IntRange(1, 100_000), default=50, show_default=True)
@click.option("--seed", type=int, help="The same seed gives games with the same content.")
@FAMILY
@with_appcontext
def seed_demo_command(games, seed, family):
    """Fill the family with realistic finished demo games across all presets."""
    added = demo.seed_demo(_family(family), games, seed=seed)
    click.echo(f"Added {added} demo games.")


@click.command("recount")
@FAMILY
@with_appcontext
def recount_command(family):
    """Count every family's statistics and ratings again from its games (one family with --family)."""
    chosen = [_family(family)] if family else db.session.execute(db.select(Family).order_by(Family.id)).scalars().all()
    for one in chosen:
        kept.rebuild(one.id)
        ratings.rebuild(one.id)
        commit_for(one.id)  # pages drawn from the old figures are drawn again
        click.echo(f"Counted {one.name} again.")


@click.command("backup")
@OUTPUT
@with_appcontext
def backup_command(output):
    """Copy the whole SQLite database to FILE while the app keeps serving."""
    engine = db.engine
    if engine.dialect.name != "sqlite":
        raise click.ClickException(
            "This database is not SQLite: back it up with pg_dump, e.g. "
            "pg_dump --format=custom --file=scorekeeper.dump DATABASE_URL (see docs/hosting.md)."
        )
    if output.exists() and os.path.samefile(output, engine.url.database):
        raise click.ClickException(f"{output} is the database itself; write the backup to another file.")
    with _atomic_file(output) as tmp:
        # SQLite's online backup copies a consistent snapshot page by page; writers carry on.
        target = sqlite3.connect(tmp)
        raw = engine.raw_connection()
        try:
            raw.driver_connection.backup(target)
        finally:
            raw.close()
            target.close()
    click.echo(f"Wrote {output} ({output.stat().st_size:,} bytes).")


def init_app(app) -> None:
    for command in (serve_command, sheet_command, rulecard_command, booklet_command, export_command, import_command,
                    import_sheet_command, seed_demo_command, recount_command, backup_command):
        app.cli.add_command(command)
