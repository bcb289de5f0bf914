"""Group commit: commands that queue behind a room's save in flight are applied together, in
order, and saved with one compare-and-set, each keeping its own outcome (issue 15: a burst
costs one round trip and one fan-out, not one per command). Exactly-once holds through it."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import pytest

from rules.codec import unpack
from server.errors import ErrorCode, RoomError
from server.ops.metrics import Metrics
from server.rooms import Room, commands
from server.rooms.commands import Change
from server.runtime.service import RoomService
from server.stores.memory_store import MemoryStore
from server.stores.redis_store import RedisStore
from server.stores.store import StoreUnavailable
from tests.server.driver import seat_clients, start
from tests.server.harness import TEST_SETTINGS, create_room, serve


class GatedStore(MemoryStore):
    """A memory store that counts saves, can hold the next one until released (so commands
    queue up behind it), and can lose the reply of a given save after making it."""

    def __init__(self) -> None:
        super().__init__()
        self.saves: list[int] = []  # how many log entries each save wrote
        self.hold: asyncio.Event | None = None
        self.holding = asyncio.Event()
        #: The save (counted in ``saves``) whose reply is lost.
        self.lose: int | None = None
        #: No save is made, and none answered, from now on.
        self.down = False

    async def save(self, *args: Any, **kwargs: Any) -> str:
        if self.hold is not None:
            gate, self.hold = self.hold, None
            self.holding.set()
            await gate.wait()
        if self.down:
            raise StoreUnavailable("no answer")
        tag = await super().save(*args, **kwargs)
        self.saves.append(1 + len(kwargs.get("earlier", ())))
        if self.lose == len(self.saves):
            raise StoreUnavailable("the reply was lost")
        return tag


async def _room_with_seats(service: RoomService, seats: int) -> tuple[str, list[int]]:
    room = await service.create("toy", {}, 0, "k" * 16)
    ids = []
    for i in range(seats):
        change = await service.change(
            room.code,
            lambda r, i=i: commands.join(r, f"P{i}", f"hash{i}", 0.0, name_max=24),
        )
        assert change.seat_id is not None
        ids.append(change.seat_id)
    return room.code, ids


def _chat(seat_id: int, seq: int, text: str) -> Any:
    def command(room: Room) -> Change:
        return commands.sequenced(
            room,
            seat_id,
            seq,
            lambda r: commands.chat(r, seat_id, text, 1.0, limit=200, keep=50),
            commands.command_digest("chat", text),
        )

    return command


async def _held(
    store: GatedStore, service: RoomService, code: str, command: Any
) -> tuple[asyncio.Event, asyncio.Task[Change]]:
    """Start ``command`` with its save held: the gate that releases it, and its task, once
    the save is waiting (``store.holding`` is cleared again, ready for the next hold)."""
    gate = store.hold = asyncio.Event()
    task = asyncio.create_task(service.change(code, command))
    await asyncio.wait_for(store.holding.wait(), 5)
    store.holding.clear()
    return gate, task


async def _queued_behind_a_held_save(
    store: GatedStore, service: RoomService, code: str, first: Any, more: list[Any]
) -> list[Change | BaseException]:
    """Run ``first`` with its save held, queue ``more`` behind it, then release the save."""
    gate, leader = await _held(store, service, code, first)
    waiting = [asyncio.create_task(service.change(code, c)) for c in more]
    await asyncio.sleep(0)  # the scenario: every one of them is queued before the release
    gate.set()
    return await asyncio.gather(leader, *waiting, return_exceptions=True)


def _service(store: GatedStore) -> RoomService:
    return RoomService(store, TEST_SETTINGS, Metrics(), "test")


async def test_commands_queued_behind_a_save_are_saved_together_in_one_compare_and_set() -> None:
    store = GatedStore()
    service = _service(store)
    code, (ana, ben, cy) = await _room_with_seats(service, 3)
    store.saves.clear()
    outcomes = await _queued_behind_a_held_save(
        store, service, code, _chat(ana, 1, "one"), [_chat(ben, 1, "two"), _chat(cy, 1, "three")]
    )
    assert store.saves == [1, 2], "the two that waited are one save"
    versions = [o.result_version for o in outcomes if isinstance(o, Change)]
    assert versions == [5, 6, 7] and not any(
        isinstance(o, Change) and o.duplicate for o in outcomes
    )
    entries = [(v, unpack(e)) for v, e in await store.log(code)]
    assert [(v, e["kind"], e["seq"]) for v, e in entries[-3:]] == [
        (5, "chat", 1),
        (6, "chat", 1),
        (7, "chat", 1),
    ]
    room = service.cached(code)
    assert room is not None and [line.text for line in room.chat] == ["one", "two", "three"]


async def test_a_refused_command_in_a_batch_leaves_the_others_applied() -> None:
    store = GatedStore()
    service = _service(store)
    code, (ana, ben) = await _room_with_seats(service, 2)
    store.saves.clear()
    outcomes = await _queued_behind_a_held_save(
        store,
        service,
        code,
        _chat(ana, 1, "one"),
        [_chat(ben, 1, "x" * 500), _chat(ben, 1, "two"), _chat(ana, 1, "one")],
    )
    refused, applied, resent = outcomes[1], outcomes[2], outcomes[3]
    assert isinstance(refused, RoomError) and refused.code == ErrorCode.CHAT_TOO_LONG
    assert isinstance(applied, Change) and applied.result_version == 5
    assert isinstance(resent, Change) and resent.duplicate and resent.result_version == 4
    assert store.saves == [1, 1]
    room = service.cached(code)
    assert room is not None and [line.text for line in room.chat] == ["one", "two"]


async def test_a_refusal_is_freed_once_handled_without_waiting_for_a_full_collection() -> None:
    """A refusal's traceback held the frames that judged it, and they held the refusal (the
    batch's outcomes, the caller's future): every refused command, with the rooms it was
    judged on, waited for the cycle collector, whose full collections the server makes rare
    (server/cli.py). Under load the server's memory grew by a kilobyte or so per action until
    one came (issue 29). Now reference counting frees it, judged at once or in a batch."""
    store = GatedStore()
    service = _service(store)
    code, (ana, ben) = await _room_with_seats(service, 2)
    await asyncio.sleep(0)  # the last join's task is done: let its callback free the room
    gc.collect()
    gc.disable()
    try:
        refs = []
        try:  # judged at once, on the cached room (nothing under way for it)
            await service.change(code, _chat(ben, 1, "x" * 500))
        except RoomError as exc:
            refs.append(weakref.ref(exc))
        # Judged in a batch, queued behind a save (awaited as a task, not through gather,
        # whose own bookkeeping is a cycle).
        gate, leader = await _held(store, service, code, _chat(ana, 1, "one"))
        queued = asyncio.create_task(service.change(code, _chat(ben, 1, "x" * 500)))
        await asyncio.sleep(0)  # the scenario: it is queued before the release
        gate.set()
        await leader
        try:
            await queued
        except RoomError as exc:
            refs.append(weakref.ref(exc))
        del queued  # the task keeps what it raised
        assert len(refs) == 2 and [ref() for ref in refs] == [None, None]
    finally:
        gc.enable()


async def test_a_batch_whose_reply_was_lost_is_acknowledged_once_as_made() -> None:
    store = GatedStore()
    service = _service(store)
    code, (ana, ben, cy) = await _room_with_seats(service, 3)
    store.lose = len(store.saves) + 2  # the batch of two is saved, but its reply never comes
    gate, leader = await _held(store, service, code, _chat(ana, 1, "one"))
    waiting = [
        asyncio.create_task(service.change(code, c))
        for c in (_chat(ben, 1, "two"), _chat(cy, 1, "three"))
    ]
    await asyncio.sleep(0)
    gate.set()
    assert (await leader).result_version == 5
    two, three = await asyncio.gather(*waiting)
    assert (two.result_version, three.result_version) == (6, 7)
    assert not two.duplicate and not three.duplicate, "each sender's own send counted"
    entries = [unpack(e) for _, e in await store.log(code)]
    assert [e.get("seq") for e in entries if e["kind"] == "chat"] == [1, 1, 1]
    assert service.metrics.lost_replies == 1


async def test_a_waiter_cancelled_before_its_turn_is_not_applied() -> None:
    store = GatedStore()
    service = _service(store)
    code, (ana, ben) = await _room_with_seats(service, 2)
    gate, leader = await _held(store, service, code, _chat(ana, 1, "one"))
    gone = asyncio.create_task(service.change(code, _chat(ben, 1, "never")))
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.gather(gone, return_exceptions=True)
    gate.set()
    await leader
    after = await service.change(code, _chat(ben, 2, "two"))
    assert after.result_version == 5
    room = service.cached(code)
    assert room is not None and [line.text for line in room.chat] == ["one", "two"]


async def test_a_waiter_cancelled_while_its_batch_is_retried_is_not_applied() -> None:
    """The batch was taken, its save lost a race, and one of its callers went away before the
    retry: the retry leaves that caller's command out."""
    store = GatedStore()
    service, other = _service(store), _service(store)
    code, (ana, ben, cy) = await _room_with_seats(service, 3)
    gate, leader = await _held(store, service, code, _chat(ana, 1, "one"))
    two = asyncio.create_task(service.change(code, _chat(ben, 1, "two")))
    gone = asyncio.create_task(service.change(code, _chat(cy, 1, "never")))
    await asyncio.sleep(0)  # the scenario: both are queued before the release
    held = store.hold = asyncio.Event()  # the batch of two waits in its save
    gate.set()
    await leader
    await asyncio.wait_for(store.holding.wait(), 5)
    # Meanwhile another instance changes the room: the batch's save will lose the race.
    await other.change(code, _chat(ana, 2, "meanwhile"))
    gone.cancel()
    await asyncio.gather(gone, return_exceptions=True)
    held.set()
    assert (await two).result_version == 7
    room = await service.get(code)
    assert room is not None and [line.text for line in room.chat] == ["one", "meanwhile", "two"]


