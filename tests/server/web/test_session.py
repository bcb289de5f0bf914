"""Hostile input: every bad frame or forbidden request gets an error with a code, answered to
the sender only, and the room's version does not move."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from rules.codec import pack
from server.stores.memory_store import MemoryStore
from server.transport.serving import WS_MAX_SIZE
from server.web.app import origin_allowed
from tests.server.driver import seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, RunningServer, create_room, serve


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Table:
    server: RunningServer
    code: str
    players: list[Client]
    clock: Clock

    async def version(self) -> int:
        stored = await self.server.instance.store.load(self.code)
        assert stored is not None
        return stored.version

    def to_move(self) -> tuple[Client, Client]:
        """(the seat to act, another seat) by the latest view."""
        state = self.players[0].state
        assert state is not None
        turn = state["view"]["to_act"][0]
        return self.players[turn], self.players[1 - turn]


SETTINGS = TEST_SETTINGS.model_copy(
    update={"max_frame": 1024, "flood_rate": 5.0, "flood_burst": 10.0, "max_strikes": 5}
)


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    clock = Clock()
    async with serve(SETTINGS, MemoryStore(clock=clock)) as server:
        # The rate limits too run on this clock, which stands still unless a test moves it:
        # a flood is a flood however slowly this machine sends it.
        server.instance.limit_clock = clock
        code = await create_room(server.http, "toy")
        players = await seat_clients([server.ws], code, 2)
        await start(players[0])
        await players[1].state_at_least(players[0].state["version"])  # type: ignore[index]
        yield Table(server, code, players, clock)


async def refused(table: Table, client: Client, frame: Any, code: str, raw: bool = False) -> None:
    before = await table.version()
    if raw:
        await client.send_raw(frame)
    else:
        await client.send(frame)
    message = await client.error(code)
    assert message["message"], "every error carries a readable text"
    assert await table.version() == before, "a refused message never moves the room"


async def test_malformed_msgpack_frame(table: Table) -> None:
    await refused(table, table.players[0], b"\xc1\xff\x00", "bad_frame", raw=True)


async def test_text_frame_on_a_msgpack_connection(table: Table) -> None:
    await refused(table, table.players[0], '{"type":"sync"}', "bad_frame", raw=True)


async def test_malformed_json_frame(table: Table) -> None:
    client = await Client.open(table.server.ws, table.code, "json")
    await refused(table, client, "{not json", "bad_frame", raw=True)
    await refused(table, client, pack({"type": "watch"}), "bad_frame", raw=True)


async def test_message_that_is_not_an_object(table: Table) -> None:
    await refused(table, table.players[0], [1, 2, 3], "bad_frame")


async def test_unknown_and_missing_message_type(table: Table) -> None:
    await refused(table, table.players[0], {"type": "teleport"}, "unknown_type")
    await refused(table, table.players[0], {"seq": 1}, "unknown_type")
    # It said "Unknown message type 'NoneType'".
    assert table.players[0].errors[-1]["message"] == "The message has no type"


async def test_malformed_message_fields(table: Table) -> None:
    mover, _ = table.to_move()
    action = {"type": "play", "card": 1}
    await refused(table, mover, {"type": "act", "seq": "1", "action": action}, "bad_message")
    await refused(table, mover, {"type": "act", "seq": 0, "action": action}, "bad_message")
    await refused(table, mover, {"type": "act", "seq": 1}, "bad_message")
    await refused(table, mover, {"type": "chat", "text": "hi", "extra": 1}, "bad_message")


async def test_oversized_frame_is_refused_and_closes_with_1009(table: Table) -> None:
    client = table.players[0]
    await refused(table, client, {"type": "chat", "text": "x" * 2000}, "too_big")
    with pytest.raises(ConnectionClosed):
        await client.recv()
    assert client.ws.close_code == 1009


async def test_missing_and_wrong_token(table: Table) -> None:
    client = await Client.open(table.server.ws, table.code)
    await refused(table, client, {"type": "resume"}, "bad_message")
    await refused(table, client, {"type": "resume", "token": "not-a-real-token"}, "bad_token")


async def test_acting_before_joining(table: Table) -> None:
    client = await Client.open(table.server.ws, table.code)
    action = {"type": "play", "card": 1}
    await refused(table, client, {"type": "act", "seq": 1, "action": action}, "not_joined")
    await refused(table, client, {"type": "start"}, "not_joined")


async def test_acting_for_another_seat(table: Table) -> None:
    mover, other = table.to_move()
    legal = mover.state["view"]["legal"]  # type: ignore[index]
    seat = mover.state["you"]  # type: ignore[index]
    message = {"type": "act", "seq": 101, "action": legal[0], "seat": seat}
    await refused(table, other, message, "not_your_seat")


async def test_not_your_turn(table: Table) -> None:
    _, other = table.to_move()
    hand = other.state["view"]["hand"]  # type: ignore[index]
    message = {"type": "act", "seq": 101, "action": {"type": "play", "card": hand[0]}}
    await refused(table, other, message, "not_your_turn")


async def test_illegal_and_invalid_actions(table: Table) -> None:
    mover, _ = table.to_move()
    hand = mover.state["view"]["hand"]  # type: ignore[index]
    missing = next(c for c in range(1, 100) if c not in hand)
    play = {"type": "play", "card": missing}
    await refused(table, mover, {"type": "act", "seq": 101, "action": play}, "illegal_action")
    bogus = {"type": "fly", "card": 1}
    await refused(table, mover, {"type": "act", "seq": 102, "action": bogus}, "invalid_action")
    error = await refused_error(table, mover, {"type": "act", "seq": 103, "action": {"x": 1}})
    assert error["code"] == "invalid_action" and error["seq"] == 103


async def refused_error(table: Table, client: Client, frame: Any) -> dict[str, Any]:
    before = await table.version()
    await client.send(frame)
    message = await client.error()
    assert await table.version() == before
    return message


async def test_host_commands_from_a_guest(table: Table) -> None:
    guest = table.players[1]
    await refused(table, guest, {"type": "lock", "locked": True}, "not_host")
    await refused(table, guest, {"type": "kick", "id": 1}, "not_host")
    await refused(table, guest, {"type": "rematch"}, "not_host")


async def test_wrong_phase_commands(table: Table) -> None:
    host = table.players[0]
    await refused(table, host, {"type": "start"}, "wrong_phase")
    await refused(table, host, {"type": "add_bot"}, "wrong_phase")
    await refused(table, host, {"type": "join", "name": "again"}, "already_joined")


async def test_joining_a_game_in_progress(table: Table) -> None:
    late = await Client.open(table.server.ws, table.code)
    await refused(table, late, {"type": "join", "name": "Late"}, "in_progress")


async def test_joining_a_full_room(table: Table) -> None:
    code = await create_room(table.server.http, "toy")
    host = (await seat_clients([table.server.ws], code, 1))[0]
    for _ in range(7):
        await host.send({"type": "add_bot"})
    await host.until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == 8)
    late = await Client.open(table.server.ws, code)
    await table_for(table, code).check(late, {"type": "join", "name": "Nine"}, "room_full")


async def test_joining_a_locked_room(table: Table) -> None:
    code = await create_room(table.server.http, "toy")
    host = (await seat_clients([table.server.ws], code, 1))[0]
    await host.send({"type": "lock", "locked": True})
    await host.until(lambda m: m["type"] == "state" and m["room"]["locked"])
    late = await Client.open(table.server.ws, code)
    await table_for(table, code).check(late, {"type": "join", "name": "Late"}, "room_locked")


async def test_unknown_room(table: Table) -> None:
    for code in ("ZZZZZ", "not-a-code"):
        client = await Client.open(table.server.ws, code)
        if code == "ZZZZZ":
            await client.send({"type": "join", "name": "Who"})
        await client.error("no_room")
        with pytest.raises(ConnectionClosed):
            await client.recv()
        assert client.ws.close_code == 4004


async def test_expired_room(table: Table) -> None:
    table.clock.now += SETTINGS.room_ttl + 1
    client = await Client.open(table.server.ws, table.code)
    await client.send({"type": "watch"})
    await client.error("no_room")
    mover, _ = table.to_move()
    await mover.act(mover.state["view"]["legal"][0])  # type: ignore[index]
    await mover.error("no_room")


async def test_flooding_is_refused_then_closed_with_1008(table: Table) -> None:
    client = await Client.open(table.server.ws, table.code)
    before = await table.version()
    for _ in range(30):
        await client.send({"type": "sync"})
    codes = []
    with pytest.raises(ConnectionClosed):
        while True:
            message = await client.recv()
            if message["type"] == "error":
                codes.append(message["code"])
    assert "flood" in codes
    assert client.ws.close_code == 1008
    assert await table.version() == before


async def test_foreign_origin_is_refused(table: Table) -> None:
    with pytest.raises(InvalidStatus) as refused_:
        await Client.open(table.server.ws, table.code, origin="https://evil.example")
    assert refused_.value.response.status_code == 403
    same = f"http://127.0.0.1:{table.server.port}"
    ok = await Client.open(table.server.ws, table.code, origin=same)
    await ok.watch()


@dataclass
class _Other:
    table: Table
    code: str

    async def check(self, client: Client, frame: Any, code: str) -> None:
        store = self.table.server.instance.store
        before = await store.load(self.code)
        await client.send(frame)
        await client.error(code)
        after = await store.load(self.code)
        assert before is not None and after is not None and after.version == before.version


def table_for(table: Table, code: str) -> _Other:
    return _Other(table, code)


# -- cases fixed before: each pinned here by name -------------------------------------------------


async def test_type_that_is_a_list_or_a_map(table: Table) -> None:
    for kind in ([1, 2], {"a": 1}):
        await refused(table, table.players[0], pack({"type": kind}), "unknown_type", raw=True)


async def test_resume_token_with_a_lone_surrogate(table: Table) -> None:
    client = await Client.open(table.server.ws, table.code, "json")
    await refused(table, client, '{"type": "resume", "token": "ab\\ud800cd"}', "bad_frame", True)


async def _json_seat(table: Table, index: int) -> Client:
    """Another connection of seat ``index``, speaking JSON."""
    token = table.players[index].welcome["token"]  # type: ignore[index]
    client = await Client.open(table.server.ws, table.code, "json")
    await client.resume(token)
    return client


async def test_a_json_integer_beyond_64_bits_is_refused_and_the_connection_stays(
    table: Table,
) -> None:
    """It used to drop the connection with no close frame (an OverflowError in the digest)."""
    mover, _ = table.to_move()
    client = await _json_seat(table, table.players.index(mover))
    seq = client.next_seq()
    for big in (2**64, -(2**63) - 1, 10**40):
        frame = f'{{"type": "act", "seq": {seq}, "action": {{"type": "play", "card": {big}}}}}'
        await refused(table, client, frame, "bad_frame", raw=True)
    await refused(
        table, client, f'{{"type": "kick", "seq": {seq}, "id": {2**70}}}', "bad_frame", True
    )
    await client.send({"type": "sync"})
    await client.expect("state")


async def test_a_lone_surrogate_in_an_action_is_refused_and_the_connection_stays(
    table: Table,
) -> None:
    mover, _ = table.to_move()
    client = await _json_seat(table, table.players.index(mover))
    frame = f'{{"type": "act", "seq": {client.next_seq()}, "action": {{"type": "\\ud800"}}}}'
    await refused(table, client, frame, "bad_frame", raw=True)
    await refused(table, client, '{"type": "chat", "seq": 90, "\\udfff": 1}', "bad_frame", True)
    await client.send({"type": "sync"})
    await client.expect("state")


async def test_a_resend_with_its_keys_in_another_order_is_the_same_command(table: Table) -> None:
    """Exactly-once does not depend on key order: the resend is acknowledged as the duplicate
    it is, not refused as a reused number (which a client would renumber: a second move)."""
    mover, _ = table.to_move()
    client = await _json_seat(table, table.players.index(mover))
    action = client.state["view"]["legal"][0]  # type: ignore[index]
    seq = client.next_seq()
    await client.send_raw(json.dumps({"type": "act", "seq": seq, "action": action}))
    first = await client.until(lambda m: m["type"] == "ack" and m["seq"] == seq)
    backwards = dict(reversed(list(action.items())))
    assert list(backwards) != list(action) or len(action) == 1
    await client.send_raw(json.dumps({"action": backwards, "seq": seq, "type": "act"}))
    again = await client.until(lambda m: m["type"] in ("ack", "error") and m.get("seq") == seq)
    assert again["type"] == "ack" and again["duplicate"] is True, again
    assert again["version"] == first["version"]


async def test_a_command_that_changes_nothing_on_a_fresh_seq_is_not_called_a_duplicate(
    table: Table,
) -> None:
    """``duplicate`` is for a seq already used; "back" from a seat that is not away, on a new
    seq, is answered plainly."""
    client = table.players[1]
    seq = client.next_seq()
    await client.send({"type": "back", "seq": seq})
    ack = await client.until(lambda m: m["type"] in ("ack", "error") and m.get("seq") == seq)
    assert ack["type"] == "ack" and ack["duplicate"] is False, ack


async def test_refused_act_and_flood_refusals_carry_the_seq(table: Table) -> None:
    mover, _ = table.to_move()
    message = await refused_error(table, mover, {"type": "act", "seq": 500, "action": {"x": 1}})
    assert message["seq"] == 500
    for seq in range(501, 501 + int(SETTINGS.flood_burst) + 1):
        await mover.send({"type": "act", "seq": seq, "action": {"x": 1}})
    flood = await mover.until(lambda m: m["type"] == "error" and m["code"] == "flood")
    assert isinstance(flood["seq"], int) and flood["seq"] > 500


async def test_turn_timer_that_is_not_a_number(table: Table) -> None:
    host = table.players[0]
    for timer in ("30", True, [30]):
        await refused(table, host, {"type": "options", "turn_timer": timer}, "bad_message")


async def test_seq_out_of_range(table: Table) -> None:
    mover, _ = table.to_move()
    action = mover.state["view"]["legal"][0]  # type: ignore[index]
    for seq in (0, -1, 2**53 + 1):
        await refused(table, mover, {"type": "act", "seq": seq, "action": action}, "bad_message")
    last_seq = mover.state["last_seq"]  # type: ignore[index]
    far = {"type": "act", "seq": last_seq + 5000, "action": action}
    message = await refused_error(table, mover, far)
    assert message["code"] == "bad_seq" and message["last_seq"] == last_seq


# -- nesting ------------------------------------------------------------------------------------

#: Frames of a few KiB: the default frame limit, not the table's small one.
NESTED = SETTINGS.model_copy(update={"max_frame": TEST_SETTINGS.max_frame})


async def test_json_nested_a_thousand_deep() -> None:
    """Fits in the 4 KiB limit; used to raise RecursionError in the handler (a 1006 for the
    client, a traceback in the log)."""
    deep = "[" * 1500 + "]" * 1500
    async with serve(NESTED) as server:
        code = await create_room(server.http, "toy")
        client = await Client.open(server.ws, code, "json")
        for frame in (deep, '{"type": "watch", "x": ' + deep + "}"):
            await client.send_raw(frame)
            message = await client.error("bad_frame")
            assert "deep" in message["message"]
        await client.watch()


async def test_msgpack_nested_too_deep() -> None:
    deep: list[Any] = []
    for _ in range(40):
        deep = [deep]
    async with serve(NESTED) as server:
        code = await create_room(server.http, "toy")
        client = await Client.open(server.ws, code)
        for frame in (b"\x91" * 3000 + b"\x90", pack({"type": "watch", "x": deep})):
            await client.send_raw(frame)
            message = await client.error("bad_frame")
            assert "deep" in message["message"]
        await client.watch()


# -- strikes and the log ------------------------------------------------------------------------

STRIKES = TEST_SETTINGS.model_copy(update={"max_strikes": 5})
#: One message passes (a watch), every other one is a flood.
FLOODED = STRIKES.model_copy(update={"flood_rate": 0.001, "flood_burst": 1.0})
#: A frame over the limit is answered, then the connection is closed at once.
TOO_BIG = "x" * (STRIKES.max_frame + 1)
#: (format, frame, error code) for every kind of frame no correct client sends.
HOSTILE: dict[str, tuple[str, bytes | str, str]] = {
    "malformed-msgpack": ("msgpack", b"\xc1\xff\x00", "bad_frame"),
    "text-frame-on-msgpack": ("msgpack", '{"type": "sync"}', "bad_frame"),
    "malformed-json": ("json", "{not json", "bad_frame"),
    "not-an-object": ("msgpack", pack([1, 2, 3]), "bad_frame"),
    "json-nested-too-deep": ("json", "[" * 1500 + "]" * 1500, "bad_frame"),
    "msgpack-nested-too-deep": ("msgpack", b"\x91" * 3000 + b"\x90", "bad_frame"),
    "type-a-list": ("msgpack", pack({"type": [1]}), "unknown_type"),
    "type-a-map": ("msgpack", pack({"type": {"a": 1}}), "unknown_type"),
    "unknown-type": ("msgpack", pack({"type": "teleport"}), "unknown_type"),
    "missing-type": ("msgpack", pack({"seq": 1}), "unknown_type"),
    "mistyped-field": ("msgpack", pack({"type": "act", "seq": "1", "action": {}}), "bad_message"),
    "seq-out-of-range": (
        "msgpack",
        pack({"type": "act", "seq": 2**53 + 1, "action": {}}),
        "bad_message",
    ),
    "token-with-a-surrogate": ("json", '{"type": "resume", "token": "\\ud800"}', "bad_frame"),
    "timer-not-a-number": (
        "msgpack",
        pack({"type": "options", "seq": 1, "turn_timer": "30"}),
        "bad_message",
    ),
    "frame-too-big": ("json", TOO_BIG, "too_big"),
    "flood": ("msgpack", pack({"type": "watch"}), "flood"),
}


@contextlib.contextmanager
def uvicorn_logs_to(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """uvicorn's loggers do not propagate (and are set up again by every server): send them
    to caplog too, for as long as the server runs."""
    logger = logging.getLogger("uvicorn")
    logger.addHandler(caplog.handler)
    try:
        yield
    finally:
        logger.removeHandler(caplog.handler)


@pytest.mark.parametrize("case", list(HOSTILE))
async def test_every_hostile_frame_is_a_strike_logged_without_a_traceback(
    case: str, caplog: pytest.LogCaptureFixture
) -> None:
    fmt, frame, code = HOSTILE[case]
    caplog.set_level(logging.INFO)
    big, flood = code == "too_big", code == "flood"
    async with serve(FLOODED if flood else STRIKES) as server:
        server.instance.limit_clock = lambda: 0.0  # no refill, whatever the machine's speed
        with uvicorn_logs_to(caplog):
            room = await create_room(server.http, "toy")
            before = (await server.instance.store.load(room)).version  # type: ignore[union-attr]
            client = await Client.open(server.ws, room, fmt)
            for _ in range(1 if big else STRIKES.max_strikes + flood):
                await client.send_raw(frame)
            with pytest.raises(ConnectionClosed):
                while True:
                    await client.recv()
            assert client.ws.close_code == (1009 if big else 1008)
            assert [e["code"] for e in client.errors] == [code] * (
                1 if big else STRIKES.max_strikes
            )
            assert all(e["message"] for e in client.errors)
            after = (await server.instance.store.load(room)).version  # type: ignore[union-attr]
            assert after == before
    refusals = [r for r in caplog.records if r.getMessage().startswith(f"refused {code} ")]
    assert len(refusals) == len(client.errors), "each refusal is logged (within the log budget)"
    troubles = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not troubles, [r.getMessage() for r in troubles]


async def test_a_frame_too_big_as_the_last_strike_is_closed_1009() -> None:
    """Found by the wire fuzzer (tests/server/transport/test_fuzz.py): a frame over the limit that
    was also the connection's last strike closed it with 1008, where docs/protocol.md promises 1009
    after ``too_big``."""
    async with serve(STRIKES) as server:
        server.instance.limit_clock = lambda: 0.0
        code = await create_room(server.http, "toy")
        client = await Client.open(server.ws, code)
        for _ in range(STRIKES.max_strikes - 1):
            await client.send_raw(b"\xc1")
            await client.error("bad_frame")
        await client.send_raw(pack({"type": "chat", "seq": 1, "text": TOO_BIG}))
        await client.error("too_big")
        with pytest.raises(ConnectionClosed):
            await client.recv()
        assert client.ws.close_code == 1009


# -- frame sizes, as deployed -------------------------------------------------------------------


async def test_a_frame_over_64_kib_is_answered_too_big_then_closed_1009() -> None:
    """uvicorn's own limit (ws_max_size) used to cut such frames off with a bare 1009."""
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy")
        client = await Client.open(server.ws, code)
        await client.send_raw(pack({"type": "chat", "seq": 1, "text": "x" * 100_000}))
        message = await client.error("too_big")
        assert str(TEST_SETTINGS.max_frame) in message["message"]
        with pytest.raises(ConnectionClosed):
            await client.recv()
        assert client.ws.close_code == 1009


