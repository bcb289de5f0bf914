"""Workers and rooms: ``parlor serve --workers N`` hands each connection to the worker its room
hashes to (``server.ops.supervisor.Router``), so a room's players all sit on one worker.

The router's pieces are tested on real sockets in this process (a listening socket, a client,
the Unix channels a worker would read); the whole of it with real ``parlor serve --workers 2``
processes on a real redis-server, where which worker holds a connection is read from
``/proc`` (the worker process that has the connection's server-side socket open).
"""

from __future__ import annotations

import asyncio
import errno
import os
import resource
import select
import signal
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from server import codes
from server.ops import supervisor
from server.ops.supervisor import READY, Router, room_of, slot_of
from tests.processes import Process
from tests.server.driver import play, seat_clients, start
from tests.server.harness import Client, create_room, serve_process

# -- which room a request names ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "room"),
    [
        (b"GET /ws/K7QXM HTTP/1.1", "K7QXM"),
        (b"GET /ws/k7qxm?format=json HTTP/1.1", "K7QXM"),
        (b"GET /ws/K7-QXM HTTP/1.1", "K7QXM"),
        (b"GET /ws/K7%20QXM HTTP/1.1", "K7QXM"),
        (b"GET /r/K7QXM HTTP/1.1", "K7QXM"),
        (b"GET /r/K7QXM/replay/2 HTTP/1.1", "K7QXM"),
        (b"GET /api/rooms/K7QXM HTTP/1.1", "K7QXM"),
        (b"POST /api/rooms/K7QXM/claim HTTP/1.1", "K7QXM"),
        (b"GET /api/rooms/K7QXM/games/1/record HTTP/1.1", "K7QXM"),
    ],
)
def test_a_request_that_names_a_room_is_routed_by_its_code_as_the_server_reads_it(
    line: bytes, room: str
) -> None:
    assert room_of(line + b"\r\nHost: parlor\r\n\r\n") == room


@pytest.mark.parametrize(
    "head",
    [
        b"GET /healthz HTTP/1.1\r\n",
        b"POST /api/rooms HTTP/1.1\r\n",
        b"GET /api/rooms HTTP/1.1\r\n",
        b"GET / HTTP/1.1\r\n",
        b"GET /ws/ HTTP/1.1\r\n",
        b"GET /ws/NOTACODE HTTP/1.1\r\n",
        b"GET /ws/K7QX0 HTTP/1.1\r\n",  # 0 is not in the alphabet
        b"GET /wsK7QXM HTTP/1.1\r\n",
        b"GET /x/ws/K7QXM HTTP/1.1\r\n",
        b"GET /ws/K7%FFQXM HTTP/1.1\r\n",
        b"GET /ws/K7\xffQXM HTTP/1.1\r\n",
        b"GET /ws/K7QXM\r\n",
        b"GE",
        b"",
        b"\x16\x03\x01\x02\x00\x01",  # a TLS hello on the plain port
    ],
)
def test_a_request_that_names_no_room_goes_to_the_next_worker_in_turn(head: bytes) -> None:
    assert room_of(head) is None


def test_a_rooms_worker_is_the_same_in_every_supervisor() -> None:
    # CRC-32 of the code, not Python's hash (which differs per process): a restarted
    # supervisor sends a room where the last one did.
    assert [slot_of(code, 4) for code in ("K7QXM", "ABCDE", "Z2345")] == [3, 1, 0]
    spread = {slot_of(codes.from_key(str(i), 0), 4) for i in range(64)}
    assert spread == {0, 1, 2, 3}


# -- the router, on real sockets in this process ------------------------------------------------


