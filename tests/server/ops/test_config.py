"""Settings from the environment: every field has its variable, bad values are refused by name,
and docs/deploy.md lists exactly these variables with these defaults."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import DirectoryPath, Field, PositiveFloat

from server.ops.config import (
    COMMA_SEPARATED,
    EMPTY_IS_NONE,
    NOT_EMPTY,
    Settings,
    SettingsError,
    data_file,
    variables,
)

ROOT = Path(__file__).resolve().parents[3]


def refused(env: dict[str, str]) -> dict[str, str]:
    """Each refused variable and its line of the error."""
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env)
    lines = str(caught.value).splitlines()[1:]
    assert len(lines) == len(caught.value.problems)
    return {p.variable: line.strip() for p, line in zip(caught.value.problems, lines, strict=True)}


# -- good values ------------------------------------------------------------------------------


def test_unset_variables_keep_the_defaults() -> None:
    assert Settings.from_env({}) == Settings()


def test_variables_are_parlor_and_the_field_name_except_redis_url() -> None:
    names = variables()
    assert list(names) == list(Settings.model_fields)
    assert names["redis_url"] == "REDIS_URL"
    for name, variable in names.items():
        if name != "redis_url":
            assert variable == f"PARLOR_{name.upper()}"


def _schemas() -> dict[str, dict[str, Any]]:
    """Each field's JSON schema (what pydantic checks), by field name."""
    properties = Settings.model_json_schema()["properties"]
    return {name: properties[variable] for name, variable in variables().items()}


def _sample(schema: dict[str, Any], default: Any, tmp: Path) -> tuple[str, Any]:
    """A valid value other than the default, as environment text and as the expected value."""
    if "anyOf" in schema:  # X | None
        schema = next(s for s in schema["anyOf"] if s.get("type") != "null")
    kind = schema.get("type")
    if "enum" in schema:
        choice = next(c for c in schema["enum"] if c != default)
        return choice, choice
    if kind == "boolean":
        return str(not default).lower(), not default
    if kind == "integer":
        value = 2 if default is None else default + 1
        return str(value), value
    if kind == "number":
        return repr(default + 0.5), default + 0.5
    if schema.get("format") in ("path", "directory-path"):
        path = tmp if schema["format"] == "directory-path" else tmp / "sample"
        return str(path), path
    if kind == "string":
        text = "sample" if "pattern" not in schema else "unix://sample:6390/3"  # REDIS_URL
        return f" {text} ", text
    if kind == "array":
        if "pattern" in schema["items"]:  # host:port items
            return "redis-a:7001, ,redis-b:7002 ", ("redis-a:7001", "redis-b:7002")
        return "https://a.example, ,https://b.example ", ("https://a.example", "https://b.example")
    raise AssertionError(f"no sample for {schema!r}: teach this test the new kind of setting")


def test_a_value_set_for_every_field_arrives(tmp_path: Path) -> None:
    env: dict[str, str] = {}
    expected: dict[str, Any] = {}
    for name, schema in _schemas().items():
        env[variables()[name]], expected[name] = _sample(
            schema, getattr(Settings(), name), tmp_path
        )
    settings = Settings.from_env(env)
    assert {name: getattr(settings, name) for name in Settings.model_fields} == expected
    assert all(expected[name] != getattr(Settings(), name) for name in Settings.model_fields)


def test_empty_is_allowed_where_it_means_something() -> None:
    settings = Settings.from_env({"REDIS_URL": "", "PARLOR_ALLOWED_ORIGINS": " "})
    assert settings.redis_url == ""
    assert settings.allowed_origins == ()


class _Later(Settings):
    """Settings as they may grow: fields added with no code to read them, only annotations."""

    redis_socket_timeout: PositiveFloat = 5.0
    verbose: bool = False
    redis_password: Annotated[str | None, EMPTY_IS_NONE] = None
    ports: Annotated[tuple[Annotated[int, Field(ge=1, le=65535)], ...], COMMA_SEPARATED] = ()


def test_a_field_added_later_gets_its_variable() -> None:
    names = variables(_Later)
    assert names["redis_socket_timeout"] == "PARLOR_REDIS_SOCKET_TIMEOUT"
    settings = _Later.from_env(
        {
            "PARLOR_REDIS_SOCKET_TIMEOUT": "0.25",
            "PARLOR_VERBOSE": "yes",
            "PARLOR_REDIS_PASSWORD": "s3cret",
            "PARLOR_PORTS": "8001,8002",
        }
    )
    assert settings == _Later(
        redis_socket_timeout=0.25, verbose=True, redis_password="s3cret", ports=(8001, 8002)
    )
    assert _Later.from_env({"PARLOR_REDIS_PASSWORD": ""}).redis_password is None
    with pytest.raises(SettingsError) as caught:
        _Later.from_env({"PARLOR_REDIS_SOCKET_TIMEOUT": "-1", "PARLOR_VERBOSE": "maybe"})
    assert [p.variable for p in caught.value.problems] == [
        "PARLOR_REDIS_SOCKET_TIMEOUT",
        "PARLOR_VERBOSE",
    ]


