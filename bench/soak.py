"""Soak: play many seeded random legal games and report any that fail to finish cleanly.

    python -m bench.soak numberswap --seats 8 --games 1000
    python -m bench.soak warp99 --seats 2-6 --games 1000 --check   # full conformance checks

Without ``--check`` each action is applied through the public contract (parse, apply) and the
game must end within the action limit. With ``--check`` every invariant of the conformance suite
(tests/rules/conformance.py) is checked after every action, which is much slower.
"""

from __future__ import annotations

import argparse
import importlib
import random
import time
import traceback
from typing import Any

from rules import get_game
from rules.codec import pack, unpack


def seat_range(text: str) -> range:
    low, _, high = text.partition("-")
    return range(int(low), int(high or low) + 1)


def play(game_id: str, seats: int, seed: int, max_actions: int) -> int:
    game = get_game(game_id)
    rnd = random.Random(seed)
    state = game.new_game(seats, None, seed)
    for n in range(max_actions):
        if game.result(state) is not None:
            return n
        seat = rnd.choice(sorted(game.to_act(state)))
        action = rnd.choice(game.legal_actions(state, seat))
        state, _ = game.apply(state, seat, unpack(pack(game.dump_action(action))))
    raise AssertionError(f"no end within {max_actions} actions")


def harness(game_id: str) -> Any:
    module = importlib.import_module(f"tests.rules.{game_id}.helpers")
    return module.HARNESS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--seats", type=seat_range, default=None, help="e.g. 8 or 2-8")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-actions", type=int, default=50_000)
    parser.add_argument("--check", action="store_true", help="check every invariant")
    args = parser.parse_args()
    game = get_game(args.game)
    seat_counts = args.seats or range(game.min_seats, game.max_seats + 1)
    failures = 0
    for seats in seat_counts:
        start = time.perf_counter()
        actions = 0
        longest = 0
        for i in range(args.games):
            seed = args.seed + seats * 1_000_000 + i
            try:
                if args.check:
                    from tests.rules.conformance import play_random_game

                    _, log = play_random_game(harness(args.game), seats, seed)
                    n = len(log)
                else:
                    n = play(args.game, seats, seed, args.max_actions)
            except Exception:
                failures += 1
                print(f"FAILED {args.game} seats={seats} seed={seed}")
                traceback.print_exc()
                continue
            actions += n
            longest = max(longest, n)
        elapsed = time.perf_counter() - start
        print(
            f"{args.game} seats={seats}: {args.games} games, {actions} actions "
            f"(mean {actions / args.games:.0f}, longest {longest}), {elapsed:.1f}s"
        )
    print("failures:", failures)
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
