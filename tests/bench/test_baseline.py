"""The bare baseline server of ``bench/baseline.py``, driven by the load generator's own clients.

Only that the protocol subset works and that the compare-and-set refuses what it must; no
figure is checked (the benchmark is ``python -m bench.load compare``)."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import baseline, common, load
from rules.codec import pack, unpack
from tests.processes import free_port
from tests.redis_process import RedisProcess

#: Short games, so that three seats play through a rematch in a few dozen actions.
GAME_LENGTH = 6


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, RedisProcess]]:
    port = free_port()
    with (
        RedisProcess(workdir=tmp_path / "redis") as redis,
        common.baseline_serve(port, tmp_path / "baseline.log", redis.url, GAME_LENGTH),
    ):
        yield f"127.0.0.1:{port}", redis


async def test_load_generator_clients_play_through_a_rematch(
    served: tuple[str, RedisProcess],
) -> None:
    addr, redis = served
    code = load.create_room(addr, "numberswap")
    seats = [await load._join(addr, code, f"P{i}") for i in range(3)]
    assert [s.seat for s in seats] == [0, 1, 2]
    room = load.Room(code, seats)
    stop = asyncio.Event()
    players = [
        asyncio.create_task(load._player(room, seat, random.Random(i), stop, 0.0))
        for i, seat in enumerate(seats)
    ]
    await seats[0].ws.send(pack({"type": "start", "seq": 1}))

    async def played(actions: int) -> None:
        while room.actions < actions:
            await asyncio.sleep(0.01)

    # Three games: two rematches by the host.
    await asyncio.wait_for(played(3 * GAME_LENGTH), timeout=30)
    stop.set()
    for task in players:
        task.cancel()
    await asyncio.gather(*players, return_exceptions=True)
    # A move sent just before the players stopped is still being answered: take its reply, so
    # the room is at rest before it is checked. (A send the stop cut short has no reply.)
    for seat in seats:
        with contextlib.suppress(TimeoutError):
            while seat.pending:
                reply = load.read_message(await asyncio.wait_for(seat.ws.recv(decode=False), 5))
                seat.pending = reply["type"] not in ("ack", "error")

    # Every acknowledged action made a version every seat was then shown.
    versions = sorted(room.sent)
    assert len(versions) == room.actions >= 3 * GAME_LENGTH
    for seat in seats:
        seen = [v for v, _ in seat.seen]
        assert seen == sorted(seen) and set(versions[:-1]) <= set(seen)
    assert max(b for s in seats for b in s.view_bytes) < 1024  # small views

    # Per action, one read and one compare-and-set that publishes (in the record's hash).
    with redis.client() as client:
        stored = int(client.hget(baseline.room_key(code), "v") or 0)
        record = unpack(client.hget(baseline.room_key(code), "d") or b"")
    assert stored >= versions[-1] and record["round"] >= 2

    # A seat that is not to act is refused, and nothing changes.
    idle = next(s for s in seats if s.seat != record["to_act"])
    assert idle.state is not None
    seq = max(idle.seq, idle.state["last_seq"]) + 1
    await idle.ws.send(pack({"type": "act", "seq": seq, "action": {"kind": "pass"}}))
    # Its answer comes after the last states of the game, sent before it.
    while (reply := load.read_message(await idle.ws.recv(decode=False)))["type"] == "state":
        pass
    assert reply["type"] == "error" and reply["code"] == "not_your_turn", reply
    with redis.client() as client:
        assert int(client.hget(baseline.room_key(code), "v") or 0) == stored

    for seat in seats:
        await seat.ws.close()


def test_compare_and_set_refuses_a_stale_version(served: tuple[str, RedisProcess]) -> None:
    addr, redis = served
    code = load.create_room(addr, "numberswap")
    key = baseline.room_key(code)
    with redis.client() as client:
        cas = client.register_script(baseline.CAS)
        pubsub = client.pubsub()
        pubsub.subscribe(baseline.CHANNEL)
        assert pubsub.get_message(timeout=5) is not None  # subscribed
        assert cas(keys=[key], args=[1, 2, b"new", baseline.CHANNEL, f"{code} 2 test"]) == 1
        # Version 1 was read before that write: refused, nothing written, nothing published.
        assert cas(keys=[key], args=[1, 2, b"stale", baseline.CHANNEL, f"{code} 2 x"]) == -1
        assert client.hmget(key, ["v", "d"]) == [b"2", b"new"]
        assert cas(keys=["bare:room:{NONE0}"], args=[1, 2, b"", baseline.CHANNEL, "x"]) == 0
        notices = []
        while (message := pubsub.get_message(timeout=0.5)) is not None:
            notices.append(message["data"])  # what came in within half a second of the last
        assert notices == [f"{code} 2 test".encode()]
        pubsub.close()
