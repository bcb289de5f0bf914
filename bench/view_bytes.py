"""View bytes: how big each seat's state message is on the wire, over seeded games.

    python -m bench.view_bytes                              # every game at its largest seat count
    python -m bench.view_bytes numberswap --games 50 --players bot
    python -m bench.view_bytes --format json
    python -m bench.view_bytes --deflate                    # as permessage-deflate would send

Each game is played in a room made and driven by the server's own commands (``join``,
``start``, ``act``), so the room carries what a real one does: seat names, the turn timer and
its deadline, ``last_seq``, the last moves' events. After every move, every seat's full
``state`` message is built exactly as the server sends it
(``server.transport.state_messages.room_info``, ``seat_views`` and ``state_message``, with the
events of that move, every seat connected) and encoded with ``state_frames`` (msgpack unless
``--format json``). The figures are over every one of those messages: one per seat per move,
the deal included.

``random`` players pick a seat uniformly from ``to_act`` and one of its legal actions
uniformly; ``bot`` players play ``Game.bot_action`` at the default level.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import zlib
from dataclasses import dataclass
from typing import Any

from rules import all_games, get_game
from rules.contract import DEFAULT_BOT_LEVEL
from rules.rng import Rng
from server.rooms import Room, commands, new_room
from server.transport import state_messages
from server.transport.wire import Format

#: The server's clock in the rooms played here (a plausible epoch time: its float is as long on
#: the wire as a real one), and how far it moves per move.
START = 1_796_111_990.25
STEP = 2.5


@dataclass(frozen=True)
class Sizes:
    game: str
    seats: int
    games: int
    players: str
    fmt: str
    #: Bytes of every seat's state message after every move, in play order.
    frames: tuple[int, ...]

    @property
    def mean(self) -> float:
        return statistics.fmean(self.frames)

    @property
    def median(self) -> float:
        return statistics.median(self.frames)

    @property
    def p90(self) -> int:
        ordered = sorted(self.frames)
        return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def seated_room(game_id: str, seats: int, seed: int) -> Room:
    """A room of ``seats`` people (``Player 1`` ...) that has just started its game."""
    options = get_game(game_id).parse_options(None).model_dump(mode="json")
    # Sealed, as every room is (docs/fairplay.md), by a seed made from ``seed``.
    sealed = hashlib.sha256(f"view bytes {seed}".encode()).hexdigest()
    timer = commands.default_turn_timer(game_id)
    room = new_room("K7QXM", game_id, options, timer, START, next_seed=sealed)
    for i in range(seats):
        change = commands.join(room, f"Player {i + 1}", f"token-{i}", START, name_max=24)
        room = change.room
    host = room.host
    assert host is not None
    ctx = commands.Context(
        now=START, seed=seed, seal=hashlib.sha256(sealed.encode()).hexdigest(),
        limits=commands.Limits(commit_window=0.0),
    )  # fmt: skip
    return commands.start(room, host, ctx).room


def encoded(room: Room, now: float, sent: int, fmt: Format) -> list[bytes]:
    """Each seat's state message after ``room``'s latest change, as the hub makes them (a
    JSON frame is text, sent as UTF-8)."""
    connected = frozenset(s.id for s in room.seats)
    info = state_messages.room_info(room, connected, now)
    indexes: list[int | None] = list(range(len(room.seats)))
    parts = state_messages.seat_view_parts(room, indexes)
    events = state_messages.events_since(room, sent)
    encoded = state_messages.state_frames(room, info, parts, [(i, events) for i in indexes], fmt)
    return [f.encode() if isinstance(f, str) else f for f in encoded]


def frames(room: Room, now: float, sent: int, fmt: Format) -> list[int]:
    """The sizes of :func:`encoded`."""
    return [len(f) for f in encoded(room, now, sent, fmt)]


class Deflated:
    """What permessage-deflate would make of each seat's messages, with the settings uvicorn
    offers (12-bit windows, memLevel 5, the context kept from message to message)."""

    def __init__(self, seats: int) -> None:
        self._streams = [zlib.compressobj(wbits=-12, memLevel=5) for _ in range(seats)]

    def sizes(self, frames: list[bytes]) -> list[int]:
        out = []
        for stream, frame in zip(self._streams, frames, strict=True):
            data = stream.compress(frame) + stream.flush(zlib.Z_SYNC_FLUSH)
            out.append(len(data) - 4)  # RFC 7692: the flush's 00 00 ff ff is not sent
        return out


def bot_move(room: Room) -> tuple[int, Any]:
    """The first seat to act whose bot does not choose to wait, and its move (seeded as the
    server seeds a bot's move)."""
    game = room.game
    for seat in sorted(game.to_act(room.state)):
        rng = Rng.from_seed(room.seed ^ (room.version * 0x9E3779B1) ^ (seat << 48))
        action = game.bot_action(room.state, seat, rng, DEFAULT_BOT_LEVEL)
        if action is not None:
            return seat, action
    raise AssertionError("every seat to act chose to wait")


def play(
    game_id: str, seats: int, seed: int, players: str, fmt: Format, cap: int, deflate: bool = False
) -> list[int]:
    """Every seat's message size after every move of one seeded game (``deflate``: as
    permessage-deflate would send it)."""
    game = get_game(game_id)
    room = seated_room(game_id, seats, seed)
    rnd = random.Random(seed)
    now = START
    deflated = Deflated(seats) if deflate else None

    def frames(room: Room, now: float, sent: int, fmt: Format) -> list[int]:
        made = encoded(room, now, sent, fmt)
        return [len(f) for f in made] if deflated is None else deflated.sizes(made)

    sizes = frames(room, now, 0, fmt)
    seq = [0] * seats
    for _ in range(cap):
        state = room.state
        if game.result(state) is not None:
            break
        if players == "bot":
            seat, action = bot_move(room)
        else:
            seat = rnd.choice(sorted(game.to_act(state)))
            action = rnd.choice(game.legal_actions(state, seat))
        seq[seat] += 1
        now += STEP
        sent = room.version
        change = commands.act(room, room.seats[seat].id, seq[seat], game.dump_action(action), now)
        room = change.room
        sizes.extend(frames(room, now, sent, fmt))
    return sizes


def measure(
    game_id: str,
    seats: int,
    games: int,
    seed: int,
    players: str,
    fmt: Format,
    cap: int,
    deflate: bool = False,
) -> Sizes:
    sizes: list[int] = []
    for g in range(games):
        sizes.extend(play(game_id, seats, seed + g, players, fmt, cap, deflate))
    return Sizes(game_id, seats, games, players, fmt.value, tuple(sizes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games_", nargs="*", metavar="GAME", help="game ids (default: all)")
    parser.add_argument("--seats", type=int, help="seat count (default: the game's maximum)")
    parser.add_argument("--games", type=int, default=20, help="seeded games per game id")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", choices=("random", "bot"), default="random")
    parser.add_argument("--format", choices=[f.value for f in Format], default="msgpack")
    parser.add_argument("--cap", type=int, default=5_000, help="moves at most per game")
    parser.add_argument(
        "--deflate", action="store_true", help="sizes as permessage-deflate would send them"
    )
    args = parser.parse_args()
    ids = args.games_ or sorted(all_games())
    fmt = Format(args.format)
    print("| game | seats | games | players | messages | mean B | median B | p90 B | max B |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for game_id in ids:
        seats = args.seats or get_game(game_id).max_seats
        s = measure(
            game_id, seats, args.games, args.seed, args.players, fmt, args.cap, args.deflate
        )
        print(
            f"| {s.game} | {s.seats} | {s.games} | {s.players} | {len(s.frames):,} | "
            f"{s.mean:,.0f} | {s.median:,.0f} | {s.p90:,} | {max(s.frames):,} |"
        )


if __name__ == "__main__":
    main()
