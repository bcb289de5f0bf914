"""The WebSocket protocol: client messages (validated at the edge) and the close codes; the
error codes are :class:`server.errors.ErrorCode`.

Every message is an object with a ``type``. docs/protocol.md documents each one with examples;
this module is the source of truth for what is accepted.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StrictBool,
    StrictInt,
    StrictStr,
    TypeAdapter,
)


class CloseCode(IntEnum):
    NORMAL = 1000
    POLICY = 1008
    TOO_BIG = 1009
    #: Sent by uvicorn to every WebSocket when the instance shuts down: reconnect (to any
    #: instance) and resume.
    SERVICE_RESTART = 1012
    #: The connection fell behind (send queue full): reconnect and get a fresh snapshot.
    TRY_AGAIN = 1013
    KICKED = 4001
    NO_ROOM = 4004


#: The largest sequence number (the largest integer a JavaScript number holds exactly).
MAX_SEQ = 2**53
#: A client-chosen key (a join key, a room-creation key): 16 to 64 URL-safe characters.
Key = Annotated[StrictStr, Field(min_length=16, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
#: Seat tokens are minted by the server in this alphabet; anything else cannot be one.
Token = Annotated[StrictStr, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Seconds = Annotated[float, Strict()]


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


#: 64 lowercase hex digits: a SHA-256, as the server writes commitments.
Hash = Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")]
#: A client's secret contribution to a deal's seed: 32 random bytes, as 64 lowercase hex digits.
ContributionValue = Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")]


class Join(_Message):
    type: Literal["join"]
    name: StrictStr
    #: Chosen by the client and kept until it has its token: a join resent with the same key
    #: (after a lost ``welcome``) gets the same seat and token back instead of a second seat.
    key: Key


class Resume(_Message):
    type: Literal["resume"]
    token: Token


class Watch(_Message):
    type: Literal["watch"]


class Sequenced(_Message):
    """A command of a seated player. ``seq`` makes it exactly-once: the seat's one counter,
    shared by every command type; a resent ``seq`` is acknowledged, never applied again."""

    seq: Annotated[StrictInt, Field(ge=1, le=MAX_SEQ)]


class Act(Sequenced):
    type: Literal["act"]
    action: dict[str, Any]
    #: Optional: when given it must be the sender's own seat.
    seat: StrictInt | None = None


class Chat(Sequenced):
    type: Literal["chat"]
    text: StrictStr


class Options(Sequenced):
    type: Literal["options"]
    options: dict[str, Any] | None = None
    turn_timer: Seconds | None = None


#: A bot's playing strength (rules/contract.py BOT_LEVELS; each rules page says what it means).
BotLevel = Literal["easy", "normal", "strong"]


class AddBot(Sequenced):
    type: Literal["add_bot"]
    level: BotLevel = "normal"


class BotLevelMessage(Sequenced):
    """The host changes a bot seat's level (in the lobby, or between games)."""

    type: Literal["bot_level"]
    id: StrictInt
    level: BotLevel


class Kick(Sequenced):
    type: Literal["kick"]
    id: StrictInt


class SitOut(Sequenced):
    """The host lets a bot play a person's seat (during play) until they come back."""

    type: Literal["sit_out"]
    id: StrictInt


class GiveHost(Sequenced):
    type: Literal["give_host"]
    id: StrictInt


class Lock(Sequenced):
    type: Literal["lock"]
    locked: StrictBool


class Start(Sequenced):
    type: Literal["start"]


class Rematch(Sequenced):
    type: Literal["rematch"]


class Commit(Sequenced):
    """The seat's browser commits to a secret value for the next deal (docs/fairplay.md):
    ``hash`` is the SHA-256 of the value's 32 bytes, made after seeing the server's
    ``commitment``. The value stays with the browser until the commitments are locked."""

    type: Literal["commit"]
    commitment: Hash
    hash: Hash


class Reveal(Sequenced):
    """The value behind the seat's locked commitment, once the commitments are locked."""

    type: Literal["reveal"]
    value: ContributionValue


class Leave(Sequenced):
    type: Literal["leave"]


class Back(Sequenced):
    type: Literal["back"]


class Handoff(Sequenced):
    """Move this seat to another device: answered (in the ``ack``) with a one-time code, shown
    once, that ``POST /api/rooms/{code}/claim`` exchanges for a new seat token; this
    connection's token then stops working (docs/protocol.md)."""

    type: Literal["handoff"]


class Sync(_Message):
    type: Literal["sync"]


class Ping(_Message):
    """A heartbeat: answered with ``pong`` at once, at any time (even before joining)."""

    type: Literal["ping"]


ClientMessage = Annotated[
    Join
    | Resume
    | Watch
    | Act
    | Chat
    | Options
    | AddBot
    | BotLevelMessage
    | Kick
    | SitOut
    | GiveHost
    | Lock
    | Start
    | Rematch
    | Commit
    | Reveal
    | Leave
    | Back
    | Handoff
    | Sync
    | Ping,
    Field(discriminator="type"),
]
_MESSAGES: tuple[type[_Message], ...] = (
    *(Join, Resume, Watch, Act, Chat, Options, AddBot, BotLevelMessage),
    *(Kick, SitOut, GiveHost, Lock, Start, Rematch, Commit, Reveal, Leave, Back, Handoff),
    *(Sync, Ping),
)
_TYPE_OF: dict[type[_Message], str] = {
    m: m.model_fields["type"].annotation.__args__[0]  # type: ignore[union-attr]
    for m in _MESSAGES
}
CLIENT_TYPES = frozenset(_TYPE_OF.values())
#: The message types that carry a seat's ``seq``.
SEQUENCED_TYPES = frozenset(t for m, t in _TYPE_OF.items() if issubclass(m, Sequenced))
client_message: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


class CreateRoom(BaseModel):
    """The body of ``POST /api/rooms``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    game: StrictStr
    options: dict[str, Any] | None = None
    #: Seconds a seat has to act; 0 = off; left out = the game's default (a turn-based
    #: room's: off).
    turn_timer: Seconds | None = None
    #: "live" (everyone at the table at once) or "turns" (by text, over days).
    mode: Literal["live", "turns"] = "live"
    #: Optional: a creation resent with the same key returns the room it made the first time.
    key: Key | None = None


create_room_body: TypeAdapter[CreateRoom] = TypeAdapter(CreateRoom)

#: The one-time code of a device move, as typed: letters and digits, dashes and spaces ignored.
HandoffCode = Annotated[StrictStr, Field(min_length=4, max_length=40, pattern=r"^[A-Za-z0-9 -]+$")]


class Claim(BaseModel):
    """The body of ``POST /api/rooms/{code}/claim``: a device move's one-time code, and the
    new device's key (a claim resent with the same key gets the same token back)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    code: HandoffCode
    key: Key


claim_body: TypeAdapter[Claim] = TypeAdapter(Claim)

#: Seats one "Your games" call may ask about.
MAX_MINE = 100


class HeldSeat(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    code: Annotated[StrictStr, Field(min_length=1, max_length=16)]
    token: Token


class Mine(BaseModel):
    """The body of ``POST /api/mine``: the seat tokens this browser holds, per room."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    seats: Annotated[list[HeldSeat], Field(max_length=MAX_MINE)]


mine_body: TypeAdapter[Mine] = TypeAdapter(Mine)


def error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message, **extra}