def test_values_are_read_without_the_blanks_around_them() -> None:
    env = {"PARLOR_PORT": " 8001\n", "PARLOR_BOT_DELAY": "\t0.5 ", "PARLOR_EPHEMERAL": " On "}
    settings = Settings.from_env(env)
    assert (settings.port, settings.bot_delay, settings.ephemeral) == (8001, 0.5, True)


YES, NO = ("true", "1", "yes", "ON"), ("false", "0", "no", "Off")


@pytest.mark.parametrize("text", [*YES, *NO])
def test_a_yes_or_no_setting_reads_the_usual_words(text: str) -> None:
    assert Settings.from_env({"PARLOR_REDIS_CLUSTER": text}).redis_cluster is (text in YES)


def test_empty_means_none_where_none_is_allowed() -> None:
    settings = Settings.from_env({"PARLOR_DATA_PATH": "", "PARLOR_WORKERS": " "})
    assert (settings.data_path, settings.workers) == (None, None)


def test_only_the_settings_variables_are_read_and_only_by_their_exact_names() -> None:
    """PARLOR_SCREENSHOTS is the browser tests' own; pydantic-settings' own reader would also
    take ``parlor_port`` (it folds case) or a bare ``port``."""
    env = {"PARLOR_SCREENSHOTS": "docs/screenshots", "PARLOR_NO_SUCH": "x"}
    env |= {"parlor_port": "1", "port": "2", "Redis_Url": "redis://r:6379/0"}
    assert Settings.from_env(env) == Settings()


def test_settings_are_the_defaults_and_from_env_reads_the_process_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PARLOR_PORT", "8123")
    assert Settings().port == 8000, "Settings() reads no environment: tests build on it"
    assert Settings.from_env().port == 8123


def test_a_copy_refuses_a_field_that_does_not_exist() -> None:
    assert Settings().model_copy(update={"port": 9000}).port == 9000
    with pytest.raises(TypeError, match="awya_grace"):
        Settings().model_copy(update={"awya_grace": 1.0})


def test_the_data_file_is_the_setting_or_in_the_per_user_data_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    default = Settings()
    assert data_file(default, {"XDG_DATA_HOME": "/srv/data"}) == Path(
        "/srv/data/parlor/rooms.sqlite3"
    )
    home = Path.home() / ".local" / "share" / "parlor" / "rooms.sqlite3"
    assert data_file(default, {}) == home
    assert data_file(default, {"XDG_DATA_HOME": "relative/dir"}) == home, "ignored, as XDG says"
    at_home = Settings.from_env({"PARLOR_DATA_PATH": "~/games/rooms.db"})
    assert data_file(at_home, {}) == Path.home() / "games" / "rooms.db"
    monkeypatch.chdir(tmp_path)
    here = Settings.from_env({"PARLOR_DATA_PATH": "parlor-data/rooms.db"})
    assert data_file(here, {}) == tmp_path / "parlor-data" / "rooms.db"


# -- bad values: one test per kind -------------------------------------------------------------


def test_a_value_of_the_wrong_type_is_refused() -> None:
    lines = refused({"PARLOR_MAX_FRAME": "4k", "PARLOR_BOT_DELAY": "soon", "PARLOR_PORT": "80.5"})
    assert lines == {
        "PARLOR_PORT": "PARLOR_PORT='80.5': expected a whole number from 1 to 65535",
        "PARLOR_BOT_DELAY": "PARLOR_BOT_DELAY='soon': expected a number of at least 0",
        "PARLOR_MAX_FRAME": "PARLOR_MAX_FRAME='4k': expected a whole number greater than 0",
    }


def test_an_empty_value_is_refused_where_empty_means_nothing() -> None:
    lines = refused({"PARLOR_HOST": "", "PARLOR_SEND_QUEUE": " ", "PARLOR_STATIC_DIR": ""})
    assert set(lines) == {"PARLOR_HOST", "PARLOR_SEND_QUEUE", "PARLOR_STATIC_DIR"}
    assert lines["PARLOR_SEND_QUEUE"] == (
        "PARLOR_SEND_QUEUE is empty: expected a whole number greater than 0"
        " (unset it for the default)"
    )


