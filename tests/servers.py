"""The one way a test runs the server as a process of its own: `AppServer`.

Most API tests serve the app inside their own event loop (tests/api/harness.py,
`running_server`). A test that needs what only a separate process shows (a kill, a restart, two
processes on one database, the command line itself, nginx in front) starts one here:

    with AppServer(database_url, workdir=tmp_path, env={"CARDTABLE_BOT_DELAY": "0.01"}) as app:
        httpx.get(f"{app.base_url}/api/games", verify=TLS)

- `start()` returns once `GET /readyz` (or `ready_path`) answers 200. When the process exits
  first, or does not answer within `start_timeout` seconds (it is killed then), it raises
  `ServerDidNotStart` with what the process printed during that start and the end of any
  `also_show` logs (the embedded PostgreSQL's `pgdata/server.log`, say).
- `stop()` asks it to stop (SIGTERM, as a service manager does; `stop(signal.SIGINT)` is Ctrl+C),
  kills it after `stop_timeout` seconds, and returns its exit status (None when not known: a
  forked server). `kill()` is SIGKILL, a crash. The same object starts again on the same port
  and database (a restart); every start's output is appended to `workdir/<name>-<port>.log`
  (`printed()`).
- `run_until_exit()` is a start expected to fail (a second server on a port in use, say): it
  waits for the process to end by itself, not to be ready, and returns its exit status and
  what it printed; one still running after `start_timeout` seconds is killed and fails the test.
- The environment is this process's without DATABASE_URL, then `database_url` (None: the
  server runs its embedded PostgreSQL, under CARDTABLE_DATA_DIR if `env` names one),
  CARDTABLE_PORT, CARDTABLE_PUBSUB (`pubsub`), the CARDTABLE_TEST_RUN marker by which
  scripts/test.sh finds the processes a run left behind, and `env` last (any CARDTABLE_*
  setting). It is kept in `.env`, which a test may change before a start.
- Each start gets a short temporary folder (TMPDIR) of its own, removed once the process has
  ended: a killed server cannot remove the one its bot pool's forkserver listens in, and an
  AF_UNIX socket's path there must stay under 108 bytes.

Several processes on one database and the LISTEN/NOTIFY bus, stopped together:

    servers = [AppServer(url, workdir=tmp, pubsub="postgres", name=f"app{n}") for n in range(2)]
    try:
        for server in servers:
            server.start()
        ...
    finally:
        stop_all(servers)

The embedded PostgreSQL, its log shown when a start fails (tests/api/test_crash_restart.py):

    data = cluster_home / "data"
    AppServer(None, workdir=cluster_home, env={"CARDTABLE_DATA_DIR": str(data)},
              also_show=[data / "pgdata" / "server.log"])

`spawn` says how the process starts: `python -m app` by default, `python_m_app_with("--port",
"8123")` with options on its command line; the browser tests pass their forkserver's
(tests/browser/server_fork.py), which forks a server that has imported the app already, for
speed.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Protocol

PROJECT_ROOT = Path(__file__).resolve().parents[1]
TEST_RUN_MARKER = "CARDTABLE_TEST_RUN"
"""The variable scripts/test.sh sets for a run; every process a test starts must carry it."""
PRINTED_CHARS = 6000
"""How much of the end of a failed server's output (and of each `also_show` log) is shown."""


class ServerDidNotStart(AssertionError):
    """The server exited during its start or did not answer in time; says what it printed."""


class Launched(Protocol):
    """A started server process, however it was started."""

    pid: int

    def running(self) -> bool: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...

    def send_signal(self, number: int) -> None: ...

    def wait(self, timeout: float | None = None) -> object:
        """Wait until it has exited (its exit status, if known); raise
        `subprocess.TimeoutExpired` after `timeout` seconds."""
        ...


Spawn = Callable[[dict[str, str], Path], Launched]
"""Starts a server with this environment, its output appended to this log file."""


class _Child:
    """A `python -m app` child of this process."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.pid = process.pid

    def running(self) -> bool:
        return self.process.poll() is None

    def terminate(self) -> None:
        self.process.terminate()

    def kill(self) -> None:
        self.process.kill()

    def send_signal(self, number: int) -> None:
        self.process.send_signal(number)

    def wait(self, timeout: float | None = None) -> object:
        return self.process.wait(timeout)


def launch(command: Sequence[str], env: dict[str, str], log: Path) -> Launched:
    """`command` run from the project's root as a child of this process, its output appended to
    `log`."""
    with log.open("ab") as sink:
        process = subprocess.Popen(
            list(command),
            cwd=PROJECT_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    return _Child(process)


def python_m_app(env: dict[str, str], log: Path) -> Launched:
    """`python -m app` from the project's root, as people run it."""
    return launch([sys.executable, "-m", "app"], env, log)


def python_m_app_with(*options: str) -> Spawn:
    """`python -m app` with `options` on its command line (`--port 8123`, say)."""
    return lambda env, log: launch([sys.executable, "-m", "app", *options], env, log)


