"""The storage contract: one interface, two backends (memory, Redis), one test suite.

The store knows nothing of rooms beyond opaque bytes and a version number. Its promises:

* ``create`` is atomic: a code is taken by at most one room.
* ``save`` is one compare-and-set on the version that, in the same atomic step, writes the
  record, appends the entry to the room's move log, refreshes the room's time-to-live and
  publishes a notice to every instance. It either all happens or none of it does.
* notices reach every subscribed instance (including the one that saved).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
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
class Stored:
    version: int
    data: bytes


class NoticeKind(StrEnum):
    CHANGE = "c"
    PRESENCE = "p"
    #: Sent by a store to its own instance after a reconnect: notices may have been missed.
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

    @abstractmethod
    async def ping(self) -> None:
        """Raise StoreUnavailable unless the store answers."""

    @abstractmethod
    async def create(self, code: str, data: bytes, entry: bytes, ttl: float) -> bool:
        """Store a new room at version 1; False if the code is taken."""

    @abstractmethod
    async def load(self, code: str) -> Stored | None: ...

    @abstractmethod
    async def save(
        self, code: str, expected: int, data: bytes, entry: bytes, ttl: float, notice: Notice
    ) -> None:
        """Compare-and-set to ``expected + 1``; raises VersionConflict or RoomMissing."""

    @abstractmethod
    async def log(self, code: str) -> list[tuple[int, bytes]]:
        """The move log as (version, entry) pairs, oldest first."""

    @abstractmethod
    async def codes(self, limit: int) -> list[str]:
        """Codes of live rooms (at most ``limit``, in no particular order)."""

    @abstractmethod
    async def ttl(self, code: str) -> float | None:
        """Seconds until the room expires, None if it does not exist."""

    @abstractmethod
    async def set_presence(
        self, code: str, instance: str, seat_ids: list[int], ttl: float, notice: Notice | None
    ) -> None:
        """Record which seats have a connection on ``instance``; notify every instance if a
        ``notice`` is given (a heartbeat renewing the same claim does not)."""

    @abstractmethod
    async def presence(self, code: str) -> frozenset[int]:
        """Seat ids connected on any live instance."""
