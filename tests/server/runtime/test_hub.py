"""What the table is told about people (docs/protocol.md, "Seats" and "Game history"): who made
each move (a bot for an absent friend is never passed off as the friend), when a bot takes over
a friend whose connection dropped on their turn, and the game's public history, from which a
page rebuilds its log and tells a returning player what they missed. Real uvicorn, real
WebSocket clients, the toy game."""

from __future__ import annotations

from typing import Any

import httpx

from server.rooms import commands
from server.transport import state_messages
from tests.server.driver import seat_clients, start
from tests.server.harness import TEST_SETTINGS, Client, create_room, serve
from tests.server.rooms.test_commands import playing
from tests.server.runtime.test_takeover import mover_of

#: A long grace, so that the takeover is still ahead while the test looks at it.
PATIENT = TEST_SETTINGS.model_copy(update={"away_grace": 30.0})
QUICK = TEST_SETTINGS.model_copy(update={"away_grace": 0.2})


def test_a_move_a_bot_made_for_an_away_person_says_so_in_the_state_events() -> None:
    room = playing(2)
    index = sorted(room.game.to_act(room.state))[0]
    seat_id = room.seats[index].id
    room = commands.timeout(room, room.version, seat_id, 3.0, connected=frozenset()).room
    made = room.moves[-1]
    assert made.by == "takeover" and made.seat == index
    assert state_messages.events_since(room, room.version - 1)[-1]["by"] == "takeover"
    # A person's own move carries no ``by`` (it is "act"): the common case stays small.
    mover = sorted(room.game.to_act(room.state))[0]
    action = room.game.legal_view(room.state, mover)[0]
    acted = commands.act(room, room.seats[mover].id, 1, action, 4.0).room
    assert "by" not in state_messages.events_since(acted, acted.version - 1)[-1]


async def _two(server: Any) -> tuple[str, list[Client]]:
    code = await create_room(server.http, "toy", {"hand": 4})
    clients = await seat_clients([server.ws], code, 2)
    await start(clients[0])
    return code, clients


async def test_a_player_who_drops_on_their_turn_shows_when_a_bot_takes_over() -> None:
    async with serve(PATIENT) as server:
        _, clients = await _two(server)
        mover, other = mover_of(clients)
        seat = mover.state["you"]  # type: ignore[index]
        token = mover.welcome["token"]  # type: ignore[index]
        await mover.close()
        dropped = await other.until(
            lambda m: m["type"] == "state" and not m["room"]["seats"][seat]["connected"]
        )
        (takeover,) = dropped["room"]["takeover"]
        assert takeover["seat"] == seat
        assert 0 < takeover["at"] - dropped["room"]["now"] <= PATIENT.away_grace + 0.5
        back = await Client.open(server.ws, dropped["room"]["code"])
        await back.resume(token)
        here = await other.until(
            lambda m: m["type"] == "state" and m["room"]["seats"][seat]["connected"]
        )
        assert "takeover" not in here["room"], "nobody is taken over once they are back"


async def test_the_game_history_is_public_during_play_and_says_who_made_each_move() -> None:
    async with serve(QUICK) as server:
        code, clients = await _two(server)
        mover, other = mover_of(clients)
        seat = mover.state["you"]  # type: ignore[index]
        await mover.close()
        await other.until(
            lambda m: m["type"] == "state" and m["room"]["seats"][seat].get("covered", 0) >= 1
        )
        async with httpx.AsyncClient(base_url=server.http) as http:
            answer = await http.get(f"/api/rooms/{code}/games/1/events")
            assert answer.status_code == 200, answer.text
            history = answer.json()
            assert history["room"] == code and history["game"] == 1 and not history["over"]
            covered = [m for m in history["moves"] if m["seat"] == seat]
            assert covered and covered[0]["by"] == "takeover"
            assert all(set(m) == {"version", "seat", "by", "events"} for m in history["moves"])
            assert "seed" not in answer.text and "action" not in answer.text, "nothing secret"
            versions = [m["version"] for m in history["moves"]]
            assert versions == sorted(versions) and versions[0] > history["dealt"]
            later = (await http.get(f"/api/rooms/{code}/games/1/events?since={versions[0]}")).json()
            assert [m["version"] for m in later["moves"]] == versions[1:]
            for bad, status in (("games/2/events", 404), ("games/1/events?since=x", 400)):
                assert (await http.get(f"/api/rooms/{code}/{bad}")).status_code == status, bad
            assert (await http.get("/api/rooms/ZZZZZ/games/1/events")).status_code == 404
