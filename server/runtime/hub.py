"""Fan-out: keeps this instance's connections per room and sends each one fresh snapshots.

A room changes here (the service calls :meth:`Hub.on_saved`) or elsewhere (a store notice).
Either way every local connection in that room gets a full, version-numbered view for its own
seat; views are built once per seat and encoded once per format. Presence (which seats have a
connection on some instance) is kept in the store as per-instance claims with a heartbeat, so a
crashed instance's claims simply expire.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from server.errors import ErrorCode, ParlorError
from server.ops.config import Settings
from server.ops.metrics import Metrics
from server.rooms import Room, commands
from server.runtime.bots import Bots
from server.runtime.local import LocalRoom, State
from server.runtime.service import RoomService
from server.stores.store import Notice, NoticeKind, Store, StoreError
from server.transport import state_messages
from server.transport.connections import Connection
from server.transport.protocol import CloseCode, error
from server.transport.wire import Format, Frame, encode

log = logging.getLogger(__name__)

#: Rooms read and compared per step of the periodic check (see :meth:`Hub._check`).
CHECK_SLICE = 100


class Hub:
    def __init__(
        self,
        service: RoomService,
        store: Store,
        bots: Bots,
        settings: Settings,
        metrics: Metrics,
    ) -> None:
        self._service = service
        self._store = store
        self._bots = bots
        self._settings = settings
        self._metrics = metrics
        self._instance = service.instance
        #: Per room: its connections here, their seats, presence, what was sent, its reload
        #: (server/runtime/local.py), shared with the service and the bots.
        self._local = service.local
        self._local.on_serving = store.watch
        self._local.on_unserved = store.unwatch
        self._tasks: set[asyncio.Task[None]] = set()
        self._heartbeat: asyncio.Task[None] | None = None
        self._checker: asyncio.Task[None] | None = None
        bots.presence_of = self._presence_of

    def _presence_of(self, code: str) -> frozenset[int]:
        """Seat ids connected on any instance, as last read from the store."""
        held = self._local.get(code)
        return frozenset() if held is None else held.presence

    def _served(self, code: str) -> LocalRoom | None:
        """The room's object if it has connections here."""
        held = self._local.get(code)
        return held if held is not None and held.conns else None

    # -- bookkeeping ---------------------------------------------------------------------------

    @property
    def connection_count(self) -> int:
        return sum(len(r.conns) for r in self._local.serving())

    @property
    def room_count(self) -> int:
        return len(self._local.serving())

    def start(self) -> None:
        self._heartbeat = asyncio.create_task(self._beat())
        self._checker = asyncio.create_task(self._check())

    async def close(self) -> None:
        tasks = [*self._tasks, *(r.refreshing for r in self._local if r.refreshing is not None)]
        tasks.extend(t for t in (self._heartbeat, self._checker) if t is not None)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _background(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- connections ---------------------------------------------------------------------------

    async def attach(self, conn: Connection, code: str) -> None:
        """Start sending ``conn`` the snapshots of room ``code`` (its seat is already set)."""
        conn.code = code
        held = self._local.open(code)
        first = not held.conns
        held.conns.add(conn)
        self._local.serve(held)
        if conn.seat_id is not None:
            held.local[conn.seat_id] += 1
            if held.local[conn.seat_id] == 1:
                await self._claim(code, notify=True)
        if first or conn.seat_id is not None:
            presence = await self._store.presence(code)
            if held.state is State.SERVING:
                held.presence = presence
        room = await self._service.get(code)
        if room is not None:
            self.fan_out(room)

    def detach(self, conn: Connection) -> None:
        code = conn.code
        if code is None:
            return
        conn.code = None
        held = self._local.get(code)
        if held is None or conn not in held.conns:
            return
        held.conns.discard(conn)
        changed = False
        if conn.seat_id is not None:
            held.local[conn.seat_id] -= 1
            if held.local[conn.seat_id] <= 0:
                del held.local[conn.seat_id]
                changed = True
        if not held.conns:
            self._local.unserve(held)
        if changed:
            self._background(self._claim(code, notify=True))

    async def _claim(self, code: str, *, notify: bool) -> None:
        held = self._local.get(code)
        seat_ids = sorted(held.local) if held is not None else []
        notice = Notice(NoticeKind.PRESENCE, code, 0, self._instance) if notify else None
        try:
            await self._store.set_presence(
                code, self._instance, seat_ids, self._settings.presence_ttl, notice
            )
        except StoreError as exc:
            log.warning("presence update for %s failed: %s", code, exc)

    async def _beat(self) -> None:
        """Renew this instance's presence claims and pick up claims that expired elsewhere."""
        while True:
            await asyncio.sleep(self._settings.presence_ttl / 3)
            for held in self._local.serving():
                code = held.code
                try:
                    await self._claim(code, notify=False)
                    presence = await self._store.presence(code)
                except StoreError:
                    continue
                if held.state is not State.SERVING:
                    continue
                if presence != held.presence:
                    held.presence = presence
                    self.refresh(code)
                room = self._service.cached(code)
                if room is not None:
                    self._bots.consider(room, held.presence)

    async def _check(self) -> None:
        """Every ``check_interval``, compare the stored stamp of each room served here with
        what this instance holds and has sent; reload any that differ.

        This is what bounds convergence whatever happens to notices (lost on a reconnect,
        never published because a reply was lost, a store restored to an older snapshot):
        one pipelined read per interval per slice of local rooms."""
        while True:
            await asyncio.sleep(self._settings.check_interval)
            codes = [held.code for held in self._local.serving()]
            # In slices, each its own read: a thousand rooms checked in one go would hold up
            # every player on this instance for tens of milliseconds once a second.
            for start in range(0, len(codes), CHECK_SLICE):
                if not await self._check_slice(codes[start : start + CHECK_SLICE]):
                    break  # the store does not answer: the next round tries again

    async def _check_slice(self, codes: list[str]) -> bool:
        try:
            stamps = await self._store.stamps(codes)
        except StoreError:
            return False
        for code in codes:
            stamp = stamps.get(code)
            held = self._served(code)
            if held is None:
                continue
            if stamp is None or not self._service.holds(stamp, code):
                self._metrics.caught_up += 1
                self.refresh(code)
            elif stamp.version != held.sent or any(
                c.sent_version < stamp.version for c in held.conns
            ):
                # A connection can be behind what the room sent (its first snapshot
                # failed while the store was down, a sync that could not be answered).
                self.refresh(code)
            else:
                room = self._service.cached(code)
                if room is not None:
                    # A bot move or timer dropped while the store was down is planned
                    # again here, not only at the next presence heartbeat.
                    self._bots.consider(room, held.presence)
        return True

    # -- changes -------------------------------------------------------------------------------

    def on_saved(self, room: Room) -> None:
        self.fan_out(room)

    def on_loaded(self, room: Room) -> None:
        held = self._served(room.code)
        if held is not None and room.version != held.sent:
            self.fan_out(room)

    def on_notice(self, notice: Notice) -> None:
        if notice.kind is NoticeKind.RESYNC:
            self._metrics.resyncs += 1
            codes = [r.code for r in self._local.serving()] if notice.code == "*" else [notice.code]
            for code in codes:
                if self._served(code) is not None:
                    self.refresh(code, presence=True)
            return
        if notice.kind is NoticeKind.CHANGE:
            self._service.heard(notice.code, notice.version)
        held = self._served(notice.code)
        if held is None:
            return
        if notice.kind is NoticeKind.CHANGE:
            if held.sent >= notice.version:
                return
            # Our own save's notice can overtake its reply; the reply fans it out (or, if it
            # is lost, the reload that follows does). Any other notice of ours is news.
            if notice.origin == self._instance and (
                self._service.saving(notice.code) == notice.version
            ):
                return
            self.refresh(notice.code)
        else:
            self.refresh(notice.code, presence=True)

    def refresh(self, code: str, *, presence: bool = False) -> None:
        """Reload the room (coalesced: one reload in flight per room) and fan it out."""
        held = self._local.open(code)
        held.dirty = bool(held.dirty) or presence
        if held.refreshing is None:
            held.refreshing = asyncio.get_running_loop().create_task(self._reload(held))

    async def _reload(self, held: LocalRoom) -> None:
        code = held.code
        try:
            while held.dirty is not None:
                presence, held.dirty = held.dirty, None
                try:
                    if presence:
                        read = await self._store.presence(code)
                        if held.state is State.SERVING:
                            held.presence = read
                    room = await self._service.get(code)
                except StoreError as exc:
                    # The periodic check tries again once the store answers.
                    log.warning("reload of %s failed: %s", code, exc)
                    return
                if room is None:
                    self._room_gone(code)
                    return
                self.fan_out(room)
        finally:
            # No await between the loop's last look at ``dirty`` and this: a refresh asked
            # for after that look starts a new task.
            held.refreshing = None
            self._local.release(held)

    def _room_gone(self, code: str) -> None:
        held = self._local.get(code)
        for conn in list(held.conns if held is not None else ()):
            conn.send(error(ErrorCode.NO_ROOM, "This room has expired"))
            conn.close_after_pending(CloseCode.NO_ROOM, "room gone")
            self.detach(conn)

    def resend(self, conn: Connection) -> None:
        """Send ``conn`` the latest snapshot even if it already had it (a client's sync)."""
        conn.sent_version = 0
        conn.sent_chat = -1
        if conn.code is not None:
            self.refresh(conn.code)

    def fan_out(self, room: Room) -> None:
        code = room.code
        held = self._served(code)
        if held is None:
            return
        newest = self._service.cached(code)
        if newest is not None and newest.version > room.version:
            room = newest
        if room.version < held.sent:
            # The store went back in time: renumber what it holds above what was sent.
            self._rewind(held, held.sent)
            return
        held.sent = room.version
        presence = held.presence
        due: list[tuple[Connection, int | None]] = []
        for conn in list(held.conns):
            if conn.sent_version > room.version or (
                conn.sent_version == room.version and conn.sent_presence == presence
            ):
                continue
            index: int | None = None
            if conn.seat_id is not None:
                index = room.index_of(conn.seat_id)
                held_by = None if index is None else room.seats[index].token_hash
                if held_by is None or conn.token_hash not in (None, held_by):
                    # Given up, taken away (a bot plays it), or moved to another device (still
                    # a person's seat, under another token).
                    self._revoke(conn, moved=held_by is not None)
                    continue
            due.append((conn, index))
        # Planned first, so that the states say when a bot takes over a dropped player's seat.
        self._bots.consider(room, presence)
        if due:
            self._send_states(room, presence, due)

    def _send_states(
        self, room: Room, presence: frozenset[int], due: list[tuple[Connection, int | None]]
    ) -> None:
        now = self._service.clock()
        info = state_messages.room_info(room, presence, now, self._bots.takeovers(room.code, now))
        parts = state_messages.seat_view_parts(
            room, sorted({i for _, i in due}, key=lambda i: -1 if i is None else i)
        )
        # One frame per (seat, format, version last sent): connections of one seat may be at
        # different versions, and each must hear of every move since its own. Usually they
        # all had the previous version, so this is one frame per (seat, format) as ever.
        keys = list(dict.fromkeys((index, conn.fmt, conn.sent_version) for conn, index in due))
        events = {after: state_messages.events_since(room, after) for _, _, after in keys}
        frames: dict[tuple[int | None, Format, int], Frame] = {}
        for fmt in {f for _, f, _ in keys}:
            wanted = [(i, after) for i, f, after in keys if f is fmt]
            encoded = state_messages.state_frames(
                room, info, parts, [(i, events[a]) for i, a in wanted], fmt
            )
            frames.update(zip(((i, fmt, a) for i, a in wanted), encoded, strict=True))
        chat: dict[Format, Frame] = {}
        for conn, index in due:
            frame = frames[(index, conn.fmt, conn.sent_version)]
            conn.sent_version = room.version
            conn.sent_presence = presence
            if conn.push(frame):
                self._metrics.views += 1
            if conn.sent_chat != room.chat_total:
                conn.sent_chat = room.chat_total
                if conn.fmt not in chat:
                    chat[conn.fmt] = encode(state_messages.chat_message(room), conn.fmt)
                conn.push(chat[conn.fmt])
            if conn.overflowed:
                self._metrics.dropped += 1
                self.detach(conn)

    def _rewind(self, held: LocalRoom, above: int) -> None:
        if held.rewinding:
            return
        held.rewinding = True
        self._metrics.rewinds += 1
        log.warning("room %s is older in the store than v%d: renumbering", held.code, above)
        self._background(self._renumber(held, above))

    async def _renumber(self, held: LocalRoom, above: int) -> None:
        code, clock = held.code, self._service.clock
        try:
            await self._service.change(code, lambda r: commands.renumber(r, above, clock()))
        except (ParlorError, StoreError) as exc:
            log.info("renumbering %s skipped: %s", code, exc)
            self.refresh(code)
        finally:
            held.rewinding = False
            self._local.release(held)

    def _revoke(self, conn: Connection, *, moved: bool = False) -> None:
        """The connection's seat was given up or taken away (kick, leave from another tab), or
        ``moved`` to another device (``handoff``: the error says so, with ``moved: true``)."""
        if moved:
            conn.send(error(ErrorCode.KICKED, "This seat moved to another device", moved=True))
        else:
            conn.send(error(ErrorCode.KICKED, "This seat is no longer yours"))
        conn.close_after_pending(CloseCode.KICKED, "seat revoked")
        self.detach(conn)
