"""The contract between server/transport/serving.py and the library internals it extends.

serving.py subclasses uvicorn's sans-I/O WebSocket protocol and its httptools HTTP protocol,
reads and writes their private fields, restarts python-websockets' frame parser and writes
frame headers itself. None of that is public API: a new uvicorn or websockets may change it
without a word. This test names every internal the module relies on and fails, saying which,
the moment an installed version no longer has it — before a subtle failure in production
would. The behaviour itself (frames written by ``send_frame`` read by a real client, resets,
closes) is what the rest of the server suite runs on.
"""

from __future__ import annotations

import inspect
import re
from importlib.metadata import version

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN, Protocol
from websockets.streams import StreamReader

from server.transport import serving

#: Fields of uvicorn's WebSocket protocol object serving.py reads or sets.
WS_FIELDS = (
    "conn",
    "writable",
    "close_sent",
    "disconnected",
    "frames",
    "curr_msg_data_type",
    "queue",
    "read_paused",
    "handshake_initiated",
    "handshake_complete",
    "initial_response",
    "request",
    "response",
    "scope",
    "transport",
    "close_timeout",
    "close_timer",
    "loop",
    "logger",
    "client",
)
#: Methods of it serving.py overrides or calls, each meant as uvicorn means it.
WS_METHODS = (
    "send_receive_event_to_app",
    "handle_parser_exception",
    "handle_connect",
    "resume_writing",
    "connection_lost",
    "data_received",
    "keepalive_timeout",
    "shutdown",
    "run_asgi",
    "send",
)
HTTP_FIELDS = ("transport", "loop", "client")
HTTP_METHODS = ("connection_made", "on_message_begin", "on_headers_complete", "connection_lost")


def _assigned(cls: type) -> set[str]:
    """The ``self.<field>`` a class's own source assigns."""
    return set(re.findall(r"self\.(\w+)\s*(?::[^=]+)?=", inspect.getsource(cls)))


def test_the_pinned_versions_are_the_ones_this_contract_was_checked_with() -> None:
    """A new major line of either library is read against this contract first: bump these
    (and the pin in pyproject.toml) only after this file's checks pass on it."""
    uvicorn = tuple(int(x) for x in version("uvicorn").split(".")[:2])
    websockets = int(version("websockets").split(".")[0])
    assert (0, 52) <= uvicorn < (0, 55), version("uvicorn")
    assert 13 <= websockets < 18, version("websockets")


def test_uvicorns_websocket_protocol_still_has_every_field_and_method_serving_uses() -> None:
    fields = _assigned(WebSocketsSansIOProtocol)
    missing = [f for f in WS_FIELDS if f not in fields and not hasattr(WebSocketsSansIOProtocol, f)]
    assert missing == [], f"uvicorn's WebSocketsSansIOProtocol no longer sets {missing}"
    gone = [m for m in WS_METHODS if not callable(getattr(WebSocketsSansIOProtocol, m, None))]
    assert gone == [], f"uvicorn's WebSocketsSansIOProtocol no longer has {gone}"
    # uvicorn's received-message queue is replaced by serving._Inbox: it must still use only
    # what _Inbox offers.
    used = set(re.findall(r"self\.queue\.(\w+)", inspect.getsource(WebSocketsSansIOProtocol)))
    assert used <= {"put_nowait", "get", "empty", "qsize"}, used


def test_uvicorns_http_protocol_still_has_every_field_and_method_serving_uses() -> None:
    fields = _assigned(HttpToolsProtocol)
    missing = [f for f in HTTP_FIELDS if f not in fields]
    assert missing == [], f"uvicorn's HttpToolsProtocol no longer sets {missing}"
    gone = [m for m in HTTP_METHODS if not callable(getattr(HttpToolsProtocol, m, None))]
    assert gone == [], f"uvicorn's HttpToolsProtocol no longer has {gone}"


def test_websockets_frame_parser_can_still_be_restarted_as_serving_does() -> None:
    """_let_go_of_handshake replaces ``conn.parser`` with a fresh ``Protocol.parse(conn)``
    generator and primes it, relying on ``conn.reader.buffer`` and ``conn.state``."""
    assert inspect.isgeneratorfunction(Protocol.parse)
    assert "buffer" in _assigned(StreamReader) or hasattr(StreamReader(), "buffer")
    for name in ("parser", "reader", "state"):
        assert name in _assigned(Protocol), f"websockets' Protocol no longer sets {name}"
    assert OPEN is not None


def test_the_hand_built_frame_header_is_what_websockets_itself_writes() -> None:
    """send_frame writes an unmasked frame's header itself (serving._header): byte for byte the
    head websockets serializes, for each of the three length forms."""
    for size in (0, 125, 126, 65535, 65536, 70000):
        for opcode, code in ((Opcode.TEXT, 1), (Opcode.BINARY, 2)):
            payload = b"x" * size
            written = Frame(opcode, payload).serialize(mask=False, extensions=[])
            assert serving._header(code, size) + payload == written, (size, opcode)