@pytest.mark.parametrize("value", ["0", "-1", "-0.5"])
def test_zero_or_negative_is_refused_where_a_positive_number_is_needed(value: str) -> None:
    lines = refused({"PARLOR_ROOM_TTL": value, "PARLOR_LOG_MAX": value})
    assert lines["PARLOR_ROOM_TTL"] == (
        f"PARLOR_ROOM_TTL={value!r}: expected a number greater than 0"
    )
    assert "PARLOR_LOG_MAX" in lines


def test_a_bot_delay_may_be_zero_but_not_negative() -> None:
    assert Settings.from_env({"PARLOR_BOT_DELAY": "0"}).bot_delay == 0
    assert set(refused({"PARLOR_BOT_DELAY": "-0.1"})) == {"PARLOR_BOT_DELAY"}


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_number_that_is_not_finite_is_refused(value: str) -> None:
    assert set(refused({"PARLOR_FLOOD_RATE": value})) == {"PARLOR_FLOOD_RATE"}


@pytest.mark.parametrize("value", ["0", "65536", "-80"])
def test_a_port_out_of_range_is_refused(value: str) -> None:
    assert refused({"PARLOR_PORT": value}) == {
        "PARLOR_PORT": f"PARLOR_PORT={value!r}: expected a whole number from 1 to 65535"
    }


def test_a_burst_below_one_is_refused_because_it_would_let_nothing_through() -> None:
    lines = refused({"PARLOR_FLOOD_BURST": "0.5", "PARLOR_CREATE_BURST": "0.9"})
    assert lines["PARLOR_FLOOD_BURST"] == (
        "PARLOR_FLOOD_BURST='0.5': expected a number of at least 1"
    )
    assert "PARLOR_CREATE_BURST" in lines
    assert Settings.from_env({"PARLOR_FLOOD_BURST": "1"}).flood_burst == 1


@pytest.mark.parametrize("value", ["localhost:6379", "http://localhost:6379", "redis://"])
def test_a_redis_url_that_is_not_a_redis_url_is_refused(value: str) -> None:
    assert set(refused({"REDIS_URL": value})) == {"REDIS_URL"}


def test_a_refused_redis_url_does_not_show_its_password() -> None:
    line = refused({"REDIS_URL": "http://parlor:hunter2@db:6379/0"})["REDIS_URL"]
    assert "hunter2" not in line
    assert "http://parlor:***@db:6379/0" in line


@pytest.mark.parametrize(
    "value", ["redis://r:6379/0", "rediss://r:6380/1", "unix:///run/redis.sock", "REDIS://r"]
)
def test_a_redis_url_of_each_scheme_is_accepted(value: str) -> None:
    assert Settings.from_env({"REDIS_URL": value}).redis_url == value


@pytest.mark.parametrize("value", ["0", "1025", "two"])
def test_workers_out_of_range_are_refused_saying_empty_is_allowed(value: str) -> None:
    assert refused({"PARLOR_WORKERS": value, "REDIS_URL": "redis://r:6379/0"}) == {
        "PARLOR_WORKERS": f"PARLOR_WORKERS={value!r}:"
        " expected a whole number from 1 to 1024, or empty for none"
    }


def test_a_static_dir_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    assert refused({"PARLOR_STATIC_DIR": str(tmp_path / "missing")}) == {
        "PARLOR_STATIC_DIR": f"PARLOR_STATIC_DIR={str(tmp_path / 'missing')!r}:"
        " expected an existing directory"
    }


def test_a_default_static_dir_that_is_not_there_is_refused(tmp_path: Path) -> None:
    """An installed copy without the client's files refuses to start without the variable."""

    class Installed(Settings):
        static_dir: Annotated[DirectoryPath, NOT_EMPTY] = tmp_path / "client-web"

    with pytest.raises(SettingsError) as caught:
        Installed.from_env({})
    assert str(caught.value).splitlines()[1:] == [
        f"  PARLOR_STATIC_DIR={str(tmp_path / 'client-web')!r}: expected an existing directory"
    ]
    assert Installed.from_env({"PARLOR_STATIC_DIR": str(tmp_path)}).static_dir == tmp_path


def test_a_min_turn_timer_above_the_max_is_refused() -> None:
    assert refused({"PARLOR_MIN_TURN_TIMER": "60", "PARLOR_MAX_TURN_TIMER": "30"}) == {
        "PARLOR_MIN_TURN_TIMER": "PARLOR_MIN_TURN_TIMER='60':"
        " expected at most PARLOR_MAX_TURN_TIMER (30)"
    }


def test_a_max_turn_timer_below_the_default_min_names_the_min() -> None:
    assert refused({"PARLOR_MAX_TURN_TIMER": "3"}) == {
        "PARLOR_MIN_TURN_TIMER": "PARLOR_MIN_TURN_TIMER='5':"
        " expected at most PARLOR_MAX_TURN_TIMER (3)"
    }


