"""Child processes for the tests and the benchmarks: start one, wait until it answers, stop it.

A :class:`Process` writes its output to a log file, so a start that fails says why: the error
carries the log's last lines. Readiness is a probe (a TCP connect, an HTTP 200, a Redis PONG)
tried until it passes, the process exits, or the deadline passes; between tries the only wait
is for the process to exit, for one short poll interval.

This lives under ``tests/`` because it is test machinery, never shipped; ``bench/`` runs from
the repository root too and imports it from here.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

#: A readiness check: true when the process answers. OSError counts as "not yet".
Probe = Callable[[], bool]

LOCALHOST = "127.0.0.1"


class StartError(RuntimeError):
    """A process exited, or did not answer in time, while starting."""


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOCALHOST, 0))
        port: int = sock.getsockname()[1]
        return port


# -- probes ---------------------------------------------------------------------------------------


def _exchange(port: int, request: bytes, timeout: float) -> bytes:
    """Send ``request``, return the reply's first line (or what came before the peer closed)."""
    with socket.create_connection((LOCALHOST, port), timeout=timeout) as sock:
        if request:
            sock.sendall(request)
        reply = b""
        while b"\r\n" not in reply:
            chunk = sock.recv(256)
            if not chunk:
                break
            reply += chunk
        return reply.split(b"\r\n", 1)[0]


def tcp_open(port: int, timeout: float = 0.5) -> Probe:
    """Ready once the port accepts a connection."""

    def probe() -> bool:
        socket.create_connection((LOCALHOST, port), timeout=timeout).close()
        return True

    return probe


def http_ok(port: int, path: str = "/healthz", timeout: float = 0.5) -> Probe:
    """Ready once ``GET path`` answers 200."""
    request = f"GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n".encode()

    def probe() -> bool:
        status = _exchange(port, request, timeout).split()
        return len(status) >= 2 and status[1] == b"200"

    return probe


def redis_pong(port: int, timeout: float = 0.5) -> Probe:
    """Ready once PING answers PONG (not while Redis is still loading its data)."""
    return lambda: _exchange(port, b"PING\r\n", timeout) == b"+PONG"


# -- any process ----------------------------------------------------------------------------------


class Process:
    """One child process: started and probed until ready, stopped, possibly started again.

    ``env`` is added to this process's environment. Output goes to ``log`` (appended to, so a
    restarted process keeps its history)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        ready: Probe,
        log: Path,
        name: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: Path | str | None = None,
        start_timeout: float = 20.0,
        poll: float = 0.02,
    ) -> None:
        self.argv = list(argv)
        self.ready = ready
        self.log = log
        self.name = name or Path(self.argv[0]).name
        self.env = {**os.environ, **(env or {})}
        self.cwd = cwd
        self.start_timeout = start_timeout
        self.poll = poll
        self._popen: subprocess.Popen[bytes] | None = None

    def __repr__(self) -> str:
        pid = None if self._popen is None else self._popen.pid
        return f"<Process {self.name} pid={pid}>"

    @property
    def pid(self) -> int:
        if self._popen is None:
            raise RuntimeError(f"{self.name} was never started")
        return self._popen.pid

    @property
    def running(self) -> bool:
        """Started and not exited (a paused process is running)."""
        return self._popen is not None and self._popen.poll() is None

    def start(self) -> Self:
        """Start the process and return once ``ready`` passes; raise :class:`StartError` (with
        the log's tail, the process stopped) if it exits first or the deadline passes."""
        if self.running:
            raise RuntimeError(f"{self.name} is already running")
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as out:
            self._popen = subprocess.Popen(
                self.argv,
                env=self.env,
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        popen = self._popen
        deadline = time.monotonic() + self.start_timeout
        while True:
            answered = False
            with contextlib.suppress(OSError):
                answered = self.ready()
            # Checked after the probe: a process that died (its port taken, say) must not pass
            # for ready because something else answers there.
            if popen.poll() is not None:
                raise StartError(self._failed(f"exited with {popen.returncode}"))
            if answered:
                return self
            if time.monotonic() > deadline:
                self.stop()
                raise StartError(self._failed(f"did not answer within {self.start_timeout} s"))
            self.exits_within(self.poll)

    def _failed(self, what: str) -> str:
        return f"{self.name} {what} while starting; {self.log}:\n{self.log_tail()}"

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except FileNotFoundError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def wait(self, timeout: float) -> int:
        """Wait for the process to exit; its return code."""
        if self._popen is None:
            raise RuntimeError(f"{self.name} was never started")
        return self._popen.wait(timeout)

    def exits_within(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the process to exit; whether it has."""
        try:
            self.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def send_signal(self, sig: int) -> None:
        if self.running:
            assert self._popen is not None
            self._popen.send_signal(sig)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (and SIGCONT, should it be paused), then SIGKILL after ``timeout``."""
        if not self.running:
            return
        self.send_signal(signal.SIGTERM)
        self.send_signal(signal.SIGCONT)
        try:
            self.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self, timeout: float = 10.0) -> None:
        """SIGKILL: no shutdown hook runs."""
        if self.running:
            self.send_signal(signal.SIGKILL)
            self.wait(timeout)

    def pause(self, timeout: float = 5.0) -> None:
        """SIGSTOP: the process holds its sockets but answers nothing. Returns once the kernel
        reports it stopped (a signal is delivered asynchronously)."""
        self.send_signal(signal.SIGSTOP)
        self._await_stopped(True, timeout)

    def resume(self, timeout: float = 5.0) -> None:
        """SIGCONT; returns once the kernel no longer reports it stopped."""
        self.send_signal(signal.SIGCONT)
        self._await_stopped(False, timeout)

    def _await_stopped(self, stopped: bool, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self._stopped() != stopped:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name} is {'not ' if stopped else ''}stopped")
            if self.exits_within(0.001):
                raise RuntimeError(f"{self.name} exited with {self.wait(0)}")

    def _stopped(self) -> bool:
        """Whether Linux reports the process stopped by a signal (state T in /proc)."""
        stat = Path(f"/proc/{self.pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] == "T"

    def __enter__(self) -> Self:
        return self if self.running else self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
