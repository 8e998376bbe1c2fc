"""The tests' own PostgreSQL clusters do not outlive a test process that dies without its
teardown (tests/conftest.py, `cluster_folder`): its guard stops them and removes their folder."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from tests.conftest import CLUSTER_GUARD


def _pid_file(cluster: Path, pid: int) -> None:
    cluster.mkdir(parents=True)
    (cluster / "postmaster.pid").write_text(f"{pid}\n{cluster}\n1700000000\n5432\n")


def test_a_dead_test_process_s_clusters_are_stopped_and_their_folder_removed(tmp_path: Path) -> None:
    home = tmp_path / "clusters"
    postmaster = subprocess.Popen(["postgres-stand-in", "60"], executable="/bin/sleep")
    unrelated = subprocess.Popen(["sleep", "60"])  # a reused pid: not a PostgreSQL, left alone
    test_process = subprocess.Popen(["sleep", "60"])
    guard = None
    try:
        _pid_file(home / "pgdata", postmaster.pid)
        _pid_file(home / "stale" / "pgdata", unrelated.pid)
        guard = subprocess.Popen(["sh", "-c", CLUSTER_GUARD, "guard", str(test_process.pid), str(home)])
        time.sleep(1.5)
        assert postmaster.poll() is None and home.exists()  # nothing happens while the test runs

        test_process.kill()
        test_process.wait()
        assert guard.wait(timeout=15) == 0
        assert postmaster.wait(timeout=5) == -signal.SIGQUIT  # PostgreSQL's immediate shutdown
        assert unrelated.poll() is None
        assert not home.exists()
    finally:
        for process in (postmaster, unrelated, test_process, guard):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
