"""Token buckets (the flood and chat limits of one connection, per-address rates) and
per-address counts."""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from collections.abc import Callable


class TokenBucket:
    def __init__(
        self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._tokens = burst
        self._at = clock()

    def take(self) -> bool:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False


class PerKeyLimit:
    """One token bucket per key (a client address), remembering at most ``keep`` keys.

    The least recently seen keys are forgotten first; a forgotten key starts with a full
    bucket, which only ever errs towards letting someone in.
    """

    def __init__(
        self,
        rate: float,
        burst: float,
        keep: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.keep = keep
        self._clock = clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def take(self, key: str) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, self._clock)
            if len(self._buckets) > self.keep:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket.take()


class PerKeyCount:
    """How many of something (open connections) each key (a client address) holds, up to
    ``cap`` at once."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._held: Counter[str] = Counter()

    def take(self, key: str) -> bool:
        if self._held[key] >= self.cap:
            return False
        self._held[key] += 1
        return True

    def give_back(self, key: str) -> None:
        self._held[key] -= 1
        if self._held[key] <= 0:
            del self._held[key]
