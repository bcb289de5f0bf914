"""The wire fuzzer, for minutes (not a test).

The properties of ``tests/server/transport/test_fuzz.py`` with many more examples: every client
message type, every HTTP endpoint and query parameter and the WebSocket entry, against a real server
(in this process, as the test runs it) playing the toy game, then the actions and options of every
real game, each on a server of its own, with the generators and checks of
``tests/server/fuzzing.py``. It runs in rounds until the time is up; each round starts fresh servers
and draws ``--examples`` inputs per target with a seed of its own (printed, so a failure can be run
again with ``--seed``). The first failure stops the run: hypothesis shrinks it to a small input and
prints it, with the check it broke.
At the end it prints how many inputs were sent, what they were answered (per message type or
endpoint, by error code or status), and the log lines of the one client address (the policy
in docs/architecture.md, "Logging": at most a few per address per interval, never ERROR).

    python -m bench.fuzz --minutes 10
    python -m bench.fuzz --minutes 1 --examples 100 --seed 7
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from collections import Counter
from typing import Any

from rules.registry import all_games, register
from tests.server.fuzzing import (
    ENDPOINTS,
    FIELDS,
    GAME,
    Fuzzer,
    cases,
    entries,
    fuzzer_on_a_loop,
    logs_into,
    requests,
    run_property,
)
from tests.server.toygame import ToyGame


def targets(fuzzer: Fuzzer) -> list[tuple[str, Any, Any]]:
    """(name, strategy, check) for every message type, endpoint and the entry; for a real
    game, its actions and options."""
    if fuzzer.game != GAME:
        return [(k, cases(k), fuzzer.check_frame) for k in ("act", "options")]
    found: list[tuple[str, Any, Any]] = [(k, cases(k), fuzzer.check_frame) for k in FIELDS]
    found += [(e, requests(e), fuzzer.check_request) for e in ENDPOINTS]
    found.append(("ws entry", entries(), fuzzer.check_entry))
    return found


def main(minutes: float, examples: int, seed: int | None) -> int:
    if ToyGame.id not in all_games():
        register(ToyGame())
    records: list[logging.LogRecord] = []
    ends = time.monotonic() + minutes * 60
    total, rounds, rebuilt = 0, 0, 0
    outcomes: Counter[tuple[str, str]] = Counter()
    chooser = random.Random(seed)
    began = time.monotonic()
    games = [GAME, *sorted(set(all_games()) - {GAME})]
    with logs_into(records) as handler:
        while time.monotonic() < ends:
            rounds += 1
            round_seed = seed if seed is not None and rounds == 1 else chooser.randrange(1, 2**31)
            print(f"round {rounds}: seed {round_seed}", flush=True)
            for game in games:
                if time.monotonic() >= ends:
                    break
                with fuzzer_on_a_loop(handler, lambda: records, game=game) as (run, fuzzer):
                    try:
                        for name, strategy, check in targets(fuzzer):
                            if time.monotonic() >= ends:
                                break
                            run_property(
                                strategy, lambda x, c=check: run(c(x)), examples, round_seed
                            )
                            print(f"  {game} {name}: {examples} inputs", flush=True)
                    finally:
                        total += fuzzer.examples
                        rebuilt += fuzzer.rebuilt
                        outcomes.update(fuzzer.outcomes)
    elapsed = time.monotonic() - began
    print(f"\n{total} inputs in {elapsed:.0f} s ({rounds} rounds, {rebuilt} tables made again)")
    for (what, outcome), count in sorted(outcomes.items()):
        print(f"  {what:<12} {outcome:<32} {count}")
    server = [r for r in records if not r.name.startswith("httpx")]
    levels = Counter(r.levelname for r in server)
    per_client = sum("127.0.0.1" in r.getMessage() for r in server)
    print(f"\nserver log: {len(server)} lines {dict(levels)}; {per_client} name the client")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to run")
    parser.add_argument(
        "--examples", type=int, default=300, help="inputs per target per round (default 300)"
    )
    parser.add_argument("--seed", type=int, default=None, help="the first round's seed")
    args = parser.parse_args()
    sys.exit(main(args.minutes, args.examples, args.seed))
