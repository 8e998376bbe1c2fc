"""rooms.take_backs: whether a person may take back their last action ("off" or "until_next")

With "until_next" (the default, also for existing rooms) a person may take back their own last
action while nobody has acted since and it showed no hidden card (the engine decides); the
take-back is a log entry of its own, so nothing else in the schema changes.

Revision ID: 0009
Revises: 0007 (file 0009_r0009: ninth in the chain)
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "rooms", sa.Column("take_backs", sa.String(length=16), server_default="until_next", nullable=False)
    )
    op.create_check_constraint("room_take_backs", "rooms", "take_backs IN ('off', 'until_next')")


def downgrade() -> None:
    op.drop_constraint("room_take_backs", "rooms", type_="check")
    op.drop_column("rooms", "take_backs")
