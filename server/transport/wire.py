"""Frames on the wire: msgpack in binary frames (default) or JSON in text frames (on request).

A client asks for JSON with ``?format=json`` or the ``parlor.json`` subprotocol; msgpack is
``parlor.msgpack`` or nothing at all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

import msgpack

from rules.codec import map_header, pack, unpack

Frame = bytes | str

#: The deepest a message may nest (real ones use a few levels). Anything deeper is refused
#: before it is validated, so no parser, validator or log line can run out of stack on it.
MAX_DEPTH = 32
_TOO_DEEP = f"The frame nests lists and objects more than {MAX_DEPTH} deep"


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


def state_frames(
    version: int,
    room: dict[str, Any],
    parts: Sequence[tuple[int | None, int, Any, Any]],
    shared: dict[str, Any] | None = None,
) -> list[bytes]:
    """The msgpack frames of one fan-out's state messages, each exactly ``pack`` of
    ``views.state_message``'s dict: ``{type: "state", version, you, last_seq, room, view,
    events}`` for each ``(you, last_seq, view, events)`` of ``parts``. With ``shared`` (the
    part every view holds alike: ``Game.view_parts``), each ``view`` of ``parts`` is a seat's
    own part and its view is ``{**shared, **view}``.

    Every message of a fan-out has the same version and room info, and the views' shared
    part and each list of events are packed once; the rest of a frame is joined from packed
    pieces."""
    if not parts:
        return []
    head = _STATE_HEAD + pack(version) + _YOU
    shown = _ROOM + pack(room) + _VIEW
    common = _pairs(pack(shared), len(shared)) if shared else b""
    events: dict[int, bytes] = {}
    frames = []
    for you, last_seq, own, listed in parts:
        tail = events.get(id(listed))
        if tail is None:
            tail = events[id(listed)] = _EVENTS + pack(listed)
        if shared:
            if not shared.keys().isdisjoint(own):
                raise ValueError("a view's own part repeats a shared key")
            pieces: tuple[bytes, ...] = (
                map_header(len(shared) + len(own)),
                common,
                _pairs(pack(own), len(own)),
            )
        else:
            pieces = (pack(own),)
        frames.append(
            b"".join((head, _small(you), _LAST_SEQ, _small(last_seq), shown, *pieces, tail))
        )
    return frames


def _small(value: int | None) -> bytes:
    """A seat index or seq: msgpack's one-byte forms for None and 0-127, else packed."""
    if value is None:
        return b"\xc0"
    if type(value) is int and 0 <= value < 128:
        return _FIXINT[value]
    return pack(value)


_FIXINT = [bytes((i,)) for i in range(128)]
#: A map of the seven keys, "type": "state", and the key "version".
_STATE_HEAD = b"\x87" + msgpack.packb("type") + msgpack.packb("state") + msgpack.packb("version")
_YOU = msgpack.packb("you")
_LAST_SEQ = msgpack.packb("last_seq")
_ROOM = msgpack.packb("room")
_VIEW = msgpack.packb("view")
_EVENTS = msgpack.packb("events")


def _pairs(packed_map: bytes, count: int) -> bytes:
    """The key/value pairs of a packed map of ``count`` pairs: without its header (one byte
    up to 15 pairs, three up to 65,535, else five)."""
    return packed_map[1 if count <= 15 else 3 if count <= 0xFFFF else 5 :]


def decode(frame: Frame, fmt: Format) -> dict[str, Any]:
    if fmt is Format.JSON:
        if not isinstance(frame, str):
            raise FrameError("This connection speaks JSON in text frames")
        try:
            message = json.loads(frame)
        except ValueError:
            raise FrameError("The frame is not valid JSON") from None
        except RecursionError:
            raise FrameError(_TOO_DEEP) from None
    else:
        if not isinstance(frame, bytes):
            raise FrameError("This connection speaks msgpack in binary frames")
        try:
            message = unpack(frame)
        except msgpack.StackError:
            raise FrameError(_TOO_DEEP) from None
        except Exception:
            # msgpack raises several unrelated exception types for garbage input.
            raise FrameError("The frame is not valid msgpack") from None
    if not isinstance(message, dict):
        raise FrameError("A message must be an object")
    if _deeper_than(message, MAX_DEPTH):
        raise FrameError(_TOO_DEEP)
    if fmt is Format.JSON:
        # JSON can say what msgpack cannot: an integer of any size, and a lone UTF-16
        # surrogate ("\ud800"), which is no text. Neither gets past the edge.
        _check_plain(message)
    return message


#: The integers a message may hold: what msgpack carries (64 bits, signed or not).
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1


def _check_plain(value: Any) -> None:
    """Refuse a JSON message holding an integer outside 64 bits or a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            for key, child in item.items():
                _check_text(key)
                stack.append(child)
        elif kind is list:
            stack.extend(item)
        elif kind is int:
            if not _INT_MIN <= item <= _INT_MAX:
                raise FrameError("A number in the frame does not fit in 64 bits")
        elif kind is str:
            _check_text(item)


def _check_text(text: str) -> None:
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            raise FrameError("A string in the frame holds a lone UTF-16 surrogate") from None


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and dicts nest in ``value`` more than ``limit`` deep (without recursing)."""
    if type(value) is not dict and type(value) is not list:
        return False
    # Only lists and dicts are stacked (a message is mostly plain values).
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        for child in item.values() if type(item) is dict else item:
            kind = type(child)
            if kind is dict or kind is list:
                stack.append((child, depth + 1))
    return False
