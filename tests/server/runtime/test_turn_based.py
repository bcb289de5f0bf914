"""Turn-based rooms (issue 30, docs/protocol.md "Live and turn-based rooms"): games played by
text over days, one short visit per turn, on real servers and real stores.

Time is the servers' injected clock: hours pass between turns by moving it, never by waiting.
The waker (server/runtime/waker.py) is asked to look at once (``Waker.look``) instead of after
its interval, so nothing here waits for a timer."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import httpx
import pytest

from rules.codec import unpack
from server.stores.memory_store import MemoryStore
from server.stores.sqlite_store import SqliteStore
from tests.server.driver import choose, start
from tests.server.harness import TEST_SETTINGS, Client, RunningServer, serve

HOUR = 3600.0
DAY = 24 * HOUR


class Clock:
    """The servers' clock: it moves only when a test moves it (from a fixed, realistic start)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


Serve = Callable[[], AbstractAsyncContextManager[RunningServer]]


def on_clock(server: RunningServer, clock: Clock) -> RunningServer:
    server.instance.service.clock = clock
    server.instance.limit_clock = clock
    return server


async def create(
    http: str, game: str, *, options: dict[str, Any] | None = None, turn_timer: float | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"game": game, "mode": "turns"}
    if options is not None:
        body["options"] = options
    if turn_timer is not None:
        body["turn_timer"] = turn_timer
    async with httpx.AsyncClient() as client:
        response = await client.post(f"{http}/api/rooms", json=body)
    assert response.status_code == 201, response.text
    info: dict[str, Any] = response.json()
    return info


async def mine(http: str, seats: list[tuple[str, str]]) -> dict[str, Any]:
    body = {"seats": [{"code": code, "token": token} for code, token in seats]}
    async with httpx.AsyncClient() as client:
        response = await client.post(f"{http}/api/mine", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def seat_up(ws: str, code: str, names: list[str]) -> list[str]:
    """Each person joins from their own browser and starts the game (the first is host), then
    they all close the page: the seat tokens."""
    clients = []
    for name in names:
        client = await Client.open(ws, code)
        await client.join(name)
        clients.append(client)
    await start(clients[0])
    tokens = [c.welcome["token"] for c in clients]  # type: ignore[index]
    for client in clients:
        await client.close()
    return tokens


async def visit(ws: str, code: str, token: str, rnd: random.Random) -> dict[str, Any]:
    """A person opens the link, plays whatever their turn asks of them (every step of it, on
    this one connection), and closes the page; their last state."""
    client = await Client.open(ws, code)
    await client.resume(token)
    state = client.state
    assert state is not None
    while state["view"] is not None and state["view"]["legal"] and not state["view"]["over"]:
        version = state["version"]
        sent = await client.act(choose(state["view"], rnd))
        await client.until(lambda m, sent=sent: m["type"] == "ack" and m["seq"] == sent)
        state = await client.state_at_least(version + 1)
    await client.close()
    return state


async def play_by_text(
    serve_one: Serve,
    clock: Clock,
    game: str,
    seats: int,
    seed: int,
    options: dict[str, Any] | None = None,
    restart_after: int = 0,
) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """A whole turn-based game, one visit per turn with hours between them, and the server
    restarted after ``restart_after`` visits (0: never): the last state, the move log's
    entries and how many visits it took."""
    rnd = random.Random(seed)
    names = ["Ana", "Ben", "Cy", "Di"][:seats]
    visits = 0
    stack = contextlib.AsyncExitStack()
    async with stack:
        server = on_clock(await stack.enter_async_context(serve_one()), clock)
        info = await create(server.http, game, options=options)
        code = info["code"]
        assert info["mode"] == "turns" and info["turn_timer"] == 0
        tokens = await seat_up(server.ws, code, names)
        state = await visit(server.ws, code, tokens[0], rnd)
        while not state["view"]["over"]:
            clock.now += rnd.uniform(1, 12) * HOUR
            visits += 1
            if visits == restart_after:
                await stack.aclose()
                server = on_clock(await stack.enter_async_context(serve_one()), clock)
            # Whoever's turn it is, found the way their browser finds it: "Your games".
            answer = await mine(server.http, [(code, t) for t in tokens])
            [game_entry] = [g for g in answer["games"] if g["your_turn"]][:1] or [None]
            assert game_entry is not None, f"nobody's turn in {answer}"
            state = await visit(server.ws, code, tokens[game_entry["seat"]], rnd)
            assert visits < 3000, "the game ends"
        # Nothing is held for the room once its last page closed, and it waits for no one.
        instance = server.instance
        assert not list(instance.service.local), "an idle turn-based room holds nothing here"
        assert await instance.store.due(clock.now + 30 * DAY, 10) == []
        log = [unpack(entry) for _, entry in await instance.store.log(code)]
    return state, log, visits


@contextlib.asynccontextmanager
async def sqlite_server(path: Path, clock: Clock) -> AsyncIterator[RunningServer]:
    async with serve(TEST_SETTINGS, SqliteStore(path, clock=clock)) as server:
        yield server


GAMES = [("numberswap", {"target_score": 10}), ("warp99", None), ("floor", None)]


@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g for g, _ in GAMES])
async def test_a_turn_based_game_is_played_over_days_and_a_restart_on_sqlite(
    game: str, options: dict[str, Any] | None, tmp_path: Path
) -> None:
    clock = Clock()
    start_at = clock.now
    state, log, visits = await play_by_text(
        lambda: sqlite_server(tmp_path / "parlor.db", clock),
        clock,
        game,
        2,
        seed=30,
        options=options,
        restart_after=5,
    )
    assert state["view"]["over"] and state["room"]["phase"] == "finished"
    assert visits > 5, "many visits, one per turn"
    assert clock.now - start_at > 2 * DAY, "played over days"
    # Every move was a person's: no timer ran out and no bot stood in for anyone offline.
    assert {e["kind"] for e in log if "action" in e} == {"act"}


