"""Number Swap's rules: 150 cards, a 4x3 grid each, keep your total low over several rounds.

Every rule here is pinned by a test in ``tests/rules/numberswap`` and explained in
``docs/rules/numberswap.md``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from pydantic import Field

from rules.codec import array_header, pack
from rules.contract import (
    DEFAULT_BOT_LEVEL,
    Event,
    Game,
    GameOptions,
    Result,
    View,
    places_from_scores,
)
from rules.errors import IllegalAction, NotYourTurn, WrongPhase
from rules.evolve import replace
from rules.numberswap.actions import (
    Action,
    AnyAction,
    DiscardDrawn,
    Draw,
    FlipInitial,
    NextRound,
    PickFlips,
    SwapDrawn,
    TakeDiscard,
    UndoLast,
)
from rules.numberswap.cards import DECK, GRID_SIZE, ROWS, column_positions
from rules.numberswap.policy import choose
from rules.numberswap.state import (
    Grid,
    Phase,
    Pick,
    RoundSummary,
    State,
    Undo,
    is_ready,
    must_pick,
    picks_up,
    to_act,
)
from rules.rng import Rng

#: Platform ruling (move bound): a game still running after this many actions (opening flips
#: and undos included) ends, the lowest running total winning. Set for the highest target
#: (1,000), whose longest measured game took 5,614 actions (every seat's next_round counted); at
#: the usual 100 the longest took 670.
MOVE_BOUND = 25_000

#: (ours) Seconds the table waits at a round end for the people who have not pressed "Next
#: round" (see ``pause_limit``). Long enough to read every revealed grid, the doubling and the
#: totals of a full table of eight (the scores are a glance, the grids a few seconds each),
#: short enough that one friend who looked away does not hold up the rest for long: two thirds
#: of the 45 s turn timer, and twice the 15 s a disconnected player is given.
ROUND_END_PAUSE = 30.0


class NumberSwapOptions(GameOptions):
    target_score: int = Field(
        default=100,
        ge=10,
        le=1000,
        description="The game ends after a round in which a total reaches this",
    )
    by_text: bool = Field(
        default=False,
        description="Play by text: blind flips for later rounds (ruling 11)",
    )


def _deal(seats: int, rng: Rng) -> tuple[tuple[Grid, ...], tuple[int, ...], tuple[int, ...], Rng]:
    deck, rng = rng.shuffle(DECK)
    grids = tuple(
        Grid(cards=deck[s * GRID_SIZE : (s + 1) * GRID_SIZE], up=(False,) * GRID_SIZE)
        for s in range(seats)
    )
    rest = deck[seats * GRID_SIZE :]
    # R1: twelve cards face down each; the last card of the rest starts the discard pile face
    # up, the others form the draw pile.
    return grids, rest[:-1], rest[-1:], rng


def _set(grid: Grid, position: int, card: int | None, up: bool) -> Grid:
    cards = list(grid.cards)
    ups = list(grid.up)
    cards[position] = card
    ups[position] = up
    return Grid(cards=tuple(cards), up=tuple(ups))


def _clear_columns(grid: Grid) -> tuple[Grid, list[int], list[Event]]:
    """Clear every column of three equal face-up values; returns the cleared cards in order."""
    # R5: three equal face-up values clear their column at once; a face-down card blocks it.
    cleared: list[int] = []
    events: list[Event] = []
    for column in range(GRID_SIZE // ROWS):
        positions = column_positions(column)
        values = {grid.cards[p] for p in positions}
        if len(values) == 1 and None not in values and all(grid.up[p] for p in positions):
            value = grid.cards[positions[0]]
            assert value is not None
            cleared.extend([value] * ROWS)
            for p in positions:
                grid = _set(grid, p, None, True)
            events.append({"type": "column_cleared", "column": column, "value": value})
    return grid, cleared, events


#: A cleared slot on the wire (its column was cleared): ``false``, never a number.
CLEARED = False


def wire_cell(card: int | None, up: bool) -> int | bool | None:
    """One grid cell as views send it: the card's value if face up, ``None`` (nil) if face
    down, :data:`CLEARED` if its column was cleared."""
    if card is None:
        return CLEARED
    return card if up else None


# The legal actions of a position, made once per set of positions: each is a list of
# read-only dicts that every view and every seat with those positions shares (a view is
# encoded, never changed; legal_view copies the list, not the dicts).
_UNDO: dict[str, Any] = {"type": "undo"}


@functools.lru_cache(maxsize=4096)
def _pairs(down: tuple[int, ...]) -> tuple[dict[str, Any], ...]:
    return tuple({"type": "flip_initial", "positions": [a, b]} for a, b in combinations(down, 2))


@functools.lru_cache(maxsize=4096)
def _picks(down: tuple[int, ...]) -> tuple[dict[str, Any], ...]:
    return tuple({"type": "pick_flips", "positions": [a, b]} for a, b in combinations(down, 2))


#: R11: a blind pick names positions of a grid not dealt yet: any two of the twelve.
_BLIND_PICKS = _picks(tuple(range(GRID_SIZE)))


@functools.lru_cache(maxsize=4096)
def _turn_start(present: tuple[int, ...]) -> tuple[dict[str, Any], ...]:
    return (*({"type": "take_discard", "position": p} for p in present), {"type": "draw"})


@functools.lru_cache(maxsize=4096)
def _drawn(present: tuple[int, ...], down: tuple[int, ...]) -> tuple[dict[str, Any], ...]:
    return (
        *({"type": "swap_drawn", "position": p} for p in present),
        *({"type": "discard_drawn", "flip": p} for p in down),
    )


#: What is made of a grid for the record and the views, per grid object: ``id(grid) ->
#: (grid, dumped, packed dump, wire cells)``. Grids are immutable, and after a move all but one
#: of an 8-seat game's grids are the objects they were before; the entry holds its grid, so
#: the id is not another object's while it is here. Cleared when full.
_GRID_FORMS: dict[int, tuple[Grid, dict[str, Any], bytes, list[int | bool | None]]] = {}
_GRID_FORMS_MAX = 4096


def _grid_forms(grid: Grid) -> tuple[Grid, dict[str, Any], bytes, list[int | bool | None]]:
    forms = _GRID_FORMS.get(id(grid))
    if forms is not None and forms[0] is grid:
        return forms
    cards, up = grid.cards, grid.up
    dumped = {"cards": list(cards), "up": list(up)}
    # wire_cell, inlined.
    wire = [CLEARED if c is None else c if u else None for c, u in zip(cards, up, strict=True)]
    forms = (grid, dumped, pack(dumped), wire)
    if len(_GRID_FORMS) >= _GRID_FORMS_MAX:
        _GRID_FORMS.clear()
    _GRID_FORMS[id(grid)] = forms
    return forms


def _dump_grid(grid: Grid) -> dict[str, Any]:
    """A grid as dump_state gives it: a read-only dict shared by every dump of that grid."""
    return _grid_forms(grid)[1]


def wire_grid(grid: Grid) -> list[int | bool | None]:
    """The grid's twelve cells on the wire (see wire_cell): a list every view of the grid
    shares, read-only (96 cells after every move of an 8-seat game; most grids did not
    change since the last one)."""
    return _grid_forms(grid)[3]


def _state_head(state: State) -> dict[str, Any]:
    """The dump's keys before ``grids``."""
    return {
        "seats": state.seats,
        "target": state.target,
        "rng": {"state": state.rng.state},
        "round": state.round,
        "phase": state.phase.value,
    }


