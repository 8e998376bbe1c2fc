"""`python -m tests.cluster_guard PID FOLDER`: once process PID has ended, stop every PostgreSQL
whose cluster lies in FOLDER and remove FOLDER.

The tests' own clusters live in random folders (tests/conftest.py, `cluster_folder`) that no
later run adopts, so a test process that dies before its teardown (killed, or a worker ended by
its pool's exit watch) would leave them running for good. `cluster_folder` starts this guard
beside each folder and ends it in the teardown.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import sys
import time
from pathlib import Path

from app.store.embedded_pg import PostmasterLock

SETTLE_S = 2.0
"""How long the stopped servers get to exit before their files are removed."""


def stop_clusters(folder: Path) -> None:
    """PostgreSQL's immediate shutdown (SIGQUIT) for each postmaster of a cluster in `folder`
    that is still running: its lock file's PID, checked against the start time the lock file
    records, so a process that merely reused the PID is left alone."""
    for lock_file in folder.rglob(PostmasterLock.FILE_NAME):
        try:
            lock = PostmasterLock.read(lock_file.parent)
        except OSError:
            continue
        if lock is not None and lock.names_a_live_postmaster():
            with contextlib.suppress(ProcessLookupError):
                os.kill(lock.pid, signal.SIGQUIT)


def main(watched_pid: int, folder: Path) -> None:
    with contextlib.suppress(ProcessLookupError):
        ended = os.pidfd_open(watched_pid)  # readable once the process has exited
        select.select([ended], [], [])
    stop_clusters(folder)
    time.sleep(SETTLE_S)
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), Path(sys.argv[2]))
