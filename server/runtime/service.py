"""Room operations over the store: create, read, and change under compare-and-set.

``change`` is the one path by which a room changes: run a pure command from
:mod:`server.rooms.commands` on the latest room, save with a compare-and-set on the record's tag,
and on a lost race reload, re-validate and retry. Decoded rooms are cached per code with the
tag they were read or written with, so the common case (this instance made the last change)
needs no extra read or decode, and a cached room is used only while the store still holds
exactly that write: the store is the truth, even when it goes back in time.
"""

from __future__ import annotations

import asyncio
import functools
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rules.codec import pack
from rules.errors import RulesError
from rules.evolve import replace
from server import codes, rooms
from server.errors import ErrorCode, RoomError, Stale
from server.ops.config import Settings
from server.ops.metrics import Metrics
from server.rooms import Room, commands
from server.rooms.commands import Change, Context, Limits
from server.stores.store import (
    Notice,
    NoticeKind,
    RoomMissing,
    Stamp,
    Store,
    StoreUnavailable,
    VersionConflict,
)

Command = Callable[[Room], Change]
CACHE_SIZE = 10_000
#: Room codes tried for one creation key before giving up.
CODE_ATTEMPTS = 20


@dataclass(frozen=True, slots=True)
class _Cached:
    room: Room
    tag: str


def limits_of(settings: Settings) -> Limits:
    return Limits(
        name_max=settings.name_max_len,
        chat_max_len=settings.chat_max_len,
        chat_keep=settings.chat_keep,
        min_turn_timer=settings.min_turn_timer,
        max_turn_timer=settings.max_turn_timer,
        max_pause=settings.max_pause,
        commit_window=settings.commit_window,
        reveal_window=settings.reveal_window,
    )


