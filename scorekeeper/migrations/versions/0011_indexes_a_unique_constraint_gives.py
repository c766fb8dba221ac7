"""Indexes a unique constraint gives

Eight columns had an index of their own although they lead a unique constraint or a composite index,
through which the database already finds their rows (a game's rounds, seats, results and players'
games; a family's players, games and house rules; a game's ratings). Each such index was one more to
write with every row; they go.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28 10:00:00.000000

"""
from alembic import op

# revision identifiers, used by Alembic.
revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

# (table, column): each had the index ix_<table>_<column>
REPEATED = (('game', 'family_id'), ('player', 'family_id'), ('game_round', 'game_id'), ('player_game', 'game_id'),
            ('seat', 'game_id'), ('result', 'round_id'), ('rating', 'game_id'), ('house_rules', 'family_id'))


def upgrade():
    for table, column in REPEATED:
        op.drop_index(f'ix_{table}_{column}', table_name=table)


def downgrade():
    for table, column in REPEATED:
        op.create_index(f'ix_{table}_{column}', table, [column], unique=False)