@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g for g, _ in GAMES])
async def test_a_turn_based_game_is_played_over_days_and_a_restart_on_redis(
    game: str, options: dict[str, Any] | None, redis_clean: str
) -> None:
    clock = Clock()
    settings = TEST_SETTINGS.model_copy(update={"redis_url": redis_clean, "ephemeral": False})
    state, log, _ = await play_by_text(
        lambda: serve(settings), clock, game, 3, seed=31, options=options, restart_after=4
    )
    assert state["view"]["over"] and state["room"]["phase"] == "finished"
    assert {e["kind"] for e in log if "action" in e} == {"act"}


@contextlib.asynccontextmanager
async def memory_server(clock: Clock) -> AsyncIterator[RunningServer]:
    async with serve(TEST_SETTINGS, MemoryStore(clock=clock)) as server:
        yield on_clock(server, clock)


async def acked(client: Client, message: dict[str, Any]) -> dict[str, Any]:
    """Send a seated command on its next ``seq`` and wait for its acknowledgement."""
    seq = client.next_seq()
    await client.send({**message, "seq": seq})
    return await client.until(lambda m: m["type"] == "ack" and m["seq"] == seq)


async def host_sets_timer(ws: str, code: str, token: str, seconds: float) -> dict[str, Any]:
    client = await Client.open(ws, code)
    await client.resume(token)
    seq = client.next_seq()
    await client.send({"type": "options", "seq": seq, "turn_timer": seconds})
    answer = await client.until(lambda m: m.get("seq") == seq)
    await client.close()
    return answer


async def test_the_turn_timer_s_bot_plays_one_turn_and_the_seat_stays_the_person_s() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        code = (await create(server.http, "floor"))["code"]
        tokens = await seat_up(server.ws, code, ["Ana", "Ben"])
        assert (await host_sets_timer(server.ws, code, tokens[0], 2 * HOUR))["type"] == "ack"
        room = await server.instance.service.get(code)
        [mover] = room.game.to_act(room.state)
        waker = server.instance.waker
        clock.now += HOUR
        assert await waker.look() == 0, "an hour left: nothing is due"
        clock.now += HOUR + 1
        # Nobody has the room open: the waker makes the move, not a connection's plan.
        assert not list(server.instance.service.local)
        assert await waker.look() >= 1
        after = await server.instance.service.get(code)
        seat = after.seats[mover]
        assert seat.token_hash == room.seats[mover].token_hash, "the seat is still the person's"
        assert not seat.away, "not marked away: their next turn waits for them"
        assert seat.covered >= 1, "they are told a bot played for them"
        assert mover not in after.game.to_act(after.state), "only that one turn was played"
        assert [m.by for m in after.moves if m.version > room.version] == ["timeout"] + ["bot"] * (
            len([m for m in after.moves if m.version > room.version]) - 1
        )
        # The next person's clock runs from the bot's move.
        assert after.deadline == clock.now + 2 * HOUR


