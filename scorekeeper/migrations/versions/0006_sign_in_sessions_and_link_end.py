"""Sign-in sessions and when a link's game first ended

One row per signed-in browser, deleted when it signs out; the time a share link's game first
ended, so an undo does not give the link another day.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 09:12:30.118204

"""
import sqlalchemy as sa
from alembic import op


# revision identifiers, used by Alembic.
revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('sign_in_session',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('member_id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['member_id'], ['member.id'], name=op.f('fk_sign_in_session_member_id_member')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sign_in_session')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_sign_in_session_token_hash'))
    )
    with op.batch_alter_table('sign_in_session', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_sign_in_session_member_id'), ['member_id'], unique=False)

    with op.batch_alter_table('share_link', schema=None) as batch_op:
        batch_op.add_column(sa.Column('game_ended_at', sa.DateTime(), nullable=True))


def downgrade():
    with op.batch_alter_table('share_link', schema=None) as batch_op:
        batch_op.drop_column('game_ended_at')

    with op.batch_alter_table('sign_in_session', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sign_in_session_member_id'))

    op.drop_table('sign_in_session')