async def test_a_leader_that_goes_away_does_not_fail_the_others_in_its_batch() -> None:
    store = GatedStore()
    service = _service(store)
    code, (ana, ben, cy) = await _room_with_seats(service, 3)
    gate, first = await _held(store, service, code, _chat(ana, 1, "one"))
    leader = asyncio.create_task(service.change(code, _chat(ben, 1, "two")))
    follower = asyncio.create_task(service.change(code, _chat(cy, 1, "three")))
    await asyncio.sleep(0)
    held = store.hold = asyncio.Event()
    gate.set()
    await first
    await asyncio.wait_for(store.holding.wait(), 5)  # the batch of two is being saved
    leader.cancel()
    await asyncio.gather(leader, return_exceptions=True)
    held.set()
    assert (await follower).result_version == 7, "the other command in the batch is applied"
    room = await service.get(code)
    assert room is not None and [line.text for line in room.chat] == ["one", "two", "three"]
    assert all(not held.waiting for held in service.local), "nothing is left waiting"


async def test_a_refusal_judged_after_a_change_whose_save_is_lost_twice_is_not_final() -> None:
    """Both tries at saving a batch fail without an answer: a refusal judged on the room with
    the first command's change is answered ``unavailable`` too, not as if that change had
    surely been made (here it never was)."""
    store = GatedStore()
    service = _service(store)
    code, (ana, ben) = await _room_with_seats(service, 2)
    gate, first = await _held(store, service, code, _chat(ana, 1, "one"))
    applied = asyncio.create_task(service.change(code, _chat(ben, 1, "two")))
    refused = asyncio.create_task(service.change(code, _chat(ben, 1, "other text")))
    await asyncio.sleep(0)
    store.down = True  # from now on no save is made, and none is answered
    gate.set()
    outcomes = await asyncio.gather(first, applied, refused, return_exceptions=True)
    assert all(isinstance(o, StoreUnavailable) for o in outcomes), outcomes
    room = await service.get(code)
    assert room is not None and room.chat == ()


