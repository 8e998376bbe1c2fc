"""Schema and seeds: the migrations match the models, run both ways, and seeding is idempotent."""

from __future__ import annotations

import asyncio

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, text

from app.main import prepare_database
from app.store.catalog import load_presets
from app.store.db import Database, alembic_config
from app.store.models import Base
from engine import GAMES


def test_the_migrations_produce_exactly_the_models_schema(database_url: str) -> None:
    engine = create_engine(database_url)
    with engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    engine.dispose()
    assert differences == []


def test_the_migrations_downgrade_to_nothing_and_upgrade_again(database_url: str) -> None:
    config = alembic_config(database_url)
    command.downgrade(config, "base")
    engine = create_engine(database_url)
    with engine.connect() as conn:
        tables = conn.execute(text("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).scalar_one()
    assert tables == 1  # only alembic_version is left
    command.upgrade(config, "head")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT to_regclass('match_actions')")).scalar_one() == "match_actions"
    engine.dispose()


def test_seeding_twice_changes_nothing_and_restores_the_catalog(database_url: str) -> None:
    engine = create_engine(database_url)

    def snapshot() -> tuple[list, list]:
        with engine.connect() as conn:
            games = conn.execute(
                text("SELECT id, names, min_players, max_players, default_options FROM games ORDER BY id")
            ).all()
            presets = conn.execute(
                text("SELECT game_id, key, options, seats, position FROM presets ORDER BY game_id, key")
            ).all()
        return games, presets

    before = snapshot()
    assert [row[0] for row in before[0]] == sorted(GAMES)
    for game_id in GAMES:
        listed = {p["key"] for p in load_presets().get(game_id, [])} | {"default"}
        assert {row[1] for row in before[1] if row[0] == game_id} <= listed
    with engine.begin() as conn:
        conn.execute(text("UPDATE games SET max_players = 99 WHERE id = 'holy-grail'"))

    async def seed_again() -> None:
        database = Database(database_url)
        try:
            await prepare_database(database, run_migrations=True)
        finally:
            await database.dispose()

    asyncio.run(seed_again())
    assert snapshot() == before
    engine.dispose()
