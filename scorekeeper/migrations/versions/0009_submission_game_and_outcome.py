"""Submission game and outcome

A phone's queued action is stored with the game it changed and what it did to the round's version,
so the same action sent again answers as the first time did, and a phone that sees its own action
in a game's state does not count it twice.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26 02:10:00.000000

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('submission', schema=None) as batch_op:
        batch_op.add_column(sa.Column('game_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('outcome', sa.JSON(), nullable=True))
        batch_op.create_index(batch_op.f('ix_submission_game_id'), ['game_id'], unique=False)


def downgrade():
    with op.batch_alter_table('submission', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_submission_game_id'))
        batch_op.drop_column('outcome')
        batch_op.drop_column('game_id')
