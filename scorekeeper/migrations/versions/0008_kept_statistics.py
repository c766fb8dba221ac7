"""Kept statistics

Per player and rule set, per player and month or year, per pair of players and per player's streak, and
the names of the rules keys, kept as games are played. The games a database already has are
counted by revision 0010, which adds what the counting reads (which hands recorded buys and
laid-down marks).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24 09:59:19.027637

"""
import sqlalchemy as sa
from alembic import op


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