class Clock:
    """The router's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Ports:
    """A router on a free loopback port with a channel per slot (this test reads the workers'
    ends; each worker says it is ready unless ``ready`` leaves it out), and clients."""

    def __init__(self, count: int, ready: tuple[int, ...] | None = None) -> None:
        listener = supervisor.listening_socket("127.0.0.1", 0)
        self.port = listener.getsockname()[1]
        self.clock = Clock()
        self.router = Router(listener, count, clock=self.clock)
        self.ends = {slot: self.router.channel(slot) for slot in range(count)}
        for end in self.ends.values():
            end.settimeout(5)
        self.clients: list[socket.socket] = []
        for slot in range(count) if ready is None else ready:
            self.ends[slot].send(READY)
        self.pump(lambda: self.router.ready == set(range(count) if ready is None else ready))

    def connect(self, first: bytes = b"") -> socket.socket:
        client = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        if first:
            client.sendall(first)
        self.clients.append(client)
        return client

    def pump(self, done: Callable[[], bool]) -> None:
        """Run the router until ``done()``."""
        for _ in range(1000):
            if done():
                return
            for ready in self.router.select(5.0):
                ready()
            self.router.expire()
        raise AssertionError("the router never got there")

    def route(self, handed: int = 1) -> None:
        """Run the router until it has handed on ``handed`` more connections."""
        want = self.router.handed + handed
        self.pump(lambda: self.router.handed >= want)

    def received(self, slot: int) -> socket.socket:
        """The connection the worker in ``slot`` was handed."""
        data, fds, _, _ = socket.recv_fds(self.ends[slot], 16, 4)
        assert data == b"c" and len(fds) == 1
        sock = socket.socket(fileno=fds[0])
        sock.settimeout(5)
        return sock

    def waiting(self, slot: int) -> bool:
        self.ends[slot].setblocking(False)
        try:
            self.ends[slot].recv(16, socket.MSG_PEEK)
        except BlockingIOError:
            return False
        finally:
            self.ends[slot].settimeout(5)
        return True

    def close(self) -> None:
        self.router.close()
        self.router.selector.close()
        for sock in [*self.clients, *self.ends.values()]:
            sock.close()


@pytest.fixture
def ports() -> Iterator[Ports]:
    made = Ports(3)
    yield made
    made.close()


def test_the_worker_is_handed_the_connection_with_every_byte_the_router_peeked_at(
    ports: Ports,
) -> None:
    request = b"GET /ws/K7QXM HTTP/1.1\r\nHost: parlor\r\n\r\n"
    client = ports.connect(request)
    ports.route()
    slot = slot_of("K7QXM", 3)
    served = ports.received(slot)
    assert served.recv(1024) == request, "the worker reads the request from its first byte"
    served.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
    assert client.recv(1024) == b"HTTP/1.1 200 OK\r\n\r\n", "and answers the client itself"
    assert not [s for s in range(3) if s != slot and ports.waiting(s)]
    served.close()
    assert client.recv(1024) == b"", "the supervisor kept no copy: the worker's close ends it"


def test_every_connection_of_a_room_goes_to_one_worker(ports: Ports) -> None:
    slot = slot_of("ABCDE", 3)
    for path in (b"/ws/ABCDE", b"/ws/abcde?format=json", b"/r/ABCDE", b"/api/rooms/ABCDE/claim"):
        ports.connect(b"GET " + path + b" HTTP/1.1\r\n\r\n")
        ports.route()
        ports.received(slot).close()


def test_requests_that_name_no_room_go_round_the_workers_in_turn(ports: Ports) -> None:
    slots = []
    for _ in range(6):
        ports.connect(b"GET /healthz HTTP/1.1\r\n\r\n")
        ports.route()
        slots.append(next(s for s in range(3) if ports.waiting(s)))
        ports.received(slots[-1]).close()
    assert slots == [0, 1, 2, 0, 1, 2]


def test_a_request_line_that_comes_in_pieces_is_routed_by_the_whole_of_it(ports: Ports) -> None:
    client = ports.connect(b"GET /ws/K7")
    peeks = ports.router.peeks
    ports.pump(lambda: ports.router.peeks > peeks)  # it saw the first piece, and waits
    assert ports.router.handed == 0
    client.sendall(b"QXM HTTP/1.1\r\n\r\n")
    ports.clock.now += supervisor.PEEK_AGAIN  # time to look again
    ports.route()
    assert ports.received(slot_of("K7QXM", 3)).recv(1024).startswith(b"GET /ws/K7QXM ")


def test_a_room_whose_worker_is_down_goes_to_the_next_worker(ports: Ports) -> None:
    slot = slot_of("K7QXM", 3)
    ports.router.drop(slot)  # its worker died: the supervisor drops its channel
    ports.connect(b"GET /ws/K7QXM HTTP/1.1\r\n\r\n")
    ports.route()
    ports.received((slot + 1) % 3).close()


def test_a_room_whose_worker_died_unseen_goes_to_the_next_worker(ports: Ports) -> None:
    # The worker's end of the channel closed (the process died) before the supervisor
    # reaped it: handing over fails, and the next worker gets the connection.
    slot = slot_of("K7QXM", 3)
    ports.ends[slot].close()
    ports.connect(b"GET /ws/K7QXM HTTP/1.1\r\n\r\n")
    ports.route()
    ports.received((slot + 1) % 3).close()


def test_a_room_whose_worker_has_a_full_channel_goes_to_the_next_worker(ports: Ports) -> None:
    slot = slot_of("K7QXM", 3)
    ours = ports.router.channels[slot]
    with pytest.raises(BlockingIOError):
        while True:
            ours.send(b"x")  # the worker is not reading: its channel fills
    ports.connect(b"GET /ws/K7QXM HTTP/1.1\r\n\r\n")
    ports.route()
    ports.received((slot + 1) % 3).close()


def test_a_worker_that_is_not_ready_yet_is_passed_over_for_one_that_is() -> None:
    slot = slot_of("K7QXM", 3)
    ports = Ports(3, ready=((slot + 2) % 3,))  # a restarted worker, and one still starting
    try:
        ports.connect(b"GET /ws/K7QXM HTTP/1.1\r\n\r\n")
        ports.route()
        ports.received((slot + 2) % 3).close()
    finally:
        ports.close()


def test_before_any_worker_is_ready_a_room_waits_for_its_own() -> None:
    ports = Ports(3, ready=())
    try:
        ports.connect(b"GET /ws/K7QXM HTTP/1.1\r\n\r\n")
        ports.route()
        ports.received(slot_of("K7QXM", 3)).close()
    finally:
        ports.close()


def test_a_client_no_worker_can_take_is_told_503_not_reset(ports: Ports) -> None:
    for slot in range(3):
        ports.router.drop(slot)
    client = ports.connect(b"GET /ws/K7QXM HTTP/1.1\r\n\r\n")
    ports.pump(lambda: ports.router.peeks > 0 and not ports.router.waiting)
    answer = client.recv(1024)
    assert answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), answer
    assert client.recv(1024) == b"", "then the connection closes"


def test_a_connection_that_says_nothing_is_handed_on_when_its_wait_is_over(
    ports: Ports,
) -> None:
    ports.connect()  # and never a byte
    ports.pump(lambda: bool(ports.router.waiting))
    assert ports.router.handed == 0
    ports.clock.now += supervisor.FIRST_BYTES_WAIT
    ports.route()
    assert ports.waiting(0), "the next worker in turn has it"
    assert not ports.router.waiting


def test_a_connection_closed_before_a_word_is_handed_to_nobody(ports: Ports) -> None:
    ports.connect().close()
    ports.pump(lambda: not ports.router.waiting and ports.router.peeks > 0)
    assert ports.router.handed == 0
    assert not [s for s in range(3) if ports.waiting(s)]


class NoDescriptors:
    """The listening socket, as it is when the process has no descriptor left."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.accepts = 0

    def fileno(self) -> int:
        return self.sock.fileno()

    def accept(self) -> Any:
        self.accepts += 1
        raise OSError(errno.EMFILE, "Too many open files")


