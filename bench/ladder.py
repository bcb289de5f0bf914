"""The bot ladder: each game's bot against random players and against its previous version.

    python -m bench.ladder                                  # every game; 2, 4, max seats
    python -m bench.ladder warp99 --seats 2 --games 2000    # one game, one seat count
    python -m bench.ladder floor --bot bot:easy --field random

One seat plays the bot under test (``--bot``, default ``bot``: ``Game.bot_action``; ``bot:easy``
passes a level) and every other seat plays the field (``--field``, repeatable; default both):
``random`` picks uniformly among the seat's legal actions; ``v1`` is the frozen previous bot
(``rules/<game>/policy_v1.py``). Any policy may also be named as the bot, so
``--bot v1 --field random`` measures the old bot. The tested seat rotates with the game number,
so no seat's advantage (Warp 99's starting scores differ by seat) favours it.

Reported per row: the tested bot's win share (a win shared by k seats counts 1/k) with a 95%
Wilson interval, the fair share (1/seats), the mean game length in actions, the share of games
the game's move bound ended (they count as played: the standings decide), and games still
running at ``--cap`` actions ("never end"). Figures go to ``docs/benchmarks.md``, "Bot ladder".
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from bench.game_lengths import ending, play_out
from rules import all_games, get_game
from rules.contract import Game
from rules.rng import Rng

FIELDS = ("random", "v1", "reference")

#: ``policy(game, state, seat, rng, rnd) -> action | None`` (None: this seat waits).
Policy = Callable[[Game[Any, Any], Any, int, Rng, random.Random], Any]


def _random(game: Game[Any, Any], state: Any, seat: int, rng: Rng, rnd: random.Random) -> Any:
    return rnd.choice(game.legal_actions(state, seat))


def _v1(game: Game[Any, Any], state: Any, seat: int, rng: Rng, rnd: random.Random) -> Any:
    return import_module(f"rules.{game.id}.policy_v1").choose(state, seat, rng)


def _reference(game: Game[Any, Any], state: Any, seat: int, rng: Rng, rnd: random.Random) -> Any:
    """The game's reference casual player (``bench/reference/<game>.py``): how a decent person
    plays from the rules page, written without the bots' code in view (issue 31)."""
    return import_module(f"bench.reference.{game.id}").choose(game, state, seat, rnd)


def _bot(level: str | None) -> Policy:
    def play(game: Game[Any, Any], state: Any, seat: int, rng: Rng, rnd: random.Random) -> Any:
        if level is None:
            return game.bot_action(state, seat, rng)
        return game.bot_action(state, seat, rng, level=level)

    return play


def policy(name: str) -> Policy:
    if name == "random":
        return _random
    if name == "v1":
        return _v1
    if name == "reference":
        return _reference
    if name == "bot":
        return _bot(None)
    if name.startswith("bot:"):
        return _bot(name.removeprefix("bot:"))
    raise ValueError(f"unknown policy {name!r}: random, v1, reference, bot or bot:<level>")


#: A mixed field (issue 31's largest table): the seat after the tested one plays the reference
#: player, every other seat the normal bot.
MIXED = "reference+normal"


def _field_of(field: str, after: int) -> str:
    """The policy of the seat ``after`` seats after the tested one, in field ``field``."""
    if field == MIXED:
        return "reference" if after == 1 else "bot:normal"
    return field


@dataclass(frozen=True)
class Run:
    game: str
    seats: int
    bot: str
    field: str
    first: int
    games: int
    seed: int
    cap: int


@dataclass(frozen=True)
class Tally:
    run: Run
    #: The tested bot's wins, a shared win counting 1/k.
    wins: float
    actions: int
    finished: int
    bounded: int
    never_ended: int
    seconds: float


