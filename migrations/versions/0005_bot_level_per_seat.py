"""room_seats.bot_level: the host chooses how well each bot plays (basic or strong)

Bots seated before this revision played the basic level; they keep it.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


BOT_LEVEL_CHECK = (
    "(kind = 'bot') = (bot_level IS NOT NULL) AND (bot_level IS NULL OR bot_level IN ('basic', 'strong'))"
)


def upgrade() -> None:
    op.add_column("room_seats", sa.Column("bot_level", sa.String(length=8), nullable=True))
    op.execute("UPDATE room_seats SET bot_level = 'basic' WHERE kind = 'bot'")
    op.create_check_constraint(
        "room_seat_bot_level", "room_seats", BOT_LEVEL_CHECK
    )


def downgrade() -> None:
    op.drop_constraint("room_seat_bot_level", "room_seats", type_="check")
    op.drop_column("room_seats", "bot_level")
