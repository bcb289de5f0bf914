"""The test harness itself: what the server tests stand on must behave like production."""

from __future__ import annotations

import socket

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
