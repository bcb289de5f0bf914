"""The server's exception tree; each becomes a wire error code at the protocol edge.

Rules errors (:mod:`rules.errors`) keep their own codes and pass through unchanged.
"""

from __future__ import annotations

from typing import Any

from server.protocol import ErrorCode


class ParlorError(Exception):
    """A refusal the sender is told about: a stable ``code``, a message for people, and any
    ``extra`` fields the error message carries (e.g. ``last_seq`` for ``bad_seq``)."""

    def __init__(self, code: ErrorCode, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class RoomError(ParlorError):
    """A room command refused (not host, room full, wrong phase, ...)."""


class Stale(RoomError):
    """A scheduled change (bot move, timer) whose moment has passed: dropped silently."""

    def __init__(self) -> None:
        super().__init__(ErrorCode.STALE, "The room moved on")
