"""How the table changes: drawing (with reshuffles), laying cards down, passing the turn,
and the ways a game ends (a win, a stalemate, a repetition, the move bound).

These helpers check nothing: :mod:`rules.floor.moves` decides what is allowed first.
"""

from __future__ import annotations

from rules.contract import Event, Result, places_from_scores
from rules.evolve import replace
from rules.floor.cards import CARDS, Shape
from rules.floor.state import Phase, State, fingerprint, next_seat, replace_at, with_cards, without

#: A position with an empty draw pile that comes round this often, by forced moves only since
#: the last real choice, ends the game: nobody can leave that loop.
REPEATS = 3
#: However it was reached, a position with an empty draw pile that comes round this often ends
#: the game: it ends loops through choices, but only those that come back to the very same
#: piles; players who keep drawing from a full pile are ended by the move bound instead.
LIMIT = 5
#: Platform ruling (move bound): a game still running after this many actions ends, the fewest
#: cards winning. Over five times the longest of 36,000 measured games (918 actions, random
#: players; bots' longest 397), while bots that hold on to Powers would otherwise draw for ever.
MOVE_BOUND = 5_000


def take_from_pile(
    state: State, seat: int, count: int, *, bottom: bool = False
) -> tuple[State, list[Event]]:
    """Move up to ``count`` cards from the draw pile into ``seat``'s hand, reshuffling the
    discard pile (all but its top card) whenever the draw pile runs out."""
    events: list[Event] = []
    draw, discard, rng = state.draw, state.discard, state.rng
    taken: list[int] = []
    while len(taken) < count:
        # R14: an empty draw pile takes the discard pile but its top card, shuffled.
        if not draw:
            if len(discard) <= 1:
                break
            draw, rng = rng.shuffle(discard[:-1])
            discard = discard[-1:]
            events.append({"type": "reshuffled", "draw_size": len(draw)})
        n = min(count - len(taken), len(draw))
        if bottom:
            taken.extend(draw[:n])
            draw = draw[n:]
        else:
            taken.extend(reversed(draw[-n:]))
            draw = draw[:-n]
    hands = replace_at(state.hands, seat, with_cards(state.hands[seat], taken))
    state = replace(state, hands=hands, draw=draw, discard=discard, rng=rng)
    events.append({"type": "drew", "seat": seat, "count": len(taken), "bottom": bottom})
    return state, events


def finish(
    state: State, winners: tuple[int, ...], reason: str, *, move_bound: int | None = None
) -> tuple[State, list[Event]]:
    scores = tuple(len(hand) for hand in state.hands)
    outcome = Result(
        winners=winners,
        places=places_from_scores(scores, lower_is_better=True),
        scores=scores,
        reason=reason,
        move_bound=move_bound,
    )
    state = replace(state, phase=Phase.OVER, outcome=outcome, stack=0, by=None)
    return state, [{"type": "game_over", **outcome.to_wire()}]


def lay_down(state: State, seat: int, cards: tuple[int, ...]) -> State:
    """``cards`` leave the hand onto the discard pile, in that order (the last is on top)."""
    hands = replace_at(state.hands, seat, without(state.hands[seat], cards))
    return replace(state, hands=hands, discard=(*state.discard, *cards), opening=False, passes=0)


# R13: the first to empty their hand wins at once; the others rank by fewest cards (finish).
def won(state: State, seat: int) -> bool:
    return not state.hands[seat]


def win(state: State, seat: int, events: list[Event]) -> tuple[State, list[Event]]:
    state, more = finish(state, (seat,), f"Seat {seat + 1} emptied their hand")
    return state, events + more


def pass_turn(state: State, seat: int, events: list[Event]) -> tuple[State, list[Event]]:
    """Open play goes on with the next seat in the current direction."""
    following = next_seat(state, seat)
    state = replace(state, phase=Phase.PLAY, turn=following, stack=0, by=None)
    events.append({"type": "turn", "seat": following})
    return state, events


def numbers_on_top(cards: tuple[int, ...], shape: Shape) -> tuple[int, ...]:
    """Discard order: a card of the new Floor Shape goes on top, so the top card shows it."""
    for i, c in enumerate(cards):
        if CARDS[c].shape is shape:
            return (*cards[:i], *cards[i + 1 :], c)
    return cards


def fewest_cards(state: State) -> tuple[int, ...]:
    best = min(len(hand) for hand in state.hands)
    return tuple(s for s, hand in enumerate(state.hands) if len(hand) == best)


def stalemate(state: State, reason: str) -> tuple[State, list[Event]]:
    """The game is called off: the fewest cards win (tied seats share the win)."""
    # R14: the stalemate ending.
    return finish(state, fewest_cards(state), reason)


def count_move(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """After every action: count it, and end a game that has reached the move bound."""
    state = replace(state, moves=state.moves + 1)
    if state.phase is Phase.OVER or state.moves < MOVE_BOUND:
        return state, events
    # Platform ruling (move bound): the game ends as it stands, the fewest cards winning (tied
    # seats share the win, as in a stalemate); whatever was pending is dropped.
    reason = f"The move bound of {MOVE_BOUND:,} moves was reached: fewest cards win"
    state, more = finish(state, fewest_cards(state), reason, move_bound=MOVE_BOUND)
    return state, events + more


def after_swap(state: State, swapper: int, events: list[Event]) -> tuple[State, list[Event]]:
    """Play goes on in the reversed direction; with two seats, that is the swapper again."""
    # R10: with two players a Swap means the same player moves again.
    if state.seats == 2:
        state = replace(state, phase=Phase.PLAY, turn=swapper, by=None)
        events.append({"type": "turn", "seat": swapper})
        return state, events
    return pass_turn(state, swapper, events)


def settle(state: State, events: list[Event], *, chose: bool) -> tuple[State, list[Event]]:
    """After every action: record a position reached with an empty draw pile, and call the
    game off as a stalemate when it repeats too often.

    ``chose`` says that the seat which just acted had a real choice (more than one legal
    action): the run of forced positions starts again, since the table may have left a loop on
    purpose. A position coming round a third time within one run is a loop nobody can leave
    (every move in it forced); any position coming round a fifth time ends loops through
    choices. A game that never repeats a position is ended by the move bound (count_move).
    """
    if chose:
        state = replace(state, forced_from=len(state.seen))
    if state.phase is Phase.OVER or state.draw:
        return state, events
    mark = fingerprint(state)
    if state.seen[state.forced_from :].count(mark) + 1 >= REPEATS:
        reason = (
            "Stalemate: the same position came round a third time with an empty draw pile, "
            "every move in between forced; fewest cards win"
        )
    elif state.seen.count(mark) + 1 >= LIMIT:
        reason = (
            "Stalemate: the same position came round a fifth time with an empty draw pile; "
            "fewest cards win"
        )
    else:
        return replace(state, seen=(*state.seen, mark)), events
    state, more = stalemate(state, reason)
    return state, events + more