async def test_a_turn_based_timer_is_off_by_default_and_an_hour_to_a_week() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        info = await create(server.http, "warp99")
        assert info["turn_timer"] == 0 and info["mode"] == "turns"
        async with httpx.AsyncClient() as client:
            too_short = await client.post(
                f"{server.http}/api/rooms",
                json={"game": "warp99", "mode": "turns", "turn_timer": 60},
            )
            too_long = await client.post(
                f"{server.http}/api/rooms",
                json={"game": "warp99", "mode": "turns", "turn_timer": 8 * DAY},
            )
        assert too_short.status_code == too_long.status_code == 400
        assert "hour" in too_short.json()["message"]
        assert (await create(server.http, "warp99", turn_timer=7 * DAY))["turn_timer"] == 7 * DAY


async def test_a_turn_based_room_never_hands_an_offline_player_s_seat_to_a_bot() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        code = (await create(server.http, "warp99"))["code"]
        ana, ben = await Client.open(server.ws, code), await Client.open(server.ws, code)
        await ana.join("Ana")
        await ben.join("Ben")
        await start(ana)
        state = await ana.state_at_least(ana.state["version"])  # type: ignore[index]
        mover, other = (ana, ben) if 0 in state["view"]["to_act"] else (ben, ana)
        await mover.close()
        # The one still here hears the mover left: no takeover is announced, none planned.
        told = await other.until(
            lambda m: m["type"] == "state" and not all(s["connected"] for s in m["room"]["seats"])
        )
        assert "takeover" not in told["room"]
        held = server.instance.service.local.get(code)
        assert held is not None and held.plan is not None
        assert [what for _, _, what, _ in held.plan[1]] == [], "no takeover, no host passing"
        clock.now += 20 * DAY
        assert await server.instance.waker.look() == 0
        await other.close()


async def test_a_turn_based_room_lives_thirty_days_after_its_last_move() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        turns = (await create(server.http, "floor"))["code"]
        async with httpx.AsyncClient() as client:
            response = await client.post(f"{server.http}/api/rooms", json={"game": "floor"})
        live_code = response.json()["code"]
        tokens = await seat_up(server.ws, turns, ["Ana", "Ben"])
        store = server.instance.store
        clock.now += 2 * DAY
        assert await store.load(live_code) is None, "a live room expires after a day"
        assert await store.load(turns) is not None
        await visit(server.ws, turns, tokens[0], random.Random(1))
        await visit(server.ws, turns, tokens[1], random.Random(2))
        clock.now += 29 * DAY
        assert await store.load(turns) is not None, "29 days after the last move"
        clock.now += 2 * DAY
        assert await store.load(turns) is None, "31 days after it"


async def test_a_bot_seat_moves_in_a_turn_based_room_nobody_has_open() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        code = (await create(server.http, "warp99"))["code"]
        ana = await Client.open(server.ws, code)
        await ana.join("Ana")
        await ana.send({"type": "add_bot", "level": "easy"})
        await ana.until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == 2)
        token = ana.welcome["token"]  # type: ignore[index]
        await ana.close()
        rnd = random.Random(5)
        for _ in range(40):
            # Ana plays her turn (or the game starts, the first time) and leaves; the bot's
            # turn comes while nobody has the room open.
            room = await server.instance.service.get(code)
            if room.phase.value == "lobby":
                client = await Client.open(server.ws, code)
                await client.resume(token)
                await start(client)
                await client.close()
            else:
                state = await visit(server.ws, code, token, rnd)
                if state["view"]["over"]:
                    break
            clock.now += HOUR
            await server.instance.waker.look()
            room = await server.instance.service.get(code)
            assert room.phase.value == "finished" or room.game.to_act(room.state) == {0}, (
                "the bot played its whole turn with nobody there; it is Ana's turn again"
            )
        assert not list(server.instance.service.local)
        assert server.instance.waker.moves > 0, "the waker made the bot's moves"


async def test_the_waker_leaves_a_bot_s_turn_to_the_page_that_has_the_room_open() -> None:
    """A bot's turn in a room someone has open is played by that instance at the bot delay;
    the waker steps in only once the room has not changed for the grace (15 s)."""
    clock = Clock()
    # A bot delay no test reaches: only the waker plays the bot here.
    settings = TEST_SETTINGS.model_copy(update={"bot_delay": 10_000.0})
    async with serve(settings, MemoryStore(clock=clock)) as server:
        on_clock(server, clock)
        code = (await create(server.http, "warp99"))["code"]
        ana = await Client.open(server.ws, code)
        await ana.join("Ana")
        await ana.send({"type": "add_bot", "level": "easy"})
        await ana.until(lambda m: m["type"] == "state" and len(m["room"]["seats"]) == 2)
        await start(ana)
        token = ana.welcome["token"]  # type: ignore[index]
        await ana.close()
        service, waker = server.instance.service, server.instance.waker
        room = await service.get(code)
        if 0 in room.game.waiting_for(room.state):
            await visit(server.ws, code, token, random.Random(7))  # Ana's first turn
        room = await service.get(code)
        assert room.game.waiting_for(room.state) == {1}, "the bot's turn"
        assert await waker.look() == 0, "changed just now: left to a page that has it open"
        clock.now += 14
        assert await waker.look() == 0
        clock.now += 2
        assert await waker.look() >= 1, "nobody moved it for the grace: the waker does"
        room = await service.get(code)
        assert room.game.waiting_for(room.state) == {0}, "the bot's whole turn, then Ana's"


