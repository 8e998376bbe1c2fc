"""Room names, per-room match counters and same-deal rematches

- `rooms.name`: the host's name for the room; NULL means "the default name", which the server
  builds when it answers (in English and Japanese, from the host's current name and the game),
  so existing rooms need no backfill.
- `rooms.matches_started`: how many matches the room has started; a new match takes its number
  from `UPDATE rooms SET matches_started = matches_started + 1 ... RETURNING`, which is atomic
  across server processes. Backfilled from the numbers existing matches already carry.
- `matches.same_deals_as` / `matches.rotate_deals`: a match that replays another match's chance
  actions (shuffles), optionally rotated one seat; the table service reads them on every rebuild.

Revision ID: 0008
Revises: 0005 (file 0006_r0008: sixth in the chain, revision id 0008)
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("name", sa.String(length=60), nullable=True))
    op.add_column(
        "rooms", sa.Column("matches_started", sa.Integer(), server_default=sa.text("0"), nullable=False)
    )
    op.execute(
        "UPDATE rooms SET matches_started = counted.top"
        " FROM (SELECT room_id, max(number) AS top FROM matches GROUP BY room_id) AS counted"
        " WHERE counted.room_id = rooms.id"
    )
    op.add_column(
        "matches",
        sa.Column(
            "same_deals_as",
            sa.BigInteger(),
            sa.ForeignKey("matches.id", ondelete="SET NULL", name="fk_matches_same_deals_as"),
            nullable=True,
        ),
    )
    op.add_column(
        "matches", sa.Column("rotate_deals", sa.Boolean(), server_default=sa.text("false"), nullable=False)
    )
    op.create_index("ix_matches_same_deals_as", "matches", ["same_deals_as"])


def downgrade() -> None:
    op.drop_index("ix_matches_same_deals_as", table_name="matches")
    op.drop_column("matches", "rotate_deals")
    op.drop_column("matches", "same_deals_as")
    op.drop_column("rooms", "matches_started")
    op.drop_column("rooms", "name")
