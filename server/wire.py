"""Frames on the wire: msgpack in binary frames (default) or JSON in text frames (on request).

A client asks for JSON with ``?format=json`` or the ``parlor.json`` subprotocol; msgpack is
``parlor.msgpack`` or nothing at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any

import msgpack

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


class SharedEncoder:
    """Encodes the messages of one fan-out, encoding each shared sub-object only once.

    The seats of a room get messages that differ in a few fields but share most of their
    content by identity (the room info; a game's public view body — see ``Game.views``). A
    container met again is spliced in from its bytes: the frames are exactly what ``encode``
    would give, for a fraction of the work. Objects are recognised by ``id``, so an encoder
    lives only as long as the messages it encodes: one fan-out.
    """

    def __init__(self, fmt: Format) -> None:
        self.fmt = fmt
        self._memo: dict[int, bytes | str] = {}
        self._alive: list[Any] = []  # keeps memoised objects alive, so their ids stay unique
        packer = msgpack.Packer(use_bin_type=True)
        self._pack: Callable[[Any], bytes] = packer.pack
        self._header: Callable[[int], bytes] = packer.pack_map_header

    def encode(self, message: dict[str, Any]) -> Frame:
        if self.fmt is Format.JSON:
            return self._json_dict(message, depth=2)
        return self._msgpack_dict(message, depth=2)

    def _msgpack_dict(self, obj: dict[str, Any], depth: int) -> bytes:
        parts = [self._header(len(obj))]
        for key, value in obj.items():
            parts.append(self._pack(key))
            parts.append(self._msgpack_value(value, depth))
        return b"".join(parts)

    def _msgpack_value(self, value: Any, depth: int) -> bytes:
        if type(value) is dict or type(value) is list:
            known = self._memo.get(id(value))
            if known is not None:
                return known  # type: ignore[return-value]
            if type(value) is dict and depth > 0:
                packed = self._msgpack_dict(value, depth - 1)
            else:
                packed = self._pack(value)
            self._memo[id(value)] = packed
            self._alive.append(value)
            return packed
        return self._pack(value)

    def _json_dict(self, obj: dict[str, Any], depth: int) -> str:
        items = [f"{json.dumps(k)}:{self._json_value(v, depth)}" for k, v in obj.items()]
        return "{" + ",".join(items) + "}"

    def _json_value(self, value: Any, depth: int) -> str:
        if type(value) is dict or type(value) is list:
            known = self._memo.get(id(value))
            if known is not None:
                return known  # type: ignore[return-value]
            if type(value) is dict and depth > 0:
                text = self._json_dict(value, depth - 1)
            else:
                text = encode(value, Format.JSON)  # type: ignore[assignment]
            self._memo[id(value)] = text
            self._alive.append(value)
            return text
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


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