async def test_your_games_answers_only_for_the_tokens_held() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        first = (await create(server.http, "floor"))["code"]
        second = (await create(server.http, "warp99"))["code"]
        ana_1, ben_1 = await seat_up(server.ws, first, ["Ana", "Ben"])
        clock.now += HOUR
        ana_2, cy_2 = await seat_up(server.ws, second, ["Ana", "Cy"])
        ana = await mine(server.http, [(first, ana_1), (second, ana_2)])
        assert {g["code"] for g in ana["games"]} == {first, second}
        entry = next(g for g in ana["games"] if g["code"] == second)
        assert entry["you"] == "Ana" and entry["others"] == ["Cy"] and entry["mode"] == "turns"
        assert entry["game"] == "warp99" and entry["name"] == "Warp 99"
        # Your turn first, then the latest move first.
        keys = [(not g["your_turn"], -g["moved_at"]) for g in ana["games"]]
        assert keys == sorted(keys)
        # Ben's token says nothing of the room he is not in; a guessed token, nothing at all.
        ben = await mine(server.http, [(first, ben_1), (second, ben_1), ("ZZZZZ", "x" * 32)])
        assert [g["code"] for g in ben["games"]] == [first]
        assert ben["games"][0]["you"] == "Ben" and ben["games"][0]["others"] == ["Ana"]
        assert sorted(ben["forget"]) == sorted([second, "ZZZZZ"])
        assert cy_2 not in str(ana) and ana_1 not in str(ben)
        # No tokens, no rooms; too many, refused.
        assert (await mine(server.http, []))["games"] == []
        async with httpx.AsyncClient() as client:
            many = [{"code": first, "token": ana_1}] * 101
            response = await client.post(f"{server.http}/api/mine", json={"seats": many})
        assert response.status_code == 400 and response.json()["code"] == "bad_message"


async def claim(http: str, code: str, once: str, key: str) -> httpx.Response:
    async with httpx.AsyncClient() as client:
        return await client.post(f"{http}/api/rooms/{code}/claim", json={"code": once, "key": key})


async def test_a_seat_moves_to_another_device_and_the_old_token_stops_working() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        code = (await create(server.http, "floor"))["code"]
        old_token, _ = await seat_up(server.ws, code, ["Ana", "Ben"])
        phone = await Client.open(server.ws, code)
        await phone.resume(old_token)
        seq = phone.next_seq()
        await phone.send({"type": "handoff", "seq": seq})
        ack = await phone.until(lambda m: m["type"] == "ack" and m["seq"] == seq)
        once = ack["handoff"]["code"]
        assert len(once.replace("-", "")) == 12
        assert ack["handoff"]["until"] == clock.now + 15 * 60
        # The laptop types the code (in small letters, without dashes: still the code).
        key = "laptop-key-0123456789"
        moved = await claim(server.http, code, once.replace("-", "").lower(), key)
        assert moved.status_code == 200, moved.text
        new_token = moved.json()["token"]
        assert new_token != old_token and moved.json()["seat"] is not None
        # The phone's connection is told its seat moved, and the old token opens nothing.
        told = await phone.error("kicked")
        assert told["moved"] is True and "another device" in told["message"]
        stale = await Client.open(server.ws, code)
        await stale.send({"type": "resume", "token": old_token})
        await stale.error("bad_token")
        laptop = await Client.open(server.ws, code)
        await laptop.resume(new_token)
        assert laptop.welcome["id"] == ack_seat(phone)  # type: ignore[index]
        # The claim's reply was lost: the same claim again gets the same token; the code is
        # used up for anyone else.
        again = await claim(server.http, code, once, key)
        assert again.status_code == 200 and again.json()["token"] == new_token
        thief = await claim(server.http, code, once, "another-key-0123456789")
        assert thief.status_code == 403 and thief.json()["code"] == "bad_token"
        await laptop.close()


def ack_seat(client: Client) -> int:
    assert client.welcome is not None
    seat_id: int = client.welcome["id"]
    return seat_id


