"""The database schema as SQLAlchemy 2 typed models. PostgreSQL is the source of truth: a match
in memory is only a cache of `match_actions` replayed through the engine."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Identity,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSONB, list[Any]: JSONB}


def _now() -> Mapped[datetime]:
    return mapped_column(DateTime(timezone=True), server_default=func.now(), nullable=False)


class Person(Base):
    """A durable identity chosen by display name; a password is optional (for other devices)."""

    __tablename__ = "people"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    name: Mapped[str] = mapped_column(String(32))
    account: Mapped[str] = mapped_column(String(16), unique=True)
    password_hash: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = _now()


class Session(Base):
    """One signed-in browser. Only a SHA-256 of the cookie token is stored, so a database leak
    does not hand out sessions."""

    __tablename__ = "sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = _now()


class GameRow(Base):
    """The catalog: one row per engine game, refreshed from the engine registry at start-up."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    names: Mapped[dict[str, Any]]
    min_players: Mapped[int] = mapped_column(Integer)
    max_players: Mapped[int] = mapped_column(Integer)
    default_options: Mapped[dict[str, Any]]
    options_schema: Mapped[dict[str, Any]]
    updated_at: Mapped[datetime] = _now()


class Preset(Base):
    """A named option set for a game (from seeds/presets.json), offered when creating a room."""

    __tablename__ = "presets"
    __table_args__ = (UniqueConstraint("game_id", "key"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(40))
    names: Mapped[dict[str, Any]]
    options: Mapped[dict[str, Any]]
    seats: Mapped[int | None] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer, default=0)


class Room(Base):
    """A private table. `options` holds only what the host chose; the engine's defaults for
    the current seat count fill in the rest, so changing the seat count keeps defaults right."""

    __tablename__ = "rooms"
    __table_args__ = (
        CheckConstraint("away_grace BETWEEN 10 AND 600", name="room_away_grace"),
        CheckConstraint("turn_timer IS NULL OR turn_timer BETWEEN 15 AND 600", name="room_turn_timer"),
        CheckConstraint("take_backs IN ('off', 'until_next')", name="room_take_backs"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    code: Mapped[str] = mapped_column(String(64), unique=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    host_id: Mapped[int] = mapped_column(ForeignKey("people.id"))
    seat_count: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = _now()
    name: Mapped[str | None] = mapped_column(String(60))
    """The host's name for the room; None: the default, built when read (app/store/room_names.py)."""
    matches_started: Mapped[int] = mapped_column(Integer, server_default=text("0"), default=0)
    """Matches started here; a new match's `number` comes from bumping it (atomic per room)."""
    away_grace: Mapped[int] = mapped_column(Integer, server_default=text("60"), default=60)
    """Seconds a seated person may be disconnected while the table waits before a bot plays for them."""
    turn_timer: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """Seconds a person's turn may last before a bot plays that move (None: no timer)."""
    take_backs: Mapped[str] = mapped_column(
        String(16), server_default=text("'until_next'"), default="until_next"
    )
    """"until_next": a person may take back their last action until someone acts; "off": never."""
    hints: Mapped[bool] = mapped_column(Boolean, server_default=text("false"), default=False)
    """Whether a seated person may ask for the strong bot's choice for their own seat on their turn."""


class Membership(Base):
    """Who holds a room's invite code and has opened it: members may sit or watch."""

    __tablename__ = "memberships"

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), primary_key=True)
    joined_at: Mapped[datetime] = _now()


class RoomSeat(Base):
    """Who sits where now (empty seats have no row). During a match these are its controllers."""

    __tablename__ = "room_seats"
    __table_args__ = (
        CheckConstraint("kind IN ('person', 'bot')", name="room_seat_kind"),
        CheckConstraint("(kind = 'person') = (person_id IS NOT NULL)", name="room_seat_person"),
        CheckConstraint(
            "(kind = 'bot') = (bot_level IS NOT NULL)"
            " AND (bot_level IS NULL OR bot_level IN ('basic', 'strong'))",
            name="room_seat_bot_level",
        ),
    )

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    person_id: Mapped[int | None] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), index=True)
    bot_level: Mapped[str | None] = mapped_column(String(8))
    """A bot's level, "basic" or "strong" (the host's choice); None for a person."""


class MatchRow(Base):
    """One match in a room. `version` is the number of rows in its action log."""

    __tablename__ = "matches"
    __table_args__ = (
        CheckConstraint("status IN ('running', 'finished')", name="match_status"),
        UniqueConstraint("room_id", "number"),
        Index("ix_matches_status", "status"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id"))
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(12), default="running")
    version: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = _now()
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    same_deals_as: Mapped[int | None] = mapped_column(
        ForeignKey("matches.id", ondelete="SET NULL", name="fk_matches_same_deals_as"), index=True
    )
    """The finished match whose chance actions (shuffles) this one replays (app/store/rematch.py)."""
    rotate_deals: Mapped[bool] = mapped_column(Boolean, server_default=text("false"), default=False)
    """With `same_deals_as`: every hand's cards go one seat round (seat s gets seat s-1's)."""
    abandoned: Mapped[bool] = mapped_column(Boolean, server_default=text("false"), default=False)
    """Bots finished it after every person had left (people played it, none seated and connected
    at its end): leaderboards leave it out (migration 0010)."""


class MatchAnalysis(Base):
    """The review of a finished match (engine/analysis.py), analysed in the background by one
    process at a time (app/live/reviews.py, SQL in app/store/analyses.py; migration 0012)."""

    __tablename__ = "match_analyses"
    __table_args__ = (
        CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name="analysis_status"),
        CheckConstraint("(status = 'done') = (result IS NOT NULL)", name="analysis_result_when_done"),
        Index("ix_match_analyses_status", "status"),
    )

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(String(8))
    seats: Mapped[list[Any]]
    """The seats analysed: those credited to a person (bots' decisions are not reviewed)."""
    done: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    total: Mapped[int | None] = mapped_column(Integer)
    """Decisions analysed so far and in all (known once a worker has replayed the log)."""
    attempts: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    owner: Mapped[str | None] = mapped_column(String(32))
    """The process (`server_processes.id`) running it, whose worker renews `lease_until`."""
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    budget: Mapped[dict[str, Any] | None]
    cpu_seconds: Mapped[float | None] = mapped_column(Float)
    queued_at: Mapped[datetime] = _now()
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    result: Mapped[dict[str, Any] | None]
    """`{decisions, summaries}` as engine/analysis.py's `as_dict` gives them; only when done."""
    error: Mapped[str | None] = mapped_column(Text)


