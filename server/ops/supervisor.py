"""How ``parlor serve`` runs: one instance process, or N of them on one port.

**Drain.** An instance that gets SIGTERM (or SIGINT) first stops accepting: its listening socket is
closed at once, from the signal handler's next turn of the event loop (uvicorn by itself notices the
signal up to 0.1 s later), so a connection arriving after that goes to another worker on the port or
is refused, never to this instance. Then every WebSocket is closed with 1012 "service restart"
(:meth:`server.transport.serving.WebSocketProtocol.shutdown`): clients resume on another instance
with their token and resend what was not acknowledged, which the server applies exactly once. A
command the instance is saving meanwhile is finished (its ack is not sent: the client's resend is
answered as a duplicate), and whatever still runs after ``shutdown_timeout`` is cancelled.

**Workers.** With more than one worker, this process is a supervisor: it forks each worker (a
full instance, with its own instance id) and keeps the port itself. It accepts every
connection, peeks at its request line without reading it (``MSG_PEEK``) and hands the socket
to a worker over a Unix socket (``SCM_RIGHTS``, :class:`Router`): a request that names a room
(``/ws/CODE``, ``/r/CODE…``, ``/api/rooms/CODE…``) goes to the worker the code hashes to, so a
room's players all sit on one worker and each move is applied, loaded and fanned out once;
any other request goes to the next worker in turn. The worker serves the socket as if it had
accepted it, and the bytes the supervisor peeked at are still there for it to read.

A worker that dies is started again in its slot (its rooms go to the other workers until it
says it is ready: every worker can serve every room, as replicas do); SIGTERM (or SIGINT)
closes the port at once (what was accepted is handed on) and is passed on to every worker,
each drains as above (a worker whose supervisor dies drains too), and a worker still running
``shutdown_timeout + close_timeout + 5`` s later is killed. Every worker needs the shared
store, so more than one is refused with the embedded one
(:meth:`server.ops.config.Settings.worker_count`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import resource
import selectors
import signal
import socket
import time
import zlib
from collections.abc import Callable
from types import FrameType
from typing import Any
from urllib.parse import unquote

import uvicorn

from server import codes
from server.ops.config import Settings

log = logging.getLogger("parlor")

#: uvicorn's exit code for a server that never started (its lifespan failed, say).
STARTUP_FAILURE = 3

#: Signals the supervisor wakes up for (through its wakeup pipe).
_WAITED = (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD)

#: A worker that exits sooner than this after it was started is started again only after a
#: pause (doubling, up to ``_RESPAWN_MAX``), so a worker that cannot run does not spin.
_QUICK_EXIT = 5.0
_RESPAWN_MAX = 8.0


class DrainingServer(uvicorn.Server):
    """uvicorn's server, closing its listening sockets as soon as a signal asks it to stop.

    A worker (``worker=True``) treats a second SIGINT like the first: the terminal sends
    SIGINT to the whole process group and the supervisor forwards SIGTERM, and neither may
    turn the drain into a forced exit (the supervisor enforces the deadline)."""

    def __init__(
        self,
        config: uvicorn.Config,
        *,
        worker: bool = False,
        channel: socket.socket | None = None,
    ) -> None:
        super().__init__(config)
        self.worker = worker
        #: The Unix socket the supervisor hands this worker its connections on (workers only).
        self.channel = channel
        self._loop: asyncio.AbstractEventLoop | None = None
        self._adopting: set[asyncio.Task[Any]] = set()

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.channel is not None and self.started and self._loop is not None:
            self.channel.setblocking(False)
            self._loop.add_reader(self.channel.fileno(), self._handed)
            # Ready: the supervisor hands this worker connections from now on (until then a
            # restarted worker's rooms go to the others).
            try:
                self.channel.send(READY)
            except OSError:
                self._supervisor_gone()

    def _protocol(self) -> asyncio.Protocol:
        # What uvicorn's own listener makes for a connection it accepts.
        protocol: asyncio.Protocol = self.config.http_protocol_class(  # type: ignore[call-arg]
            config=self.config, server_state=self.server_state, app_state=self.lifespan.state
        )
        return protocol

    def _handed(self) -> None:
        """Serve every connection the supervisor has handed over since the last call (during
        the drain too: they were accepted before it began, and the drain answers them)."""
        assert self._loop is not None
        while self.channel is not None:
            try:
                data, fds, flags, _ = socket.recv_fds(self.channel, 16, 16)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                log.error("parlor: reading the supervisor's channel failed: %s", exc)
                return
            if flags & socket.MSG_CTRUNC:
                # The kernel dropped a descriptor this process had no room for.
                log.error("parlor: a connection was lost: out of file descriptors")
            if not data and not fds:
                self._supervisor_gone()
                return
            for fd in fds:
                task = self._loop.create_task(self._adopt(socket.socket(fileno=fd)))
                self._adopting.add(task)
                task.add_done_callback(self._adopting.discard)

    def _supervisor_gone(self) -> None:
        """The supervisor died (its end of the channel closed): nothing more will come, and
        a worker nobody supervises drains and ends rather than serve on unrestarted."""
        self._close_channel()
        if not self.should_exit:
            log.error("parlor: the supervisor is gone: draining")
            self.handle_exit(signal.SIGTERM, None)

    async def _adopt(self, sock: socket.socket) -> None:
        assert self._loop is not None
        sock.setblocking(False)
        try:
            await self._loop.connect_accepted_socket(self._protocol, sock)
        except OSError:
            sock.close()

    def _close_channel(self) -> None:
        if self.channel is None:
            return
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self.channel.fileno())
        self.channel.close()
        self.channel = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.worker and sig == signal.SIGINT:
            sig = signal.SIGTERM
        super().handle_exit(sig, frame)
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.stop_accepting)

    def stop_accepting(self) -> None:
        """Close the listening sockets (a worker: its channel from the supervisor, once the
        connections already handed over are taken in); connections accepted carry on."""
        for server in self.servers:
            server.close()
        if self.channel is not None:
            self._handed()
        self._close_channel()


def run_instance(
    settings: Settings,
    app: Any,
    options: dict[str, Any],
    channel: socket.socket | None = None,
    *,
    worker: bool = False,
) -> int:
    """Serve ``app`` until a signal ends the drain; uvicorn's exit code convention. With a
    ``channel`` (a worker), it serves the connections the supervisor hands over on it and
    listens on nothing itself."""
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        lifespan="on",
        log_level="info",
        access_log=False,
        **options,
    )
    server = DrainingServer(config, worker=worker, channel=channel)
    server.run(sockets=None if channel is None else [])
    return 0 if server.started else STARTUP_FAILURE


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port``, listening, non-blocking."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


# -- routing ----------------------------------------------------------------------------------

#: What a worker sends on its channel once it serves: hand me connections.
READY = b"r"
#: How much of a new connection the router peeks at: the request line.
PEEK = 2048
#: How long the router waits for a new connection's request line before it hands it on with
#: what it has (a request line that names no room goes to the next worker in turn; the worker's
#: own timeouts deal with a client that never speaks).
FIRST_BYTES_WAIT = 2.0
#: While a connection's first bytes hold no whole request line, the router looks again this
#: often (a level-triggered wait would wake at once for the bytes already there).
PEEK_AGAIN = 0.01
#: After an accept fails for want of descriptors or memory, the router stops accepting this
#: long (the backlog holds the connections meanwhile) instead of failing again at once.
ACCEPT_PAUSE = 1.0
#: What a client gets when no worker can take its connection (nginx tries another replica).
UNAVAILABLE = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 21\r\n"
    b"Connection: close\r\n\r\nno worker is serving\n"
)
#: Connections accepted per wakeup, so a flood of them does not starve the signals.
_ACCEPT_BATCH = 64

#: The paths that name a room: ``/ws/CODE``, ``/r/CODE…`` and ``/api/rooms/CODE…``.
_ROOM_PREFIXES = (("ws",), ("r",), ("api", "rooms"))


def room_of(head: bytes) -> str | None:
    """The room code a request names in its request line (``head``: the first bytes of the
    connection), normalised as the server normalises it; None if it names none."""
    line = head.split(b"\r\n", 1)[0]
    parts = line.split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/"):
        return None
    try:
        path = unquote(parts[1].split(b"?", 1)[0].decode("ascii"), errors="strict")
    except (UnicodeDecodeError, ValueError):
        return None
    segments = path.split("/")
    if segments[0]:
        return None
    for prefix in _ROOM_PREFIXES:
        n = len(prefix)
        if tuple(segments[1 : 1 + n]) == prefix and len(segments) > 1 + n:
            return codes.normalize(segments[1 + n])
    return None


def slot_of(code: str, count: int) -> int:
    """The worker a room's connections go to: a hash of its code that every supervisor
    computes alike (CRC-32, not Python's per-process ``hash``)."""
    return zlib.crc32(code.encode("ascii")) % count


class Router:
    """The supervisor's half of the port: accepts, peeks, hands each connection to a worker.

    Every worker slot has a channel, a ``SOCK_SEQPACKET`` Unix socket pair; a connection is
    handed over as one message carrying its descriptor, and the worker says on it when it is
    ready to serve (:data:`READY`). A room's connections go to its slot's worker when that one
    is ready; otherwise (being restarted, its channel full or just closed) to the next ready
    one: any worker can serve any room. Before any worker is ready, to any worker that will be.
    """

    def __init__(
        self, listener: socket.socket, count: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.listener = listener
        self.count = count
        self.clock = clock
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ, self._accept)
        #: slot -> the supervisor's end of that worker's channel
        self.channels: dict[int, socket.socket] = {}
        #: the slots whose worker said it is ready
        self.ready: set[int] = set()
        #: connections waiting for their request line -> when to stop waiting
        self.waiting: dict[socket.socket, float] = {}
        #: those of them to peek at again (not in the selector meanwhile) -> when
        self.again: dict[socket.socket, float] = {}
        #: when accepting resumes after a failed accept (None: accepting)
        self.paused_until: float | None = None
        self.closed = False
        self._turn = 0
        self._logged: dict[str, float] = {}
        self.handed = 0
        self.peeks = 0

    def channel(self, slot: int) -> socket.socket:
        """A fresh channel for the worker in ``slot``; returns the worker's end."""
        self.drop(slot)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        self.channels[slot] = ours
        self.selector.register(ours, selectors.EVENT_READ, lambda: self._heard(slot, ours))
        return theirs

    def drop(self, slot: int) -> None:
        """Hand ``slot`` nothing more (its worker died)."""
        self.ready.discard(slot)
        ours = self.channels.pop(slot, None)
        if ours is not None:
            self.selector.unregister(ours)
            ours.close()

    def close_inherited(self) -> None:
        """In a forked worker: close this process's copies of everything the router holds
        (the supervisor's copies stay open)."""
        self.selector.close()
        for sock in [self.listener, *self.channels.values(), *self.waiting]:
            sock.close()
        self.channels.clear()
        self.waiting.clear()
        self.again.clear()

    def select(self, timeout: float | None) -> list[Callable[[], None]]:
        """Wait up to ``timeout`` for work: the callbacks of whatever is ready."""
        now = self.clock()
        if self.paused_until is not None and now >= self.paused_until and not self.closed:
            self.paused_until = None
            self.selector.register(self.listener, selectors.EVENT_READ, self._accept)
        for conn, at in list(self.again.items()):
            if at <= now:
                del self.again[conn]
                self.selector.register(conn, selectors.EVENT_READ, lambda c=conn: self._peek(c))
        times = [*self.waiting.values(), *self.again.values()]
        if self.paused_until is not None:
            times.append(self.paused_until)
        if times:
            first = max(0.0, min(times) - now)
            timeout = first if timeout is None else min(timeout, first)
        return [key.data for key, _ in self.selector.select(timeout)]

    def expire(self) -> None:
        """Hand on the connections whose request line did not come in time, with what came."""
        now = self.clock()
        for conn in [c for c, at in self.waiting.items() if at <= now]:
            self._peek(conn, final=True)

    def close(self) -> None:
        """Stop accepting (the drain): the port closes at once. Connections accepted and not
        yet handed on are handed on now, as they are (the workers' drain answers them)."""
        if self.closed:
            return
        self.closed = True
        if self.paused_until is None:
            self.selector.unregister(self.listener)
        self.listener.close()
        for conn in list(self.waiting):
            self._peek(conn, final=True)

    def _log(self, kind: str, message: str, *args: Any) -> None:
        """``message``, at most once a second for each ``kind`` (a flood must not flood)."""
        now = self.clock()
        if now - self._logged.get(kind, -1e9) >= 1.0:
            self._logged[kind] = now
            log.error(message, *args)

    def _heard(self, slot: int, ours: socket.socket) -> None:
        if self.channels.get(slot) is not ours:
            return
        try:
            data = ours.recv(16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data == READY:
            self.ready.add(slot)
        elif not data:  # the worker's end closed: it died (the supervisor reaps it soon)
            self.drop(slot)

    def _accept(self) -> None:
        for _ in range(_ACCEPT_BATCH):
            try:
                conn, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except (ConnectionAbortedError, PermissionError):
                continue  # the client gave up, or a firewall refused it: the next one
            except OSError as exc:
                # Out of descriptors or memory, say: a level-triggered listener would fail
                # again at once, for ever. Pause, and let the backlog hold the connections.
                self._log("accept", "parlor: accept failed (%s): pausing %.1f s", exc, ACCEPT_PAUSE)
                self.selector.unregister(self.listener)
                self.paused_until = self.clock() + ACCEPT_PAUSE
                return
            conn.setblocking(False)
            self.waiting[conn] = self.clock() + FIRST_BYTES_WAIT
            self.selector.register(conn, selectors.EVENT_READ, lambda c=conn: self._peek(c))

    def _peek(self, conn: socket.socket, *, final: bool = False) -> None:
        self.peeks += 1
        try:
            head = conn.recv(PEEK, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            head = None
        except OSError:  # reset by the client
            self._forget(conn)
            conn.close()
            return
        if head is None or (head and b"\r\n" not in head and len(head) < PEEK):
            if not final:
                if head is not None and conn not in self.again:
                    # Part of a request line: look again shortly (until its wait is over).
                    self.selector.unregister(conn)
                    self.again[conn] = self.clock() + PEEK_AGAIN
                return
            head = head or b""
        self._forget(conn)
        if not head and not final:  # gone before it said anything
            conn.close()
            return
        code = room_of(head)
        self._hand(conn, None if code is None else slot_of(code, self.count))

    def _forget(self, conn: socket.socket) -> None:
        del self.waiting[conn]
        if self.again.pop(conn, None) is None:
            self.selector.unregister(conn)

    def _hand(self, conn: socket.socket, slot: int | None) -> None:
        if slot is None:
            slot = self._turn
            self._turn = (self._turn + 1) % self.count
        order = [(slot + step) % self.count for step in range(self.count)]
        # Ready workers first; a worker still starting only when none is ready (it serves
        # the connection once it has started).
        for target in [s for s in order if s in self.ready] + [
            s for s in order if s not in self.ready
        ]:
            ours = self.channels.get(target)
            if ours is None:
                continue
            try:
                socket.send_fds(ours, [b"c"], [conn.fileno()])
            except OSError:  # full, or its worker just died: the next worker serves it
                continue
            self.handed += 1
            conn.close()
            return
        self._log("unavailable", "parlor: no worker could take a connection: 503")
        with contextlib.suppress(OSError):
            conn.recv(PEEK)  # read what was peeked, so that closing sends no reset
            conn.send(UNAVAILABLE)
            conn.shutdown(socket.SHUT_WR)
        conn.close()


def _noted(signum: int, frame: FrameType | None) -> None:
    """The supervisor's handler: the signal's number reaches its loop through the wakeup
    pipe (``signal.set_wakeup_fd``)."""


def _more_descriptors() -> None:
    """Raise this process's soft limit on open files to its hard limit (the workers inherit
    it): every WebSocket is one, and a worker past the limit loses a connection handed to it."""
    with contextlib.suppress(ValueError, OSError):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _die_with_parent() -> None:
    """Linux: SIGTERM this process when the supervisor dies, however it dies."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


class Supervisor:
    """Runs ``count`` workers, each ``work(slot, channel)`` in a forked process, and routes
    the port's connections to them (:class:`Router`)."""

    def __init__(
        self, settings: Settings, count: int, work: Callable[[int, socket.socket], int]
    ) -> None:
        self.settings = settings
        self.count = count
        self.work = work
        #: pid -> (slot, started at)
        self.children: dict[int, tuple[int, float]] = {}
        #: slot -> when to start it again, and the pause after that
        self.respawn: dict[int, float] = {}
        self.pause: dict[int, float] = {}
        self.stopping = False
        self.deadline = 0.0
        self.router: Router | None = None
        self._wakeup: tuple[socket.socket, socket.socket] | None = None
        self._signals: list[int] = []
        self._previous: dict[signal.Signals, Any] = {}

    def run(self) -> int:
        # Bind first: a port in use is an error now, not a worker that keeps dying.
        host, port = self.settings.host, self.settings.port
        try:
            listener = listening_socket(host, port)
        except OSError as exc:
            log.error("parlor: cannot listen on %s:%d: %s", host, port, exc)
            return 1
        _more_descriptors()
        self.router = router = Router(listener, self.count)
        wake_r, wake_w = self._wakeup = socket.socketpair()
        wake_r.setblocking(False)
        wake_w.setblocking(False)
        router.selector.register(wake_r, selectors.EVENT_READ, self._woken)
        # The wakeup pipe first, then the handlers: a signal in between is not lost.
        old_fd = signal.set_wakeup_fd(wake_w.fileno(), warn_on_full_buffer=False)
        self._previous = previous = {sig: signal.signal(sig, _noted) for sig in _WAITED}
        try:
            for slot in range(self.count):
                self._spawn(slot)
            log.info(
                "parlor: %d workers on %s:%d (connections routed by room), pids %s",
                self.count,
                self.settings.host,
                self.settings.port,
                " ".join(map(str, self.children)),
            )
            return self._watch()
        finally:
            signal.set_wakeup_fd(old_fd)
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            router.close()
            router.selector.close()
            wake_r.close()
            wake_w.close()

    def _spawn(self, slot: int) -> None:
        assert self.router is not None and self._wakeup is not None
        channel = self.router.channel(slot)
        supervisor = os.getpid()
        # Signals wait while the new process forks and sets itself up: one sent to it before
        # it has its own handlers would go down the supervisor's wakeup pipe instead.
        signal.pthread_sigmask(signal.SIG_BLOCK, _WAITED)
        try:
            pid = os.fork()
        except OSError as exc:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _WAITED)
            log.error("worker %d: cannot fork (%s): trying again", slot, exc)
            channel.close()
            self.router.drop(slot)
            self.respawn[slot] = time.monotonic() + _RESPAWN_MAX
            return
        if pid == 0:  # the worker
            code = 1
            try:
                signal.set_wakeup_fd(-1)
                for sig, handler in self._previous.items():
                    signal.signal(sig, handler)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _WAITED)
                self.router.close_inherited()
                for sock in self._wakeup:
                    sock.close()
                _die_with_parent()
                if os.getppid() != supervisor:
                    raise SystemExit("the supervisor died as this worker started")
                code = self.work(slot, channel)
            except BaseException:
                log.exception("worker %d failed", slot)
            finally:
                logging.shutdown()
                os._exit(code)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _WAITED)
        channel.close()
        self.children[pid] = (slot, time.monotonic())

    def _woken(self) -> None:
        assert self._wakeup is not None
        with contextlib.suppress(BlockingIOError, InterruptedError):
            while data := self._wakeup[0].recv(256):
                self._signals.extend(data)

    def _watch(self) -> int:
        assert self.router is not None
        router = self.router
        result = 0
        while self.children or (self.respawn and not self.stopping):
            for ready in router.select(self._next_timeout()):
                ready()
            router.expire()
            signals, self._signals = self._signals, []
            for sig in signals:
                if sig in (signal.SIGTERM, signal.SIGINT):
                    self._stop(force=self.stopping and sig == signal.SIGINT)
            if signal.SIGCHLD in signals:  # not on every connection routed: only when told
                result = max(result, self._reap())
            now = time.monotonic()
            if self.stopping and now >= self.deadline:
                for pid in self.children:
                    log.error("worker pid %d did not drain in time: killed", pid)
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                self.deadline = now + 5.0
            if not self.stopping:
                for slot, at in list(self.respawn.items()):
                    if at <= now:
                        del self.respawn[slot]
                        self._spawn(slot)
        return result

    def _next_timeout(self) -> float | None:
        now = time.monotonic()
        if self.stopping:
            return max(0.0, self.deadline - now)
        if self.respawn:
            return max(0.0, min(self.respawn.values()) - now)
        return None

    def _stop(self, *, force: bool) -> None:
        if not self.stopping:
            log.info("parlor: draining %d workers", len(self.children))
            if self.router is not None:
                self.router.close()
            s = self.settings
            self.deadline = time.monotonic() + s.shutdown_timeout + s.close_timeout + 5.0
        self.stopping = True
        self.respawn.clear()
        for pid in self.children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL if force else signal.SIGTERM)

    def _reap(self) -> int:
        """Collect every worker that exited; restart it unless stopping. The exit code to end
        with: STARTUP_FAILURE if a worker could not start, else 0."""
        result = 0
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            slot, started = self.children.pop(pid)
            code = os.waitstatus_to_exitcode(status)
            if self.router is not None:
                self.router.drop(slot)
            if self.stopping:
                continue
            if code == STARTUP_FAILURE:
                log.error("worker %d (pid %d) could not start: stopping", slot, pid)
                self._stop(force=False)
                result = STARTUP_FAILURE
                continue
            quick = time.monotonic() - started < _QUICK_EXIT
            pause = min(_RESPAWN_MAX, self.pause.get(slot, 0.5) * 2) if quick else 0.0
            self.pause[slot] = pause or 0.5
            log.error("worker %d (pid %d) exited with %s: starting it again", slot, pid, code)
            self.respawn[slot] = time.monotonic() + pause
        return result
