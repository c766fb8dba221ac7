"""Schema migrations: a database filled at the first revision (or made before migrations existed)
comes up to the newest one with every row intact and its games shown as before; the models match
the migrations; downgrades work; several servers starting at once upgrade once; a new instance
starts at the newest revision.

Each test runs on SQLite and, when ``SCOREKEEPER_TEST_DATABASE_URL`` is set, on PostgreSQL too.
The first-revision rows are written with plain SQL against the tables as migration 0001 made them,
never through the models, so they stay what an old database holds whatever the models become.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import ClassVar

import flask_migrate
import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from scorekeeper import create_app, rules, upgrade
from scorekeeper.extensions import db
from scorekeeper.games.hands import undo_last_round
from scorekeeper.history import kept, ratings
from scorekeeper.models import Family, Game, PlayerGame, Rating, RoundChange
from tests import databases
from tests.actions import GameActions
from tests.databases import POSTGRES_URL, TEST_CONFIG, TEST_USERNAME, add_member, drop_app, make_app, strict_client
from tests.pages import input_value, score_url, text_of

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
FIRST = "0001"  # revision id in scorekeeper/migrations/versions/0001_*.py


def head() -> str:
    return upgrade.head_revision()


# -- empty databases on each backend ----------------------------------------------------------

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.skipif(
        not POSTGRES_URL, reason="PostgreSQL: set SCOREKEEPER_TEST_DATABASE_URL")),
]


@pytest.fixture(params=BACKENDS)
def empty_url(request, tmp_path):
    """The URL of a new, empty database (no tables at all)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.sqlite'}"
        return
    with databases.empty_postgres_database("scorekeeper_m") as url:
        yield url


def unmigrated_app(url: str):
    """An app on ``url`` that leaves the schema alone at start."""
    return make_app(database_url=url, UPGRADE_ON_START=False)


def migrate_to(app, revision: str) -> None:
    with app.app_context():
        flask_migrate.upgrade(directory=upgrade.MIGRATIONS, revision=revision)


def versions(app) -> list[str]:
    """The rows of ``alembic_version`` (exactly one once migrated)."""
    with app.app_context():
        return [v for v, in db.session.execute(sa.text("SELECT version_num FROM alembic_version"))]


def table_names(app) -> set[str]:
    with app.app_context():
        return set(sa.inspect(db.engine).get_table_names())


# -- the tables as migration 0001 made them ---------------------------------------------------


def _table(table_name: str, /, **columns) -> sa.TableClause:
    return sa.table(table_name, *(sa.column(column, type_) for column, type_ in columns.items()))


Int, Str, When, Day, Flag = sa.Integer(), sa.String(), sa.DateTime(), sa.Date(), sa.Boolean()
FIRST_TABLES = {
    t.name: t for t in (
        _table("family", id=Int, name=Str, created_at=When, version=Int),
        _table("player", id=Int, family_id=Int, name=Str, created_at=When),
        _table("game", id=Int, uid=Str, family_id=Int, variant_key=Str, rules=sa.JSON(),
               skip_first_hand=Flag, first_dealer=Int, status=Str, started_at=When, finished_at=When),
        _table("seat", id=Int, game_id=Int, player_id=Int, position=Int),
        _table("game_round", id=Int, game_id=Int, position=Int, number=Int, dealer=Int,
               recorded_at=When, version=Int),
        _table("result", id=Int, round_id=Int, player_id=Int, position=Int, buys=Int, laid_down=Flag,
               went_out=Flag, cards=Str, hand_total=Int, bonus_code=Str, bonus=Int, points=Int),
        _table("player_game", id=Int, family_id=Int, game_id=Int, player_id=Int, variant_key=Str,
               status=Str, played_on=Day, month=Str, hands_played=Int, total=Int, won=Flag,
               hands_won=Int, times_stuck=Int, buys=Int),
    )
}
NEW_IN_0002 = {"member", "invite", "sign_in_failure", "round_change"}


def head_tables() -> set[str]:
    """The tables of the newest revision: one per model, and Alembic's version table."""
    return set(db.metadata.tables) | {"alembic_version"}

