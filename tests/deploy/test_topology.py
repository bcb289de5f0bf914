"""docker-compose's topology, run as plain processes: Redis (the compose file's persistence
settings), two server replicas, nginx with the compose proxy configuration. Games are played
through the proxy while parts of it are killed."""

from __future__ import annotations

import asyncio
import random
import subprocess
from typing import Any

import httpx
import pytest

from rules.codec import unpack
from server.stores.redis_store import RedisStore
from tests.deploy.topology import ROOT, Topology, compose, compose_redis_flags, topology
from tests.server.driver import check_log_replays, seat_clients, start
from tests.server.harness import Client, create_room

pytestmark = pytest.mark.timeout(120)

GAME, OPTIONS, SEATS = "numberswap", {"target_score": 10}, 3


async def begin(clients: list[Client]) -> None:
    """The host starts the game; wait until every seat holds a game view."""
    await start(clients[0])
    for client in clients:
        if client.state is None or client.state["view"] is None:
            await client.until(lambda m: m["type"] == "state" and m["view"] is not None)


async def step(clients: list[Client], rnd: random.Random) -> bool:
    """One action by a seat whose view offers any, then wait until every client has the
    result. Returns False once the game is over."""
    views = [c.state["view"] for c in clients]  # type: ignore[index]
    if any(v["over"] for v in views):
        return False
    mover = next(c for c, v in zip(clients, views, strict=True) if v["legal"])
    version = mover.state["version"]  # type: ignore[index]
    await mover.act(rnd.choice(mover.state["view"]["legal"]))  # type: ignore[index]
    reply = await mover.until(lambda m: m["type"] in ("ack", "error"))
    assert reply["type"] == "ack", reply
    for client in clients:
        await client.state_at_least(version + 1)
    return True


def acked(clients: list[Client]) -> set[tuple[int, int]]:
    return {
        (seat, a["seq"])
        for seat, c in enumerate(clients)
        for a in c.acks
        if not a["duplicate"] and c.kinds.get(a["seq"]) == "act"
    }


async def logged(redis_url: str, code: str) -> tuple[Any, set[tuple[int, int]]]:
    store = RedisStore(redis_url)
    try:
        room = await check_log_replays(store, code)
        entries = [unpack(raw) for _, raw in await store.log(code)]
    finally:
        await store.close()
    return room, {(e["seat"], e["seq"]) for e in entries if e["kind"] == "act"}


