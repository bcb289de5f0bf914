"""Server settings, read once from the environment.

Every field of :class:`Settings` is a setting, read from ``PARLOR_<FIELD NAME IN CAPITALS>``
(``port`` from ``PARLOR_PORT``) unless its annotation names another variable with :class:`Env`
(``redis_url`` is ``REDIS_URL``, the name Redis tools already use). The annotation also says how
the text is read and what is allowed, so a field added later gets its variable and its checks
with no other code:

- ``int`` and ``float``: greater than 0, unless a :class:`Range` says otherwise;
- ``str``: not empty, unless marked :data:`MAY_BE_EMPTY`; :class:`Schemes` asks for a URL;
- ``Path``: not empty; :data:`EXISTING_DIR` asks for a directory that exists;
- ``bool``: ``true``/``false`` (or ``1``/``0``, ``yes``/``no``, ``on``/``off``);
- a ``Literal``: one of its values; ``tuple[X, ...]``: comma-separated, blanks dropped;
- ``X | None``: empty means ``None``.

An unset variable keeps the default. :meth:`Settings.from_env` reads them all and raises one
:class:`SettingsError` naming every bad variable, so a misconfigured server refuses to start
instead of failing later. ``docs/deploy.md`` lists every variable (a test compares the two).
"""

from __future__ import annotations

import math
import os
import re
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Annotated, Any, Literal, Self

_DEFAULT_STATIC = Path(__file__).resolve().parents[2] / "client-web"


# -- what an annotation may say about its variable -------------------------------------------


@dataclass(frozen=True, slots=True)
class Env:
    """The variable's name, where it is not ``PARLOR_<FIELD>``."""

    name: str


@dataclass(frozen=True, slots=True)
class Range:
    """Numbers from ``low`` to ``high``, both included (``None``: no upper bound)."""

    low: float
    high: float | None = None


@dataclass(frozen=True, slots=True)
class Schemes:
    """A URL with one of these schemes (``redis`` allows ``redis://…``)."""

    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Pattern:
    """Text that matches ``regex`` whole, described to a person as ``described``."""

    regex: str
    described: str


@dataclass(frozen=True, slots=True)
class _Mark:
    name: str

    def __repr__(self) -> str:
        return self.name


#: Marks a ``str`` setting whose empty value means something.
MAY_BE_EMPTY = _Mark("MAY_BE_EMPTY")
#: Marks a ``Path`` setting that must name an existing directory.
EXISTING_DIR = _Mark("EXISTING_DIR")

#: WebSocket implementations of uvicorn that the installed packages provide.
#: Empty means the embedded store (one process only): SQLite, or memory if ``ephemeral``.
RedisUrl = Annotated[str, Env("REDIS_URL"), Schemes(("redis", "rediss", "unix")), MAY_BE_EMPTY]
#: A Redis Cluster node, ``host:port``.
ClusterNode = Annotated[str, Pattern(r"[A-Za-z0-9._-]+:[0-9]{1,5}", "host:port")]


# -- errors ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Problem:
    """One variable whose value the server cannot run with."""

    variable: str
    value: str
    expected: str

    def __str__(self) -> str:
        if self.value.strip():
            return f"{self.variable}={self.value!r}: expected {self.expected}"
        return f"{self.variable} is empty: expected {self.expected} (unset it for the default)"


