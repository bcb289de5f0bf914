"""The contract every game implements, and the common checks every game gets for free.

A game is metadata + state + legal actions + apply + per-seat view (the OpenSpiel /
boardgame.io shape). States are immutable and carry their own seeded RNG, so a game replays
from ``(seed, actions)``. Seats are numbered from 0.

What the server relies on:

* ``initial_state(seats, options, seed)`` — a fresh game.
* ``to_act(state)`` — the seats that may act now (a set: some phases are simultaneous); empty
  once the game is over.
* ``legal_actions(state, seat)`` — every action that seat may take now (empty when it may not act).
* ``apply(state, seat, action) -> (state, events)`` — never mutates its input; raises a
  :class:`~rules.errors.RulesError` subclass on anything the rules refuse.
* ``view(state, seat | None)`` — the only way state leaves the rules layer, redacted for that
  seat (``None`` = spectator). Wire-clean (see :mod:`rules.codec`). Always carries the common
  keys ``game``, ``seat``, ``to_act``, ``legal``, ``over`` and ``result``. ``views(state,
  seats)`` renders several at once (what the server does after every change).
* ``open_view(state)`` — the view with nothing hidden (a replay's "everything revealed"): the
  spectator view's common keys and compact form, with every card some seat holds or that lies
  face down filled in, and ``"open": True``. Never sent to a seat of a running game.
* ``pause_limit(state)`` — seconds after which the current phase (a pause: a round end shown
  until everyone says "next") ends by itself; ``None`` for ordinary phases.
* ``result(state)`` — ``None`` while the game runs, a :class:`Result` once it is over. Every
  game is over after at most ``move_bound`` actions (the platform's move bound).
* ``dump_state`` / ``load_state`` — lossless conversion to and from wire-clean data.
* ``parse_action`` / ``dump_action`` — actions are pydantic models in a tagged union on ``type``.

Events are public by contract: they never carry the identity of a card hidden from anyone.
Whatever is private travels only in views.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from rules.codec import pack
from rules.errors import (
    GameOver,
    InvalidAction,
    InvalidOptions,
    InvalidSeatCount,
    NotYourTurn,
    RulesError,
)
from rules.rng import Rng

S = TypeVar("S")
A = TypeVar("A", bound=BaseModel)

Event = dict[str, Any]
View = dict[str, Any]


class ActionModel(BaseModel):
    """Base of every action: frozen, no unknown fields; subclasses set ``type: Literal[...]``."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=False)


class GameOptions(BaseModel):
    """Base of every game's options model; every field has a default."""

    model_config = ConfigDict(frozen=True, extra="forbid")


#: The levels a host may give each bot (each game's rules page says what they mean): ``easy``
#: is meant to be beatable by a new player; ``normal`` is what a bot seat gets unless the host
#: says otherwise, and what plays for an absent player.
BOT_LEVELS = ("easy", "normal", "strong")
DEFAULT_BOT_LEVEL = "normal"


_PLAIN: frozenset[type] = frozenset((int, str, bool, type(None)))
#: Per action model: are its fields dumped as they are (see :meth:`Game.dump_action`).
_FLAT_ACTIONS: dict[type, bool] = {}


def _is_flat(model: type[BaseModel]) -> bool:
    """Whether ``model_dump(mode="json")`` of the model is its fields as they are, for plain
    values: no aliases, exclusions, computed fields, serializers or extra fields."""
    decorators = model.__pydantic_decorators__
    return (
        not model.__pydantic_computed_fields__
        and not decorators.field_serializers
        and not decorators.model_serializers
        and model.model_config.get("extra") == "forbid"
        and all(
            f.alias is None and f.serialization_alias is None and not f.exclude
            for f in model.model_fields.values()
        )
    )


@dataclass(frozen=True, slots=True)
class Result:
    """How a finished game ended.

    ``places[seat]`` is 1 for the winners; tied seats share a place. ``scores`` are in the game's
    own terms (points, cards left, ...). ``reason`` says in words how the game ended.

    ``move_bound`` is set when the game's move bound ended it (see :attr:`Game.move_bound`): the
    places are then the game's standings at that moment. On the wire the key is present only
    then, so the result of a game that its own rules ended is unchanged.
    """

    winners: tuple[int, ...]
    places: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str
    move_bound: int | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "winners": list(self.winners),
            "places": list(self.places),
            "scores": list(self.scores),
            "reason": self.reason,
        }
        if self.move_bound is not None:
            wire["move_bound"] = self.move_bound
        return wire


