"""Pure room transitions: each rule of seats, hosts, phases and sequence numbers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.codec import pack, unpack
from rules.errors import IllegalAction, NotYourTurn
from server import rooms
from server.errors import RoomError, Stale
from server.rooms import Phase, Room, commands
from server.transport.protocol import Leave
from server.web import dispatch

NAME_MAX = 24


def lobby(n: int, **options: object) -> Room:
    room = rooms.new_room("ABCDE", "toy", {"hand": 2, **options}, 0.0, now=0.0)
    for i in range(n):
        room = commands.join(room, f"P{i}", f"hash{i}", 1.0, name_max=NAME_MAX).room
    return room


def playing(n: int = 2) -> Room:
    room = lobby(n)
    return commands.start(room, room.host, commands.Context(now=2.0, seed=5)).room


class _Refused:
    """``with _Refused(code):`` — the block must raise a RoomError with that code."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: object, tb: object) -> bool:
        assert isinstance(exc, RoomError), f"expected a refusal {self.code}, got {exc!r}"
        assert exc.code == self.code, exc
        return True


def test_first_to_join_is_host_and_every_change_bumps_the_version() -> None:
    room = lobby(3)
    assert room.host == room.seats[0].id
    assert room.version == 4
    assert [s.name for s in room.seats] == ["P0", "P1", "P2"]


def test_names_are_cleaned_and_limited() -> None:
    room = lobby(0)
    joined = commands.join(room, "  Ann\x00 ", "h", 1.0, name_max=NAME_MAX)
    assert joined.room.seats[0].name == "Ann"
    with _Refused("bad_message"):
        commands.join(room, " \t", "h", 1.0, name_max=NAME_MAX)
    with _Refused("bad_message"):
        commands.join(room, "x" * 25, "h", 1.0, name_max=NAME_MAX)


def test_room_is_full_at_the_games_maximum() -> None:
    room = lobby(8)
    with _Refused("room_full"):
        commands.join(room, "Nine", "h9", 1.0, name_max=NAME_MAX)
    with _Refused("room_full"):
        commands.add_bot(room, room.host, 1.0)


def test_leaving_the_lobby_frees_the_seat_and_passes_host() -> None:
    room = lobby(3)
    host = room.host
    assert host is not None
    after = commands.leave(room, host, 3.0).room
    assert [s.name for s in after.seats] == ["P1", "P2"]
    assert after.host == after.seats[0].id


def test_leaving_mid_game_hands_the_seat_to_a_bot() -> None:
    room = playing(2)
    leaver = room.seats[1]
    after = commands.leave(room, leaver.id, 3.0).room
    assert after.seats[1].bot and after.seats[1].name == leaver.name
    assert after.seat_by_token(leaver.token_hash or "") is None
    assert commands.bot_seats(after) == ([1] if room.game.to_act(room.state) == {1} else [])


def test_host_passes_over_bots_and_to_nobody_if_no_humans() -> None:
    room = lobby(1)
    room = commands.add_bot(room, room.host, 2.0).room
    after = commands.leave(room, room.seats[0].id, 3.0).room
    assert after.host is None


def test_only_host_may_use_host_powers() -> None:
    room = lobby(2)
    guest = room.seats[1].id
    for call in (
        lambda: commands.add_bot(room, guest, 1.0),
        lambda: commands.lock(room, guest, True, 1.0),
        lambda: commands.kick(room, guest, room.seats[0].id, 1.0),
        lambda: commands.give_host(room, guest, guest, 1.0),
        lambda: commands.start(room, guest, commands.Context(now=1.0, seed=1)),
        lambda: commands.configure(room, guest, {}, None, 1.0, timer_range=(5, 600)),
    ):
        with _Refused("not_host"):
            call()


def test_options_are_validated_by_the_game() -> None:
    room = lobby(2)
    changed = commands.configure(room, room.host, {"hand": 4}, 30, 1.0, timer_range=(5, 600))
    assert changed.room.options == {"hand": 4} and changed.room.turn_timer == 30
    with pytest.raises(Exception, match="Invalid options"):
        commands.configure(room, room.host, {"hand": 0}, None, 1.0, timer_range=(5, 600))
    with _Refused("bad_message"):
        commands.configure(room, room.host, None, 1, 1.0, timer_range=(5, 600))


