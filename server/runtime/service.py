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
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rules.codec import pack
from rules.errors import RulesError
from rules.evolve import replace
from server import codes, rooms
from server.errors import ErrorCode, RoomError, Stale
from server.ops.config import Settings
from server.ops.metrics import Metrics
from server.rooms import Mode, Room, commands
from server.rooms.commands import Change, Context, Limits
from server.runtime.local import LocalRoom, LocalRooms
from server.stores.store import (
    Notice,
    NoticeKind,
    RoomMissing,
    Stamp,
    Store,
    StoreError,
    StoreUnavailable,
    VersionConflict,
)

log = logging.getLogger(__name__)

Command = Callable[[Room], Change]
CACHE_SIZE = 10_000
#: Room codes tried for one creation key before giving up.
CODE_ATTEMPTS = 20


@dataclass(frozen=True, slots=True)
class _Cached:
    room: Room
    tag: str


@dataclass(slots=True)
class _Pass:
    """One pass of a batch over a room (see :meth:`RoomService._judge`)."""

    #: The room as the changes so far left it.
    room: Room
    #: (index in the batch, change) of the commands that changed it, in order.
    applied: list[tuple[int, Change]] = field(default_factory=list)
    #: Refusals and duplicates settled in this pass: judged again if the pass is retried (the
    #: changes before them in the batch were not saved).
    judged: list[int] = field(default_factory=list)
    #: The pass stopped to be judged again on the store's room.
    again: bool = False

    def unjudge(self, outcomes: list[Change | BaseException | None]) -> None:
        for i in self.judged:
            outcomes[i] = None

    def unknown(self, outcomes: list[Change | BaseException | None], exc: Exception) -> None:
        """A second lost reply: the changes, and what was judged after the first of them,
        may or may not be in the store."""
        first = self.applied[0][0]
        for i in [i for i, _ in self.applied] + [i for i in self.judged if i > first]:
            outcomes[i] = exc


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
        local: LocalRooms | None = None,
    ) -> None:
        self.store = store
        #: What this instance holds per room: the commands queued for it, its batch task.
        self.local = local if local is not None else LocalRooms()
        self.settings = settings
        self.metrics = metrics
        self.instance = instance
        self.clock = clock
        self.limits = limits_of(settings)
        self._cache: OrderedDict[str, _Cached] = OrderedDict()
        #: Newest version announced by any instance, for cached rooms: a cached room at least
        #: this new is the latest this instance can know of, so a refusal needs no reload.
        self._heard: dict[str, int] = {}
        #: Saves this instance made per cached room: a read that a save overtook (its reply
        #: came later) may be older than the cache, and must not replace it.
        self._saves: dict[str, int] = {}
        # Per room, the commands waiting for its batch, the one task that applies them (batch
        # after batch until none wait: changes from this instance's own connections queue up
        # instead of racing each other through the compare-and-set) and the version a save
        # in flight will write are held in its LocalRoom (server/runtime/local.py).
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
        """The version a save in flight here will write (its notice can overtake the reply;
        the reply, or the reload after a lost one, fans it out)."""
        held = self.local.get(code)
        return None if held is None else held.saving

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
        mode: Mode = Mode.LIVE,
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
                mode=mode,
            )
            entry = pack(
                {"kind": "create", "game": game_id, "options": room.options, "at": ctx.now}
            )
            tag = await self.store.create(code, rooms.encode(room), entry, self.ttl_of(room))
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
        held = self.local.open(code)
        held.waiting.append(waiting)
        if held.draining is None or held.draining.done():
            task = held.draining = loop.create_task(self._drain(held))
            task.add_done_callback(functools.partial(self._drained, held))
        try:
            # The caller waits for its own outcome, not for the task: cancelling the caller
            # (its client went away) takes its command out of the queue if no batch has
            # taken it yet, and otherwise only its future, which the batch then skips (or
            # has answered already); the others' commands are neither failed nor raced.
            return await future
        except asyncio.CancelledError:
            self._drop(held, waiting)
            raise
        finally:
            # A refusal raised here has this frame in its traceback, and the future holds the
            # refusal: without this the two would wait for the cycle collector, with every
            # room the refusal's frames hold (tests/server/runtime/test_service.py).
            del waiting, future

    def _judged_now(self, code: str, command: Command) -> Command:
        """Nothing is under way for the room here and its cached room is the newest this
        instance has heard of: the command is judged on it at once, exactly as the batch it
        would lead would judge it first, so a refusal is raised without queueing, and a change
        is handed on to be saved (on the same room, it is not computed again)."""
        cached = self._cache.get(code)
        held = self.local.get(code)
        if (
            cached is None
            or (held is not None and (held.draining is not None or held.waiting))
            or not self._current(cached.room)
        ):
            return command
        room = cached.room
        change = command(room)  # a refusal (RoomError, RulesError) is final: it propagates
        if change.entry is None:
            return command  # "already applied": the batch checks the store still holds it
        return lambda r: change if r is room else command(r)

    def _drop(self, held: LocalRoom, waiting: tuple[Command, asyncio.Future[Change]]) -> None:
        """A caller gone: its command is taken out of the queue, or if a batch has taken it,
        left out of every pass of that batch that starts from now on (a pass under way may
        still apply it)."""
        future = waiting[1]
        if not future.cancel() and not future.cancelled():
            future.exception()  # answered already, but nobody is left to read it
        if waiting in held.waiting:
            held.waiting.remove(waiting)
            self.local.release(held)

    async def _drain(self, held: LocalRoom) -> None:
        """Apply the room's queued commands, batch after batch, until none wait."""
        while held.waiting:
            batch, held.waiting = held.waiting, []
            await self._run(held, batch)

    def _drained(self, held: LocalRoom, task: asyncio.Task[None]) -> None:
        """The room's task is done. If it was cancelled (the instance is shutting down, maybe
        before the task ever ran), what still waits was not applied: its callers are told."""
        if held.draining is not task:
            return  # a newer task has the room (one that came while this callback waited)
        held.draining = None
        waiting, held.waiting = held.waiting, []
        for _, waiter in waiting:
            if not waiter.done():
                waiter.set_exception(StoreUnavailable("The change was not made; resend it"))
        self.local.release(held)

    async def _run(
        self, held: LocalRoom, batch: list[tuple[Command, asyncio.Future[Change]]]
    ) -> None:
        """Run a batch and hand each waiter its outcome."""
        outcomes: list[Change | BaseException]
        try:
            outcomes = await self._change(held, batch)
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
        self, held: LocalRoom, batch: list[tuple[Command, asyncio.Future[Change]]]
    ) -> list[Change | BaseException]:
        """Apply ``batch`` in order and save the changes it makes in one compare-and-set; each
        command's outcome: its change, or the refusal or error it alone met. A command whose
        caller is gone by the start of a pass (its future is done) is left out of it.

        Pass after pass (at most ``max_retries``): judge the batch on the room (:meth:`_judge`),
        save what it changed (:meth:`_save`), and on a lost race, a reply lost or a judgement
        that needs the latest room, read the room again and judge once more what is not
        settled."""
        code = held.code
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
                cached = await self._load(code)
                fresh = loaded = True
            step = self._judge(cached.room, batch, outcomes, fresh, loaded, attempted)
            if step.again:
                step.unjudge(outcomes)
                cached = None
                continue
            if not step.applied:
                break
            try:
                tag = await self._save(held, cached.tag, step)
            except VersionConflict:
                self.metrics.conflicts += 1
                step.unjudge(outcomes)
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
                    step.unknown(outcomes, exc)
                    break
                attempted = {i: c.room.version for i, c in step.applied}
                self.metrics.lost_replies += 1
                step.unjudge(outcomes)
                cached = None
                continue
            self._saved(step, tag, outcomes)
            await self._rewake(cached.room, step.room)
            break
        settled = [o for o in outcomes if isinstance(o, Change) and o.settled]
        if settled:
            # Applied by a save whose reply was lost: index the room as it now is.
            await self._rewake(None, settled[-1].room)
        if None not in outcomes:
            return outcomes  # type: ignore[return-value]
        busy = RoomError(ErrorCode.CONFLICT, "The room is too busy right now; try again")
        return [busy if outcome is None else outcome for outcome in outcomes]

    async def _load(self, code: str) -> _Cached:
        """The room as the store holds it, for a pass that needs the latest."""
        room = await self.get(code)
        cached = self._cache.get(code)
        if room is None or cached is None:
            raise RoomError(ErrorCode.NO_ROOM, "This room does not exist or has expired")
        return cached

    def _judge(
        self,
        room: Room,
        batch: list[tuple[Command, asyncio.Future[Change]]],
        outcomes: list[Change | BaseException | None],
        fresh: bool,
        loaded: bool,
        attempted: dict[int, int] | None,
    ) -> _Pass:
        """One pass of the batch over ``room``: each command not yet settled runs on the room
        the ones before it made. Refusals and duplicates are settled in ``outcomes`` (and
        listed as judged); a change is applied; a refusal that may come from a stale cache,
        or a duplicate seen only in the cache, stops the pass to be judged again on the
        store's room."""
        step = _Pass(room)
        for i, (command, waiter) in enumerate(batch):
            if outcomes[i] is not None:
                continue
            if waiter.done():
                outcomes[i] = StoreUnavailable("The caller went away before this was applied")
                continue
            try:
                change = command(step.room)
            except (RoomError, RulesError) as exc:
                if fresh or isinstance(exc, Stale):
                    # Without its traceback: that holds this frame, which holds the outcomes,
                    # and a refusal is an answer, not a fault to trace.
                    outcomes[i] = exc.with_traceback(None)
                    step.judged.append(i)
                    continue
                # The cache may be behind another instance: judge again on the latest room.
                step.again = True
                return step
            except Exception as exc:  # a bug in one command fails that command alone
                # (A future refuses StopIteration, which would end its awaiter as if it had
                # returned: that bug is handed on as a RuntimeError.)
                outcomes[i] = (
                    RuntimeError(f"a command raised {exc!r}")
                    if isinstance(exc, StopIteration)
                    else exc
                )
                step.judged.append(i)
                continue
            if change.entry is None:
                if not loaded:
                    # "Already applied", judged on the cache: make sure the store still holds
                    # that room (one that went back in time lost the command, which is then
                    # applied now).
                    step.again = True
                    return step
                if attempted is not None and change.version == attempted.get(i):
                    change = replace(change, settled=True)
                outcomes[i] = change
                step.judged.append(i)
                continue
            step.applied.append((i, change))
            step.room = change.room
        return step

    async def _save(self, held: LocalRoom, tag: str, step: _Pass) -> str:
        """Save the pass's changes with one compare-and-set on ``tag``: the room as the last
        of them left it, each one's move-log entry, their archive, one notice."""
        code, room = held.code, step.room
        entries = [
            (c.room.version, pack({**(c.entry or {}), "at": c.room.changed_at}))
            for _, c in step.applied
        ]
        (version, entry), earlier = entries[-1], entries[:-1]
        archive = [pack(a) for _, c in step.applied for a in c.archive]
        notice = Notice(NoticeKind.CHANGE, code, version, self.instance)
        held.saving = version
        try:
            return await self.store.save(
                code,
                tag,
                version,
                rooms.encode(room),
                entry,
                self.ttl_of(room),
                notice,
                earlier=earlier,
                archive=archive,
            )
        finally:
            held.saving = None

    def ttl_of(self, room: Room) -> float:
        """How long the room lives after this change: a turn-based room, for days."""
        return self.settings.turn_room_ttl if room.turn_based else self.settings.room_ttl

    async def _rewake(self, before: Room | None, after: Room) -> None:
        """Keep the store's wake index (``Store.set_wake``) in step with a turn-based room's
        next move that no browser will make, after every save of one: written only where the
        entry is still what this save's room had (``expected``), so a late write from an older
        save never removes a newer one's entry. Not part of the save: a write lost here (and
        logged) is made again by the room's next save, or when it is next opened. ``before``
        None: the change was found in the store after its save's reply was lost (the entry is
        written as the room now is)."""
        if not after.turn_based:
            return  # a live room is moved on only while someone is in it
        wake = commands.wake_at(after)
        old = None if before is None else commands.wake_at(before)
        if wake == 0 and old == 0:
            return
        try:
            await self.store.set_wake(after.code, wake, expected=old)
        except StoreError as exc:
            log.warning("could not index %s's next move: %s", after.code, exc)

    def _saved(self, step: _Pass, tag: str, outcomes: list[Change | BaseException | None]) -> None:
        """The pass is in the store: remember its room, answer its changes, fan it out."""
        code = step.room.code
        self.metrics.changes += 1
        self._saves[code] = self._saves.get(code, 0) + 1
        self._remember(step.room, tag)
        for i, change in step.applied:
            outcomes[i] = change
        self.on_saved(step.room)

    @staticmethod
    def new_seed() -> int:
        return secrets.randbits(63)
