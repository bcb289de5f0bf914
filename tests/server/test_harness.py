"""The test harness itself: servers that behave like production, processes under control."""

from __future__ import annotations

import signal
import socket
import sys
from pathlib import Path

import pytest
import redis

from tests.processes import Process, StartError, free_port, tcp_open
from tests.redis_process import RedisProcess
from tests.server.harness import TEST_SETTINGS, Client, create_room, serve


async def test_in_process_server_sets_tcp_nodelay_on_accepted_connections() -> None:
    # Without TCP_NODELAY every small reply waits out Nagle against the peer's delayed ACK
    # (~40 ms on Linux), which a real `parlor serve` never does.
    async with serve(TEST_SETTINGS) as server:
        code = await create_room(server.http, "toy")
        client = await Client.open(server.ws, code)
        await client.join("P0")
        connections = server.server.server_state.connections
        sockets = [conn.transport.get_extra_info("socket") for conn in connections]
        assert sockets, "the joined WebSocket is one of the server's connections"
        for sock in sockets:
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY), sock
        await client.close()


# -- processes ------------------------------------------------------------------------------------


def test_a_process_that_exits_while_starting_fails_at_once_with_its_log(tmp_path: Path) -> None:
    boot = "print('no such config'); raise SystemExit(3)"
    proc = Process(
        [sys.executable, "-c", boot],
        ready=tcp_open(free_port()),
        log=tmp_path / "out.log",
        start_timeout=60,
    )
    with pytest.raises(StartError, match="exited with 3") as failed:
        proc.start()
    assert "no such config" in str(failed.value)


def test_a_process_that_never_answers_is_stopped_at_the_deadline(tmp_path: Path) -> None:
    boot = "import time; time.sleep(60)"
    proc = Process(
        [sys.executable, "-c", boot],
        ready=tcp_open(free_port()),
        log=tmp_path / "out.log",
        start_timeout=0.2,
    )
    with pytest.raises(StartError, match="did not answer"):
        proc.start()
    assert not proc.running


def test_stop_kills_a_process_that_ignores_sigterm(tmp_path: Path) -> None:
    log = tmp_path / "out.log"
    boot = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('ignoring SIGTERM', flush=True); time.sleep(60)"
    )
    ignoring = Process(
        [sys.executable, "-c", boot], ready=lambda: "SIGTERM" in log.read_text(), log=log
    )
    proc = ignoring.start()
    proc.stop(timeout=0.2)
    assert proc.wait(0) == -signal.SIGKILL


# -- redis-server ---------------------------------------------------------------------------------


def test_killed_redis_restarts_on_the_same_port(redis_proc: RedisProcess) -> None:
    url = redis_proc.url
    with redis_proc.client() as client:
        client.set("k", "v")
    redis_proc.kill()
    with pytest.raises(redis.ConnectionError), redis_proc.client() as client:
        client.ping()
    redis_proc.restart()
    with redis.Redis.from_url(url, socket_timeout=5) as client:
        assert client.ping()
        assert client.get("k") is None, "persistence off: a SIGKILL loses everything"


@pytest.mark.parametrize("redis_proc", ["aof"], indirect=True)
def test_redis_with_aof_keeps_every_write_across_a_kill(redis_proc: RedisProcess) -> None:
    with redis_proc.client() as client:
        client.set("k", "v")
    redis_proc.kill()
    redis_proc.restart()
    with redis_proc.client() as client:
        assert client.get("k") == b"v"


def test_paused_redis_times_clients_out_and_answers_when_resumed(
    redis_proc: RedisProcess,
) -> None:
    redis_proc.pause()
    with pytest.raises(redis.TimeoutError), redis_proc.client(timeout=0.2) as client:
        client.ping()
    redis_proc.resume()
    with redis_proc.client() as client:
        assert client.ping()


@pytest.mark.parametrize("redis_proc", ["off", "aof"], indirect=True)
def test_restore_takes_redis_back_to_an_older_snapshot(
    redis_proc: RedisProcess, tmp_path: Path
) -> None:
    with redis_proc.client() as client:
        client.set("k", "old")
        snapshot = redis_proc.save(to=tmp_path / "old.rdb")
        client.set("k", "new")
        client.set("later", "1")
    redis_proc.restore(snapshot)
    with redis_proc.client() as client:
        assert client.get("k") == b"old" and client.get("later") is None
        client.set("after", "1")
    # Nothing newer than the snapshot comes back at the next start, from an old AOF or dump.
    redis_proc.restart()
    with redis_proc.client() as client:
        assert client.get("k") == b"old" and client.get("later") is None
        if redis_proc.aof:
            assert client.get("after") == b"1", "the AOF goes on from the restored data"
