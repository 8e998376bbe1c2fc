"""Starts the browser tests' servers by forking one process that has imported the server once.

Every browser test runs its own `python -m app`, and a start spends about a second of CPU, most of
it importing FastAPI, SQLAlchemy, pydantic and the app's own modules; 81 tests paid that 81 times
in a suite that is CPU-bound. So each pytest worker keeps one such parent: it imports
`app.__main__` once and then, for each server asked for, forks a child that takes the test's
environment and runs `app.__main__.main()`, exactly what `python -m app` runs after its imports.

The parent is this module run as `python -m tests.browser.server_fork`; it reads one JSON request
per line on stdin (`{"env": {...}, "log": path}`), answers each with the child's pid on stdout,
reaps its children as they exit, and exits when stdin closes (its pytest worker ended or died).
`ServerForks.start` is the `spawn` of tests/servers.py's `AppServer` for the browser tests
(tests/browser/conftest.py, `ServerProcess`), which waits for the child to be ready and stops
it like any other server; the api tests start `python -m app` itself through the same class.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]


class ForkedServer:
    """One server forked by the parent (not a child of the test's process, so no `Popen`)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def running(self) -> bool:
        """Whether it has not exited yet (the parent reaps it as soon as it exits)."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def send_signal(self, number: int) -> None:
        self._signal(number)

    def wait(self, timeout: float | None = None) -> None:
        """Wait until it has exited; raise `subprocess.TimeoutExpired` after `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.running():
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"server {self.pid}", timeout or 0)
            time.sleep(0.05)

    def _signal(self, number: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, number)


class ServerForks:
    """This pytest worker's parent process, started at the first server asked for."""

    def __init__(self) -> None:
        self._parent: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def start(self, env: dict[str, str], log: Path) -> ForkedServer:
        with self._lock:
            parent = self._running()
            assert parent.stdin is not None and parent.stdout is not None
            parent.stdin.write(json.dumps({"env": env, "log": str(log)}) + "\n")
            parent.stdin.flush()
            answer = parent.stdout.readline()
            if not answer:
                self._parent = None
                raise RuntimeError(f"the server parent exited with {parent.wait()}")
            return ForkedServer(int(answer))

    def stop(self) -> None:
        """Close the parent's stdin: it exits (its running children are the tests' to stop)."""
        with self._lock:
            parent, self._parent = self._parent, None
        if parent is not None:
            assert parent.stdin is not None
            parent.stdin.close()
            try:
                parent.wait(timeout=10)
            except subprocess.TimeoutExpired:
                parent.kill()
                parent.wait()

    def _running(self) -> subprocess.Popen[str]:
        if self._parent is not None and self._parent.poll() is None:
            return self._parent
        self._parent = subprocess.Popen(
            [sys.executable, "-m", "tests.browser.server_fork"],
            cwd=PROJECT_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        return self._parent


def _reap(signum: int, frame: object) -> None:
    """Collect every child that has exited, so `ForkedServer.running` sees it gone at once."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _run_child(env: dict[str, str], log: str) -> None:
    """In the forked child: the test's environment and log, then the server's own `main()`.
    The request and answer pipes were stdin and stdout: both now point elsewhere."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(null)
    os.close(out)
    os.environ.clear()
    os.environ.update(env)
    # The temporary folder the test gave it (TMPDIR: tests/servers.py makes one per start and
    # removes it when the server has ended, as `os._exit` below skips multiprocessing's clean-up
    # of the folder its bot and review workers' forkserver listens in). tempfile read TMPDIR
    # once, in the parent: forget it, so that this process reads it again.
    tempfile.tempdir = None
    from app.__main__ import main

    code = 0
    try:
        main()
    except SystemExit as exit_:
        code = 0 if exit_.code is None else exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def serve_forks() -> None:
    """The parent: import the server, then fork one child per request line until stdin closes."""
    import app.__main__  # noqa: F401  (what every child would otherwise import again)

    if threading.active_count() != 1:
        raise RuntimeError("importing the server started a thread: forking it would not be safe")
    signal.signal(signal.SIGCHLD, _reap)
    requests, answers = sys.stdin, sys.stdout
    for line in requests:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _run_child(request["env"], request["log"])
        answers.write(f"{pid}\n")
        answers.flush()


if __name__ == "__main__":
    serve_forks()
