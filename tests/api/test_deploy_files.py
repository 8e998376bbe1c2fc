"""The Docker deployment files agree with each other and with the repository.

No Docker engine runs on the test machines, so `docker compose up` itself is never run here;
tests/api/test_proxy.py runs the shipped nginx site file in front of two app processes. These
checks catch the drift that would only show when someone runs compose: a mounted file that moved,
a service renamed on one side only, replicas without the shared pub/sub, an app port published
to the host (which stops `--scale`), an image missing a folder the server reads at run time.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from app.routes import chat, rooms
from engine._mode import SERVER_MODULES

PROJECT_ROOT = Path(__file__).resolve().parents[2]
COMPOSE: dict[str, Any] = yaml.safe_load((PROJECT_ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]
SITE = (PROJECT_ROOT / "deploy" / "nginx" / "default.conf").read_text()


def bind_mounts(service: str) -> dict[str, Path]:
    """Container path -> repository file for a service's `./…:/…` volumes."""
    mounts: dict[str, Path] = {}
    for volume in SERVICES[service].get("volumes", []):
        source, target, *_ = volume.split(":")
        if source.startswith("./"):
            mounts[target] = PROJECT_ROOT / source
    return mounts


def proxy_site_file() -> Path:
    """The repository file nginx reads as its site configuration."""
    return bind_mounts("proxy")["/etc/nginx/conf.d/default.conf"]


def test_every_file_compose_mounts_is_in_the_repository() -> None:
    for service in SERVICES:
        for target, source in bind_mounts(service).items():
            assert source.is_file(), f"{service} mounts {source} at {target}, which does not exist"
    assert proxy_site_file() == PROJECT_ROOT / "deploy" / "nginx" / "default.conf"


def test_the_site_file_includes_proxy_conf_where_compose_mounts_it() -> None:
    included = re.findall(r"^\s*include\s+(\S+);", SITE, flags=re.MULTILINE)
    mounts = bind_mounts("proxy")
    assert included, "default.conf includes no proxy settings"
    for path in included:
        assert path in mounts, f"default.conf includes {path}, which compose does not mount"
    assert PROJECT_ROOT / "deploy" / "nginx" / "proxy.conf" in [mounts[p] for p in included]


def test_nginx_sends_traffic_to_the_app_service_on_the_port_it_listens_on() -> None:
    app = SERVICES["app"]
    upstream_hosts = re.findall(r"^\s*server\s+([\w.-]+):(\d+)[^;]*;", SITE, flags=re.MULTILINE)
    assert upstream_hosts == [("app", str(app["environment"]["CARDTABLE_PORT"]))]
    assert [str(port) for port in app["expose"]] == [str(app["environment"]["CARDTABLE_PORT"])]
    assert app["environment"]["CARDTABLE_HOST"] == "0.0.0.0"
    listen = re.findall(r"^\s*listen\s+(\d+);", SITE, flags=re.MULTILINE)
    published = [str(port).split(":") for port in SERVICES["proxy"]["ports"]]
    assert [container for _host, container in published] == listen


def test_app_replicas_can_scale_and_share_tables() -> None:
    app = SERVICES["app"]
    # A host port on the app would let only one replica start; nginx is the only way in.
    assert "ports" not in app
    assert app["deploy"]["replicas"] >= 2
    # Several replicas only see each other's table events through PostgreSQL.
    assert app["environment"]["CARDTABLE_PUBSUB"] == "postgres"
    assert "postgres" in app["depends_on"]
    assert app["depends_on"]["postgres"]["condition"] == "service_healthy"


def test_the_app_connects_to_the_postgres_service_with_its_credentials() -> None:
    database = urlsplit(SERVICES["app"]["environment"]["DATABASE_URL"])
    postgres = SERVICES["postgres"]["environment"]
    assert database.scheme == "postgresql+psycopg"
    assert database.hostname == "postgres" and database.port == 5432
    assert database.username == postgres["POSTGRES_USER"]
    assert database.password == postgres["POSTGRES_PASSWORD"]
    assert database.path.lstrip("/") == postgres["POSTGRES_DB"]


def copied_sources(dockerfile: str) -> set[str]:
    """What the `COPY` lines of (part of) a Dockerfile copy in, as paths from the project root."""
    copied: set[str] = set()
    for line in dockerfile.splitlines():
        if line.startswith("COPY "):
            *sources, _target = shlex.split(line)[1:]
            copied.update(source.rstrip("/") for source in sources)
    return copied


