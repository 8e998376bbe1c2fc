"""A room's chat: checking a line, storing it, and reading the history back.

A line is committed before anyone hears of it: `post` stores it in its own transaction and
returns it, and only then does the socket publish it on the room's channel (`app/live/pubsub.py`), so
every process serving the room hands it to its sockets (the bus carries the public line itself:
everyone in the room may read it, and a line fits well inside a NOTIFY payload).

The rate limit (`RATE_COUNT` lines per person in `RATE_WINDOW`) counts the person's stored lines
in the same transaction that inserts the new one, under a transaction-scoped advisory lock on the
person: two processes (or two tabs) sending at the same instant take turns, so the limit holds
exactly across processes and restarts, and a refused line is never stored.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import ChatMessage, Membership, Person

MAX_LENGTH = 500
RATE_COUNT = 5
RATE_WINDOW = timedelta(seconds=5)
DEFAULT_PAGE = 50
MAX_PAGE = 200
CHAT_LOCK_SPACE = 0x43484154  # "CHAT": the first key of the two-key advisory lock per person
"""Two-int4 advisory keys never conflict with the one-bigint key the migrations lock."""

# Unicode categories refused anywhere in a line: control characters (Cc: tabs and newlines
# included, a chat line is one line), lone surrogates (Cs: PostgreSQL cannot store them) and
# the line and paragraph separators (Zl, Zp).
REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


class ChatRejected(Exception):
    """A line that is not stored, with a reason a person can read in both languages."""

    def __init__(self, code: str, en: str, ja: str) -> None:
        super().__init__(en)
        self.code = code
        self.en = en
        self.ja = ja


def clean_text(raw: Any) -> str:
    """The line as it will be stored (trimmed), or ChatRejected("bad_chat") saying why not."""
    if not isinstance(raw, str):
        raise ChatRejected("bad_chat", "a chat message needs a text", "チャットの本文がありません")
    if any(unicodedata.category(ch) in REFUSED_CATEGORIES for ch in raw):
        raise ChatRejected(
            "bad_chat",
            "a chat message must not contain control characters or line breaks",
            "チャットに制御文字や改行は使えません",
        )
    line = raw.strip()
    if not line:
        raise ChatRejected("bad_chat", "a chat message must not be empty", "チャットの本文が空です")
    if len(line) > MAX_LENGTH:
        raise ChatRejected(
            "bad_chat",
            f"a chat message has at most {MAX_LENGTH} characters (this one has {len(line)})",
            f"チャットは{MAX_LENGTH}文字までです（{len(line)}文字あります）",
        )
    return line


def message_json(row: ChatMessage, name: str | None) -> dict[str, Any]:
    """The wire shape of one line (the socket's `message` and the history's entries)."""
    return {
        "id": row.id,
        "person_id": row.person_id,
        "name": name,
        "text": row.text,
        "at": row.at.isoformat(),
    }


async def post(session: AsyncSession, room_id: int, person_id: int, raw: Any) -> dict[str, Any]:
    """Store one line from a member of the room; ChatRejected when it is malformed, when the
    person already sent `RATE_COUNT` lines in the last `RATE_WINDOW`, or when they are not a
    member. The caller's transaction commits it (`Database.session`)."""
    line = clean_text(raw)
    await session.execute(
        text("SELECT pg_advisory_xact_lock(:space, :key)"),
        {"space": CHAT_LOCK_SPACE, "key": person_id % 2**31},
    )
    # After the lock: the clock, not the transaction's start, so a line that waited for
    # another one is counted against the lines stored before it.
    recent = await session.scalar(
        select(func.count())
        .select_from(ChatMessage)
        .where(ChatMessage.person_id == person_id, ChatMessage.at > func.clock_timestamp() - RATE_WINDOW)
    )
    if recent is not None and recent >= RATE_COUNT:
        raise ChatRejected(
            "rate_limited",
            f"at most {RATE_COUNT} chat messages in {RATE_WINDOW.seconds} seconds; wait a moment",
            f"チャットは{RATE_WINDOW.seconds}秒に{RATE_COUNT}件までです。少し待ってください",
        )
    name = await session.scalar(
        select(Person.name)
        .join(Membership, Membership.person_id == Person.id)
        .where(Membership.room_id == room_id, Person.id == person_id)
    )
    if name is None:
        raise ChatRejected(
            "forbidden", "only the room's members can chat here", "この部屋のメンバーだけがチャットできます"
        )
    row = ChatMessage(room_id=room_id, person_id=person_id, text=line)
    session.add(row)
    await session.flush()
    await session.refresh(row, ["at"])
    return message_json(row, name)


async def page(
    session: AsyncSession,
    room_id: int,
    *,
    before: int | None = None,
    limit: int = DEFAULT_PAGE,
    since: datetime | None = None,
    until: datetime | None = None,
) -> dict[str, Any]:
    """Up to `limit` lines of the room older than id `before` (the newest when None), newest
    last, optionally only those written in [since, until]; `has_more` says whether older
    lines of the same span remain (ask again with `before` = the first id)."""
    limit = max(1, min(limit, MAX_PAGE))
    statement = (
        select(ChatMessage, Person.name)
        .join(Person, Person.id == ChatMessage.person_id)
        .where(ChatMessage.room_id == room_id)
        .order_by(ChatMessage.id.desc())
        .limit(limit + 1)
    )
    if before is not None:
        statement = statement.where(ChatMessage.id < before)
    if since is not None:
        statement = statement.where(ChatMessage.at >= since)
    if until is not None:
        statement = statement.where(ChatMessage.at <= until)
    rows = (await session.execute(statement)).all()
    newest_first = [message_json(row, name) for row, name in rows[:limit]]
    return {"messages": newest_first[::-1], "has_more": len(rows) > limit}
