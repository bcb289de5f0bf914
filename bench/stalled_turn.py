"""Stalled turns: how long a table waits for a player who left or stopped (not a test).

Starts one ``parlor serve`` (embedded store) and plays two-seat Number Swap rooms with scripted
clients that pick random legal moves. In each room one player stalls whenever the turn is theirs
alone, ``--stalls`` times:

- **disconnect**: the player closes their socket on their turn; a bot plays for them once they
  have been gone for the grace (``PARLOR_AWAY_GRACE``, ``--grace``). They then come back with
  ``resume`` (which hands the seat back) and play on until their next turn.
- **idle**: the player stays connected and does nothing; the turn timer (``--timer``) runs
  out and a bot plays the turn. They then send ``back`` and play on.

The wait is measured on this process's monotonic clock, from the stall (the socket closed, or
the state that made it the player's turn arriving) to the moment the *other* player receives the
state with the bot's first move for the stalled seat: how long the table sat still. Rooms run
side by side (``--rooms``), so a run takes about ``stalls * (grace or timer)``.

    python -m bench.stalled_turn   # the defaults: grace 15 s, Number Swap's 45 s timer
    python -m bench.stalled_turn --grace 2 --timer 5 --rooms 3 --stalls 2   # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import create_room, parlor_serve
from tests.processes import Process, free_port
from tests.server.harness import Client

CASES = ("disconnect", "idle")
#: Longest a stalled turn may take before the run gives up on it (beyond grace or timer).
SLACK = 30.0


def now() -> float:
    return time.monotonic()


def serve_process(port: int, grace: float, log: Path) -> Process:
    return parlor_serve(
        port, log, PARLOR_AWAY_GRACE=str(grace), PARLOR_CREATE_BURST="100000", REDIS_URL=""
    )


def my_moves(client: Client) -> list[dict[str, Any]]:
    """The moves this seat may make now (never an undo: the table must move on)."""
    state = client.state
    if state is None or state["view"] is None or state["view"]["over"]:
        return []
    if state["you"] not in state["view"]["to_act"]:
        return []
    return [a for a in state["view"]["legal"] if a["type"] != "undo"]


def alone_to_act(client: Client) -> bool:
    state = client.state
    return bool(state and state["view"] and state["view"]["to_act"] == [state["you"]])


@dataclass
class Room:
    """One table: the player who stalls, the one who waits, and what was measured."""

    case: str
    ws: str
    code: str
    rnd: random.Random
    staller: Client
    waiter: Client
    waits: list[float] = field(default_factory=list)
    stalled_at: float | None = None
    resumed: asyncio.Event = field(default_factory=asyncio.Event)
    done: bool = False

    async def act(self, client: Client, acted: dict[int, int]) -> None:
        """One random legal move, at most one per version seen."""
        state = client.state
        moves = my_moves(client)
        if not moves or state is None or acted.get(id(client), -1) >= state["version"]:
            return
        acted[id(client)] = state["version"]
        await client.act(self.rnd.choice(moves))

    async def wait_side(self) -> None:
        """The other player: plays their turns, and notes when the stalled seat moves again."""
        acted: dict[int, int] = {}
        covered = 0
        while not self.done:
            message = await self.waiter.recv(SLACK + 60)
            if message["type"] != "state":
                continue
            seat = message["room"]["seats"][1 - message["you"]]
            if self.stalled_at is not None and seat.get("covered", 0) > covered:
                self.waits.append(now() - self.stalled_at)
                self.stalled_at = None
                self.resumed.set()
            covered = seat.get("covered", 0)
            await self.act(self.waiter, acted)

    async def stall_side(self, stalls: int, limit: float) -> None:
        acted: dict[int, int] = {}
        for _ in range(stalls):
            while not alone_to_act(self.staller):
                await self.act(self.staller, acted)
                await self.staller.recv(SLACK + 60)
            self.resumed.clear()
            if self.case == "disconnect":
                token = self.staller.welcome["token"] if self.staller.welcome else ""
                self.stalled_at = now()
                await self.staller.close()
                await asyncio.wait_for(self.resumed.wait(), limit + SLACK)
                self.staller = await Client.open(self.ws, self.code)
                await self.staller.resume(token)  # which hands the seat back
                self.staller.welcome = {**(self.staller.welcome or {}), "token": token}
                acted = {}
            else:
                # The state that made it this player's turn has just arrived: the clock runs.
                self.stalled_at = now()
                await asyncio.wait_for(self.resumed.wait(), limit + SLACK)
                await self.staller.send({"type": "back"})
            # Read past what came while stalled, up to the seat being this player's again.
            await self.staller.until(
                lambda m: m["type"] == "state" and not m["room"]["seats"][m["you"]].get("away"),
                SLACK,
            )
        self.done = True


async def run_room(case: str, http: str, ws: str, limit: float, stalls: int, seed: int) -> Room:
    """One room of ``case``; ``limit`` is the grace (disconnect) or the turn timer (idle)."""
    code = create_room(http, "numberswap", turn_timer=limit if case == "idle" else 0)
    staller = await Client.open(ws, code)
    await staller.join("Staller")
    waiter = await Client.open(ws, code)
    await waiter.join("Waiter")
    room = Room(case, ws, code, random.Random(seed), staller, waiter)
    seq = staller.next_seq()
    await staller.send({"type": "start", "seq": seq})
    await staller.until(lambda m: m["type"] == "state" and m["room"]["phase"] == "playing")
    waiting = asyncio.create_task(room.wait_side())
    try:
        await room.stall_side(stalls, limit)
    finally:
        waiting.cancel()
        for client in (room.staller, room.waiter):
            await client.close()
    return room


def summary(waits: list[float]) -> dict[str, float]:
    ordered = sorted(waits)
    return {
        "n": len(ordered),
        "p50": statistics.median(ordered),
        "max": ordered[-1],
        "min": ordered[0],
    }


async def measure(args: argparse.Namespace, http: str, ws: str) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for case in CASES:
        limit = args.grace if case == "disconnect" else args.timer
        rooms = await asyncio.gather(
            *(
                run_room(case, http, ws, limit, args.stalls, args.seed * 1000 + i)
                for i in range(args.rooms)
            )
        )
        waits = [w for room in rooms for w in room.waits]
        results[case] = {"setting_s": limit, **summary(waits)}
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--grace", type=float, default=15.0, help="PARLOR_AWAY_GRACE, seconds")
    parser.add_argument(
        "--timer", type=float, default=45.0, help="idle rooms' turn timer (Number Swap's default)"
    )
    parser.add_argument("--rooms", type=int, default=5, help="rooms per case, side by side")
    parser.add_argument("--stalls", type=int, default=2, help="stalls per room")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        server = serve_process(port, args.grace, Path(tmp) / "server.log")
        with server:
            results = asyncio.run(
                measure(args, f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}")
            )
    head = ("case", "setting s", "n", "p50 s", "max s", "over p50 / max ms")
    print(f"{head[0]:<11} {head[1]:>9} {head[2]:>3} {head[3]:>8} {head[4]:>8} {head[5]:>18}")
    for case, row in results.items():
        over = [1000 * (row[k] - row["setting_s"]) for k in ("p50", "max")]
        print(
            f"{case:<11} {row['setting_s']:>9g} {row['n']:>3} {row['p50']:>8.3f} "
            f"{row['max']:>8.3f} {over[0]:>9.0f} / {over[1]:.0f}"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
