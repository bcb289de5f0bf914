"""Several instances on one Redis: split players, a killed instance, racing clients."""

from __future__ import annotations

import asyncio
import os
import signal
from contextlib import AsyncExitStack
from typing import Any

from rules.codec import unpack
from rules.registry import get_game
from server.stores.redis_store import RedisStore
from tests.server.driver import (
    check_log_replays,
    drive,
    play,
    play_until,
    seat_clients,
    start,
)
from tests.server.harness import (
    TEST_SETTINGS,
    Client,
    RunningServer,
    create_room,
    serve,
    serve_process,
)


async def _two(stack: AsyncExitStack, url: str) -> tuple[RunningServer, RunningServer]:
    a = await stack.enter_async_context(serve(TEST_SETTINGS, RedisStore(url)))
    b = await stack.enter_async_context(serve(TEST_SETTINGS, RedisStore(url)))
    return a, b


async def play_split(a: RunningServer, b: RunningServer) -> None:
    """A whole toy game with two players on each instance: every view right, the log
    replaying, and both instances knowing every seat is connected, wherever its socket is."""
    code = await create_room(a.http, "toy")
    clients = await seat_clients([a.ws, b.ws], code, 4, "json")
    await start(clients[0])
    finals = await play(clients, seed=11)
    room = await check_log_replays(a.instance.store, code)
    game = get_game("toy")
    for seat, final in enumerate(finals):
        assert final["view"] == game.view(room.state, seat)
    for final in finals:
        assert [s["connected"] for s in final["room"]["seats"]] == [True] * 4


async def test_two_instances_play_one_room_with_players_split(redis_clean: str) -> None:
    async with AsyncExitStack() as stack:
        await play_split(*await _two(stack, redis_clean))


async def test_bots_move_exactly_once_with_two_instances(redis_clean: str) -> None:
    async with AsyncExitStack() as stack:
        a, b = await _two(stack, redis_clean)
        code = await create_room(a.http, "toy", {"hand": 4})
        host = (await seat_clients([a.ws], code, 1))[0]
        for _ in range(3):
            await host.send({"type": "add_bot"})
        await host.until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == 4)
        # A watcher on the other instance makes it plan every bot turn as well.
        watcher = await Client.open(b.ws, code)
        await watcher.watch()
        await start(host)
        final = await drive(host, __import__("random").Random(5))
        await watcher.state_at_least(final["version"])
        room = await check_log_replays(a.instance.store, code)
        entries = [unpack(e) for _, e in await a.instance.store.log(code)]
        bot_moves = [e for e in entries if e["kind"] == "bot"]
        assert len(bot_moves) == 3 * 4, "one move per bot turn, whichever instance made it"
        assert room.phase.value == "finished"


async def test_sigkill_mid_game_loses_nothing_acknowledged(redis_clean: str) -> None:
    with serve_process(redis_clean) as (proc_a, addr_a), serve_process(redis_clean) as (_, addr_b):
        http_a, ws_a, ws_b = f"http://{addr_a}", f"ws://{addr_a}", f"ws://{addr_b}"
        code = await create_room(http_a, "toy", {"hand": 6})
        clients = await seat_clients([ws_a, ws_b], code, 4)
        tokens = [c.welcome["token"] for c in clients]  # type: ignore[index]
        await start(clients[0])
        acked: set[tuple[int, int]] = set()

        def record(seat: int, client: Client) -> None:
            acked.update(
                (seat, a["seq"])
                for a in client.acks
                if not a["duplicate"] and client.kinds.get(a["seq"]) == "act"
            )

        # Play about half the game, then kill instance A without warning.
        await asyncio.wait_for(play_until(clients, version=18), 20)
        os.kill(proc_a.pid, signal.SIGKILL)
        proc_a.wait(5)
        for seat, client in enumerate(clients):
            record(seat, client)
        # A's players come back on B with their tokens; B's players carry on.
        for seat in range(0, 4, 2):
            await clients[seat].close()
            clients[seat] = await Client.open(ws_b, code)
            clients[seat].seq = max(s for (st, s) in acked if st == seat) if acked else 0
            await clients[seat].resume(tokens[seat])
        await asyncio.wait_for(play(clients, seed=21), 30)
        for seat, client in enumerate(clients):
            record(seat, client)
        store = RedisStore(redis_clean)
        try:
            room = await check_log_replays(store, code)
            logged = {
                (e["seat"], e["seq"])
                for e in (unpack(raw) for _, raw in await store.log(code))
                if e["kind"] == "act"
            }
        finally:
            await store.close()
        assert room.phase.value == "finished"
        assert acked <= logged, "every acknowledged action is in the move log"
        # Anything logged but not acknowledged can only be an action in flight at the kill.
        assert len(logged - acked) <= 2


async def test_fifty_clients_racing_apply_exactly_the_legal_ones_once(redis_clean: str) -> None:
    async with AsyncExitStack() as stack:
        a, b = await _two(stack, redis_clean)
        code = await create_room(a.http, "toy", {"hand": 2})
        players = await seat_clients([a.ws, b.ws], code, 8)
        tokens = [p.welcome["token"] for p in players]  # type: ignore[index]
        tabs: list[tuple[int, Client]] = list(enumerate(players))
        for i in range(50 - 8):
            tab = await Client.open((a.ws, b.ws)[i % 2], code)
            await tab.resume(tokens[i % 8])
            tabs.append((i % 8, tab))
        await start(players[0])
        store = a.instance.store
        applied: set[tuple[int, int]] = set()
        for round_ in range(1, 100):
            stored = await store.load(code)
            assert stored is not None
            before = stored.version
            states = [await tab.state_at_least(before) for _, tab in tabs]
            if states[0]["view"]["over"]:
                break

            # Every tab of every seat fires at once with the round as sequence number: each
            # picks its own move (a legal one for the seat to act, any card of its hand for
            # the others), so tabs of one seat conflict and seats race for the turn.
            async def fire(seat: int, tab: Client, seq: int = round_) -> dict[str, Any]:
                view = tab.state["view"]  # type: ignore[index]
                options = view["legal"] or [{"type": "play", "card": c} for c in view["hand"]]
                options = options or [{"type": "play", "card": 1}]
                await tab.act(options[(seq * 7 + id(tab)) % len(options)], seq=seq)
                return await tab.until(lambda m: m["type"] in ("ack", "error"))

            replies = await asyncio.gather(*(fire(seat, tab) for seat, tab in tabs))
            won = [
                (seat, r["seq"])
                for (seat, _), r in zip(tabs, replies, strict=True)
                if r["type"] == "ack" and not r["duplicate"]
            ]
            assert len(won) == len(set(won)), "a (seat, seq) applies at most once"
            assert not applied & set(won)
            applied |= set(won)
            errors = {r["code"] for r in replies if r["type"] == "error"}
            # A tab whose number another tab of its seat used for another move is told so
            # (seq_reused), not acknowledged as if its own move had been made.
            assert errors <= {"not_your_turn", "game_over", "seq_reused"}, errors
            stored = await store.load(code)
            assert stored is not None and stored.version == before + len(won)
        room = await check_log_replays(store, code)
        logged = {
            (e["seat"], e["seq"]) for e in _entries(await store.log(code)) if e["kind"] == "act"
        }
        assert logged == applied, "the log holds exactly the acknowledged actions"
        assert room.phase.value == "finished" and len(applied) == 16


def _entries(log: list[tuple[int, bytes]]) -> list[dict[str, Any]]:
    return [unpack(raw) for _, raw in log]
