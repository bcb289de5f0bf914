"""The server's packages are layers (docs/architecture.md, "The room server"): each imports only
from the packages after it in :data:`LAYERS`, and the pure ones import no I/O at all. A new
import across the grain fails here, naming the file."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"

#: Top to bottom. ``cli`` is the ``parlor`` command; ``errors`` and ``codes`` (the error codes and
#: the room codes) are leaves every layer may use.
LAYERS = (
    "cli",
    "web",
    "runtime",
    "transport",
    "rooms",
    "fairplay",
    "stores",
    "ops",
    "errors",
    "codes",
)
#: What the pure layers must never import (I/O, time, the event loop, the web framework).
IMPURE = ("asyncio", "redis", "sqlite3", "starlette", "uvicorn", "websockets", "socket", "time")


def _layer(path: Path) -> str:
    parts = path.relative_to(SERVER).parts
    return parts[0] if len(parts) > 1 else path.stem


def _imports(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "server":
                found += [f"server.{alias.name}" for alias in node.names]
            else:
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def _modules() -> list[Path]:
    return sorted(p for p in SERVER.rglob("*.py") if p.name != "__init__.py" or p.parent != SERVER)


def test_every_server_module_is_in_a_layer() -> None:
    strays = [str(p) for p in _modules() if _layer(p) not in LAYERS]
    assert strays == [], "a module outside the layers: add it to a package"


def test_each_layer_imports_only_the_layers_below_it() -> None:
    wrong = []
    for path in _modules():
        mine = LAYERS.index(_layer(path))
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] != "server" or len(parts) < 2:
                continue
            theirs = parts[1]
            if theirs != _layer(path) and LAYERS.index(theirs) < mine:
                wrong.append(f"{path.relative_to(SERVER)} imports {name}")
    assert wrong == []


def test_the_pure_layers_do_no_io() -> None:
    """The room commands and the fair-play code run the same on any machine: no clock, no
    sockets, no store."""
    wrong = []
    for path in _modules():
        if _layer(path) not in ("rooms", "fairplay", "errors", "codes"):
            continue
        for name in _imports(path):
            if name.split(".")[0] in IMPURE:
                wrong.append(f"{path.relative_to(SERVER)} imports {name}")
    assert wrong == []


def test_the_room_commands_know_no_wire_message() -> None:
    wrong = [
        f"{path.relative_to(SERVER)} imports {name}"
        for path in _modules()
        if _layer(path) == "rooms"
        for name in _imports(path)
        if name.startswith(("server.transport", "server.web", "pydantic"))
    ]
    assert wrong == []