def test_start_needs_enough_seats() -> None:
    room = lobby(1)
    with pytest.raises(Exception, match="2 to 8"):
        commands.start(room, room.host, commands.Context(now=1.0, seed=1))


def test_actions_apply_at_most_once_per_sequence_number() -> None:
    room = playing(2)
    seat = sorted(room.game.to_act(room.state))[0]
    sid = room.seats[seat].id
    action = room.game.dump_action(room.game.legal_actions(room.state, seat)[0])
    first = commands.act(room, sid, 1, action, 3.0)
    assert first.entry is not None and first.room.seats[seat].last_seq == 1
    again = commands.act(first.room, sid, 1, action, 4.0)
    assert again.entry is None and again.room is first.room


def test_no_command_changes_the_room_it_was_given() -> None:
    """Commands set fields on the room they make before anyone else holds it (one copy
    fewer); the room they were given, which the cache and other instances' readers hold,
    stays as it was, through timed turns, chat and a whole game."""
    room = replace(playing(3), turn_timer=30.0)
    for step in range(60):
        before = rooms.encode(room)
        if step % 9 == 4:
            change = commands.chat(
                room, room.seats[1].id, f"m{step}", 3.0 + step, limit=200, keep=5
            )
        else:
            seat = sorted(room.game.to_act(room.state))[0]
            seat_id = room.seats[seat].id
            action = room.game.legal_view(room.state, seat)[0]
            seq = room.seats[seat].last_seq + 1
            change = commands.act(room, seat_id, seq, action, 3.0 + step)
            assert change.room.seats[seat].last_seq == seq
            timed = change.room.phase is Phase.PLAYING
            assert change.room.deadline == (3.0 + step + 30.0 if timed else 0.0)
        assert rooms.encode(room) == before
        assert change.room.version == room.version + 1
        room = change.room
        if room.phase is Phase.FINISHED:
            break


def test_sequenced_copies_a_room_a_command_handed_back_as_it_was() -> None:
    room = playing(2)
    before = rooms.encode(room)
    sid = room.seats[0].id
    change = commands.sequenced(room, sid, 1, lambda r: commands.Change(r, {"kind": "x"}, sid))
    assert rooms.encode(room) == before and room.seats[0].last_seq == 0
    assert change.room is not room and change.room.seats[0].last_seq == 1


def test_rules_refusals_pass_through() -> None:
    room = playing(2)
    seat = sorted(room.game.to_act(room.state))[0]
    other = room.seats[1 - seat].id
    hand = room.state.hands[1 - seat]
    with pytest.raises(NotYourTurn):
        commands.act(room, other, 1, {"type": "play", "card": hand[0]}, 3.0)
    with pytest.raises(IllegalAction):
        commands.act(room, room.seats[seat].id, 1, {"type": "play", "card": 999}, 3.0)


def test_bot_move_is_bound_to_the_version_it_was_planned_for() -> None:
    room = lobby(1)
    room = commands.add_bot(room, room.host, 1.0).room
    room = commands.start(room, room.host, commands.Context(now=2.0, seed=9)).room
    human_first = 0 in room.game.to_act(room.state)
    if human_first:
        seat = room.seats[0]
        action = room.game.dump_action(room.game.legal_actions(room.state, 0)[0])
        room = commands.act(room, seat.id, 1, action, 3.0).room
    assert commands.bot_seats(room) == [1]
    moved = commands.bot_move(room, room.version, 4.0)
    assert moved.entry is not None and moved.entry["kind"] == "bot"
    with pytest.raises(Stale):
        commands.bot_move(moved.room, room.version, 5.0)


def test_game_end_finishes_the_room_and_rematch_restarts_it() -> None:
    room = playing(2)
    seq = 0
    while room.phase is Phase.PLAYING:
        seat = sorted(room.game.to_act(room.state))[0]
        seq += 1
        action = room.game.dump_action(room.game.legal_actions(room.state, seat)[0])
        room = commands.act(room, room.seats[seat].id, seq, action, 3.0).room
    assert room.phase is Phase.FINISHED
    with _Refused("game_over"):
        commands.act(room, room.seats[0].id, seq + 1, {"type": "play", "card": 1}, 4.0)
    with _Refused("wrong_phase"):
        commands.start(room, room.host, commands.Context(now=5.0, seed=6))
    again = commands.rematch(room, room.host, commands.Context(now=5.0, seed=6))
    assert again.entry is not None and again.entry["kind"] == "rematch"
    assert again.room.phase is Phase.PLAYING and again.room.round == 2


