"""What this instance holds for one room, in one object with one lifecycle.

The service queues a room's commands and runs one batch task for it; the hub keeps the room's
connections here, which seats they are, the presence it last read, the version it last sent
and its reload task; the bots keep the room's plan and its one timer. All of it lives in the
room's :class:`LocalRoom`, made when the room is first used here and torn down in one place,
:meth:`LocalRooms.close`, when nothing holds it any more: no connection, no command waiting or
under way, no reload or renumbering. In the spirit of python-websockets' protocol objects, its
``state`` says where it is in that life:

- ``SERVING``: connections here. The store's notices for the room are watched, presence is
  claimed, the bots plan its next moves.
- ``IDLE``: no connection, but work for it still under way (a batch of commands, a reload).
  Nothing is watched or planned; when the work ends, the room is closed.
- ``CLOSED``: torn down and forgotten. A later use of the room makes a new one.

The decoded rooms the service caches are not held here: that cache is bounded by its own size
(a room may be read without anything here being held for it).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.rooms import Room
    from server.rooms.commands import Change
    from server.transport.connections import Connection

#: A planned command: when it is due (loop time), the room it was planned on, what it is
#: ("bot", "timeout", "takeover", "host" or "seal") and for whose seat (see Bots._command).
Due = tuple[float, "Room", str, int | None]
#: A command waiting for its room's batch, and the future its caller waits on.
Waiting = tuple[Callable[["Room"], "Change"], "asyncio.Future[Change]"]


class State(Enum):
    SERVING = "serving"
    IDLE = "idle"
    CLOSED = "closed"


@dataclass(eq=False)
class LocalRoom:
    code: str
    state: State = State.IDLE

    # -- the service: commands queued here, and the one task that applies them ----------------
    #: Commands waiting for the room's next batch, in arrival order.
    waiting: list[Waiting] = field(default_factory=list)
    #: The task applying the room's batches, batch after batch until none wait.
    draining: asyncio.Task[None] | None = None
    #: The version a save in flight here will write (its notice can overtake the reply).
    saving: int | None = None

    # -- the hub: connections, presence, what was sent --------------------------------------
    conns: set[Connection] = field(default_factory=set)
    #: Seat ids connected here, with how many connections each.
    local: Counter[int] = field(default_factory=Counter)
    #: Seat ids connected on any instance, as last read from the store.
    presence: frozenset[int] = frozenset()
    #: The newest version fanned out (not the service's cache: that one also learns versions
    #: by reloading after a lost race, which sends nobody anything).
    sent: int = 0
    #: The one reload task at most; ``dirty`` says a reload is due (None: none; else whether
    #: presence must be read too). The task loops until nothing is due.
    refreshing: asyncio.Task[None] | None = None
    dirty: bool | None = None
    #: A renumbering (the store went back in time) is under way.
    rewinding: bool = False

    # -- the bots: the plan and its one timer ------------------------------------------------
    #: ((version, presence) planned for, what is due, the soonest first).
    plan: tuple[tuple[int, frozenset[int]], list[Due]] | None = None
    #: (loop time, timer): one timer, at or before the soonest plan.
    wake: tuple[float, asyncio.TimerHandle] | None = None
    #: What plans let go (see Bots._unplan) still have waiting, the soonest first.
    left: list[Due] = field(default_factory=list)

    def busy(self) -> bool:
        """Whether work for the room is under way here (besides serving connections)."""
        return bool(
            self.waiting
            or self.draining is not None
            or self.refreshing is not None
            or self.rewinding
        )

    def forget_plans(self) -> None:
        self.plan = None
        self.left = []
        if self.wake is not None:
            self.wake[1].cancel()
            self.wake = None


class LocalRooms:
    """Every room this instance holds something for, by code."""

    def __init__(self) -> None:
        self._rooms: dict[str, LocalRoom] = {}
        #: Told when a room starts or stops being served here (the store watches its notices).
        self.on_serving: Callable[[str], None] = lambda code: None
        self.on_unserved: Callable[[str], None] = lambda code: None

    def get(self, code: str) -> LocalRoom | None:
        return self._rooms.get(code)

    def open(self, code: str) -> LocalRoom:
        """The room's object, made if nothing is held for it yet."""
        room = self._rooms.get(code)
        if room is None:
            room = self._rooms[code] = LocalRoom(code)
        return room

    def __iter__(self) -> Iterator[LocalRoom]:
        return iter(list(self._rooms.values()))

    def serving(self) -> list[LocalRoom]:
        return [room for room in self._rooms.values() if room.state is State.SERVING]

    def serve(self, room: LocalRoom) -> None:
        """A first connection: the room is served here."""
        if room.state is State.SERVING:
            return
        room.state = State.SERVING
        self.on_serving(room.code)

    def unserve(self, room: LocalRoom) -> None:
        """The last connection is gone: nothing is watched or planned for the room any more,
        and it is closed now, or when the work under way for it ends."""
        if room.state is not State.SERVING:
            return
        room.state = State.IDLE
        self.on_unserved(room.code)
        room.local.clear()
        room.presence = frozenset()
        room.sent = 0
        room.forget_plans()
        self.release(room)

    def release(self, room: LocalRoom) -> None:
        """Some work for the room ended: close it if nothing holds it any more."""
        if room.state is State.IDLE and not room.busy() and not room.conns:
            self.close(room)

    def close(self, room: LocalRoom) -> None:
        """The one teardown: everything the instance holds for the room goes (its notices
        unwatched, its plans and timer dropped, the object forgotten). Called only once
        nothing is under way for it (:meth:`release`)."""
        if room.state is State.CLOSED:
            return
        if room.state is State.SERVING:
            self.on_unserved(room.code)
        room.state = State.CLOSED
        room.forget_plans()
        if self._rooms.get(room.code) is room:
            del self._rooms[room.code]