def places_from_scores(scores: Sequence[int], *, lower_is_better: bool) -> tuple[int, ...]:
    """Competition ranking (1, 1, 3, ...) from per-seat scores."""
    keyed = [s if lower_is_better else -s for s in scores]
    return tuple(1 + sum(1 for other in keyed if other < mine) for mine in keyed)


def readable(error: ValidationError, subject: str = "action") -> str:
    """The first few problems of a validation error, in one line a person can read."""
    parts = []
    for item in error.errors()[:3]:
        where = ".".join(str(p) for p in item["loc"]) or subject
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


class Game(ABC, Generic[S, A]):
    """Base class of a game. Subclasses set the class attributes and implement the hooks."""

    id: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    #: The pydantic model of the game's options (every field has a default).
    options_model: ClassVar[type[GameOptions]]
    #: The (frozen dataclass) type of the game's state.
    state_type: ClassVar[type[Any]]
    #: The tagged union of the game's action models:
    #: ``Annotated[A1 | A2 | ..., Field(discriminator="type")]``.
    action_type: ClassVar[Any]
    #: Platform ruling (move bound): the number of applied actions after which a game that is
    #: still running ends, ranked by the game's own standings, with ``Result.move_bound`` set.
    #: Far above any real game (``docs/benchmarks.md``); the state counts the actions.
    move_bound: ClassVar[int]
    #: The options a turn-based room ("play by text", docs/protocol.md) plays the game with,
    #: over whatever its creator chose: how the game's rules text says to play when turns
    #: travel as a link (Number Swap's blind flips, ruling 11). Empty: the game plays the same
    #: either way.
    turn_based_options: ClassVar[Mapping[str, Any]] = {}

    def __init__(self) -> None:
        self._action_adapter: TypeAdapter[A] = TypeAdapter(self.action_type)
        self._state_adapter: TypeAdapter[S] = TypeAdapter(self.state_type)

    # -- metadata -------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        """Wire-clean metadata for menus: id, name, summary, seat range, options schema."""
        return {
            "id": self.id,
            "name": self.name,
            "summary": self.summary,
            "min_seats": self.min_seats,
            "max_seats": self.max_seats,
            "options": self.options_model.model_json_schema(),
            "default_options": self.options_model().model_dump(mode="json"),
            "turn_based_options": dict(self.turn_based_options),
        }

    def parse_options(self, data: Mapping[str, Any] | GameOptions | None) -> GameOptions:
        if isinstance(data, self.options_model):
            return data
        try:
            return self.options_model.model_validate(dict(data or {}))
        except ValidationError as exc:
            raise InvalidOptions(
                f"Invalid options for {self.name}: {readable(exc, 'options')}"
            ) from None
        except (TypeError, ValueError):
            raise InvalidOptions(f"Options for {self.name} must be an object") from None

    def check_seat_count(self, seats: int) -> None:
        if not self.min_seats <= seats <= self.max_seats:
            raise InvalidSeatCount(
                f"{self.name} is for {self.min_seats} to {self.max_seats} players, not {seats}"
            )

    # -- actions --------------------------------------------------------------------------

    def parse_action(self, data: Any) -> A:
        """Validate raw data from the network into an action model, or raise InvalidAction."""
        if isinstance(data, BaseModel):
            data = data.model_dump()
        if not isinstance(data, Mapping):
            raise InvalidAction("An action must be an object with a 'type' field")
        try:
            return self._action_adapter.validate_python(data)
        except ValidationError as exc:
            raise InvalidAction(f"Malformed action: {readable(exc)}") from None

    @staticmethod
    def dump_action(action: BaseModel) -> dict[str, Any]:
        """``action.model_dump(mode="json")``; for an action of plain fields (ints, strings,
        booleans, None, and lists or tuples of them) its fields are copied as they are, which
        is the same dict at a fraction of the cost (the server dumps every action it applies;
        the conformance tests hold the two equal for every legal action)."""
        kind = type(action)
        flat = _FLAT_ACTIONS.get(kind)
        if flat is None:
            flat = _FLAT_ACTIONS[kind] = _is_flat(kind)
        if flat:
            dumped = dict(action.__dict__)
            for key, value in dumped.items():
                kind_of = type(value)
                if kind_of in _PLAIN:
                    continue
                if kind_of in (list, tuple) and all(type(v) in _PLAIN for v in value):
                    dumped[key] = list(value)
                    continue
                break
            else:
                return dumped
        full: dict[str, Any] = action.model_dump(mode="json")
        return full

    # -- state ----------------------------------------------------------------------------

    def new_game(self, seats: int, options: Mapping[str, Any] | GameOptions | None, seed: int) -> S:
        """Checked entry point: validates seat count and options, then ``initial_state``."""
        self.check_seat_count(seats)
        return self.initial_state(seats, self.parse_options(options), seed)

    def dump_state(self, state: S) -> Any:
        return self._state_adapter.dump_python(state, mode="json")

    def pack_state(self, state: S) -> bytes:
        """``pack(dump_state(state))``, byte for byte: the room record's form of the state,
        made after every change. A game may make it faster (Number Swap keeps each grid's
        packed form); the conformance tests hold it equal to the packed dump."""
        return pack(self.dump_state(state))

    def load_state(self, data: Any) -> S:
        return self._state_adapter.validate_python(data)

    def apply(self, state: S, seat: int, action: A | Mapping[str, Any]) -> tuple[S, list[Event]]:
        """Apply one action for ``seat``; the common checks run before the game's own."""
        parsed = action if isinstance(action, BaseModel) else self.parse_action(action)
        if self.result(state) is not None:
            raise GameOver("The game is over")
        seats = self.seat_count(state)
        # A bool is an int to Python, but never a seat (as in :meth:`_check_viewer`).
        if isinstance(seat, bool) or not (isinstance(seat, int) and 0 <= seat < seats):
            raise NotYourTurn(f"There is no seat {seat} in this game")
        if seat not in self.to_act(state):
            raise NotYourTurn(self.waiting_reason(state, seat))
        return self.apply_action(state, seat, parsed)

    def view(self, state: S, seat: int | None) -> View:
        """The state as ``seat`` may see it (``None`` = spectator), with the common keys.

        A seat outside the game is a programming error, not a move the rules refuse: it raises
        ``ValueError``.
        """
        self._check_viewer(state, seat)
        body = self.seat_view(state, seat)
        return self._complete(state, seat, body, self.to_act(state), self.result(state))

    def views(self, state: S, seats: Sequence[int | None]) -> list[View]:
        """Every listed seat's view at once: the server's fan-out after each change.

        Equal to ``[view(state, s) for s in seats]``; games whose views share most of their
        content override :meth:`seat_views` to build the shared part once. The returned views
        may share sub-objects, so treat them as read-only.
        """
        shared, owns = self.view_parts(state, seats)
        if not shared:
            return owns
        return [{**shared, **own} for own in owns]

    def view_parts(self, state: S, seats: Sequence[int | None]) -> tuple[View, list[View]]:
        """:meth:`views` in two parts: what every listed seat's view holds alike, and each
        seat's own keys, so that ``views(state, seats)[i] == {**shared, **owns[i]}`` (the
        shared keys first, no key in both). A game whose view body is the same for every seat
        (:meth:`shared_body`) shares it with the common keys, and a seat's own part is then
        its ``seat`` and ``legal``; otherwise nothing is shared (``{}``) and each part is the
        whole view. The server packs the shared part once per fan-out (server/wire.py)."""
        for seat in seats:
            self._check_viewer(state, seat)
        to_act, result = self.to_act(state), self.result(state)
        # One list and one result, the same objects in every view.
        listed = sorted(to_act)
        wired = None if result is None else result.to_wire()
        body = self.shared_body(state)
        if body is None:
            bodies = self.seat_views(state, seats)
            return {}, [
                self._complete(state, s, b, to_act, result, listed, wired)
                for s, b in zip(seats, bodies, strict=True)
            ]
        shared = {**body, **self._shared_keys(listed, result, wired)}
        return shared, [self._own_keys(state, s, to_act) for s in seats]

    def shared_body(self, state: S) -> View | None:
        """The game-specific part of the view when it is the same for every seat and for a
        spectator (nothing in it is hidden from anyone, or hidden from all alike); None, the
        default, when seats see different things (:meth:`seat_views`)."""
        return None

    def open_view(self, state: S) -> View:
        """The view with nothing hidden: what a replay shows with everything revealed.

        The spectator's common keys (``seat`` None, ``legal`` empty) and the game's compact
        wire form of ``view(state, None)``, with every hidden card filled in as the game's rules
        page documents ("The open view"), plus ``"open": True``. Wire-clean. It shows what
        every seat hides, so it is for finished games (or trusted tools), never for a seat.
        """
        body = self.open_body(state)
        view = self._complete(state, None, body, self.to_act(state), self.result(state))
        view["open"] = True
        return view

    def _check_viewer(self, state: S, seat: int | None) -> None:
        if seat is None:
            return
        seats = self.seat_count(state)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
            raise ValueError(
                f"No seat {seat!r} to view: this {self.name} game has seats 0 to {seats - 1}"
            )

    def seat_views(self, state: S, seats: Sequence[int | None]) -> list[View]:
        return [self.seat_view(state, s) for s in seats]

    def _complete(
        self,
        state: S,
        seat: int | None,
        body: View,
        to_act: frozenset[int],
        result: Result | None,
        listed: list[int] | None = None,
        wired: dict[str, Any] | None = None,
    ) -> View:
        # The keys every seat's view shares come first and the seat's own last (the order
        # view_parts gives).
        if result is not None and wired is None:
            wired = result.to_wire()
        body.update(self._shared_keys(sorted(to_act) if listed is None else listed, result, wired))
        body.update(self._own_keys(state, seat, to_act))
        return body

    def _shared_keys(
        self, listed: list[int], result: Result | None, wired: dict[str, Any] | None
    ) -> View:
        """The common keys every seat's view holds alike."""
        return {"game": self.id, "to_act": listed, "over": result is not None, "result": wired}

    def _own_keys(self, state: S, seat: int | None, to_act: frozenset[int]) -> View:
        """The common keys that are the seat's own."""
        legal = self.legal_view(state, seat) if seat is not None and seat in to_act else []
        return {"seat": seat, "legal": legal}

    def waiting_reason(self, state: S, seat: int) -> str:
        """Why ``seat`` may not act now, in words (games may be more specific)."""
        return "It is not your turn"

    def legal_view(self, state: S, seat: int) -> list[Any]:
        """How a seat's legal actions appear in its view. Default: every action, dumped."""
        return [self.dump_action(a) for a in self.legal_actions(state, seat)]

    def bot_action(self, state: S, seat: int, rng: Rng, level: str = DEFAULT_BOT_LEVEL) -> A | None:
        """A bot's move at ``level`` (one of :data:`BOT_LEVELS`). Default: a uniformly random
        legal action whatever the level; games override.

        ``None`` means the seat chooses to wait: only allowed when everything open to it is
        optional (Number Swap's undo, for instance) and someone else can act.
        """
        actions = self.legal_actions(state, seat)
        if not actions:
            raise RulesError("This seat has nothing to do")
        choice, _ = rng.choice(actions)
        return choice

    def pause_limit(self, state: S) -> float | None:
        """Seconds after which the phase ``state`` is in ends by itself, or None (the default).

        A pause is a phase that only asks the seats to act to say they are done looking (Number
        Swap's round end: "Next round"). The server gives the people to act this long, whether
        or not the room has a turn timer, and then plays ``bot_action`` for those who did not
        act, without counting it against them (they were not away, just reading).
        """
        return None

    # -- hooks each game implements ---------------------------------------------------------

    @abstractmethod
    def initial_state(self, seats: int, options: Any, seed: int) -> S: ...

    @abstractmethod
    def seat_count(self, state: S) -> int: ...

    @abstractmethod
    def to_act(self, state: S) -> frozenset[int]: ...

    def waiting_for(self, state: S) -> frozenset[int]:
        """The seats of ``to_act`` the game waits for: whose move it needs to go on. Every one
        of them, unless a seat *may* act without being waited for (Number Swap's undo, open to
        the last mover until the next one acts). It is whose turn a turn timer runs for, whom
        a bot stands in for, and "your turn" in a player's list of games."""
        return self.to_act(state)

    @abstractmethod
    def legal_actions(self, state: S, seat: int) -> list[A]: ...

    @abstractmethod
    def apply_action(self, state: S, seat: int, action: A) -> tuple[S, list[Event]]:
        """The game's own rules; the seat is known to be in ``to_act`` and the game running."""

    @abstractmethod
    def seat_view(self, state: S, seat: int | None) -> View:
        """Game-specific part of the view (the common keys are added by :meth:`view`)."""

    def open_body(self, state: S) -> View:
        """Game-specific part of :meth:`open_view`: the spectator's body with every hidden card
        filled in (the common keys and ``open`` are added by :meth:`open_view`).

        Every game implements it; this default only says so.
        """
        raise NotImplementedError(
            f"{type(self).__name__} ({self.id}) has no open view: every game implements "
            "open_body, the spectator's view with every hidden card filled in"
        )

    @abstractmethod
    def result(self, state: S) -> Result | None: ...