def _state_tail(state: State) -> dict[str, Any]:
    """The dump's keys after ``grids``."""
    summary, undo = state.last_round, state.undo
    tail = {
        "draw": list(state.draw),
        "discard": list(state.discard),
        "chosen": list(state.chosen),
        "current": state.current,
        "drawn": state.drawn,
        "ender": state.ender,
        "starter": state.starter,
        "totals": list(state.totals),
        "history": [list(h) for h in state.history],
        "last_round": None
        if summary is None
        else {
            "round": summary.round,
            "ender": summary.ender,
            "grids": [_dump_grid(g) for g in summary.grids],
            "raw_scores": list(summary.raw_scores),
            "scores": list(summary.scores),
            "doubled": summary.doubled,
        },
        "undo": None
        if undo is None
        else {"seat": undo.seat, "grid": _dump_grid(undo.grid), "discard": list(undo.discard)},
        "moves": state.moves,
        "ready": list(state.ready),
    }
    if state.by_text:
        # R11's fields, only in a game played by text (see State.by_text).
        tail["by_text"] = True
        tail["picks"] = [None if p is None else list(p) for p in state.picks]
    return tail


#: The dump's map header (its 19 keys: 5 in the head, grids, 13 in the tail; 21 with R11's two
#: when played by text), and the key "grids" packed.
_STATE_MAP = b"\xde\x00\x13"
_STATE_MAP_BY_TEXT = b"\xde\x00\x15"
_GRIDS_KEY = pack("grids")