class SettingsError(ValueError):
    """Some environment variables hold bad values; ``problems`` has one entry per variable."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        lines = "".join(f"\n  {problem}" for problem in self.problems)
        super().__init__(f"bad settings in the environment:{lines}")


# -- the settings ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything tunable, so tests can build a server with small limits (``replace`` on
    ``Settings()``). The defaults suit one process on a laptop: port 8000, embedded store
    (SQLite)."""

    host: str = "127.0.0.1"
    port: Annotated[int, Range(1, 65535)] = 8000
    redis_url: RedisUrl = ""
    #: ``redis_url`` names one node of a Redis Cluster: use the cluster client (every master,
    #: sharded pub/sub). Without ``redis_url`` it has no effect.
    redis_cluster: bool = False
    #: More nodes of that Redis Cluster, ``host:port`` each: the cluster client learns the
    #: cluster from the first one of these and ``redis_url``'s node that answers, so a new
    #: instance starts while any of them is alive (a rolling deploy after a failover).
    redis_cluster_nodes: tuple[ClusterNode, ...] = ()
    #: The SQLite file of the embedded store (used without ``redis_url``); None: the per-user
    #: data directory, see :func:`data_file`.
    data_path: Path | None = None
    #: Without ``redis_url``: keep rooms in this process's memory only (gone when it stops).
    ephemeral: bool = False
    #: Browser origins allowed to open a WebSocket. Same-origin pages are always allowed, and
    #: so are clients that send no Origin (non-browser tools); ``*`` allows every origin.
    allowed_origins: tuple[str, ...] = ()
    static_dir: Annotated[Path, EXISTING_DIR] = field(default=_DEFAULT_STATIC)

    #: Seconds a bot waits before acting, so people can follow what happened.
    bot_delay: Annotated[float, Range(0)] = 0.6
    #: Smallest turn timer a room may set (tests lower it).
    min_turn_timer: float = 5.0
    max_turn_timer: float = 600.0
    #: Longest a game's pause may last, in seconds: a phase that ends by itself, such as
    #: Number Swap's round end, which asks for 30 s (``Game.pause_limit``). Tests lower it.
    max_pause: Annotated[float, Range(0)] = 60.0
    #: Seconds the host's start (or rematch) waits for every seated person's browser to
    #: commit to its contribution before the commitments are locked without the missing
    #: ones (0: lock what there is at once), and then for the locked values to be revealed
    #: (docs/fairplay.md).
    commit_window: Annotated[float, Range(0)] = 15.0
    reveal_window: Annotated[float, Range(0)] = 10.0
    #: A room nobody touched for this long disappears.
    room_ttl: float = 24 * 3600.0

    #: Largest frame the protocol accepts; bigger ones are refused and the socket is closed.
    max_frame: int = 4096
    #: Frames waiting to be written to one connection before it counts as too slow.
    send_queue: int = 64
    #: Token bucket per connection: sustained messages per second and burst. A burst below 1
    #: would let nothing through, so the bursts start at 1.
    flood_rate: float = 20.0
    flood_burst: Annotated[float, Range(1)] = 40.0
    #: Refused messages (flood or bad frames) before the connection is closed.
    max_strikes: int = 20
    #: Log lines one client address may cause (refused frames, refused connections, resets,
    #: uvicorn's lines about its connections): in a burst, then sustained per second; the rest
    #: are counted and left out (docs/architecture.md, "Logging").
    client_log_burst: Annotated[float, Range(1)] = 10.0
    client_log_rate: float = 0.1
    #: Rooms one client address may create: sustained per second, and burst.
    create_rate: float = 0.2
    create_burst: Annotated[float, Range(1)] = 10.0
    chat_max_len: int = 200
    chat_keep: int = 50
    chat_rate: float = 1.0
    chat_burst: Annotated[float, Range(1)] = 5.0
    name_max_len: int = 24
    #: Attempts at one compare-and-set before answering "conflict".
    max_retries: int = 50
    #: How long an instance's presence claims last without a heartbeat.
    presence_ttl: float = 30.0
    #: Move log entries kept per room (approximate trim).
    log_max: int = 10_000
    #: Seconds a person may be disconnected while it is their turn (or while they are host)
    #: before a bot plays for them (or host passes to someone connected).
    away_grace: float = 15.0
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
    #: Seconds between the server's WebSocket pings to each connection.
    ws_ping_interval: float = 5.0
    #: Seconds a connection may take to answer a ping before it is closed as gone.
    ws_ping_timeout: float = 5.0
    #: Seconds a graceful shutdown waits for requests and connections before cancelling them.
    shutdown_timeout: float = 10.0
    #: Instance processes ``parlor serve`` runs on the one port (SO_REUSEPORT), each a full
    #: instance. None: one per core with Redis, 1 with the embedded store (which allows no more).
    workers: Annotated[int | None, Range(1, 1024)] = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Self:
        """The defaults, overridden by every variable set in ``env`` (``os.environ``)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        problems: list[Problem] = []
        for spec in _specs(cls):
            raw = env.get(spec.variable)
            if raw is None:
                continue
            try:
                values[spec.field] = spec.read(raw)
            except ValueError:
                problems.append(Problem(spec.variable, spec.shown(raw), spec.expected))
        settings = replace(cls(), **values)
        # Only values that are each fine can be compared with one another.
        problems = problems or settings._conflicts()
        if problems:
            raise SettingsError(problems)
        return settings

    def _conflicts(self) -> list[Problem]:
        """Values that are fine alone but not together."""
        if self.min_turn_timer > self.max_turn_timer:
            names = variables(type(self))
            low, high = names["min_turn_timer"], names["max_turn_timer"]
            limit = f"at most {high} ({_number(self.max_turn_timer)})"
            return [Problem(low, _number(self.min_turn_timer), limit)]
        if self.workers is not None and self.workers > 1 and not self.redis_url:
            only = "1 with the embedded store (set REDIS_URL to run more workers)"
            return [Problem(variables(type(self))["workers"], str(self.workers), only)]
        return []

    def worker_count(self) -> int:
        """How many instance processes to run: ``workers``, else one per core available to
        this process with Redis, and 1 with the embedded store."""
        if self.workers is not None:
            return self.workers
        if not self.redis_url:
            return 1
        return max(1, len(os.sched_getaffinity(0)))


def data_file(settings: Settings, env: Mapping[str, str] | None = None) -> Path:
    """The embedded store's SQLite file: ``data_path`` (``~`` expanded, made absolute), else
    ``rooms.sqlite3`` in the per-user data directory, ``$XDG_DATA_HOME/parlor``
    (``~/.local/share/parlor`` when that is unset), which does not depend on where the server
    was started from and is not inside the checkout."""
    if settings.data_path is not None:
        return settings.data_path.expanduser().absolute()
    env = os.environ if env is None else env
    base = env.get("XDG_DATA_HOME", "").strip()
    # The XDG spec ignores a relative XDG_DATA_HOME.
    home = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "share"
    return home / "parlor" / "rooms.sqlite3"


def variables(settings: type[Settings] = Settings) -> dict[str, str]:
    """Each Settings field's environment variable, in field order."""
    return {spec.field: spec.variable for spec in _specs(settings)}


