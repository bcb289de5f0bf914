"""The rooms: the room record (:mod:`server.rooms.model`), its short codes
(:mod:`server.codes`) and the pure commands that compute the next record from the last
(:mod:`server.rooms.commands`). Nothing here does I/O, keeps time or knows the wire protocol.

The record's types and its stored form are re-exported here: ``rooms.Room``,
``rooms.encode``."""

from server.rooms import model
from server.rooms.model import (
    MOVES_KEPT,
    ChatLine,
    Deal,
    Mode,
    Move,
    Phase,
    Room,
    Sealing,
    Seat,
    decode,
    encode,
    new_room,
)

__all__ = [
    "MOVES_KEPT",
    "ChatLine",
    "Deal",
    "Mode",
    "Move",
    "Phase",
    "Room",
    "Sealing",
    "Seat",
    "decode",
    "encode",
    "model",
    "new_room",
]
