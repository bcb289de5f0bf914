"""Seats and tokens over real connections: reconnect, a second tab, spectators, the host."""

from __future__ import annotations

import pytest

from rules.registry import get_game
from tests.server.driver import play, seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, RunningServer, create_room, serve


@pytest.fixture
async def server() -> object:
    async with serve(TEST_SETTINGS) as running:
        yield running


async def test_reconnect_by_token_mid_game_resumes_the_seat(server: RunningServer) -> None:
    code = await create_room(server.http, "toy")
    clients = await seat_clients([server.ws], code, 3)
    token = clients[1].welcome["token"]  # type: ignore[index]
    await start(clients[0])
    version = clients[0].state["version"]  # type: ignore[index]
    await clients[1].close()
    again = await Client.open(server.ws, code, "json")
    welcome = await again.resume(token)
    assert welcome["seat"] == 1 and "token" not in welcome
    state = await again.state_at_least(version)
    assert state["you"] == 1
    room = server.instance.service.cached(code)
    assert state["view"] == get_game("toy").view(room.state, 1), "the seat's own hidden hand"
    clients[1] = again
    finals = await play(clients, seed=3)
    assert all(f["view"]["over"] for f in finals)


async def test_second_tab_shares_the_seat_and_its_sequence(server: RunningServer) -> None:
    code = await create_room(server.http, "toy")
    clients = await seat_clients([server.ws], code, 2)
    await start(clients[0])
    tab = await Client.open(server.ws, code)
    await tab.resume(clients[0].welcome["token"])  # type: ignore[index]
    started = clients[0].state["version"]  # type: ignore[index]
    legal = clients[0].state["view"]["legal"]  # type: ignore[index]
    assert legal, "seat 0 moves first in the toy game"
    seq = await clients[0].act(legal[0])
    ack = await clients[0].expect("ack")
    assert ack == {"type": "ack", "seq": seq, "version": started + 1, "duplicate": False}
    # The other tab sees the move and the seat's last sequence number, and a replay of the
    # same number is acknowledged as a duplicate without applying anything.
    seen = await tab.state_at_least(started + 1)
    assert seen["last_seq"] == seq and seen["you"] == 0
    await tab.act(legal[0], seq=seq)
    assert (await tab.expect("ack"))["duplicate"] is True
    assert server.instance.service.cached(code).version == started + 1
    # The same number for another move is not taken for a replay: it is refused, unapplied.
    if len(legal) > 1:
        await tab.act(legal[-1], seq=seq)
        assert (await tab.error())["code"] == "seq_reused"
    assert server.instance.service.cached(code).version == started + 1


async def test_spectator_sees_the_public_view_only(server: RunningServer) -> None:
    code = await create_room(server.http, "toy")
    clients = await seat_clients([server.ws], code, 2)
    watcher = await Client.open(server.ws, code, "json")
    welcome = await watcher.watch()
    assert welcome["seat"] is None
    await start(clients[0])
    state = await watcher.until(lambda m: m["type"] == "state" and m["view"] is not None)
    room = server.instance.service.cached(code)
    assert state["you"] is None
    assert state["view"] == get_game("toy").view(room.state, None)
    assert state["view"]["hand"] is None and state["view"]["legal"] == []
    await watcher.send({"type": "act", "seq": 1, "action": {"type": "play", "card": 1}})
    await watcher.error("not_joined")


async def test_host_powers_and_host_passing(server: RunningServer) -> None:
    code = await create_room(server.http, "toy")
    host, guest = await seat_clients([server.ws], code, 2)
    await guest.send({"type": "add_bot"})
    await guest.error("not_host")
    await host.send({"type": "add_bot"})
    state = await guest.until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == 3)
    bot = state["room"]["seats"][2]
    assert bot["bot"] and bot["name"] == "Bot 1"
    await host.send({"type": "options", "options": {"hand": 2}, "turn_timer": 0})
    state = await guest.until(lambda m: m["type"] == "state" and m["room"]["options"]["hand"] == 2)
    await host.send({"type": "kick", "id": bot["id"]})
    await guest.until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == 2)
    await host.send({"type": "lock", "locked": True})
    await guest.until(lambda m: m["type"] == "state" and m["room"]["locked"])
    late = await Client.open(server.ws, code)
    await late.send({"type": "join", "name": "Late"})
    await late.error("room_locked")
    guest_id = state["room"]["seats"][1]["id"]
    await host.send({"type": "give_host", "id": guest_id})
    await guest.until(lambda m: m["type"] == "state" and m["room"]["host"] == 1)
    await guest.send({"type": "leave"})
    await guest.expect("left")
    state = await host.until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == 1)
    assert state["room"]["host"] == 0, "the host passes on when the host leaves"


