"""Plays games through real clients, choosing among the legal actions their views offer."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from rules.registry import get_game
from server import rooms
from server.store import Store
from tests.server.harness import Client


def choose(view: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    """A random action from the view's ``legal``, built as a thin client would.

    Floor lists its moves in a compact form (docs/rules/floor.md) that a client expands;
    the other games list the actions themselves."""
    if view["game"] == "floor":
        from tests.rules.floor.client import pick_from_legal

        return pick_from_legal(view["legal"], rnd, draw_bias=0.1)
    action: dict[str, Any] = rnd.choice(view["legal"])
    return action


async def drive(client: Client, rnd: random.Random, timeout: float = 10.0) -> dict[str, Any]:
    """Act whenever this seat's latest view offers legal actions; return the final state."""
    pending = False
    acted_at = -1
    while True:
        state = client.state
        if state is not None and state["view"] is not None:
            if state["view"]["over"]:
                return state
            legal = state["view"]["legal"]
            if legal and not pending and acted_at != state["version"]:
                action = choose(state["view"], rnd)
                assert isinstance(action, dict) and "type" in action, "legal entries are actions"
                await client.act(action)
                pending, acted_at = True, state["version"]
        message = await client.recv(timeout)
        if message["type"] == "ack":
            pending = False
        elif message["type"] == "error":
            # A move legal in the view it was chosen from may be overtaken by another seat's
            # move (simultaneous phases, undo). That is the only acceptable refusal: the state
            # that overtook it was queued to this client before the error was.
            assert client.state is not None and client.state["version"] > acted_at, message
            pending = False


async def seat_clients(
    bases: list[str], code: str, seats: int, fmt: str = "msgpack"
) -> list[Client]:
    """Join ``seats`` clients, spread over the servers in ``bases`` round-robin."""
    clients = []
    for i in range(seats):
        client = await Client.open(bases[i % len(bases)], code, fmt)
        await client.join(f"P{i}")
        clients.append(client)
    return clients


async def start(host: Client) -> None:
    seq = host.next_seq()
    await host.send({"type": "start", "seq": seq})
    await host.until(lambda m: m["type"] == "state" and m["room"]["phase"] != "lobby")
    await host.until(lambda m: m["type"] == "ack" and m["seq"] == seq)


async def play(clients: list[Client], seed: int) -> list[dict[str, Any]]:
    return await asyncio.gather(
        *(drive(c, random.Random(seed * 100 + i)) for i, c in enumerate(clients))
    )


async def play_until(clients: list[Client], version: int) -> None:
    """Drive the clients until the room reaches ``version`` (one act per turn)."""
    rnd = random.Random(3)
    while True:
        for client in clients:
            state = client.state
            if state and state["version"] >= version:
                return
        mover = next(
            (c for c in clients if c.state and c.state["view"] and c.state["view"]["legal"]),
            None,
        )
        if mover is not None:
            before = mover.state["version"]  # type: ignore[index]
            await mover.act(rnd.choice(mover.state["view"]["legal"]))  # type: ignore[index]
            await mover.expect("ack")
            for client in clients:
                await client.state_at_least(before + 1)
        else:
            await clients[0].recv()


async def check_log_replays(store: Store, code: str) -> rooms.Room:
    """The move log replayed through the rules gives exactly the stored state."""
    stored = await store.load(code)
    assert stored is not None
    room = rooms.decode(stored.data)
    game = get_game(room.game_id)
    from rules.codec import unpack

    entries = [(v, unpack(e)) for v, e in await store.log(code)]
    versions = [v for v, _ in entries]
    assert versions == list(range(1, room.version + 1)), "one log entry per version, in order"
    state = None
    for _, entry in entries:
        if entry["kind"] in ("start", "rematch"):
            state = game.new_game(entry["seats"], room.options, entry["seed"])
        elif entry["kind"] in ("act", "bot", "timeout", "takeover") and entry["action"] is not None:
            state, _ = game.apply(state, entry["seat"], entry["action"])
    assert game.dump_state(state) == game.dump_state(room.state)
    check_records(room, [unpack(e) for e in await store.archive(code)])
    return room


def check_records(room: rooms.Room, archive: list[Any]) -> None:
    """The room's archive (docs/fairplay.md) agrees with the room: every finished game's
    record verifies, and the game in play replays from its deal to exactly the stored state."""
    import json

    from server import records

    game = get_game(room.game_id)
    for number in range(1, room.round + 1):
        over = number < room.round or room.phase is rooms.Phase.FINISHED
        record = json.loads(json.dumps(records.build(room.code, number, archive, over=over)))
        if over:
            assert records.verify(record) == [], f"game {number}: {records.verify(record)}"
        else:
            *_, last = records.replay(record)
            assert game.dump_state(last.state) == game.dump_state(room.state)


async def audit_log(store: Store, code: str, acked: set[tuple[int, int]]) -> rooms.Room:
    """After a fault: the log replays (:func:`check_log_replays`), no ``(seat, seq)`` of a
    player's action was applied twice, and every acknowledged one (``acked``) is in the log.
    The room as stored."""
    from collections import Counter

    from rules.codec import unpack

    room = await check_log_replays(store, code)
    entries = [unpack(raw) for _, raw in await store.log(code)]
    applied = Counter((e["seat"], e["seq"]) for e in entries if e["kind"] == "act")
    assert all(n == 1 for n in applied.values()), "no action applied twice"
    assert acked <= set(applied), "every acknowledged action is in the log"
    return room
