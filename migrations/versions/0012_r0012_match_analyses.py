"""match_analyses: the review of a finished match (engine/analysis.py), one row per match

A row is written when the match ends (app/store/matches.py, in the transaction that finishes it)
or when someone first asks for the review of a match that ended before this table existed.
`queued` rows are claimed by one server process at a time (`owner`, `lease_until`), which its
analysis worker renews with the progress (`done` of `total` decisions); a lease that runs out
(the process died) lets any process claim the row again and redo the analysis from the start.
`result` is written only with `status = 'done'`, in one statement, so a half-finished analysis
is never taken for a complete one. See app/store/analyses.py.

Revision ID: 0012
Revises: 0011 (file 0012_r0012: twelfth in the chain)
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "match_analyses",
        sa.Column("match_id", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("seats", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("done", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("total", sa.Integer(), nullable=True),
        sa.Column("attempts", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("owner", sa.String(length=32), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("budget", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("cpu_seconds", sa.Float(), nullable=True),
        sa.Column("queued_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name="analysis_status"),
        sa.CheckConstraint("(status = 'done') = (result IS NOT NULL)", name="analysis_result_when_done"),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("match_id"),
    )
    op.create_index("ix_match_analyses_status", "match_analyses", ["status"])


def downgrade() -> None:
    op.drop_index("ix_match_analyses_status", table_name="match_analyses")
    op.drop_table("match_analyses")
