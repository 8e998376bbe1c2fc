"""The sign-in limit: after `login_max_failures` wrong passwords for one account, or from one
client address, within `login_window_seconds`, sign-in answers 429 with Retry-After.

Failures live in PostgreSQL (`login_failures`, migration 0004), so every server process sharing
the database enforces the same limit and a restart does not reset it. Attempts that run at the
same moment may each pass the check, so the limit can be exceeded by the number of parallel
requests, never by more.
"""

from __future__ import annotations

import math
from datetime import timedelta

from sqlalchemy import delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.models import LoginFailure

login_failures = LoginFailure.__table__


async def retry_after(
    session: AsyncSession, account: str, address: str, *, limit: int, window: int
) -> int | None:
    """Seconds until another attempt is allowed, or None when it is allowed now."""
    since = func.now() - timedelta(seconds=window)
    waits = []
    for column, value in ((login_failures.c.account, account), (login_failures.c.address, address)):
        # The failure whose leaving the window brings the count below the limit.
        oldest_blocking = await session.scalar(
            select(func.extract("epoch", login_failures.c.failed_at - since))
            .where(column == value, login_failures.c.failed_at > since)
            .order_by(login_failures.c.failed_at.desc())
            .offset(limit - 1)
            .limit(1)
        )
        if oldest_blocking is not None:
            waits.append(max(1, math.ceil(float(oldest_blocking))))
    return max(waits) if waits else None


async def record_failure(session: AsyncSession, account: str, address: str, *, window: int) -> None:
    """Note one wrong password, and forget failures that left the window (keeps the table small)."""
    await session.execute(login_failures.insert().values(account=account[:64], address=address[:64]))
    await session.execute(
        delete(login_failures).where(
            login_failures.c.failed_at < func.now() - timedelta(seconds=window),
            or_(login_failures.c.account == account[:64], login_failures.c.address == address[:64]),
        )
    )
