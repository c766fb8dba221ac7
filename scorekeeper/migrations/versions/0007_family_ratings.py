"""Family ratings

One row per player per finished game: the player's rating after it. The games already here are
rated in order, family by family.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 07:11:32.663929

"""
from itertools import groupby

import sqlalchemy as sa
from alembic import op

from scorekeeper.rules import ratings


# revision identifiers, used by Alembic.
revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('rating',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('family_id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.Integer(), nullable=False),
    sa.Column('played_at', sa.DateTime(), nullable=False),
    sa.Column('month', sa.String(length=7), nullable=False),
    sa.Column('mu', sa.Double(), nullable=False),
    sa.Column('sigma', sa.Double(), nullable=False),
    sa.Column('shown', sa.Integer(), nullable=False),
    sa.Column('change', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['family_id'], ['family.id'], name=op.f('fk_rating_family_id_family')),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], name=op.f('fk_rating_game_id_game')),
    sa.ForeignKeyConstraint(['player_id'], ['player.id'], name=op.f('fk_rating_player_id_player')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rating')),
    sa.UniqueConstraint('game_id', 'player_id', name=op.f('uq_rating_game_id'))
    )
    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.create_index('ix_rating_family_order', ['family_id', 'played_at', 'game_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_rating_game_id'), ['game_id'], unique=False)
        batch_op.create_index('ix_rating_player_order', ['family_id', 'player_id', 'played_at', 'game_id'], unique=False)
    with op.batch_alter_table('player_game', schema=None) as batch_op:
        batch_op.create_index(
            'ix_player_game_season', ['family_id', 'status', 'played_on', 'variant_key', 'total'], unique=False)
    _rate_finished_games()


def _rate_finished_games():
    player_game = sa.table(
        'player_game', sa.column('family_id'), sa.column('game_id'), sa.column('player_id'), sa.column('total'),
        sa.column('status'),
    )
    game = sa.table('game', sa.column('id'), sa.column('started_at', sa.DateTime()))
    rows = op.get_bind().execute(
        sa.select(player_game.c.family_id, player_game.c.game_id, player_game.c.player_id, player_game.c.total,
                  game.c.started_at)
        .join(game, game.c.id == player_game.c.game_id)
        .where(player_game.c.status == 'finished')
        .order_by(player_game.c.family_id, game.c.started_at, game.c.id, player_game.c.player_id)
    ).all()
    # Typed as the model types them: on SQLite a date is stored as text, and the app compares it
    # as text, so it must be written exactly as the app writes it.
    rating = sa.table(
        'rating', sa.column('family_id', sa.Integer()), sa.column('game_id', sa.Integer()),
        sa.column('player_id', sa.Integer()), sa.column('played_at', sa.DateTime()), sa.column('month', sa.String()),
        sa.column('mu', sa.Double()), sa.column('sigma', sa.Double()), sa.column('shown', sa.Integer()),
        sa.column('change', sa.Integer()),
    )
    for family_id, family_rows in groupby(rows, lambda r: r.family_id):
        family_rows = list(family_rows)
        started = {row.game_id: row.started_at for row in family_rows}
        games = [(gid, [(r.player_id, r.total) for r in seats])
                 for gid, seats in groupby(family_rows, lambda r: r.game_id)]
        new = [
            {"family_id": family_id, "game_id": r.game_id, "player_id": r.player_id,
             "played_at": started[r.game_id], "month": started[r.game_id].strftime("%Y-%m"),
             "mu": r.skill.mu, "sigma": r.skill.sigma, "shown": r.skill.shown, "change": r.change}
            for r in ratings.replay(games)
        ]
        if new:
            op.bulk_insert(rating, new)


def downgrade():
    with op.batch_alter_table('player_game', schema=None) as batch_op:
        batch_op.drop_index('ix_player_game_season')

    with op.batch_alter_table('rating', schema=None) as batch_op:
        batch_op.drop_index('ix_rating_player_order')
        batch_op.drop_index(batch_op.f('ix_rating_game_id'))
        batch_op.drop_index('ix_rating_family_order')

    op.drop_table('rating')
