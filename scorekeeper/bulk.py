"""Thousands of rows written at once (an import, a family's ratings replayed): straight through the
database driver, a ``COPY`` on PostgreSQL and one ``executemany`` on SQLite. SQLAlchemy's own bulk
insert spends seconds of Python per hundred thousand rows, and its multi-row ``INSERT`` on
PostgreSQL costs the driver as long again to parse."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from sqlalchemy import insert, text

from .extensions import db

NEW_IDS = text("SELECT nextval(pg_get_serial_sequence(:table, 'id')::regclass) FROM generate_series(1, :count)")


def insert_rows(table, rows: Iterable[dict]) -> None:
    """Insert plain rows (numbers, text, dates, true/false, JSON: dicts of the same columns) into
    ``table``; the columns left out take their defaults. ``rows`` may be made as they are written:
    on PostgreSQL the server stores them while the next are made."""
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        return
    connection = db.session.connection()
    dialect = connection.dialect
    names = list(first)
    defaulted = [c for c in table.c
                 if c.name not in names and not c.primary_key and c.default is not None and c.default.is_scalar]
    defaults = [c.default.arg for c in defaulted]
    columns = [table.c[name] for name in names] + defaulted
    # Only the columns whose type converts its values (JSON, and dates on SQLite) are touched per row.
    processors = [(i, process) for i, c in enumerate(columns) if (process := c.type._cached_bind_processor(dialect))]
    quoted = ", ".join(dialect.identifier_preparer.quote(c.name) for c in columns)
    into = dialect.identifier_preparer.format_table(table)
    driver = connection.connection.driver_connection

    def values(row: dict) -> list:
        value = [row[name] for name in names] + defaults
        for i, process in processors:
            value[i] = process(value[i])
        return value

    if dialect.name == "postgresql":
        with driver.cursor() as cursor, cursor.copy(f"COPY {into} ({quoted}) FROM STDIN") as copy:
            for row in itertools.chain([first], rows):
                copy.write_row(values(row))
        return
    driver.cursor().executemany(f"INSERT INTO {into} ({quoted}) VALUES ({', '.join('?' * len(columns))})",
                                (tuple(values(row)) for row in itertools.chain([first], rows)))


def insert_returning_ids(model, rows: list[dict]) -> list[int]:
    """Insert ``rows``; their new ids, in the same order. On PostgreSQL the ids are taken from the
    table's sequence in one statement and the rows go in by ``COPY`` with them: a multi-row
    ``INSERT ... RETURNING`` of thousands of rows costs the driver seconds of parsing its text."""
    if not rows:
        return []
    table = model.__table__
    if db.session.connection().dialect.name == "postgresql":
        ids = list(db.session.execute(NEW_IDS, {"table": table.name, "count": len(rows)}).scalars())
        insert_rows(table, ({"id": id_, **row} for id_, row in zip(ids, rows)))
        return ids
    statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
    return list(db.session.execute(statement, rows).scalars())
