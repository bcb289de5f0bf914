"""Game lengths: how many actions seeded games take with the built-in bots and with random players.

    python -m bench.game_lengths                                # every game, 2, 4 and max seats
    python -m bench.game_lengths floor --seats 2 --players bot --games 500
    python -m bench.game_lengths numberswap --option target_score=1000 --games 100

Every applied action counts (Number Swap's opening flips and undos, each of Warp 99's A, B and
C steps). ``bot`` seats play ``Game.bot_action`` at the default level (``--players bot:strong``
and so on: at that level); ``random`` seats pick uniformly among the legal actions of a seat
chosen uniformly from ``to_act``. A game still running after ``--cap`` actions
is stopped and counted as never ending. The figures are what each game's move bound is chosen
against (``docs/benchmarks.md``, "Game lengths and move bounds").
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

from rules import all_games, get_game
from rules.contract import DEFAULT_BOT_LEVEL, Game, Result
from rules.rng import Rng

PLAYERS = ("bot", "bot:easy", "bot:normal", "bot:strong", "random")


@dataclass(frozen=True)
class Run:
    game: str
    seats: int
    players: str
    games: int
    seed: int
    cap: int
    #: Game options, as ``(name, value)`` pairs.
    options: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class Lengths:
    """What a run gave: lengths of the games that ended, and how the others did not."""

    run: Run
    #: Actions of every game that ended by the game's own rules, sorted.
    ended: tuple[int, ...]
    #: Games that the move bound ended (a result whose ``move_bound`` is set).
    bounded: int
    #: Games still running at the cap.
    capped: int
    seconds: float


def play_out(
    game: Game[Any, Any], state: Any, cap: int, step: Callable[[Any], Any]
) -> tuple[Result | None, int]:
    """Apply ``step`` (one action: state -> state) until the game has a result or ``cap``
    actions were played; ``(the result or None, actions played)``."""
    for n in range(cap):
        result = game.result(state)
        if result is not None:
            return result, n
        state = step(state)
    return game.result(state), cap


def ending(result: Result | None) -> str:
    """How a game played out: ``"ended"`` by its rules, ``"bound"`` by its move bound, or
    ``"capped"`` (still running at the cap)."""
    if result is None:
        return "capped"
    return "bound" if result.move_bound else "ended"


def bot_game(
    game_id: str,
    seats: int,
    seed: int,
    cap: int,
    options: dict[str, object],
    level: str = DEFAULT_BOT_LEVEL,
) -> tuple[int, str]:
    """Actions until the end with every seat a bot; ``(n, "ended" | "bound" | "capped")``."""
    game = get_game(game_id)
    rng = Rng.from_seed(seed)

    def step(state: Any) -> Any:
        nonlocal rng
        for seat in sorted(game.to_act(state)):
            action = game.bot_action(state, seat, rng, level)
            _, rng = rng.next64()
            if action is not None:
                return game.apply(state, seat, action)[0]
        raise AssertionError(f"{game_id} seed {seed}: every bot waited")

    result, n = play_out(game, game.new_game(seats, options, seed), cap, step)
    return n, ending(result)


def random_game(
    game_id: str, seats: int, seed: int, cap: int, options: dict[str, object]
) -> tuple[int, str]:
    """Actions until the end with uniformly random legal players."""
    game = get_game(game_id)
    rnd = random.Random(seed)

    def step(state: Any) -> Any:
        seat = rnd.choice(sorted(game.to_act(state)))
        return game.apply(state, seat, rnd.choice(game.legal_actions(state, seat)))[0]

    result, n = play_out(game, game.new_game(seats, options, seed), cap, step)
    return n, ending(result)


def measure(run: Run) -> Lengths:
    if run.players.startswith("bot"):
        level = run.players.partition(":")[2] or DEFAULT_BOT_LEVEL
        play = partial(bot_game, level=level)
    else:
        play = random_game
    start = time.perf_counter()
    ended: list[int] = []
    bounded = capped = 0
    for i in range(run.games):
        seed = run.seed + run.seats * 1_000_000 + i
        n, how = play(run.game, run.seats, seed, run.cap, dict(run.options))
        if how == "ended":
            ended.append(n)
        elif how == "bound":
            bounded += 1
        else:
            capped += 1
    return Lengths(run, tuple(sorted(ended)), bounded, capped, time.perf_counter() - start)


def percentile(sorted_values: tuple[int, ...], q: float) -> int:
    """Nearest-rank percentile (q in 0..100) of a sorted, non-empty sequence."""
    rank = max(1, -(-len(sorted_values) * q // 100))
    return sorted_values[int(rank) - 1]


def row(lengths: Lengths) -> str:
    run, ended = lengths.run, lengths.ended
    if ended:
        figures = [percentile(ended, q) for q in (50, 90, 99, 99.9)] + [ended[-1]]
        shown = " | ".join(f"{v:,}" for v in figures)
    else:
        shown = " | ".join(["-"] * 5)
    unfinished = f"{lengths.capped:,}" if lengths.capped else "0"
    name = run.game + "".join(f" ({key}={value})" for key, value in run.options)
    return (
        f"| {name} | {run.seats} | {run.players} | {run.games:,} | {shown} | "
        f"{lengths.bounded:,} | {unfinished} | {lengths.seconds:.1f} s |"
    )


HEADER = (
    "| game | seats | players | games | p50 | p90 | p99 | p99.9 | longest | ended by move bound "
    "| still running at cap | time |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- "
    "| --- | --- | --- |"
)


def parse_option(text: str) -> tuple[str, object]:
    key, _, value = text.partition("=")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def runs(args: argparse.Namespace) -> Iterator[Run]:
    ids = [args.game] if args.game else sorted(all_games())
    options = tuple(parse_option(text) for text in args.option or ())
    for game_id in ids:
        game = get_game(game_id)
        seat_counts = args.seats or sorted({game.min_seats, 4, game.max_seats})
        for seats in seat_counts:
            for players in args.players or ("bot", "random"):
                yield Run(game_id, seats, players, args.games, args.seed, args.cap, options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", help="one game id (default: every game)")
    parser.add_argument("--seats", type=int, action="append", help="repeatable; default 2, 4, max")
    parser.add_argument("--players", choices=PLAYERS, action="append", help="default both")
    parser.add_argument("--games", type=int, default=300, help="per game, seat count and players")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cap", type=int, default=20_000, help="actions before a game is stopped")
    parser.add_argument("--option", action="append", help="a game option, e.g. target_score=1000")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args()
    print(HEADER)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for lengths in pool.map(measure, runs(args)):
            print(row(lengths), flush=True)


if __name__ == "__main__":
    main()
