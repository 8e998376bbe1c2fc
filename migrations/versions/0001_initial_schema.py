"""initial schema: people, rooms, matches, action log, results

Revision ID: 0001
Revises: 
Create Date: 2026-11-22
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('games',
    sa.Column('id', sa.String(length=40), nullable=False),
    sa.Column('names', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('min_players', sa.Integer(), nullable=False),
    sa.Column('max_players', sa.Integer(), nullable=False),
    sa.Column('default_options', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('options_schema', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('people',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('name', sa.String(length=32), nullable=False),
    sa.Column('account', sa.String(length=16), nullable=False),
    sa.Column('password_hash', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('account')
    )
    op.create_table('presets',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('game_id', sa.String(length=40), nullable=False),
    sa.Column('key', sa.String(length=40), nullable=False),
    sa.Column('names', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('options', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('seats', sa.Integer(), nullable=True),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', 'key')
    )
    op.create_table('rooms',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('code', sa.String(length=64), nullable=False),
    sa.Column('game_id', sa.String(length=40), nullable=False),
    sa.Column('host_id', sa.BigInteger(), nullable=False),
    sa.Column('seat_count', sa.Integer(), nullable=False),
    sa.Column('options', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.ForeignKeyConstraint(['host_id'], ['people.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('code')
    )
    op.create_table('sessions',
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('person_id', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['person_id'], ['people.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('token_hash')
    )
    op.create_index(op.f('ix_sessions_person_id'), 'sessions', ['person_id'], unique=False)
    op.create_table('matches',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('room_id', sa.BigInteger(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.String(length=40), nullable=False),
    sa.Column('players', sa.Integer(), nullable=False),
    sa.Column('options', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('status', sa.String(length=12), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("status IN ('running', 'finished')", name='match_status'),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.ForeignKeyConstraint(['room_id'], ['rooms.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('room_id', 'number')
    )
    op.create_index(op.f('ix_matches_room_id'), 'matches', ['room_id'], unique=False)
    op.create_index('ix_matches_status', 'matches', ['status'], unique=False)
    op.create_table('memberships',
    sa.Column('room_id', sa.BigInteger(), nullable=False),
    sa.Column('person_id', sa.BigInteger(), nullable=False),
    sa.Column('joined_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['person_id'], ['people.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['room_id'], ['rooms.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('room_id', 'person_id')
    )
    op.create_table('room_seats',
    sa.Column('room_id', sa.BigInteger(), nullable=False),
    sa.Column('n', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=8), nullable=False),
    sa.Column('person_id', sa.BigInteger(), nullable=True),
    sa.CheckConstraint("(kind = 'person') = (person_id IS NOT NULL)", name='room_seat_person'),
    sa.CheckConstraint("kind IN ('person', 'bot')", name='room_seat_kind'),
    sa.ForeignKeyConstraint(['person_id'], ['people.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['room_id'], ['rooms.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('room_id', 'n')
    )
    op.create_index(op.f('ix_room_seats_person_id'), 'room_seats', ['person_id'], unique=False)
    op.create_table('hand_results',
    sa.Column('match_id', sa.BigInteger(), nullable=False),
    sa.Column('hand_no', sa.Integer(), nullable=False),
    sa.Column('scores', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('details', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('match_id', 'hand_no')
    )
    op.create_table('match_actions',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('match_id', sa.BigInteger(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('action', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), server_default=sa.text('now()'), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('match_id', 'seq', name='uq_match_actions_match_seq')
    )
    op.create_table('match_results',
    sa.Column('match_id', sa.BigInteger(), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('person_id', sa.BigInteger(), nullable=True),
    sa.Column('score', sa.Float(), nullable=False),
    sa.Column('rank', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['person_id'], ['people.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('match_id', 'seat')
    )
    op.create_index(op.f('ix_match_results_person_id'), 'match_results', ['person_id'], unique=False)
    op.create_table('match_seats',
    sa.Column('match_id', sa.BigInteger(), nullable=False),
    sa.Column('n', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=8), nullable=True),
    sa.Column('person_id', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['person_id'], ['people.id'], ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('match_id', 'n')
    )
    op.create_index(op.f('ix_match_seats_person_id'), 'match_seats', ['person_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_match_seats_person_id'), table_name='match_seats')
    op.drop_table('match_seats')
    op.drop_index(op.f('ix_match_results_person_id'), table_name='match_results')
    op.drop_table('match_results')
    op.drop_table('match_actions')
    op.drop_table('hand_results')
    op.drop_index(op.f('ix_room_seats_person_id'), table_name='room_seats')
    op.drop_table('room_seats')
    op.drop_table('memberships')
    op.drop_index('ix_matches_status', table_name='matches')
    op.drop_index(op.f('ix_matches_room_id'), table_name='matches')
    op.drop_table('matches')
    op.drop_index(op.f('ix_sessions_person_id'), table_name='sessions')
    op.drop_table('sessions')
    op.drop_table('rooms')
    op.drop_table('presets')
    op.drop_table('people')
    op.drop_table('games')