async def test_a_frame_over_the_websocket_limit_is_closed_1009_without_a_message() -> None:
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy")
        client = await Client.open(server.ws, code)
        with contextlib.suppress(ConnectionClosed):
            await client.send_raw(b"\x00" * (WS_MAX_SIZE + 1))
        with pytest.raises(ConnectionClosed):
            await client.recv()
        assert client.ws.close_code == 1009 and not client.errors


# -- origins ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "ok"),
    [
        ("http://cards.example", "cards.example", "ws", True),
        ("https://cards.example", "cards.example", "wss", True),
        ("https://cards.example", "cards.example", "ws", False),
        ("http://cards.example", "cards.example", "wss", False),
        ("https://cards.example:443", "cards.example", "wss", True),
        ("http://cards.example:8080", "cards.example:8080", "ws", True),
        ("http://cards.example:8081", "cards.example:8080", "ws", False),
        ("http://CARDS.example", "cards.EXAMPLE", "ws", True),
        ("http://evil.example", "cards.example", "ws", False),
        ("http://[::1]:8000", "[::1]:8000", "ws", True),
        ("null", "cards.example", "ws", False),
        ("http://cards.example:99999", "cards.example", "ws", False),
        (None, "cards.example", "wss", True),
    ],
)
def test_origin_must_match_scheme_host_and_port(
    origin: str | None, host: str, scheme: str, ok: bool
) -> None:
    assert origin_allowed(origin, host, scheme, ()) is ok


