"""The app factory: wires settings, database, pub/sub, the table service and the routes.

Start-up (in the lifespan): migrate to head and seed (when `migrate_on_start`), sync the game
catalog from the engine registry, then resume every unfinished match from its log, and start
looking for match reviews to run (app/live/reviews.py: waiting ones, and those a dead process
left).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from functools import partial

from fastapi import FastAPI

from app.config import Settings
from app.errors import install_error_handlers
from app.live.bot_pool import BotPool
from app.live.bus import rooms_read_again
from app.live.deadlines import Deadlines
from app.live.presence import Presence
from app.live.pubsub import InProcessPubSub, PostgresPubSub, PubSub
from app.live.reviews import Reviews
from app.live.sessions import SessionWatch
from app.live.tables import TableService
from app.metrics import Metrics
from app.middleware import RequestGuard, SecurityHeaders
from app.routes import chat, games, health, hints, history, people, replays, rooms, ws
from app.routes import metrics as metrics_route
from app.routes.docs import mount_docs
from app.routes.pages import mount_client
from app.routes.socket_routes import CardTableApp
from app.services import Services
from app.store.catalog import seed_presets, sync_catalog
from app.store.db import LISTEN, NOTIFY, Database, migrate
from engine.analysis import DEFAULT_BUDGET

log = logging.getLogger(__name__)


async def prepare_database(db: Database, *, run_migrations: bool) -> None:
    """Migrate (in a thread: Alembic is synchronous), then upsert the catalog and the seeds."""
    if run_migrations:
        await asyncio.to_thread(migrate, db.url)
    async with db.session() as session:
        await sync_catalog(session)
    async with db.session() as session:
        await seed_presets(session)


async def make_pubsub(settings: Settings, db: Database) -> PubSub:
    if settings.pubsub == "postgres":
        bus = PostgresPubSub(db.conninfo(LISTEN), db.conninfo(NOTIFY))
        await bus.start()
        return bus
    return InProcessPubSub()


async def heard_again(bus: PostgresPubSub, tables: TableService) -> None:
    """The bus's listener connected again: what the other processes announced meanwhile is
    read from the store (every live table catches up) and every room is read again."""
    await tables.catch_up_all()
    rooms_read_again(bus)


def create_app(settings: Settings | None = None, pubsub: PubSub | None = None) -> FastAPI:
    settings = settings or Settings()
    if settings.database_url is None:
        raise RuntimeError(
            "DATABASE_URL is not set: run `python -m app` (it starts an embedded PostgreSQL) or set it"
        )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = Database(
            settings.sqlalchemy_url,
            settings.db_pool_size,
            settings.db_pool_size,
            options=settings.connection_options(),
        )
        bus = pubsub or await make_pubsub(settings, db)
        bots = BotPool(settings.bot_workers, settings.bot_budget)
        tables = TableService(
            db, bus, settings.bot_delay, bots, settings.bot_level, settings.deal_seed,
            idle_after=settings.idle_table_seconds, sweep_every=settings.table_sweep_seconds,
        )  # fmt: skip
        presence = Presence(db, deadline_scale=settings.deadline_scale)
        tables.watched = presence.watching
        deadlines = Deadlines(
            db, bus, tables, presence.process_id, scale=settings.deadline_scale, poll=settings.deadline_poll
        )
        tables.clock = deadlines
        metrics = Metrics(presence.process_id)
        metrics.track_live_tables(tables.live_count)
        tables.metrics = metrics
        reviews = Reviews(
            db, tables.store, presence.process_id, workers=settings.analysis_workers,
            budget=replace(DEFAULT_BUDGET, playouts=settings.analysis_playouts),
            lease=settings.analysis_lease, beat=settings.analysis_beat, poll=settings.analysis_poll,
            metrics=metrics,
        )  # fmt: skip
        tables.match_ended = lambda match_id: reviews.kick()
        if isinstance(bus, PostgresPubSub):
            bus.on_delay = metrics.pubsub_delay_seconds.observe
            bus.on_heard_again = partial(heard_again, bus, tables)
        sessions = SessionWatch(db, bus, settings.session_check)
        metrics.track_sockets(sessions.socket_count)
        app.state.services = Services(
            settings=settings,
            db=db,
            pubsub=bus,
            tables=tables,
            presence=presence,
            sessions=sessions,
            metrics=metrics,
            reviews=reviews,
        )
        try:
            await prepare_database(db, run_migrations=settings.migrate_on_start)
            await presence.start()
            await tables.start()
            await sessions.start()
            resumed = await tables.resume_all()
            if resumed:
                log.info("resumed %d unfinished match(es) from their logs", resumed)
            await deadlines.start()
            await reviews.start()
            yield
        finally:
            await reviews.close()
            await deadlines.close()
            await sessions.close()
            await tables.close()
            await presence.close()
            await bus.close()
            await db.dispose()

    app = CardTableApp(title="Card table", lifespan=lifespan, docs_url=None, redoc_url=None)
    install_error_handlers(app)
    # Outermost last: every answer, refusals of the guard included, carries the security headers.
    app.add_middleware(RequestGuard, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders)
    for module in (health, metrics_route, people, games, rooms, history, replays, chat, hints):
        app.include_router(module.router)
    app.add_socket_route("/ws/rooms/{code}", ws.room_socket)
    mount_docs(app)
    mount_client(app, settings.static_dir)
    return app
