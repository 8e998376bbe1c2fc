"""room_presence and server_processes: who is connected, whichever server process holds the socket

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "server_processes",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("started_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
    )
    op.create_table(
        "room_presence",
        sa.Column(
            "process_id",
            sa.String(length=32),
            sa.ForeignKey("server_processes.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("room_id", sa.BigInteger(), sa.ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("person_id", sa.BigInteger(), sa.ForeignKey("people.id", ondelete="CASCADE"), primary_key=True),
    )
    op.create_index("ix_room_presence_room_id", "room_presence", ["room_id"])


def downgrade() -> None:
    op.drop_index("ix_room_presence_room_id", table_name="room_presence")
    op.drop_table("room_presence")
    op.drop_table("server_processes")
