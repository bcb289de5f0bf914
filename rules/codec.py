"""Wire encoding shared by the rules and the server: msgpack, and checks for wire-clean data.

"Wire-clean" data is what survives msgpack and JSON unchanged: dicts with str keys, lists,
str, int, bool and None. Views and events are wire-clean by contract, so what a client receives
equals what the rules produced.
"""

from __future__ import annotations

import threading
from typing import Any

import msgpack

#: One packer per thread: ``msgpack.packb`` makes a packer (and its buffer) for every call,
#: which costs several times what packing a small message does, and the server packs
#: dozens of small pieces per move. A packer is not shared between threads; it empties its
#: buffer after every call, an exception included. It is not re-entrant: a ``pack`` made while
#: packing (a dict or list subclass whose methods call ``pack``) would spoil the outer one.
#: Only plain data is packed (wire-clean values, the record's fields), which runs no Python
#: code while packing.
_LOCAL = threading.local()


def _packer() -> msgpack.Packer:
    try:
        return _LOCAL.packer
    except AttributeError:
        packer = _LOCAL.packer = msgpack.Packer(use_bin_type=True)
        return packer


def pack(obj: Any) -> bytes:
    return _packer().pack(obj)  # type: ignore[no-any-return]


def map_header(size: int) -> bytes:
    """The head of a packed map of ``size`` pairs, for joining packed pieces into one."""
    return _packer().pack_map_header(size)  # type: ignore[no-any-return]


def array_header(size: int) -> bytes:
    """The head of a packed array of ``size`` items."""
    return _packer().pack_array_header(size)  # type: ignore[no-any-return]


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=True)


def is_wire_clean(obj: Any) -> bool:
    """True when ``obj`` is made only of dict[str, ...], list, str, int, bool and None."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if item is None or isinstance(item, (str, int, bool)):
            continue
        if type(item) is list:
            stack.extend(item)
        elif type(item) is dict:
            for key, value in item.items():
                if not isinstance(key, str):
                    return False
                stack.append(value)
        else:
            return False
    return True
