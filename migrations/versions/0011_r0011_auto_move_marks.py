"""match_actions.auto: why the server made a move for a person's seat ("time" or "away")

A bot moves for a person's seat when their turn timer runs out ("time") or while they are away
("away"). The mark is written with the action itself, in the statement that appends it
(app/store/matches.py), so the "While you were away" summary and the play log's "(bot for Ben)"
survive a restart and are read by every server process that rebuilds the match from its log.
NULL for every other action (the person's own, a bot's own seat, chance).

Revision ID: 0011
Revises: 0010 (file 0011_r0011: eleventh in the chain)
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("match_actions", sa.Column("auto", sa.String(length=8), nullable=True))
    op.create_check_constraint("match_action_auto", "match_actions", "auto IN ('time', 'away')")


def downgrade() -> None:
    op.drop_constraint("match_action_auto", "match_actions", type_="check")
    op.drop_column("match_actions", "auto")
