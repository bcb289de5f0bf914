"""What an instance holds for a room lives in one object with one lifecycle
(server/runtime/local.py): made by the room's first use here, serving while it has
connections, closed in one place once nothing holds it, whatever held it last."""

from __future__ import annotations

import asyncio

from server.ops.metrics import Metrics
from server.rooms import commands
from server.runtime.local import LocalRooms, State
from server.runtime.service import RoomService
from server.stores.memory_store import MemoryStore
from tests.server.harness import TEST_SETTINGS, Client, create_room, serve


def _rooms() -> tuple[LocalRooms, list[tuple[str, str]]]:
    local, told = LocalRooms(), []
    local.on_serving = lambda code: told.append(("watch", code))
    local.on_unserved = lambda code: told.append(("unwatch", code))
    return local, told


def test_a_room_is_watched_while_served_and_closed_when_its_last_connection_goes() -> None:
    local, told = _rooms()
    held = local.open("ABCDE")
    assert held.state is State.IDLE and local.get("ABCDE") is held
    local.serve(held)
    local.serve(held)
    assert held.state is State.SERVING and told == [("watch", "ABCDE")]
    local.unserve(held)
    assert held.state is State.CLOSED and local.get("ABCDE") is None
    assert told == [("watch", "ABCDE"), ("unwatch", "ABCDE")]
    assert local.open("ABCDE") is not held, "a later use makes a new one"


async def test_a_room_with_work_under_way_is_closed_when_the_work_ends_not_before() -> None:
    local, told = _rooms()
    held = local.open("ABCDE")
    local.serve(held)
    wake = asyncio.get_running_loop().call_later(60, lambda: None)
    held.wake = (0.0, wake)
    held.refreshing = asyncio.get_running_loop().create_task(asyncio.sleep(0))
    local.unserve(held)
    assert held.state is State.IDLE, "a reload is under way"
    assert wake.cancelled() and held.plan is None, "nothing is planned for it any more"
    await held.refreshing
    held.refreshing = None
    local.release(held)
    assert held.state is State.CLOSED and local.get("ABCDE") is None
    assert told == [("watch", "ABCDE"), ("unwatch", "ABCDE")]


async def test_a_room_changed_with_no_connection_is_let_go_when_its_batch_ends() -> None:
    service = RoomService(MemoryStore(), TEST_SETTINGS, Metrics(), "test")
    room = await service.create("toy", {}, 0, "k" * 16)
    await service.change(room.code, lambda r: commands.join(r, "Ana", "h", 0.0, name_max=24))
    held = service.local.get(room.code)
    if held is not None and held.draining is not None:
        await held.draining  # the batch task ends just after answering its last command
        await asyncio.sleep(0)  # one turn of the loop: the task's done callback runs
    assert list(service.local) == []


async def test_a_served_room_is_held_while_connected_and_let_go_after() -> None:
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy")
        client = await Client.open(server.ws, code)
        await client.join("Ana")
        local = server.instance.service.local
        held = local.get(code)
        assert held is not None and held.state is State.SERVING and len(held.conns) == 1
        unserved = asyncio.Event()
        told = local.on_unserved
        local.on_unserved = lambda c: (told(c), unserved.set())  # type: ignore[func-returns-value]
        await client.close()
        await asyncio.wait_for(unserved.wait(), 5)  # the server saw the socket close
        if held.refreshing is not None:
            await held.refreshing  # a reload under way keeps it until it ends
        assert local.get(code) is None and held.state is State.CLOSED
