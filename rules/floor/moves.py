"""Floor's rules in motion: check one action on its own and compute the next state.

Every refusal is an :class:`~rules.errors.IllegalAction` (or :class:`~rules.errors.WrongPhase`)
whose message tells the player what the rule is. Nothing here searches the list of legal
actions (only a pass asks whether anything else is open, which is its rule);
:mod:`rules.floor.options` and this module are kept in step by the property tests.
"""

from __future__ import annotations

from collections.abc import Iterable

from rules.contract import Event
from rules.errors import IllegalAction, WrongPhase
from rules.evolve import replace
from rules.floor.actions import (
    AnyAction,
    BurnSwap,
    DiscardOperations,
    Draw,
    Grab,
    LetStand,
    Pass,
    PlayFreeze,
    PlayNumbers,
    PlayOperation,
    PlayPower,
    PlaySwap,
    PlayTake,
    ReverseBack,
)
from rules.floor.cards import CARDS, Kind, Shape, operate
from rules.floor.options import forced, grabbable, options, shapes_of
from rules.floor.state import Phase, State, drawable, next_seat, replace_at, with_cards
from rules.floor.table import (
    after_swap,
    count_move,
    lay_down,
    numbers_on_top,
    pass_turn,
    settle,
    stalemate,
    take_from_pile,
    win,
    won,
)


def _name(card: int) -> str:
    return f"the {CARDS[card].describe()} (card {card})"


def _holding(state: State, seat: int, cards: Iterable[int]) -> None:
    hand = state.hands[seat]
    for c in cards:
        if c not in hand:
            raise IllegalAction(f"You do not hold {_name(c)}")


def _expect(card: int, kind: Kind, what: str) -> None:
    if CARDS[card].kind is not kind:
        raise IllegalAction(f"{_name(card).capitalize()} is not {what}")


def _named_shape(named: Shape | None, cards: tuple[int, ...]) -> Shape:
    """The new Floor Shape: one of the played Numbers' shapes, named by the player."""
    allowed = shapes_of(cards)
    if named is None:
        if len(allowed) == 1:
            return allowed[0]
        raise IllegalAction(
            "Name the new Floor Shape: one of " + ", ".join(s.value for s in allowed)
        )
    if named not in allowed:
        raise IllegalAction(
            f"The new Floor Shape must be the shape of a card you play "
            f"({', '.join(s.value for s in allowed)}), not {named.value}"
        )
    return named


# -- the phases --------------------------------------------------------------------------


def apply_action(state: State, seat: int, action: AnyAction) -> tuple[State, list[Event]]:
    after, events = _apply(state, seat, action)
    # Only the run of forced positions needs the answer: work it out only while there is one.
    chose = len(state.seen) > state.forced_from and had_choice(state, seat, action)
    return count_move(*settle(after, events, chose=chose))


def had_choice(state: State, seat: int, action: AnyAction) -> bool:
    """Whether ``seat`` could have done something else than ``action`` (a legal one).

    A pass is offered only when it is the one thing a seat can do; anything else was a choice
    exactly when the seat had more than one legal action.
    """
    if isinstance(action, Pass):
        return False
    return not forced(options(state, seat))


def _apply(state: State, seat: int, action: AnyAction) -> tuple[State, list[Event]]:
    # R12: anything but the answers to what is pending is played only in open play.
    if state.phase is Phase.CHARGED:
        return _charged(state, seat, action)
    if isinstance(action, ReverseBack | LetStand):
        raise WrongPhase("There is no charged Swap to answer")
    if isinstance(action, Draw):
        return _draw(state, seat)
    if isinstance(action, Pass):
        return _pass(state, seat)
    if state.phase is Phase.FREEZE:
        return _frozen(state, seat, action)
    if state.phase is Phase.TAKE:
        return _under_take(state, seat, action)
    return _open_play(state, seat, action)


def _charged(state: State, seat: int, action: AnyAction) -> tuple[State, list[Event]]:
    swapper = state.by
    assert swapper is not None
    # R10: a charged Swap may be reversed back at once, for free; its reverser moves next.
    if isinstance(action, ReverseBack):
        # Back to the old direction, in which this seat was next after the swapper anyway.
        state = replace(state, phase=Phase.PLAY, direction=-state.direction, by=None)
        return state, [
            {"type": "reversed_back", "seat": seat, "direction": state.direction},
            {"type": "turn", "seat": seat},
        ]
    if isinstance(action, LetStand):
        return after_swap(state, swapper, [{"type": "let_stand", "seat": seat}])
    raise WrongPhase(
        f"Seat {swapper + 1} played a charged Swap at you: first reverse it back or let it stand"
    )