def test_values_that_do_not_go_together_are_refused_however_settings_are_built() -> None:
    with pytest.raises(ValueError, match="PARLOR_MIN_TURN_TIMER"):
        Settings(min_turn_timer=60.0, max_turn_timer=30.0)


def test_every_number_setting_says_its_lower_bound() -> None:
    """Nothing makes a number positive by default: each says so (``PositiveFloat``,
    ``Field(ge=0)``...), and the error says it back."""
    for name, schema in _schemas().items():
        for kind in schema.get("anyOf", [schema]):
            if kind.get("type") in ("integer", "number"):
                assert "minimum" in kind or "exclusiveMinimum" in kind, name


def test_every_bad_variable_is_listed_in_one_error() -> None:
    lines = refused({"PARLOR_PORT": "x", "PARLOR_HOST": "", "PARLOR_CHAT_KEEP": "-3"})
    assert list(lines) == ["PARLOR_HOST", "PARLOR_PORT", "PARLOR_CHAT_KEEP"]


# -- the documentation ------------------------------------------------------------------------


def _documented() -> dict[str, str]:
    """The Settings table of docs/deploy.md: each variable and its default as written."""
    text = (ROOT / "docs" / "deploy.md").read_text()
    section = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    table: dict[str, str] = {}
    for row in rows:
        variable, default = (cell.strip() for cell in row.strip("|").split("|")[:2])
        assert re.fullmatch(r"`[A-Z_]+`", variable), f"one variable per row: {row}"
        assert variable[1:-1] not in table, f"listed twice: {variable}"
        written = re.match(r"`([^`]*)`", default)
        if default.startswith("*(empty)*"):
            table[variable[1:-1]] = ""
        else:
            assert written, f"default in backquotes or *(empty)*: {row}"
            table[variable[1:-1]] = written.group(1)
    return table


def _as_written(value: Any) -> str:
    if isinstance(value, Path):
        return value.relative_to(ROOT).as_posix()
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


def test_the_deploy_docs_list_every_variable_with_its_default() -> None:
    defaults = Settings()
    names = variables()
    expected = {names[name]: _as_written(getattr(defaults, name)) for name in Settings.model_fields}
    assert _documented() == expected


# -- the command ------------------------------------------------------------------------------


def _serve(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PARLOR_HOST": "127.0.0.1", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_parlor_serve_with_a_bad_value_exits_naming_the_variable() -> None:
    done = _serve(PARLOR_PORT="99999", PARLOR_FLOOD_RATE="-1")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "PARLOR_PORT='99999': expected a whole number from 1 to 65535" in done.stderr
    assert "PARLOR_FLOOD_RATE='-1': expected a number greater than 0" in done.stderr


def test_parlor_serve_checks_its_flags_like_their_variables() -> None:
    done = _serve("--port", "http", "--redis", "localhost")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "PARLOR_PORT='http'" in done.stderr
    assert "REDIS_URL='localhost'" in done.stderr


def test_parlor_serve_is_either_ephemeral_or_on_redis() -> None:
    done = _serve("--ephemeral", "--redis", "redis://localhost:6379/0")
    assert done.returncode == 2
    assert "argument --redis: not allowed with argument --ephemeral" in done.stderr


def test_workers_default_to_the_cores_with_redis_and_to_one_with_the_embedded_store() -> None:
    cores = len(os.sched_getaffinity(0))
    assert Settings.from_env({}).worker_count() == 1
    assert Settings.from_env({"REDIS_URL": "redis://r:6379/0"}).worker_count() == cores
    on_redis = {"REDIS_URL": "redis://r:6379/0", "PARLOR_WORKERS": "3"}
    assert Settings.from_env(on_redis).worker_count() == 3
    assert Settings.from_env({"PARLOR_WORKERS": "1"}).worker_count() == 1


def test_more_than_one_worker_is_refused_with_the_embedded_store() -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({"PARLOR_WORKERS": "2"})
    assert "PARLOR_WORKERS='2': expected 1 with the embedded store" in str(refused.value)
    done = _serve("--workers", "2", "--ephemeral")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "PARLOR_WORKERS='2': expected 1 with the embedded store" in done.stderr


def test_redis_cluster_nodes_are_host_port_pairs() -> None:
    env = {"PARLOR_REDIS_CLUSTER_NODES": "10.0.0.2:7001, redis-b:7002,"}
    assert Settings.from_env(env).redis_cluster_nodes == ("10.0.0.2:7001", "redis-b:7002")
    lines = refused({"PARLOR_REDIS_CLUSTER_NODES": "redis-b"})
    assert "host:port" in lines["PARLOR_REDIS_CLUSTER_NODES"]