T0 = datetime(2025, 11, 1, 19, 30, 5)
FAMILY_7 = rules.get_variant("family-7")


class FirstSchemaData:
    """Two families, five players, a game in progress (3 of 6 hands scored) and a finished one,
    written at revision 0001 with every row kept for comparison."""

    # The game in progress, family-7 without hand 1, Bob deals first. Points by the family-7
    # table: 2-9 = 5, 10-K = 10, A = 15, joker = 20.
    #   (number, went out, {name: (cards, hand total, points, buys)})
    PLAYED: ClassVar = (
        (2, "Ann", {"Bob": ("5 K K", None, 25, 1), "Cy": ("9 10 A JK", None, 50, 2), "Di": ("2 3", None, 10, 0)}),
        (3, "Bob", {"Ann": ("Q", None, 10, 0), "Cy": ("", 42, 42, 1), "Di": ("7 JK JK", None, 45, 0)}),
        (4, "Cy", {"Ann": ("A", None, 15, 0), "Bob": ("2 3 4", None, 15, 3), "Di": ("10", None, 10, 1)}),
    )
    TOTALS: ClassVar = {"Ann": 25, "Bob": 40, "Cy": 92, "Di": 65}  # after hands 2-4

    def __init__(self, connection):
        self.connection = connection
        self.rows: dict[str, list[dict]] = {name: [] for name in FIRST_TABLES}
        self._fill()

    def _insert(self, table: str, **values) -> int:
        """One row through plain SQL; the database numbers it, as the old app let it."""
        t = FIRST_TABLES[table]
        new_id = self.connection.execute(sa.insert(t).values(**values).returning(t.c.id)).scalar_one()
        self.rows[table].append({"id": new_id, **values})
        return new_id

    def _fill(self) -> None:
        lees = self._insert("family", name="The Lees", created_at=T0 - timedelta(days=40), version=9)
        other = self._insert("family", name="Next door", created_at=T0 - timedelta(days=3), version=0)
        self.family_id = lees
        self.players = {
            name: self._insert("player", family_id=lees, name=name, created_at=T0 - timedelta(days=40, minutes=i))
            for i, name in enumerate(["Ann", "Bob", "Cy", "Di"])
        }
        self._insert("player", family_id=other, name="Eve", created_at=T0 - timedelta(days=3))
        self.game_in_progress = self._game_in_progress(lees)
        self.finished_game, self.finished_totals = self._finished_game(lees)

    def _start(self, family: int, uid: str, names: list[str], skip: bool, first_dealer: int, status: str,
               started: datetime, finished: datetime | None) -> tuple[int, list[tuple[int, int]]]:
        game = self._insert("game", uid=uid, family_id=family, variant_key=FAMILY_7.key, rules=FAMILY_7.to_dict(),
                            skip_first_hand=skip, first_dealer=first_dealer, status=status, started_at=started,
                            finished_at=finished)
        for position, name in enumerate(names):
            self._insert("seat", game_id=game, player_id=self.players[name], position=position)
        return game, rules.schedule(FAMILY_7.hand_numbers(skip), first_dealer, len(names))

    def _round(self, game: int, position: int, number: int, dealer: int, names: list[str],
               recorded: datetime | None, hands: dict[str, tuple] | None, went_out: str | None) -> None:
        round_id = self._insert("game_round", game_id=game, position=position, number=number, dealer=dealer,
                                recorded_at=recorded, version=2 if recorded else 1)
        for seat, name in enumerate(names):
            cards, total, points, buys = (hands or {}).get(name, ("", None, 0, 0))
            self._insert("result", round_id=round_id, player_id=self.players[name], position=seat, buys=buys,
                         laid_down=name == went_out or (recorded is not None and points < 20),
                         went_out=name == went_out, cards=cards, hand_total=total, bonus_code="", bonus=0,
                         points=points)

    def _summary(self, game: int, names: list[str], status: str, hands: list[tuple[str, dict]],
                 won: set[str]) -> None:
        for name in names:
            mine = [(out, h.get(name, ("", None, 0, 0))) for out, h in hands]
            self._insert("player_game", family_id=self.family_id, game_id=game, player_id=self.players[name],
                         variant_key=FAMILY_7.key, status=status, played_on=T0.date(), month=T0.strftime("%Y-%m"),
                         hands_played=len(hands), total=sum(h[2] for _, h in mine), won=name in won,
                         hands_won=sum(out == name for out, _ in mine),
                         times_stuck=sum(out != name and h[2] >= 20 for out, h in mine),
                         buys=sum(h[3] for _, h in mine))

    def _game_in_progress(self, family: int) -> int:
        names = ["Ann", "Bob", "Cy", "Di"]
        game, schedule = self._start(family, "6f1c2d3e4a5b46c7a8b9c0d1e2f30405", names, True, 1, "in_progress",
                                     T0, None)
        played = {number: (out, hands) for number, out, hands in self.PLAYED}
        for position, (number, dealer) in enumerate(schedule):
            out, hands = played.get(number, (None, None))
            recorded = T0 + timedelta(minutes=12 * (position + 1)) if number in played else None
            self._round(game, position, number, dealer, names, recorded, hands, out)
        self._summary(game, names, "in_progress", [(out, h) for _, out, h in self.PLAYED], won=set())
        return game

    def _finished_game(self, family: int) -> tuple[int, dict[str, int]]:
        """Seven hands for three players, all scored a week earlier: Cy wins."""
        names = ["Ann", "Bob", "Cy"]
        started = T0 - timedelta(days=7)
        finished = started + timedelta(hours=2)
        game, schedule = self._start(family, "0a1b2c3d4e5f40718293a4b5c6d7e8f9", names, False, 2, "finished",
                                     started, finished)
        hands = []
        for position, (number, dealer) in enumerate(schedule):
            out = names[(position + 2) % 3]
            others = {name: ("", 5 * (position + 1) + 10 * seat, 5 * (position + 1) + 10 * seat, position % 2)
                      for seat, name in enumerate(names) if name != out}
            hands.append((out, others))
            self._round(game, position, number, dealer, names, started + timedelta(minutes=15 * (position + 1)),
                        others, out)
        totals = {name: sum(h.get(name, (0, 0, 0))[2] for _, h in hands) for name in names}
        winner = min(totals, key=totals.get)
        assert sum(t == totals[winner] for t in totals.values()) == 1, "the made-up game needs one winner"
        self._summary(game, names, "finished", hands, won={winner})
        return game, totals