# -- reading a variable ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Spec:
    """How one field's variable is read: ``read`` turns its text into the value or refuses."""

    field: str
    variable: str
    read: Callable[[str], object]
    expected: str
    secret_userinfo: bool

    def shown(self, raw: str) -> str:
        # A URL's password does not belong in an error message that ends up in logs.
        return re.sub(r"(//[^:/@]*:)[^@]*@", r"\1***@", raw) if self.secret_userinfo else raw


_SPECS: dict[type[Settings], tuple[_Spec, ...]] = {}


def _specs(settings: type[Settings]) -> tuple[_Spec, ...]:
    if settings not in _SPECS:
        hints = typing.get_type_hints(settings, include_extras=True)
        _SPECS[settings] = tuple(_spec(f.name, hints[f.name]) for f in fields(settings))
    return _SPECS[settings]


def _unwrap(annotation: Any, marks: tuple[Any, ...] = ()) -> tuple[Any, tuple[Any, ...]]:
    """A type without its ``Annotated`` wrapper, and the marks it carried."""
    if typing.get_origin(annotation) is Annotated:
        kind, *extra = typing.get_args(annotation)
        return kind, marks + tuple(extra)
    return annotation, marks


def _spec(name: str, annotation: Any) -> _Spec:
    annotation, marks = _unwrap(annotation)
    variable = next((m.name for m in marks if isinstance(m, Env)), f"PARLOR_{name.upper()}")

    optional = False
    if typing.get_origin(annotation) in (types.UnionType, typing.Union):
        rest = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(rest) != 1:
            raise TypeError(f"Settings.{name}: no environment reader for {annotation!r}")
        annotation, optional = rest[0], True

    read: Callable[[str], object]
    empty: object = None  # what an empty value means; None: refused
    if typing.get_origin(annotation) is tuple:
        item, dots = typing.get_args(annotation)
        if dots is not Ellipsis:
            raise TypeError(f"Settings.{name}: only tuple[X, ...] can be read, not {annotation!r}")
        read_item, item_expected = _scalar(name, *_unwrap(item, marks))

        def read_items(text: str) -> object:
            return tuple(read_item(part.strip()) for part in text.split(",") if part.strip())

        read, expected, empty = read_items, f"a comma-separated list of {item_expected}", ()
    else:
        read, expected = _scalar(name, annotation, marks)
        if MAY_BE_EMPTY in marks:
            if annotation is not str:
                raise TypeError(f"Settings.{name}: only a str setting may be empty")
            empty, expected = "", expected + ", or empty"

    if optional:
        expected += ", or empty for none"

    def read_text(raw: str) -> object:
        text = raw.strip()
        if text:
            return read(text)
        if optional:
            return None
        if empty is None:
            raise ValueError("empty")
        return empty

    secret = any(isinstance(m, Schemes) for m in marks)
    return _Spec(name, variable, read_text, expected, secret)


