"""The ``parlor`` command: ``serve`` runs the room server; ``rooms``, ``room`` and ``games``
ask a running server (over its HTTP API, so they work with either store); ``verify`` checks a
game record on its own (docs/fairplay.md)."""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import socket
import sys
import urllib.error
import urllib.request
from typing import Any

from server.ops.config import Settings, SettingsError, variables

#: ``parlor serve``'s exit status when its SQLite file is in use by another process
#: (docs/deploy.md, "Exit status").
EXIT_STORE_IN_USE = 4


def _serve(args: argparse.Namespace) -> int:
    from server.ops.supervisor import Supervisor

    # A flag stands for its variable, so it is read and checked the same way.
    env = dict(os.environ)
    flags = {
        "host": args.host,
        "port": args.port,
        "redis_url": args.redis,
        "ephemeral": "true" if args.ephemeral else None,
        "workers": args.workers,
    }
    for name, value in flags.items():
        if value is not None:
            env[variables()[name]] = value
    try:
        settings = Settings.from_env(env)
    except SettingsError as exc:
        print(f"parlor serve: {exc}", file=sys.stderr)
        return 2
    if not settings.redis_url and not settings.ephemeral:
        from server.ops.config import data_file
        from server.stores.sqlite_store import held_by_another

        path = data_file(settings)
        if held_by_another(path):
            print(
                f"parlor serve: {path} is in use by another parlor serve (one process per file);"
                " stop it, or set PARLOR_DATA_PATH to another file",
                file=sys.stderr,
            )
            return EXIT_STORE_IN_USE
    count = settings.worker_count()
    form = "%(asctime)s %(levelname)s %(name)s %(message)s"
    if count > 1:
        form = "%(asctime)s %(levelname)s [%(process)d] %(name)s %(message)s"
    logging.basicConfig(level=logging.INFO, format=form)
    if count == 1:
        return _instance(settings)

    def work(slot: int, channel: socket.socket) -> int:
        return _instance(settings, channel, worker=True)

    return Supervisor(settings, count, work).run()


def _instance(
    settings: Settings, channel: socket.socket | None = None, *, worker: bool = False
) -> int:
    """One instance: the app on the configured address (a worker: on the connections the
    supervisor hands it on ``channel``), until drained."""
    from server.ops.supervisor import run_instance
    from server.transport.serving import uvicorn_options
    from server.web.app import create_app

    app = create_app(settings)
    tune_gc()
    return run_instance(settings, app, uvicorn_options(settings), channel, worker=worker)


#: Collections of the youngest two generations as Python makes them (700 allocations, then
#: every 10th), but a full collection only after 1,000 of the middle one instead of 10. A full
#: collection scans every object the process holds: about half a second, with every client
#: waiting, at 8,000 connections (docs/benchmarks.md, "Cost growth"). Cycles nearly always
#: die young and are found by the young collections; the rare older ones wait longer.
GC_THRESHOLD = (700, 10, 1_000)


def tune_gc() -> None:
    """Never scan what was loaded at start-up (modules, the games, the app) again, and make
    full collections rare (see :data:`GC_THRESHOLD`)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


def _get(url: str) -> Any:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return json.load(response)
    except urllib.error.HTTPError as exc:
        return json.load(exc)


def _rooms(args: argparse.Namespace) -> int:
    for room in _get(f"{args.url}/api/rooms"):
        seats = ", ".join(
            s["name"]
            + (" (bot)" if s.get("bot") else "")
            + ("" if s["connected"] or s.get("bot") else " (away)")
            for s in room["seats"]
        )
        print(
            f"{room['code']}  {room['game']:<12} {room['phase']:<9} v{room['version']:<5} {seats}"
        )
    return 0


def _room(args: argparse.Namespace) -> int:
    print(json.dumps(_get(f"{args.url}/api/rooms/{args.code}"), indent=2))
    return 0


def _games(args: argparse.Namespace) -> int:
    for game in _get(f"{args.url}/api/games"):
        print(f"{game['id']:<12} {game['name']} ({game['min_seats']}-{game['max_seats']} seats)")
    return 0


class _Unreadable(Exception):
    """A file ``parlor verify`` cannot take as JSON."""


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused if it names a field twice (readers differ on which one wins)."""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _Unreadable(f"the field {json.dumps(key)} appears twice in one object")
        obj[key] = value
    return obj