class RoomService:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        metrics: Metrics,
        instance: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.instance = instance
        self.clock = clock
        self.limits = limits_of(settings)
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        #: Newest version announced by any instance, for cached rooms: a cached room at least
        #: this new is the latest this instance can know of, so a refusal needs no reload.
        self._heard: dict[str, int] = {}
        #: Commands waiting for their room's batch, in arrival order (see :meth:`change`).
        self._waiting: dict[str, list[tuple[Command, asyncio.Future[Change]]]] = {}
        #: Per room with commands under way here, the one task that applies them, batch
        #: after batch until none wait: changes from this instance's own connections queue
        #: up instead of racing each other through the compare-and-set.
        self._draining: dict[str, asyncio.Task[None]] = {}
        #: Saves this instance made per cached room: a read that a save overtook (its reply
        #: came later) may be older than the cache, and must not replace it.
        self._saves: dict[str, int] = {}
        #: The version a save in flight here will write, per room (its notice can overtake
        #: the reply; the reply, or the reload after a lost one, fans it out).
        self._saving: dict[str, int] = {}
        #: Called with every room this instance saved (the hub fans it out at once).
        self.on_saved: Callable[[Room], None] = lambda room: None
        #: Called with every room read from the store that differs from the cached one:
        #: a change this instance has not fanned out may be in it (say, one whose reply was
        #: lost), so the hub fans it out too.
        self.on_loaded: Callable[[Room], None] = lambda room: None

    def context(self, *, fresh: bool = True) -> Context:
        """What a command may not compute itself. ``fresh``: with new randomness (a seed and a
        server seed, from the system's CSPRNG), which only a command that deals needs."""
        if not fresh:
            return Context(now=self.clock(), limits=self.limits)
        return Context(
            now=self.clock(), seed=self.new_seed(), limits=self.limits, seal=secrets.token_hex(32)
        )

    def _remember(self, room: Room, tag: str) -> None:
        self._cache[room.code] = _Cached(room, tag)
        self._cache.move_to_end(room.code)
        if len(self._cache) > CACHE_SIZE:
            old, _ = self._cache.popitem(last=False)
            self._heard.pop(old, None)
            self._saves.pop(old, None)

    def cached(self, code: str) -> Room | None:
        entry = self._cache.get(code)
        return None if entry is None else entry.room

    def holds(self, stamp: Stamp | None, code: str) -> bool:
        """Whether the cached room is exactly the write ``stamp`` names."""
        entry = self._cache.get(code)
        return entry is not None and stamp is not None and entry.tag == stamp.tag

    def saving(self, code: str) -> int | None:
        return self._saving.get(code)

    def forget(self, code: str) -> None:
        self._cache.pop(code, None)
        self._heard.pop(code, None)
        self._saves.pop(code, None)

    def heard(self, code: str, version: int) -> None:
        """Another instance announced ``version`` of room ``code``."""
        if code in self._cache and version > self._heard.get(code, 0):
            self._heard[code] = version

    def _current(self, room: Room) -> bool:
        return room.version >= self._heard.get(room.code, 0)

    async def create(
        self,
        game_id: str,
        options: dict[str, Any] | None,
        turn_timer: float | None = None,
        key: str | None = None,
    ) -> Room:
        """A new room; a creation resent with the same ``key`` returns the room it made.

        The codes tried are derived from the key, so a resend (after a lost reply, on any
        instance) walks the same codes and finds its own room by ``created_by``."""
        key = key if key is not None else secrets.token_urlsafe(16)
        created_by = commands.digest(f"create:{key}")
        ctx = self.context()
        for attempt in range(CODE_ATTEMPTS):
            code = codes.from_key(key, attempt)
            room = commands.create(
                code,
                game_id,
                options,
                turn_timer,
                ctx,
                secret=secrets.token_hex(16),
                created_by=created_by,
            )
            entry = pack(
                {"kind": "create", "game": game_id, "options": room.options, "at": ctx.now}
            )
            tag = await self.store.create(code, rooms.encode(room), entry, self.settings.room_ttl)
            if tag is not None:
                self.metrics.rooms_created += 1
                self._remember(room, tag)
                return room
            existing = await self.get(code)
            if existing is not None and existing.created_by == created_by:
                return existing
        raise RoomError(ErrorCode.CONFLICT, "Could not find a free room code; try again")

    async def get(self, code: str) -> Room | None:
        """The room as the store has it now (decoded only if the cache does not hold it)."""
        saves = self._saves.get(code, 0)
        stored = await self.store.load(code)
        cached = self._cache.get(code)
        if cached is not None and self._saves.get(code, 0) != saves:
            # This instance saved the room while the read was under way: the read may be
            # from before that save. The save is in the store; the periodic check finds any
            # write made after it.
            return cached.room
        if stored is None:
            self.forget(code)
            return None
        if cached is not None and cached.tag == stored.tag:
            return cached.room
        room = rooms.decode(stored.data)
        if room.version < self._heard.get(code, 0):
            self._heard[code] = room.version  # the store went back: forget what was heard
        self._remember(room, stored.tag)
        self.on_loaded(room)
        return room

    async def change(self, code: str, command: Command) -> Change:
        """Apply ``command`` with compare-and-set; refusals raise, the room is unchanged.

        Commands for one room queue up, and one task per room applies them: every command
        waiting when it starts a batch, in the order they came, one after another on the
        latest room, saved all together with one compare-and-set (a group commit); then the
        next batch, of those that came meanwhile. A burst — all eight seats of Number Swap's
        opening at once — costs one round trip to the store and one fan-out, not eight. Each
        command still succeeds, is refused or fails on its own, exactly as if it had run
        alone at its place in the queue.

        Raises :class:`StoreUnavailable` when the store cannot be reached; the command may
        or may not have been applied then, and resending it (same seq, same key) is safe.
        The same when the room's task is cancelled (the instance shutting down): its batch
        under way may or may not have been applied, and the commands queued behind it were
        not."""
        command = self._judged_now(code, command)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Change] = loop.create_future()
        waiting = (command, future)
        queue = self._waiting.get(code)
        if queue is None:
            self._waiting[code] = [waiting]
        else:
            queue.append(waiting)
        task = self._draining.get(code)
        if task is None or task.done():
            task = self._draining[code] = loop.create_task(self._drain(code))
            task.add_done_callback(functools.partial(self._drained, code))
        try:
            # The caller waits for its own outcome, not for the task: cancelling the caller
            # (its client went away) takes its command out of the queue if no batch has
            # taken it yet, and otherwise only its future, which the batch then skips (or
            # has answered already); the others' commands are neither failed nor raced.
            return await future
        except asyncio.CancelledError:
            self._drop(code, waiting)
            raise

    def _judged_now(self, code: str, command: Command) -> Command:
        """Nothing is under way for the room here and its cached room is the newest this
        instance has heard of: the command is judged on it at once, exactly as the batch it
        would lead would judge it first, so a refusal is raised without queueing, and a change
        is handed on to be saved (on the same room, it is not computed again)."""
        cached = self._cache.get(code)
        if (
            cached is None
            or code in self._draining
            or code in self._waiting
            or not self._current(cached.room)
        ):
            return command
        room = cached.room
        change = command(room)  # a refusal (RoomError, RulesError) is final: it propagates
        if change.entry is None:
            return command  # "already applied": the batch checks the store still holds it
        return lambda r: change if r is room else command(r)

    def _drop(self, code: str, waiting: tuple[Command, asyncio.Future[Change]]) -> None:
        """A caller gone: its command is taken out of the queue, or if a batch has taken it,
        left out of every pass of that batch that starts from now on (a pass under way may
        still apply it)."""
        future = waiting[1]
        if not future.cancel() and not future.cancelled():
            future.exception()  # answered already, but nobody is left to read it
        queue = self._waiting.get(code)
        if queue is not None and waiting in queue:
            queue.remove(waiting)
            if not queue:
                del self._waiting[code]

    async def _drain(self, code: str) -> None:
        """Apply the room's queued commands, batch after batch, until none wait."""
        while batch := self._waiting.pop(code, None):
            await self._run(code, batch)

    def _drained(self, code: str, task: asyncio.Task[None]) -> None:
        """The room's task is done. If it was cancelled (the instance is shutting down, maybe
        before the task ever ran), what still waits was not applied: its callers are told."""
        if self._draining.get(code) is not task:
            return  # a newer task has the room (one that came while this callback waited)
        del self._draining[code]
        for _, waiter in self._waiting.pop(code, ()):
            if not waiter.done():
                waiter.set_exception(StoreUnavailable("The change was not made; resend it"))

    async def _run(self, code: str, batch: list[tuple[Command, asyncio.Future[Change]]]) -> None:
        """Run a batch and hand each waiter its outcome."""
        outcomes: list[Change | BaseException]
        try:
            outcomes = await self._change(code, batch)
        except asyncio.CancelledError:
            # The instance is shutting down: the commands may or may not have been applied.
            lost = StoreUnavailable("The change was interrupted; resend it to find out")
            outcomes = [lost] * len(batch)
            raise
        except BaseException as exc:
            outcomes = [exc] * len(batch)
            if not isinstance(exc, Exception):
                raise
        finally:
            for (_, waiter), outcome in zip(batch, outcomes, strict=True):
                if waiter.done():  # its caller was cancelled
                    continue
                if isinstance(outcome, BaseException):
                    waiter.set_exception(outcome)
                else:
                    waiter.set_result(outcome)

    async def _change(
        self, code: str, batch: list[tuple[Command, asyncio.Future[Change]]]
    ) -> list[Change | BaseException]:
        """Apply ``batch`` in order and save the changes it makes in one compare-and-set; each
        command's outcome: its change, or the refusal or error it alone met. A command whose
        caller is gone by the start of a pass (its future is done) is left out of it."""
        outcomes: list[Change | BaseException | None] = [None] * len(batch)
        cached = self._cache.get(code)
        # A refusal judged on a room that is the newest this instance has heard of is final;
        # one judged on a room that may be behind another instance is judged again.
        fresh = cached is not None and self._current(cached.room)
        loaded = False
        #: Per command: the version a save whose reply was lost would have written.
        attempted: dict[int, int] | None = None
        for _ in range(self.settings.max_retries):
            if cached is None:
                room = await self.get(code)
                cached = self._cache.get(code)
                fresh = loaded = True
                if room is None or cached is None:
                    raise RoomError(ErrorCode.NO_ROOM, "This room does not exist or has expired")
            room = cached.room
            applied: list[tuple[int, Change]] = []
            #: Refusals and duplicates judged in this pass: judged again if it is retried
            #: (the changes before them in the batch were not saved).
            judged: list[int] = []
            again = False
            for i, (command, waiter) in enumerate(batch):
                if outcomes[i] is not None:
                    continue
                if waiter.done():
                    outcomes[i] = StoreUnavailable("The caller went away before this was applied")
                    continue
                try:
                    change = command(room)
                except (RoomError, RulesError) as exc:
                    if fresh or isinstance(exc, Stale):
                        outcomes[i] = exc
                        judged.append(i)
                        continue
                    # The cache may be behind another instance: judge again on the latest room.
                    again = True
                    break
                except Exception as exc:  # a bug in one command fails that command alone
                    # (A future refuses StopIteration, which would end its awaiter as if it
                    # had returned: that bug is handed on as a RuntimeError.)
                    outcomes[i] = (
                        RuntimeError(f"a command raised {exc!r}")
                        if isinstance(exc, StopIteration)
                        else exc
                    )
                    judged.append(i)
                    continue
                if change.entry is None:
                    if not loaded:
                        # "Already applied", judged on the cache: make sure the store still
                        # holds that room (one that went back in time lost the command,
                        # which is then applied now).
                        again = True
                        break
                    if attempted is not None and change.version == attempted.get(i):
                        change = replace(change, settled=True)
                    outcomes[i] = change
                    judged.append(i)
                    continue
                applied.append((i, change))
                room = change.room
            if not applied and not again:
                break
            if again:
                for i in judged:
                    outcomes[i] = None
                cached = None
                continue
            entries = [
                (c.room.version, pack({**(c.entry or {}), "at": c.room.changed_at}))
                for _, c in applied
            ]
            (version, entry), earlier = entries[-1], entries[:-1]
            archive = [pack(a) for _, c in applied for a in c.archive]
            notice = Notice(NoticeKind.CHANGE, code, version, self.instance)
            self._saving[code] = version
            try:
                tag = await self.store.save(
                    code,
                    cached.tag,
                    version,
                    rooms.encode(room),
                    entry,
                    self.settings.room_ttl,
                    notice,
                    earlier=earlier,
                    archive=archive,
                )
            except VersionConflict:
                self.metrics.conflicts += 1
                for i in judged:
                    outcomes[i] = None
                cached = None
                continue
            except RoomMissing:
                self.forget(code)
                raise RoomError(ErrorCode.NO_ROOM, "This room has expired") from None
            except StoreUnavailable as exc:
                # The reply was lost: the save may have happened. Read the room again: a
                # command that did apply is recognised there (its seq, its join key, the
                # version a bot move was planned for) and answered with its first result.
                if attempted is not None:
                    # Neither the changes nor what was judged after the first of them (on a
                    # room that had them) may be answered as final: resend, and find out.
                    first = applied[0][0]
                    for i in [i for i, _ in applied] + [i for i in judged if i > first]:
                        outcomes[i] = exc
                    break
                attempted = {i: c.room.version for i, c in applied}
                self.metrics.lost_replies += 1
                for i in judged:
                    outcomes[i] = None
                cached = None
                continue
            finally:
                self._saving.pop(code, None)
            self.metrics.changes += 1
            self._saves[code] = self._saves.get(code, 0) + 1
            self._remember(room, tag)
            for i, change in applied:
                outcomes[i] = change
            self.on_saved(room)
            break
        if None not in outcomes:
            return outcomes  # type: ignore[return-value]
        busy = RoomError(ErrorCode.CONFLICT, "The room is too busy right now; try again")
        return [busy if outcome is None else outcome for outcome in outcomes]

    @staticmethod
    def new_seed() -> int:
        return secrets.randbits(63)
