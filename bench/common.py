"""What the benchmarks share: a ``parlor serve`` child process (or the bare baseline server of
``bench/baseline.py``) and room creation over HTTP."""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

from tests.processes import Process, http_ok

ROOT = Path(__file__).resolve().parents[1]


#: How a bench runs ``parlor serve`` (``bench/profile_server.py`` runs it under a profiler).
SERVE = ("-m", "server.cli", "serve")


def parlor_serve(
    port: int, log: Path, name: str = "parlor serve", serve: tuple[str, ...] = SERVE, **env: str
) -> Process:
    """``parlor serve`` on ``port`` (not started yet), with ``env`` settings on top of the
    environment; without a ``REDIS_URL`` it keeps rooms in memory (a bench leaves no file). One
    worker unless ``env`` or ``serve`` say otherwise; no commit window for the deal (the bench's
    clients start games without sealing them).
    ``serve``: the Python arguments that run it."""
    # One instance process unless asked (``--workers`` in ``serve`` overrides this): the
    # benches read the CPU and memory of the one process they started.
    # The bench's clients do not seal deals (docs/fairplay.md): a start deals at once.
    settings = {"PARLOR_PORT": str(port), "PARLOR_WORKERS": "1", "PARLOR_COMMIT_WINDOW": "0", **env}
    if not settings.get("REDIS_URL"):
        settings.setdefault("PARLOR_EPHEMERAL", "true")
    argv = [sys.executable, *serve]
    return Process(argv, ready=http_ok(port), log=log, name=name, env=settings, cwd=ROOT)


def baseline_serve(port: int, log: Path, redis_url: str, game_length: int | None = None) -> Process:
    """The bare baseline server (``bench/baseline.py``) on ``port`` and the Redis at
    ``redis_url`` (not started yet)."""
    argv = [sys.executable, "-m", "bench.baseline", "--port", str(port), "--redis", redis_url]
    if game_length is not None:
        argv += ["--game-length", str(game_length)]
    return Process(argv, ready=http_ok(port), log=log, name="bench.baseline", cwd=ROOT)


def create_room(http: str, game: str, timeout: float = 10.0, **body: Any) -> str:
    """A new room's code, from ``POST {http}/api/rooms`` with ``game`` and ``body``."""
    request = urllib.request.Request(
        f"{http}/api/rooms",
        data=json.dumps({"game": game, **body}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        code: str = json.load(response)["code"]
    return code
