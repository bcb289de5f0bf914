"""Log lines a client can cause: a few per client address, then one line saying how many were
left out (docs/architecture.md, "Logging").

A record is a client's when it is logged with ``extra=client(address)``, or when it is one of the
lines uvicorn (and the ``websockets`` protocol it runs) writes about a connection below ERROR: its
access lines for WebSockets (``127.0.0.1:5000 - "WebSocket /ws/ABCDE" [accepted]``, which name the
address), "connection open", "connection closed" and the warnings of its HTTP parser (which name
none, and share one budget). :class:`ClientLines`, a filter on every logger that writes such lines,
lets through ``burst`` of them per address and then ``rate`` a second (a token bucket per address on
an injectable clock, as :mod:`server.transport.throttle`); the first line let through after some
were left out is preceded by one saying how many.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from server.transport.throttle import TokenBucket

#: The attribute of a log record that names the client address it is about.
CLIENT = "client"
#: The loggers that write lines a client can cause.
LOGGERS = ("server.web.session", "server.transport.serving", "parlor", "uvicorn.error")
#: The key of the client lines that name no address (uvicorn's parser warnings, the
#: websockets protocol's "connection open" and "connection closed").
UNKNOWN = "(unknown)"
_ACCESS_LINE = '%s - "WebSocket %s"'
_PROTOCOL_FILES = ("/uvicorn/protocols/", "/websockets/")


def client(address: str | tuple[str, int] | None) -> dict[str, str]:
    """``extra`` for a log call about what the client at ``address`` did."""
    if isinstance(address, tuple):
        address = address[0]
    return {CLIENT: address or UNKNOWN}


def client_of(record: logging.LogRecord) -> str | None:
    """The client address a record is about, if it is a line a client can cause."""
    address = getattr(record, CLIENT, None)
    if address is not None:
        return str(address)
    if record.name != "uvicorn.error" or record.levelno >= logging.ERROR:
        return None
    if not any(part in record.pathname.replace("\\", "/") for part in _PROTOCOL_FILES):
        return None
    if isinstance(record.msg, str) and record.msg.startswith(_ACCESS_LINE) and record.args:
        shown = record.args[0] if isinstance(record.args, tuple) else None
        if isinstance(shown, str) and shown:
            return shown.rpartition(":")[0] or shown  # "host:port"
    return UNKNOWN


class ClientLines(logging.Filter):
    """Lets through ``burst`` client lines per address, then ``rate`` a second; see the
    module's docstring. Remembers at most ``keep`` addresses (the least recently seen are
    forgotten first, and start again with a full budget)."""

    def __init__(
        self,
        rate: float,
        burst: float,
        clock: Callable[[], float] = time.monotonic,
        keep: int = 10_000,
    ) -> None:
        super().__init__()
        self.rate = rate
        self.burst = burst
        self.keep = keep
        self._clock = clock
        #: address -> [its bucket, lines left out since the last one let through]
        self._seen: OrderedDict[str, list[Any]] = OrderedDict()

    def filter(self, record: logging.LogRecord) -> bool:
        address = client_of(record)
        if address is None:
            return True
        seen = self._seen.get(address)
        if seen is None:
            seen = self._seen[address] = [TokenBucket(self.rate, self.burst, self._clock), 0]
            if len(self._seen) > self.keep:
                self._seen.popitem(last=False)
        else:
            self._seen.move_to_end(address)
        if not seen[0].take():
            seen[1] += 1
            return False
        if seen[1]:
            left_out, seen[1] = seen[1], 0
            logging.getLogger(record.name).log(
                record.levelno,
                "… %d more lines about %s were left out of the log (at most %g at once, "
                "then one per %g s)",
                left_out,
                address,
                self.burst,
                1 / self.rate if self.rate else float("inf"),
            )
        return True

    def install(self) -> None:
        for name in LOGGERS:
            logging.getLogger(name).addFilter(self)

    def remove(self) -> None:
        for name in LOGGERS:
            logging.getLogger(name).removeFilter(self)
