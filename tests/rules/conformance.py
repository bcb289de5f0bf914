"""The random-playout conformance check every game passes.

A game's test module supplies a :class:`Harness` (how to count its cards and how to shuffle the
cards a seat cannot see); :func:`play_random_game` then plays a seeded random legal game and
checks, after every action:

* someone can act until the game ends, every seat in ``to_act`` has a legal action and no other
  seat has one, and a seat outside ``to_act`` is refused with ``NotYourTurn``;
* the input state was not mutated (its dump is unchanged);
* state round-trips losslessly through msgpack; views and events are wire-clean;
* every card is accounted for exactly once;
* no leak: shuffling the cards hidden from a seat leaves that seat's view identical
  (also for the spectator view);
* the open view (nothing hidden) is wire-clean, the same for equal states, and the spectator
  view plus the keys the game documents for it (``Harness.open_keys``);
* events are public: the same action, applied after shuffling the cards hidden from a seat (or
  the spectator), gives the same events whenever that viewer cannot tell the two games apart
  afterwards either (its view after the action is the same too);
* the state's ``moves`` counts every applied action, and the game ends within its move bound
  (platform ruling): a result that the bound gave says so, at exactly the bound.

``head_start`` starts a game's counter close to the bound, so that the bound's ending, too,
is played into and checked.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Hashable, MutableSequence
from dataclasses import dataclass, replace
from typing import Any

import pytest

from rules.codec import is_wire_clean, pack, unpack
from rules.contract import Game
from rules.errors import NotYourTurn, RulesError
from rules.rng import Rng


@dataclass
class Harness:
    game: Game[Any, Any]
    #: Every card in the state, wherever it is (hands, piles, grids, ...).
    cards: Callable[[Any], Counter[Hashable]]
    #: The full deck the game was dealt from.
    deck: Callable[[Any], Counter[Hashable]]
    #: A state equal to the input except that cards hidden from ``seat`` (None = spectator)
    #: are permuted among their hidden places.
    permute_hidden: Callable[[Any, int | None, random.Random], Any]
    #: The keys the game's open view adds to the spectator's (``Game.open_view``: the hidden
    #: cards filled in); everything else in it is the spectator view as it is.
    open_keys: frozenset[str]


def check_state(h: Harness, state: Any, rnd: random.Random, *, leak_checks: int = 1) -> None:
    game = h.game
    dumped = game.dump_state(state)
    assert is_wire_clean(dumped), "dump_state must be wire-clean"
    # A game may dump its state by hand (for speed); it must be what the contract's generic
    # dump gives, key order included (the room record's bytes).
    generic = game._state_adapter.dump_python(state, mode="json")
    assert dumped == generic, "dump_state must equal the generic dump"
    assert pack(dumped) == pack(generic), "dump_state must list keys as the generic dump does"
    assert game.pack_state(state) == pack(generic), "pack_state must be the packed dump"
    again = game.load_state(unpack(pack(dumped)))
    assert again == state, "state must round-trip through msgpack"
    assert h.cards(state) == h.deck(state), "every card must be accounted for exactly once"

    seats = game.seat_count(state)
    to_act = game.to_act(state)
    for seat in sorted(to_act):
        # dump_action copies plain fields as they are (for speed): pydantic's dump, exactly.
        for action in game.legal_actions(state, seat)[:40]:
            dumped = game.dump_action(action)
            assert dumped == action.model_dump(mode="json"), "dump_action must equal the dump"
            assert list(dumped) == list(action.model_dump(mode="json")), "in the same order"
    result = game.result(state)
    if result is not None:
        assert not to_act, "nobody acts once the game is over"
    else:
        assert to_act, "someone must be able to act until the game ends"
    # Platform ruling (move bound).
    assert 0 <= state.moves <= game.move_bound, "no game goes past its move bound"
    if state.moves == game.move_bound:
        assert result is not None, "reaching the move bound ends the game"
    if result is not None and result.move_bound is not None:
        assert result.move_bound == game.move_bound == state.moves
    for seat in range(seats):
        legal = game.legal_actions(state, seat)
        assert bool(legal) == (seat in to_act), f"seat {seat}: legal actions iff in to_act"
        view = game.view(state, seat)
        assert is_wire_clean(view), "views must be wire-clean"
        assert unpack(pack(view)) == view
    everyone: list[int | None] = [*range(seats), None]
    assert game.views(state, everyone) == [game.view(state, s) for s in everyone]
    # The parts the server packs (a shared part once per fan-out): each view is the shared
    # part then the seat's own, key for key and in order, with no key in both.
    shared, owns = game.view_parts(state, everyone)
    for s, own in zip(everyone, owns, strict=True):
        assert shared.keys().isdisjoint(own), "no key both shared and a seat's own"
        merged = {**shared, **own}
        assert merged == game.view(state, s) and list(merged) == list(game.view(state, s))
    spectator = game.view(state, None)
    assert is_wire_clean(spectator)
    assert spectator["legal"] == []
    check_open_view(h, state, again, spectator)

    for _ in range(leak_checks):
        seat = rnd.choice([*range(seats), None])
        shuffled = h.permute_hidden(state, seat, rnd)
        assert h.cards(shuffled) == h.cards(state), "permute_hidden must only move cards"
        # Compared as bytes too: to Python ``False == 0``, and a compact view may send both.
        seen, shuffled_view = game.view(state, seat), game.view(shuffled, seat)
        assert shuffled_view == seen, f"view of {seat} leaks"
        assert pack(shuffled_view) == pack(seen), f"view of {seat} leaks"


def check_open_view(h: Harness, state: Any, equal: Any, spectator: dict[str, Any]) -> None:
    """The open view (nothing hidden) is wire-clean, the same for equal states, and the
    spectator view plus the game's ``open_keys`` and ``"open": True``."""
    game = h.game
    opened = game.open_view(state)
    assert is_wire_clean(opened), "the open view must be wire-clean"
    assert unpack(pack(opened)) == opened
    assert opened["open"] is True
    assert set(opened) == {*spectator, *h.open_keys, "open"}, "the open view's keys"
    assert {k: v for k, v in opened.items() if k not in h.open_keys and k != "open"} == spectator
    assert pack(game.open_view(equal)) == pack(opened), "equal states, equal open views"


