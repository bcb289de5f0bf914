"""The game goes on when a friend drops: turn timers, bot takeover and hand back, host passing."""

from __future__ import annotations

from contextlib import AsyncExitStack
from dataclasses import replace

import httpx
import pytest

from rules.codec import unpack
from rules.registry import get_game
from server.rooms import Room
from server.rooms.commands import DEFAULT_TURN_TIMERS, Change
from server.stores.redis_store import RedisStore
from tests.server.driver import seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, RunningServer, create_room, serve

QUICK = TEST_SETTINGS.model_copy(update={"away_grace": 0.2})


async def kinds(server: RunningServer, code: str) -> list[str]:
    return [unpack(e)["kind"] for _, e in await server.instance.store.log(code)]


def mover_of(clients: list[Client]) -> tuple[Client, Client]:
    """(the client whose seat is to act, another one)."""
    state = clients[0].state
    assert state is not None
    index = state["view"]["to_act"][0]
    return clients[index], clients[1 - index]


@pytest.mark.parametrize("game", sorted(DEFAULT_TURN_TIMERS))
async def test_new_rooms_get_the_games_default_turn_timer(game: str) -> None:
    async with serve(TEST_SETTINGS) as server, httpx.AsyncClient(base_url=server.http) as http:
        made = (await http.post("/api/rooms", json={"game": game})).json()
        assert made["turn_timer"] == DEFAULT_TURN_TIMERS[game]
        off = (await http.post("/api/rooms", json={"game": game, "turn_timer": 0})).json()
        assert off["turn_timer"] == 0


async def test_the_state_carries_the_deadline_and_the_servers_now() -> None:
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy", turn_timer=30)
        clients = await seat_clients([server.ws], code, 2)
        await start(clients[0])
        info = clients[0].state["room"]  # type: ignore[index]
        assert info["deadline"] == pytest.approx(info["now"] + 30, abs=1.0)
        # A chat line does not give the player to act more time.
        await clients[1].send({"type": "chat", "text": "hurry"})
        later = await clients[0].until(lambda m: m["type"] == "state" and m["version"] > 0)
        assert later["room"]["deadline"] == info["deadline"]


async def test_the_host_can_change_the_turn_timer_during_play() -> None:
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy", turn_timer=30)
        clients = await seat_clients([server.ws], code, 2)
        await start(clients[0])
        await clients[0].send({"type": "options", "turn_timer": 0})
        state = await clients[0].until(
            lambda m: m["type"] == "state" and m["room"]["turn_timer"] == 0
        )
        assert state["room"]["deadline"] == 0
        await clients[0].send({"type": "options", "turn_timer": 120})
        state = await clients[0].until(
            lambda m: m["type"] == "state" and m["room"]["turn_timer"] == 120
        )
        assert state["room"]["deadline"] == pytest.approx(state["room"]["now"] + 120, abs=1.0)
        await clients[0].send({"type": "options", "options": {"hand": 4}})
        assert (await clients[0].error())["code"] == "wrong_phase"


async def test_the_deadline_is_enforced_by_an_instance_that_never_saw_the_turn_start(
    redis_clean: str,
) -> None:
    """The deadline lives in the room record: the instance that started the turn stops, and
    another one lets the bot play when time runs out."""
    async with AsyncExitStack() as stack:
        b = await stack.enter_async_context(serve(TEST_SETTINGS, RedisStore(redis_clean)))
        async with serve(TEST_SETTINGS, RedisStore(redis_clean)) as a:
            code = await create_room(a.http, "toy", turn_timer=1.0)
            clients = await seat_clients([a.ws], code, 2)
            await start(clients[0])
            started = clients[0].state["version"]  # type: ignore[index]
        # Instance A is gone, with its plans. A spectator on B makes B look at the room.
        watcher = await Client.open(b.ws, code)
        await watcher.watch()
        state = await watcher.state_at_least(started + 1, timeout=5)
        assert any(s.get("away") for s in state["room"]["seats"])
        assert (await kinds(b, code))[-1] == "timeout"


async def test_a_disconnected_players_turn_goes_to_a_bot_and_comes_back_to_them() -> None:
    async with serve(QUICK) as server:
        code = await create_room(server.http, "toy", {"hand": 4})
        clients = await seat_clients([server.ws], code, 2)
        await start(clients[0])
        mover, other = mover_of(clients)
        seat = mover.state["you"]  # type: ignore[index]
        token = mover.welcome["token"]  # type: ignore[index]
        await mover.close()
        state = await other.until(
            lambda m: m["type"] == "state" and m["room"]["seats"][seat].get("covered", 0) == 1, 5
        )
        assert state["room"]["seats"][seat].get("away") is True
        assert "takeover" in await kinds(server, code)
        # The player comes back: told how many moves the bot made, then the seat is theirs.
        back = await Client.open(server.ws, code)
        await back.resume(token)
        assert back.state["room"]["seats"][seat].get("covered", 0) >= 1  # type: ignore[index]
        mine = await back.until(
            lambda m: m["type"] == "state" and not m["room"]["seats"][seat].get("away")
        )
        assert mine["room"]["seats"][seat].get("covered", 0) == 0


async def test_the_host_lets_a_bot_play_for_an_absent_player() -> None:
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy", {"hand": 4})
        clients = await seat_clients([server.ws], code, 2)
        await start(clients[0])
        guest = clients[1].welcome["id"]  # type: ignore[index]
        await clients[1].send({"type": "sit_out", "id": guest})
        assert (await clients[1].error())["code"] == "not_host"
        await clients[0].send({"type": "sit_out", "id": guest})
        state = await clients[0].until(
            lambda m: m["type"] == "state" and m["room"]["seats"][1].get("away")
        )
        assert state["room"]["seats"][1].get("away")
        # From now on a bot plays that seat, as soon as it is its turn.
        if 1 not in state["view"]["to_act"]:
            await clients[0].act(state["view"]["legal"][0])
        await clients[0].until(
            lambda m: m["type"] == "state" and m["room"]["seats"][1].get("covered")
        )
        assert "bot" in await kinds(server, code)


async def test_host_passes_to_a_connected_player_after_the_grace() -> None:
    async with serve(QUICK) as server:
        code = await create_room(server.http, "toy")
        host, guest = await seat_clients([server.ws], code, 2)
        await host.close()
        state = await guest.until(lambda m: m["type"] == "state" and m["room"]["host"] == 1, 5)
        assert state["room"]["host"] == 1


async def test_a_game_driven_to_its_move_bound_ends_with_standings() -> None:
    """Every game ends: a room whose game reaches the move bound finishes, and the result says
    so (Floor's players could otherwise draw forever)."""
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "floor")
        clients = await seat_clients([server.ws], code, 2)
        await start(clients[0])
        service = server.instance.service
        bound = get_game("floor").move_bound

        def near_the_bound(room: Room) -> Change:
            state = replace(room.state, moves=bound - 1)
            new = replace(room, version=room.version + 1, state=state)
            return Change(new, {"kind": "test"})

        await service.change(code, near_the_bound)
        mover = next(c for c in clients if c.state["view"]["legal"])  # type: ignore[index]
        await mover.state_at_least(service.cached(code).version)
        await mover.act({"type": "draw"})
        final = await mover.until(lambda m: m["type"] == "state" and m["view"]["over"])
        result = final["view"]["result"]
        assert result["move_bound"] == bound and "move bound" in result["reason"]
        assert final["room"]["phase"] == "finished"
