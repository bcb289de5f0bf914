"""Parlor on a real Redis Cluster (three masters, one replica each; see tests/redis_cluster.py):
rooms on every master, two instances playing one game, and a master SIGKILLed mid-game with
its replica promoted."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack

import pytest

from server.stores import keys
from server.stores.redis_store import RedisStore
from tests.redis_cluster import RedisCluster
from tests.server.driver import seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, RunningServer, create_room, serve
from tests.server.runtime.test_cluster import play_split
from tests.server.stores.test_faults import FAULT_SETTINGS, audit, play_with_fault

CLUSTER_SETTINGS = TEST_SETTINGS.model_copy(update={"redis_cluster": True})


def cluster_store(url: str) -> RedisStore:
    return RedisStore(url, cluster=True)


async def _two(
    stack: AsyncExitStack, url: str, settings: object = CLUSTER_SETTINGS
) -> tuple[RunningServer, RunningServer]:
    a = await stack.enter_async_context(serve(settings, cluster_store(url)))  # type: ignore[arg-type]
    b = await stack.enter_async_context(serve(settings, cluster_store(url)))  # type: ignore[arg-type]
    return a, b


@pytest.fixture
async def store(redis_cluster_clean: str) -> AsyncIterator[RedisStore]:
    made = cluster_store(redis_cluster_clean)
    await made.open(lambda notice: None)
    yield made
    await made.close()


async def test_rooms_are_created_and_listed_on_every_master(
    redis_cluster: RedisCluster, redis_cluster_clean: str, store: RedisStore
) -> None:
    """The issue's symptom was 18 of 30 creations answered 503 (MOVED)."""
    async with AsyncExitStack() as stack:
        a, _ = await _two(stack, redis_cluster_clean)
        made = [await create_room(a.http, "toy") for _ in range(30)]
    assert len(set(made)) == 30
    masters = {redis_cluster.master_of(keys.room(code)).port for code in made}
    assert len(masters) == 3, "the rooms are spread over every master"
    assert sorted(await store.codes(100)) == sorted(made)
    assert len(await store.codes(10)) == 10


async def test_two_instances_play_one_room_on_a_cluster(redis_cluster_clean: str) -> None:
    async with AsyncExitStack() as stack:
        await play_split(*await _two(stack, redis_cluster_clean))


async def test_an_instance_subscribes_only_to_the_rooms_it_serves(
    redis_cluster_clean: str,
) -> None:
    async with AsyncExitStack() as stack:
        a, b = await _two(stack, redis_cluster_clean)
        here = await create_room(a.http, "toy")
        elsewhere = await create_room(a.http, "toy")
        await seat_clients([a.ws], here, 1)
        (far,) = await seat_clients([b.ws], elsewhere, 1)
        assert a.instance.store._watched == {here}  # type: ignore[attr-defined]
        assert b.instance.store._watched == {elsewhere}  # type: ignore[attr-defined]
        await far.close()
        async with asyncio.timeout(5):
            while b.instance.store._watched:  # type: ignore[attr-defined]
                await asyncio.sleep(0.01)


@pytest.fixture
def own_cluster() -> Iterator[RedisCluster]:
    """A cluster of the test's own: it is about to lose a master."""
    with RedisCluster() as cluster:
        yield cluster


async def test_a_master_killed_mid_game_its_replica_takes_over(own_cluster: RedisCluster) -> None:
    """SIGKILL the master holding the room; its replica is promoted (about 2 s with a 1 s node
    timeout). Moves answered ``unavailable`` meanwhile are resent; both instances subscribe
    again on the new master and every client converges.

    Replication is asynchronous: a save acknowledged by the old master but not yet sent to
    its replica would be lost by the failover (see docs/deploy.md). On loopback the replica
    is sub-millisecond behind, and this test finds every acknowledged action in the log."""
    settings = FAULT_SETTINGS.model_copy(update={"redis_cluster": True})
    async with AsyncExitStack() as stack:
        a, b = await _two(stack, own_cluster.url, settings)
        code = await create_room(a.http, "toy", {"hand": 6})
        clients = await seat_clients([a.ws, b.ws], code, 4)
        await start(clients[0])
        killed: list[int] = []

        async def failover() -> None:
            # Blocking waits on the cluster, off the loop the two servers run on.
            node = await asyncio.to_thread(own_cluster.kill_master_of, keys.room(code))
            killed.append(node.port)

        at = clients[0].state["version"] + 8  # type: ignore[index]
        await play_with_fault(b, code, clients, at, failover)
        assert killed and own_cluster.master_of(keys.room(code)).port != killed[0]

        room = await audit(cluster_store(own_cluster.url), code, clients)
        assert room.phase.value == "finished"


async def test_the_watcher_hears_moves_after_a_failover(own_cluster: RedisCluster) -> None:
    """With the periodic check off, only notices carry moves to the other instance: its
    subscription must have moved to the promoted replica."""
    settings = CLUSTER_SETTINGS.model_copy(update={"check_interval": 3600.0, "redis_timeout": 0.3})
    async with AsyncExitStack() as stack:
        a, b = await _two(stack, own_cluster.url, settings)
        code = await create_room(a.http, "toy", {"hand": 6})
        (host,) = await seat_clients([a.ws], code, 1)
        watcher = await Client.open(b.ws, code)
        await watcher.watch()
        await asyncio.to_thread(own_cluster.kill_master_of, keys.room(code))
        rnd = random.Random(3)
        for _ in range(3):
            async with asyncio.timeout(10):
                while True:
                    await host.send({"type": "chat", "text": f"after {rnd.random()}"})
                    reply = await host.until(lambda m: m["type"] in ("ack", "error"))
                    if reply["type"] == "ack":
                        break
        version = host.state["version"]  # type: ignore[index]
        await host.state_at_least(version)
        state = await watcher.state_at_least(version, timeout=10)
        assert state["version"] >= version


async def test_a_new_instance_starts_while_its_first_seed_node_is_dead(
    own_cluster: RedisCluster,
) -> None:
    """After a master dies and its replica takes over, a new ``parlor serve`` (a restart, a
    rolling deploy) whose ``REDIS_URL`` names the dead node starts all the same from the
    other seed nodes (PARLOR_REDIS_CLUSTER_NODES); with that one node only, it cannot."""
    seed = own_cluster.nodes[0]
    key = next(
        k
        for k in (keys.room(f"S{i:04d}") for i in range(10_000))
        if own_cluster.master_of(k) is seed
    )
    await asyncio.to_thread(own_cluster.kill_master_of, key)
    dead = f"redis://127.0.0.1:{seed.port}"
    others = tuple(f"127.0.0.1:{node.port}" for node in own_cluster.live())
    settings = CLUSTER_SETTINGS.model_copy(
        update={"redis_url": dead, "redis_cluster_nodes": others}
    )
    async with serve(settings) as server:
        assert server.instance.store.kind == "redis"
        code = await create_room(server.http, "toy")
        (player,) = await seat_clients([server.ws], code, 1)
        assert player.state is not None and player.state["room"]["code"] == code
    alone = cluster_store(dead)
    with pytest.raises(Exception):  # noqa: B017 - what redis-py raises with no node
        await alone.open(lambda notice: None)
    await alone.close()
