"""The server's tests run on three xdist workers (scripts/test.sh: `-n 3 --dist loadgroup`), except
the modules below, which start processes of their own (app servers, nginx, PostgreSQL, bot
workers, a schema fuzzer): they are split in two groups, each on one worker, one module after
another, so that at most two such sets of processes compete with the third worker's tests for
the machine's cores. The two longest (the schema fuzzer and the ten kills, each 2-3 minutes
under the suite's load) are in different groups: on one worker they were the api pass's
longest path."""

from __future__ import annotations

import pytest

OWN_PROCESSES = {
    "test_openapi_conformance.py": "processes-a",
    "test_process.py": "processes-a",
    "test_proxy.py": "processes-a",
    "test_app_server.py": "processes-a",
    "test_database_faults.py": "processes-a",
    "test_crash_restart.py": "processes-b",
    "test_bot_pool.py": "processes-b",
}
"""Module -> the xdist group (one worker) its tests run on."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = OWN_PROCESSES.get(item.path.name)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