def _draw(state: State, seat: int) -> tuple[State, list[Event]]:
    if not drawable(state):
        raise IllegalAction(
            "There is no card left to draw (the draw pile is empty and the discard pile is "
            "only its top card)"
        )
    # R4: draw 1, ending the turn; R8: frozen, draw 1 and lose the turn; R9: under a Take,
    # draw the whole stack and lose the turn.
    count = state.stack if state.phase is Phase.TAKE else 1
    phase = state.phase
    state, events = take_from_pile(replace(state, opening=False, passes=0), seat, count)
    if phase is Phase.FREEZE:
        events.insert(0, {"type": "stayed_frozen", "seat": seat})
    return pass_turn(state, seat, events)


def _pass(state: State, seat: int) -> tuple[State, list[Event]]:
    if not options(state, seat).passing:
        raise IllegalAction("You may only pass when you can neither play nor draw")
    events: list[Event] = [{"type": "passed", "seat": seat}]
    if state.phase is not Phase.PLAY:
        # Losing the turn to a Freeze or a Take with nothing to draw changes the table, so the
        # stalemate count starts again from the next seat.
        return pass_turn(replace(state, passes=0), seat, events)
    passes = state.passes + 1
    # R14: a full round in which nobody could play or draw ends the game.
    if passes >= state.seats:
        state, more = stalemate(
            replace(state, passes=passes),
            "Stalemate: for a full round nobody could play or draw; fewest cards win",
        )
        return state, events + more
    return pass_turn(replace(state, passes=passes, opening=False), seat, events)


def _frozen(state: State, seat: int, action: AnyAction) -> tuple[State, list[Event]]:
    # R8: the frozen seat freezes back (any shape: the freeze goes back to the freezer),
    # discards Operations, or draws 1 (see _draw); nothing else answers a Freeze.
    if isinstance(action, PlayFreeze):
        _expect(action.card, Kind.FREEZE, "a Freeze")
        _holding(state, seat, (action.card,))
        freezer = state.by
        assert freezer is not None
        state = replace(lay_down(state, seat, (action.card,)), floor_shape=CARDS[action.card].shape)
        events: list[Event] = [{"type": "froze_back", "seat": seat, "card": action.card}]
        if won(state, seat):
            return win(state, seat, events)
        state = replace(state, turn=freezer, by=seat)
        events.append({"type": "frozen", "seat": freezer, "by": seat})
        return state, events
    if isinstance(action, DiscardOperations):
        return _break_freeze(state, seat, action.cards)
    raise IllegalAction(
        "You are frozen: answer with a Freeze of any shape, discard two Operations of the "
        "same kind or three different ones, or draw 1 and lose your turn"
    )


def _break_freeze(state: State, seat: int, cards: tuple[int, ...]) -> tuple[State, list[Event]]:
    for c in cards:
        _expect(c, Kind.OPERATION, "an Operation")
    _holding(state, seat, cards)
    # R8: two Operations of the same kind or three different ones, and not the whole hand.
    kinds = {CARDS[c].op for c in cards}
    if not ((len(cards) == 2 and len(kinds) == 1) or (len(cards) == 3 and len(kinds) == 3)):
        raise IllegalAction(
            "To break a Freeze, discard two Operations of the same kind or three different ones"
        )
    if len(state.hands[seat]) <= len(cards):
        raise IllegalAction(
            "Discarding these Operations would empty your hand, and an Operation can never be "
            "your last card"
        )
    state = replace(lay_down(state, seat, cards), phase=Phase.PLAY, by=None)
    return state, [
        {"type": "broke_freeze", "seat": seat, "cards": list(cards)},
        {"type": "turn", "seat": seat},
    ]


def _under_take(state: State, seat: int, action: AnyAction) -> tuple[State, list[Event]]:
    # R9: stack a Take of any shape, or draw the stack (see _draw); nothing else cancels it.
    if isinstance(action, PlayTake):
        return _take(state, seat, action.card)
    raise IllegalAction(
        f"A Take stack of {state.stack} is on you and nothing cancels it: stack a Take of any "
        f"shape or draw {state.stack}"
    )


def _open_play(state: State, seat: int, action: AnyAction) -> tuple[State, list[Event]]:
    if isinstance(action, PlayNumbers):
        return _numbers(state, seat, action)
    if isinstance(action, PlayOperation):
        return _operation(state, seat, action)
    if isinstance(action, PlayFreeze):
        return _freeze(state, seat, action.card)
    if isinstance(action, PlayTake):
        return _take(state, seat, action.card)
    if isinstance(action, PlaySwap):
        return _swap(state, seat, action.card)
    if isinstance(action, PlayPower):
        return _power(state, seat, action)
    if isinstance(action, BurnSwap):
        return _burn(state, seat, action.card)
    if isinstance(action, Grab):
        return _grab(state, seat)
    assert isinstance(action, DiscardOperations)
    raise WrongPhase("Operations are discarded only to answer a Freeze")


