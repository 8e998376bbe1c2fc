"""Settings read from the environment, so the same code runs locally, in tests and in Docker."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from engine.analysis import DEFAULT_BUDGET

PROJECT_ROOT = Path(__file__).resolve().parent.parent

MAX_MESSAGE_BYTES = 1 << 20
"""Largest WebSocket message a client may send (uvicorn closes the socket with 1009, "message too
big", beyond it): client messages are small actions, anything near this size is abuse, not play."""


def normalize_database_url(url: str) -> str:
    """Accept plain `postgresql://` (and Heroku-style `postgres://`) URLs and pin the psycopg 3 driver,
    because SQLAlchemy would otherwise pick psycopg2, which is not installed."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


@dataclass(frozen=True)
class ConnectionOptions:
    """Timeouts and keepalives of every database connection (the `db_*` settings below)."""

    connect_timeout: int = 5
    """Seconds to establish a connection (libpq takes whole seconds, 2 at least)."""
    statement_timeout: float = 20.0
    """Seconds a statement may run before the server cancels it."""
    keepalives_idle: int = 10
    """Seconds of silence on a connection before TCP asks the peer whether it is still there."""
    keepalives_interval: int = 3
    """Seconds between two unanswered keepalive probes."""
    keepalives_count: int = 3
    """Unanswered probes after which the connection is dropped."""
    tcp_user_timeout: float = 15.0
    """Seconds data sent may stay unacknowledged before the connection is dropped."""
    pool_wait: float = 10.0
    """Seconds a request waits for a pooled connection (also while the database comes back)
    before it is refused."""

    def libpq(self, role: str) -> dict[str, Any]:
        """The connection parameters, as psycopg's `connect` (and libpq) take them."""
        return {
            "application_name": role,
            "connect_timeout": self.connect_timeout,
            "keepalives": 1,
            "keepalives_idle": self.keepalives_idle,
            "keepalives_interval": self.keepalives_interval,
            "keepalives_count": self.keepalives_count,
            "tcp_user_timeout": round(self.tcp_user_timeout * 1000),
            "options": f"-c statement_timeout={round(self.statement_timeout * 1000)}",
        }


class Settings(BaseSettings):
    """Everything configurable about a running server."""

    model_config = SettingsConfigDict(env_file=None, extra="ignore", populate_by_name=True)

    database_url: str | None = Field(
        default=None, validation_alias=AliasChoices("DATABASE_URL", "database_url")
    )
    """SQLAlchemy URL of the PostgreSQL database; None starts an embedded server under `data_dir`."""

    data_dir: Path = Field(
        default=PROJECT_ROOT / "var", validation_alias=AliasChoices("CARDTABLE_DATA_DIR", "data_dir")
    )
    """Where the embedded PostgreSQL keeps its cluster (`<data_dir>/pgdata`)."""

    embedded_fsync: bool = Field(
        default=True, validation_alias=AliasChoices("CARDTABLE_EMBEDDED_FSYNC", "embedded_fsync")
    )
    """Whether the embedded PostgreSQL syncs to disk; only throw-away clusters (tests) turn it off."""

    bot_delay: float = Field(
        default=0.8, ge=0, validation_alias=AliasChoices("CARDTABLE_BOT_DELAY", "bot_delay")
    )
    """Seconds a bot waits before acting, so people can follow the play."""

    bot_level: Literal["basic", "strong"] = Field(
        default="strong", validation_alias=AliasChoices("CARDTABLE_BOT_LEVEL", "bot_level")
    )
    """The level a bot gets when the host seats one without choosing (the host can change it)."""

    bot_budget: float = Field(
        default=0.2, gt=0, le=0.5, validation_alias=AliasChoices("CARDTABLE_BOT_BUDGET", "bot_budget")
    )
    """Seconds a strong bot searches per decision (the engine's hard limit is 0.5)."""

    bot_workers: int = Field(
        default=2, ge=1, validation_alias=AliasChoices("CARDTABLE_BOT_WORKERS", "bot_workers")
    )
    """Processes that run strong bots' searches, so the event loop keeps serving tables meanwhile."""

    analysis_workers: int = Field(
        default=1, ge=0, validation_alias=AliasChoices("CARDTABLE_ANALYSIS_WORKERS", "analysis_workers")
    )
    """Match reviews this process analyses at once, each in a worker process at the lowest CPU
    priority (app/live/reviews.py); 0: this process leaves them to the others."""

    analysis_playouts: int = Field(
        default=DEFAULT_BUDGET.playouts,
        ge=1,
        validation_alias=AliasChoices("CARDTABLE_ANALYSIS_PLAYOUTS", "analysis_playouts"),
    )
    """Playouts per compared action where a review cannot enumerate the rest of the hand
    (engine/analysis.py's budget; tests make it small)."""

    analysis_lease: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        validation_alias=AliasChoices("CARDTABLE_ANALYSIS_LEASE", "analysis_lease"),
    )
    """Seconds a review's claim holds without news from its worker (it renews it every
    `analysis_beat` s): after that the job is taken to have died with its process and is redone."""

    analysis_beat: float = Field(
        default=2.0, gt=0, le=60, validation_alias=AliasChoices("CARDTABLE_ANALYSIS_BEAT", "analysis_beat")
    )
    """Seconds between two progress writes (and lease renewals) of a review's worker."""

    analysis_poll: float = Field(
        default=10.0, gt=0, le=600, validation_alias=AliasChoices("CARDTABLE_ANALYSIS_POLL", "analysis_poll")
    )
    """Seconds between two looks of an idle process for reviews to run (a match ending here, or
    a review asked for here, wakes it at once)."""

    deal_seed: int | None = Field(
        default=None, validation_alias=AliasChoices("CARDTABLE_DEAL_SEED", "deal_seed")
    )
    """For tests and demonstrations only: deal every match from this seed (and basic bots play
    from it), so that the same seed shows the same cards on every run. Unset: fresh randomness."""

    host: str = Field(default="127.0.0.1", validation_alias=AliasChoices("CARDTABLE_HOST", "host"))
    port: int = Field(default=8000, validation_alias=AliasChoices("CARDTABLE_PORT", "port"))

    ws_compression: Literal["stream", "off"] = Field(
        default="off", validation_alias=AliasChoices("CARDTABLE_WS_COMPRESSION", "ws_compression")
    )
    """permessage-deflate on WebSockets, as uvicorn offers it: `stream` compresses every message
    with one zlib stream kept for the socket's life (messages several times smaller, about 45 KB
    more memory per socket), `off` sends every message as it is (a move's state is a few hundred
    bytes). `message` (each message compressed on its own) is refused: uvicorn does not offer it."""

    @field_validator("ws_compression", mode="before")
    @classmethod
    def _compression_uvicorn_offers(cls, value: object) -> object:
        if value == "message":
            raise ValueError(
                "CARDTABLE_WS_COMPRESSION=message is no longer offered: the WebSocket server "
                "compresses every message with a stream kept per socket ('stream') or none ('off')"
            )
        return value

    migrate_on_start: bool = Field(
        default=True, validation_alias=AliasChoices("CARDTABLE_MIGRATE_ON_START", "migrate_on_start")
    )
    """Run Alembic to head and load the seeds when the app starts (idempotent)."""

    secure_cookies: bool = Field(
        default=False, validation_alias=AliasChoices("CARDTABLE_SECURE_COOKIES", "secure_cookies")
    )
    """Mark the session cookie Secure; turn on behind HTTPS."""

    pubsub: Literal["memory", "postgres"] = Field(
        default="memory", validation_alias=AliasChoices("CARDTABLE_PUBSUB", "pubsub")
    )
    """How table changes reach WebSockets: in this process only, or through PostgreSQL
    LISTEN/NOTIFY so that several server processes can share one database."""

    db_pool_size: int = Field(
        default=10, ge=1, validation_alias=AliasChoices("CARDTABLE_DB_POOL_SIZE", "db_pool_size")
    )
    """Database connections each server process keeps open (plus as many again under bursts)."""

    db_connect_timeout: int = Field(
        default=5,
        ge=2,
        le=300,
        validation_alias=AliasChoices("CARDTABLE_DB_CONNECT_TIMEOUT", "db_connect_timeout"),
    )
    """Seconds to establish a database connection before trying again (libpq: whole seconds)."""

    db_statement_timeout: float = Field(
        default=20.0,
        gt=0,
        le=3600,
        validation_alias=AliasChoices("CARDTABLE_DB_STATEMENT_TIMEOUT", "db_statement_timeout"),
    )
    """Seconds a statement of the server may run before PostgreSQL cancels it (a move's commit
    takes milliseconds; this only ends what would otherwise hold a table for ever)."""

    db_keepalives_idle: int = Field(
        default=10,
        ge=1,
        le=7200,
        validation_alias=AliasChoices("CARDTABLE_DB_KEEPALIVES_IDLE", "db_keepalives_idle"),
    )
    db_keepalives_interval: int = Field(
        default=3,
        ge=1,
        le=600,
        validation_alias=AliasChoices("CARDTABLE_DB_KEEPALIVES_INTERVAL", "db_keepalives_interval"),
    )
    db_keepalives_count: int = Field(
        default=3,
        ge=1,
        le=100,
        validation_alias=AliasChoices("CARDTABLE_DB_KEEPALIVES_COUNT", "db_keepalives_count"),
    )
    """TCP keepalives on every database connection: after `idle` seconds of silence a probe every
    `interval` seconds, and the connection is dropped after `count` unanswered ones (so a database
    that vanished without closing the socket, as in a failover, is noticed in about 20 s even by
    a connection that only listens)."""

    db_tcp_user_timeout: float = Field(
        default=15.0,
        gt=0,
        le=3600,
        validation_alias=AliasChoices("CARDTABLE_DB_TCP_USER_TIMEOUT", "db_tcp_user_timeout"),
    )
    """Seconds data sent to the database may stay unacknowledged before the connection is dropped."""

    db_pool_wait: float = Field(
        default=10.0, gt=0, le=600, validation_alias=AliasChoices("CARDTABLE_DB_POOL_WAIT", "db_pool_wait")
    )
    """Seconds a request or a move waits for a pooled connection (also while the database comes
    back from a restart) before it is refused with an error the client may retry."""

    static_dir: Path = Field(
        default=PROJECT_ROOT / "static", validation_alias=AliasChoices("CARDTABLE_STATIC_DIR", "static_dir")
    )

    embedded_pg_port: int = Field(
        default=0,
        ge=0,
        le=65535,
        validation_alias=AliasChoices("CARDTABLE_EMBEDDED_PG_PORT", "embedded_pg_port"),
    )
    """Loopback port of the embedded PostgreSQL; 0 picks a free one at each start."""

    max_body_bytes: int = Field(
        default=64 * 1024,
        ge=1024,
        validation_alias=AliasChoices("CARDTABLE_MAX_BODY_BYTES", "max_body_bytes"),
    )
    """Largest request body accepted (413 beyond); every real request is a few hundred bytes."""

    login_max_failures: int = Field(
        default=10, ge=1, validation_alias=AliasChoices("CARDTABLE_LOGIN_MAX_FAILURES", "login_max_failures")
    )
    login_window_seconds: int = Field(
        default=600, ge=1, validation_alias=AliasChoices("CARDTABLE_LOGIN_WINDOW", "login_window_seconds")
    )
    """Sign-in limit: this many wrong passwords for one account, or from one client address, within
    the window make further attempts answer 429 until the oldest failure leaves the window."""

    deadline_scale: float = Field(
        default=1.0, gt=0, le=1, validation_alias=AliasChoices("CARDTABLE_DEADLINE_SCALE", "deadline_scale")
    )
    """Test-only: every deadline (a room's away grace and turn timer, 10-600 s) is scheduled at
    this share of its seconds, so tests wait a fraction of a second without the API accepting
    shorter settings for real rooms. Leave it at 1 in production."""

    deadline_poll: float = Field(
        default=1.0, gt=0, le=10, validation_alias=AliasChoices("CARDTABLE_DEADLINE_POLL", "deadline_poll")
    )
    """Seconds between two looks of each process for due deadlines (app/live/deadlines.py)."""

    idle_table_seconds: float = Field(
        default=300.0,
        gt=0,
        validation_alias=AliasChoices("CARDTABLE_IDLE_TABLE_SECONDS", "idle_table_seconds"),
    )
    """Seconds a running match nobody reads or moves, with no socket of this process in its
    room, stays in memory; it is loaded again from its log when someone comes back (a finished
    match with no socket leaves at the next sweep)."""

    table_sweep_seconds: float = Field(
        default=15.0,
        gt=0,
        le=60,
        validation_alias=AliasChoices("CARDTABLE_TABLE_SWEEP_SECONDS", "table_sweep_seconds"),
    )
    """Seconds between two looks of each process for tables to let go (app/live/tables.py)."""

    session_check: float = Field(
        default=30.0, gt=0, le=3600, validation_alias=AliasChoices("CARDTABLE_SESSION_CHECK", "session_check")
    )
    """Seconds between two checks of each process that the sessions of its open sockets still
    exist (a sign-out closes them at once; this catches sessions that ended otherwise)."""

    ice_servers: list[dict[str, Any]] = Field(
        default_factory=list, validation_alias=AliasChoices("CARDTABLE_ICE_SERVERS", "ice_servers")
    )
    """STUN/TURN servers for voice at the table, as JSON RTCIceServer objects, e.g.
    `[{"urls": "stun:stun.example.org:3478"}]`, handed as they are to people who join voice. Empty
    (the default): browsers connect directly, which works on one network; across home routers
    a STUN server, and behind strict NATs a TURN server, is needed (app/live/voice.py)."""

    turn_urls: list[str] = Field(
        default_factory=list, validation_alias=AliasChoices("CARDTABLE_TURN_URLS", "turn_urls")
    )
    """TURN server URLs (JSON list, e.g. `["turn:turn.example.org:3478?transport=udp"]`) whose
    credentials the server issues from `turn_secret`."""

    turn_secret: str | None = Field(
        default=None, validation_alias=AliasChoices("CARDTABLE_TURN_SECRET", "turn_secret")
    )
    """The secret shared with the TURN server (coturn's `static-auth-secret`): each person joining
    voice gets a username expiring after `turn_ttl` seconds and its HMAC, never the secret."""

    turn_ttl: int = Field(
        default=6 * 3600, ge=60, le=7 * 86400, validation_alias=AliasChoices("CARDTABLE_TURN_TTL", "turn_ttl")
    )
    """Seconds a person's TURN credentials stay valid (an evening's play; joining again renews them)."""

    ice_transport_policy: Literal["all", "relay"] = Field(
        default="all", validation_alias=AliasChoices("CARDTABLE_ICE_TRANSPORT_POLICY", "ice_transport_policy")
    )
    """"relay": voice only through the TURN server, so people in voice do not learn each other's
    network addresses (needs TURN; every packet then goes through it)."""

    @model_validator(mode="after")
    def _voice_servers(self) -> Settings:
        for server in self.ice_servers:
            urls = server.get("urls")
            if not (
                isinstance(urls, str)
                or (isinstance(urls, list) and urls and all(isinstance(u, str) for u in urls))
            ):
                raise ValueError("each of CARDTABLE_ICE_SERVERS needs 'urls': a URL or a list of URLs")
        if self.turn_secret and not self.turn_urls:
            raise ValueError("CARDTABLE_TURN_SECRET needs CARDTABLE_TURN_URLS (the TURN servers it is for)")
        return self

    def connection_options(self) -> ConnectionOptions:
        """The `db_*` settings, as every database connection takes them (app/store/db.py)."""
        return ConnectionOptions(
            connect_timeout=self.db_connect_timeout,
            statement_timeout=self.db_statement_timeout,
            keepalives_idle=self.db_keepalives_idle,
            keepalives_interval=self.db_keepalives_interval,
            keepalives_count=self.db_keepalives_count,
            tcp_user_timeout=self.db_tcp_user_timeout,
            pool_wait=self.db_pool_wait,
        )

    @property
    def sqlalchemy_url(self) -> str:
        if self.database_url is None:
            raise RuntimeError("no database URL: start the embedded PostgreSQL first")
        return normalize_database_url(self.database_url)


def websocket_server_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options for the room sockets: its websockets-sansio implementation as it ships,
    with this server's message limit and compression setting (pass them to `uvicorn.run` or
    `uvicorn.Config`). Keepalive pings are uvicorn's own (every 20 s, closed after 20 s without
    an answer)."""
    return {
        "ws": "websockets-sansio",
        "ws_max_size": MAX_MESSAGE_BYTES,
        "ws_per_message_deflate": settings.ws_compression == "stream",
    }