ADDED_COLUMNS = {"family": {"stats_version"},  # 0008
                 "game_round": {"source"}, "player_game": {"marked_hands"}}  # 0010


def fill_first_revision(app) -> FirstSchemaData:
    with app.app_context(), db.engine.begin() as connection:
        return FirstSchemaData(connection)


def assert_rows_intact(app, data: FirstSchemaData) -> None:
    """Every row written at 0001 is still there, unchanged, and nothing was added to those tables;
    the tables keep exactly the columns 0001 gave them, and the ones later migrations added."""
    with app.app_context(), db.engine.connect() as connection:
        inspector = sa.inspect(connection)
        for name, table in FIRST_TABLES.items():
            columns = set(table.c.keys()) | ADDED_COLUMNS.get(name, set())
            assert {c["name"] for c in inspector.get_columns(name)} == columns, name
            stored = [dict(row) for row in connection.execute(sa.select(table).order_by(table.c.id)).mappings()]
            assert stored == sorted(data.rows[name], key=lambda r: r["id"]), f"rows of {name}"


def standings_totals(page) -> list[int]:
    tfoot = re.search(r"<tfoot>(.*?)</tfoot>", page.get_data(as_text=True), flags=re.DOTALL)
    assert tfoot, text_of(page)[:300]
    return [int(n) for n in re.findall(r"<b>(-?\d+)</b>", tfoot.group(1))]


