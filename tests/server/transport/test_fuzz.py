"""The wire fuzzer (tests/server/fuzzing.py), seeded and bounded: every client message type,
every HTTP endpoint and query parameter and the WebSocket entry, against a real server; the
actions and options of every game too.

Each test runs one server and its rooms for all its examples (hypothesis draws them; a failure
is shrunk to a small input and printed). ``python -m bench.fuzz --minutes 10`` runs the same
properties with many more examples.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest

from rules.registry import all_games
from server.transport.clientlog import UNKNOWN, client_of
from tests.server.fuzzing import (
    ENDPOINTS,
    FIELDS,
    GAME,
    Fuzzer,
    cases,
    entries,
    fuzzer_on_a_loop,
    requests,
    run_property,
)

#: Examples per message type, per game's actions and options, per endpoint, of the entry.
FRAMES = 60
GAME_FRAMES = 40
REQUESTS = 50
ENTRIES = 60

Run = Callable[[Coroutine[Any, Any, None]], None]


@pytest.fixture
def fuzz(
    caplog: pytest.LogCaptureFixture, request: pytest.FixtureRequest
) -> Iterator[tuple[Run, Fuzzer]]:
    """A real server with its fuzzed rooms (playing the toy game, or the test's ``game``), for
    one test; every log record at INFO and above, uvicorn's too, is captured."""
    caplog.set_level(logging.INFO)
    game = getattr(request, "param", GAME)
    with fuzzer_on_a_loop(caplog.handler, lambda: caplog.records, game=game) as running:
        yield running


@pytest.mark.parametrize("kind", sorted(FIELDS))
def test_every_message_type_is_answered_as_documented(kind: str, fuzz: tuple[Run, Fuzzer]) -> None:
    run, fuzzer = fuzz
    run_property(cases(kind), lambda case: run(fuzzer.check_frame(case)), FRAMES)


@pytest.mark.parametrize("fuzz", sorted(set(all_games()) - {GAME}), indirect=True)
@pytest.mark.parametrize("kind", ["act", "options"])
def test_every_games_actions_and_options_are_answered_as_documented(
    kind: str, fuzz: tuple[Run, Fuzzer]
) -> None:
    run, fuzzer = fuzz
    run_property(cases(kind), lambda case: run(fuzzer.check_frame(case)), GAME_FRAMES)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_every_http_endpoint_answers_as_documented(endpoint: str, fuzz: tuple[Run, Fuzzer]) -> None:
    run, fuzzer = fuzz
    run_property(requests(endpoint), lambda r: run(fuzzer.check_request(r)), REQUESTS)


def test_a_websocket_on_any_path_and_query_is_answered_as_documented(
    fuzz: tuple[Run, Fuzzer],
) -> None:
    run, fuzzer = fuzz
    run_property(entries(), lambda entry: run(fuzzer.check_entry(entry)), ENTRIES)


#: Examples of each message type in the test of the log's bound.
LOG_FRAMES = 20


def test_the_log_holds_a_bounded_number_of_lines_per_client_and_no_error(
    fuzz: tuple[Run, Fuzzer], caplog: pytest.LogCaptureFixture
) -> None:
    """The logging policy (docs/architecture.md, "Logging") for the fuzzer's inputs: what a
    client causes is logged below ERROR, and at most ``client_log_burst`` lines per address,
    then ``client_log_rate`` a second, each run of lines left out summed up in one line. Every
    refused frame used to be logged, with the address: a client could write the log as fast
    as it could send."""
    run, fuzzer = fuzz
    for kind in sorted(FIELDS):
        run_property(cases(kind), lambda case: run(fuzzer.check_frame(case)), LOG_FRAMES)
    run_property(entries(), lambda entry: run(fuzzer.check_entry(entry)), LOG_FRAMES)
    run_property(requests("create"), lambda r: run(fuzzer.check_request(r)), LOG_FRAMES)
    server = [r for r in caplog.records if not r.name.startswith("httpx")]
    assert not [r.getMessage() for r in server if r.levelno >= logging.ERROR or r.exc_info]
    settings = fuzzer.settings
    # The limit's clock moved a second per input: what the budget let through, plus at most
    # one line per run of lines left out.
    budget = settings.client_log_burst + settings.client_log_rate * fuzzer.clock.now
    refused = sum(r.getMessage().startswith("refused ") for r in server)
    for address in ("127.0.0.1", UNKNOWN):
        lines = [
            r
            for r in server
            if client_of(r) == address or f"more lines about {address} " in r.getMessage()
        ]
        assert len(lines) <= 2 * budget, (address, len(lines), budget)
    assert fuzzer.examples > 4 * budget and refused <= budget, "the fuzzer's inputs were many"
