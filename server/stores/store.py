"""The storage contract: one interface, three backends (Redis, SQLite, memory), one test suite.

The store knows nothing of rooms beyond opaque bytes and a version number. Its promises:

* ``create`` is atomic: a code is taken by at most one room.
* every write gives the record a new random ``tag``; ``save`` is one compare-and-set on the
  tag the caller last read that, in the same atomic step, writes the record, appends the entry
  to the room's move log, refreshes the room's time-to-live and publishes a notice to every
  instance watching the room. It either all happens or none of it does. Comparing tags rather
  than versions means a record read before the store went back in time (a restore, a failover
  to a lagging replica) can never overwrite one written after, even at the same version number.
* notices are a hint, not a guarantee: they may be lost (a reconnect, a restart), so an
  instance also compares ``stamps`` of the rooms it serves with what it has. An instance
  ``watch``es the rooms it has connections in; a store may deliver notices of other rooms too
  (the embedded ones deliver all), and one that subscribes per room (Redis) sends a RESYNC
  notice for the room each time a subscription to it is (re)established, since notices may
  have been missed before it.
* no write is retried blindly: a write whose reply was lost raises ``StoreUnavailable`` and the
  caller reads the record again to learn whether it happened.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum


class StoreError(Exception):
    """Base of the store's errors."""


class VersionConflict(StoreError):
    """Someone saved first: reload, re-validate, retry."""


class RoomMissing(StoreError):
    """The room does not exist (never did, or expired)."""


class StoreUnavailable(StoreError):
    """The backend cannot be reached."""


@dataclass(frozen=True, slots=True)
class Stamp:
    """What identifies one write of a record: its version and the write's random tag."""

    version: int
    tag: str


@dataclass(frozen=True, slots=True)
class Stored:
    version: int
    data: bytes
    tag: str

    @property
    def stamp(self) -> Stamp:
        return Stamp(self.version, self.tag)


def new_tag() -> str:
    """A write's tag: 64 random bits. Only unique, not secret, so from the process's seeded
    generator rather than a system call per write (``random`` reseeds it in a forked child,
    so workers never share a sequence)."""
    return f"{random.getrandbits(64):016x}"


class NoticeKind(StrEnum):
    CHANGE = "c"
    PRESENCE = "p"
    #: Sent by a store to its own instance after a (re)subscription: notices of room ``code``
    #: (of every room, for ``"*"``) may have been missed.
    RESYNC = "r"


@dataclass(frozen=True, slots=True)
class Notice:
    """Something changed in room ``code``. ``origin`` is the instance that caused it."""

    kind: NoticeKind
    code: str
    version: int
    origin: str

    def encode(self) -> str:
        return f"{self.kind.value} {self.code} {self.version} {self.origin}"

    @classmethod
    def decode(cls, raw: str) -> Notice:
        kind, code, version, origin = raw.split(" ", 3)
        return cls(NoticeKind(kind), code, int(version), origin)


NoticeHandler = Callable[[Notice], None]


class Store(ABC):
    #: Shown in logs and /healthz.
    kind: str

    @abstractmethod
    async def open(self, on_notice: NoticeHandler) -> None:
        """Connect and start delivering notices to ``on_notice``."""

    @abstractmethod
    async def close(self) -> None: ...

    def watch(self, code: str) -> None:
        """Deliver the notices of room ``code`` from now on (this instance now has connections
        in it). Returns at once; a store that must subscribe first sends a RESYNC notice for
        the room once it has, so nothing published in between stays missed."""
        return None

    def unwatch(self, code: str) -> None:
        """The notices of room ``code`` are no longer needed (its last connection here left)."""
        return None

    @abstractmethod
    async def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""

    @abstractmethod
    async def create(self, code: str, data: bytes, entry: bytes, ttl: float) -> str | None:
        """Store a new room at version 1 and return its tag; None if the code is taken."""

    @abstractmethod
    async def load(self, code: str) -> Stored | None: ...

    @abstractmethod
    async def save(
        self,
        code: str,
        expected: str,
        version: int,
        data: bytes,
        entry: bytes,
        ttl: float,
        notice: Notice,
        earlier: Sequence[tuple[int, bytes]] = (),
        archive: Sequence[bytes] = (),
    ) -> str:
        """Compare-and-set on the tag ``expected``: write ``data`` as ``version``, append
        ``earlier`` then ``(version, entry)`` to the move log and ``archive`` to the room's
        archive, and return the new tag; raises VersionConflict or RoomMissing. ``earlier``
        holds the log entries of the versions before ``version`` that the same save writes (a
        batch of commands, oldest first)."""

    @abstractmethod
    async def stamps(self, codes: list[str]) -> dict[str, Stamp | None]:
        """The current stamp of each room (None for a room that does not exist), in one
        round trip: the cheap periodic check that notices were not missed."""

    @abstractmethod
    async def log(self, code: str) -> list[tuple[int, bytes]]:
        """The move log as (version, entry) pairs, oldest first."""

    @abstractmethod
    async def archive(self, code: str) -> list[bytes]:
        """The room's archive (the facts its game records are built from,
        server/fairplay/records.py), oldest first. Unlike the move log it is never trimmed: it lives
        as long as the room."""

    @abstractmethod
    async def codes(self, limit: int) -> list[str]:
        """Codes of live rooms (at most ``limit``, in no particular order)."""

    @abstractmethod
    async def ttl(self, code: str) -> float | None:
        """Seconds until the room expires, None if it does not exist."""

    @abstractmethod
    async def set_wake(self, code: str, at: float, expected: float | None = None) -> None:
        """Remember that room ``code`` needs a move at ``at`` (seconds since the epoch) that
        no browser will make (a turn-based room's bot turn or turn timer), or forget it
        (``at`` 0). One index for every room, written after the room's save, not in its
        atomic step. With ``expected`` the write is made only if the room's entry is absent,
        ``expected`` (what the writer last knew) or ``at`` already: a write from an older look
        at the room, arriving late, never removes or moves the entry a newer one made."""

    @abstractmethod
    async def due(self, now: float, limit: int) -> list[tuple[str, float]]:
        """(code, time) of at most ``limit`` rooms whose wake time is ``now`` or earlier,
        soonest first."""

    @abstractmethod
    async def set_presence(
        self, code: str, instance: str, seat_ids: list[int], ttl: float, notice: Notice | None
    ) -> None:
        """Record which seats have a connection on ``instance``; notify every instance if a
        ``notice`` is given (a heartbeat renewing the same claim does not)."""

    @abstractmethod
    async def presence(self, code: str) -> frozenset[int]:
        """Seat ids connected on any live instance."""
