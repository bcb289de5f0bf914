"""The server's exception tree; each becomes a wire error code at the protocol edge.

Rules errors (:mod:`rules.errors`) keep their own codes and pass through unchanged.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    # The frame itself
    BAD_FRAME = "bad_frame"
    TOO_BIG = "too_big"
    UNKNOWN_TYPE = "unknown_type"
    BAD_MESSAGE = "bad_message"
    FLOOD = "flood"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    # Who you are
    NOT_JOINED = "not_joined"
    JOIN_TIMEOUT = "join_timeout"
    ALREADY_JOINED = "already_joined"
    BAD_TOKEN = "bad_token"
    NOT_YOUR_SEAT = "not_your_seat"
    BAD_SEQ = "bad_seq"
    SEQ_REUSED = "seq_reused"
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
    #: (HTTP) A path the API does not have, or a method its path does not take.
    NOT_FOUND = "not_found"
    BAD_METHOD = "bad_method"
    #: A game record that does not exist, or is asked for before the game is over.
    NO_GAME = "no_game"
    NOT_OVER = "not_over"
    #: A commitment made after seeing a server commitment that is not the next deal's, or a
    #: revealed value that does not match the seat's locked commitment (docs/fairplay.md).
    WRONG_COMMITMENT = "wrong_commitment"
    #: A commitment sent after the set was locked, or a reveal from a seat not in it.
    NOT_LOCKED_IN = "not_locked_in"
    #: The host's start or rematch is being sealed: seats and options wait for the deal.
    DEALING = "dealing"
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
    #: Never sent: a planned bot move or timeout whose moment has passed.
    STALE = "stale"


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
