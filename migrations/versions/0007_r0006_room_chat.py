"""chat_messages: every room's chat, kept so a person who (re)joins reads the recent lines

Revision ID: 0006
Revises: 0008 (file 0007_r0006: seventh in the chain, revision id 0006)
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.BigInteger(), sa.Identity(), primary_key=True),
        sa.Column("room_id", sa.BigInteger(), sa.ForeignKey("rooms.id", ondelete="CASCADE"), nullable=False),
        sa.Column(
            "person_id", sa.BigInteger(), sa.ForeignKey("people.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), server_default=sa.func.clock_timestamp(), nullable=False),
        sa.CheckConstraint("char_length(text) BETWEEN 1 AND 500", name="chat_text_length"),
    )
    op.create_index("ix_chat_messages_room", "chat_messages", ["room_id", "id"])
    op.create_index("ix_chat_messages_person_at", "chat_messages", ["person_id", "at"])


def downgrade() -> None:
    op.drop_table("chat_messages")