def assert_app_shows_the_games(app, data: FirstSchemaData) -> None:
    """A member who joins the old family after the upgrade sees both games as they were, can edit
    an old hand's cards, and can play on (which writes the new change history)."""
    add_member(app, "The Lees", TEST_USERNAME)
    client = strict_client(app)
    actions = GameActions(client, app)
    game = data.game_in_progress

    page = client.get(f"/games/{game}/standings")
    assert page.status_code == 200, text_of(page)
    assert standings_totals(page) == list(data.TOTALS.values())
    assert "Leading after 3 of 6: Ann (25)" in text_of(page)

    round_screen = text_of(client.get(f"/games/{game}"))
    assert "Round 5 of" in round_screen and "Dealer Ann" in round_screen  # Bob, Cy, Di, then Ann deals

    ids = data.players
    edit = client.get(score_url(game, 2))
    assert edit.status_code == 200, text_of(edit)
    assert input_value(edit, f"p{ids['Bob']}-k_K") == "2" and input_value(edit, f"p{ids['Bob']}-k_5") == "1"
    assert input_value(edit, f"p{ids['Bob']}-buys") == "1"
    counted = client.get(score_url(game, 3))
    assert counted.status_code == 200, text_of(counted)
    assert input_value(counted, f"p{ids['Cy']}-total") == "42"

    finished = client.get(f"/games/{data.finished_game}/standings")
    assert finished.status_code == 200, text_of(finished)
    totals = data.finished_totals
    winner = min(totals, key=totals.get)
    assert standings_totals(finished) == list(totals.values())
    assert f"{winner} wins" in text_of(finished)
    assert f"with {totals[winner]} points, the lowest total after 7 rounds" in text_of(finished)

    # Play on: hand 5 goes to the old summary rows and to the new change history.
    actions.record(actions.player_ids(game), game, 5, "Di", {"Ann": "K", "Bob": "5", "Cy": 30})
    assert actions.stored_points(game)[5] == {"Ann": 10, "Bob": 5, "Cy": 30, "Di": 0}
    assert standings_totals(client.get(f"/games/{game}/standings")) == [35, 45, 122, 65]
    with app.app_context():
        summary = {row.player_id: row for row in db.session.execute(
            db.select(PlayerGame).where(PlayerGame.game_id == game)).scalars()}
        changes = db.session.execute(db.select(RoundChange).where(RoundChange.game_id == game)).scalars().all()
    assert sorted(summary) == sorted(ids.values())  # the 0001 rows were updated, none added
    assert (summary[ids["Ann"]].total, summary[ids["Ann"]].hands_played) == (35, 4)
    assert [(c.number, c.action, c.by, c.points) for c in changes] == [
        (5, "recorded", TEST_USERNAME, {"before": None, "after": [10, 5, 30, 0]})]

    # New rows next to the old ones: a new game with a scored hand.
    fresh = actions.new_game("family-7", ["Fay", "Gus", "Hal"], first_dealer="Fay")
    actions.record(actions.player_ids(fresh), fresh, 1, "Gus", {"Fay": "Q", "Hal": "2"})
    assert actions.stored_points(fresh) == {1: {"Fay": 10, "Gus": 0, "Hal": 5}}



def rating_rows() -> list[tuple]:
    return [tuple(row) for row in db.session.execute(
        sa.select(Rating.game_id, Rating.player_id, Rating.shown, Rating.change, Rating.month)
        .order_by(Rating.game_id, Rating.player_id)
    )]


# -- 1. a database filled at the first revision comes up to the newest one ----------------------


