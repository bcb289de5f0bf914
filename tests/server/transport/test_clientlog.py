"""What a client can make the server log: a few lines per address, then a count of the rest
(server/transport/clientlog.py; docs/architecture.md, "Logging"). The fuzzer's own test of the
policy is
tests/server/transport/test_fuzz.py::test_the_log_holds_a_bounded_number_of_lines_per_client_and_no_error.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from server.transport.clientlog import UNKNOWN, ClientLines, client, client_of


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def lines(caplog: pytest.LogCaptureFixture) -> Iterator[tuple[ClientLines, Clock]]:
    caplog.set_level(logging.INFO)
    clock = Clock()
    limit = ClientLines(rate=0.5, burst=3, clock=clock)
    limit.install()
    try:
        yield limit, clock
    finally:
        limit.remove()


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records]


def test_a_client_gets_a_few_lines_then_one_line_counts_the_rest(
    lines: tuple[ClientLines, Clock], caplog: pytest.LogCaptureFixture
) -> None:
    _, clock = lines
    log = logging.getLogger("server.web.session")
    for n in range(10):
        log.info("refused %d from 192.0.2.1", n, extra=client("192.0.2.1"))
    log.info("refused 0 from 192.0.2.2", extra=client(("192.0.2.2", 4000)))
    log.info("a line about no client")
    assert said(caplog) == [
        *(f"refused {n} from 192.0.2.1" for n in range(3)),
        "refused 0 from 192.0.2.2",
        "a line about no client",
    ]
    caplog.clear()
    clock.now += 2.0  # one more line's worth
    log.warning("refused 10 from 192.0.2.1", extra=client("192.0.2.1"))
    log.info("refused 11 from 192.0.2.1", extra=client("192.0.2.1"))
    assert said(caplog) == [
        "… 7 more lines about 192.0.2.1 were left out of the log (at most 3 at once, then "
        "one per 2 s)",
        "refused 10 from 192.0.2.1",
    ]
    assert caplog.records[0].levelno == logging.WARNING, "at the level of the line it precedes"


def test_uvicorns_lines_about_connections_are_a_clients() -> None:
    def record(
        msg: str, args: tuple[object, ...], path: str, level: int = logging.INFO
    ) -> logging.LogRecord:
        return logging.LogRecord("uvicorn.error", level, path, 1, msg, args, None)

    sansio = "/x/site-packages/uvicorn/protocols/websockets/websockets_sansio_impl.py"
    access = record('%s - "WebSocket %s" [accepted]', ("192.0.2.7:5000", "/ws/ABCDE"), sansio)
    assert client_of(access) == "192.0.2.7"
    opened = record("connection open", (), "/x/site-packages/websockets/server.py")
    assert client_of(opened) == UNKNOWN
    parser = record("Invalid HTTP request received.", (), "/x/uvicorn/protocols/http/h.py", 30)
    assert client_of(parser) == UNKNOWN
    started = record("Started server process [%d]", (1,), "/x/site-packages/uvicorn/server.py")
    assert client_of(started) is None
    crash = record("Exception in ASGI application\n", (), sansio, logging.ERROR)
    assert client_of(crash) is None, "a fault of ours is never left out"


def test_the_addresses_remembered_are_bounded(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    limit = ClientLines(rate=0.0, burst=1, clock=Clock(), keep=2)
    log = logging.getLogger("parlor")
    limit.install()
    try:
        for address in ("a", "b", "c", "a"):
            log.info("line from %s", address, extra=client(address))
    finally:
        limit.remove()
    # "a" was forgotten when "c" came, so it starts again with its burst.
    assert said(caplog) == ["line from a", "line from b", "line from c", "line from a"]
