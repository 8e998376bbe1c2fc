"""The server's tests run on two xdist workers (scripts/test.sh: `-n 2 --dist loadgroup`), except
the modules below, which start processes of their own (app servers, nginx, PostgreSQL, bot
workers, a schema fuzzer): they share one worker, one after another, so that at most one such
set of processes competes with the other worker's tests for the machine's cores."""

from __future__ import annotations

import pytest

OWN_PROCESSES = frozenset(
    {
        "test_bot_pool.py",
        "test_crash_restart.py",
        "test_openapi_conformance.py",
        "test_process.py",
        "test_proxy.py",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in OWN_PROCESSES:
            item.add_marker(pytest.mark.xdist_group("processes"))
