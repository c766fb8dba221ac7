"""Kept statistics

Per player and rule set, per player and month or year, per pair of players and per player's streak, and
the names of the rules keys: counted here from the games a database already has, and kept as
games are played from then on.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24 09:59:19.027637

"""
from dataclasses import fields
from itertools import groupby

import sqlalchemy as sa
from alembic import op

from scorekeeper.rules import tallies

# revision identifiers, used by Alembic.
revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('kept_rules',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('family_id', sa.Integer(), nullable=False),
    sa.Column('variant_key', sa.String(length=40), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('newest_game', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['family_id'], ['family.id'], name=op.f('fk_kept_rules_family_id_family')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kept_rules')),
    sa.UniqueConstraint('family_id', 'variant_key', name=op.f('uq_kept_rules_family_id'))
    )
    op.create_table('kept_month',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('family_id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('month', sa.String(length=7), nullable=False),
    sa.Column('variant_key', sa.String(length=40), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('points', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['family_id'], ['family.id'], name=op.f('fk_kept_month_family_id_family')),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], name=op.f('fk_kept_month_player_id_player')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kept_month')),
    sa.UniqueConstraint('family_id', 'player_id', 'month', 'variant_key', name=op.f('uq_kept_month_family_id'))
    )
    op.create_table('kept_year',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('family_id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('year', sa.String(length=4), nullable=False),
    sa.Column('variant_key', sa.String(length=40), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('points', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['family_id'], ['family.id'], name=op.f('fk_kept_year_family_id_family')),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], name=op.f('fk_kept_year_player_id_player')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kept_year')),
    sa.UniqueConstraint('family_id', 'player_id', 'year', 'variant_key', name=op.f('uq_kept_year_family_id'))
    )
    op.create_table('kept_pair',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('family_id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('other_id', sa.Integer(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('lower', sa.Integer(), nullable=False),
    sa.Column('higher', sa.Integer(), nullable=False),
    sa.Column('level', sa.Integer(), nullable=False),
    sa.Column('wins', sa.Integer(), nullable=False),
    sa.Column('other_wins', sa.Integer(), nullable=False),
    sa.Column('points', sa.Integer(), nullable=False),
    sa.Column('other_points', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['family_id'], ['family.id'], name=op.f('fk_kept_pair_family_id_family')),
    sa.ForeignKeyConstraint(['other_id'], ['player.id'], name=op.f('fk_kept_pair_other_id_player')),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], name=op.f('fk_kept_pair_player_id_player')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kept_pair')),
    sa.UniqueConstraint('family_id', 'player_id', 'other_id', name=op.f('uq_kept_pair_family_id'))
    )
    op.create_table('kept_player',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('family_id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('variant_key', sa.String(length=40), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('wins', sa.Integer(), nullable=False),
    sa.Column('points', sa.Integer(), nullable=False),
    sa.Column('hands', sa.Integer(), nullable=False),
    sa.Column('hands_won', sa.Integer(), nullable=False),
    sa.Column('times_stuck', sa.Integer(), nullable=False),
    sa.Column('buys', sa.Integer(), nullable=False),
    sa.Column('best', sa.Integer(), nullable=False),
    sa.Column('best_on', sa.Date(), nullable=False),
    sa.Column('best_game', sa.Integer(), nullable=False),
    sa.Column('worst', sa.Integer(), nullable=False),
    sa.Column('worst_on', sa.Date(), nullable=False),
    sa.Column('worst_game', sa.Integer(), nullable=False),
    sa.Column('most_out', sa.Integer(), nullable=False),
    sa.Column('most_out_on', sa.Date(), nullable=False),
    sa.Column('most_out_game', sa.Integer(), nullable=False),
    sa.Column('most_stuck', sa.Integer(), nullable=False),
    sa.Column('most_stuck_on', sa.Date(), nullable=False),
    sa.Column('most_stuck_game', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['family_id'], ['family.id'], name=op.f('fk_kept_player_family_id_family')),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], name=op.f('fk_kept_player_player_id_player')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kept_player')),
    sa.UniqueConstraint('family_id', 'player_id', 'variant_key', name=op.f('uq_kept_player_family_id'))
    )
    op.create_table('kept_streak',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('family_id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('current', sa.Integer(), nullable=False),
    sa.Column('longest', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['family_id'], ['family.id'], name=op.f('fk_kept_streak_family_id_family')),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], name=op.f('fk_kept_streak_player_id_player')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kept_streak')),
    sa.UniqueConstraint('family_id', 'player_id', name=op.f('uq_kept_streak_family_id'))
    )
    with op.batch_alter_table('family', schema=None) as batch_op:
        batch_op.add_column(sa.Column('stats_version', sa.Integer(), server_default='0', nullable=False))
    _count_existing_games()


KEYS = {"players": ("player_id", "variant_key"), "months": ("player_id", "month", "variant_key"),
        "years": ("player_id", "year", "variant_key"),
        "pairs": ("player_id", "other_id"), "streaks": ("player_id",)}
TABLES = {"players": "kept_player", "months": "kept_month", "years": "kept_year", "pairs": "kept_pair",
          "streaks": "kept_streak"}
MARKS = ("best", "worst", "most_out", "most_stuck")


def _count_existing_games():
    bind = op.get_bind()
    meta = sa.MetaData()
    player_game = sa.Table('player_game', meta, autoload_with=bind)
    game = sa.Table('game', meta, autoload_with=bind)
    # Reflected (typed) tables: on SQLite a date is stored as text exactly as the app writes it.
    kept = {name: sa.Table(table, meta, autoload_with=bind) for name, table in TABLES.items()}
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
    kept_rules = sa.Table('kept_rules', meta, autoload_with=bind)
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
            columns[f.name], columns[f"{f.name}_on"], columns[f"{f.name}_game"] = value
        else:
            columns[f.name] = value
    return columns


def downgrade():
    with op.batch_alter_table('family', schema=None) as batch_op:
        batch_op.drop_column('stats_version')
    op.drop_table('kept_streak')
    op.drop_table('kept_player')
    op.drop_table('kept_pair')
    op.drop_table('kept_year')
    op.drop_table('kept_month')
    op.drop_table('kept_rules')
    # ### end Alembic commands ###