def first_player(grids: tuple[Grid, ...]) -> int:
    """Round 1: highest pair of turned-up cards; then highest single card; then lowest seat."""
    # R3: who starts round 1 (later rounds, whoever ended the last one: see _flip_initial).

    def key(seat: int) -> tuple[int, int, int]:
        shown = [c for p, c in enumerate(grids[seat].cards) if grids[seat].up[p] and c is not None]
        return (sum(shown), max(shown, default=-99), -seat)

    return max(range(len(grids)), key=key)


class NumberSwap(Game[State, AnyAction]):
    id = "numberswap"
    name = "Number Swap"
    #: The last state to_act answered for, and its answer (see to_act).
    _last_to_act: tuple[State | None, frozenset[int]] = (None, frozenset())
    summary = (
        "Swap cards into your 4x3 grid to keep your total low; three of a kind in a column vanish."
    )
    min_seats = 2
    max_seats = 8
    options_model = NumberSwapOptions
    state_type = State
    action_type = Action
    move_bound = MOVE_BOUND
    #: R11: a turn-based room ("play by text") plays the blind flips of the rules text.
    turn_based_options = {"by_text": True}

    # -- setup ------------------------------------------------------------------------------

    def initial_state(self, seats: int, options: Any, seed: int) -> State:
        grids, draw, discard, rng = _deal(seats, Rng.from_seed(seed))
        return State(
            seats=seats,
            target=options.target_score,
            rng=rng,
            round=1,
            phase=Phase.CHOOSE,
            grids=grids,
            draw=draw,
            discard=discard,
            chosen=(False,) * seats,
            current=None,
            drawn=None,
            ender=None,
            starter=None,
            totals=(0,) * seats,
            history=(),
            last_round=None,
            undo=None,
            by_text=options.by_text,
            picks=(None,) * seats if options.by_text else (),
        )

    def seat_count(self, state: State) -> int:
        return state.seats

    # -- who acts, and what they may do -----------------------------------------------------

    def dump_state(self, state: State) -> dict[str, Any]:
        """The contract's dump, by hand: the server stores the state after every action, and
        this is a fraction of the generic dump's cost (the conformance tests hold the two
        equal, key order included). A grid's dict is shared with other dumps of the same
        grid: treat the dump as read-only below its top level."""
        dumped = _state_head(state)
        dumped["grids"] = [_dump_grid(g) for g in state.grids]
        dumped.update(_state_tail(state))
        return dumped

    def pack_state(self, state: State) -> bytes:
        # pack(dump_state(state)), with each grid's packed form made once (_grid_forms): the
        # keys before "grids" and those after are each packed as one map, without its header.
        head, tail = pack(_state_head(state)), pack(_state_tail(state))
        grids = state.grids
        return b"".join(
            (
                _STATE_MAP_BY_TEXT if state.by_text else _STATE_MAP,
                memoryview(head)[1:],
                _GRIDS_KEY,
                array_header(len(grids)),
                *[_grid_forms(g)[2] for g in grids],
                memoryview(tail)[1:],
            )
        )

    def to_act(self, state: State) -> frozenset[int]:
        # Asked several times of one state per move (the rules, the views, the turn timer):
        # the last answer is kept for the state it was for (states are immutable).
        last = self._last_to_act
        if last[0] is state:
            return last[1]
        seats = to_act(state)
        self._last_to_act = (state, seats)
        return seats

    def waiting_for(self, state: State) -> frozenset[int]:
        # R10: the last mover's open undo is optional: the game waits for the current seat only.
        if state.phase is Phase.TURN and state.current is not None:
            return frozenset((state.current,))
        return self.to_act(state)

    def waiting_reason(self, state: State, seat: int) -> str:
        if state.phase is Phase.ROUND_END:
            return "You are ready; waiting for the others to press Next round"
        if state.phase is Phase.CHOOSE:
            return "You have turned up your two cards; waiting for the others"
        if state.current is not None:
            return f"It is seat {state.current + 1}'s turn"
        return "It is not your turn"

    def legal_actions(self, state: State, seat: int) -> list[AnyAction]:
        return [self.parse_action(d) for d in self.legal_view(state, seat)]

    def legal_view(self, state: State, seat: int) -> list[dict[str, Any]]:
        # Built as plain dicts (views are on the hot path; the choose phase alone offers 66
        # pairs to every seat); legal_actions validates the same list into models.
        if seat not in self.to_act(state):
            return []
        if state.phase is Phase.ROUND_END:
            return [{"type": "next_round"}]
        grid = state.grids[seat]
        if state.phase is Phase.CHOOSE:
            return list(_pairs(grid.face_down()))
        undo = state.undo is not None and state.undo.seat == seat
        if seat != state.current:
            return [_UNDO] if undo else []
        if must_pick(state):
            # R11: the ender's opening pair (face-down cards of the new grid), or a last
            # turn's blind pick (any two positions: the grid they name is not dealt yet).
            picks = _picks(grid.face_down()) if picks_up(state) else _BLIND_PICKS
            return [_UNDO, *picks] if undo else list(picks)
        # R4: take the discard onto any grid card, or draw; then swap the drawn card in, or
        # discard it and turn up a face-down card.
        present = tuple(p for p, c in enumerate(grid.cards) if c is not None)
        moves = _turn_start(present) if state.drawn is None else _drawn(present, grid.face_down())
        return [_UNDO, *moves] if undo else list(moves)

    # -- applying actions -------------------------------------------------------------------

    def apply_action(self, state: State, seat: int, action: AnyAction) -> tuple[State, list[Event]]:
        state, events = self._apply(state, seat, action)
        state = replace(state, moves=state.moves + 1)
        if state.phase is Phase.OVER or state.moves < MOVE_BOUND:
            return state, events
        # Platform ruling (move bound): the game ends where it stands; the round in progress is
        # not scored, the running totals rank the players (see result).
        # R11: no round follows, so picks made in it are discarded, as after the final round.
        picks = (None,) * state.seats if state.by_text else ()
        state = replace(state, phase=Phase.OVER, current=None, undo=None, picks=picks)
        result = self.result(state)
        assert result is not None
        events.append(
            {"type": "game_over", "winners": list(result.winners), "move_bound": MOVE_BOUND}
        )
        return state, events

    def _apply(self, state: State, seat: int, action: AnyAction) -> tuple[State, list[Event]]:
        if state.phase is Phase.ROUND_END:
            if not isinstance(action, NextRound):
                # R10: nothing of the scored round can be taken back, undo included.
                raise WrongPhase("The round is over: press Next round when you are ready")
            return self._next_round(state, seat)
        if isinstance(action, NextRound):
            raise WrongPhase("Next round is only for when a round has ended")
        if isinstance(action, UndoLast):
            return self._undo(state, seat)
        if state.phase is Phase.CHOOSE:
            if not isinstance(action, FlipInitial):
                raise WrongPhase("Everyone first turns up two cards of their choice")
            return self._flip_initial(state, seat, action)
        if seat != state.current:
            raise NotYourTurn(f"{self.waiting_reason(state, seat)}; you may only undo")
        if isinstance(action, FlipInitial):
            raise WrongPhase("The two opening cards are turned up only at the start of a round")
        if must_pick(state):
            if not isinstance(action, PickFlips):
                raise WrongPhase(
                    "First pick your two cards to turn up"
                    if picks_up(state)
                    else "Your last turn of the round starts with picking the two cards "
                    "you'll turn up next round"
                )
            return self._pick_flips(state, seat, action.positions)
        if isinstance(action, PickFlips):
            raise WrongPhase(
                "You pick next round's two cards at the start of your last turn of a round"
                if state.by_text
                else "Picking next round's cards is only for games played by text"
            )
        if state.drawn is None:
            if isinstance(action, TakeDiscard):
                return self._take_discard(state, seat, action.position)
            if isinstance(action, Draw):
                return self._draw(state, seat)
            raise WrongPhase("Draw a card first, or take the top discard")
        if isinstance(action, SwapDrawn):
            return self._swap_drawn(state, seat, action.position)
        if isinstance(action, DiscardDrawn):
            return self._discard_drawn(state, seat, action.flip)
        raise WrongPhase(
            "You have drawn a card: swap it into your grid, or discard it and turn one up"
        )

    def _flip_initial(
        self, state: State, seat: int, action: FlipInitial
    ) -> tuple[State, list[Event]]:
        grid = state.grids[seat]
        for p in action.positions:
            if grid.cards[p] is None or grid.up[p]:
                raise IllegalAction("Choose two face-down cards")
        for p in action.positions:
            grid = _set(grid, p, grid.cards[p], True)
        chosen = _replace_at(state.chosen, seat, True)
        state = replace(state, grids=_replace_at(state.grids, seat, grid), chosen=chosen)
        events: list[Event] = [
            {
                "type": "flipped_initial",
                "seat": seat,
                "positions": list(action.positions),
                "cards": [grid.cards[p] for p in action.positions],
            }
        ]
        # R2: no turn starts until every seat has chosen; R3: who starts.
        if all(chosen):
            starter = state.starter if state.starter is not None else first_player(state.grids)
            state = replace(state, phase=Phase.TURN, current=starter)
            events.append({"type": "turn", "seat": starter})
        return state, events

    def _pick_flips(self, state: State, seat: int, positions: Pick) -> tuple[State, list[Event]]:
        events: list[Event] = [{"type": "picked", "seat": seat, "positions": list(positions)}]
        if not picks_up(state):
            # R11: a last turn's pick is blind, positions only (the cards are not dealt yet),
            # and reveals nothing: R10 lets it be undone, and undoing the action after it
            # undoes it too (see _undo). It closes another seat's open undo, as any action.
            undo = Undo(seat=seat, grid=state.grids[seat], discard=state.discard)
            picks = _replace_at(state.picks, seat, positions)
            return replace(state, picks=picks, undo=undo), events
        # R11: the last round's ender picks first thing in the new round: the cards turn up
        # now, like the opening flips (so the pick reveals, and R10 keeps it).
        for p in positions:
            if state.grids[seat].cards[p] is None or state.grids[seat].up[p]:
                raise IllegalAction("Choose two face-down cards")
        grid, shown = _turn_up(state.grids[seat], seat, positions)
        state = replace(
            state,
            grids=_replace_at(state.grids, seat, grid),
            chosen=_replace_at(state.chosen, seat, True),
            undo=None,
        )
        return state, [*events, shown]

    def _take_discard(self, state: State, seat: int, position: int) -> tuple[State, list[Event]]:
        grid = state.grids[seat]
        old = grid.cards[position]
        if old is None:
            raise IllegalAction("That column has been cleared; choose a card in your grid")
        was_up = grid.up[position]
        taken = state.discard[-1]
        undo = Undo(seat=seat, grid=grid, discard=state.discard)
        state = replace(state, discard=state.discard[:-1])
        state, events = self._place(state, seat, position, taken)
        events.insert(
            0, {"type": "took_discard", "seat": seat, "position": position, "card": taken}
        )
        state, more = self._end_turn(state, seat)
        # R10: undo is possible only if nothing hidden came out: the replaced card was face up
        # and the turn did not end the round (whose reveal shows every card).
        if was_up and not any(e["type"] == "round_ended" for e in more):
            state = replace(state, undo=undo)
        return state, events + more

    def _draw(self, state: State, seat: int) -> tuple[State, list[Event]]:
        events: list[Event] = []
        draw, discard, rng = state.draw, state.discard, state.rng
        if not draw:
            # R9: everything but the top discard is shuffled into a new draw pile.
            draw, rng = rng.shuffle(discard[:-1])
            discard = discard[-1:]
            events.append({"type": "reshuffled", "draw_size": len(draw)})
        card = draw[-1]
        # R4: the drawn card is shown to everyone (R10: so a draw can never be undone).
        state = replace(state, draw=draw[:-1], discard=discard, rng=rng, drawn=card, undo=None)
        events.append({"type": "drew", "seat": seat, "card": card})
        return state, events

    def _swap_drawn(self, state: State, seat: int, position: int) -> tuple[State, list[Event]]:
        if state.grids[seat].cards[position] is None:
            raise IllegalAction("That column has been cleared; choose a card in your grid")
        card = state.drawn
        assert card is not None
        state, events = self._place(replace(state, drawn=None), seat, position, card)
        events.insert(
            0, {"type": "swapped_drawn", "seat": seat, "position": position, "card": card}
        )
        state, more = self._end_turn(state, seat)
        return state, events + more

    def _discard_drawn(self, state: State, seat: int, flip: int) -> tuple[State, list[Event]]:
        grid = state.grids[seat]
        if grid.cards[flip] is None or grid.up[flip]:
            raise IllegalAction("Turn up one of your face-down cards")
        card = state.drawn
        assert card is not None
        turned = grid.cards[flip]
        grid, cleared, cleared_events = _clear_columns(_set(grid, flip, turned, True))
        # R5: the thrown card goes down first, a column it let clear on top of it.
        state = replace(
            state,
            drawn=None,
            grids=_replace_at(state.grids, seat, grid),
            discard=(*state.discard, card, *cleared),
        )
        events: list[Event] = [
            {"type": "discarded_drawn", "seat": seat, "card": card},
            {"type": "turned_up", "seat": seat, "position": flip, "card": turned},
        ]
        events.extend({**e, "seat": seat} for e in cleared_events)
        state, more = self._end_turn(state, seat)
        return state, events + more

    def _place(
        self, state: State, seat: int, position: int, card: int
    ) -> tuple[State, list[Event]]:
        """Put ``card`` face up at ``position``; the old card goes face up onto the discard."""
        grid = state.grids[seat]
        old = grid.cards[position]
        assert old is not None
        grid, cleared, cleared_events = _clear_columns(_set(grid, position, card, True))
        # R4: the swapped-out card goes face up onto the discard pile; R5: first, then a
        # column the swap cleared on top of it.
        state = replace(
            state,
            grids=_replace_at(state.grids, seat, grid),
            discard=(*state.discard, old, *cleared),
        )
        events: list[Event] = [
            {"type": "discarded", "seat": seat, "card": old, "position": position}
        ]
        events.extend({**e, "seat": seat} for e in cleared_events)
        return state, events

    def _end_turn(self, state: State, seat: int) -> tuple[State, list[Event]]:
        events: list[Event] = []
        ender = state.ender
        # R6: ending a turn with no face-down card ends the round; every other seat then gets
        # exactly one more turn.
        if ender is None and state.grids[seat].face_down_count() == 0:
            ender = seat
            events.append({"type": "last_turns", "ender": seat})
        following = (seat + 1) % state.seats
        if ender is not None and following == ender:
            return self._end_round(replace(state, ender=ender, undo=None), events)
        state = replace(state, ender=ender, undo=None, current=following)
        events.append({"type": "turn", "seat": following})
        return state, events

    def _end_round(self, state: State, events: list[Event]) -> tuple[State, list[Event]]:
        ender = state.ender
        assert ender is not None
        grids = []
        discard = list(state.discard)
        # R6: every card is turned up (R5: columns clear) and the grid totals are the scores.
        for grid in state.grids:
            revealed = Grid(cards=grid.cards, up=(True,) * GRID_SIZE)
            revealed, cleared, _ = _clear_columns(revealed)
            discard.extend(cleared)
            grids.append(revealed)
        raw = tuple(g.total() for g in grids)
        # R7: the ender must be strictly lowest; otherwise a round score above 0 is doubled.
        lowest_alone = all(raw[ender] < raw[s] for s in range(state.seats) if s != ender)
        doubled = not lowest_alone and raw[ender] > 0
        scores = tuple(2 * r if s == ender and doubled else r for s, r in enumerate(raw))
        totals = tuple(t + s for t, s in zip(state.totals, scores, strict=True))
        summary = RoundSummary(
            round=state.round,
            ender=ender,
            grids=tuple(grids),
            raw_scores=raw,
            scores=scores,
            doubled=doubled,
        )
        events.append(
            {
                "type": "round_ended",
                "round": state.round,
                "ender": ender,
                "scores": list(scores),
                "doubled": doubled,
                "totals": list(totals),
            }
        )
        state = replace(
            state,
            grids=tuple(grids),
            discard=tuple(discard),
            totals=totals,
            history=(*state.history, scores),
            last_round=summary,
            current=None,
            undo=None,
        )
        # R8: the game ends after the round in which any total reaches the target.
        if max(totals) >= state.target:
            # R11: picks made in the final round are discarded: no round follows.
            picks = (None,) * state.seats if state.by_text else ()
            state = replace(state, phase=Phase.OVER, picks=picks)
            result = self.result(state)
            assert result is not None
            events.append({"type": "game_over", "winners": list(result.winners)})
            return state, events
        if state.by_text:
            return self._deal_by_text(state, events)
        # (ours) The scored round stays on the table, every grid revealed, until every seat
        # has said it is ready (see _next_round).
        state = replace(state, phase=Phase.ROUND_END, ready=(False,) * state.seats)
        return state, events

    def _deal_by_text(self, state: State, events: list[Event]) -> tuple[State, list[Event]]:
        """R11: nobody waits between rounds: the next round is dealt at once, each seat's
        picked pair turned up as it is, and its ender moves first (and picks first)."""
        ender = state.ender
        assert ender is not None
        # The same draw on the rng as _next_round's, straight after the scoring.
        grids, draw, discard, rng = _deal(state.seats, state.rng)
        round_ = state.round + 1
        events.append({"type": "round_started", "round": round_})
        dealt = list(grids)
        for seat, pick in enumerate(state.picks):
            if pick is not None:
                dealt[seat], shown = _turn_up(dealt[seat], seat, pick)
                events.append(shown)
        state = replace(
            state,
            rng=rng,
            round=round_,
            phase=Phase.TURN,
            grids=tuple(dealt),
            draw=draw,
            discard=discard,
            chosen=tuple(p is not None for p in state.picks),
            # R3: whoever ended the round starts the next.
            current=ender,
            drawn=None,
            ender=None,
            starter=ender,
            picks=(None,) * state.seats,
        )
        events.append({"type": "turn", "seat": ender})
        return state, events

    def _next_round(self, state: State, seat: int) -> tuple[State, list[Event]]:
        ready = _replace_at(state.ready, seat, True)
        events: list[Event] = [{"type": "ready", "seat": seat}]
        if not all(ready):
            return replace(state, ready=ready), events
        ender = state.ender
        assert ender is not None
        # The deal draws on the state's rng exactly as it did straight after the scoring:
        # nothing in between uses it, so a seed and its moves deal the same rounds.
        grids, draw, discard, rng = _deal(state.seats, state.rng)
        state = replace(
            state,
            rng=rng,
            round=state.round + 1,
            phase=Phase.CHOOSE,
            grids=grids,
            draw=draw,
            discard=discard,
            chosen=(False,) * state.seats,
            drawn=None,
            ender=None,
            # R3: whoever ended this round starts the next.
            starter=ender,
            ready=(),
        )
        events.append({"type": "round_started", "round": state.round})
        return state, events

    def _undo(self, state: State, seat: int) -> tuple[State, list[Event]]:
        # R10: only your own last action, while nobody else has acted since (see _take_discard).
        undo = state.undo
        if undo is None or undo.seat != seat:
            raise IllegalAction(
                "You can only undo your own last action, before anyone else acts, "
                "and only if it revealed nothing hidden"
            )
        picks = state.picks
        if state.by_text and state.ender is not None:
            # R11: an undo on a last turn takes its blind pick back too (the pick, or the
            # action after it): the seat is back to picking.
            picks = _replace_at(picks, seat, None)
        state = replace(
            state,
            grids=_replace_at(state.grids, seat, undo.grid),
            discard=undo.discard,
            current=seat,
            undo=None,
            picks=picks,
        )
        return state, [{"type": "undone", "seat": seat}]

    # -- views and results ------------------------------------------------------------------

    def seat_view(self, state: State, seat: int | None) -> View:
        # R4: nothing in Number Swap is known to one seat only (a face-down card is hidden from
        # its owner too), so every seat sees the same body; only ``legal`` differs.
        return self.seat_views(state, [seat])[0]

    def seat_views(self, state: State, seats: Sequence[int | None]) -> list[View]:
        body = self.shared_body(state)
        return [dict(body) for _ in seats]

    def shared_body(self, state: State) -> View:
        # Every seat sees the same (a face-down card is hidden from its owner too), so the
        # body is made once. The compact wire form (docs/rules/numberswap.md, "The view on the
        # wire"): one list per fact with an entry per seat, each grid twelve cells (see
        # wire_cell); what a client can work out (face-down counts, face-up sums, whether the
        # last turns are on) is left to it.
        last = state.last_round
        # By text (R11) the last round stays in the view through the next one: there is no
        # round end to show it at, and a friend may open the game a day later.
        scored = state.by_text or state.phase in (Phase.ROUND_END, Phase.OVER)
        body: View = {
            "phase": state.phase.value,
            "round": state.round,
            "target": state.target,
            "current": state.current,
            "grids": [wire_grid(g) for g in state.grids],
            "chosen": list(state.chosen),
            "totals": list(state.totals),
            "discard_top": state.discard[-1] if state.discard else None,
            "discard_size": len(state.discard),
            "draw_size": len(state.draw),
            "drawn": state.drawn,
            "ender": state.ender,
            "undo_by": None if state.undo is None else state.undo.seat,
            "ready": [is_ready(state, s) for s in range(state.seats)],
            "history": [list(r) for r in state.history],
            # Only while it is on the table: at the round end and once the game is over.
            "last_round": None
            if last is None or not scored
            else {
                "round": last.round,
                "ender": last.ender,
                "grids": [wire_grid(g) for g in last.grids],
                "raw_scores": list(last.raw_scores),
                "scores": list(last.scores),
                "doubled": last.doubled,
            },
        }
        if state.by_text:
            # R11: per seat, the two positions it picked for the next round (public: they
            # name cards not dealt yet), or null.
            body["picks"] = [None if p is None else list(p) for p in state.picks]
        return body

    def open_body(self, state: State) -> View:
        # The open view (docs/rules/numberswap.md, "The open view"): the spectator's body, whose
        # ``grids`` still say which cells are face down (``null``), plus what those hide: per
        # seat, the values of its face-down cards in position order (the i-th fills the i-th
        # ``null`` cell). Nothing else in Number Swap is hidden from a spectator but the order
        # of the draw pile, which nobody holds or sees.
        body = self.seat_views(state, [None])[0]
        body["down_cards"] = [[grid.cards[p] for p in grid.face_down()] for grid in state.grids]
        return body

    def result(self, state: State) -> Result | None:
        if state.phase is not Phase.OVER:
            return None
        # R8: the lowest total wins; equal lowest totals share the win.
        best = min(state.totals)
        winners = tuple(s for s, t in enumerate(state.totals) if t == best)
        places = places_from_scores(state.totals, lower_is_better=True)
        if max(state.totals) >= state.target:
            return Result(winners, places, state.totals, f"A total reached {state.target}")
        # Platform ruling (move bound): over with every total below the target, so the bound
        # ended it; the same ranking, by the totals of the rounds played to the end.
        reason = f"The move bound of {MOVE_BOUND:,} moves was reached: lowest total wins"
        return Result(winners, places, state.totals, reason, move_bound=MOVE_BOUND)

    def bot_action(
        self, state: State, seat: int, rng: Rng, level: str = DEFAULT_BOT_LEVEL
    ) -> AnyAction | None:
        return choose(state, seat, rng, level)

    def pause_limit(self, state: State) -> float | None:
        # (ours) The round end waits for the people at the table, but not for ever.
        return ROUND_END_PAUSE if state.phase is Phase.ROUND_END else None


def _turn_up(grid: Grid, seat: int, positions: Pick) -> tuple[Grid, Event]:
    """A seat's picked pair turned up (R11), and the public event saying which cards they are.

    Two cards cannot make a column of three, so no column clears (R5) on a fresh grid."""
    for p in positions:
        grid = _set(grid, p, grid.cards[p], True)
    return grid, {
        "type": "flipped_picked",
        "seat": seat,
        "positions": list(positions),
        "cards": [grid.cards[p] for p in positions],
    }


def _replace_at(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])
