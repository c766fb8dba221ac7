"""House rules

A family's own variants, written in the rules editor.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 14:18:45.706490

"""
import sqlalchemy as sa
from alembic import op


# revision identifiers, used by Alembic.
revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('house_rules',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('family_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=80), nullable=False),
    sa.Column('rules', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['family_id'], ['family.id'], name=op.f('fk_house_rules_family_id_family')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_house_rules')),
    sa.UniqueConstraint('family_id', 'name', name='uq_house_rules_family_name')
    )
    with op.batch_alter_table('house_rules', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_house_rules_family_id'), ['family_id'], unique=False)



def downgrade():
    with op.batch_alter_table('house_rules', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_house_rules_family_id'))

    op.drop_table('house_rules')
