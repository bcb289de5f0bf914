"""One server instance: the store, room service, bots, hub and metrics, wired together.

Built by the app's lifespan; tests build one per simulated server process.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable

from server.ops.config import Settings, data_file
from server.ops.metrics import Metrics
from server.runtime.bots import Bots
from server.runtime.hub import Hub
from server.runtime.service import RoomService
from server.runtime.waker import Waker
from server.stores.memory_store import MemoryStore
from server.stores.redis_store import RedisStore
from server.stores.sqlite_store import SqliteStore
from server.stores.store import Store
from server.transport.clientlog import ClientLines
from server.transport.throttle import PerKeyCount, PerKeyLimit

log = logging.getLogger("parlor")


def make_store(settings: Settings) -> Store:
    if settings.redis_url:
        return RedisStore(
            settings.redis_url,
            log_max=settings.log_max,
            timeout=settings.redis_timeout,
            cluster=settings.redis_cluster,
            seeds=settings.redis_cluster_nodes,
        )
    if settings.ephemeral:
        return MemoryStore(log_max=settings.log_max)
    return SqliteStore(data_file(settings), log_max=settings.log_max)


class Instance:
    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        self.id = uuid.uuid4().hex[:12]
        self.settings = settings
        self.store = store if store is not None else make_store(settings)
        self.metrics = Metrics()
        #: The clock every rate limit here runs on (room creation per address, messages and
        #: chat lines per connection): injected by tests, so that no limit depends on how fast
        #: the machine running them is.
        self.limit_clock: Callable[[], float] = time.monotonic
        self.create_limit = PerKeyLimit(
            settings.create_rate, settings.create_burst, clock=lambda: self.limit_clock()
        )
        #: What a client can make this instance log, a few lines per address at most.
        self.client_lines = ClientLines(
            settings.client_log_rate, settings.client_log_burst, lambda: self.limit_clock()
        )
        #: Open WebSockets per client address.
        self.sockets = PerKeyCount(settings.max_connections_per_address)
        self.service = RoomService(self.store, settings, self.metrics, self.id)
        self.bots = Bots(self.service, settings.bot_delay, settings.away_grace)
        self.hub = Hub(self.service, self.store, self.bots, settings, self.metrics)
        #: Moves turn-based rooms on that nobody has open (server/runtime/waker.py).
        self.waker = Waker(self.service, settings.wake_interval, settings.away_grace)
        self.service.on_saved = self.hub.on_saved
        self.service.on_loaded = self.hub.on_loaded
        self.metrics.gauges["parlor_connections"] = lambda: self.hub.connection_count
        self.metrics.gauges["parlor_rooms_active"] = lambda: self.hub.room_count
        # What this instance holds: an object per room it is doing something for, a timer per
        # room with a plan, and its asyncio tasks (an idle turn-based room adds to none of
        # them: bench/idle_rooms.py).
        self.metrics.gauges["parlor_rooms_held"] = lambda: len(list(self.service.local))
        self.metrics.gauges["parlor_room_timers"] = lambda: sum(
            1 for held in self.service.local if held.wake is not None
        )
        self.metrics.gauges["parlor_tasks"] = lambda: len(asyncio.all_tasks())

    async def open(self) -> None:
        self.client_lines.install()
        await self.store.open(self.hub.on_notice)
        self.hub.start()
        self.waker.start()
        if isinstance(self.store, SqliteStore):
            log.info(
                "parlor: embedded SQLite store in %s (single process; rooms survive a restart;"
                " set REDIS_URL to share)",
                self.store.path,
            )
        elif self.store.kind == "memory":
            log.info(
                "parlor: embedded in-process store (single process; rooms vanish when it stops;"
                " set REDIS_URL to share)"
            )
        else:
            cluster = " (cluster)" if self.settings.redis_cluster else ""
            log.info("parlor: Redis store%s; instance %s", cluster, self.id)

    async def close(self) -> None:
        try:
            await self.waker.close()
            await self.bots.close()
            await self.hub.close()
            await self.store.close()
        finally:
            self.client_lines.remove()