def _grab(state: State, seat: int) -> tuple[State, list[Event]]:
    # R3: only a Power or Swap opener, only as the first action, and that is the whole turn.
    if not state.opening:
        raise IllegalAction("The opener can be grabbed only as the first action of the game")
    card = state.discard[-1]
    if not grabbable(card):
        raise IllegalAction(
            f"A {CARDS[card].describe()} opener cannot be grabbed: only a Power or a Swap can"
        )
    hands = replace_at(state.hands, seat, with_cards(state.hands[seat], (card,)))
    state = replace(state, hands=hands, discard=state.discard[:-1], opening=False, passes=0)
    return pass_turn(state, seat, [{"type": "grabbed", "seat": seat, "card": card}])


def _numbers(state: State, seat: int, action: PlayNumbers) -> tuple[State, list[Event]]:
    cards = action.cards
    if not cards:
        raise IllegalAction("Name the Number (or Numbers) you play")
    for c in cards:
        _expect(c, Kind.NUMBER, "a Number")
    _holding(state, seat, cards)
    floor = state.floor_number
    if len(cards) == 1:
        # R5: one Number of the Floor Shape (or any, while it is open) sets the Floor Number.
        card = CARDS[cards[0]]
        if state.floor_shape is not None and card.shape is not state.floor_shape:
            raise IllegalAction(
                f"A single Number must match the Floor Shape ({state.floor_shape.value}); "
                f"{_name(cards[0])} does not"
            )
        shape = _named_shape(action.shape, cards)
        floor = card.value
    else:
        # R6: two or three Numbers summing exactly to an established Floor Number; the player
        # names the new Floor Shape among theirs, the Floor Number stays.
        if len(cards) > 3:
            raise IllegalAction("At most three Numbers can be played at once")
        total = sum(CARDS[c].value or 0 for c in cards)
        if floor is None:
            raise IllegalAction(
                "Two or three Numbers can be played together only once the Floor Number is set"
            )
        if total != floor:
            raise IllegalAction(
                f"Two or three Numbers can be played together only when their values add up to "
                f"the Floor Number ({floor}); yours add up to {total}"
            )
        shape = _named_shape(action.shape, cards)
    state = lay_down(state, seat, numbers_on_top(cards, shape))
    state = replace(state, floor_shape=shape, floor_number=floor)
    events: list[Event] = [
        {
            "type": "played_numbers",
            "seat": seat,
            "cards": list(cards),
            "floor": {"shape": shape.value, "number": floor},
        }
    ]
    if won(state, seat):
        return win(state, seat, events)
    return pass_turn(state, seat, events)


def _operation(state: State, seat: int, action: PlayOperation) -> tuple[State, list[Event]]:
    # R7: one Operation, resolved at once by Numbers only, on an established Floor Number; its
    # riders add up to the result; never the last card to leave a hand.
    _expect(action.card, Kind.OPERATION, "an Operation")
    _holding(state, seat, (action.card,))
    hand = state.hands[seat]
    if all(CARDS[c].kind is Kind.OPERATION for c in hand):
        raise IllegalAction(
            "An Operation can never be your last card: with only Operations in hand you must draw"
        )
    if action.operand is None:
        raise IllegalAction(
            "An Operation is resolved at once: name the Number (operand) that resolves it"
        )
    numbers = (action.operand, *action.riders)
    for c in numbers:
        if CARDS[c].kind is Kind.OPERATION:
            raise IllegalAction(
                "Only one Operation per turn: an Operation is resolved by Numbers, never by "
                "another Operation"
            )
        _expect(c, Kind.NUMBER, "a Number, so it cannot resolve an Operation")
    _holding(state, seat, numbers)
    floor = state.floor_number
    if floor is None:
        raise IllegalAction("An Operation needs a Floor Number, and the Floor Number is open")
    op = CARDS[action.card].op
    assert op is not None
    result = operate(op, floor, CARDS[action.operand].value or 0)
    if len(action.riders) > 2:
        raise IllegalAction(
            "At most two Numbers can ride along with the Number that resolves an Operation"
        )
    if action.riders:
        total = sum(CARDS[c].value or 0 for c in action.riders)
        if total != result:
            raise IllegalAction(
                f"Numbers riding along with an Operation must add up to its result ({result}); "
                f"yours add up to {total}"
            )
    shape = _named_shape(action.shape, numbers)
    # The Operation goes down first and its Numbers after it: it is never the last card.
    state = lay_down(state, seat, (action.card, *numbers_on_top(numbers, shape)))
    state = replace(state, floor_shape=shape, floor_number=result)
    events: list[Event] = [
        {
            "type": "played_operation",
            "seat": seat,
            "card": action.card,
            "operand": action.operand,
            "riders": list(action.riders),
            # The Floor Number it was played on (public), so "6 + 4 = 10 → 0" can be said exactly.
            "from": floor,
            "floor": {"shape": shape.value, "number": result},
        }
    ]
    if won(state, seat):
        return win(state, seat, events)
    return pass_turn(state, seat, events)