async def test_a_device_move_code_expires_after_fifteen_minutes() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        code = (await create(server.http, "floor"))["code"]
        token, _ = await seat_up(server.ws, code, ["Ana", "Ben"])
        phone = await Client.open(server.ws, code)
        await phone.resume(token)
        await phone.send({"type": "handoff"})
        ack = await phone.until(lambda m: m["type"] == "ack")
        clock.now += 15 * 60 + 1
        late = await claim(server.http, code, ack["handoff"]["code"], "laptop-key-0123456789")
        assert late.status_code == 403 and "expired" in late.json()["message"]
        wrong = await claim(server.http, code, "AAAA-BBBB-CCCC", "laptop-key-0123456789")
        assert wrong.status_code == 403
        await phone.close()


async def test_idle_turn_based_rooms_hold_no_task_or_timer() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        instance = server.instance
        codes = []
        for _ in range(20):
            code = (await create(server.http, "warp99", turn_timer=DAY))["code"]
            await seat_up(server.ws, code, ["Ana", "Ben"])
            codes.append(code)
        assert not list(instance.service.local), "no object, task or timer per idle room"
        assert instance.hub.room_count == 0
        # What each holds is its record, and its turn timer's end in the store's one index.
        due = await instance.store.due(clock.now + DAY, 100)
        assert sorted(code for code, _ in due) == sorted(codes)
        assert {at for _, at in due} == {clock.now + DAY}


async def test_number_swap_plays_by_text_in_a_turn_based_room_only() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        turns = await create(server.http, "numberswap", options={"by_text": False})
        assert turns["options"]["by_text"] is True, "a turn-based room plays ruling 11"
        async with httpx.AsyncClient() as client:
            response = await client.post(
                f"{server.http}/api/rooms",
                json={"game": "numberswap", "options": {"by_text": True}},
            )
        assert response.json()["options"]["by_text"] is False, "a live room keeps ruling 2"
        # The host changing the options keeps it so.
        host = await Client.open(server.ws, turns["code"])
        await host.join("Ana")
        await acked(host, {"type": "options", "options": {"by_text": False, "target_score": 50}})
        room = await server.instance.service.get(turns["code"])
        assert room.options == {**turns["options"], "target_score": 50}
        assert room.options["by_text"] is True
        await host.close()


async def test_a_kicked_player_s_device_move_code_no_longer_takes_the_seat() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        code = (await create(server.http, "floor"))["code"]
        host_token, ben_token = await seat_up(server.ws, code, ["Ana", "Ben"])
        ben = await Client.open(server.ws, code)
        await ben.resume(ben_token)
        await ben.send({"type": "handoff"})
        once = (await ben.until(lambda m: m["type"] == "ack"))["handoff"]["code"]
        host = await Client.open(server.ws, code)
        await host.resume(host_token)
        ben_id = ben.welcome["id"]  # type: ignore[index]
        await acked(host, {"type": "kick", "id": ben_id})
        # Ben's seat is a bot's now, and the code he was shown does not make it his again.
        taken = await claim(server.http, code, once, "bens-laptop-0123456789")
        assert taken.status_code == 403 and taken.json()["code"] == "bad_token"
        room = await server.instance.service.get(code)
        assert room.seats[room.index_of(ben_id)].bot
        assert not room.seats[room.index_of(ben_id)].handoff
        await host.close()
        await ben.close()


async def test_a_host_s_sit_out_lasts_past_one_turn_in_a_turn_based_room() -> None:
    clock = Clock()
    async with memory_server(clock) as server:
        code = (await create(server.http, "warp99"))["code"]
        host_token, _ = await seat_up(server.ws, code, ["Ana", "Ben"])
        host = await Client.open(server.ws, code)
        await host.resume(host_token)
        ben_id = 2
        await acked(host, {"type": "sit_out", "id": ben_id})
        rnd = random.Random(3)
        for _ in range(3):
            # Ana plays her turn; the bot plays Ben's, and Ben's seat stays sat out.
            state = host.state
            assert state is not None
            while 0 not in state["room"].get("waiting", []):
                state = await host.until(lambda m: m["type"] == "state")
                if state["view"]["over"]:
                    return
            while state["view"]["legal"] and 0 in state["room"]["waiting"]:
                sent = await host.act(choose(state["view"], rnd))
                await host.until(lambda m, sent=sent: m["type"] == "ack" and m["seq"] == sent)
                state = await host.state_at_least(state["version"] + 1)
            room = await server.instance.service.get(code)
            assert room.seats[room.index_of(ben_id)].away, "still a bot's until Ben is back"
        await host.close()