def test_out_of_descriptors_the_router_pauses_accepting_instead_of_spinning(
    ports: Ports,
) -> None:
    listener = ports.router.listener
    full = NoDescriptors(listener)
    ports.router.listener = full  # type: ignore[assignment]
    ports.connect(b"GET /healthz HTTP/1.1\r\n\r\n")
    ports.pump(lambda: ports.router.paused_until is not None)
    for _ in range(5):  # the connection waits in the backlog; nobody calls accept meanwhile
        for ready in ports.router.select(0.0):
            ready()
    assert full.accepts == 1
    ports.router.listener = listener  # a descriptor is free again
    ports.clock.now += supervisor.ACCEPT_PAUSE
    ports.route()  # the pause is over: accepted, peeked, handed on
    assert ports.router.paused_until is None


def test_after_the_drain_begins_the_port_refuses_new_connections(ports: Ports) -> None:
    ports.router.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", ports.port), timeout=5).close()


def test_at_the_drain_connections_accepted_but_not_yet_routed_are_handed_on(ports: Ports) -> None:
    ports.connect(b"GET /ws/K7")  # half a request line: still waiting in the router
    ports.pump(lambda: ports.router.peeks > 0)
    assert ports.router.waiting
    ports.router.close()
    assert ports.router.handed == 1 and not ports.router.waiting