def test_record_round_trips_through_its_stored_form() -> None:
    room = playing(3)
    room = commands.chat(room, room.seats[0].id, "hi", 3.0, limit=200, keep=50).room
    assert rooms.decode(rooms.encode(room)) == room


def test_the_record_reuses_packed_parts_and_is_the_bytes_pack_gives_its_fields() -> None:
    """rooms.encode joins the packed forms of the seats, chat lines and moves it keeps on
    them: byte for byte what msgpack makes of the whole record as a dict, after every kind of
    change (a changed seat is a new object, whose packed form is made anew)."""

    def whole(room: Room) -> bytes:
        fields = {
            "form": rooms.model.RECORD_FORM,
            "code": room.code, "game": room.game_id, "options": room.options,
            "version": room.version, "phase": room.phase.value,
            "host": room.host, "locked": room.locked,
            "turn_timer": room.turn_timer, "round": room.round, "seed": room.seed,
            "chat_total": room.chat_total,
            "next_id": room.next_id, "created_at": room.created_at,
            "changed_at": room.changed_at, "secret": room.secret,
            "created_by": room.created_by, "deadline": room.deadline,
            "next_seed": room.next_seed,
            "next_commitment": room.next_commitment,
            "deal": None if room.deal is None else rooms.model._deal_form(room.deal),
            "sealing": None if room.sealing is None else room.sealing.form(),
            "mode": room.mode.value, "moved_at": room.moved_at,
            "state": None if room.state is None else room.game.dump_state(room.state),
            "seats": [s.form() for s in room.seats],
            "chat": [c.form() for c in room.chat],
            "moves": [m.form() for m in room.moves],
        }  # fmt: skip
        return pack(fields)

    room = lobby(3)
    assert rooms.encode(room) == whole(room)
    room = playing(3)
    for step in range(40):
        if step % 7 == 0:
            room = commands.chat(room, room.seats[0].id, f"m{step}", 3.0, limit=200, keep=5).room
        else:
            seat = sorted(room.game.to_act(room.state))[0]
            seat_id = room.seats[seat].id
            action = room.game.legal_view(room.state, seat)[0]
            room = commands.act(room, seat_id, room.seats[seat].last_seq + 1, action, 4.0).room
        assert rooms.encode(room) == whole(room)
        assert rooms.decode(rooms.encode(room)) == room
        if room.phase is Phase.FINISHED:
            break


def test_chat_keeps_only_the_last_messages() -> None:
    room = lobby(1)
    for i in range(5):
        room = commands.chat(room, room.seats[0].id, f"m{i}", 1.0, limit=200, keep=3).room
    assert [c.text for c in room.chat] == ["m2", "m3", "m4"] and room.chat_total == 5


def test_a_seq_reused_for_another_command_is_refused_not_swallowed() -> None:
    """Two tabs counting on their own used to lose the second command as a "duplicate"."""
    room = playing(2)
    seat = sorted(room.game.to_act(room.state))[0]
    sid = room.seats[seat].id
    legal = room.game.legal_actions(room.state, seat)
    first = commands.act(room, sid, 1, room.game.dump_action(legal[0]), 3.0)
    with _Refused("seq_reused"):
        commands.act(first.room, sid, 1, room.game.dump_action(legal[1]), 4.0)
    again = commands.act(first.room, sid, 1, room.game.dump_action(legal[0]), 4.0)
    assert again.duplicate and again.result_version == first.room.version


def test_a_leave_resent_after_the_seat_is_gone_is_done_not_refused() -> None:
    room = lobby(2)
    guest = room.seats[1].id
    ctx = commands.Context(now=2.0)
    left = dispatch.seated(room, guest, Leave(type="leave", seq=1), ctx)
    again = dispatch.seated(left.room, guest, Leave(type="leave", seq=1), ctx)
    assert again.duplicate and again.room is left.room


