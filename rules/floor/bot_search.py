"""``strong``'s look-ahead: determinised playouts (PIMC) over its best few candidates.

At a decision where the heuristic's top plays are of different kinds, the bot deals the cards
it cannot see (:func:`rules.floor.state.hidden_from`, the same set the view-only tests shuffle)
at random from its own view, plays each candidate on every deal and plays on a few actions with
the caller's policy for every seat (``rules.floor.policy`` chooses the depth and the policy),
and takes the candidate that does best. Every deal and every playout is drawn from the
``rng`` argument only, so the move depends on the seat's view and ``rng``, never on where the
hidden cards really are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rules.evolve import replace
from rules.floor.actions import AnyAction
from rules.floor.moves import apply_action
from rules.floor.state import Phase, State, hidden_from, redeal
from rules.rng import Rng

#: A policy for the playouts: (state, seat, rng) -> action.
Policy = Callable[[State, int, Rng], AnyAction]


def determinise(state: State, seat: int, rng: Rng) -> tuple[State, Rng]:
    """A deal of the cards hidden from ``seat``, consistent with its view, drawn from ``rng``."""
    # Sorted first: the multiset is what the view fixes, not the order the true state holds.
    shuffled, rng = rng.shuffle(sorted(hidden_from(state, seat)))
    seed, rng = rng.next64()
    sample = replace(redeal(state, seat, shuffled), rng=Rng.from_seed(seed), seen=(), forced_from=0)
    return sample, rng


def playout(state: State, seat: int, policy: Policy, rng: Rng, depth: int) -> float:
    """``seat``'s result of playing on with ``policy`` everywhere: 1 a win, 0 a loss; a game
    cut off after ``depth`` actions scores by how its hand compares with the smallest other."""
    for _ in range(depth):
        if state.phase is Phase.OVER:
            break
        turn = state.turn
        action = policy(state, turn, rng)
        _, rng = rng.next64()
        state, _ = apply_action(state, turn, action)
    if state.phase is Phase.OVER:
        assert state.outcome is not None
        winners = state.outcome.winners
        return 1.0 / len(winners) if seat in winners else 0.0
    mine = len(state.hands[seat])
    best = min(len(h) for s, h in enumerate(state.hands) if s != seat)
    return 0.5 + 0.1 * max(-4, min(4, best - mine))


def pick(
    state: State,
    seat: int,
    candidates: Sequence[AnyAction],
    policy: Policy,
    rng: Rng,
    samples: int,
    depth: int,
) -> AnyAction:
    """The candidate with the best mean playout result over ``samples`` deals (ties: the
    earlier candidate, i.e. the heuristic's order). Every candidate meets the same deals and
    the same playout seeds, so their difference is the move's, not the luck's."""
    totals = [0.0] * len(candidates)
    for _ in range(samples):
        deal, rng = determinise(state, seat, rng)
        seed, rng = rng.next64()
        for i, action in enumerate(candidates):
            after, _ = apply_action(deal, seat, action)
            totals[i] += playout(after, seat, policy, Rng.from_seed(seed), depth)
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    return candidates[best]
