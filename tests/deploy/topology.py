"""The docker-compose topology without Docker: the same processes, started directly.

* ``redis-server`` with exactly the persistence flags of the compose file's ``redis`` service;
* ``parlor serve`` processes configured by environment, as the compose ``server`` replicas are;
* Debian's nginx running ``deploy/nginx/parlor-locations.conf`` verbatim (the file compose
  mounts), inside a tiny main configuration whose upstream lists the local replicas instead of
  Docker's DNS name.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.server.harness import free_port

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
LOCATIONS = ROOT / "deploy" / "nginx" / "parlor-locations.conf"


def compose() -> dict[str, Any]:
    with COMPOSE.open() as f:
        loaded: dict[str, Any] = yaml.safe_load(f)
        return loaded


def compose_redis_flags() -> list[str]:
    """The compose redis service's command, less the program name."""
    command = compose()["services"]["redis"]["command"]
    assert command[0] == "redis-server"
    return list(command[1:])


def _wait(
    check: Callable[[], bool], what: str, proc: subprocess.Popen[bytes], timeout: float = 20
) -> None:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(OSError):
            if check():
                return
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not come up")
        time.sleep(0.05)


def _http_ok(port: int, path: str = "/healthz") -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
        s.sendall(f"GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n".encode())
        return b" 200 " in s.recv(64)


def _redis_ok(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
        s.sendall(b"PING\r\n")
        return s.recv(16).startswith(b"+PONG")


@dataclass
class Redis:
    port: int
    workdir: str
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server") or "/usr/sbin/redis-server"
        args = [binary, *compose_redis_flags()]
        args += ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.workdir]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait(lambda: _redis_ok(self.port), "redis-server", self.proc)

    def kill(self) -> None:
        """SIGKILL: no shutdown hook, no final save — only what is already on disk survives."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


@dataclass
class Replica:
    port: int
    proc: subprocess.Popen[bytes]

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


def start_replica(redis_url: str) -> Replica:
    """A ``parlor serve`` configured only by environment, like a compose replica."""
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "PARLOR_HOST": "127.0.0.1",
        "PARLOR_PORT": str(port),
        "PARLOR_BOT_DELAY": "0.02",
        # Test clients act far faster than people; the flood limit is tested elsewhere.
        "PARLOR_FLOOD_RATE": "1000",
        "PARLOR_FLOOD_BURST": "1000",
        "PARLOR_CREATE_BURST": "1000",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait(lambda: _http_ok(port), "parlor serve", proc)
    return Replica(port, proc)


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
    upstream parlor {{
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
    proc: subprocess.Popen[bytes]
    tmp: str

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


def start_proxy(tmp: str, replicas: list[Replica]) -> Proxy:
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    port = free_port()
    servers = "\n".join(
        f"        server 127.0.0.1:{r.port} max_fails=1 fail_timeout=5s;" for r in replicas
    )
    conf = Path(tmp) / "nginx.conf"
    conf.write_text(NGINX_MAIN.format(tmp=tmp, servers=servers, port=port, locations=LOCATIONS))
    if os.geteuid() == 0:
        # As root nginx would switch its workers to "nobody", who cannot use our temp dir.
        conf.write_text("user root;\n" + conf.read_text())
    proc = subprocess.Popen(
        [binary, "-p", tmp, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _wait(lambda: _http_ok(port), "nginx", proc)
    return Proxy(port, proc, tmp)


@dataclass
class Topology:
    redis: Redis
    replicas: list[Replica]
    proxy: Proxy
    extra: list[subprocess.Popen[bytes]] = field(default_factory=list)


@contextlib.contextmanager
def topology(replicas: int = 2) -> Iterator[Topology]:
    with tempfile.TemporaryDirectory() as tmp:
        redis_dir = Path(tmp) / "redis"
        redis_dir.mkdir()
        redis = Redis(free_port(), str(redis_dir))
        started: list[Replica] = []
        proxy = None
        try:
            redis.start()
            started = [start_replica(redis.url) for _ in range(replicas)]
            proxy = start_proxy(tmp, started)
            yield Topology(redis, started, proxy)
        finally:
            if proxy is not None and proxy.proc.poll() is None:
                proxy.proc.terminate()
                proxy.proc.wait(10)
            for replica in started:
                if replica.proc.poll() is None:
                    replica.proc.terminate()
                    replica.proc.wait(10)
            redis.stop()
