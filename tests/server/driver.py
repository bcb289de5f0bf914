"""Plays games through real clients, choosing among the legal actions their views offer."""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Callable
from typing import Any

from rules.registry import get_game
from server import rooms
from server.fairplay import records
from server.fairplay.verify import verify
from server.stores.store import Store
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


def secret_value(label: str) -> str:
    """A contribution a test's browser keeps secret until the reveal (32 bytes, in hex)."""
    return hashlib.sha256(f"contribution {label}".encode()).hexdigest()


async def commit(client: Client, value: str) -> None:
    """Commit to ``value`` for the next deal, as a browser does on seeing its commitment."""
    state = client.state
    assert state is not None
    seen = state["room"]["next_deal"]["commitment"]
    hashed = records.contribution_commitment(value)
    seq = client.next_seq()
    await client.send({"type": "commit", "seq": seq, "commitment": seen, "hash": hashed})
    await client.until(lambda m: m["type"] in ("ack", "error") and m.get("seq") == seq)


def _stage(message: dict[str, Any]) -> str | None:
    if message["type"] != "state":
        return None
    stage: str | None = message["room"].get("next_deal", {}).get("stage")
    return stage


async def reveal_when_locked(client: Client, value: str) -> None:
    """Wait for the commitments to be locked, then reveal ``value``."""
    if client.state is None or _stage(client.state) != "reveal":
        await client.until(lambda m: _stage(m) == "reveal")
    await client.send({"type": "reveal", "value": value})
    await client.until(lambda m: m["type"] in ("ack", "error") and m.get("seq") == client.seq)


async def sealed_start(
    clients: list[Client], values: list[str], kind: str = "start"
) -> dict[str, Any]:
    """The whole sealed deal of docs/fairplay.md: every client commits to its value, the host
    (``clients[0]``) asks for the deal (``start`` or ``rematch``), every client reveals once
    the set is locked; returns the host's first state of the new game."""
    first = clients[0].state
    assert first is not None
    round_before = first["room"]["round"]
    for client, value in zip(clients, values, strict=True):
        await commit(client, value)
    await clients[0].send({"type": kind})
    await asyncio.gather(*(reveal_when_locked(c, v) for c, v in zip(clients, values, strict=True)))
    return await state_where(
        clients[0],
        lambda m: m["room"]["round"] == round_before + 1 and m["room"]["phase"] == "playing",
    )


async def state_where(
    client: Client, predicate: Callable[[dict[str, Any]], bool], timeout: float = 5.0
) -> dict[str, Any]:
    """The client's latest state if it satisfies ``predicate``, else the next one that does."""
    if client.state is not None and predicate(client.state):
        return client.state
    return await client.until(lambda m: m["type"] == "state" and predicate(m), timeout)


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

    from server.fairplay import records

    game = get_game(room.game_id)
    for number in range(1, room.round + 1):
        over = number < room.round or room.phase is rooms.Phase.FINISHED
        record = json.loads(json.dumps(records.build(room.code, number, archive, over=over)))
        if over:
            problems = verify(record).problems
            assert problems == [], f"game {number}: {problems}"
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
