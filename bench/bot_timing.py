"""How long a bot takes to decide one move: p50, p99 and the slowest, per game, level and table
size (issue 31: p99 at most 50 ms a move, so a table of seven bots never drags).

Plays whole games with every seat the bot at one level and times each ``Game.bot_action`` call
(CPU time of this process, so other work on the machine counts little).

    python -m bench.bot_timing                          # every game and level, 2 and max seats
    python -m bench.bot_timing numberswap --level strong --games 20
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from rules import all_games, get_game
from rules.contract import BOT_LEVELS
from rules.rng import Rng

#: Actions after which a game is left (a game played by bots always ends far sooner).
CAP = 20_000


def decision_times(game_id: str, level: str, seats: int, games: int, seed: int) -> list[float]:
    game = get_game(game_id)
    times: list[float] = []
    for index in range(games):
        state: Any = game.new_game(seats, {}, seed + index)
        rng = Rng.from_seed(seed + index)
        for _ in range(CAP):
            if game.result(state) is not None:
                break
            moved = False
            for seat in sorted(game.to_act(state)):
                _, rng = rng.next64()
                start = time.process_time()
                action = game.bot_action(state, seat, rng, level)
                times.append(time.process_time() - start)
                if action is not None:
                    state = game.apply(state, seat, action)[0]
                    moved = True
                    break
            assert moved, f"{game_id}: every seat waited"
    return times


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="*", help="game ids (default: all)")
    parser.add_argument("--level", action="append", help="repeatable (default: every level)")
    parser.add_argument("--seats", type=int, action="append", help="default: 2 and the max")
    parser.add_argument("--games", dest="count", type=int, default=10, help="games per row")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print("| game | level | seats | decisions | p50 | p99 | slowest |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for game_id in args.games or sorted(all_games()):
        game = get_game(game_id)
        for level in args.level or list(BOT_LEVELS):
            for seats in args.seats or [2, game.max_seats]:
                times = decision_times(game_id, level, seats, args.count, args.seed)
                p50, p99 = quantile(times, 0.5) * 1000, quantile(times, 0.99) * 1000
                print(
                    f"| {game_id} | {level} | {seats} | {len(times):,} "
                    f"| {p50:.2f} ms | {p99:.2f} ms | {max(times) * 1000:.1f} ms |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
