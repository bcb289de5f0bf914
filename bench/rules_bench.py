"""Rules benchmark: per action, the cost of ``apply`` plus every seat's view.

That is the server's hot path for one accepted action: apply it, then render a view for each
seat. Random legal games, seeded, so runs are comparable.

    python -m bench.rules_bench                 # every game at its largest seat count
    python -m bench.rules_bench numberswap --seats 8 --games 200
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from typing import Any

from rules import all_games, get_game
from rules.codec import pack


def measure(game_id: str, seats: int, games: int, seed: int) -> dict[str, Any]:
    game = get_game(game_id)
    samples: list[float] = []
    view_bytes: list[int] = []
    clock = time.perf_counter
    for g in range(games):
        rnd = random.Random(seed + g)
        state = game.new_game(seats, None, seed + g)
        seat_list = list(range(seats))
        while game.result(state) is None:
            seat = rnd.choice(sorted(game.to_act(state)))
            action = rnd.choice(game.legal_actions(state, seat))
            start = clock()
            state, _ = game.apply(state, seat, action)
            views = game.views(state, seat_list)
            samples.append(clock() - start)
            if len(samples) % 50 == 0:
                view_bytes.append(len(pack(views[0])))
    samples.sort()

    def pct(p: float) -> float:
        return samples[min(len(samples) - 1, int(p * len(samples)))] * 1e6

    return {
        "game": game_id,
        "seats": seats,
        "games": games,
        "actions": len(samples),
        "median_us": statistics.median(samples) * 1e6,
        "p90_us": pct(0.90),
        "p99_us": pct(0.99),
        "view_bytes": int(statistics.median(view_bytes)) if view_bytes else 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games_", nargs="*", metavar="GAME", help="game ids (default: all)")
    parser.add_argument("--seats", type=int, help="seat count (default: the game's maximum)")
    parser.add_argument("--games", type=int, default=100, help="random games per game id")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    ids = args.games_ or sorted(all_games())
    print(f"# {platform.python_implementation()} {platform.python_version()}, {platform.machine()}")
    print("| game | seats | games | actions | median µs | p90 µs | p99 µs | view bytes (seat 0) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for game_id in ids:
        seats = args.seats or get_game(game_id).max_seats
        r = measure(game_id, seats, args.games, args.seed)
        print(
            f"| {r['game']} | {r['seats']} | {r['games']} | {r['actions']} | "
            f"{r['median_us']:.0f} | {r['p90_us']:.0f} | {r['p99_us']:.0f} | {r['view_bytes']} |"
        )


if __name__ == "__main__":
    main()