@pytest.mark.parametrize("legacy", [False, True], ids=["at-0001", "legacy-unversioned"])
def test_database_filled_at_first_revision_upgrades_with_its_data(empty_url, legacy):
    old = unmigrated_app(empty_url)
    migrate_to(old, FIRST)
    assert versions(old) == [FIRST]
    assert table_names(old) == set(FIRST_TABLES) | {"alembic_version"}
    data = fill_first_revision(old)
    if legacy:
        # Made before migrations existed: the same tables and no version table at all.
        with old.app_context(), db.engine.begin() as connection:
            connection.execute(sa.text("DROP TABLE alembic_version"))
        assert "alembic_version" not in table_names(old)
    drop_app(old)

    app = make_app(database_url=empty_url)  # an ordinary start: upgrades what it finds

    assert versions(app) == [head()]
    assert table_names(app) == head_tables()
    assert schema_differences(app, db.metadata) == []  # the upgraded schema is the models' schema
    assert_rows_intact(app, data)
    with app.app_context():
        counted = head_tables() - set(FIRST_TABLES) - {"alembic_version", "rating", *KEPT_TABLES}
        for name in counted:
            assert db.session.execute(sa.text(f"SELECT COUNT(*) FROM {name}")).scalar_one() == 0, name
        # The finished game is rated by the upgrade, exactly as the app rates it.
        upgraded = rating_rows()
        assert len(upgraded) == len(data.finished_totals) and any(row[3] for row in upgraded)
        for family_id in db.session.execute(sa.select(Family.id)).scalars():
            ratings.rebuild(family_id)
        assert rating_rows() == upgraded
        # The statistics counted by the upgrade are the ones the app keeps.
        counted_by_upgrade = kept_rows()
        assert counted_by_upgrade["kept_player"] and counted_by_upgrade["kept_rules"]
        for family_id in db.session.execute(sa.select(Family.id)).scalars():
            kept.rebuild(family_id)
        assert kept_rows() == counted_by_upgrade
    assert_app_shows_the_games(app, data)

    # A second start finds nothing to do and changes nothing.
    drop_app(app)
    again = make_app(database_url=empty_url)
    with again.app_context():
        assert upgrade.upgrade_database() is False
    assert versions(again) == [head()]
    assert GameActions(app=again).stored_points(data.game_in_progress)[5] == {"Ann": 10, "Bob": 5, "Cy": 30, "Di": 0}
    # The ratings the upgrade wrote are written exactly as the app writes them: taking the
    # finished game's last hand back drops them (on SQLite, a date written another way would
    # not compare equal, and they would stay).
    with again.app_context():
        undo_last_round(db.session.get(Game, data.finished_game), by="test")
        assert [row for row in rating_rows() if row[0] == data.finished_game] == []


KEPT_TABLES = ("kept_player", "kept_month", "kept_year", "kept_pair", "kept_streak", "kept_rules")


def kept_rows() -> dict[str, list[tuple]]:
    """Every kept statistics row, without its id, in a fixed order."""
    return {
        name: sorted(tuple(row)[1:] for row in db.session.execute(sa.text(f"SELECT * FROM {name}")))
        for name in KEPT_TABLES
    }


# -- 2. the models match the migrations ---------------------------------------------------------


def schema_differences(app, metadata: sa.MetaData) -> list:
    with app.app_context(), db.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, metadata)


def test_models_match_the_migrations(empty_url):
    app = make_app(database_url=empty_url)  # every migration, from nothing
    assert versions(app) == [head()]

    assert schema_differences(app, db.metadata) == [], (
        "the models differ from the migrations: add one with `flask --app scorekeeper db migrate -m ...`"
    )

    # The comparison does notice a model change that has no migration.
    changed = sa.MetaData(naming_convention=db.metadata.naming_convention)
    for table in db.metadata.sorted_tables:
        table.to_metadata(changed)
    changed.tables["player"].append_column(sa.Column("nickname", sa.String(40), nullable=True))
    changed.tables["game"].c.variant_key.type = sa.String(80)
    found = {(d[0], d[3]) if d[0] == "add_column" else d[0][0] for d in schema_differences(app, changed)}
    assert ("add_column", changed.tables["player"].c.nickname) in found
    assert "modify_type" in found