async def test_origin_with_another_scheme_is_refused(table: Table) -> None:
    """The Origin check used to compare only host and port: an http page was accepted by an
    https deployment and the other way round."""
    port = table.server.port
    with pytest.raises(InvalidStatus) as refused_:
        await Client.open(table.server.ws, table.code, origin=f"https://127.0.0.1:{port}")
    assert refused_.value.response.status_code == 403
    # Behind a proxy that terminates TLS (this test's 127.0.0.1 is trusted by default), the
    # scheme is the one the proxy forwards.
    tls = {"X-Forwarded-Proto": "https"}
    ok = await Client.open(
        table.server.ws, table.code, origin=f"https://127.0.0.1:{port}", additional_headers=tls
    )
    await ok.watch()
    with pytest.raises(InvalidStatus):
        await Client.open(
            table.server.ws, table.code, origin=f"http://127.0.0.1:{port}", additional_headers=tls
        )


async def test_forwarded_scheme_from_an_untrusted_peer_is_ignored() -> None:
    async with serve(TEST_SETTINGS, forwarded_allow_ips="192.0.2.1") as server:
        code = await create_room(server.http, "toy")
        origin = f"https://127.0.0.1:{server.port}"
        with pytest.raises(InvalidStatus) as refused_:
            await Client.open(
                server.ws, code, origin=origin, additional_headers={"X-Forwarded-Proto": "https"}
            )
        assert refused_.value.response.status_code == 403


# -- HTTP bodies (a real uvicorn, a raw connection) ---------------------------------------------

#: The body may take a minute: an answer within seconds is not the body deadline's.
PATIENT = TEST_SETTINGS.model_copy(update={"body_timeout": 60.0})
FIFTY_MB = 50 * 2**20


async def status_of(reader: asyncio.StreamReader, timeout: float = 5.0) -> tuple[int, bytes]:
    """The status and body of one response (ours always have a Content-Length)."""
    async with asyncio.timeout(timeout):
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split()[1])
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        return status, await reader.readexactly(length)


async def test_a_50_mb_body_is_refused_413_without_being_read() -> None:
    async with serve(PATIENT) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        chunk = b"x" * 65536
        writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))  # of 50 MB: the rest never comes
        await writer.drain()
        status, body = await status_of(reader)
        assert status == 413 and json.loads(body)["code"] == "too_big"
        writer.close()


async def test_a_body_that_declares_50_mb_and_sends_10_bytes_is_refused_413_at_once() -> None:
    async with serve(PATIENT) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        head = b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % FIFTY_MB
        writer.write(head + b"0123456789")
        await writer.drain()
        status, body = await status_of(reader)
        assert status == 413 and json.loads(body)["code"] == "too_big"
        writer.close()
