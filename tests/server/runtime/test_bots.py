"""Bot seats and the turn timer, over a real server."""

from __future__ import annotations

import random

from rules.codec import unpack
from tests.server.driver import check_log_replays, drive, seat_clients, start
from tests.server.harness import TEST_SETTINGS, create_room, serve


async def test_bots_fill_seats_and_finish_the_game() -> None:
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy", {"hand": 3})
        (human,) = await seat_clients([server.ws], code, 1)
        for _ in range(2):
            await human.send({"type": "add_bot"})
        await human.until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == 3)
        await start(human)
        final = await drive(human, random.Random(1))
        assert final["view"]["over"]
        room = await check_log_replays(server.instance.store, code)
        kinds = [unpack(e)["kind"] for _, e in await server.instance.store.log(code)]
        assert kinds.count("bot") == 6 and kinds.count("act") == 3
        assert room.phase.value == "finished"


async def test_turn_timer_lets_a_bot_play_for_an_idle_seat_until_it_is_back() -> None:
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy", {"hand": 3}, turn_timer=0.1)
        idle, active = await seat_clients([server.ws], code, 2)
        await start(idle)
        # Seat 0 (idle) never acts: the timer runs out, the seat is marked away, a bot moves.
        state = await active.until(
            lambda m: m["type"] == "state" and m["room"]["seats"][0].get("away"), timeout=5
        )
        assert state["view"]["to_act"] == [1]
        kinds = [unpack(e)["kind"] for _, e in await server.instance.store.log(code)]
        assert kinds[-1] == "timeout"
        # The player says they are back: the timer, not a bot, decides their next turn.
        await idle.send({"type": "back"})
        state = await active.until(
            lambda m: m["type"] == "state" and not m["room"]["seats"][0].get("away")
        )
        await active.act(state["view"]["legal"][0])
        await active.expect("ack")
        state = await active.until(
            lambda m: m["type"] == "state" and m["view"]["to_act"] == [1], timeout=5
        )
        kinds = [unpack(e)["kind"] for _, e in await server.instance.store.log(code)]
        assert kinds[-4:] == ["timeout", "back", "act", "timeout"]
        # Still away: from now on a bot plays that seat at once, without waiting for the timer.
        await active.act(state["view"]["legal"][0])
        await active.expect("ack")
        await active.until(lambda m: m["type"] == "state" and m["view"]["over"], timeout=5)
        kinds = [unpack(e)["kind"] for _, e in await server.instance.store.log(code)]
        # ... and the last card of seat 1 is played by its own timer.
        assert kinds[-3:] == ["act", "bot", "timeout"]
        await check_log_replays(server.instance.store, code)
