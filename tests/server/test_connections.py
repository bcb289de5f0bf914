"""The send queue: a slow client is dropped without delaying anyone else."""

from __future__ import annotations

import asyncio

from server.connections import Connection
from server.protocol import CloseCode
from server.wire import Format


class Peer:
    def __init__(self, stuck: bool) -> None:
        self.stuck = stuck
        self.frames: list[bytes | str] = []
        self.closed: tuple[int, str] | None = None
        self.got = asyncio.Event()
        self.closed_event = asyncio.Event()

    async def send(self, frame: bytes | str) -> None:
        if self.stuck:
            await asyncio.Event().wait()  # a client that never reads
        self.frames.append(frame)
        self.got.set()

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)
        self.closed_event.set()


async def test_slow_connection_is_closed_and_fast_one_unaffected() -> None:
    slow_peer, fast_peer = Peer(stuck=True), Peer(stuck=False)
    slow = Connection(slow_peer.send, slow_peer.close, Format.MSGPACK, queue_size=4)
    fast = Connection(fast_peer.send, fast_peer.close, Format.MSGPACK, queue_size=4)
    slow.start()
    fast.start()
    results = []
    for i in range(10):
        # Fan-out never awaits: push returns at once for both.
        results.append(slow.push(b"frame %d" % i))
        fast.push(b"frame %d" % i)
        await asyncio.wait_for(fast_peer.got.wait(), 1)
        fast_peer.got.clear()
    await asyncio.wait_for(slow_peer.closed_event.wait(), 1)
    assert slow_peer.closed is not None and slow_peer.closed[0] == CloseCode.TRY_AGAIN
    assert slow.overflowed and results.count(False) >= 1
    assert fast_peer.frames == [b"frame %d" % i for i in range(10)]
    assert not fast.closing
    await slow.stop()
    await fast.stop()


async def test_close_after_pending_flushes_the_error_first() -> None:
    peer = Peer(stuck=False)
    conn = Connection(peer.send, peer.close, Format.JSON, queue_size=4)
    conn.start()
    conn.send({"type": "error", "code": "too_big", "message": "no"})
    conn.close_after_pending(CloseCode.TOO_BIG, "frame too big")
    assert not conn.send({"type": "late"}), "nothing is queued once closing"
    await asyncio.wait_for(peer.closed_event.wait(), 1)
    assert peer.frames == ['{"type":"error","code":"too_big","message":"no"}']
    assert peer.closed == (CloseCode.TOO_BIG, "frame too big")
    await conn.stop()
