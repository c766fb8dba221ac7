"""Game uids unique per family

A family importing another family's export gets its own copies of the games.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 06:51:45.648332

"""
from alembic import op

# revision identifiers, used by Alembic.
revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_game_uid'), type_='unique')
        batch_op.create_unique_constraint('uq_game_family_uid', ['family_id', 'uid'])


def downgrade():
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_constraint('uq_game_family_uid', type_='unique')
        batch_op.create_unique_constraint(batch_op.f('uq_game_uid'), ['uid'])