def _no_constant(name: str) -> Any:
    raise _Unreadable(f"{name} is not JSON")


def _read_json(path: str) -> Any:
    """The JSON in ``path``, strictly (no NaN or Infinity, no field twice in an object).
    Raises :class:`_Unreadable` with the reason."""
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file, object_pairs_hook=_strict_object, parse_constant=_no_constant)
    except RecursionError:
        raise _Unreadable("it nests too deep") from None
    except (OSError, ValueError) as exc:
        raise _Unreadable(str(exc)) from None


def _verify(args: argparse.Namespace) -> int:
    """Exit status 0 only if the record (and the view log, if given) checks out in every
    respect; 1 if it does not; 2 if a file cannot be read. Everything printed that came from
    a file is escaped (server.fairplay.verify.printable)."""
    from server.fairplay.verify import printable, verify

    documents: list[Any] = []
    for path in (args.record, args.seen):
        if path is None:
            documents.append(None)
            continue
        try:
            documents.append(_read_json(path))
        except _Unreadable as exc:
            print(
                f"parlor verify: cannot read {printable(path)}: {printable(str(exc))}",
                file=sys.stderr,
            )
            return 2
    verdict = verify(documents[0], documents[1])
    if args.json:
        print(json.dumps(verdict.to_json()))  # ASCII only: every other character escaped
    else:
        # The problems, the verdict (the one line that starts OK, or FAIL: room), then what it
        # rests on, indented.
        for problem in verdict.problems:
            print(f"FAIL: {printable(problem)}")
        print(printable(verdict.line()))
        for note in verdict.notes:
            print(f"  note: {printable(note)}")
    return 0 if verdict.ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="parlor", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser(
        "serve",
        help="run the room server",
        description="Run the room server. Every setting comes from the environment "
        "(see docs/deploy.md); these flags override four of them.",
    )
    serve.add_argument("--host", help="address to bind (overrides PARLOR_HOST, default 127.0.0.1)")
    serve.add_argument("--port", help="port (overrides PARLOR_PORT, default 8000)")
    store = serve.add_mutually_exclusive_group()
    store.add_argument("--redis", help="Redis URL (overrides REDIS_URL; empty = embedded store)")
    store.add_argument(
        "--ephemeral",
        action="store_true",
        help="keep rooms in memory only, gone when the server stops (sets PARLOR_EPHEMERAL; "
        "default: the SQLite file PARLOR_DATA_PATH)",
    )
    serve.add_argument(
        "--workers",
        help="instance processes on the one port (overrides PARLOR_WORKERS; default: one per "
        "core with Redis, 1 with the embedded store, which allows no more)",
    )
    serve.set_defaults(run=_serve)
    default_url = "http://localhost:8000"
    for name, run, help_ in (
        ("rooms", _rooms, "list the rooms of a running server"),
        ("games", _games, "list the games a running server offers"),
    ):
        cmd = sub.add_parser(name, help=help_)
        cmd.add_argument("--url", default=default_url)
        cmd.set_defaults(run=run)
    room = sub.add_parser("room", help="show one room of a running server")
    room.add_argument("code")
    room.add_argument("--url", default=default_url)
    room.set_defaults(run=_room)
    verify = sub.add_parser(
        "verify",
        help="check a game record: its seeds, and a replay of every action through the rules",
        description="Check a game record strictly (docs/fairplay.md): its fields, its seeds "
        "and commitments, a replay of every action through the rules, every bot move picked "
        "again; with a view log, that every view your page was shown is the replay's. Exit "
        "status 0: it checks out; 1: it does not; 2: a file cannot be read.",
    )
    verify.add_argument(
        "record",
        help="a record as GET /api/rooms/CODE/games/N/record gives it, or a bundle "
        '{"record": ..., "seen": ...} as the browser\'s "Download my game" saves it',
    )
    verify.add_argument(
        "--seen",
        metavar="MYVIEWS",
        help="your page's view log (JSON): checked against the record",
    )
    verify.add_argument("--json", action="store_true", help="print the verdict as one JSON object")
    verify.set_defaults(run=_verify)
    args = parser.parse_args(argv)
    result: int = args.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
