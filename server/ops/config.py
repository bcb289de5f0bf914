"""Server settings, read once from the environment.

:class:`Settings` is a pydantic-settings model. Every field is a setting, read from
``PARLOR_<FIELD NAME IN CAPITALS>`` (``port`` from ``PARLOR_PORT``) unless it names another
variable (``redis_url`` is ``REDIS_URL``, the name Redis tools already use). A variable's text is
stripped, then checked by pydantic against the field's annotation, so a field added later gets
its variable and its checks with no other code: its type (a bool is ``true``/``false``, or
``1``/``0``, ``yes``/``no``, ``on``/``off``; a number is finite) and its constraints (every
number says its bounds: ``PositiveFloat``, ``Field(ge=1)``…). A number or a bool refuses empty
text; elsewhere the annotation says what empty means: :data:`EMPTY_IS_NONE` (``None``),
:data:`COMMA_SEPARATED` (a list, blanks dropped: no items), :data:`NOT_EMPTY` (refused, for a
``str`` or ``Path`` that would take it), or a pattern (``REDIS_URL``'s allows it).

An unset variable keeps the default. :meth:`Settings.from_env` reads them all and raises one
:class:`SettingsError` naming every bad variable and what it expects (said from the field's
JSON schema), so a misconfigured server refuses to start instead of failing later.
``docs/deploy.md`` lists every variable (a test compares the two).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Self

from pydantic import (
    AliasGenerator,
    BeforeValidator,
    DirectoryPath,
    Field,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    ValidationError,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

_DEFAULT_STATIC = Path(__file__).resolve().parents[2] / "client-web"


# -- how a variable's text is read where a type alone does not say it ------------------------


def _comma_separated(value: object) -> object:
    if isinstance(value, str):
        return tuple(item.strip() for item in value.split(",") if item.strip())
    return value


def _empty_is_none(value: object) -> object:
    return None if value == "" else value


def _not_empty(value: object) -> object:
    if value == "":
        raise ValueError("empty")
    return value


#: A list in one variable: comma-separated, blanks dropped (so empty is the empty list).
COMMA_SEPARATED = BeforeValidator(_comma_separated)
#: Empty means ``None``.
EMPTY_IS_NONE = BeforeValidator(_empty_is_none)
#: Refuses empty text where the type would take it (a ``Path`` would read it as ``.``).
NOT_EMPTY = BeforeValidator(_not_empty)

Port = Annotated[int, Field(ge=1, le=65535)]
#: A token bucket's burst: below 1 it would let nothing through.
Burst = Annotated[float, Field(ge=1)]
#: Empty means the embedded store (one process only): SQLite, or memory if ``ephemeral``.
RedisUrl = Annotated[
    str,
    Field(
        pattern=r"^(?:(?i:redis|rediss|unix)://.+)?$",
        description="a URL starting with redis://, rediss:// or unix://, or empty",
    ),
]
#: A Redis Cluster node.
ClusterNode = Annotated[
    str, Field(pattern=r"^[A-Za-z0-9._-]+:[0-9]{1,5}$", description="host:port")
]


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


class Settings(BaseSettings):
    """Everything tunable, so tests can build a server with small limits
    (``Settings().model_copy(update=...)``). The defaults suit one process on a laptop: port
    8000, embedded store (SQLite)."""

    model_config = SettingsConfigDict(
        frozen=True,
        alias_generator=AliasGenerator(validation_alias=lambda name: f"PARLOR_{name.upper()}"),
        validate_by_name=True,
        allow_inf_nan=False,
    )

    host: Annotated[str, NOT_EMPTY] = "127.0.0.1"
    port: Port = 8000
    redis_url: RedisUrl = Field("", validation_alias="REDIS_URL")
    #: ``redis_url`` names one node of a Redis Cluster: use the cluster client (every master,
    #: sharded pub/sub). Without ``redis_url`` it has no effect.
    redis_cluster: bool = False
    #: More nodes of that Redis Cluster, ``host:port`` each: the cluster client learns the
    #: cluster from the first one of these and ``redis_url``'s node that answers, so a new
    #: instance starts while any of them is alive (a rolling deploy after a failover).
    redis_cluster_nodes: Annotated[tuple[ClusterNode, ...], COMMA_SEPARATED] = ()
    #: The SQLite file of the embedded store (used without ``redis_url``); None: the per-user
    #: data directory, see :func:`data_file`.
    data_path: Annotated[Path | None, EMPTY_IS_NONE] = None
    #: Without ``redis_url``: keep rooms in this process's memory only (gone when it stops).
    ephemeral: bool = False
    #: Browser origins allowed to open a WebSocket. Same-origin pages are always allowed, and
    #: so are clients that send no Origin (non-browser tools); ``*`` allows every origin.
    allowed_origins: Annotated[tuple[str, ...], COMMA_SEPARATED] = ()
    static_dir: Annotated[DirectoryPath, NOT_EMPTY] = _DEFAULT_STATIC

    #: Seconds a bot waits before acting, so people can follow what happened.
    bot_delay: NonNegativeFloat = 0.6
    #: Smallest turn timer a room may set (tests lower it).
    min_turn_timer: PositiveFloat = 5.0
    max_turn_timer: PositiveFloat = 600.0
    #: Longest a game's pause may last, in seconds: a phase that ends by itself, such as
    #: Number Swap's round end, which asks for 30 s (``Game.pause_limit``). Tests lower it.
    max_pause: NonNegativeFloat = 60.0
    #: Seconds the host's start (or rematch) waits for every seated person's browser to
    #: commit to its contribution before the commitments are locked without the missing
    #: ones (0: lock what there is at once), and then for the locked values to be revealed
    #: (docs/fairplay.md).
    commit_window: NonNegativeFloat = 15.0
    reveal_window: NonNegativeFloat = 10.0
    #: A room nobody touched for this long disappears.
    room_ttl: PositiveFloat = 24 * 3600.0
    #: A turn-based room (played by text, over days) lives this long after its last change.
    turn_room_ttl: PositiveFloat = 30 * 24 * 3600.0
    #: Seconds between an instance's looks for turn-based rooms that need a move nobody has
    #: them open to make (a bot's turn, a turn timer that ran out: server/runtime/waker.py).
    wake_interval: PositiveFloat = 30.0

    #: Largest frame the protocol accepts; bigger ones are refused and the socket is closed.
    max_frame: PositiveInt = 4096
    #: Frames waiting to be written to one connection before it counts as too slow.
    send_queue: PositiveInt = 64
    #: Token bucket per connection: sustained messages per second and burst.
    flood_rate: PositiveFloat = 20.0
    flood_burst: Burst = 40.0
    #: Refused messages (flood or bad frames) before the connection is closed.
    max_strikes: PositiveInt = 20
    #: Log lines one client address may cause (refused frames, refused connections, resets,
    #: uvicorn's lines about its connections): in a burst, then sustained per second; the rest
    #: are counted and left out (docs/architecture.md, "Logging").
    client_log_burst: Burst = 10.0
    client_log_rate: PositiveFloat = 0.1
    #: Rooms one client address may create: sustained per second, and burst.
    create_rate: PositiveFloat = 0.2
    create_burst: Burst = 10.0
    chat_max_len: PositiveInt = 200
    chat_keep: PositiveInt = 50
    chat_rate: PositiveFloat = 1.0
    chat_burst: Burst = 5.0
    name_max_len: PositiveInt = 24
    #: Attempts at one compare-and-set before answering "conflict".
    max_retries: PositiveInt = 50
    #: How long an instance's presence claims last without a heartbeat.
    presence_ttl: PositiveFloat = 30.0
    #: Move log entries kept per room (approximate trim).
    log_max: PositiveInt = 10_000
    #: Seconds a person may be disconnected while it is their turn (or while they are host)
    #: before a bot plays for them (or host passes to someone connected).
    away_grace: PositiveFloat = 15.0
    #: Seconds between the checks that every room served here is what the store holds
    #: (the bound on how long a missed notice can keep a client behind).
    check_interval: PositiveFloat = 1.0
    #: Seconds an HTTP request body may take to arrive.
    body_timeout: PositiveFloat = 10.0
    #: Seconds any one Redis call may take before it counts as unavailable.
    redis_timeout: PositiveFloat = 1.0

    #: Seconds a new HTTP connection (or a kept-alive one that has begun its next request) may
    #: take to send a complete request line and headers; then it is reset.
    header_timeout: PositiveFloat = 10.0
    #: Seconds a WebSocket may stay open without sending ``join``, ``resume`` or ``watch``.
    join_timeout: PositiveFloat = 10.0
    #: WebSockets one client address may hold open at once on this instance (behind a trusted
    #: proxy, the forwarded address); more are refused at the upgrade.
    max_connections_per_address: PositiveInt = 64
    #: Seconds a closing WebSocket is given to finish its close (a peer that stopped reading
    #: never does); then its TCP connection is reset, which frees its buffers at once.
    close_timeout: PositiveFloat = 2.0
    #: Seconds between the server's WebSocket pings to each connection.
    ws_ping_interval: PositiveFloat = 5.0
    #: Seconds a connection may take to answer a ping before it is closed as gone.
    ws_ping_timeout: PositiveFloat = 5.0
    #: Seconds a graceful shutdown waits for requests and connections before cancelling them.
    shutdown_timeout: PositiveFloat = 10.0
    #: Run on uvicorn's own HTTP and WebSocket protocols, the app speaking plain ASGI to its
    #: sockets, instead of Parlor's (server/transport/serving.py: the direct send path, and the
    #: bounds uvicorn lacks). For checking the app on stock uvicorn; slower, and unbounded.
    plain_asgi: bool = False
    #: Instance processes ``parlor serve`` runs on the one port (a supervisor routes each
    #: connection to one of them by its room code), each a full instance. None: one per core
    #: with Redis, 1 with the embedded store (which allows no more).
    workers: Annotated[Annotated[int, Field(ge=1, le=1024)] | None, EMPTY_IS_NONE] = None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only the values passed: ``Settings()`` is the defaults whatever the environment
        holds (tests build on them), and :meth:`from_env` reads the environment it is given."""
        return (init_settings,)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Self:
        """The defaults, overridden by every variable set in ``env`` (``os.environ``)."""
        env = os.environ if env is None else env
        try:
            return cls(**_Environment(cls, env)())
        except ValidationError as error:
            raise SettingsError(_problems(cls, error, env)) from None

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        """Values that are fine alone but not together (checked once each is fine)."""
        if self.min_turn_timer > self.max_turn_timer:
            high = variables(type(self))["max_turn_timer"]
            limit = f"at most {high} ({_number(self.max_turn_timer)})"
            raise _conflict(self, "min_turn_timer", _number(self.min_turn_timer), limit)
        if self.workers is not None and self.workers > 1 and not self.redis_url:
            only = "1 with the embedded store (set REDIS_URL to run more workers)"
            raise _conflict(self, "workers", str(self.workers), only)
        return self

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with the fields in ``update`` changed, unchecked (tests' variants), refusing a
        name that is no field as ``dataclasses.replace`` does: pydantic would keep it aside
        silently, and a test would run with the setting it meant to change unchanged."""
        unknown = sorted(set(update or {}) - set(type(self).model_fields))
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {', '.join(unknown)}")
        return super().model_copy(update=update, deep=deep)

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
    return {name: _variable(field) for name, field in settings.model_fields.items()}


def _variable(field: FieldInfo) -> str:
    # Every field has one: its own, or the alias generator's.
    return str(field.validation_alias)


# -- reading the environment, and saying what was wrong with it ------------------------------


class _Environment(PydanticBaseSettingsSource):
    """Each field's variable in ``env``, by its exact name, stripped. (pydantic-settings'
    EnvSettingsSource reads only ``os.environ``, folds case, also tries a field's bare name
    and decodes lists as JSON.)"""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        super().__init__(settings_cls)
        self.env = env

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        variable = _variable(field)
        text = self.env.get(variable)
        return (None if text is None else text.strip()), variable, False

    def __call__(self) -> dict[str, Any]:
        fields = self.settings_cls.model_fields.items()
        found = (self.get_field_value(field, name) for name, field in fields)
        return {variable: text for text, variable, _ in found if text is not None}


def _conflict(settings: Settings, field: str, value: str, expected: str) -> PydanticCustomError:
    variable = variables(type(settings))[field]
    context = {"variable": variable, "value": value, "expected": expected}
    return PydanticCustomError("conflict", "{variable}={value}: expected {expected}", context)


def _problems(
    settings: type[Settings], error: ValidationError, env: Mapping[str, str]
) -> list[Problem]:
    """One problem per variable pydantic refused, in field order."""
    schemas = settings.model_json_schema()["properties"]
    names = variables(settings)
    found: dict[str, Problem] = {}
    for line in error.errors():
        if line["type"] == "conflict":
            context = line["ctx"]
            variable = context["variable"]
            found[variable] = Problem(variable, context["value"], context["expected"])
            continue
        # The variable, or the field's name where its default was refused (a static_dir that
        # is not there); further items of loc say where in a list, or which type.
        where = str(line["loc"][0])
        variable = names.get(where, where)
        if variable not in found:
            value = env.get(variable, str(line["input"]))
            found[variable] = Problem(variable, _shown(value), _expected(schemas[variable]))
    return [found[v] for v in names.values() if v in found]


def _shown(raw: str) -> str:
    # A URL's password does not belong in an error message that ends up in logs.
    return re.sub(r"(//[^:/@]*:)[^@]*@", r"\1***@", raw)


def _expected(schema: Mapping[str, Any]) -> str:
    """What a variable may hold, said from its field's JSON schema (a description, where the
    type has one, says it)."""
    if "description" in schema:
        return str(schema["description"])
    if "anyOf" in schema:  # X | None
        (kind,) = (option for option in schema["anyOf"] if option.get("type") != "null")
        return _expected(kind) + ", or empty for none"
    if "enum" in schema:
        return "one of " + _alternatives(str(choice) for choice in schema["enum"])
    kind = schema.get("type")
    if kind == "boolean":
        return "true or false"
    if kind == "array":
        return "a comma-separated list of " + _expected(schema["items"])
    if kind in ("integer", "number"):
        return " ".join(("a whole number" if kind == "integer" else "a number", *_bounds(schema)))
    if schema.get("format") == "directory-path":
        return "an existing directory"
    if schema.get("format") == "path":
        return "a path"
    return "a non-empty value"


def _bounds(schema: Mapping[str, Any]) -> tuple[str, ...]:
    if "exclusiveMinimum" in schema:
        return (f"greater than {_number(schema['exclusiveMinimum'])}",)
    if "minimum" not in schema:
        return ()
    low, high = _number(schema["minimum"]), schema.get("maximum")
    return (f"of at least {low}",) if high is None else (f"from {low} to {_number(high)}",)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _alternatives(items: Iterable[str]) -> str:
    *first, last = items
    return f"{', '.join(first)} or {last}" if first else last