def test_compose_file_is_valid_and_matches_what_the_tests_run() -> None:
    spec = compose()
    assert {"redis", "server", "proxy"} <= set(spec["services"])
    assert spec["services"]["server"]["deploy"]["replicas"] == 2
    # One worker per core per replica (empty PARLOR_WORKERS: the default, cores with Redis).
    assert spec["services"]["server"]["environment"]["PARLOR_WORKERS"] == "${PARLOR_WORKERS:-}"
    flags = compose_redis_flags()
    assert "--appendonly" in flags and flags[flags.index("--appendonly") + 1] == "yes"
    # Debian's docker-compose validates the file without a Docker engine.
    result = subprocess.run(
        ["docker-compose", "-f", "docker-compose.yml", "config", "-q"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr


async def test_a_game_is_played_through_the_proxy_across_two_replicas() -> None:
    with topology() as top:
        async with httpx.AsyncClient() as http:
            health = (await http.get(f"{top.proxy.http}/healthz")).json()
            assert health["ok"] and health["store"] == "redis"
            page = await http.get(f"{top.proxy.http}/")
            assert page.status_code == 200
        code = await create_room(top.proxy.http, GAME, OPTIONS)
        clients = await seat_clients([top.proxy.ws], code, SEATS)
        await begin(clients)
        # One action at a time, waiting for every seat's view (clients are spread over both
        # replicas, so another seat's news can arrive after an immediate reply).
        rnd = random.Random(1)
        while await step(clients, rnd):
            pass
        room, log = await logged(top.redis.url, code)
        assert room.phase.value == "finished"
        assert acked(clients) == log


async def game_in_play(top: Topology, rnd: random.Random, steps: int) -> tuple[str, list[Client]]:
    """A room's game begun through the proxy and ``steps`` actions into it."""
    code = await create_room(top.proxy.http, GAME, OPTIONS)
    clients = await seat_clients([top.proxy.ws], code, SEATS)
    await begin(clients)
    for _ in range(steps):
        await step(clients, rnd)
    return code, clients


async def reconnect(top: Topology, code: str, clients: list[Client]) -> None:
    """Every client reconnects through the proxy and resumes its seat by token, as a person
    reloading would."""
    for seat, client in enumerate(clients):
        token = client.welcome["token"]  # type: ignore[index]
        await client.close()
        clients[seat] = await Client.open(top.proxy.ws, code)
        clients[seat].seq = client.seq
        await clients[seat].resume(token)


async def test_a_replica_killed_mid_game_players_reconnect_through_the_proxy_and_finish() -> None:
    with topology() as top:
        rnd = random.Random(2)
        code, clients = await game_in_play(top, rnd, 6)
        before = acked(clients)
        top.replicas[0].kill()
        # Some were on the dead replica; all reconnect.
        await reconnect(top, code, clients)
        while await step(clients, rnd):
            pass
        room, log = await logged(top.redis.url, code)
        assert room.phase.value == "finished"
        assert before | acked(clients) <= log


async def test_redis_killed_and_restarted_mid_game_loses_nothing_acknowledged() -> None:
    with topology() as top:
        code = await create_room(top.proxy.http, GAME, OPTIONS)
        clients = await seat_clients([top.proxy.ws], code, SEATS)
        await begin(clients)
        rnd = random.Random(3)
        for _ in range(8):
            await step(clients, rnd)
        before = acked(clients)
        assert before
        # SIGKILL: Redis gets no chance to save; only the append-only file it had written
        # (fsync'd per the compose settings) brings the room back.
        top.redis.kill()
        top.redis.start()
        while await step(clients, rnd):
            pass
        room, log = await logged(top.redis.url, code)
        assert room.phase.value == "finished"
        assert before <= log, "every action acknowledged before the crash survived it"
        assert acked(clients) <= log


# -- a room's players meet on one replica -------------------------------------------------------

NGINX_CONF = ROOT / "deploy" / "nginx" / "nginx.conf"


def test_the_compose_proxy_balances_by_room_with_the_files_the_tests_run() -> None:
    conf = NGINX_CONF.read_text()
    http = conf[conf.index("http {") :]
    upstream = http[http.index("upstream parlor {") : http.index("}", http.index("upstream"))]
    assert "include /etc/nginx/parlor-rooms.conf;" in http
    assert "include /etc/nginx/parlor-balance.conf;" in upstream
    mounts = compose()["services"]["proxy"]["volumes"]
    for name in ("parlor-locations.conf", "parlor-rooms.conf", "parlor-balance.conf"):
        assert f"./deploy/nginx/{name}:/etc/nginx/{name}:ro" in mounts


async def connections(http: httpx.AsyncClient, port: int) -> int:
    """The WebSocket connections a replica holds (its own ``/metrics``, not the proxy's)."""
    text = (await http.get(f"http://127.0.0.1:{port}/metrics")).text
    line = next(li for li in text.splitlines() if li.startswith("parlor_connections "))
    return int(float(line.split()[1]))


async def held(top: Topology, want: int | None = None) -> list[int]:
    """Each replica's connections; with ``want``, once they add up to it (bounded wait: a
    closed connection leaves its replica a moment after the client's close returns)."""
    async with httpx.AsyncClient() as http:
        for _ in range(500):
            counts = [await connections(http, r.port) for r in top.replicas]
            if want is None or sum(counts) == want:
                return counts
            await asyncio.sleep(0.01)
    raise AssertionError(f"the replicas hold {counts} connections, not {want} in all")


async def test_a_rooms_players_all_reach_one_replica_through_the_proxy() -> None:
    with topology(replicas=3) as top:
        homes: dict[str, int] = {}
        for _ in range(30):
            code = await create_room(top.proxy.http, GAME, OPTIONS)
            clients = await seat_clients([top.proxy.ws], code, SEATS)
            counts = await held(top, SEATS)
            assert sorted(counts) == [0, 0, SEATS], f"room {code}'s players: {counts}"
            homes[code] = counts.index(SEATS)
            for client in clients:
                await client.close()
            await held(top, 0)
            if len(set(homes.values())) >= 2:
                break
        assert len(set(homes.values())) >= 2, f"every room on one replica: {homes}"


async def test_a_rooms_players_all_move_to_one_replica_when_theirs_dies() -> None:
    with topology(replicas=3) as top:
        rnd = random.Random(3)
        code, clients = await game_in_play(top, rnd, 4)
        home = (await held(top, SEATS)).index(SEATS)
        before = acked(clients)
        top.replicas[home].kill()
        await reconnect(top, code, clients)
        alive = [r for i, r in enumerate(top.replicas) if i != home]
        async with httpx.AsyncClient() as http:
            counts = [await connections(http, r.port) for r in alive]
        assert sorted(counts) == [0, SEATS], f"after the kill the players sit on {counts}"
        while await step(clients, rnd):
            pass
        room, log = await logged(top.redis.url, code)
        assert room.phase.value == "finished"
        assert before | acked(clients) <= log
