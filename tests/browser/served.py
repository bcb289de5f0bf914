"""A ``parlor serve`` for the browser tests: embedded store, quick bots, any extra settings."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.processes import Process, free_port, http_ok

ROOT = Path(__file__).resolve().parents[2]


class Served:
    """A ``parlor serve``: its process (start it, stop it, pause it) and its address."""

    def __init__(self, process: Process, port: int) -> None:
        self.process = process
        self.url = f"http://127.0.0.1:{port}"


def parlor_serve(tmp: Path, **env: str) -> Served:
    """A ``parlor serve`` (not started yet) on a free port; ``env`` adds settings
    (``PARLOR_AWAY_GRACE="1"``, say) to the ones every browser test uses."""
    port = free_port()
    settings = {
        "PARLOR_PORT": str(port),
        "PARLOR_HOST": "127.0.0.1",
        "PARLOR_BOT_DELAY": "0.05",
        # Every test creates rooms from 127.0.0.1: lift the per-address creation limit.
        "PARLOR_CREATE_BURST": "1000",
        # Chat: the usual burst of five, but refilled at one line per 1,000 s, so that the
        # sixth line in a row is too fast however slowly the machine types them (at the usual
        # one a second a slow machine refilled the bucket between lines).
        "PARLOR_CHAT_RATE": "0.001",
        "REDIS_URL": "",
        # Rooms in memory: a browser test leaves no file behind.
        "PARLOR_EPHEMERAL": "true",
        **env,
    }
    argv = [sys.executable, "-m", "server.cli", "serve"]
    process = Process(
        argv,
        ready=http_ok(port),
        log=tmp / "server.log",
        name="parlor serve",
        env=settings,
        cwd=ROOT,
    )
    return Served(process, port)
