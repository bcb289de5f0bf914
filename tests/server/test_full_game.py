"""A full game of every registered game between real WebSocket clients, msgpack and JSON."""

from __future__ import annotations

import pytest

from rules.registry import all_games, get_game
from server.stores.redis_store import RedisStore
from tests.server.driver import check_log_replays, play, seat_clients, start
from tests.server.harness import TEST_SETTINGS, create_room, serve


def _seats(game_id: str) -> int:
    game = get_game(game_id)
    return max(game.min_seats, min(4, game.max_seats))


@pytest.mark.parametrize("fmt", ["msgpack", "json"])
@pytest.mark.parametrize("game_id", sorted(all_games()))
async def test_full_game_over_redis(game_id: str, fmt: str, redis_clean: str) -> None:
    store = RedisStore(redis_clean)
    async with serve(TEST_SETTINGS, store) as server:
        code = await create_room(server.http, game_id)
        clients = await seat_clients([server.ws], code, _seats(game_id), fmt)
        await start(clients[0])
        finals = await play(clients, seed=7)
        room = await check_log_replays(store, code)
        game = get_game(game_id)
        for seat, final in enumerate(finals):
            # What each client holds is exactly the rules' redacted view of the final state.
            assert final["view"] == game.view(room.state, seat)
            assert final["room"]["phase"] == "finished"
            assert final["view"]["result"] == game.result(room.state).to_wire()
        for client in clients:
            await client.close()
