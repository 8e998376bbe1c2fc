"""matches.abandoned: a match that bots finished after every person had left

Set when a match ends (app/store/matches.py): people played it (a seat is credited to a
person) but no person sitting at the table had a socket open to the room at that moment. Its
results are kept (history shows them) but no leaderboard counts it, and history and the match
page say it was abandoned.

Revision ID: 0010
Revises: 0009 (file 0010_r0010: tenth in the chain)
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("abandoned", sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    op.drop_column("matches", "abandoned")
