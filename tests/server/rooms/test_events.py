"""The public events of each move: kept in the room record, sent with the next state."""

from __future__ import annotations

from dataclasses import replace

from rules.codec import pack, unpack
from server import rooms
from server.rooms import MOVES_KEPT, Move, commands
from server.transport import state_messages
from tests.server.driver import seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, create_room, serve
from tests.server.rooms.test_commands import lobby, playing


def _play_first_legal(room: rooms.Room, times: int) -> rooms.Room:
    for _ in range(times):
        (index,) = room.game.to_act(room.state)
        action = room.game.legal_actions(room.state, index)[0]
        room = commands.act(
            room,
            room.seats[index].id,
            room.seats[index].last_seq + 1,
            room.game.dump_action(action),
            3.0,
        ).room
    return room


def test_each_act_keeps_its_events_under_its_version() -> None:
    room = playing(2)
    after = _play_first_legal(room, 1)
    assert after.moves == (
        Move(after.version, 0, ({"type": "played", "seat": 0, "card": after.state.table[0][0]},)),
    )


def test_bot_moves_and_timeouts_keep_their_events_too() -> None:
    room = playing(2)
    bot_seat = replace(room.seats[0], token_hash=None)
    botted = replace(room, seats=(bot_seat, *room.seats[1:]))
    moved = commands.bot_move(botted, botted.version, 3.0).room
    assert [(m.version, m.seat) for m in moved.moves] == [(moved.version, 0)]
    timed = replace(room, turn_timer=30.0)
    out = commands.timeout(timed, timed.version, room.seats[0].id, 4.0).room
    assert [(m.version, m.seat) for m in out.moves] == [(out.version, 0)]
    assert out.moves[0].events[0]["seat"] == 0


def test_chat_adds_no_events() -> None:
    room = _play_first_legal(playing(2), 1)
    chatted = commands.chat(room, room.seats[0].id, "hi", 4.0, limit=200, keep=50).room
    assert chatted.moves == room.moves
    assert state_messages.events_since(chatted, room.version) == []


def test_the_room_keeps_only_the_last_versions_events() -> None:
    room = lobby(4, hand=6)
    room = commands.start(room, room.host, commands.Context(now=2.0, seed=5)).room
    room = _play_first_legal(room, MOVES_KEPT + 5)
    assert len(room.moves) == MOVES_KEPT
    assert [m.version for m in room.moves] == list(
        range(room.version - MOVES_KEPT + 1, room.version + 1)
    )


def test_events_survive_the_stored_form_and_old_records_decode_without_them() -> None:
    room = _play_first_legal(playing(2), 3)
    assert rooms.decode(rooms.encode(room)).moves == room.moves
    raw = unpack(rooms.encode(room))
    del raw["form"], raw["moves"]
    assert rooms.decode(pack(raw)).moves == ()


def test_events_since_is_every_kept_version_after_it_and_none_for_a_first_snapshot() -> None:
    room = _play_first_legal(playing(2), 3)
    since = state_messages.events_since(room, room.version - 2)
    assert [e["version"] for e in since] == [room.version - 1, room.version]
    assert [e["seat"] for e in since] == [1, 0]
    assert state_messages.events_since(room, 0) == []
    assert state_messages.events_since(room, room.version) == []


async def test_a_moves_events_arrive_with_the_next_state_for_every_seat_and_spectator() -> None:
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy")
        clients = await seat_clients([server.ws], code, 3)
        watcher = await Client.open(server.ws, code, "json")
        await watcher.watch()
        await start(clients[0])
        started = clients[0].state["version"]  # type: ignore[index]
        await watcher.state_at_least(started)
        legal = clients[0].state["view"]["legal"]  # type: ignore[index]
        play = next(a for a in legal if a["type"] == "play")
        await clients[0].act(play)
        expected = [
            {
                "version": started + 1,
                "seat": 0,
                "events": [{"type": "played", "seat": 0, "card": play["card"]}],
            }
        ]
        for client in (*clients, watcher):
            state = await client.state_at_least(started + 1)
            assert state["version"] == started + 1
            assert state["events"] == expected
        # A discard names no card: the events are public.
        discard = next(a for a in clients[1].state["view"]["legal"] if a["type"] == "discard")  # type: ignore[index]
        await clients[1].act(discard)
        for client in (*clients, watcher):
            state = await client.state_at_least(started + 2)
            assert state["events"][0]["events"] == [{"type": "discarded", "seat": 1}]
        for client in (*clients, watcher):
            await client.close()


async def test_a_connection_that_missed_versions_gets_all_their_events_in_order() -> None:
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy")
        clients = await seat_clients([server.ws], code, 2)
        tab = await Client.open(server.ws, code)
        await tab.resume(clients[0].welcome["token"])  # type: ignore[index]
        await start(clients[0])
        started = clients[0].state["version"]  # type: ignore[index]
        for turn in range(4):
            mover = clients[turn % 2]
            state = await mover.state_at_least(started + turn)
            await mover.act(state["view"]["legal"][0])
            await mover.expect("ack")
        for client in (*clients, tab):
            await client.state_at_least(started + 4)
        # As if coalesced reloads had skipped versions for one connection of seat 0 (not
        # its twin): it was last sent the version the game started at. A chat line then
        # brings both up to date.
        seat0 = clients[0].welcome["id"]  # type: ignore[index]
        twins = [c for c in server.instance.service.local.get(code).conns if c.seat_id == seat0]
        assert len(twins) == 2
        twins[0].sent_version = started
        await clients[1].send({"type": "chat", "text": "hi"})
        heard = []
        for client in (clients[0], tab, clients[1]):
            state = await client.state_at_least(started + 5)
            heard.append(state["events"])
        behind, current = sorted(heard[:2], key=len, reverse=True)
        assert [(e["version"], e["seat"]) for e in behind] == [
            (started + n, (n - 1) % 2) for n in range(1, 5)
        ]
        assert all(len(e["events"]) == 1 for e in behind)
        assert current == [], "its twin was sent every version already"
        assert heard[2] == [], "a chat line has no events"
        for client in (*clients, tab):
            await client.close()