class MatchSeat(Base):
    """A seat of a match: who controls it now and which person its results are credited to
    (the last person who sat there in this match; none if only bots ever played it)."""

    __tablename__ = "match_seats"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str | None] = mapped_column(String(8))
    person_id: Mapped[int | None] = mapped_column(ForeignKey("people.id", ondelete="SET NULL"), index=True)


class MatchAction(Base):
    """The ordered action log of a match, chance included: replaying it rebuilds the match."""

    __tablename__ = "match_actions"
    __table_args__ = (
        UniqueConstraint("match_id", "seq", name="uq_match_actions_match_seq"),
        CheckConstraint("auto IN ('time', 'away')", name="match_action_auto"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]]
    auto: Mapped[str | None] = mapped_column(String(8), nullable=True)
    """A bot's move for a person's seat: "time" (their turn timer ran out) or "away" (a stand-in
    played while they were away); NULL otherwise (migration 0011, app/live/hand_log.py)."""
    created_at: Mapped[datetime] = _now()


class HandResult(Base):
    """One finished hand: per-seat scores and the engine's facts behind them."""

    __tablename__ = "hand_results"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    hand_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    scores: Mapped[list[Any]]
    details: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = _now()


class MatchResult(Base):
    """Final score and rank of one seat; leaderboards are sums over these rows."""

    __tablename__ = "match_results"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int | None] = mapped_column(ForeignKey("people.id", ondelete="SET NULL"), index=True)
    score: Mapped[float] = mapped_column(Float)
    rank: Mapped[int] = mapped_column(Integer)
    counted: Mapped[bool] = mapped_column(Boolean, server_default=text("true"))
    """False for a second seat of the same person in the same team (team games give every seat
    of a team the team's total): leaderboards add only counted rows."""


class ServerProcess(Base):
    """A running server process; its heartbeat (`seen_at`) says its presence rows still count."""

    __tablename__ = "server_processes"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    started_at: Mapped[datetime] = _now()
    seen_at: Mapped[datetime] = _now()


class RoomPresence(Base):
    """A person with at least one open WebSocket to a room on one server process."""

    __tablename__ = "room_presence"

    process_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("server_processes.id", ondelete="CASCADE"), primary_key=True
    )
    room_id: Mapped[int] = mapped_column(
        ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), primary_key=True)


class LoginFailure(Base):
    """One wrong password, for the sign-in limit per account and client address (app/store/people.py)."""

    __tablename__ = "login_failures"
    __table_args__ = (
        Index("ix_login_failures_account", "account", "failed_at"),
        Index("ix_login_failures_address", "address", "failed_at"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    account: Mapped[str] = mapped_column(String(64))
    address: Mapped[str] = mapped_column(String(64))
    failed_at: Mapped[datetime] = _now()


class ChatMessage(Base):
    """One line of a room's chat (app/store/chat.py). `at` is the clock time of the insert, so a
    match's chat is the room's lines between its start and its end."""

    __tablename__ = "chat_messages"
    __table_args__ = (
        CheckConstraint("char_length(text) BETWEEN 1 AND 500", name="chat_text_length"),
        Index("ix_chat_messages_room", "room_id", "id"),
        Index("ix_chat_messages_person_at", "person_id", "at"),
    )

    id: Mapped[int] = mapped_column(BigInteger, Identity(), primary_key=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"))
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"))
    text: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.clock_timestamp(), nullable=False
    )


class SeatDeadline(Base):
    """A deadline the server enforces for one seat of a room (app/live/deadlines.py): `away` (the
    seat's person is disconnected; due when the room's grace is over, then a bot plays for the
    seat until they return) or `turn` (the seat's turn started at `version`; due when the turn
    timer runs out, then a bot plays that one move). A process claims a due row for a while
    (`claimed_until`) before acting, so exactly one acts and a dead one's claim runs out."""

    __tablename__ = "seat_deadlines"
    __table_args__ = (
        CheckConstraint("kind IN ('away', 'turn')", name="seat_deadline_kind"),
        Index("ix_seat_deadlines_due_at", "due_at"),
    )

    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    person_id: Mapped[int | None] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"))
    version: Mapped[int | None] = mapped_column(Integer)
    due_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    claimed_by: Mapped[str | None] = mapped_column(String(32))
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class MatchHint(Base):
    """A hint given (app/store/hints.py; migration 0013): the strong bot's suggested actions for
    `seat` in the state of `version`, asked by `person_id`. One per state and seat: asking again
    gets the same answer, and the review marks the decision that followed it."""

    __tablename__ = "match_hints"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int | None] = mapped_column(ForeignKey("people.id", ondelete="SET NULL"))
    actions: Mapped[list[Any]]
    created_at: Mapped[datetime] = _now()
