"""Frames on the wire: msgpack in binary frames (default) or JSON in text frames (on request).

A client asks for JSON with ``?format=json`` or the ``parlor.json`` subprotocol; msgpack is
``parlor.msgpack`` or nothing at all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from rules.codec import pack, unpack

Frame = bytes | str


class Format(StrEnum):
    MSGPACK = "msgpack"
    JSON = "json"

    @property
    def subprotocol(self) -> str:
        return f"parlor.{self.value}"


class FrameError(ValueError):
    """A frame that is not one well-formed message object."""


def choose(query_format: str | None, subprotocols: Sequence[str]) -> tuple[Format, str | None]:
    """The format to speak, and the subprotocol to accept (if the client offered one)."""
    for offered in subprotocols:
        for fmt in Format:
            if offered == fmt.subprotocol:
                return fmt, offered
    if query_format == "json":
        return Format.JSON, None
    return Format.MSGPACK, None


def encode(message: Any, fmt: Format) -> Frame:
    if fmt is Format.JSON:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    return pack(message)


def decode(frame: Frame, fmt: Format) -> dict[str, Any]:
    if fmt is Format.JSON:
        if not isinstance(frame, str):
            raise FrameError("This connection speaks JSON in text frames")
        try:
            message = json.loads(frame)
        except ValueError:
            raise FrameError("The frame is not valid JSON") from None
    else:
        if not isinstance(frame, bytes):
            raise FrameError("This connection speaks msgpack in binary frames")
        try:
            message = unpack(frame)
        except Exception:
            # msgpack raises several unrelated exception types for garbage input.
            raise FrameError("The frame is not valid msgpack") from None
    if not isinstance(message, dict):
        raise FrameError("A message must be an object")
    return message