def _matching(state: State, card: int, what: str) -> None:
    shape = CARDS[card].shape
    if state.floor_shape is not None and shape is not state.floor_shape:
        raise IllegalAction(
            f"A {what} must match the Floor Shape ({state.floor_shape.value}); {_name(card)} "
            "does not"
        )


def _freeze(state: State, seat: int, card: int) -> tuple[State, list[Event]]:
    _expect(card, Kind.FREEZE, "a Freeze")
    _holding(state, seat, (card,))
    # R8: a Freeze matches the Floor Shape (or an open one) and freezes the next seat.
    _matching(state, card, "Freeze")
    state = replace(lay_down(state, seat, (card,)), floor_shape=CARDS[card].shape)
    events: list[Event] = [{"type": "played_freeze", "seat": seat, "card": card}]
    if won(state, seat):
        return win(state, seat, events)
    target = next_seat(state, seat)
    state = replace(state, phase=Phase.FREEZE, turn=target, by=seat)
    events.append({"type": "frozen", "seat": target, "by": seat})
    return state, events


def _take(state: State, seat: int, card: int) -> tuple[State, list[Event]]:
    _expect(card, Kind.TAKE, "a Take")
    _holding(state, seat, (card,))
    # R9: a Take matches the Floor Shape in open play; stacked on a Take, any shape. The Floor
    # Shape becomes the last Take's shape.
    if state.phase is Phase.PLAY:
        _matching(state, card, "Take")
    stack = state.stack + (CARDS[card].value or 0)
    state = replace(lay_down(state, seat, (card,)), floor_shape=CARDS[card].shape)
    events: list[Event] = [{"type": "played_take", "seat": seat, "card": card, "stack": stack}]
    if won(state, seat):
        return win(state, seat, events)
    target = next_seat(state, seat)
    state = replace(state, phase=Phase.TAKE, turn=target, stack=stack, by=seat)
    events.append({"type": "take_pending", "seat": target, "stack": stack})
    return state, events


def _swap(state: State, seat: int, card: int) -> tuple[State, list[Event]]:
    _expect(card, Kind.SWAP, "a Swap")
    _holding(state, seat, (card,))
    # R10: a Swap reverses the order; never the last card; charged when the seat that would
    # have moved next holds exactly 2 cards.
    if len(state.hands[seat]) == 1:
        raise IllegalAction(
            "A Swap can never be your last card: burn it instead, to draw the bottom card of "
            "the draw pile"
        )
    would_be_next = next_seat(state, seat)
    state = replace(lay_down(state, seat, (card,)), direction=-state.direction)
    events: list[Event] = [
        {"type": "played_swap", "seat": seat, "card": card, "direction": state.direction}
    ]
    if len(state.hands[would_be_next]) == 2:
        state = replace(state, phase=Phase.CHARGED, turn=would_be_next, by=seat)
        events.append({"type": "charged_swap", "seat": would_be_next, "by": seat})
        return state, events
    return after_swap(state, seat, events)


def _power(state: State, seat: int, action: PlayPower) -> tuple[State, list[Event]]:
    _expect(action.card, Kind.POWER, "a Power")
    _holding(state, seat, (action.card,))
    # R11: a Power sets any Floor Shape, keeps the Floor Number, and may be the last card.
    if action.shape is None:
        raise IllegalAction("Name the shape your Power sets")
    state = replace(lay_down(state, seat, (action.card,)), floor_shape=action.shape)
    events: list[Event] = [
        {"type": "played_power", "seat": seat, "card": action.card, "shape": action.shape.value}
    ]
    if won(state, seat):
        return win(state, seat, events)
    return pass_turn(state, seat, events)


def _burn(state: State, seat: int, card: int) -> tuple[State, list[Event]]:
    _expect(card, Kind.SWAP, "a Swap")
    _holding(state, seat, (card,))
    # R10: a lone Swap may be burnt for the bottom card of the draw pile.
    if len(state.hands[seat]) != 1:
        raise IllegalAction("Only a Swap that is your last card can be burnt")
    if not (state.draw or state.discard):
        raise IllegalAction("There is no card left to draw, so the Swap cannot be burnt")
    state = lay_down(state, seat, (card,))
    state, events = take_from_pile(state, seat, 1, bottom=True)
    events.insert(0, {"type": "burnt_swap", "seat": seat, "card": card})
    return pass_turn(state, seat, events)