def test_no_index_repeats_what_another_one_leads_with_and_a_games_rows_are_still_found_through_one(app):
    for table in db.metadata.sorted_tables:
        leads = [tuple(c.name for c in index.columns) for index in table.indexes] + [
            tuple(c.name for c in constraint.columns) for constraint in table.constraints
            if isinstance(constraint, sa.UniqueConstraint)]
        for index in table.indexes:
            own = tuple(c.name for c in index.columns)
            assert not any(other != own and other[:len(own)] == own for other in leads), (table.name, own)
    if POSTGRES_URL:
        return  # the plans below are SQLite's
    with app.app_context():
        for lookup in ("game_round WHERE game_id = 1", "seat WHERE game_id = 1", "result WHERE round_id = 1",
                       "player_game WHERE game_id = 1", "rating WHERE game_id = 1", "player WHERE family_id = 1",
                       "game WHERE family_id = 1", "house_rules WHERE family_id = 1"):
            plan = " ".join(row[-1] for row in db.session.execute(sa.text(f"EXPLAIN QUERY PLAN SELECT * FROM {lookup}")))
            assert "USING INDEX" in plan or "USING COVERING INDEX" in plan, (lookup, plan)


# -- 3. downgrades --------------------------------------------------------------------------------


def test_downgrade_to_first_revision_and_back(empty_url):
    app = unmigrated_app(empty_url)
    migrate_to(app, "head")
    everything = head_tables()
    assert set(FIRST_TABLES) | NEW_IN_0002 <= everything
    assert table_names(app) == everything

    with app.app_context():
        flask_migrate.downgrade(directory=upgrade.MIGRATIONS, revision=FIRST)
    assert versions(app) == [FIRST]
    assert table_names(app) == set(FIRST_TABLES) | {"alembic_version"}

    migrate_to(app, "head")
    assert versions(app) == [head()]
    assert table_names(app) == everything
    assert schema_differences(app, db.metadata) == []

    with app.app_context():
        flask_migrate.downgrade(directory=upgrade.MIGRATIONS, revision="base")
    assert versions(app) == []
    assert table_names(app) == {"alembic_version"}

    # Back to the newest once more, and the app works on it.
    drop_app(app)
    app = make_app(database_url=empty_url)
    assert versions(app) == [head()]
    add_member(app, "Round trip", TEST_USERNAME)
    client = strict_client(app)
    actions = GameActions(client, app)
    game = actions.new_game("family-7", ["Ann", "Bob", "Cy"], first_dealer="Ann")
    actions.record(actions.player_ids(game), game, 1, "Bob", {"Ann": "K", "Cy": "A"})
    assert actions.stored_points(game) == {1: {"Ann": 10, "Bob": 0, "Cy": 15}}


def test_0010_tells_the_hands_of_paper_and_spreadsheets_apart_in_a_database_that_did_not(empty_url):
    """Games at the table, from paper and from a spreadsheet, then back to 0009 (where hands do not
    say how they were recorded) and up again: each hand is told apart as before, and the kept
    statistics are counted again as the app counts them (streaks over the games each played)."""
    from tests.test_paper_game import FAMILY_7_OUT, FAMILY_7_SHEET, fill_grid, start_paper_game
    from tests.test_sheet_import import confirm, two_games_workbook, upload

    app = make_app(database_url=empty_url)
    add_member(app, "The Lees", TEST_USERNAME)
    client = strict_client(app)
    actions = GameActions(client, app)
    table = actions.new_game("family-7", ["Ann", "Bob", "Cy", "Di"], first_dealer="Ann")
    for number in range(1, 8):
        actions.record(actions.player_ids(table), table, number, "Ann", {"Bob": "K", "Cy": "5", "Di": "5"},
                                   laid_down=["Bob"], buys={"Cy": 1})
    paper = start_paper_game(client, "family-7", ["Ann", "Bob", "Cy", "Di"])
    assert fill_grid(client, app, paper, FAMILY_7_SHEET, FAMILY_7_OUT).status_code == 302
    assert confirm(client, upload(client, two_games_workbook())).status_code == 302
    with app.app_context():
        sources = _sources()
        summaries = _summaries()
        counted = kept_rows()
    assert set(sources.values()) == {("table",) * 7, ("paper",) * 7, ("sheet",) * 7}

    with app.app_context():
        flask_migrate.downgrade(directory=upgrade.MIGRATIONS, revision="0009")
    migrate_to(app, "head")
    with app.app_context():
        assert _sources() == sources and _summaries() == summaries
        assert kept_rows() == counted
        for family_id in db.session.execute(sa.select(Family.id)).scalars():
            kept.rebuild(family_id)
        assert kept_rows() == counted


