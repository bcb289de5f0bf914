"""Every Redis key and channel name, built in one place.

All keys of one room share the hash tag ``{CODE}`` so that, on Redis Cluster, they live in one
slot and the compare-and-set script may touch all of them.
"""

from __future__ import annotations

PREFIX = "parlor"
ROOM_PATTERN = f"{PREFIX}:room:{{*}}"


def room(code: str) -> str:
    """Hash with ``v`` (version) and ``data`` (the msgpack record)."""
    return f"{PREFIX}:room:{{{code}}}"


def log(code: str) -> str:
    """Stream: one entry per accepted change, in version order."""
    return f"{PREFIX}:room:{{{code}}}:log"


def archive(code: str) -> str:
    """List: the facts the room's game records are built from (server/fairplay/records.py), oldest
    first; never trimmed, it expires with the room."""
    return f"{PREFIX}:room:{{{code}}}:games"


def presence(code: str) -> str:
    """Hash: instance id -> ``"<expires at, ms since the epoch>|<seat ids, comma-separated>"``
    (the seats with a connection on that instance; an expired claim counts for nothing)."""
    return f"{PREFIX}:room:{{{code}}}:presence"


def notices(code: str) -> str:
    """Sharded pub/sub channel (``SPUBLISH``) of the room's notices: same hash tag, so on a
    cluster it is served by the master that holds the room, and the save script may publish
    to it. An instance subscribes only to the rooms it has connections in."""
    return f"{PREFIX}:room:{{{code}}}:notices"


#: Sorted set: room code -> when (seconds since the epoch) the turn-based room needs a move
#: no browser will make (Store.set_wake). One key for every room: on a cluster, one slot.
WAKES = f"{PREFIX}:wakes"


def code_of(room_key: str) -> str | None:
    start, end = room_key.find("{"), room_key.find("}")
    if start < 0 or end < start or room_key[end + 1 :]:
        return None
    return room_key[start + 1 : end]
