"""The room record: seats, host, phase, options, chat and the game state, and its stored form.

A :class:`Room` is immutable; :mod:`server.rooms.commands` computes the next one. The record is what
the store compare-and-sets as a whole, under one version number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rules.codec import array_header, map_header, pack, unpack
from rules.contract import DEFAULT_BOT_LEVEL, Event, Game
from rules.registry import get_game
from server.fairplay.records import commitment


@dataclass(slots=True)
class Memo:
    """Forms derived from an immutable part of the record, each made at most once: the part's
    value never changes (a change makes a new part, with a new, empty memo), so neither do
    they. The only mutable thing a record holds, and it holds nothing the record's value does
    not determine."""

    #: The part as msgpack (see :func:`encode`).
    wire: bytes | None = None
    #: The part as state messages show it (:mod:`server.transport.state_messages`): a seat's
    #: (connected, entry), a move's entry.
    shown: Any = None


class Mode(StrEnum):
    """How a room plays, chosen at creation (docs/protocol.md, "Live and turn-based rooms")."""

    #: Everyone at the table at once: turn timers, bots for players who drop, pauses.
    LIVE = "live"
    #: By text: the room waits for whoever is to act, for days (no turn timer unless the host
    #: sets one, no bot for being offline, no pause that waits for everyone).
    TURNS = "turns"


class Phase(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Seat:
    #: Stable id: seat *indexes* shift when someone leaves the lobby, ids never do.
    id: int
    name: str
    #: sha256 of the seat token; None for a bot seat.
    token_hash: str | None
    #: Set when the turn timer ran out; a bot plays for the seat until its player acts again.
    away: bool = False
    #: The last client sequence number applied for this seat (commands apply exactly once).
    last_seq: int = 0
    #: (seq, version it produced, digest of the command) of the seat's latest commands,
    #: newest last: a resent command is answered with its original result, and a number
    #: reused for another command is told apart.
    acks: tuple[tuple[int, int, str], ...] = ()
    #: Moves a bot has played for this seat since it was last marked away (shown to the
    #: player when they come back).
    covered: int = 0
    #: A bot seat's level (rules/contract.py BOT_LEVELS); a bot playing for an away person
    #: plays at the default level whatever this says.
    level: str = DEFAULT_BOT_LEVEL
    #: The commitment (SHA-256 of a secret value) this seat's browser sent for the next deal
    #: (docs/fairplay.md), "" for none. Public; consumed by the deal. (A room stored by a
    #: server before parlor-deal/2 holds a plain contribution in this place of the stored
    #: seat; it is read as none, and the browser commits.)
    commitment: str = ""
    #: A device move under way (docs/protocol.md, "Moving a seat to another device"): the
    #: SHA-256 of the one-time code the seat's player was shown, "" for none, and until when
    #: (server clock) it can be exchanged for a new seat token.
    handoff: str = ""
    handoff_until: float = 0.0
    #: Away for one turn only: a turn-based room's turn timer ran out and a bot plays this
    #: turn; once the seat is no longer waited for it is the person's again (a host's
    #: ``sit_out`` lasts until the person comes back, as in a live room).
    turn_only: bool = False
    memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    @property
    def bot(self) -> bool:
        return self.token_hash is None

    def form(self) -> list[Any]:
        form: list[Any] = [
            *(self.id, self.name, self.token_hash, self.away, self.last_seq, self.acks),
            *(self.covered, self.level, self.commitment),
        ]
        if self.handoff or self.turn_only:
            # Stored only while they are set (a live room's seats keep their old form).
            form += [self.handoff, self.handoff_until, self.turn_only]
        return form


@dataclass(frozen=True, slots=True)
class ChatLine:
    seat_id: int
    name: str
    text: str
    at: float
    memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    def form(self) -> list[Any]:
        return [self.seat_id, self.name, self.text, self.at]


@dataclass(frozen=True, slots=True)
class Move:
    """The public events of one game-changing version (an act, a bot move, a timeout)."""

    version: int
    #: The seat index that moved.
    seat: int | None
    #: As the rules returned them: wire-clean and public by contract.
    events: tuple[Event, ...]
    #: Who made the move (as a record's ``by``): "act" (the seat's player), "bot" (a bot seat,
    #: or a bot playing for an away person), "timeout" or "takeover".
    by: str = "act"
    memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    def form(self) -> list[Any]:
        if self.by == "act":
            return [self.version, self.seat, list(self.events)]
        return [self.version, self.seat, list(self.events), self.by]

    def shown(self) -> dict[str, Any]:
        """The move in a state message's ``events``: one read-only dict every message that
        lists this move shares (a move is immutable). ``by`` only when it is not "act"."""
        entry: dict[str, Any] | None = self.memo.shown
        if entry is None:
            entry = {"version": self.version, "seat": self.seat, "events": list(self.events)}
            if self.by != "act":
                entry["by"] = self.by
            self.memo.shown = entry
        return entry


@dataclass(frozen=True, slots=True)
class Deal:
    """How the game in play (or the last one) was dealt (docs/fairplay.md)."""

    round: int
    #: Secret until the game is over; "" for a game not sealed.
    server_seed: str
    #: SHA-256 of the server seed, published before any contribution to the deal was made.
    commitment: str
    #: Each seat's revealed contribution, in seat order ("" for a seat without one).
    contributions: tuple[str, ...]
    #: False for a deal whose server seed was not committed to before the deal (a room made
    #: before deals were sealed).
    sealed: bool
    #: The locked contribution commitments, in seat order ("" for a seat without one).
    commitments: tuple[str, ...] = ()
    #: The record format (and derivation) of the deal: 2 (``parlor-deal/2``), 1 before it.
    format: int = 2


@dataclass(frozen=True, slots=True)
class Sealing:
    """A deal on its way (docs/fairplay.md): the host asked for it, and the seated people's
    browsers first commit to secret values, then (once the commitments are locked) reveal
    them. The deal is made when every locked value is revealed or ``until`` passes."""

    #: "start" or "rematch".
    kind: str
    #: The seat id of the host who asked.
    by: int | None
    #: When this stage ends by itself (server clock): the commitments lock, or the deal is
    #: made with the values revealed by then.
    until: float
    #: None while commitments are still taken; then (seat id, commitment) of each seat
    #: whose commitment was locked, in seat order.
    locked: tuple[tuple[int, str], ...] | None = None
    #: (seat id, value) revealed for a locked commitment, in the order they came.
    revealed: tuple[tuple[int, str], ...] = ()

    def form(self) -> list[Any]:
        locked = None if self.locked is None else [list(pair) for pair in self.locked]
        return [self.kind, self.by, self.until, locked, [list(pair) for pair in self.revealed]]


#: How many versions' events a room keeps: enough for a connection that missed a few
#: versions (coalesced reloads, a slow socket) to be told every move it missed.
MOVES_KEPT = 16


@dataclass(frozen=True, slots=True)
class Room:
    code: str
    game_id: str
    #: Validated game options, as wire-clean data.
    options: dict[str, Any]
    version: int
    phase: Phase
    seats: tuple[Seat, ...]
    host: int | None
    locked: bool
    #: Seconds a seat has to act before a bot plays for it; 0 = off.
    turn_timer: float
    #: Games started in this room (rematches count).
    round: int
    seed: int
    #: The loaded game state (None in the lobby).
    state: Any
    chat: tuple[ChatLine, ...]
    chat_total: int
    next_id: int
    created_at: float
    changed_at: float
    #: Random, never sent: seat tokens are derived from it and the client's join key, so a
    #: join resent with the same key gets the same token back.
    secret: str = ""
    #: Digest of the key the room was created with (a resent creation finds its room).
    created_by: str = ""
    #: Server time (seconds since the epoch) when the seats to act run out of time; 0 when
    #: no turn timer runs. In the record, so any instance enforces it, after any restart.
    deadline: float = 0.0
    #: The public events of the latest game-changing versions, oldest first, at most
    #: :data:`MOVES_KEPT`: what a state message tells each connection happened since its last.
    moves: tuple[Move, ...] = ()
    #: The server seed of the next deal (secret; "" in a room whose deals are not sealed) and
    #: its commitment, public from the end of the game before it (from creation for the first).
    next_seed: str = ""
    next_commitment: str = ""
    #: How the game in play or the last one was dealt; None before the first.
    deal: Deal | None = None
    #: The next deal, while it is being sealed (after the host's start or rematch).
    sealing: Sealing | None = None
    #: Live or turn-based (by text), fixed at creation.
    mode: Mode = Mode.LIVE
    #: When (server clock) a seat last moved in the game (an action, a bot's, a timeout's);
    #: 0 before the first. What "Your games" shows (a chat line is not a move).
    moved_at: float = 0.0

    @property
    def turn_based(self) -> bool:
        return self.mode is Mode.TURNS

    @property
    def game(self) -> Game[Any, Any]:
        return get_game(self.game_id)

    def index_of(self, seat_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.id == seat_id:
                return index
        return None

    def seat_by_token(self, token_hash: str) -> Seat | None:
        for seat in self.seats:
            if seat.token_hash is not None and seat.token_hash == token_hash:
                return seat
        return None


def new_room(
    code: str,
    game_id: str,
    options: dict[str, Any],
    turn_timer: float,
    now: float,
    *,
    secret: str = "",
    created_by: str = "",
    next_seed: str = "",
    mode: Mode = Mode.LIVE,
) -> Room:
    return Room(
        code=code,
        game_id=game_id,
        options=options,
        version=1,
        phase=Phase.LOBBY,
        seats=(),
        host=None,
        locked=False,
        turn_timer=turn_timer,
        round=0,
        seed=0,
        state=None,
        chat=(),
        chat_total=0,
        next_id=1,
        created_at=now,
        changed_at=now,
        secret=secret,
        created_by=created_by,
        next_seed=next_seed,
        next_commitment=commitment(next_seed) if next_seed else "",
        mode=mode,
    )


# -- stored form --------------------------------------------------------------------------------


def encode(room: Room) -> bytes:
    """The room record, as msgpack: the same bytes as ``pack`` of the dict of its fields, in
    the order :func:`_plain` lists them followed by ``state``, ``seats``, ``chat`` and
    ``moves``.

    A save encodes the whole record after every change, and most seats, the last moves'
    events and the chat lines are the same objects as at the save before: each of those keeps
    its packed form (:func:`_packed`), and so does each of Number Swap's grids
    (``Game.pack_state``). Everything else is packed by one call, as one dict whose map header
    is swapped for the record's, and the packed state and three packed arrays are joined on,
    exactly as msgpack lays out a dict."""
    plain = _plain(room)
    body = pack(plain)
    count = len(plain)
    # A map of up to 15 pairs has a one-byte header, of up to 65,535 a three-byte one.
    head = 1 if count <= 15 else 3
    return b"".join(
        (
            map_header(count + 4),
            memoryview(body)[head:],
            _STATE_KEY,
            _NIL if room.state is None else room.game.pack_state(room.state),
            _SEATS_KEY,
            _array(room.seats),
            _CHAT_KEY,
            _array(room.chat),
            _MOVES_KEY,
            _array(room.moves),
        )
    )


def _plain(room: Room) -> dict[str, Any]:
    """The record's fields but the four packed on their own: the state
    (``Game.pack_state``), and the seats, chat and moves (:func:`_packed`)."""
    return {
        "form": RECORD_FORM,
        "code": room.code,
        "game": room.game_id,
        "options": room.options,
        "version": room.version,
        "phase": room.phase.value,
        "host": room.host,
        "locked": room.locked,
        "turn_timer": room.turn_timer,
        "round": room.round,
        "seed": room.seed,
        "chat_total": room.chat_total,
        "next_id": room.next_id,
        "created_at": room.created_at,
        "changed_at": room.changed_at,
        "secret": room.secret,
        "created_by": room.created_by,
        "deadline": room.deadline,
        "next_seed": room.next_seed,
        "next_commitment": room.next_commitment,
        "deal": None if room.deal is None else _deal_form(room.deal),
        "sealing": None if room.sealing is None else room.sealing.form(),
        "mode": room.mode.value,
        "moved_at": room.moved_at,
    }


def _packed(part: Seat | ChatLine | Move) -> bytes:
    """A part's packed form, made once per object: the parts are immutable, and a changed
    one is a new object, with a new memo (``replace`` does not copy ``memo``, an ``init=False``
    field)."""
    memo = part.memo
    if memo.wire is None:
        memo.wire = pack(part.form())
    return memo.wire


def _array(parts: tuple[Seat, ...] | tuple[ChatLine, ...] | tuple[Move, ...]) -> bytes:
    header = array_header(len(parts))
    return header + b"".join([_packed(part) for part in parts])


_STATE_KEY, _NIL = pack("state"), pack(None)
_SEATS_KEY, _CHAT_KEY, _MOVES_KEY = pack("seats"), pack("chat"), pack("moves")


#: The stored record's form, its first field: in form 2 every field is there, each seat, deal
#: and acknowledgement with all of its places. Records stored before it (no "form": form 1)
#: may lack what was added since; :func:`_from_form_1` fills it in, the one place that knows.
RECORD_FORM = 2


def decode(data: bytes) -> Room:
    raw = unpack(data)
    form = raw.get("form", 1)
    if form == 1:
        raw = _from_form_1(raw)
    elif form != RECORD_FORM:
        raise ValueError(f"a room record of form {form!r}; this server reads 1 and {RECORD_FORM}")
    game = get_game(raw["game"])
    return Room(
        code=raw["code"],
        game_id=raw["game"],
        options=raw["options"],
        version=raw["version"],
        phase=Phase(raw["phase"]),
        seats=tuple(_seat(s) for s in raw["seats"]),
        host=raw["host"],
        locked=raw["locked"],
        turn_timer=raw["turn_timer"],
        round=raw["round"],
        seed=raw["seed"],
        state=None if raw["state"] is None else game.load_state(raw["state"]),
        chat=tuple(ChatLine(*c) for c in raw["chat"]),
        chat_total=raw["chat_total"],
        next_id=raw["next_id"],
        created_at=raw["created_at"],
        changed_at=raw["changed_at"],
        secret=raw["secret"],
        created_by=raw["created_by"],
        deadline=raw["deadline"],
        # A move played by the seat's player is stored without its "by" (most are).
        moves=tuple(
            Move(m[0], m[1], tuple(m[2]), m[3] if len(m) > 3 else "act") for m in raw["moves"]
        ),
        next_seed=raw["next_seed"],
        next_commitment=raw["next_commitment"],
        deal=None if raw["deal"] is None else _deal(raw["deal"]),
        sealing=None if raw["sealing"] is None else _sealing(raw["sealing"]),
        # Added within form 2: a record stored before turn-based rooms is a live one.
        mode=Mode(raw.get("mode", Mode.LIVE.value)),
        moved_at=raw.get("moved_at", 0.0),
    )


def _from_form_1(raw: dict[str, Any]) -> dict[str, Any]:
    """A record stored before forms (form 1) as form 2 has it: the fields added since, with
    the value they had before they existed."""
    two = {
        "secret": "",
        "created_by": "",
        "deadline": 0.0,
        "moves": [],
        "next_seed": "",
        "next_commitment": "",
        "deal": None,
        "sealing": None,
        **raw,
        "form": 2,
    }
    # A room stored before parlor-deal/2 (it has no "sealing") holds a seat's plain
    # contribution where a commitment now is: it is not read as one.
    sealed = "sealing" in raw
    seats = []
    for seat in raw["seats"]:
        acks = [
            [a[0], a[1], a[2] if len(a) > 2 else ""] for a in (seat[5] if len(seat) > 5 else ())
        ]
        covered = seat[6] if len(seat) > 6 else 0
        level = seat[7] if len(seat) > 7 else DEFAULT_BOT_LEVEL
        commitment = seat[8] if sealed and len(seat) > 8 else ""
        seats.append([*seat[:5], acks, covered, level, commitment])
    two["seats"] = seats
    deal = two["deal"]
    if deal is not None and len(deal) == 5:
        # A deal stored before parlor-deal/2: format 1, no commitments.
        two["deal"] = [*deal, [], 1]
    return two


def _deal_form(deal: Deal) -> list[Any]:
    return [
        *(deal.round, deal.server_seed, deal.commitment, deal.contributions, deal.sealed),
        *(deal.commitments, deal.format),
    ]


def _deal(raw: list[Any]) -> Deal:
    return Deal(raw[0], raw[1], raw[2], tuple(raw[3]), raw[4], tuple(raw[5]), raw[6])


def _sealing(raw: list[Any]) -> Sealing:
    locked = None if raw[3] is None else tuple((int(a), str(b)) for a, b in raw[3])
    revealed = tuple((int(a), str(b)) for a, b in raw[4])
    return Sealing(raw[0], raw[1], raw[2], locked, revealed)


def _seat(raw: list[Any]) -> Seat:
    acks = tuple((int(a[0]), int(a[1]), str(a[2])) for a in raw[5])
    # A device move under way and a one-turn cover are stored only while set.
    handoff, until = (raw[9], raw[10]) if len(raw) > 10 else ("", 0.0)
    turn_only = bool(raw[11]) if len(raw) > 11 else False
    return Seat(
        *(raw[0], raw[1], raw[2], raw[3], raw[4], acks, raw[6], raw[7], raw[8], handoff, until),
        turn_only=turn_only,
    )