def _sources() -> dict[int, tuple[str, ...]]:
    rows = db.session.execute(sa.text("SELECT game_id, source FROM game_round ORDER BY game_id, position"))
    found: dict[int, tuple[str, ...]] = {}
    for game_id, source in rows:
        found[game_id] = (*found.get(game_id, ()), source)
    return found


def _summaries() -> list[tuple]:
    return [tuple(row) for row in db.session.execute(sa.text(
        "SELECT game_id, player_id, times_stuck, buys, marked_hands FROM player_game ORDER BY game_id, player_id"))]


# -- 4. several servers starting at once ----------------------------------------------------------

STARTER = r"""
import logging, sys, time
from pathlib import Path
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
from scorekeeper import create_app
ready, go, url = sys.argv[1:4]
Path(ready).touch()
deadline = time.monotonic() + 120
while not Path(go).exists():
    if time.monotonic() > deadline:
        sys.exit("never told to start")
    time.sleep(0.002)
create_app({"TESTING": True, "SECRET_KEY": "test", "SQLALCHEMY_DATABASE_URI": url})
print("started")
"""


def test_servers_starting_at_once_upgrade_once(empty_url, tmp_path):
    """Four worker processes start together on a new database: all start, the migrations run once."""
    workers = 4
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SCOREKEEPER_INSTANCE_PATH": str(tmp_path / "instance")}
    processes = [
        subprocess.Popen([sys.executable, "-c", STARTER, str(tmp_path / f"ready-{i}"), str(go), empty_url],
                         cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(workers)
    ]
    try:
        deadline = time.monotonic() + 120
        while not all((tmp_path / f"ready-{i}").exists() for i in range(workers)):
            assert all(p.poll() is None for p in processes), [p.communicate() for p in processes]
            assert time.monotonic() < deadline, "the workers never got ready"
            time.sleep(0.01)
        go.touch()  # all at once
        outcomes = [p.communicate(timeout=120) for p in processes]
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()
                p.wait()

    for p, (out, err) in zip(processes, outcomes):
        assert p.returncode == 0 and out.strip() == "started", err[-3000:]
    logs = "".join(err for _, err in outcomes)
    assert logs.count(f"Running upgrade  -> {FIRST}") == 1, logs[-3000:]
    assert logs.count(f"Running upgrade {FIRST} -> ") == 1, logs[-3000:]

    app = make_app(database_url=empty_url)
    assert versions(app) == [head()]
    assert schema_differences(app, db.metadata) == []


# -- 5. a brand-new instance ------------------------------------------------------------------------


def test_new_instance_creates_its_database_at_the_newest_revision(tmp_path, monkeypatch):
    """No database yet (the default SQLite file in a new instance folder): the first start makes
    it, at the newest revision, ready for a family to play."""
    instance = tmp_path / "new-instance"
    monkeypatch.setenv("SCOREKEEPER_INSTANCE_PATH", str(instance))
    database = instance / "scorekeeper.sqlite"
    assert not instance.exists()

    app = create_app(dict(TEST_CONFIG))
    try:
        assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{database}"
        assert database.is_file()
        assert versions(app) == [head()]
        assert table_names(app) == head_tables()
        with app.app_context():
            assert db.session.execute(sa.text("PRAGMA journal_mode")).scalar_one() == "wal"

        add_member(app, "Newcomers", TEST_USERNAME)
        actions = GameActions(strict_client(app), app)
        game = actions.new_game("shanghai-10", ["Ann", "Bob", "Cy"], first_dealer="Cy")
        actions.record(actions.player_ids(game), game, 1, "Ann", {"Bob": "K", "Cy": "5 5"})
        assert actions.stored_points(game) == {1: {"Ann": 0, "Bob": 10, "Cy": 10}}
    finally:
        drop_app(app)

    # And starts again on it without migrating anything.
    again = create_app(dict(TEST_CONFIG))
    try:
        with again.app_context():
            assert upgrade.upgrade_database() is False
        assert versions(again) == [head()]
    finally:
        drop_app(again)