async def test_kicked_player_is_told_and_disconnected(server: RunningServer) -> None:
    code = await create_room(server.http, "toy")
    host, guest = await seat_clients([server.ws], code, 2)
    await host.send({"type": "kick", "id": guest.welcome["id"]})  # type: ignore[index]
    await guest.error("kicked")
    await guest.ws.wait_closed()
    assert guest.ws.close_code == 4001


async def test_rematch_keeps_seats_and_options(server: RunningServer) -> None:
    code = await create_room(server.http, "toy", {"hand": 1})
    clients = await seat_clients([server.ws], code, 2)
    await start(clients[0])
    await play(clients, seed=1)
    await clients[0].send({"type": "rematch"})
    for client in clients:
        state = await client.until(
            lambda m: m["type"] == "state" and m["room"]["phase"] == "playing"
        )
    assert state["room"]["round"] == 2 and state["room"]["options"] == {"hand": 1}
    assert [s["name"] for s in state["room"]["seats"]] == ["P0", "P1"]
    finals = await play(clients, seed=2)
    assert all(f["room"]["round"] == 2 for f in finals)


async def test_chat_is_kept_and_limited(server: RunningServer) -> None:
    # The limits run on a clock that stands still: the sixth line is too many however slowly
    # this machine sends them (on the wall clock a slow machine refilled the bucket).
    server.instance.limit_clock = lambda: 0.0
    code = await create_room(server.http, "toy")
    alice, bob = await seat_clients([server.ws], code, 2)
    await alice.send({"type": "chat", "text": "  hello\x07 there  "})
    chat = await bob.until(lambda m: m["type"] == "chat" and m["total"] == 1)
    assert chat["lines"][0]["name"] == "P0" and chat["lines"][0]["text"] == "hello there"
    await alice.send({"type": "chat", "text": "x" * 201})
    await alice.error("chat_too_long")
    for _ in range(6):
        await bob.send({"type": "chat", "text": "spam"})
    await bob.error("flood")


async def test_a_ping_is_answered_with_a_pong_even_before_joining(server: RunningServer) -> None:
    code = await create_room(server.http, "toy")
    client = await Client.open(server.ws, code)
    await client.send({"type": "ping"})
    assert (await client.recv())["type"] == "pong"


async def test_the_host_picks_each_bots_level_and_everyone_sees_it(server: RunningServer) -> None:
    code = await create_room(server.http, "toy")
    host, guest = await seat_clients([server.ws], code, 2)
    await host.send({"type": "add_bot", "level": "strong"})
    await host.send({"type": "add_bot"})
    state = await guest.until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == 4)
    bots = state["room"]["seats"][2:]
    assert [b["level"] for b in bots] == ["strong", "normal"]
    assert "level" not in state["room"]["seats"][0], "a person's seat has no level"
    await host.send({"type": "bot_level", "id": bots[1]["id"], "level": "easy"})
    state = await guest.until(
        lambda m: m["type"] == "state" and m["room"]["seats"][3].get("level") == "easy"
    )
    assert state["room"]["seats"][2]["level"] == "strong"


async def test_a_bot_level_from_a_guest_a_person_or_an_unknown_level_is_refused(
    server: RunningServer,
) -> None:
    code = await create_room(server.http, "toy")
    host, guest = await seat_clients([server.ws], code, 2)
    await host.send({"type": "add_bot", "level": "easy"})
    state = await host.until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == 3)
    version = state["version"]
    bot = state["room"]["seats"][2]
    await guest.send({"type": "bot_level", "id": bot["id"], "level": "strong"})
    await guest.error("not_host")
    await host.send({"type": "bot_level", "id": guest.welcome["id"], "level": "strong"})  # type: ignore[index]
    await host.error("bad_message")
    await host.send({"type": "bot_level", "id": bot["id"], "level": "grandmaster"})
    await host.error("bad_message")
    await host.send({"type": "add_bot", "level": "grandmaster"})
    await host.error("bad_message")
    await host.send({"type": "sync"})
    state = await host.until(lambda m: m["type"] == "state")
    assert state["version"] == version and state["room"]["seats"][2]["level"] == "easy"
