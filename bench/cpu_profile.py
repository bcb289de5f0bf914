"""Where a live ``parlor serve``'s CPU time goes, by sampling its stacks on CPU time (not a test).

``bench.profile_server`` runs the server under cProfile, which times Python calls by the wall
clock: on a busy machine a function is charged for the time the process sat preempted, and a
socket write that wakes a peer on the other core looks large though it costs little CPU. This
samples the server's Python stack every ``--interval`` of the process's own CPU time (user +
system: ``setitimer(ITIMER_PROF)``), so a share of the samples is a share of the CPU the
server used, as ``/proc`` counts it. It adds little to each call (a signal per sample), so the
shares are those of the server as it runs. Switched on by SIGUSR1 when ``bench.load``'s
measured window opens and off by SIGUSR2 when it closes.

    python -m bench.cpu_profile --rooms 10 --seconds 15

Prints, for each part of the work (a sample counts for a part when its stack passes through
one of the part's functions), its share of the samples and what that is in microseconds per
action, then the functions with the most samples of their own. Read with care: a signal is
handled between two Python instructions, so time spent in C (msgpack, a socket write, the
event loop's own work between callbacks) is charged to the Python function that runs next to
it: the caller of a C call, or the coroutine the loop resumes.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import signal
import sys
import tempfile
from types import FrameType
from typing import Any

from bench.profile_server import Profiled

#: The parts of an action, each a function some stacks pass through (by file and name; a
#: stack may pass through several, so the shares do not add up to 100 %).
PARTS = (
    ("frames read (websockets parser, the inbox)", "transport/serving.py:data_received"),
    ("a command's session (decode, validate, command, ack)", "web/session.py:handle"),
    ("  the seated command (exactly once, rules)", "web/dispatch.py:seated"),
    ("    the rules' apply", "rules/contract.py:apply"),
    ("  validation (pydantic)", "pydantic/type_adapter.py:validate_python"),
    ("the save (record, entries, Lua call)", "runtime/service.py:_save"),
    ("  the room record encoded", "rooms/model.py:encode"),
    ("  the call to Redis", "stores/redis_store.py:save"),
    ("Redis replies and notices read", "stores/redis_wire.py:data_received"),
    ("the fan-out", "runtime/hub.py:fan_out"),
    ("  views (view_parts)", "transport/state_messages.py:seat_view_parts"),
    ("  frames joined (state_frames)", "transport/state_messages.py:state_frames"),
    ("  frames written (send_frame)", "transport/serving.py:send_frame"),
    ("frozen copies (evolve.replace)", "rules/evolve.py:replace"),
    ("msgpack packing (codec.pack)", "rules/codec.py:pack"),
)


def _name(frame: FrameType) -> str:
    code = frame.f_code
    path = code.co_filename.split("site-packages/")[-1]
    for root in ("/server/", "/rules/", "/bench/"):
        if root in path:
            path = root[1:] + path.split(root, 1)[1]
            break
    return f"{path}:{code.co_name}"


def serve(out: str, interval: float) -> int:
    """``parlor serve``, its stacks sampled on CPU time between SIGUSR1 and SIGUSR2 (which
    writes them to ``out`` as JSON: [[stack, outermost first], count])."""
    from server.cli import main

    stacks: collections.Counter[tuple[str, ...]] = collections.Counter()

    def sample(_signum: int, frame: FrameType | None) -> None:
        names = []
        while frame is not None:
            names.append(_name(frame))
            frame = frame.f_back
        stacks[tuple(reversed(names))] += 1

    def on(*_: Any) -> None:
        signal.signal(signal.SIGPROF, sample)
        signal.setitimer(signal.ITIMER_PROF, interval, interval)

    def off(*_: Any) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        with open(out + ".tmp", "w") as f:
            json.dump([[list(k), n] for k, n in stacks.items()], f)
        os.replace(out + ".tmp", out)

    signal.signal(signal.SIGUSR1, on)
    signal.signal(signal.SIGUSR2, off)
    return main(["serve"])


def report(stacks: list[tuple[list[str], int]], cpu_ms_per_action: float, top: int = 30) -> str:
    total = sum(n for _, n in stacks) or 1
    lines = [
        f"{total} samples; server CPU {cpu_ms_per_action:.3f} ms per action (sampler included)",
        "",
        "| part | share of samples | us per action |",
        "| --- | --- | --- |",
    ]
    for label, needle in PARTS:
        n = sum(count for stack, count in stacks if any(f.endswith(needle) for f in stack))
        share = n / total
        lines.append(f"| {label} | {100 * share:.1f} % | {1000 * share * cpu_ms_per_action:.0f} |")
    own: collections.Counter[str] = collections.Counter()
    for stack, count in stacks:
        own[stack[-1]] += count
    lines += ["", f"top {top} by samples of their own:"]
    for name, count in own.most_common(top):
        lines.append(f"  {100 * count / total:5.1f} %  {name}")
    return "\n".join(lines)


class Sampled(Profiled):
    """bench.profile_server's window signals (SIGUSR1 opens, SIGUSR2 closes), this sampler's
    server command."""

    def __init__(self, out: str, interval: float) -> None:
        super().__init__(out)
        self.serve = ("-m", "bench.cpu_profile", "--serve", out, "--interval", str(interval))


async def _run(rooms: int, seconds: float, game: str, out: str, interval: float) -> Any:
    from bench import load

    result = await load.play(rooms, seconds, game, 0.0, window=Sampled(out, interval))
    for _ in range(100):  # written by the server as it handles SIGUSR2
        if os.path.exists(out):
            break
        await asyncio.sleep(0.1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--game", default="numberswap")
    parser.add_argument(
        "--out",
        default=os.path.join(tempfile.gettempdir(), "parlor-cpu.json"),
        help="where the sampled stacks are kept (JSON)",
    )
    parser.add_argument("--interval", type=float, default=0.001, help="seconds of CPU")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--serve", metavar="OUT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        sys.exit(serve(args.serve, args.interval))
    result = asyncio.run(_run(args.rooms, args.seconds, args.game, args.out, args.interval))
    with open(args.out) as f:
        stacks = [(list(stack), int(n)) for stack, n in json.load(f)]
    print(f"{result['actions']} actions, {result['actions_per_s']} actions/s")
    print(report(stacks, result["server_cpu_ms_per_action"], args.top))


if __name__ == "__main__":
    main()
