"""Finished games for the replay viewer's tests, made quickly without a browser.

A WebSocket client (JSON frames) creates a room over HTTP, joins as host, adds a bot, starts,
and plays its own turns from its view's ``legal`` until the view says the game is over. It
prefers the moves that end a game soonest, so a two-seat game takes a few dozen moves. Every
wait is for a message, with a timeout; nothing sleeps.
"""

from __future__ import annotations

import contextlib
import json
import random
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from server.fairplay import records
from tests.rules.floor.client import pick_from_legal

#: Per game: options for a short game, and the action types the client takes first.
SHORT: dict[str, dict[str, Any]] = {
    "numberswap": {"target_score": 10},
    "warp99": {},
    "floor": {},
}
FIRST: dict[str, tuple[str, ...]] = {
    # Each turn turns a face-down card up (discarding the drawn card turns one up), so the
    # round ends soon; a target of 10 ends the game with it.
    "numberswap": ("next_round", "flip_initial", "discard_drawn", "draw", "swap_drawn"),
    # Ending steps early leaves the scoring to the bot, which reaches 99 soonest.
    "warp99": ("end_step", "play_to_pile", "add_to_row", "score_row"),
}


@dataclass
class Game:
    """A room with one game in it: its code, the game's number, and the host's last view."""

    code: str
    number: int
    view: dict[str, Any]


def choose(view: dict[str, Any], rnd: random.Random) -> dict[str, Any] | None:
    """The move to make from ``view``, or None to wait (only an optional undo is open)."""
    legal = [a for a in view["legal"] if a["type"] != "undo"]
    if not legal:
        return None
    if view["game"] == "floor":
        # Playing cards empties the hand; drawing only when nothing else is open.
        plays = [entry for entry in legal if entry["type"] != "draw"]
        return pick_from_legal(plays or legal, rnd, draw_bias=0.0)
    for kind in FIRST.get(view["game"], ()):
        of_kind = [a for a in legal if a["type"] == kind]
        if of_kind:
            return rnd.choice(of_kind)
    return rnd.choice(legal)


class Host:
    """The host's connection: sequenced commands, the latest state."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seq = 0
        self.state: dict[str, Any] | None = None

    def send(self, message: dict[str, Any]) -> int:
        self.seq = max(self.seq, (self.state or {}).get("last_seq", 0)) + 1
        self.ws.send(json.dumps({**message, "seq": self.seq}))
        return self.seq

    def recv(self, until: float) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(
            self.ws.recv(timeout=max(0.01, until - time.monotonic()))
        )
        if message["type"] == "state":
            self.state = message
        return message

    def until(self, test: Any, timeout: float = 10.0) -> dict[str, Any]:
        until = time.monotonic() + timeout
        while True:
            message = self.recv(until)
            if message["type"] == "error" and message["code"] not in ("not_your_turn",):
                raise AssertionError(f"refused: {message}")
            if test(message):
                return message

    def wait_state(self, test: Any, timeout: float = 10.0) -> dict[str, Any]:
        """The latest state if it passes ``test``, else the first later one that does."""
        if self.state is not None and test(self.state):
            return self.state
        return self.until(lambda m: m["type"] == "state" and test(m), timeout)

    def command(self, message: dict[str, Any]) -> None:
        seq = self.send(message)
        self.until(lambda m: m["type"] == "ack" and m["seq"] == seq)


def create_room(base: str, game: str) -> str:
    answer = httpx.post(
        f"{base}/api/rooms",
        json={
            "game": game,
            "options": SHORT[game],
            "turn_timer": 0,
            "key": secrets.token_urlsafe(16),
        },
    )
    assert answer.status_code == 201, answer.text
    code: str = answer.json()["code"]
    return code


@contextlib.contextmanager
def started(base: str, game: str) -> Iterator[tuple[str, Host]]:
    """A room of ``game`` with Ana (the host, this connection) and a bot, started."""
    code = create_room(base, game)
    url = base.replace("http://", "ws://") + f"/ws/{code}?format=json"
    with connect(url, max_size=2**22) as ws:
        host = Host(ws)
        ws.send(json.dumps({"type": "join", "name": "Ana", "key": secrets.token_urlsafe(16)}))
        joined = host.wait_state(lambda state: True)
        host.command({"type": "add_bot"})
        # Ana's side of the sealed deal (docs/fairplay.md): commit, start, reveal once locked.
        value = secrets.token_hex(32)
        seen = joined["room"]["next_deal"]["commitment"]
        hashed = records.contribution_commitment(value)
        host.command({"type": "commit", "commitment": seen, "hash": hashed})
        host.command({"type": "start"})
        host.wait_state(lambda state: state["room"].get("next_deal", {}).get("stage") == "reveal")
        host.command({"type": "reveal", "value": value})
        host.wait_state(lambda state: state["view"] is not None)
        yield code, host


def finished_game(base: str, game: str, seed: int = 1, limit_s: float = 30.0) -> Game:
    """Play a whole game of ``game`` against a bot; the room and the game's number."""
    rnd = random.Random(seed)
    deadline = time.monotonic() + limit_s
    with started(base, game) as (code, host):
        # One move at a time: the next only once the last is answered, and each from a view
        # newer than the one the last was chosen from.
        pending, acted_at = False, -1
        while True:
            state = host.state
            assert state is not None
            view = state["view"]
            if view["over"]:
                return Game(code, state["room"]["round"], view)
            if not pending and state["version"] != acted_at:
                action = choose(view, rnd)
                if action is not None:
                    pending, acted_at = True, state["version"]
                    host.send({"type": "act", "action": action})
            message = host.recv(deadline)
            if message["type"] == "ack":
                pending = False
            elif message["type"] == "error":
                # Overtaken by the bot's move (the state that overtook it came first).
                assert host.state["version"] > acted_at, message
                pending = False


def game_in_play(base: str, game: str) -> Game:
    """A room whose first game has started and is not over (the host never moves)."""
    with started(base, game) as (code, host):
        assert host.state is not None
        return Game(code, 1, host.state["view"])