# -- parlor serve --workers 2 -------------------------------------------------------------------


def children(pid: int) -> set[int]:
    return {int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}


def _inodes(local_port: int, remote_port: int) -> set[str]:
    """The socket inodes of TCP connections from ``local_port`` to ``remote_port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote = (int(a.rsplit(":", 1)[1], 16) for a in fields[1:3])
            if (local, remote) == (local_port, remote_port):
                found.add(fields[9])
    return found


def worker_of(client: Client, server_port: int, workers: set[int]) -> int:
    """The worker process holding the server side of ``client``'s connection."""
    client_port = client.ws.local_address[1]
    inodes = _inodes(server_port, client_port)
    assert inodes, "the connection is open"
    holders = set()
    for pid in workers:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                link = os.readlink(fd)
            except FileNotFoundError:
                continue
            if link.startswith("socket:[") and link[8:-1] in inodes:
                holders.add(pid)
    assert len(holders) == 1, holders
    return holders.pop()


async def _rooms_on_both_slots(http: str) -> dict[int, str]:
    """A room for each of the two workers (codes are random: made until both are covered)."""
    rooms: dict[int, str] = {}
    for _ in range(40):
        code = await create_room(http, "toy", {"hand": 4})
        rooms.setdefault(slot_of(code, 2), code)
        if len(rooms) == 2:
            return rooms
    raise AssertionError("40 rooms, all on one worker")


def test_a_rooms_players_all_sit_on_one_worker_and_its_game_plays(redis_clean: str) -> None:
    with serve_process(redis_clean, args=("--workers", "2")) as (server, addr):
        port = int(addr.rsplit(":", 1)[1])

        async def scenario() -> None:
            rooms = await _rooms_on_both_slots(f"http://{addr}")
            workers = children(server.pid)
            held: dict[int, set[int]] = {}
            for slot, code in rooms.items():
                clients = await seat_clients([f"ws://{addr}"] * 4, code, 4)
                held[slot] = {worker_of(c, port, workers) for c in clients}
                await start(clients[0])
                await play(clients, seed=slot)
                for client in clients:
                    await client.close()
            assert all(len(pids) == 1 for pids in held.values()), held
            assert held[0] != held[1], "the two rooms' workers differ"

        asyncio.run(scenario())


async def _kill_and_watch(
    server: Process, addr: str, code: str, own: int, other: int
) -> list[tuple[int, bool]]:
    """SIGKILL the room's worker ``own``, then connect to the room until a worker other than
    ``other`` serves it: each connection's worker, and whether a replacement of ``own``
    existed yet once the connection was up (if not, it cannot have served it)."""
    port = int(addr.rsplit(":", 1)[1])
    os.kill(own, signal.SIGKILL)
    await asyncio.to_thread(_exited, own)
    seen: list[tuple[int, bool]] = []
    for _ in range(400):
        # A connection upgraded to a WebSocket: a worker serves it.
        client = await Client.open(f"ws://{addr}", code)
        now = children(server.pid)
        seen.append((worker_of(client, port, now), bool(now - {other})))
        await client.close()
        if seen[-1][0] != other:
            return seen
        await asyncio.to_thread(server.exits_within, 0.02)
    raise AssertionError(f"no new worker served the room: {seen}")


