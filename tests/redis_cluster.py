"""A real Redis Cluster for the tests: three masters with one replica each, six of Debian's
``redis-server`` in cluster mode on free loopback ports, joined by ``redis-cli --cluster create``.

Every node has its own work dir, client port and cluster-bus port (``cluster-port``, so the bus
need not be the client port + 10000). Waits are on conditions with deadlines, never sleeps:
the cluster is ready when every node says ``cluster_state:ok`` and agrees on the masters.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Self

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from tests.processes import LOCALHOST, StartError, free_port
from tests.redis_process import RedisProcess

#: Milliseconds a master may be unreachable before its replica takes over (Redis's default is
#: 15 s; a test would wait for that).
NODE_TIMEOUT_MS = 1000


def redis_cli() -> str:
    return shutil.which("redis-cli") or "/usr/bin/redis-cli"


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` (errors count as "not yet") until it holds or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if condition():
                return
        except (redis.RedisError, OSError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout} s")
        time.sleep(0.02)


#: How long a master about to be killed holds its writes (it dies long before).
PAUSE_MS = 10_000
#: Tries at starting a node whose port was taken meanwhile.
START_ATTEMPTS = 3


class RedisCluster:
    """Six nodes: after :meth:`start`, three masters each with one replica."""

    def __init__(self, masters: int = 3, replicas: int = 1) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="redis-cluster-"))
        self.replicas = replicas
        self._taken: set[int] = set()
        self.nodes = [self._node(i) for i in range(masters * (1 + replicas))]

    def _port(self) -> int:
        """A free loopback port none of this cluster's nodes was given yet."""
        while (port := free_port()) in self._taken:
            pass
        self._taken.add(port)
        return port

    def _node(self, i: int, attempt: int = 0) -> RedisProcess:
        flags = [
            *["--cluster-enabled", "yes"],
            *["--cluster-config-file", "nodes.conf"],
            *["--cluster-node-timeout", str(NODE_TIMEOUT_MS)],
            *["--cluster-port", str(self._port())],
            # A replica takes over however long it was cut off from its master.
            *["--cluster-replica-validity-factor", "0"],
            # A new replica's first full sync starts at once, not after Redis's 5 s delay.
            *["--repl-diskless-sync-delay", "0"],
        ]
        workdir = self.dir / (f"node{i}" if not attempt else f"node{i}-{attempt}")
        return RedisProcess(flags=flags, port=self._port(), workdir=workdir)

    def _start_node(self, i: int) -> None:
        """Start node ``i``; a port taken since it was found free (by another process) is
        replaced by new ones, a few times at most."""
        for attempt in range(START_ATTEMPTS):
            try:
                self.nodes[i].start()
                return
            except StartError as exc:
                if "Address already in use" not in str(exc) or attempt == START_ATTEMPTS - 1:
                    raise
                self.nodes[i] = self._node(i, attempt + 1)

    @property
    def url(self) -> str:
        """One live node's URL: the cluster client learns the others from it. (A client made
        after a master was killed must not be pointed at the dead one: it could learn
        nothing.)"""
        return f"redis://{LOCALHOST}:{self.live()[0].port}"

    def live(self) -> list[RedisProcess]:
        return [n for n in self.nodes if n.process.running]

    def start(self) -> Self:
        for i in range(len(self.nodes)):
            self._start_node(i)
        argv = [redis_cli(), "--cluster", "create"]
        argv += [f"{LOCALHOST}:{n.port}" for n in self.nodes]
        argv += ["--cluster-replicas", str(self.replicas), "--cluster-yes"]
        subprocess.run(argv, check=True, capture_output=True, timeout=60)
        self.wait_ok()
        return self

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every live node reports ``cluster_state:ok``, they agree on who the masters
        are (each with every slot it should have), and every live replica is in sync with its
        master (``cluster_state:ok`` comes before a new replica's first full sync ends, and a
        master killed before that would lose everything)."""

        def ok() -> bool:
            views = set()
            for node in self.live():
                with node.client(timeout=1) as client:
                    if client.cluster("info")["cluster_state"] != "ok":
                        return False
                    views.add(tuple(sorted(self._masters_seen_by(client))))
                    replication = client.info("replication")
                    if replication["role"] == "slave" and (
                        replication["master_link_status"] != "up"
                        or replication.get("master_sync_in_progress")
                    ):
                        return False
            return len(views) == 1 and len(next(iter(views))) == len(self.nodes) // (
                1 + self.replicas
            )

        wait_for(ok, timeout, "the cluster to be ok")

    @staticmethod
    def _masters_seen_by(client: redis.Redis) -> list[int]:
        raw = client.execute_command("CLUSTER", "NODES")
        text = raw.decode() if isinstance(raw, bytes) else str(raw)
        ports = []
        for line in text.splitlines():
            fields = line.split()
            flags = fields[2].split(",")
            if "master" in flags and "fail" not in flags and len(fields) > 8:
                ports.append(int(fields[1].split("@")[0].rsplit(":", 1)[1]))
        return ports

    def master_of(self, key: str) -> RedisProcess:
        """The node that serves ``key``'s slot now."""
        with self.live()[0].client() as client:
            slot = int(client.execute_command("CLUSTER", "KEYSLOT", key))
            for start, end, master, *_ in client.execute_command("CLUSTER", "SLOTS"):
                if start <= slot <= end:
                    port = int(master[1])
                    return next(n for n in self.nodes if n.port == port)
        raise LookupError(key)

    def client(self, timeout: float = 5.0) -> redis.RedisCluster:
        return redis.RedisCluster(
            host=LOCALHOST,
            port=self.live()[0].port,
            socket_timeout=timeout,
            retry=Retry(NoBackoff(), 3),
        )

    def flush(self) -> None:
        """Empty every master."""
        for node in self.live():
            with node.client() as client:
                if client.execute_command("ROLE")[0] == b"master":
                    client.flushall()

    def kill_master_of(self, key: str) -> RedisProcess:
        """SIGKILL the master serving ``key`` and wait until its replica has taken over.

        Every write the master acknowledged is on its replica first: writes are paused
        (``CLIENT PAUSE ... WRITE``: they wait, unanswered, and die with the master) and the
        replica is waited for (``WAIT``). What asynchronous replication can lose in a real
        failover, an acknowledged write that never reached the replica, is stated in
        docs/deploy.md; it is not what the failover tests look at, and on loopback it was hit
        only by a kill straight after a write (1 run in 20)."""
        master = self.master_of(key)
        with master.client() as client:
            client.execute_command("CLIENT", "PAUSE", str(PAUSE_MS), "WRITE")
            if int(client.execute_command("WAIT", str(self.replicas), str(PAUSE_MS))) < 1:
                raise TimeoutError("the replica did not catch up before the kill")
        master.kill()
        wait_for(lambda: self.master_of(key) is not master, 30, "a replica to be promoted")
        self.wait_ok()
        return master

    def close(self) -> None:
        for node in self.nodes:
            node.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Self:
        try:
            return self.start()
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
