"""The tests' own PostgreSQL clusters do not outlive a test process that dies without its
teardown (tests/conftest.py, `cluster_folder`): its guard, tests/cluster_guard.py, stops them and
removes their folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from app.store.embedded_pg import EmbeddedPostgres
from tests.conftest import PROJECT_ROOT, cluster_folder


def _pid_file(cluster: Path, pid: int, started: int) -> None:
    cluster.mkdir(parents=True)
    (cluster / "postmaster.pid").write_text(f"{pid}\n{cluster}\n{started}\n5432\n")


def test_a_dead_test_process_s_clusters_are_stopped_and_their_folder_removed() -> None:
    test_process = subprocess.Popen(["sleep", "60"])
    unrelated = subprocess.Popen(["sleep", "60"])  # a PID reused since a crash: left alone
    guard = None
    postmaster = 0
    with cluster_folder("cardtable-test-guarded-") as home:
        server = EmbeddedPostgres(home / "pgdata", database="postgres", fast_unsafe=True)
        try:
            server.start()
            postmaster = int((home / "pgdata" / "postmaster.pid").read_text().split()[0])
            _pid_file(home / "stale" / "pgdata", unrelated.pid, started=1_700_000_000)
            guard = subprocess.Popen(
                [sys.executable, "-m", "tests.cluster_guard", str(test_process.pid), str(home)],
                cwd=PROJECT_ROOT,
            )
            time.sleep(1)
            assert guard.poll() is None  # nothing happens while the test process runs
            assert Path(f"/proc/{postmaster}").exists()

            test_process.kill()
            test_process.wait()
            assert guard.wait(timeout=30) == 0
            assert not Path(f"/proc/{postmaster}").exists()
            assert unrelated.poll() is None
            assert not home.exists()
        finally:
            for process in (test_process, unrelated, guard):
                if process is not None and process.poll() is None:
                    process.kill()
                    process.wait()
            if postmaster and Path(f"/proc/{postmaster}").exists():
                os.kill(postmaster, signal.SIGQUIT)  # the guard failed: stop the server ourselves