def test_the_image_holds_everything_the_server_reads_at_run_time() -> None:
    dockerfile = (PROJECT_ROOT / "Dockerfile").read_text()
    copied = copied_sources(dockerfile)
    for source in copied:
        assert (PROJECT_ROOT / source).exists(), f"the Dockerfile copies {source}, which does not exist"
    # The packages, the migrations `python -m app` runs at start, the seed data and the client.
    assert {"pyproject.toml", "app", "engine", "alembic.ini", "migrations", "seeds", "static"} <= copied
    ignored = {
        line.strip() for line in (PROJECT_ROOT / ".dockerignore").read_text().splitlines() if line.strip()
    }
    assert not copied & ignored, f".dockerignore leaves out what the Dockerfile copies: {copied & ignored}"
    assert 'CMD ["python", "-m", "app"]' in dockerfile


def test_the_image_has_every_compiled_server_module_before_the_step_that_compiles_them() -> None:
    """The server modules built with the engine (engine/_mode.py `SERVER_MODULES`) are copied in
    one by one, ahead of the rest of `app/`, so that a change elsewhere in the server does not
    compile again: a module added to that list and not to the Dockerfile would run from its
    source in the image, slower, and nothing else would say so."""
    dockerfile = (PROJECT_ROOT / "Dockerfile").read_text()
    copied_before = copied_sources(dockerfile[: dockerfile.index("python -m engine.build")])

    def copied(path: str) -> bool:  # the file itself, or a folder it is in
        parts = path.split("/")
        return any("/".join(parts[:n]) in copied_before for n in range(1, len(parts) + 1))

    assert SERVER_MODULES, "no server module is compiled: this test has nothing to check"
    for module in SERVER_MODULES:
        parts = module.split(".")
        packages = {"/".join(parts[:n]) + "/__init__.py" for n in range(1, len(parts))}
        missing = sorted(path for path in {"/".join(parts) + ".py", *packages} if not copied(path))
        assert not missing, f"{module} is compiled, but the Dockerfile copies {missing} after the build"


def test_prometheus_scrapes_every_app_replica_on_the_port_it_listens_on() -> None:
    """The optional metrics profile: Docker's DNS gives one address per replica of `app`."""
    mounts = bind_mounts("prometheus")
    config = yaml.safe_load(mounts["/etc/prometheus/prometheus.yml"].read_text())
    (job,) = config["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    (discovery,) = job["dns_sd_configs"]
    assert discovery["names"] == ["app"] and discovery["type"] == "A"
    assert str(discovery["port"]) == str(SERVICES["app"]["environment"]["CARDTABLE_PORT"])
    assert SERVICES["prometheus"]["profiles"] == ["metrics"]  # off unless asked for


def room_key_pattern() -> re.Pattern[str]:
    """The regular expression by which default.conf's `$room` map finds a room code in a path."""
    found = re.search(r"map\s+\$uri\s+\$room\s*\{\s*\"~([^\"]+)\"\s+\$1;", SITE)
    assert found, "default.conf has no `map $uri $room` taking the room code from the path"
    return re.compile(found.group(1))


def test_nginx_keys_its_hash_on_the_room_code_of_every_path_that_belongs_to_a_room() -> None:
    """The upstream hashes on `$room`; the map gives the code for the table socket the browser
    opens (static/js/socket.js) and for every room operation of the API, and nothing for paths
    that belong to no room (which are then balanced). A socket path renamed on one side only
    would otherwise quietly stop keeping a room's sockets together."""
    assert re.search(r"upstream\s+cardtable\s*\{\s*hash\s+\$room;", SITE), "the upstream must hash on $room"
    pattern = room_key_pattern()
    client = (PROJECT_ROOT / "static" / "js" / "socket.js").read_text()
    socket_path = re.search(r"/ws/rooms/\$\{encodeURIComponent\(this\.code\)\}", client)
    assert socket_path, "static/js/socket.js no longer opens /ws/rooms/{code}"
    assert (found := pattern.match("/ws/rooms/Ab-9_z")) and found.group(1) == "Ab-9_z"
    routes = [route for router in (rooms.router, chat.router) for route in router.routes]
    room_paths = [path for route in routes if (path := getattr(route, "path", "")).startswith("/api/rooms/{")]
    assert room_paths and all(path.startswith("/api/rooms/{code}") for path in room_paths), room_paths
    for path in room_paths:
        example = path.replace("{code}", "Ab-9_z").replace("{n}", "2")
        assert (found := pattern.match(example)) and found.group(1) == "Ab-9_z", path
    for path in ("/", "/api/games", "/api/rooms", "/api/people", "/r/Ab-9_z", "/readyz"):
        assert not pattern.match(path), path