def _can_act(state: dict[str, Any] | None) -> bool:
    return bool(state and state["view"] and state["view"]["legal"])


async def test_a_number_swap_opening_played_by_all_eight_seats_at_once_counts_each_flip_once(
    redis_clean: str,
) -> None:
    """Over real uvicorn, WebSockets and redis-server: eight seats send their opening flips in
    the same instant, so they queue behind each other's saves and are batched."""
    async with serve(TEST_SETTINGS, RedisStore(redis_clean)) as server:
        code = await create_room(server.http, "numberswap")
        clients = await seat_clients([server.ws], code, 8)
        await start(clients[0])
        for client in clients:
            if not _can_act(client.state):
                await client.until(lambda m: m["type"] == "state" and _can_act(m))
        seqs = [await c.act(c.state["view"]["legal"][0]) for c in clients]  # type: ignore[index]
        acks = [
            await c.until(lambda m, s=s: m["type"] == "ack" and m["seq"] == s)
            for c, s in zip(clients, seqs, strict=True)
        ]
        assert not any(a["duplicate"] for a in acks)
        versions = sorted(a["version"] for a in acks)
        assert versions == list(range(versions[0], versions[0] + 8)), "one version each"
        entries = [unpack(e) for _, e in await server.instance.store.log(code)]
        flips = [e for e in entries if e["kind"] == "act"]
        assert sorted(e["seat"] for e in flips) == list(range(8)), "each seat's flip once"
        newest = max(a["version"] for a in acks)
        for client in clients:
            await client.state_at_least(newest)