class _Sorting(random.Random):
    """A "shuffle" that sorts: ``permute_hidden`` with it puts hidden cards in a fixed order."""

    def shuffle(self, x: MutableSequence[Any]) -> None:  # type: ignore[override]
        x[:] = sorted(x, key=repr)


def canonical(h: Harness, state: Any, viewer: int | None) -> Any:
    """``state`` with the cards hidden from ``viewer`` in a fixed order: two states are the
    same to that viewer exactly when their canonical forms are equal."""
    return h.permute_hidden(state, viewer, _Sorting())


def check_events_public(
    h: Harness,
    before: Any,
    seat: int,
    action: Any,
    after: Any,
    events: list[Any],
    rnd: random.Random,
    *,
    tries: int = 2,
) -> int:
    """Events are public by contract: they reveal nothing hidden from any viewer.

    For a random viewer, the cards hidden from it are shuffled before the action, and the
    action is applied again. When that viewer cannot tell the two games apart afterwards
    either (the same cards in every place it can see, see :func:`canonical`), the events must
    be the same. A shuffle that makes the action illegal, or whose difference the action
    brings into view, proves nothing and is skipped. Returns how many shuffles were compared.
    """
    game = h.game
    compared = 0
    for _ in range(tries):
        viewer = rnd.choice([*range(game.seat_count(before)), None])
        shuffled = h.permute_hidden(before, viewer, rnd)
        try:
            shuffled_after, shuffled_events = game.apply(shuffled, seat, action)
        except RulesError:
            continue
        if canonical(h, shuffled_after, viewer) != canonical(h, after, viewer):
            continue
        assert shuffled_events == events, f"the events of seat {seat}'s action leak to {viewer}"
        compared += 1
    return compared


def play_random_game(
    h: Harness,
    seats: int,
    seed: int,
    *,
    options: dict[str, Any] | None = None,
    check: bool = True,
    head_start: int = 0,
) -> tuple[Any, list[tuple[int, dict[str, Any]]]]:
    """Play a seeded random legal game to the end; returns the final state and the actions.

    ``head_start``: the game's action counter starts there, as if that many actions had been
    played already.
    """
    game = h.game
    rnd = random.Random(seed)
    state = game.new_game(seats, options, seed)
    if head_start:
        state = replace(state, moves=head_start)
    log: list[tuple[int, dict[str, Any]]] = []
    compared = 0
    while True:
        if check:
            check_state(h, state, rnd)
            assert state.moves == head_start + len(log), "the state counts every action"
        if game.result(state) is not None:
            if check and len(log) >= 40:
                assert compared, "the events check never found a shuffle to compare"
            return state, log
        assert state.moves < game.move_bound, f"no end within the move bound {game.move_bound}"
        to_act = sorted(game.to_act(state))
        seat = rnd.choice(to_act)
        idle = [s for s in range(seats) if s not in to_act]
        action = rnd.choice(game.legal_actions(state, seat))
        if check and idle:
            with pytest.raises(NotYourTurn):
                game.apply(state, rnd.choice(idle), action)
        before = game.dump_state(state) if check else None
        # Round-trip the action as the server would receive it.
        wire_action = game.parse_action(unpack(pack(game.dump_action(action))))
        assert wire_action == action
        previous = state
        state, events = game.apply(state, seat, wire_action)
        if check:
            assert game.dump_state(game.load_state(before)) == before
            assert all(is_wire_clean(e) and "type" in e for e in events)
            compared += check_events_public(h, previous, seat, wire_action, state, events, rnd)
        log.append((seat, game.dump_action(action)))


