"""Instructions per accepted action of the server's own work, counted by valgrind (not a test).

``bench.load compare`` measures CPU time, which on this machine moves by a fifth from run to
run; a change worth 1 % cannot be seen there. valgrind's callgrind counts the instructions a
process runs instead, the same number for the same code and inputs whatever else the machine
is doing. This runs ``bench.action_pieces`` (the pieces of an action through the server's own
functions, outside any socket: decode, validate, the command, the entries, the record, the
views and frames) under callgrind for two numbers of actions, with a fixed hash seed, and
prints the difference per action, so start-up and imports cancel out.

It counts only those pieces: not the socket writes, the event loop or the store's client, and
no system call's work in the kernel.

    python -m bench.instructions            # needs valgrind (Debian: apt-get install valgrind)
    python -m bench.instructions --actions 300 1300
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

from bench.common import ROOT


def instructions(actions: int, seed: int) -> int:
    """Instructions that ``python -m bench.action_pieces --actions N`` runs, start-up included."""
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-m",
            "bench.action_pieces",
            "--actions",
            str(actions),
            "--seed",
            str(seed),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"valgrind printed no count:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, nargs=2, default=(300, 1300))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    few, many = args.actions
    per_action = (instructions(many, args.seed) - instructions(few, args.seed)) / (many - few)
    print(f"{per_action:,.0f} instructions per action ({few} and {many} actions, seed {args.seed})")


if __name__ == "__main__":
    main()
