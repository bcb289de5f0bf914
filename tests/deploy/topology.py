"""The docker-compose topology without Docker: the same processes, started directly.

* ``redis-server`` with exactly the persistence flags of the compose file's ``redis`` service;
* ``parlor serve`` processes configured by environment, as the compose ``server`` replicas are;
* Debian's nginx running ``deploy/nginx/parlor-locations.conf``, ``parlor-rooms.conf`` and
  ``parlor-balance.conf`` verbatim (the files compose mounts), inside a tiny main configuration
  whose upstream lists the local replicas instead of Docker's DNS name.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.processes import Process, free_port, http_ok
from tests.redis_process import RedisProcess

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
LOCATIONS = ROOT / "deploy" / "nginx" / "parlor-locations.conf"
ROOMS = ROOT / "deploy" / "nginx" / "parlor-rooms.conf"
BALANCE = ROOT / "deploy" / "nginx" / "parlor-balance.conf"


def compose() -> dict[str, Any]:
    with COMPOSE.open() as f:
        loaded: dict[str, Any] = yaml.safe_load(f)
        return loaded


def compose_redis_flags() -> list[str]:
    """The compose redis service's command, less the program name."""
    command = compose()["services"]["redis"]["command"]
    assert command[0] == "redis-server"
    return list(command[1:])


@dataclass
class Replica:
    port: int
    process: Process

    def kill(self) -> None:
        self.process.kill()


def start_replica(redis_url: str, tmp: Path) -> Replica:
    """A ``parlor serve`` configured only by environment, like a compose replica."""
    port = free_port()
    env = {
        "REDIS_URL": redis_url,
        "PARLOR_HOST": "127.0.0.1",
        "PARLOR_PORT": str(port),
        # One instance process, so that killing the replica kills it (not a supervisor whose
        # workers would then drain); compose runs one per core (tests/server/ops/test_drain.py).
        "PARLOR_WORKERS": "1",
        "PARLOR_BOT_DELAY": "0.02",
        # Test clients act far faster than people; the flood limit is tested elsewhere.
        "PARLOR_FLOOD_RATE": "1000",
        "PARLOR_FLOOD_BURST": "1000",
        "PARLOR_CREATE_BURST": "1000",
        # Test clients start games without sealing them (docs/fairplay.md): deal at once.
        "PARLOR_COMMIT_WINDOW": "0",
    }
    argv = [sys.executable, "-m", "server.cli", "serve"]
    log = tmp / f"replica-{port}.log"
    server = Process(argv, ready=http_ok(port), log=log, name="parlor serve", env=env, cwd=ROOT)
    return Replica(port, server.start())


NGINX_MAIN = """\
daemon off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {rooms};
    upstream parlor {{
        include {balance};
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        include {locations};
    }}
}}
"""


@dataclass
class Proxy:
    port: int
    process: Process

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


def start_proxy(tmp: Path, replicas: list[Replica]) -> Proxy:
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    port = free_port()
    servers = "\n".join(
        f"        server 127.0.0.1:{r.port} max_fails=1 fail_timeout=5s;" for r in replicas
    )
    conf = tmp / "nginx.conf"
    conf.write_text(
        NGINX_MAIN.format(
            tmp=tmp, servers=servers, port=port, locations=LOCATIONS, rooms=ROOMS, balance=BALANCE
        )
    )
    if os.geteuid() == 0:
        # As root nginx would switch its workers to "nobody", who cannot use our temp dir.
        conf.write_text("user root;\n" + conf.read_text())
    argv = [binary, "-p", str(tmp), "-c", str(conf)]
    nginx = Process(argv, ready=http_ok(port), log=tmp / "nginx.log", name="nginx")
    return Proxy(port, nginx.start())


@dataclass
class Topology:
    redis: RedisProcess
    replicas: list[Replica]
    proxy: Proxy


@contextlib.contextmanager
def topology(replicas: int = 2) -> Iterator[Topology]:
    with tempfile.TemporaryDirectory() as name, contextlib.ExitStack() as stack:
        tmp = Path(name)
        redis = stack.enter_context(
            RedisProcess(flags=compose_redis_flags(), workdir=tmp / "redis")
        )
        started = []
        for _ in range(replicas):
            replica = start_replica(redis.url, tmp)
            stack.callback(replica.process.stop)
            started.append(replica)
        proxy = start_proxy(tmp, started)
        stack.callback(proxy.process.stop)
        yield Topology(redis, started, proxy)
