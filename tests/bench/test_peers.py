"""The real peers of ``bench/peers`` (issue 32) do the work they are measured on: one small game
each (1 room, 3 seats, a dozen actions, seeded), played by the peer's own client SDK through its
load generator in check mode, which prints every view each seat decoded.

Checked: each seat sees its own face-down cards and no other seat's (what a framework leaves
out of a seat's updates never reaches its decoded state: Colyseus's ``.view()`` field is absent,
boardgame.io's ``playerView`` sent the placeholder); every seat gets every view (versions 1 to
the last, none skipped); all seats agree on what is public. No figure is measured."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench import peers
from tests.redis_process import RedisProcess

SEATS = 3
ACTIONS = 12
SEED = 7


@pytest.fixture(params=peers.PEERS)
def served(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[peers.Server, str, Any]]:
    """(peer, URL, the Redis of Colyseus + Redis or None)."""
    peer: peers.Server = request.param
    if not peers.installed():
        pytest.fail("bench/peers' npm packages are not installed: run scripts/bootstrap test")
    if peer == "colyseus_redis":
        with (
            RedisProcess(workdir=tmp_path / "redis") as redis,
            peers.peer_server(peer, tmp_path / "server.log", redis.url) as (_, url),
        ):
            yield peer, url, redis
    else:
        with peers.peer_server(peer, tmp_path / "server.log") as (_, url):
            yield peer, url, None


async def test_each_seat_sees_only_its_own_cards_and_every_view(
    served: tuple[peers.Server, str, RedisProcess | None],
) -> None:
    peer, url, redis = served
    argv = peers.loadgen_argv(
        peer, url, rooms=1, seats=SEATS, actions=ACTIONS, seed=SEED, timeout=20
    )
    result = await peers.run_loadgen(argv, timeout=60)
    assert result["complete"], "not every seat had the last view before the timeout"
    down = result["down"]
    [room] = result["rooms"]
    assert sorted(p["seat"] for p in room) == list(range(SEATS))
    by_version: dict[int, list[dict[str, Any]]] = {}
    for player in room:
        me = player["seat"]
        # (b) every view, in order, none skipped, from the deal to the last action's
        assert [v["version"] for v in player["views"]] == list(range(1, ACTIONS + 2))
        for view in player["views"]:
            by_version.setdefault(view["version"], []).append(view)
            for seat in range(SEATS):
                face_down = [p for p, up in enumerate(view["up"][seat]) if not up]
                assert face_down, "a grid with no face-down card checks nothing"
                values = [view["grids"][seat][p] for p in face_down]
                if seat == me:
                    # its own face-down cards are there
                    assert down not in values
                    assert [view["hidden"][seat][p] for p in face_down] == values
                else:
                    # (a) another seat's face-down cards never are
                    assert values == [down] * len(face_down)
                    assert view["hidden"][seat] == [down] * len(view["hidden"][seat])
    # What is public is the same for every seat.
    for views in by_version.values():
        assert len(views) == SEATS
        assert all(v["up"] == views[0]["up"] and v["toAct"] == views[0]["toAct"] for v in views)
    if redis is not None:
        # Colyseus + Redis wrote its room's state to Redis.
        with redis.client() as client:
            assert client.keys("peer:colyseus:*")


def test_ratios_are_taken_round_by_round_leaving_out_failed_runs() -> None:
    # No figure is measured: how the runner turns runs into each peer's ratios to Parlor.
    def runs(*cpu: float | None) -> list[dict[str, Any] | None]:
        return [None if x is None else {"cpu": x} for x in cpu]

    table: dict[peers.Server, list[dict[str, Any] | None]] = {
        "parlor": runs(0.4, 0.5, 0.0, 0.4),
        "colyseus": runs(0.1, 0.2, 0.1, None),
        "colyseus_redis": runs(0.2, 0.25, 0.2, 0.2),
        "bgio": runs(None, 0.5, 0.4, 0.5),
    }
    # A round where Parlor's figure is 0, or where either run failed, is left out.
    assert peers.round_ratios(table, "colyseus", "cpu") == [0.25, 0.4]
    assert peers.round_ratios(table, "colyseus_redis", "cpu") == [0.5, 0.5, 0.5]
    assert peers.round_ratios(table, "bgio", "cpu") == [1.0, 1.25]