def test_a_bot_plays_at_its_level_and_a_bot_covering_a_person_at_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    room = lobby(2)
    room = commands.add_bot(room, room.host, 1.0, "strong").room
    room = commands.start(room, room.host, commands.Context(now=2.0, seed=5)).room
    asked: list[tuple[int, str]] = []
    game = type(room.game)

    def spy(self, state, seat, rng, level="normal"):  # type: ignore[no-untyped-def]
        asked.append((seat, level))

    monkeypatch.setattr(game, "bot_action", spy)
    for index in range(3):
        commands.bot_action(room, index)
    assert asked == [(0, "normal"), (1, "normal"), (2, "strong")]


def test_a_bots_level_survives_the_stored_form_and_old_records_read_as_normal() -> None:
    room = lobby(1)
    room = commands.add_bot(room, room.host, 1.0, "easy").room
    again = rooms.decode(rooms.encode(room))
    assert again.seats[1].level == "easy" and again.seats[1].bot
    old = unpack(rooms.encode(room))
    del old["form"]  # a record stored before forms, and before levels
    old["seats"] = [s[:6] for s in old["seats"]]
    assert rooms.decode(pack(old)).seats[1].level == "normal"


def test_a_record_stored_before_forms_reads_with_the_defaults_of_what_came_since() -> None:
    """Form 1 (no "form" field): each field added since is read as it was before it existed."""
    room = playing(2)
    old = unpack(rooms.encode(room))
    del old["form"]
    for key in ("secret", "created_by", "deadline", "moves", "next_seed", "next_commitment"):
        del old[key]
    old["seats"] = [[*s[:5], [a[:2] for a in s[5]]] for s in old["seats"]]
    assert old["deal"] is not None
    old["deal"] = old["deal"][:5]
    again = rooms.decode(pack(old))
    assert (again.secret, again.created_by, again.deadline, again.moves) == ("", "", 0.0, ())
    assert [(s.covered, s.level, s.commitment) for s in again.seats] == [(0, "normal", "")] * 2
    assert all(ack[2] == "" for s in again.seats for ack in s.acks)
    assert again.deal is not None and (again.deal.format, again.deal.commitments) == (1, ())
    assert again.state == room.state and again.version == room.version


def test_a_record_of_form_2_is_read_as_written_not_guessed() -> None:
    """Form 2 has every field and every place: one missing is a broken record, not an old
    one, and reading it fails rather than filling in a default."""
    raw = unpack(rooms.encode(playing(2)))
    assert raw["form"] == 2 and next(iter(raw)) == "form"
    short = {**raw, "seats": [s[:6] for s in raw["seats"]]}
    with pytest.raises(IndexError):
        rooms.decode(pack(short))
    with pytest.raises(KeyError):
        rooms.decode(pack({k: v for k, v in raw.items() if k != "secret"}))
    with pytest.raises(ValueError, match="form 3"):
        rooms.decode(pack({**raw, "form": 3}))


def test_how_many_moves_a_bot_covered_survives_the_stored_form() -> None:
    """The record used to drop ``covered``: after a reload the "a bot played N moves for you"
    note said nothing."""
    room = lobby(2)
    seats = (room.seats[0], replace(room.seats[1], away=True, covered=3))
    room = replace(room, seats=seats)
    assert rooms.decode(rooms.encode(room)).seats[1].covered == 3


def test_a_command_applied_before_digests_were_canonical_is_still_known_when_resent() -> None:
    """A server before the canonical digest stored the digest of the keys as they came: such a
    command, resent after an upgrade, is the duplicate it is, not a reused number."""
    room = playing(2)
    seat = sorted(room.game.to_act(room.state))[0]
    seat_id = room.seats[seat].id
    action = room.game.legal_view(room.state, seat)[0]
    assert list(action) != sorted(action), "sent with its keys out of sorted order"
    applied = commands.act(room, seat_id, 1, action, 3.0).room
    old = commands.digest_as_sent("act", action)
    assert old != commands.command_digest("act", action)
    acks = tuple((s, v, old if s == 1 else d) for s, v, d in applied.seats[seat].acks)
    seats = tuple(replace(s, acks=acks) if s.id == seat_id else s for s in applied.seats)
    stored = replace(applied, seats=seats)
    again = commands.act(stored, seat_id, 1, action, 4.0)
    assert again.duplicate and again.room is stored
