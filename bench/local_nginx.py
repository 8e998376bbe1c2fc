"""The shipped nginx site run by Debian's nginx in front of app processes on this machine.

deploy/nginx/default.conf and proxy.conf as shipped, with only Docker's names swapped for local
ones: the `app` replicas become the given loopback ports, port 80 a free loopback port, and the
container path of proxy.conf the repository's file. Each process is a `server` line of its own,
and the site's hash on the room code chooses among them as among the addresses Docker's DNS
gives for the replicas (nginx hashes onto addresses, one peer each). tests/api/test_proxy.py
and test_failover.py play through it, and `bench/load.py --processes 2` measures through it, so
the proxy that is tested and measured is the one that is shipped; `stop_processes` stops the app
processes behind it. It imports only httpx and the embedded PostgreSQL module's port helper, so
the tests take it without the benchmark's heavy imports.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from app.store.embedded_pg import free_loopback_port

PROJECT_ROOT = Path(__file__).resolve().parents[1]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
SHIPPED_SITE = PROJECT_ROOT / "deploy" / "nginx" / "default.conf"
SHIPPED_PROXY = PROJECT_ROOT / "deploy" / "nginx" / "proxy.conf"
UPSTREAM_HEADER = "X-Upstream"
"""Added to every answer of the local site: which app process served it (for placing clients)."""

NGINX_MAIN = """
worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections {connections}; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {site};
}}
"""
"""nginx's main file around the shipped site file, with temporary paths in a folder of its own.
One worker, as a small deployment's proxy in front of a few replicas."""


def replace_once(text: str, old: str, new: str) -> str:
    """Rewrite one line of the shipped file, failing loudly if that line is no longer there."""
    if text.count(old) != 1:
        raise ValueError(f"deploy/nginx/default.conf no longer has exactly one {old!r}")
    return text.replace(old, new)


def local_site(ports: list[int], port: int) -> str:
    """The shipped site pointed at the app processes on `ports`, listening on loopback `port`."""
    site = SHIPPED_SITE.read_text()
    shipped = re.search(r"server app:8000([^;]*);", site)
    if shipped is None:
        raise ValueError("deploy/nginx/default.conf no longer has its `server app:8000` line")
    site = replace_once(
        site, shipped.group(0), " ".join(f"server 127.0.0.1:{p}{shipped.group(1)};" for p in ports)
    )
    site = replace_once(site, "listen 80;", f"listen 127.0.0.1:{port};")
    return replace_once(
        site,
        "include /etc/nginx/cardtable/proxy.conf;",
        f"include {SHIPPED_PROXY};\n        add_header {UPSTREAM_HEADER} $upstream_addr always;",
    )


def write_config(ports: list[int], port: int, workdir: Path, connections: int = 256) -> Path:
    """Write the main file and the local site into `workdir`; the main file's path."""
    site = workdir / "site.conf"
    site.write_text(local_site(ports, port))
    conf = workdir / "nginx.conf"
    conf.write_text(NGINX_MAIN.format(dir=workdir, site=site, connections=connections))
    return conf


def nginx_command(conf: Path, *extra: str) -> list[str]:
    if NGINX is None:
        raise RuntimeError("nginx is not installed (scripts/setup.sh --browser installs it)")
    return [NGINX, "-p", str(conf.parent), "-c", str(conf), *extra]


@dataclass
class LocalNginx:
    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def nginx_in_front(ports: list[int], workdir: Path, connections: int = 256) -> Iterator[LocalNginx]:
    """nginx running the local site in front of `ports` until the block ends. `connections` is
    the worker's limit; each proxied socket takes two (the client's and the upstream one)."""
    port = free_loopback_port()
    conf = write_config(ports, port, workdir, connections)
    process = subprocess.Popen(nginx_command(conf), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            if process.poll() is not None:
                raise RuntimeError((workdir / "error.log").read_text(errors="replace"))
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise RuntimeError("nginx did not come up") from None
                time.sleep(0.1)
        yield LocalNginx(port, process)
    finally:
        stop_processes([process], timeout=10)


def stop_processes(processes: Iterable[subprocess.Popen[bytes] | None], timeout: float = 30) -> None:
    """Ask every process to stop (SIGTERM) at once, then wait for each; one that does not stop
    within `timeout` seconds is killed."""
    started = [process for process in processes if process is not None]
    for process in started:
        process.terminate()
    for process in started:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
