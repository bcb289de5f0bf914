"""Debian's ``redis-server`` under a test's control: killed, paused, restarted on the same port,
saved, and put back to an older snapshot.

Each :class:`RedisProcess` listens on its own free loopback port and keeps its data in a work
dir, which a restart reuses: with the append-only file on, what Redis had made durable before a
kill is there again after it.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Literal, Self

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from tests.processes import LOCALHOST, Process, free_port, redis_pong


def redis_binary() -> str:
    return shutil.which("redis-server") or "/usr/sbin/redis-server"


class RedisProcess:
    """A ``redis-server`` on a free loopback port, with a work dir it owns (unless given one).

    ``persistence`` is ``"off"`` (nothing is written unless :meth:`save` is called) or
    ``"aof"`` (an append-only file fsync'd on every write, as the compose file runs it).
    ``flags`` are further redis-server options, applied after (so overriding) those."""

    def __init__(
        self,
        *,
        persistence: Literal["off", "aof"] = "off",
        flags: Sequence[str] = (),
        port: int | None = None,
        workdir: Path | None = None,
    ) -> None:
        self.port = port or free_port()
        self._owns_dir = workdir is None
        self.dir = Path(tempfile.mkdtemp(prefix="redis-")) if workdir is None else workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        persist = ["--appendonly", "yes", "--appendfsync", "always"]
        self.flags = [
            *["--save", ""],
            *(persist if persistence == "aof" else ["--appendonly", "no"]),
            *flags,
        ]
        self.process = self._process(self.flags)

    def _process(self, flags: list[str]) -> Process:
        argv = [redis_binary(), *flags]
        argv += ["--port", str(self.port), "--bind", LOCALHOST, "--dir", str(self.dir)]
        return Process(argv, ready=redis_pong(self.port), log=self.dir / "redis.log")

    def __repr__(self) -> str:
        return f"<RedisProcess port={self.port} dir={self.dir}>"

    @property
    def url(self) -> str:
        return f"redis://{LOCALHOST}:{self.port}/0"

    @property
    def aof(self) -> bool:
        """Whether the append-only file is on (the last ``--appendonly`` flag says)."""
        values = [
            v for f, v in zip(self.flags, self.flags[1:], strict=False) if f == "--appendonly"
        ]
        return bool(values) and values[-1] == "yes"

    def start(self) -> Self:
        self.process.start()
        return self

    def stop(self) -> None:
        """A clean shutdown (SIGTERM; Redis writes what its persistence settings say)."""
        self.process.stop()

    def kill(self) -> None:
        """SIGKILL: only what is already on disk survives."""
        self.process.kill()

    def pause(self) -> None:
        """SIGSTOP: connections are accepted by the kernel but nothing is answered."""
        self.process.pause()

    def resume(self) -> None:
        self.process.resume()

    def restart(self) -> Self:
        """Stop it if running (cleanly), and start again on the same port and work dir."""
        self.stop()
        return self.start()

    def client(self, timeout: float = 5.0) -> redis.Redis:
        """A synchronous client that waits at most ``timeout`` for a reply, and never retries
        (so a fault shows as the first error, not after a round of back-off)."""
        return redis.Redis(
            host=LOCALHOST, port=self.port, socket_timeout=timeout, retry=Retry(NoBackoff(), 0)
        )

    def save(self, to: Path | None = None) -> Path:
        """A synchronous SAVE; the dump file, or a copy of it at ``to``."""
        with self.client() as client:
            client.save()
        dump = self.dir / "dump.rdb"
        if to is None:
            return dump
        shutil.copyfile(dump, to)
        return to

    def restore(self, snapshot: Path) -> Self:
        """Redis goes back in time: kill, put ``snapshot`` back as its only data, start again.

        Redis reads an RDB file at start only when the append-only file is off, so with AOF the
        old AOF is removed, the snapshot loaded with AOF off, and AOF switched back on (which
        rewrites it from the loaded data) before the server is started as usual."""
        self.kill()
        shutil.rmtree(self.dir / "appendonlydir", ignore_errors=True)
        shutil.copyfile(snapshot, self.dir / "dump.rdb")
        if self.aof:
            with self._process([*self.flags, "--appendonly", "no"]) as loader:
                self._switch_aof_on(loader)
        return self.start()

    def _switch_aof_on(self, loader: Process, timeout: float = 10.0) -> None:
        manifest = self.dir / "appendonlydir" / "appendonly.aof.manifest"
        with self.client() as client:
            client.config_set("appendonly", "yes")
            deadline = time.monotonic() + timeout
            while True:
                info = client.info("persistence")
                idle = not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]
                if idle and manifest.exists():
                    if info["aof_last_bgrewrite_status"] != "ok":
                        raise RuntimeError(f"the AOF rewrite failed:\n{loader.log_tail()}")
                    return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the AOF rewrite did not finish within {timeout} s")
                if loader.exits_within(loader.poll):
                    raise RuntimeError(f"redis-server exited:\n{loader.log_tail()}")

    def close(self) -> None:
        """Kill it (what it holds is not needed any more) and remove the work dir it owns."""
        self.kill()
        if self._owns_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Self:
        try:
            return self if self.process.running else self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
