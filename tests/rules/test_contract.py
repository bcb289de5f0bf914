"""The shared contract pieces: RNG, codec, ranking, registry."""

from collections import Counter
from typing import Any

import pytest

from rules import all_games, register
from rules.codec import is_wire_clean, pack, unpack
from rules.contract import Game, Result, places_from_scores
from rules.errors import NotYourTurn, RulesError
from rules.floor.game import Floor
from rules.registry import unregister
from rules.rng import Rng


def test_rng_is_deterministic_per_seed() -> None:
    a, _ = Rng.from_seed(7).shuffle(range(20))
    b, _ = Rng.from_seed(7).shuffle(range(20))
    c, _ = Rng.from_seed(8).shuffle(range(20))
    assert a == b
    assert a != c
    assert sorted(a) == list(range(20))


def test_rng_below_is_roughly_uniform() -> None:
    rng = Rng.from_seed(1)
    counts: Counter[int] = Counter()
    for _ in range(6000):
        value, rng = rng.below(6)
        counts[value] += 1
    assert set(counts) == set(range(6))
    assert all(800 < n < 1200 for n in counts.values())


def test_wire_clean_rejects_tuples_floats_and_int_keys() -> None:
    assert is_wire_clean({"a": [1, "x", None, True, {"b": []}]})
    assert not is_wire_clean({"a": (1, 2)})
    assert not is_wire_clean({"a": 1.5})
    assert not is_wire_clean({1: "a"})


def test_msgpack_round_trip_keeps_big_integers() -> None:
    value = {"rng": (1 << 64) - 1, "neg": -5}
    assert unpack(pack(value)) == value


def test_places_share_ties() -> None:
    assert places_from_scores([10, 5, 5, 20], lower_is_better=True) == (3, 1, 1, 4)
    assert places_from_scores([10, 5, 5, 20], lower_is_better=False) == (2, 3, 3, 1)


def test_every_registered_game_describes_itself() -> None:
    games = all_games()
    # Exactly the games of rules/: a game registered by other tests must not leak in here.
    assert sorted(games) == ["floor", "numberswap", "warp99"]
    for game_id, game in games.items():
        meta = game.describe()
        assert meta["id"] == game_id
        assert is_wire_clean(meta["default_options"])
        assert 2 <= meta["min_seats"] <= meta["max_seats"] <= 8


def test_a_game_registered_by_a_test_can_be_unregistered() -> None:
    class Copy(Floor):
        id = "floor_copy"

    register(Copy())
    assert "floor_copy" in all_games()
    unregister("floor_copy")
    assert "floor_copy" not in all_games()
    with pytest.raises(KeyError, match="floor_copy"):
        unregister("floor_copy")


@pytest.mark.parametrize("game_id", sorted(all_games()))
@pytest.mark.parametrize("seat", [-1, "seat", 1.0, True, 2])
def test_a_view_for_a_seat_outside_the_game_is_a_value_error(game_id: str, seat: Any) -> None:
    # ``2`` is one past the last seat of a two-seat game: a programming error, not a rules one.
    game = all_games()[game_id]
    state = game.new_game(2, None, 1)
    for render in (lambda: game.view(state, seat), lambda: game.views(state, [0, seat])):
        with pytest.raises(ValueError, match="seat") as refused:
            render()
        assert not isinstance(refused.value, RulesError)
    assert game.views(state, [0, 1, None]) == [game.view(state, s) for s in (0, 1, None)]


@pytest.mark.parametrize("game_id", sorted(all_games()))
@pytest.mark.parametrize("seat", [True, False, -1, 2, 1.0, "0"])
def test_applying_for_a_seat_outside_the_game_is_refused(game_id: str, seat: Any) -> None:
    # ``True == 1`` and ``False == 0`` to Python, yet a bool is no seat: refused like any other.
    game = all_games()[game_id]
    state = game.new_game(2, None, 1)
    acting = min(game.to_act(state))
    action = game.dump_action(game.legal_actions(state, acting)[0])
    with pytest.raises(NotYourTurn, match="There is no seat"):
        game.apply(state, seat, action)


def test_a_result_names_the_move_bound_on_the_wire_only_when_the_bound_ended_the_game() -> None:
    ended = Result(winners=(0,), places=(1, 2), scores=(0, 3), reason="won")
    assert "move_bound" not in ended.to_wire()
    bounded = Result(winners=(1,), places=(2, 1), scores=(5, 3), reason="bound", move_bound=50)
    assert bounded.to_wire() == {
        "winners": [1],
        "places": [2, 1],
        "scores": [5, 3],
        "reason": "bound",
        "move_bound": 50,
    }


@pytest.mark.parametrize("game_id", sorted(all_games()))
def test_every_game_has_a_move_bound_and_counts_its_actions(game_id: str) -> None:
    game = all_games()[game_id]
    assert game.move_bound >= 1_000
    state = game.new_game(2, None, 1)
    assert state.moves == 0
    acting = min(game.to_act(state))
    after, _ = game.apply(state, acting, game.legal_actions(state, acting)[0])
    assert after.moves == 1


@pytest.mark.parametrize("game_id", sorted(all_games()))
def test_a_state_stored_before_the_move_counter_loads_with_none_counted(game_id: str) -> None:
    # Rooms saved before the counter existed carry no ``moves``: they load and count from 0.
    game = all_games()[game_id]
    state = game.new_game(3, None, 5)
    dumped = game.dump_state(state)
    del dumped["moves"]
    assert game.load_state(unpack(pack(dumped))) == state


@pytest.mark.parametrize("game_id", sorted(all_games()))
def test_every_registered_game_has_an_open_view_with_the_spectators_common_keys(
    game_id: str,
) -> None:
    game = all_games()[game_id]
    state = game.new_game(3, None, 4)
    opened = game.open_view(state)
    spectator = game.view(state, None)
    common = ("game", "seat", "to_act", "legal", "over", "result")
    assert {k: opened[k] for k in common} == {k: spectator[k] for k in common}
    assert (opened["seat"], opened["legal"], opened["open"]) == (None, [], True)
    assert is_wire_clean(opened)


def test_a_game_without_an_open_view_says_so() -> None:
    class Closed(Floor):
        id = "floor_closed"
        open_body = Game.open_body  # type: ignore[assignment]

    with pytest.raises(NotImplementedError, match=r"Closed \(floor_closed\) has no open view"):
        Closed().open_view(Closed().new_game(2, None, 1))


@pytest.mark.parametrize("game_id", ["numberswap", "warp99", "floor"])
def test_an_options_refusal_names_the_options_not_an_action(game_id: str) -> None:
    """Found while fuzzing the HTTP API: a room created with options whose key is no text (a
    lone surrogate, sent as JSON's "\\ud800") was refused with "…: action: Input should be a
    valid string"."""
    from rules.errors import InvalidOptions

    game = all_games()[game_id]
    with pytest.raises(InvalidOptions) as refused:
        game.parse_options({"\ud800": 1})
    assert "action" not in refused.value.message and "options" in refused.value.message