def test_a_room_is_served_by_the_other_worker_while_its_own_restarts_then_by_the_new_one(
    redis_clean: str,
) -> None:
    with serve_process(redis_clean, args=("--workers", "2")) as (server, addr):
        port = int(addr.rsplit(":", 1)[1])

        async def scenario() -> None:
            rooms = await _rooms_on_both_slots(f"http://{addr}")
            workers = children(server.pid)
            code = rooms[0]
            first = await seat_clients([f"ws://{addr}"], code, 1)
            own = worker_of(first[0], port, workers)
            other = (workers - {own}).pop()
            await first[0].close()

            seen = await _kill_and_watch(server, addr, code, own, other)
            assert all(pid == other for pid, replaced in seen if not replaced), seen
            young = seen[-1][0]
            assert young not in (own, other), "in the end the new worker serves it"
            # Again, now that the room's worker is seconds old: one that dies that young is
            # restarted only after a pause (a second or more), so the room is served by the
            # other worker meanwhile.
            seen = await _kill_and_watch(server, addr, code, young, other)
            down = [pid for pid, replaced in seen if not replaced]
            assert down and set(down) == {other}, seen
            assert seen[-1][0] not in (own, young, other)

        asyncio.run(scenario())


async def _players_told_to_resume(addr: str, end: Callable[[], None]) -> None:
    """Two players in a room; ``end()`` (a signal to the supervisor); both are told 1012
    "service restart" (resume elsewhere), not dropped."""
    code = await create_room(f"http://{addr}", "toy", {"hand": 4})
    clients = await seat_clients([f"ws://{addr}"], code, 2)
    end()
    for client in clients:
        await asyncio.wait_for(client.ws.wait_closed(), 30)
        assert client.ws.close_code == 1012


def test_sigint_to_the_supervisor_drains_every_worker_and_ends_it(redis_clean: str) -> None:
    with serve_process(redis_clean, args=("--workers", "2")) as (server, addr):
        workers = children(server.pid)
        asyncio.run(_players_told_to_resume(addr, lambda: server.send_signal(signal.SIGINT)))
        assert server.exits_within(30)
        assert server.wait(0) == 0
        for pid in workers:
            _exited(pid)


def test_workers_drain_and_end_when_their_supervisor_is_killed(redis_clean: str) -> None:
    with serve_process(redis_clean, args=("--workers", "2")) as (server, addr):
        workers = children(server.pid)
        # SIGKILL: no drain is passed on; each worker sees that it is alone.
        asyncio.run(_players_told_to_resume(addr, server.kill))
        for pid in workers:
            _exited(pid)


def _exited(pid: int, timeout: float = 30.0) -> None:
    """Wait until ``pid`` has exited (a pidfd turns readable then, child or not)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    finally:
        os.close(fd)
    assert ready, f"worker {pid} still runs without its supervisor"


def test_when_the_supervisor_drains_the_port_closes_and_players_are_told_to_resume(
    redis_clean: str,
) -> None:
    with serve_process(redis_clean, args=("--workers", "2")) as (server, addr):
        host, port = addr.rsplit(":", 1)
        asyncio.run(_players_told_to_resume(addr, lambda: server.send_signal(signal.SIGTERM)))
        # The supervisor closed the port as it passed the signal on, before any player heard.
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((host, int(port)), timeout=5).close()
        assert server.exits_within(30)
        assert server.wait(0) == 0


def test_the_supervisor_raises_its_open_files_limit_to_the_hard_one() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lower = min(soft, 1024) if hard > 1024 else max(64, hard // 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (lower, hard))
    try:
        supervisor._more_descriptors()
        assert resource.getrlimit(resource.RLIMIT_NOFILE) == (hard, hard)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
