"""rooms.hints and match_hints: the strong bot's suggestion on request, and which decisions had one

A room's `hints` (off by default, also for existing rooms; the host sets it between matches) lets
a seated person ask, on their turn, for the strong bot's choice for their own seat, computed from
what that seat may know. Each hint given is kept in `match_hints` (the match, the version of the
state it was asked in, the seat, who asked and the suggested actions), so a second ask in the same
state gets the same answer without a new search, and the match review marks the decisions that
had a hint.

The match review's figures changed with this revision (values on the score sheet's scale, a set
put aside over several actions judged as one decision, moves the server made for a person left
out of their figures), so finished reviews of people's matches are queued to be analysed again.

Revision ID: 0013
Revises: 0012 (file 0013_r0013: thirteenth in the chain)
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("hints", sa.Boolean(), server_default=sa.text("false"), nullable=False))
    op.create_table(
        "match_hints",
        sa.Column("match_id", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.BigInteger(), nullable=True),
        sa.Column("actions", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["person_id"], ["people.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("match_id", "version", "seat"),
    )
    op.execute(
        """
        UPDATE match_analyses
        SET status = 'queued', result = NULL, budget = NULL, done = 0, total = NULL, attempts = 0,
            owner = NULL, lease_until = NULL, started_at = NULL, finished_at = NULL, error = NULL
        WHERE status = 'done' AND seats <> '[]'::jsonb
        """
    )


def downgrade() -> None:
    op.drop_table("match_hints")
    op.drop_column("rooms", "hints")
