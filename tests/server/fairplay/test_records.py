"""Fair deals and game records, over real uvicorn, real WebSocket clients and a real
redis-server: the commitment before the deal, the reveal after it, the record of every game
and ``parlor verify`` (docs/fairplay.md)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.fairplay import records
from server.fairplay.verify import verify
from server.stores.redis_store import RedisStore
from server.stores.sqlite_store import SqliteStore
from tests.server.driver import (
    commit,
    drive,
    reveal_when_locked,
    sealed_start,
    secret_value,
    state_where,
)
from tests.server.harness import TEST_SETTINGS, Client, create_room, parlor_verify, serve

GAMES = ["numberswap", "warp99", "floor"]
ROOT = Path(__file__).resolve().parents[3]


async def _summary(http: str, code: str) -> dict[str, Any]:
    async with httpx.AsyncClient() as client:
        response = await client.get(f"{http}/api/rooms/{code}")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


async def _get(http: str, path: str) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.get(f"{http}{path}")


async def _table(server: Any, game: str, seats: int = 2) -> tuple[str, list[Client], list[str]]:
    """A room of ``game`` with ``seats`` people whose browsers each sealed a secret value into
    the deal (commit, lock, reveal: docs/fairplay.md); the game is dealt."""
    code = await create_room(server.http, game)
    clients, values = [], []
    for i in range(seats):
        client = await Client.open(server.ws, code)
        await client.join(f"P{i}")
        clients.append(client)
        values.append(secret_value(f"{code} {i}"))
    await sealed_start(clients, values)
    return code, clients, values


async def _finish(clients: list[Client]) -> list[dict[str, Any]]:
    import asyncio

    return await asyncio.gather(*(drive(c, random.Random(70 + i)) for i, c in enumerate(clients)))


@pytest.fixture
async def server(redis_clean: str) -> Any:
    async with serve(TEST_SETTINGS, RedisStore(redis_clean)) as running:
        yield running


@pytest.mark.parametrize("game", GAMES)
async def test_a_finished_games_record_replays_to_its_result_with_parlor_verify(
    server: Any, game: str, tmp_path: Path
) -> None:
    code, clients, _ = await _table(server, game)
    finals = await _finish(clients)
    response = await _get(server.http, f"/api/rooms/{code}/games/1/record")
    assert response.status_code == 200, response.text
    record = response.json()
    assert record["result"] == finals[0]["view"]["result"]
    assert record["game_id"] == game and [s["name"] for s in record["seats"]] == ["P0", "P1"]
    assert record["actions"] and all(
        {"seat", "action", "events"} <= set(a) for a in record["actions"]
    )
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    verified = parlor_verify(path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("OK:")


@pytest.mark.parametrize("game", GAMES)
async def test_a_record_asked_for_before_the_end_is_refused(server: Any, game: str) -> None:
    code, _clients, _ = await _table(server, game)
    watcher = await Client.open(server.ws, code)
    await watcher.watch()
    response = await _get(server.http, f"/api/rooms/{code}/games/1/record")
    assert response.status_code == 409
    assert response.json()["code"] == "not_over"
    replay = await _get(server.http, f"/api/rooms/{code}/games/1/replay?seat=all")
    assert replay.status_code == 409, "nor may its views be replayed"
    for missing in ("2", "0", "x", "99999999999", "²"):
        answer = await _get(server.http, f"/api/rooms/{code}/games/{missing}/record")
        assert answer.status_code == 404 and answer.json()["code"] == "no_game"


@pytest.mark.parametrize("game", GAMES)
async def test_the_commitment_in_the_first_view_is_the_hash_of_the_seed_revealed_at_the_end(
    server: Any, game: str
) -> None:
    code = await create_room(server.http, game)
    host = await Client.open(server.ws, code)
    await host.send({"type": "join", "name": "Ana"})
    await host.expect("welcome")
    first = await host.expect("state")
    seen = first["room"]["next_deal"]["commitment"]
    assert "deal" not in first["room"], "nothing is dealt yet"
    guest = await Client.open(server.ws, code)
    await guest.join("Ben")
    mine = secret_value("Ana")
    # Only the host's browser seals a value; the guest's says nothing (its slot stays empty).
    await commit(host, mine)
    await host.send({"type": "start"})
    await reveal_when_locked(host, mine)
    playing = await state_where(host, lambda m: m["room"]["phase"] == "playing")
    assert playing["room"]["seal"] == seen[:8]
    assert "deal" not in playing["room"], "the seeds are secret until the end"
    assert "next_deal" not in playing["room"]
    finals = await _finish([host, guest])
    revealed = finals[0]["room"]["deal"]
    assert hashlib.sha256(bytes.fromhex(revealed["server_seed"])).hexdigest() == seen
    assert revealed["contributions"] == [mine, ""]
    assert revealed["commitments"] == [records.contribution_commitment(mine), ""]
    assert revealed["seed"] == records.seed_hex(
        records.deal_seed(revealed["server_seed"], [mine, ""], code, 1)
    )
    record = (await _get(server.http, f"/api/rooms/{code}/games/1/record")).json()
    assert record["commitment"] == seen, "the record holds the commitment as it was published"


async def test_a_rematch_is_sealed_by_a_new_commitment_published_at_the_end_of_the_game(
    server: Any,
) -> None:
    code, clients, values = await _table(server, "warp99")
    finals = await _finish(clients)
    ended = finals[0]["room"]
    after = ended["next_deal"]
    assert after["commitment"] != ended["deal"]["commitment"]
    assert after["commitments"] == ["", ""], "commitments are spent by the deal"
    fresh = [secret_value(f"{code} rematch {i}") for i in range(2)]
    await sealed_start(clients, fresh, kind="rematch")
    old = await _get(server.http, f"/api/rooms/{code}/games/1/record")
    assert old.status_code == 200, "the first game's record is kept through the rematch"
    assert (await _get(server.http, f"/api/rooms/{code}/games/2/record")).status_code == 409
    await state_where(clients[1], lambda m: m["room"]["round"] == 2)
    rematched = await _finish(clients)
    assert rematched[0]["room"]["deal"]["contributions"] == fresh
    assert rematched[0]["room"]["deal"]["commitment"] == after["commitment"]
    assert values != fresh


async def test_a_record_outlives_the_trimmed_move_log(tmp_path: Path) -> None:
    """The move log keeps only its last entries; a game longer than that is still recorded
    whole, and verifies. (On the embedded store, which trims exactly; Redis trims whole stream
    nodes of ~100 entries, and the store contract checks the archive is never trimmed on it.)"""
    settings = TEST_SETTINGS.model_copy(update={"log_max": 10})
    store = SqliteStore(tmp_path / "rooms.sqlite3", log_max=10)
    async with serve(settings, store) as server:
        code, clients, _ = await _table(server, "numberswap")
        await _finish(clients)
        record = (await _get(server.http, f"/api/rooms/{code}/games/1/record")).json()
        log = await server.instance.store.log(code)
    assert len(log) == 10
    assert len(record["actions"]) > 20
    assert verify(record).problems == []


@pytest.mark.parametrize("game", GAMES)
async def test_the_replay_gives_each_steps_view_for_a_seat(server: Any, game: str) -> None:
    code, clients, _ = await _table(server, game)
    finals = await _finish(clients)
    record = (await _get(server.http, f"/api/rooms/{code}/games/1/record")).json()
    total = len(record["actions"]) + 1
    page = await _get(server.http, f"/api/rooms/{code}/games/1/replay?seat=1&from=0&count=2")
    body = page.json()
    assert body["total"] == total and [s["step"] for s in body["steps"]] == [0, 1]
    assert body["steps"][1]["seat"] == record["actions"][0]["seat"]
    last = await _get(server.http, f"/api/rooms/{code}/games/1/replay?seat=1&from={total - 1}")
    assert last.json()["steps"][0]["view"] == finals[1]["view"], "the last step is the end"
    for bad in ("seat=9", "seat=x", "seat=²", "from=-1", "from=²", "count=0", "count=²"):
        answer = await _get(server.http, f"/api/rooms/{code}/games/1/replay?{bad}")
        assert answer.status_code == 400, bad


async def test_a_game_the_rules_no_longer_replay_is_answered_in_words(
    server: Any, redis_clean: str
) -> None:
    """An archive the rules of this server do not replay (rules changed in a deploy while the
    room lived) gets an error with a code and a message, not a stack trace."""
    import redis.asyncio as aioredis

    from rules.codec import pack, unpack
    from server.stores import keys

    code, clients, _ = await _table(server, "floor")
    await _finish(clients)
    client = aioredis.Redis.from_url(redis_clean)
    try:
        entries = await client.lrange(keys.archive(code), 0, -1)
        index = next(i for i, raw in enumerate(entries) if isinstance(unpack(raw), list))
        entry = unpack(entries[index])
        entry[5] = [{"type": "not what happened"}]
        await client.lset(keys.archive(code), index, pack(entry))
    finally:
        await client.aclose()
    answer = await _get(server.http, f"/api/rooms/{code}/games/1/replay?seat=0")
    assert answer.status_code == 500
    assert answer.json()["code"] == "internal"
    assert "cannot replay" in answer.json()["message"]
