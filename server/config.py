"""Server settings, read once from the environment (``PARLOR_*``, ``REDIS_URL``).

Everything tunable lives here so tests can build a server with small limits and the CLI can
override the address. Defaults suit one process on a laptop: port 8000, embedded store.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

_DEFAULT_STATIC = Path(__file__).resolve().parent.parent / "client-web"


def _floats(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    return default if raw in (None, "") else float(raw)


def _ints(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    return default if raw in (None, "") else int(raw)


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    #: Empty means the embedded in-process store (one process only).
    redis_url: str = ""
    #: Browser origins allowed to open a WebSocket. Same-origin pages are always allowed, and
    #: so are clients that send no Origin (non-browser tools); ``*`` allows every origin.
    allowed_origins: tuple[str, ...] = ()
    static_dir: Path = field(default=_DEFAULT_STATIC)

    #: Seconds a bot waits before acting, so people can follow what happened.
    bot_delay: float = 0.6
    #: Smallest turn timer a room may set (tests lower it).
    min_turn_timer: float = 5.0
    max_turn_timer: float = 600.0
    #: A room nobody touched for this long disappears.
    room_ttl: float = 24 * 3600.0

    #: Largest frame the protocol accepts; bigger ones are refused and the socket is closed.
    max_frame: int = 4096
    #: Frames waiting to be written to one connection before it counts as too slow.
    send_queue: int = 64
    #: Token bucket per connection: sustained messages per second and burst.
    flood_rate: float = 20.0
    flood_burst: float = 40.0
    #: Refused messages (flood or bad frames) before the connection is closed.
    max_strikes: int = 20
    #: Rooms one client address may create: sustained per second, and burst.
    create_rate: float = 0.2
    create_burst: float = 10.0
    chat_max_len: int = 200
    chat_keep: int = 50
    chat_rate: float = 1.0
    chat_burst: float = 5.0
    name_max_len: int = 24
    #: Attempts at one compare-and-set before answering "conflict".
    max_retries: int = 50
    #: How long an instance's presence claims last without a heartbeat.
    presence_ttl: float = 30.0
    #: Move log entries kept per room (approximate trim).
    log_max: int = 10_000
    #: Seconds between the checks that every room served here is what the store holds
    #: (the bound on how long a missed notice can keep a client behind).
    check_interval: float = 1.0
    #: Seconds an HTTP request body may take to arrive.
    body_timeout: float = 10.0
    #: Seconds any one Redis call may take before it counts as unavailable.
    redis_timeout: float = 1.0

    #: Seconds a new HTTP connection (or a kept-alive one that has begun its next request) may
    #: take to send a complete request line and headers; then it is reset.
    header_timeout: float = 10.0
    #: Seconds a WebSocket may stay open without sending ``join``, ``resume`` or ``watch``.
    join_timeout: float = 10.0
    #: WebSockets one client address may hold open at once on this instance (behind a trusted
    #: proxy, the forwarded address); more are refused at the upgrade.
    max_connections_per_address: int = 64
    #: Seconds a closing WebSocket is given to finish its close (a peer that stopped reading
    #: never does); then its TCP connection is reset, which frees its buffers at once.
    close_timeout: float = 2.0
    #: Seconds a graceful shutdown waits for requests and connections before cancelling them.
    shutdown_timeout: float = 10.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        origins = tuple(o.strip() for o in env.get("PARLOR_ALLOWED_ORIGINS", "").split(",") if o)
        base = cls()
        return replace(
            base,
            host=env.get("PARLOR_HOST", base.host),
            port=_ints(env, "PARLOR_PORT", base.port),
            redis_url=env.get("REDIS_URL", base.redis_url),
            allowed_origins=origins,
            static_dir=Path(env.get("PARLOR_STATIC_DIR", str(base.static_dir))),
            bot_delay=_floats(env, "PARLOR_BOT_DELAY", base.bot_delay),
            room_ttl=_floats(env, "PARLOR_ROOM_TTL", base.room_ttl),
            max_frame=_ints(env, "PARLOR_MAX_FRAME", base.max_frame),
            send_queue=_ints(env, "PARLOR_SEND_QUEUE", base.send_queue),
            flood_rate=_floats(env, "PARLOR_FLOOD_RATE", base.flood_rate),
            flood_burst=_floats(env, "PARLOR_FLOOD_BURST", base.flood_burst),
            create_rate=_floats(env, "PARLOR_CREATE_RATE", base.create_rate),
            create_burst=_floats(env, "PARLOR_CREATE_BURST", base.create_burst),
        )