def free_port() -> int:
    """A loopback TCP port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _tail(path: Path, start: int = 0) -> str:
    try:
        with path.open("rb") as log:
            log.seek(start)
            return log.read().decode(errors="replace")[-PRINTED_CHARS:]
    except OSError:
        return ""


class AppServer:
    """One server process on a port of its own (see the module's docstring for its use)."""

    def __init__(
        self,
        database_url: str | None,
        *,
        workdir: Path,
        port: int | None = None,
        pubsub: str | None = None,
        env: Mapping[str, str] | None = None,
        name: str = "app",
        spawn: Spawn = python_m_app,
        ready_path: str = "/readyz",
        start_timeout: float = 60,
        stop_timeout: float = 30,
        also_show: Sequence[Path] = (),
    ) -> None:
        self.port = free_port() if port is None else port
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
        if database_url is not None:
            self.env["DATABASE_URL"] = database_url
        self.env["CARDTABLE_PORT"] = str(self.port)
        if pubsub is not None:
            self.env["CARDTABLE_PUBSUB"] = pubsub
        if TEST_RUN_MARKER in os.environ:
            self.env[TEST_RUN_MARKER] = os.environ[TEST_RUN_MARKER]
        self.env.update(env or {})
        workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = workdir / f"{name}-{self.port}.log"
        self.spawn = spawn
        self.ready_path = ready_path
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.also_show = list(also_show)
        self.process: Launched | None = None
        self._scratch: Path | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None, "the server is not running"
        return self.process.pid

    def start(self) -> None:
        """Start the server and return when it is ready; raise `ServerDidNotStart` if it exits
        first or does not answer within `start_timeout` seconds (then it is killed)."""
        printed_from = self._launch()
        deadline = time.monotonic() + self.start_timeout
        while True:
            assert self.process is not None
            if not self.process.running():
                self._ended()
                raise ServerDidNotStart(self._report("exited instead of starting", printed_from))
            if self._answers():
                return
            if time.monotonic() > deadline:
                self.kill()
                raise ServerDidNotStart(
                    self._report(f"did not answer within {self.start_timeout} s", printed_from)
                )
            time.sleep(0.05)

    def run_until_exit(self) -> tuple[int | None, str]:
        """Start the server and wait for it to end by itself, not to be ready: a start expected
        to fail. Its exit status (None when not known: a forked server) and what it printed
        during this run. One still running after `start_timeout` seconds is killed, and the
        AssertionError raised then shows what it printed."""
        printed_from = self._launch()
        assert self.process is not None
        try:
            status = self.process.wait(self.start_timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(
                self._report(f"still ran after {self.start_timeout} s instead of exiting", printed_from)
            ) from None
        self._ended()
        return (status if isinstance(status, int) else None), _tail(self.log_path, printed_from)

    def stop(self, how: signal.Signals = signal.SIGTERM) -> int | None:
        """SIGTERM, as a service manager stops it (or `how`: SIGINT is Ctrl+C); SIGKILL if it has
        not ended in time. Its exit status, when known (None for a forked server, or one that
        was not running)."""
        if self.process is None:
            return None
        self.process.send_signal(how)
        return self._wait_ended()

    def kill(self) -> None:
        """SIGKILL, as a crash: the server gets no chance to clean up or hand anything over."""
        if self.process is not None:
            self.process.kill()
            self._wait_ended()

    def printed(self) -> str:
        """The end of what the server has printed (every start of it, in its log)."""
        return _tail(self.log_path)

    def __enter__(self) -> AppServer:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def _launch(self) -> int:
        """Spawn the process with a temporary folder of its own; where its output starts in the
        log."""
        assert self.process is None, "the server is running already"
        printed_from = self.log_path.stat().st_size if self.log_path.exists() else 0
        self._scratch = Path(tempfile.mkdtemp(prefix="ct-app-"))
        self.process = self.spawn({**self.env, "TMPDIR": str(self._scratch)}, self.log_path)
        return printed_from

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}{self.ready_path}", timeout=2) as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False

    def _wait_ended(self) -> int | None:
        """Wait for the signalled process to end (SIGKILL after `stop_timeout` seconds)."""
        assert self.process is not None
        try:
            status = self.process.wait(self.stop_timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = self.process.wait()
        self._ended()
        return status if isinstance(status, int) else None

    def _ended(self) -> None:
        self.process = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def _report(self, what: str, printed_from: int) -> str:
        parts = [f"the server on port {self.port} {what}; it printed:\n{_tail(self.log_path, printed_from)}"]
        parts += [f"the end of {path}:\n{_tail(path)}" for path in self.also_show if path.exists()]
        return "\n".join(parts)


def stop_all(servers: Sequence[AppServer]) -> None:
    """Ask every server to stop at once (SIGTERM), then wait for each: stopping several takes
    the time of the slowest, not of all in turn."""
    running = [server for server in servers if server.process is not None]
    for server in running:
        assert server.process is not None
        server.process.terminate()
    for server in running:
        server._wait_ended()
