"""Process-local counters, gauges and one histogram, rendered in Prometheus text format.

Hand-rolled to stay dependency-free; each instance reports its own figures and Prometheus sums.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


@dataclass
class Histogram:
    buckets: tuple[float, ...] = _BUCKETS
    counts: list[int] = field(default_factory=lambda: [0] * (len(_BUCKETS) + 1))
    total: float = 0.0
    n: int = 0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(self.buckets, seconds)] += 1
        self.total += seconds
        self.n += 1


@dataclass
class Metrics:
    rooms_created: int = 0
    actions: int = 0
    bot_moves: int = 0
    changes: int = 0
    conflicts: int = 0
    views: int = 0
    dropped: int = 0
    lost_replies: int = 0
    resyncs: int = 0
    caught_up: int = 0
    rewinds: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    action_latency: Histogram = field(default_factory=Histogram)
    #: Live values read at render time (connections, active rooms), set by the app.
    gauges: dict[str, Callable[[], float]] = field(default_factory=dict)

    def render(self) -> str:
        lines: list[str] = []

        def counter(name: str, help_: str, value: float, labels: str = "") -> None:
            if not labels:
                lines.append(f"# HELP {name} {help_}")
                lines.append(f"# TYPE {name} counter")
            lines.append(f"{name}{labels} {value}")

        counter("parlor_rooms_created_total", "Rooms created here.", self.rooms_created)
        counter("parlor_actions_total", "Player actions applied here.", self.actions)
        counter("parlor_bot_moves_total", "Bot and timer moves applied here.", self.bot_moves)
        counter("parlor_changes_total", "Room changes saved here.", self.changes)
        counter("parlor_store_conflicts_total", "Lost compare-and-set races.", self.conflicts)
        counter("parlor_views_sent_total", "State messages queued.", self.views)
        counter("parlor_dropped_connections_total", "Connections closed as too slow.", self.dropped)
        counter(
            "parlor_lost_replies_total",
            "Saves whose reply was lost, settled by reading the room again.",
            self.lost_replies,
        )
        counter(
            "parlor_resyncs_total", "Notice (re)subscriptions that resynced rooms.", self.resyncs
        )
        counter(
            "parlor_caught_up_total",
            "Rooms the periodic check found newer than what was sent (a missed notice).",
            self.caught_up,
        )
        counter(
            "parlor_rewinds_total",
            "Rooms found older than what was sent (the store went back in time).",
            self.rewinds,
        )
        lines.append("# HELP parlor_errors_total Errors answered, by code.")
        lines.append("# TYPE parlor_errors_total counter")
        for code, n in sorted(self.errors.items()):
            lines.append(f'parlor_errors_total{{code="{code}"}} {n}')
        for name, read in sorted(self.gauges.items()):
            lines.append(f"# TYPE {name} gauge")
            lines.append(f"{name} {read()}")
        h = self.action_latency
        name = "parlor_action_seconds"
        lines.append(f"# HELP {name} From an action received to its acknowledgement queued.")
        lines.append(f"# TYPE {name} histogram")
        cumulative = 0
        for bound, n in zip(h.buckets, h.counts, strict=False):
            cumulative += n
            lines.append(f'{name}_bucket{{le="{bound}"}} {cumulative}')
        lines.append(f'{name}_bucket{{le="+Inf"}} {h.n}')
        lines.append(f"{name}_sum {h.total}")
        lines.append(f"{name}_count {h.n}")
        return "\n".join(lines) + "\n"