async def test_a_command_whose_batch_is_cancelled_before_it_runs_is_answered() -> None:
    """Shutting down cancels every task, the batch's maybe before its first step: its
    caller is told the change was not made (and a resend applies it once), not left waiting."""
    store = GatedStore()
    service = _service(store)
    code, (ana,) = await _room_with_seats(service, 1)
    before = asyncio.all_tasks()
    caller = asyncio.create_task(service.change(code, _chat(ana, 1, "one")))
    await asyncio.sleep(0)  # the caller ran up to waiting for its outcome
    (batch,) = asyncio.all_tasks() - before - {caller}
    batch.cancel()
    with pytest.raises(StoreUnavailable):
        await asyncio.wait_for(caller, 5)
    room = await service.get(code)
    assert room is not None and room.chat == ()
    assert (await service.change(code, _chat(ana, 1, "one"))).result_version == room.version + 1
    assert all(not held.waiting for held in service.local), "nothing is left waiting"


async def test_a_command_that_raises_stop_iteration_fails_alone_in_its_batch() -> None:
    """A future cannot hold StopIteration: a command with that bug must still fail alone,
    not leave itself and every command after it in the batch unanswered."""
    store = GatedStore()
    service = _service(store)
    code, (ana, _ben, cy) = await _room_with_seats(service, 3)

    def broken(room: Room) -> Change:
        raise StopIteration

    outcomes = await asyncio.wait_for(
        _queued_behind_a_held_save(
            store, service, code, _chat(ana, 1, "one"), [broken, _chat(cy, 1, "three")]
        ),
        5,
    )
    assert isinstance(outcomes[1], RuntimeError) and "StopIteration" in str(outcomes[1])
    assert [o.result_version for o in (outcomes[0], outcomes[2])] == [5, 6]  # type: ignore[union-attr]
    room = await service.get(code)
    assert room is not None and [line.text for line in room.chat] == ["one", "three"]


async def test_a_batch_cancelled_mid_save_answers_it_interrupted_and_the_queue_not_made() -> None:
    """Shutdown cancels the room's task while a save is under way: that batch's caller hears
    it may or may not have been applied, the commands queued behind it that they were not
    (and they are not), and nothing is left waiting."""
    store = GatedStore()
    service = _service(store)
    code, (ana, ben, cy) = await _room_with_seats(service, 3)
    before = asyncio.all_tasks()
    _gate, first = await _held(store, service, code, _chat(ana, 1, "one"))
    queued = [
        asyncio.create_task(service.change(code, c))
        for c in (_chat(ben, 1, "two"), _chat(cy, 1, "three"))
    ]
    await asyncio.sleep(0)  # both are queued behind the save
    (batch,) = asyncio.all_tasks() - before - {first, *queued}
    batch.cancel()
    outcomes = await asyncio.wait_for(asyncio.gather(first, *queued, return_exceptions=True), 5)
    assert all(isinstance(o, StoreUnavailable) for o in outcomes), outcomes
    assert "find out" in str(outcomes[0])
    assert all("not made" in str(o) for o in outcomes[1:])
    room = await service.get(code)
    assert room is not None and room.chat == (), "the held save never happened"
    assert list(service.local) == []
