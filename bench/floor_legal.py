"""Floor: the cost of listing legal actions for a big hand.

Deals random 20-card hands (any seat count, default 4) onto random floors and times, per
position, ``legal_actions`` (every action spelled out: what bots and tests use) and
``legal_view`` (the compact form every view carries). Seeded, so runs are comparable.

    python -m bench.floor_legal                       # 20 cards, 500 positions
    python -m bench.floor_legal --hand 30 --positions 200
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import replace

from rules import get_game
from rules.floor.cards import DECK, SHAPES
from rules.floor.state import State


def position(rnd: random.Random, hand_size: int, seats: int) -> State:
    deck = list(DECK)
    rnd.shuffle(deck)
    base: State = get_game("floor").new_game(seats, None, rnd.randrange(2**32))
    hand = tuple(sorted(deck[:hand_size]))
    rest = deck[hand_size:]
    # The others' hands keep their sizes; what they hold does not matter here.
    others, rest = rest[: 7 * (seats - 1)], rest[7 * (seats - 1) :]
    hands = (hand, *(tuple(sorted(others[7 * i : 7 * i + 7])) for i in range(seats - 1)))
    return replace(
        base,
        hands=hands,
        draw=tuple(rest[:-1]),
        discard=tuple(rest[-1:]),
        floor_shape=rnd.choice(SHAPES),
        floor_number=rnd.randrange(10),
        opening=False,
    )


def best_of(repeats: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hand", type=int, default=20)
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = get_game("floor")
    rnd = random.Random(args.seed)
    full: list[float] = []
    compact: list[float] = []
    counts: list[int] = []
    for _ in range(args.positions):
        state = position(rnd, args.hand, args.seats)
        full.append(best_of(3, lambda s=state: game.legal_actions(s, 0)))
        compact.append(best_of(3, lambda s=state: game.legal_view(s, 0)))
        counts.append(len(game.legal_actions(state, 0)))

    def row(name: str, xs: list[float]) -> str:
        xs = sorted(xs)
        p90 = xs[int(0.9 * len(xs))]
        return (
            f"| {name} | {statistics.median(xs) * 1e6:.0f} | {p90 * 1e6:.0f} | {xs[-1] * 1e6:.0f} |"
        )

    counts.sort()
    print(
        f"# {args.positions} positions, {args.hand}-card hand; actions per position: median "
        f"{statistics.median(counts):.0f}, p90 {counts[int(0.9 * len(counts))]}, max {counts[-1]}"
    )
    print("| call | median µs | p90 µs | max µs |")
    print("| --- | --- | --- | --- |")
    print(row("legal_actions (every action)", full))
    print(row("legal_view (compact form)", compact))


if __name__ == "__main__":
    main()
