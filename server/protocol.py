"""The WebSocket protocol: client messages (validated at the edge) and the wire error codes.

Every message is an object with a ``type``. docs/protocol.md documents each one with examples;
this module is the source of truth for what is accepted.
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, TypeAdapter


class ErrorCode(StrEnum):
    # The frame itself
    BAD_FRAME = "bad_frame"
    TOO_BIG = "too_big"
    UNKNOWN_TYPE = "unknown_type"
    BAD_MESSAGE = "bad_message"
    FLOOD = "flood"
    # Who you are
    NOT_JOINED = "not_joined"
    ALREADY_JOINED = "already_joined"
    BAD_TOKEN = "bad_token"
    NOT_YOUR_SEAT = "not_your_seat"
    KICKED = "kicked"
    # The room
    NO_ROOM = "no_room"
    ROOM_FULL = "room_full"
    ROOM_LOCKED = "room_locked"
    IN_PROGRESS = "in_progress"
    NOT_HOST = "not_host"
    NO_SEAT = "no_seat"
    WRONG_PHASE = "wrong_phase"
    CHAT_TOO_LONG = "chat_too_long"
    # The rules (codes of rules.errors, passed through unchanged)
    INVALID_ACTION = "invalid_action"
    ILLEGAL_ACTION = "illegal_action"
    NOT_YOUR_TURN = "not_your_turn"
    GAME_OVER = "game_over"
    INVALID_OPTIONS = "invalid_options"
    INVALID_SEAT_COUNT = "invalid_seat_count"
    RULES_ERROR = "rules_error"
    # The server
    CONFLICT = "conflict"
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"


class CloseCode(IntEnum):
    NORMAL = 1000
    POLICY = 1008
    TOO_BIG = 1009
    #: The connection fell behind (send queue full): reconnect and get a fresh snapshot.
    TRY_AGAIN = 1013
    KICKED = 4001
    NO_ROOM = 4004


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Join(_Message):
    type: Literal["join"]
    name: StrictStr


class Resume(_Message):
    type: Literal["resume"]
    token: StrictStr


class Watch(_Message):
    type: Literal["watch"]


class Act(_Message):
    type: Literal["act"]
    seq: Annotated[StrictInt, Field(ge=1, le=2**53)]
    action: dict[str, Any]
    #: Optional: when given it must be the sender's own seat.
    seat: StrictInt | None = None


class Chat(_Message):
    type: Literal["chat"]
    text: StrictStr


class Options(_Message):
    type: Literal["options"]
    options: dict[str, Any] | None = None
    turn_timer: float | None = None


class AddBot(_Message):
    type: Literal["add_bot"]


class Kick(_Message):
    type: Literal["kick"]
    id: StrictInt


class GiveHost(_Message):
    type: Literal["give_host"]
    id: StrictInt


class Lock(_Message):
    type: Literal["lock"]
    locked: StrictBool


class Start(_Message):
    type: Literal["start"]


class Rematch(_Message):
    type: Literal["rematch"]


class Leave(_Message):
    type: Literal["leave"]


class Back(_Message):
    type: Literal["back"]


class Sync(_Message):
    type: Literal["sync"]


ClientMessage = Annotated[
    Join
    | Resume
    | Watch
    | Act
    | Chat
    | Options
    | AddBot
    | Kick
    | GiveHost
    | Lock
    | Start
    | Rematch
    | Leave
    | Back
    | Sync,
    Field(discriminator="type"),
]
_MESSAGES: tuple[type[_Message], ...] = (
    *(Join, Resume, Watch, Act, Chat, Options, AddBot),
    *(Kick, GiveHost, Lock, Start, Rematch, Leave, Back, Sync),
)
CLIENT_TYPES = frozenset(
    m.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    for m in _MESSAGES
)
client_message: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, **extra}
