"""Sealing a deal (docs/fairplay.md): the seated people's browsers commit to secret values, the
set is locked, and only then are the values revealed; the deal comes from the server's seed,
the room code, the game number and the revealed values. The pure commands first, then over
real uvicorn and real WebSocket clients, with the windows on the server's own timers."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from rules.codec import pack, unpack
from rules.errors import RulesError
from server import rooms
from server.errors import RoomError, Stale
from server.fairplay import records
from server.rooms import Phase, Room, commands
from tests.server.driver import commit, reveal_when_locked, secret_value, state_where
from tests.server.harness import TEST_SETTINGS, Client, create_room, serve

SERVER_SEED = "5e" * 32
NEXT_SEED = "a1" * 32
WINDOWS = commands.Limits(commit_window=15.0, reveal_window=10.0)


def _ctx(now: float, limits: commands.Limits = WINDOWS) -> commands.Context:
    return commands.Context(now=now, seed=7, limits=limits, seal=NEXT_SEED)


def _lobby(people: int = 2, bots: int = 1) -> Room:
    room = rooms.new_room("K7QXM", "warp99", {}, 0.0, 0.0, next_seed=SERVER_SEED)
    for i in range(people):
        room = commands.join(room, f"P{i}", f"token-{i}", 1.0, name_max=24).room
    for _ in range(bots):
        room = commands.add_bot(room, room.host, 1.0).room
    return room


def _value(i: int) -> str:
    return secret_value(f"seat {i}")


def _commit(room: Room, index: int, now: float = 2.0) -> Room:
    seat = room.seats[index]
    hashed = records.contribution_commitment(_value(index))
    return commands.commit(room, seat.id, hashed, room.next_commitment, _ctx(now)).room


def _reveal(room: Room, index: int, now: float = 4.0) -> commands.Change:
    return commands.reveal(room, room.seats[index].id, _value(index), _ctx(now))


def _refused(code: str, run: Any) -> RoomError:
    with pytest.raises(RoomError) as caught:
        run()
    assert caught.value.code == code, caught.value.message
    return caught.value


def test_a_start_waits_for_every_seated_persons_commitment_then_locks_the_set() -> None:
    room = _commit(_lobby(), 0)
    started = commands.start(room, room.host, _ctx(3.0))
    asked = started.room
    assert asked.phase is Phase.LOBBY and asked.sealing is not None
    assert asked.sealing.locked is None, "P1's browser has not committed yet"
    assert asked.deadline == 3.0 + WINDOWS.commit_window, "the window is the room's deadline"
    locked = _commit(asked, 1, now=4.0)
    assert locked.sealing is not None and locked.sealing.locked is not None
    assert [sid for sid, _ in locked.sealing.locked] == [s.id for s in locked.seats[:2]]
    assert locked.sealing.until == 4.0 + WINDOWS.reveal_window
    assert locked.version == asked.version + 1, "one change, one version"


def test_a_start_with_every_person_committed_locks_at_once() -> None:
    room = _commit(_commit(_lobby(), 0), 1)
    asked = commands.start(room, room.host, _ctx(3.0)).room
    assert asked.sealing is not None and asked.sealing.locked is not None
    assert asked.version == room.version + 1


def test_the_last_reveal_deals_from_the_revealed_values_bound_to_the_room_and_game() -> None:
    room = _commit(_commit(_lobby(), 0), 1)
    room = commands.start(room, room.host, _ctx(3.0)).room
    room = _reveal(room, 0).room
    assert room.phase is Phase.LOBBY, "one value is still to come"
    dealt = _reveal(room, 1)
    new = dealt.room
    assert new.phase is Phase.PLAYING and new.sealing is None and new.round == 1
    assert new.deal is not None
    values = (_value(0), _value(1), "")
    assert new.deal.contributions == values
    assert new.deal.commitments == (*(records.contribution_commitment(v) for v in values[:2]), "")
    assert new.seed == records.deal_seed(SERVER_SEED, values, "K7QXM", 1)
    assert new.next_seed == NEXT_SEED, "the next deal's seed is committed at once"
    assert dealt.entry is not None and dealt.entry["kind"] == "start"
    (archived,) = dealt.archive
    assert archived["commitments"][2] == "" and archived["contributions"][2] == ""
    assert archived["seats"][2] == ["Bot 1", True, "normal"]


def test_the_deal_seed_changes_with_the_room_code_and_the_game_number() -> None:
    values = [_value(0), ""]
    seeds = {
        records.deal_seed(SERVER_SEED, values, "K7QXM", 1),
        records.deal_seed(SERVER_SEED, values, "ZZZZZ", 1),
        records.deal_seed(SERVER_SEED, values, "K7QXM", 2),
    }
    assert len(seeds) == 3


def test_the_commit_window_locks_without_a_browser_that_never_committed() -> None:
    room = _commit(_lobby(), 0)
    room = commands.start(room, room.host, _ctx(3.0)).room
    assert room.sealing is not None
    with pytest.raises(Stale):
        commands.seal_due(room, _ctx(room.sealing.until - 0.5))
    locked = commands.seal_due(room, _ctx(room.sealing.until)).room
    assert locked.sealing is not None and locked.sealing.locked is not None
    assert [sid for sid, _ in locked.sealing.locked] == [room.seats[0].id]
    dealt = _reveal(locked, 0).room
    assert dealt.phase is Phase.PLAYING
    assert dealt.deal is not None and dealt.deal.contributions == (_value(0), "", "")


def test_nothing_can_be_committed_after_the_lock() -> None:
    room = _commit(_lobby(), 0)
    room = commands.start(room, room.host, _ctx(3.0)).room
    assert room.sealing is not None
    locked = commands.seal_due(room, _ctx(room.sealing.until)).room
    hashed = records.contribution_commitment(_value(1))
    _refused(
        "not_locked_in",
        lambda: commands.commit(
            locked, locked.seats[1].id, hashed, locked.next_commitment, _ctx(20)
        ),
    )
    _refused("not_locked_in", lambda: _reveal(locked, 1))


def test_a_withheld_reveal_leaves_its_slot_empty_when_the_reveal_window_ends() -> None:
    room = _commit(_commit(_lobby(), 0), 1)
    room = commands.start(room, room.host, _ctx(3.0)).room
    room = _reveal(room, 0).room
    assert room.sealing is not None
    with pytest.raises(Stale):
        commands.seal_due(room, _ctx(room.sealing.until - 0.1))
    dealt = commands.seal_due(room, _ctx(room.sealing.until)).room
    assert dealt.phase is Phase.PLAYING and dealt.deal is not None
    assert dealt.deal.contributions == (_value(0), "", "")
    held = records.contribution_commitment(_value(1))
    assert dealt.deal.commitments[1] == held, "the withheld commitment stays on the record"


def test_a_value_that_does_not_match_its_locked_commitment_is_refused() -> None:
    room = _commit(_commit(_lobby(), 0), 1)
    room = commands.start(room, room.host, _ctx(3.0)).room
    other = secret_value("not the committed one")
    _refused("wrong_commitment", lambda: commands.reveal(room, room.seats[0].id, other, _ctx(4.0)))


def test_a_bot_seat_cannot_commit_and_its_slot_is_always_empty() -> None:
    room = _lobby()
    bot = room.seats[2]
    hashed = records.contribution_commitment(_value(2))
    _refused(
        "bad_message", lambda: commands.commit(room, bot.id, hashed, room.next_commitment, _ctx(2))
    )


def test_a_commitment_made_for_another_server_commitment_is_refused() -> None:
    room = _lobby()
    hashed = records.contribution_commitment(_value(0))
    refused = _refused(
        "wrong_commitment",
        lambda: commands.commit(room, room.seats[0].id, hashed, "0" * 64, _ctx(2.0)),
    )
    assert refused.extra["commitment"] == room.next_commitment


def test_a_commitment_during_play_is_refused() -> None:
    room = _commit(_commit(_lobby(), 0), 1)
    room = _reveal(_reveal(commands.start(room, room.host, _ctx(3.0)).room, 0).room, 1).room
    assert room.phase is Phase.PLAYING
    hashed = records.contribution_commitment(_value(0))
    _refused(
        "wrong_phase",
        lambda: commands.commit(room, room.seats[0].id, hashed, room.next_commitment, _ctx(5)),
    )


def test_joining_after_the_lock_is_refused_and_before_it_the_deal_waits_for_the_joiner() -> None:
    room = _commit(_lobby(people=1), 0)
    room = commands.start(room, room.host, _ctx(3.0)).room
    assert room.sealing is not None and room.sealing.locked is not None, "everyone committed"
    _refused("in_progress", lambda: commands.join(room, "Late", "token-late", 4.0, name_max=24))
    waiting = _lobby(people=1)
    waiting = commands.start(waiting, waiting.host, _ctx(3.0)).room
    joined = commands.join(waiting, "Late", "token-late", 4.0, name_max=24).room
    assert joined.sealing is not None and joined.sealing.locked is None


def test_the_table_cannot_change_while_the_deal_is_being_sealed() -> None:
    room = commands.start(_lobby(), _lobby().host, _ctx(3.0)).room
    host, bot = room.host, room.seats[2].id
    _refused("dealing", lambda: commands.add_bot(room, host, 4.0))
    _refused("dealing", lambda: commands.kick(room, host, bot, 4.0))
    _refused("dealing", lambda: commands.bot_level(room, host, bot, "easy", 4.0))
    _refused(
        "dealing",
        lambda: commands.configure(room, host, {"rule_cards": 3}, None, 4.0, timer_range=(1, 9)),
    )


def test_start_asked_again_while_the_deal_is_sealed_changes_nothing() -> None:
    room = commands.start(_lobby(), _lobby().host, _ctx(3.0)).room
    again = commands.start(room, room.host, _ctx(4.0))
    assert again.entry is None and again.room is room


def test_a_leave_that_leaves_everyone_else_committed_locks_the_set() -> None:
    room = _commit(_lobby(), 0)
    room = commands.start(room, room.host, _ctx(3.0)).room
    left = commands.leave(room, room.seats[1].id, 4.0, _ctx(4.0)).room
    assert left.sealing is not None and left.sealing.locked is not None
    assert left.version == room.version + 1


def test_a_deal_does_not_wait_for_a_locked_seat_that_left_after_the_others_revealed() -> None:
    """Three people locked; P0 and P2 revealed, then P1 leaves: the leave deals at once (it
    used to wait out the reveal window for P1's value)."""
    room = _commit(_commit(_commit(_lobby(people=3, bots=0), 0), 1), 2)
    room = commands.start(room, room.host, _ctx(3.0)).room
    room = _reveal(_reveal(room, 0).room, 2).room
    assert room.phase is Phase.LOBBY and room.sealing is not None
    left = commands.leave(room, room.seats[1].id, 5.0, _ctx(5.0))
    dealt = left.room
    assert dealt.phase is Phase.PLAYING and dealt.sealing is None
    assert dealt.version == room.version + 1, "one change, one version"
    assert dealt.deal is not None
    assert dealt.deal.contributions == (_value(0), _value(2))
    assert left.entry is not None and left.entry["trigger"]["kind"] == "leave"


def test_a_deal_does_not_wait_for_a_locked_seat_that_left_before_the_others_revealed() -> None:
    """P1 leaves after the lock, before anyone reveals: the last reveal of those still seated
    deals."""
    room = _commit(_commit(_commit(_lobby(people=3, bots=0), 0), 1), 2)
    room = commands.start(room, room.host, _ctx(3.0)).room
    room = commands.leave(room, room.seats[1].id, 3.5, _ctx(3.5)).room
    assert room.sealing is not None and room.phase is Phase.LOBBY
    room = _reveal(room, 0).room
    assert room.phase is Phase.LOBBY, "P2's value is still awaited"
    dealt = commands.reveal(room, room.seats[1].id, _value(2), _ctx(4.0)).room
    assert dealt.phase is Phase.PLAYING
    assert dealt.deal is not None and dealt.deal.contributions == (_value(0), _value(2))


def test_a_rematch_does_not_wait_for_a_locked_person_who_left_and_became_a_bot() -> None:
    """After a game a leaving person's seat stays, played by a bot: its locked value is not
    waited for, and its slot is empty."""
    room = _commit(_commit(_lobby(bots=0), 0), 1)
    room = _reveal(_reveal(commands.start(room, room.host, _ctx(3.0)).room, 0).room, 1).room
    finished = replace(room, phase=Phase.FINISHED)
    finished = _commit(_commit(finished, 0, now=9.0), 1, now=9.0)
    asked = commands.rematch(finished, finished.host, _ctx(9.5)).room
    assert asked.sealing is not None and asked.sealing.locked is not None
    revealed = _reveal(asked, 0, now=10.0).room
    dealt = commands.leave(revealed, revealed.seats[1].id, 11.0, _ctx(11.0)).room
    assert dealt.phase is Phase.PLAYING and dealt.seats[1].bot
    assert dealt.deal is not None and dealt.deal.contributions == (_value(0), "")


def test_a_commitment_lock_by_time_is_logged_as_commit_due() -> None:
    """The move log names the commitment window running out "commit_due", not "lock" (the
    host's locking of the room)."""
    room = _commit(_lobby(), 0)
    room = commands.start(room, room.host, _ctx(3.0)).room
    due = commands.seal_due(room, _ctx(3.0 + WINDOWS.commit_window))
    assert due.entry is not None and due.entry["kind"] == "commit_due"


def test_a_rematch_is_sealed_the_same_way() -> None:
    room = _commit(_commit(_lobby(), 0), 1)
    room = _reveal(_reveal(commands.start(room, room.host, _ctx(3.0)).room, 0).room, 1).room
    finished = replace(room, phase=Phase.FINISHED)
    asked = commands.rematch(finished, finished.host, _ctx(9.0)).room
    assert asked.phase is Phase.FINISHED and asked.sealing is not None
    assert asked.sealing.kind == "rematch" and asked.sealing.locked is None


def test_a_sealing_room_is_stored_and_read_back_whole() -> None:
    room = _commit(_commit(_lobby(), 0), 1)
    room = _reveal(commands.start(room, room.host, _ctx(3.0)).room, 0).room
    again = rooms.decode(rooms.encode(room))
    assert again.sealing == room.sealing
    assert [s.commitment for s in again.seats] == [s.commitment for s in room.seats]


def _stored_before_parlor_deal_2(room: Room, contributions: list[str]) -> bytes:
    """``room`` as a server before parlor-deal/2 stored it: no ``sealing``, and each seat's
    plain contribution (16 to 64 hex digits) where the commitment now is."""
    raw = unpack(rooms.encode(room))
    del raw["form"], raw["sealing"]
    for seat, value in zip(raw["seats"], contributions, strict=True):
        seat[8] = value
    return pack(raw)


def test_a_room_stored_before_parlor_deal_2_does_not_read_contributions_as_commitments() -> None:
    """Its seats' old contributions used to be read as commitments: the start locked them at
    once, no browser could reveal a value for them, and the record failed parlor verify."""
    old = rooms.decode(_stored_before_parlor_deal_2(_lobby(), ["ab" * 16, "cd" * 32, ""]))
    assert [s.commitment for s in old.seats] == ["", "", ""]
    asked = commands.start(old, old.host, _ctx(3.0)).room
    assert asked.sealing is not None and asked.sealing.locked is None, "waits for browsers"
    room = _commit(_commit(asked, 0, now=4.0), 1, now=4.0)
    dealt = _reveal(_reveal(room, 0, now=5.0).room, 1, now=5.0).room
    assert dealt.deal is not None
    assert dealt.deal.commitments == (
        records.contribution_commitment(_value(0)),
        records.contribution_commitment(_value(1)),
        "",
    )


def test_a_deal_stored_before_parlor_deal_2_reads_as_format_1() -> None:
    raw = unpack(rooms.encode(_lobby()))
    del raw["form"]
    raw["deal"] = [1, SERVER_SEED, "c" * 64, ["ab" * 8, ""], True]
    assert rooms.decode(pack(raw)).deal.format == 1  # type: ignore[union-attr]


# -- over real servers -------------------------------------------------------------------------

SEALING_SETTINGS = TEST_SETTINGS.model_copy(update={"commit_window": 30.0, "reveal_window": 30.0})


async def _seated(server: Any, names: list[str]) -> tuple[str, list[Client]]:
    code = await create_room(server.http, "numberswap")
    clients = []
    for name in names:
        client = await Client.open(server.ws, code)
        await client.join(name)
        clients.append(client)
    return code, clients


async def test_the_server_deals_once_every_browser_has_committed_and_revealed() -> None:
    async with serve(SEALING_SETTINGS) as server:
        _, (ana, ben) = await _seated(server, ["Ana", "Ben"])
        await commit(ana, _value(0))
        await ana.send({"type": "start"})
        waiting = await state_where(ana, lambda m: m["room"]["next_deal"].get("stage") == "commit")
        assert waiting["room"]["next_deal"]["commitments"][1] == "", "Ben's browser is missing"
        await state_where(ben, lambda m: "next_deal" in m["room"])
        await commit(ben, _value(1))
        await asyncio.gather(reveal_when_locked(ana, _value(0)), reveal_when_locked(ben, _value(1)))
        dealt = await state_where(ana, lambda m: m["room"]["phase"] == "playing")
        assert dealt["room"]["seal"] == waiting["room"]["next_deal"]["commitment"][:8]


async def test_a_locked_browser_that_leaves_does_not_hold_up_the_deal() -> None:
    """Over a real server, with a reveal window of 30 s: Ben leaves after the lock, Ana and
    Cleo reveal, and the deal is made then (the wait is for a state, not for the window)."""
    async with serve(SEALING_SETTINGS) as server:
        _, (ana, ben, cleo) = await _seated(server, ["Ana", "Ben", "Cleo"])
        for i, someone in enumerate((ana, ben, cleo)):
            await state_where(someone, lambda m: "next_deal" in m["room"])
            await commit(someone, _value(i))
        await ana.send({"type": "start"})
        await state_where(ana, lambda m: m["room"]["next_deal"].get("stage") == "reveal")
        await ben.send({"type": "leave"})
        await ben.until(lambda m: m["type"] == "left", 5.0)
        await asyncio.gather(
            reveal_when_locked(ana, _value(0)), reveal_when_locked(cleo, _value(2))
        )
        dealt = await state_where(ana, lambda m: m["room"]["phase"] == "playing")
        assert [s["name"] for s in dealt["room"]["seats"]] == ["Ana", "Cleo"]


async def test_the_windows_run_out_on_the_servers_timer_and_the_deal_goes_on() -> None:
    """Ben's browser never commits, and Ana's never reveals: the commit window locks the set
    without Ben, the reveal window deals without Ana's value."""
    quick = TEST_SETTINGS.model_copy(update={"commit_window": 0.2, "reveal_window": 0.2})
    async with serve(quick) as server:
        code, (ana, _ben) = await _seated(server, ["Ana", "Ben"])
        await commit(ana, _value(0))
        await ana.send({"type": "start"})
        locked = await state_where(
            ana, lambda m: m["room"].get("next_deal", {}).get("stage") == "reveal"
        )
        assert locked["room"]["next_deal"]["locked"] == [
            records.contribution_commitment(_value(0)),
            "",
        ]
        await state_where(ana, lambda m: m["room"]["phase"] == "playing")
        stored = await server.instance.store.load(code)
        assert stored is not None
        deal = rooms.decode(stored.data).deal
        assert deal is not None and deal.contributions == ("", "")
        assert deal.commitments == (records.contribution_commitment(_value(0)), "")


def test_a_start_with_too_few_seats_is_refused_at_once_not_left_sealing() -> None:
    """It used to start sealing, then fail in the deal and leave the room sealing for good."""
    room = _lobby(people=1, bots=0)
    with pytest.raises(RulesError) as caught:
        commands.start(room, room.host, _ctx(3.0))
    assert caught.value.code == "invalid_seat_count"


def test_a_leave_after_the_lock_that_leaves_too_few_seats_calls_the_deal_off() -> None:
    room = _commit(_commit(_lobby(people=2, bots=0), 0), 1)
    room = commands.start(room, room.host, _ctx(3.0)).room
    assert room.sealing is not None and room.sealing.locked is not None
    left = commands.leave(room, room.seats[1].id, 4.0, _ctx(4.0)).room
    assert left.sealing is None and left.phase is Phase.LOBBY
    again = commands.join(left, "Cleo", "token-cleo", 5.0, name_max=24).room
    assert len(again.seats) == 2, "the table is open again"
