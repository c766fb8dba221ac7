"""What each hand recorded

A hand says how it was recorded (``game_round.source``): at the table (buys, laid-down marks and the
dealer), typed from a paper sheet (the dealer from the seating; no buys or laid-down marks) or imported
from a spreadsheet (points only). Each player's game counts the hands that recorded buys and laid-down
marks (``marked_hands``), and times stuck and buys within them; so does each player's kept line. A
player's "most often stuck" is kept only from games every hand of which was marked, so it may be empty.

The hands already here are told apart as the export's import tells those of an older file
(``transfer.checks.inferred_source``): a scored hand with no cards, no buys and everyone marked as laid
down was typed from paper (the paper grid marks everyone down), or came from a spreadsheet when its game
has no change history. Then every family's statistics are counted again, winning streaks counted over
the games each player played.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27 10:00:00.000000

"""
from dataclasses import fields
from itertools import groupby

import sqlalchemy as sa
from alembic import op

from scorekeeper.rules import tallies

# revision identifiers, used by Alembic.
revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('game_round', schema=None) as batch_op:
        batch_op.add_column(sa.Column('source', sa.String(length=10), server_default='table', nullable=False))
    with op.batch_alter_table('player_game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('marked_hands', sa.Integer(), server_default='0', nullable=False))
    with op.batch_alter_table('kept_player', schema=None) as batch_op:
        batch_op.add_column(sa.Column('marked_hands', sa.Integer(), server_default='0', nullable=False))
        for name, kind in (('most_stuck', sa.Integer()), ('most_stuck_on', sa.Date()),
                           ('most_stuck_game', sa.Integer())):
            batch_op.alter_column(name, existing_type=kind, nullable=True)
    _tell_hands_apart()
    _count_marked_hands()
    _count_statistics_again()


def _tell_hands_apart():
    bind = op.get_bind()
    meta = sa.MetaData()
    game_round = sa.Table('game_round', meta, autoload_with=bind)
    result = sa.Table('result', meta, autoload_with=bind)
    round_change = sa.Table('round_change', meta, autoload_with=bind)
    at_the_table = sa.select(result.c.id).where(
        result.c.round_id == game_round.c.id,
        sa.or_(result.c.cards != '', result.c.buys != 0, sa.not_(result.c.laid_down)),
    ).exists()
    changes = sa.select(round_change.c.id).where(round_change.c.game_id == game_round.c.game_id).exists()
    bind.execute(
        game_round.update()
        .where(game_round.c.recorded_at.is_not(None), ~at_the_table)
        .values(source=sa.case((changes, 'paper'), else_='sheet'))
    )


def _count_marked_hands():
    """Each player's game: its marked hands, and times stuck and buys within them."""
    bind = op.get_bind()
    meta = sa.MetaData()
    player_game = sa.Table('player_game', meta, autoload_with=bind)
    game_round = sa.Table('game_round', meta, autoload_with=bind)
    result = sa.Table('result', meta, autoload_with=bind)
    marked = sa.and_(game_round.c.game_id == player_game.c.game_id, game_round.c.recorded_at.is_not(None),
                     game_round.c.source == 'table')
    mine = sa.and_(marked, result.c.round_id == game_round.c.id, result.c.player_id == player_game.c.player_id)
    stuck = sa.and_(mine, sa.not_(result.c.laid_down), sa.not_(result.c.went_out))
    bind.execute(player_game.update().values(
        marked_hands=sa.select(sa.func.count()).where(marked).scalar_subquery(),
        times_stuck=sa.select(sa.func.count()).select_from(result).where(stuck).scalar_subquery(),
        buys=sa.select(sa.func.coalesce(sa.func.sum(result.c.buys), 0)).where(mine).scalar_subquery(),
    ))


KEYS = {"players": ("player_id", "variant_key"), "months": ("player_id", "month", "variant_key"),
        "years": ("player_id", "year", "variant_key"),
        "pairs": ("player_id", "other_id"), "streaks": ("player_id",)}
TABLES = {"players": "kept_player", "months": "kept_month", "years": "kept_year", "pairs": "kept_pair",
          "streaks": "kept_streak"}
MARKS = ("best", "worst", "most_out", "most_stuck")


def _count_statistics_again():
    """Every family's kept statistics, counted from its finished games as the app counts them."""
    bind = op.get_bind()
    meta = sa.MetaData()
    player_game = sa.Table('player_game', meta, autoload_with=bind)
    game = sa.Table('game', meta, autoload_with=bind)
    # Reflected (typed) tables: on SQLite a date is stored as text exactly as the app writes it.
    kept = {name: sa.Table(table, meta, autoload_with=bind) for name, table in TABLES.items()}
    kept_rules = sa.Table('kept_rules', meta, autoload_with=bind)
    for table in [*kept.values(), kept_rules]:
        bind.execute(table.delete())
    columns = [player_game.c[name] for name in tallies.Line._fields]
    rows = bind.execute(
        sa.select(player_game.c.family_id, *columns).where(player_game.c.status == 'finished')
        .order_by(player_game.c.family_id, player_game.c.played_on, player_game.c.game_id, player_game.c.player_id)
    ).all()
    for family_id, family_rows in groupby(rows, lambda r: r[0]):
        counted = tallies.count_history(tallies.Line(*row[1:]) for row in family_rows)
        for name, keys in KEYS.items():
            new = [_columns(family_id, keys, key, tally) for key, tally in getattr(counted, name).items()]
            if new:
                bind.execute(kept[name].insert(), new)
    newest = sa.select(sa.func.max(game.c.id)).group_by(game.c.family_id, game.c.variant_key).scalar_subquery()
    new = [
        {"family_id": family_id, "variant_key": key, "name": str((rules or {}).get("name", key))[:200],
         "newest_game": game_id}
        for game_id, family_id, key, rules in bind.execute(
            sa.select(game.c.id, game.c.family_id, game.c.variant_key, game.c.rules).where(game.c.id.in_(newest))
        )
    ]
    if new:
        bind.execute(kept_rules.insert(), new)


def _columns(family_id, keys, key, tally):
    columns = {"family_id": family_id, **dict(zip(keys, key if len(keys) > 1 else (key,)))}
    for f in fields(tally):
        value = getattr(tally, f.name)
        if f.name in MARKS:
            columns[f.name], columns[f"{f.name}_on"], columns[f"{f.name}_game"] = value or (None, None, None)
        else:
            columns[f.name] = value
    return columns


def downgrade():
    bind = op.get_bind()
    meta = sa.MetaData()
    kept_player = sa.Table('kept_player', meta, autoload_with=bind)
    # Before this revision every kept line had a most-stuck game: its most-hands-won game stands in.
    bind.execute(kept_player.update().where(kept_player.c.most_stuck.is_(None)).values(
        most_stuck=0, most_stuck_on=kept_player.c.most_out_on, most_stuck_game=kept_player.c.most_out_game))
    with op.batch_alter_table('kept_player', schema=None) as batch_op:
        for name, kind in (('most_stuck', sa.Integer()), ('most_stuck_on', sa.Date()),
                           ('most_stuck_game', sa.Integer())):
            batch_op.alter_column(name, existing_type=kind, nullable=False)
        batch_op.drop_column('marked_hands')
    with op.batch_alter_table('player_game', schema=None) as batch_op:
        batch_op.drop_column('marked_hands')
    with op.batch_alter_table('game_round', schema=None) as batch_op:
        batch_op.drop_column('source')
