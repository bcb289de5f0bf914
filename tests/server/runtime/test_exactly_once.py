"""Every command that changes a room counts exactly once, however often it is sent.

Each test sends the same command twice, as a client does after a lost reply, and checks that
the room changed once and that the second answer is the first one's result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from rules.codec import unpack
from server.stores.memory_store import MemoryStore
from server.stores.redis_store import RedisStore
from server.stores.store import StoreUnavailable
from tests.server.driver import seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, RunningServer, create_room, serve


@pytest.fixture
async def server(redis_clean: str) -> AsyncIterator[RunningServer]:
    async with serve(TEST_SETTINGS, RedisStore(redis_clean)) as running:
        yield running


async def version(server: RunningServer, code: str) -> int:
    room = await server.instance.service.get(code)
    assert room is not None
    return int(room.version)


async def test_chat_resent_with_the_same_seq_adds_one_line(server: RunningServer) -> None:
    code = await create_room(server.http, "toy")
    (ana,) = await seat_clients([server.ws], code, 1)
    for _ in range(2):
        await ana.send({"type": "chat", "seq": 5, "text": "hello"})
    first = await ana.until(lambda m: m["type"] == "ack" and m["seq"] == 5)
    second = await ana.until(lambda m: m["type"] == "ack" and m["seq"] == 5)
    assert (first["duplicate"], second["duplicate"]) == (False, True)
    assert second["version"] == first["version"], "the resend gets the first result"
    room = server.instance.service.cached(code)
    assert [line.text for line in room.chat] == ["hello"]


async def test_add_bot_resent_with_the_same_seq_adds_one_bot(server: RunningServer) -> None:
    code = await create_room(server.http, "toy")
    (host,) = await seat_clients([server.ws], code, 1)
    before = await version(server, code)
    for _ in range(2):
        await host.send({"type": "add_bot", "seq": 1})
    await host.until(lambda m: m["type"] == "ack" and m["duplicate"])
    room = server.instance.service.cached(code)
    assert [s.bot for s in room.seats] == [False, True]
    assert room.version == before + 1


async def test_join_resent_with_the_same_key_gets_the_same_seat_and_token(
    server: RunningServer,
) -> None:
    """A lost ``welcome``: the client joins again with its key on a new connection."""
    code = await create_room(server.http, "toy")
    first = await Client.open(server.ws, code)
    welcome = await first.join("Ana")
    await first.close()  # the welcome "was lost": the client only knows its key
    again = await Client.open(server.ws, code)
    again.join_key = first.join_key
    rejoined = await again.join("Ana")
    assert (rejoined["id"], rejoined["token"]) == (welcome["id"], welcome["token"])
    room = server.instance.service.cached(code)
    assert len(room.seats) == 1 and room.host == welcome["id"], "no ghost seat, no ghost host"
    # And the token it now holds is the real one: it resumes the seat.
    third = await Client.open(server.ws, code)
    assert (await third.resume(rejoined["token"]))["id"] == welcome["id"]


async def test_a_join_key_cannot_take_over_another_rooms_seat(server: RunningServer) -> None:
    one = await create_room(server.http, "toy")
    two = await create_room(server.http, "toy")
    a = await Client.open(server.ws, one)
    b = await Client.open(server.ws, two)
    b.join_key = a.join_key
    assert (await a.join("Ana"))["token"] != (await b.join("Ben"))["token"]


async def test_room_creation_resent_with_the_same_key_makes_one_room(
    server: RunningServer,
) -> None:
    body = {"game": "toy", "key": "k" * 22}
    async with httpx.AsyncClient(base_url=server.http) as http:
        first = await http.post("/api/rooms", json=body)
        second = await http.post("/api/rooms", json=body)
        other = await http.post("/api/rooms", json={**body, "key": "x" * 22})
    assert first.status_code == second.status_code == 201
    assert first.json()["code"] == second.json()["code"]
    assert other.json()["code"] != first.json()["code"]
    assert len(await server.instance.store.codes(100)) == 2


async def test_start_resent_with_the_same_seq_deals_once(server: RunningServer) -> None:
    code = await create_room(server.http, "toy")
    clients = await seat_clients([server.ws], code, 2)
    await start(clients[0])
    dealt = await version(server, code)
    await clients[0].send({"type": "start", "seq": clients[0].seq})
    ack = await clients[0].until(lambda m: m["type"] == "ack")
    assert ack["duplicate"] is True and ack["version"] == dealt
    assert await version(server, code) == dealt


async def test_a_seq_far_ahead_is_refused_with_the_seats_last_seq(server: RunningServer) -> None:
    """A seat that sent seq 2**53 used to be locked out of the game for good."""
    code = await create_room(server.http, "toy")
    (ana,) = await seat_clients([server.ws], code, 1)
    await ana.send({"type": "chat", "seq": 2**53, "text": "hi"})
    refused = await ana.error("bad_seq")
    assert refused["seq"] == 2**53 and refused["last_seq"] == 0
    await ana.send({"type": "chat", "seq": refused["last_seq"] + 1, "text": "hi"})
    assert (await ana.expect("ack"))["duplicate"] is False


class LostReply(MemoryStore):
    """A memory store whose next save is made but whose reply is lost (a timeout)."""

    lose = False

    async def save(self, *args: Any, **kwargs: Any) -> str:
        tag = await super().save(*args, **kwargs)
        if self.lose:
            self.lose = False
            raise StoreUnavailable("the reply was lost")
        return tag


async def test_a_move_whose_reply_was_lost_is_acknowledged_once_as_made() -> None:
    """The sender used to be told its move was a duplicate of itself."""
    store = LostReply()
    async with serve(TEST_SETTINGS, store) as server:
        code = await create_room(server.http, "toy")
        clients = await seat_clients([server.ws], code, 2)
        await start(clients[0])
        mover = next(c for c in clients if c.state["view"]["legal"])  # type: ignore[index]
        store.lose = True
        seq = await mover.act(mover.state["view"]["legal"][0])  # type: ignore[index]
        ack = await mover.until(lambda m: m["type"] == "ack" and m["seq"] == seq)
        assert ack["duplicate"] is False
        acts = [unpack(e) for _, e in await store.log(code)]
        assert [e["seq"] for e in acts if e["kind"] == "act"] == [seq]
        assert server.instance.metrics.lost_replies == 1


async def test_a_move_resent_after_a_reconnect_is_applied_once(server: RunningServer) -> None:
    """The socket drops with a move unacknowledged: the client resumes (here on a new
    connection) and resends it with the same seq; it counts once."""
    code = await create_room(server.http, "toy")
    clients = await seat_clients([server.ws], code, 2)
    await start(clients[0])
    mover = next(c for c in clients if c.state["view"]["legal"])  # type: ignore[index]
    seq = await mover.act(mover.state["view"]["legal"][0])  # type: ignore[index]
    sent = mover.sent[seq]
    await mover.close()  # before reading its ack: the client cannot know whether it counted
    again = await Client.open(server.ws, code)
    await again.resume(mover.welcome["token"])  # type: ignore[index]
    await again.send(sent)
    ack = await again.until(lambda m: m["type"] == "ack" and m["seq"] == seq)
    assert ack["duplicate"] is True  # the first send had counted
    entries = [unpack(e) for _, e in await server.instance.store.log(code)]
    assert [e["seq"] for e in entries if e["kind"] == "act"] == [seq]