def _scalar(name: str, kind: Any, marks: tuple[Any, ...]) -> tuple[Callable[[str], object], str]:
    """The reader of one non-empty, stripped text, and what it expects."""
    limits = next((m for m in marks if isinstance(m, Range)), None)
    if kind is bool:
        return _bool, "true or false"
    if kind is int:
        return _bounded(int, limits), "a whole number " + _range_text(limits)
    if kind is float:
        return _bounded(_finite, limits), "a number " + _range_text(limits)
    if kind is str:
        pattern = next((m for m in marks if isinstance(m, Pattern)), None)
        if pattern is not None:
            return _matching(pattern.regex), pattern.described
        schemes = next((m.names for m in marks if isinstance(m, Schemes)), None)
        if schemes is None:
            return str, "a non-empty value"
        return _url(schemes), "a URL starting with " + _alternatives(f"{s}://" for s in schemes)
    if kind is Path:
        if EXISTING_DIR in marks:
            return _directory, "an existing directory"
        return Path, "a path"
    if typing.get_origin(kind) is Literal:
        choices = tuple(str(c) for c in typing.get_args(kind))

        def choose(text: str) -> str:
            if text not in choices:
                raise ValueError(text)
            return text

        return choose, "one of " + _alternatives(choices)
    raise TypeError(f"Settings.{name}: no environment reader for {kind!r}")


def _bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


def _directory(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise ValueError(text)
    return path


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(text)
    return number


def _bounded(
    convert: Callable[[str], int] | Callable[[str], float], limits: Range | None
) -> Callable[[str], object]:
    def read(text: str) -> object:
        number = convert(text)
        if limits is None:
            ok = number > 0
        else:
            ok = number >= limits.low and (limits.high is None or number <= limits.high)
        if not ok:
            raise ValueError(text)
        return number

    return read


def _matching(regex: str) -> Callable[[str], str]:
    compiled = re.compile(regex)

    def read(text: str) -> str:
        if not compiled.fullmatch(text):
            raise ValueError(text)
        return text

    return read


def _url(schemes: tuple[str, ...]) -> Callable[[str], str]:
    def read(text: str) -> str:
        scheme, sep, rest = text.partition("://")
        if not sep or scheme.lower() not in schemes or not rest:
            raise ValueError(text)
        return text

    return read


def _range_text(limits: Range | None) -> str:
    if limits is None:
        return "greater than 0"
    if limits.high is None:
        return f"of at least {_number(limits.low)}"
    return f"from {_number(limits.low)} to {_number(limits.high)}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _alternatives(items: Iterable[str]) -> str:
    *first, last = items
    return f"{', '.join(first)} or {last}" if first else last