def play_one(run: Run, index: int) -> tuple[float, int, str]:
    """One game; ``(the tested seat's win share, actions, "ended" | "bound" | "capped")``."""
    game = get_game(run.game)
    seed = run.seed + run.seats * 1_000_000 + index
    rnd = random.Random(seed)
    rng = Rng.from_seed(seed)
    tested = index % run.seats
    policies = [
        policy(run.bot) if s == tested else policy(_field_of(run.field, (s - tested) % run.seats))
        for s in range(run.seats)
    ]

    def step(state: Any) -> Any:
        nonlocal rng
        seats = sorted(game.to_act(state))
        rnd.shuffle(seats)
        for seat in seats:
            legal = game.legal_actions(state, seat)
            # A forced move (Number Swap's "next round", say) needs no policy: the frozen v1
            # bots predate some of them.
            action = legal[0] if len(legal) == 1 else policies[seat](game, state, seat, rng, rnd)
            _, rng = rng.next64()
            if action is not None:
                return game.apply(state, seat, action)[0]
        raise AssertionError(f"{run.game} seed {seed}: every seat waited")

    result, n = play_out(game, game.new_game(run.seats, {}, seed), run.cap, step)
    share = 1 / len(result.winners) if result and tested in result.winners else 0.0
    return share, n, ending(result)


def measure(run: Run) -> Tally:
    start = time.perf_counter()
    wins = 0.0
    actions = finished = bounded = never = 0
    for index in range(run.first, run.first + run.games):
        share, n, how = play_one(run, index)
        if how == "capped":
            never += 1
            continue
        wins += share
        actions += n
        finished += 1
        bounded += how == "bound"
    return Tally(run, wins, actions, finished, bounded, never, time.perf_counter() - start)


def merge(tallies: list[Tally]) -> Tally:
    first = tallies[0]
    run = Run(
        first.run.game, first.run.seats, first.run.bot, first.run.field, 0,
        sum(t.run.games for t in tallies), first.run.seed, first.run.cap,
    )  # fmt: skip
    return Tally(
        run,
        sum(t.wins for t in tallies),
        sum(t.actions for t in tallies),
        sum(t.finished for t in tallies),
        sum(t.bounded for t in tallies),
        sum(t.never_ended for t in tallies),
        sum(t.seconds for t in tallies),
    )


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


HEADER = (
    "| game | seats | bot | field | games | bot's win share (95% CI) | fair share "
    "| mean actions | ended by move bound | never end | cpu time |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)


def row(t: Tally) -> str:
    run = t.run
    low, high = wilson(t.wins, t.finished)
    share = t.wins / t.finished if t.finished else 0.0
    mean = t.actions / t.finished if t.finished else 0.0
    bound = t.bounded / t.finished if t.finished else 0.0
    return (
        f"| {run.game} | {run.seats} | {run.bot} | {run.field} | {run.games:,} "
        f"| {share:.1%} ({low:.1%} to {high:.1%}) | {1 / run.seats:.1%} | {mean:,.0f} "
        f"| {bound:.1%} | {t.never_ended} | {t.seconds:.0f} s |"
    )


def runs(args: argparse.Namespace) -> Iterator[list[Run]]:
    """Each table row's work, in chunks that the worker processes share."""
    ids = [args.game] if args.game else sorted(all_games())
    chunk = max(1, args.chunk)
    for game_id in ids:
        game = get_game(game_id)
        for seats in args.seats or sorted({game.min_seats, 4, game.max_seats}):
            for field in args.field or FIELDS:
                yield [
                    Run(
                        game_id,
                        seats,
                        args.bot,
                        field,
                        first,
                        min(chunk, args.games - first),
                        args.seed,
                        args.cap,
                    )
                    for first in range(0, args.games, chunk)
                ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", help="one game id (default: every game)")
    parser.add_argument("--seats", type=int, action="append", help="repeatable; default 2, 4, max")
    parser.add_argument("--bot", default="bot", help="the policy tested: bot, bot:<level>, v1, …")
    parser.add_argument(
        "--field",
        action="append",
        help="the other seats: random, v1, reference, bot, bot:<level>, or reference+normal "
        "(one reference player, the rest normal bots)",
    )
    parser.add_argument("--games", type=int, default=400, help="per table row")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cap", type=int, default=30_000, help="actions before a game is stopped")
    parser.add_argument("--chunk", type=int, default=50, help="games per unit of work")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args()
    rows = list(runs(args))
    print(HEADER, flush=True)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        pending = [[pool.submit(measure, run) for run in parts] for parts in rows]
        for futures in pending:
            print(row(merge([f.result() for f in futures])), flush=True)


if __name__ == "__main__":
    main()
