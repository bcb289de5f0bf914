"""Workers and rooms: ``parlor serve --workers N`` hands each connection to the worker its room
hashes to (``server.ops.supervisor.Router``), so a room's players all sit on one worker.

The router's pieces are tested on real sockets in this process (a listening socket, a client,
the Unix channels a worker would read); the whole of it with real ``parlor serve --workers 2``
processes on a real redis-server, where which worker holds a connection is read from
``/proc`` (the worker process that has the connection's server-side socket open).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
from pathlib import Path

import pytest

from server import codes
from server.ops import supervisor
from server.ops.supervisor import Router, room_of, slot_of
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


class Ports:
    """A router on a free loopback port with a channel per slot (this test reads the workers'
    ends), and clients to connect to it."""

    def __init__(self, count: int) -> None:
        listener = supervisor.listening_socket("127.0.0.1", 0)
        self.port = listener.getsockname()[1]
        self.router = Router(listener, count)
        self.ends = {slot: self.router.channel(slot) for slot in range(count)}
        for end in self.ends.values():
            end.settimeout(5)
        self.clients: list[socket.socket] = []

    def connect(self, first: bytes = b"") -> socket.socket:
        client = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        if first:
            client.sendall(first)
        self.clients.append(client)
        return client

    def route(self, handed: int = 1) -> None:
        """Run the router until it has handed on ``handed`` more connections."""
        want = self.router.handed + handed
        for _ in range(1000):
            for ready in self.router.select(5.0):
                ready()
            self.router.expire()
            if self.router.handed >= want:
                return
        raise AssertionError("the router handed nothing on")

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
        for sock in [*self.clients, *self.ends.values()]:
            sock.close()
        self.router.close()
        self.router.selector.close()


@pytest.fixture
def ports() -> object:
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
    served.close()
    assert not [s for s in range(3) if s != slot and ports.waiting(s)]


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


def test_a_connection_that_says_nothing_is_handed_on_when_its_wait_is_over(
    ports: Ports, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(supervisor, "FIRST_BYTES_WAIT", 0.0)
    ports.connect()  # and never a byte
    ports.route()
    assert ports.waiting(0), "the next worker in turn has it"
    assert not ports.router.waiting


def test_a_connection_closed_before_a_word_is_handed_to_nobody(ports: Ports) -> None:
    ports.connect().close()
    for _ in range(1000):
        for ready in ports.router.select(5.0):
            ready()
        if not ports.router.waiting:
            break
    assert ports.router.handed == 0
    assert not [s for s in range(3) if ports.waiting(s)]


def test_after_the_drain_begins_the_port_refuses_new_connections(ports: Ports) -> None:
    ports.router.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", ports.port), timeout=5).close()


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


def _gone(pid: int, server: Process) -> None:
    """Wait until ``pid`` (a worker) is dead: reaped, or a zombie."""
    for _ in range(300):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return
        if state == "Z":
            return
        server.exits_within(0.05)
    raise AssertionError(f"worker {pid} did not die")


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

            os.kill(own, signal.SIGKILL)
            await asyncio.to_thread(_gone, own, server)
            # A worker that dies young is started again after a pause; until its replacement
            # exists the other worker serves the room, then the replacement does. (Which of
            # the two a given connection meets depends on when the supervisor restarts it:
            # the router's unit tests above pin each case down.)
            seen: list[tuple[int, bool]] = []
            for _ in range(200):
                replaced = bool(children(server.pid) - {other})
                # A connection upgraded to a WebSocket: a worker serves it.
                client = await Client.open(f"ws://{addr}", code)
                seen.append((worker_of(client, port, children(server.pid)), replaced))
                await client.close()
                if seen[-1][0] != other:
                    break
                await asyncio.to_thread(server.exits_within, 0.05)
            assert all(pid == other for pid, replaced in seen if not replaced), seen
            assert seen[-1][0] not in (own, other), "in the end the new worker serves it"

        asyncio.run(scenario())


def test_when_the_supervisor_drains_the_port_closes_and_players_are_told_to_resume(
    redis_clean: str,
) -> None:
    with serve_process(redis_clean, args=("--workers", "2")) as (server, addr):
        host, port = addr.rsplit(":", 1)

        async def scenario() -> None:
            code = await create_room(f"http://{addr}", "toy", {"hand": 4})
            clients = await seat_clients([f"ws://{addr}"], code, 2)
            server.send_signal(signal.SIGTERM)
            for client in clients:
                await asyncio.wait_for(client.ws.wait_closed(), 30)
                assert client.ws.close_code == 1012
            # The supervisor closed the port before it passed the signal on.
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection((host, int(port)), timeout=5).close()

        asyncio.run(scenario())
        assert server.exits_within(30)
        assert server.wait(0) == 0
