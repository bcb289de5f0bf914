"""A player that behaves like the web client (client-web/js/connection.js) when its instance
goes away: on a close (1012 "service restart" from a draining instance, or a dropped socket)
it connects to the next instance, enters with ``resume`` and its seat token, and sends again,
with the same ``seq``, the one command it had not seen answered.

Players of one room share a :class:`Table`, which counts acknowledged actions (so a test can
wait for play to move on) and says when the games should stop. The host starts a rematch
whenever a game ends, until the table is told to finish: then everybody stops at the end of
that game.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from rules.codec import pack, unpack
from tests.server.driver import choose

#: Answers after which the same command is sent again (docs/protocol.md).
RESEND_ON = {"unavailable", "conflict"}


class Table:
    """What the players of one room share."""

    def __init__(self) -> None:
        self.acked = 0
        self._target = 0
        self._reached = asyncio.Event()
        #: Set by the test: finish the game under way, then stop.
        self.finish = asyncio.Event()
        #: Set by the host once the last game is over.
        self.over = asyncio.Event()

    def count_ack(self) -> None:
        self.acked += 1
        if self.acked >= self._target:
            self._reached.set()

    async def acks(self, more: int, timeout: float = 30.0) -> None:
        """Return once ``more`` further actions have been acknowledged."""
        self._target = self.acked + more
        self._reached.clear()
        if self.acked >= self._target:
            return
        await asyncio.wait_for(self._reached.wait(), timeout)


class Roamer:
    """One seat, moving between the instances at ``bases`` (starting at ``bases[at]``)."""

    def __init__(self, bases: list[str], at: int, code: str, name: str, table: Table) -> None:
        self.bases = bases
        self.at = at
        self.code = code
        self.name = name
        self.table = table
        self.key = secrets.token_urlsafe(16)
        self.token: str | None = None
        self.seat: int | None = None
        self.ws: ClientConnection | None = None
        self.state: dict[str, Any] | None = None
        self.seq = 0
        #: The one command sent and not yet answered.
        self.pending: dict[str, Any] | None = None
        #: Every sequenced command sent, by seq; the acks received, by seq.
        self.sent: dict[int, dict[str, Any]] = {}
        self.acks: dict[int, dict[str, Any]] = {}
        #: Close code of every connection that ended under the player (None: no close frame),
        #: and how long each move to another instance took, to the new welcome.
        self.closes: list[int | None] = []
        self.gaps: list[float] = []
        self.resent = 0

    # -- connecting --------------------------------------------------------------------------

    async def enter(self, timeout: float = 20.0) -> None:
        """Connect to the current instance, or the next that answers, and enter the room."""
        async with asyncio.timeout(timeout):
            while True:
                try:
                    ws = await connect(f"{self.bases[self.at]}/ws/{self.code}", compression=None)
                except (OSError, InvalidHandshake):
                    self.at = (self.at + 1) % len(self.bases)
                    continue
                try:
                    await self._enter(ws)
                except ConnectionClosed as closed:
                    self.closes.append(None if closed.rcvd is None else closed.rcvd.code)
                    self.at = (self.at + 1) % len(self.bases)
                    continue
                self.ws = ws
                return

    async def _enter(self, ws: ClientConnection) -> None:
        if self.token is None:
            entry = {"type": "join", "name": self.name, "key": self.key}
        else:
            entry = {"type": "resume", "token": self.token}
        await ws.send(pack(entry))
        while True:
            message = unpack(await ws.recv())
            if message["type"] == "welcome":
                self.token = message.get("token") or self.token
                self.seat = message["seat"]
            elif message["type"] == "state" and self.seat is not None:
                self._take(message)
                return
            elif message["type"] == "error":
                raise AssertionError(f"{self.name} could not enter: {message}")

    def _take(self, state: dict[str, Any]) -> None:
        if self.state is None or state["version"] >= self.state["version"]:
            self.state = state
        self.seq = max(self.seq, state["last_seq"])

    async def _moved(self, closed: ConnectionClosed) -> None:
        """The connection ended: enter again on the next instance, resend what was waiting."""
        began = time.monotonic()
        self.closes.append(None if closed.rcvd is None else closed.rcvd.code)
        self.at = (self.at + 1) % len(self.bases)
        await self.enter()
        self.gaps.append(time.monotonic() - began)
        if self.pending is not None:
            self.resent += 1
            await self._send(self.pending)

    # -- commands ----------------------------------------------------------------------------

    async def _send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        # A closed connection is heard of by the next recv; the command stays pending and is
        # resent from there.
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(pack(message))

    async def command(self, message: dict[str, Any]) -> int:
        assert self.pending is None, "one command at a time, as the web client sends them"
        self.seq += 1
        numbered = {**message, "seq": self.seq}
        self.sent[self.seq] = numbered
        self.pending = numbered
        await self._send(numbered)
        return self.seq

    # -- playing -----------------------------------------------------------------------------

    async def play(self, rnd: random.Random, host: bool, timeout: float = 120.0) -> None:
        """Play (the host also starts each rematch) until the table's last game is over."""
        acted_at = -1
        async with asyncio.timeout(timeout):
            while True:
                state = self.state
                assert state is not None and self.ws is not None
                view = state["view"]
                over = view is not None and view["over"]
                if over and self.pending is None:
                    if host and self.table.finish.is_set():
                        self.table.over.set()
                        return
                    if host and acted_at != state["version"]:
                        await self.command({"type": "rematch"})
                        acted_at = state["version"]
                    if not host and self.table.over.is_set():
                        return
                elif (
                    view is not None
                    and view["legal"]
                    and self.pending is None
                    and acted_at != state["version"]
                ):
                    await self.command({"type": "act", "action": choose(view, rnd)})
                    acted_at = state["version"]
                message = await self._next(wait_for_over=over and not host)
                if message is not None:
                    self._handle(message)
                    resend = message["type"] == "error" and message.get("code") in RESEND_ON
                    if resend and message.get("seq") == self.seq:
                        await self._send(self.sent[self.seq])

    async def _next(self, wait_for_over: bool) -> dict[str, Any] | None:
        """The next message (after moving on if the connection ended), or None once the
        table's last game is over if ``wait_for_over``."""
        assert self.ws is not None
        receiving = asyncio.ensure_future(self.ws.recv())
        waits: set[asyncio.Future[Any]] = {receiving}
        if wait_for_over:
            waits.add(asyncio.ensure_future(self.table.over.wait()))
        try:
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                if not waiting.done():
                    waiting.cancel()
        if receiving not in done:
            return None
        try:
            frame = receiving.result()
        except ConnectionClosed as closed:
            await self._moved(closed)
            return None
        message: dict[str, Any] = unpack(frame)
        return message

    def _handle(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "state":
            self._take(message)
        elif kind == "ack":
            self.acks[message["seq"]] = message
            if self.pending is not None and self.pending["seq"] == message["seq"]:
                self.pending = None
                if self.sent[message["seq"]]["type"] == "act":
                    self.table.count_ack()
        elif (
            kind == "error"
            and self.pending is not None
            and message.get("seq") == self.pending["seq"]
            and message["code"] not in RESEND_ON
        ):
            # Overtaken by another seat's move, as in tests/server/driver.py: a newer state is
            # on its way, and nothing is applied.
            self.pending = None

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
