"""How ``parlor serve`` runs: one instance process, or N of them on one port.

**Drain.** An instance that gets SIGTERM (or SIGINT) first stops accepting: its listening socket is
closed at once, from the signal handler's next turn of the event loop (uvicorn by itself notices the
signal up to 0.1 s later), so a connection arriving after that goes to another worker on the port or
is refused, never to this instance. Then every WebSocket is closed with 1012 "service restart"
(:meth:`server.transport.serving.WebSocketProtocol.shutdown`): clients resume on another instance
with their token and resend what was not acknowledged, which the server applies exactly once. A
command the instance is saving meanwhile is finished (its ack is not sent: the client's resend is
answered as a duplicate), and whatever still runs after ``shutdown_timeout`` is cancelled.

**Workers.** With more than one worker, this process is a supervisor: it binds one listening
socket per worker with ``SO_REUSEPORT`` (Linux spreads new connections over them), forks each
worker (a full instance, with its own instance id) and waits. A worker that dies is started
again, on a fresh socket; SIGTERM (or SIGINT) is passed on to every worker, each drains as
above, and a worker still running ``shutdown_timeout + close_timeout + 5`` s later is killed.
Every worker needs the shared store, so more than one is refused with the embedded one
(:meth:`server.ops.config.Settings.worker_count`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import os
import signal
import socket
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

import uvicorn

from server.ops.config import Settings

log = logging.getLogger("parlor")

#: uvicorn's exit code for a server that never started (its lifespan failed, say).
STARTUP_FAILURE = 3

#: Signals the supervisor waits for instead of handling them.
_WAITED = {signal.SIGTERM, signal.SIGINT, signal.SIGCHLD}

#: A worker that exits sooner than this after it was started is started again only after a
#: pause (doubling, up to ``_RESPAWN_MAX``), so a worker that cannot run does not spin.
_QUICK_EXIT = 5.0
_RESPAWN_MAX = 8.0


class DrainingServer(uvicorn.Server):
    """uvicorn's server, closing its listening sockets as soon as a signal asks it to stop.

    A worker (``worker=True``) treats a second SIGINT like the first: the terminal sends
    SIGINT to the whole process group and the supervisor forwards SIGTERM, and neither may
    turn the drain into a forced exit (the supervisor enforces the deadline)."""

    def __init__(self, config: uvicorn.Config, *, worker: bool = False) -> None:
        super().__init__(config)
        self.worker = worker
        self._loop: asyncio.AbstractEventLoop | None = None

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.worker and sig == signal.SIGINT:
            sig = signal.SIGTERM
        super().handle_exit(sig, frame)
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.stop_accepting)

    def stop_accepting(self) -> None:
        """Close the listening sockets; connections already accepted carry on."""
        for server in self.servers:
            server.close()


def run_instance(
    settings: Settings,
    app: Any,
    options: dict[str, Any],
    sock: socket.socket | None = None,
    *,
    worker: bool = False,
) -> int:
    """Serve ``app`` until a signal ends the drain; uvicorn's exit code convention."""
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        lifespan="on",
        log_level="info",
        access_log=False,
        **options,
    )
    server = DrainingServer(config, worker=worker)
    server.run(sockets=None if sock is None else [sock])
    return 0 if server.started else STARTUP_FAILURE


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` with ``SO_REUSEPORT``, listening."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(2048)
        sock.set_inheritable(True)
    except BaseException:
        sock.close()
        raise
    return sock


def _die_with_parent() -> None:
    """Linux: SIGTERM this process when the supervisor dies, however it dies."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


class Supervisor:
    """Runs ``count`` workers, each ``work(slot, sock)`` in a forked process."""

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

    def run(self) -> int:
        # Bind every socket first: a port in use is an error now, not a worker that keeps dying.
        host, port = self.settings.host, self.settings.port
        sockets: list[socket.socket] = []
        try:
            for _ in range(self.count):
                sockets.append(listening_socket(host, port))
        except OSError as exc:
            log.error("parlor: cannot listen on %s:%d: %s", host, port, exc)
            for sock in sockets:
                sock.close()
            return 1
        signal.pthread_sigmask(signal.SIG_BLOCK, _WAITED)
        try:
            for slot, sock in enumerate(sockets):
                self._spawn(slot, sock)
            log.info(
                "parlor: %d workers on %s:%d (SO_REUSEPORT), pids %s",
                self.count,
                self.settings.host,
                self.settings.port,
                " ".join(map(str, self.children)),
            )
            return self._watch()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _WAITED)

    def _spawn(self, slot: int, sock: socket.socket | None = None) -> None:
        if sock is None:
            sock = listening_socket(self.settings.host, self.settings.port)
        pid = os.fork()
        if pid == 0:  # the worker
            code = 1
            try:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _WAITED)
                _die_with_parent()
                code = self.work(slot, sock)
            except BaseException:
                log.exception("worker %d failed", slot)
            finally:
                logging.shutdown()
                os._exit(code)
        # The supervisor keeps no copy: a listening socket nobody accepts on would still get
        # its share of the port's new connections.
        sock.close()
        self.children[pid] = (slot, time.monotonic())

    def _watch(self) -> int:
        result = 0
        while self.children or (self.respawn and not self.stopping):
            timeout = self._next_timeout()
            info: signal.struct_siginfo | None
            if timeout is None:
                info = signal.sigwaitinfo(_WAITED)
            else:
                info = signal.sigtimedwait(_WAITED, timeout)
            if info is not None and info.si_signo in (signal.SIGTERM, signal.SIGINT):
                self._stop(force=self.stopping and info.si_signo == signal.SIGINT)
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
