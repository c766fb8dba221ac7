"""Share links and submission ids

Live scoreboard and second-keeper links to a game; ids of forms sent from a phone that was offline.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 10:56:10.364640

"""
import sqlalchemy as sa
from alembic import op


# revision identifiers, used by Alembic.
revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('submission',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('family_id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=64), nullable=False),
    sa.Column('at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['family_id'], ['family.id'], name=op.f('fk_submission_family_id_family')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_submission')),
    sa.UniqueConstraint('family_id', 'key', name='uq_submission_family_key')
    )
    with op.batch_alter_table('submission', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_submission_at'), ['at'], unique=False)

    op.create_table('share_link',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('token', sa.String(length=64), nullable=False),
    sa.Column('created_by', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('revoked_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['created_by'], ['member.id'], name=op.f('fk_share_link_created_by_member')),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], name=op.f('fk_share_link_game_id_game')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_share_link')),
    sa.UniqueConstraint('token', name=op.f('uq_share_link_token'))
    )
    with op.batch_alter_table('share_link', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_share_link_game_id'), ['game_id'], unique=False)



def downgrade():
    with op.batch_alter_table('share_link', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_share_link_game_id'))

    op.drop_table('share_link')
    with op.batch_alter_table('submission', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_submission_at'))

    op.drop_table('submission')