def replay(
    game: Game[Any, Any],
    seats: int,
    seed: int,
    log: list[tuple[int, dict[str, Any]]],
    options: dict[str, Any] | None = None,
) -> Any:
    state = game.new_game(seats, options, seed)
    for seat, action in log:
        state, _ = game.apply(state, seat, action)
    return state


def bot_game(
    game: Game[Any, Any], seats: int, seed: int, options: dict[str, Any] | None = None
) -> Any:
    """Play a game with every seat driven by ``game.bot_action`` (no checks but the bound)."""
    state = game.new_game(seats, options, seed)
    rng = Rng.from_seed(seed)
    for _ in range(game.move_bound + 1):
        if game.result(state) is not None:
            return state
        for seat in sorted(game.to_act(state)):
            action = game.bot_action(state, seat, rng)
            _, rng = rng.next64()
            if action is not None:
                state, _ = game.apply(state, seat, action)
                break
        else:
            raise AssertionError("every bot waited: nobody moved")
    raise AssertionError(f"bot game did not end within the move bound {game.move_bound}")


def check_ends_near_the_move_bound(
    harness: Harness, seats: int, seed: int, left: int, options: dict[str, Any] | None = None
) -> None:
    """Platform ruling (move bound): started ``left`` actions short of the bound, a random game
    keeps every invariant and ends within those actions, by its own rules or by the bound."""
    head_start = harness.game.move_bound - left
    state, log = play_random_game(harness, seats, seed, options=options, head_start=head_start)
    result = harness.game.result(state)
    assert result is not None
    assert len(log) <= left
    if len(log) < left:
        assert result.move_bound is None


def reachable(
    game: Game[Any, Any],
    seats: int,
    seed: int,
    limit: int,
    options: dict[str, Any] | None = None,
) -> list[tuple[Any, int]]:
    """Up to ``limit`` (state, seat to act) pairs of one seeded game, its moves half random
    legal ones and half the strong bot's (so that the states a good player reaches come too)."""
    rnd = random.Random(seed)
    state = game.new_game(seats, options, seed)
    out: list[tuple[Any, int]] = []
    while game.result(state) is None and len(out) < limit:
        seat = rnd.choice(sorted(game.to_act(state)))
        out.append((state, seat))
        legal = game.legal_actions(state, seat)
        action = None
        if rnd.random() < 0.5:
            action = game.bot_action(state, seat, Rng.from_seed(seed), "strong")
        state, _ = game.apply(state, seat, action if action is not None else rnd.choice(legal))
    return out


def check_bot_sees_only_its_view(
    h: Harness, level: str, seeds: range, limit: int, options: dict[str, Any] | None = None
) -> int:
    """A bot decides from its seat's view only: with the cards hidden from its seat shuffled
    among their hidden places (so the seat's view is the same), it makes the same move, which
    is legal there too. Over the reachable states of games of 2 to 8 seats; returns how many
    (state, shuffle) pairs were checked."""
    game = h.game
    rnd = random.Random(level)
    checked = 0
    for seed in seeds:
        seats = game.min_seats + seed % (game.max_seats - game.min_seats + 1)
        for state, seat in reachable(game, seats, seed, limit, options):
            rng = Rng.from_seed(rnd.getrandbits(64))
            move = game.bot_action(state, seat, rng, level)
            for _ in range(2):
                other = h.permute_hidden(state, seat, rnd)
                assert game.view(other, seat) == game.view(state, seat)
                if move is not None:
                    legal = [game.dump_action(a) for a in game.legal_actions(other, seat)]
                    assert game.dump_action(move) in legal
                assert game.bot_action(other, seat, rng, level) == move
                checked += 1
    return checked
