"""rooms.away_grace, rooms.turn_timer and seat_deadlines: absent players and the turn timer

`seat_deadlines` holds every deadline the server enforces, so a restart or another server
process keeps them: an `away` row per seat whose person is disconnected (due when the room's
grace is over; from then a bot plays for the seat until the person returns) and a `turn` row
per seat a person must act in when the room has a turn timer (due when the turn has lasted the
timer; a bot then plays that one move). A process claims a due row (`claimed_by`,
`claimed_until`: a lease, so the row comes back if that process dies) before it acts.

Revision ID: 0007
Revises: 0006 (file 0008_r0007: eighth in the chain, revision id 0007)
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("away_grace", sa.Integer(), server_default="60", nullable=False))
    op.add_column("rooms", sa.Column("turn_timer", sa.Integer(), nullable=True))
    op.create_check_constraint("room_away_grace", "rooms", "away_grace BETWEEN 10 AND 600")
    op.create_check_constraint(
        "room_turn_timer", "rooms", "turn_timer IS NULL OR turn_timer BETWEEN 15 AND 600"
    )
    op.create_table(
        "seat_deadlines",
        sa.Column(
            "room_id", sa.BigInteger(), sa.ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(length=8), primary_key=True),
        sa.Column(
            "match_id", sa.BigInteger(), sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=True
        ),
        sa.Column(
            "person_id", sa.BigInteger(), sa.ForeignKey("people.id", ondelete="CASCADE"), nullable=True
        ),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=32), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("kind IN ('away', 'turn')", name="seat_deadline_kind"),
    )
    op.create_index("ix_seat_deadlines_due_at", "seat_deadlines", ["due_at"])


def downgrade() -> None:
    op.drop_index("ix_seat_deadlines_due_at", table_name="seat_deadlines")
    op.drop_table("seat_deadlines")
    op.drop_constraint("room_turn_timer", "rooms", type_="check")
    op.drop_constraint("room_away_grace", "rooms", type_="check")
    op.drop_column("rooms", "turn_timer")
    op.drop_column("rooms", "away_grace")
