"""The dealing specification, docs/fairplay.md "Dealing, exactly: from the seed to the cards".

Two implementations deal here. ``RULES`` asks the real rules (``rules.rng`` and
``rules.registry.get_game(id).new_game``). ``SPEC`` is written from the section's text alone:
its own SplitMix64, ``below``, shuffle and per-game deck and deal, importing nothing of the
rules' dealing code. The section's vector tables are read out of the document and each row is
checked against both; hypothesis then checks, for random 64-bit seeds and every legal seat
count, that the two deal exactly alike, and that the reshuffles (Number Swap played with legal
moves until its draw pile runs out; Floor's and Warp 99's supply helpers) and Number Swap's
next round carry the generator on as the section says.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.floor.table import take_from_pile
from rules.registry import get_game
from rules.rng import Rng
from rules.warp99.rulecards import face_up
from rules.warp99.table import Table

T = TypeVar("T")

DOC = Path(__file__).resolve().parents[2] / "docs" / "fairplay.md"
SECTION = "## Dealing, exactly: from the seed to the cards"
SEEDS = st.integers(min_value=0, max_value=(1 << 64) - 1)
Cards = tuple[int, ...]


# -- the dealt cards, as both implementations give them ----------------------------------------
# Card notation as on the wire; every pile bottom first (its top card last).


@dataclass(frozen=True)
class NumberSwapDeal:
    grids: tuple[tuple[int, ...], ...]
    discard: tuple[int, ...]
    draw: tuple[int, ...]
    state: int


@dataclass(frozen=True)
class Warp99Deal:
    hands: tuple[tuple[int, ...], ...]
    decks: tuple[tuple[int, ...], ...]
    piles: tuple[tuple[int, ...], tuple[int, ...]]
    reserve: tuple[int, ...]
    sides: tuple[int, ...]
    state: int


@dataclass(frozen=True)
class FloorDeal:
    hands: tuple[tuple[int, ...], ...]
    discard: tuple[int, ...]
    draw: tuple[int, ...]
    floor_shape: str | None
    floor_number: int | None
    state: int


class Dealer(Protocol):
    def outputs(self, seed: int, count: int) -> list[int]: ...
    def below(self, seed: int, n: int) -> tuple[int, int]: ...
    def shuffle(self, seed: int, items: Sequence[T]) -> tuple[list[T], int]: ...
    def number_swap(self, seed: int, seats: int) -> NumberSwapDeal: ...
    def warp99(self, seed: int, seats: int, random_start_sides: bool) -> Warp99Deal: ...
    def floor(self, seed: int, seats: int) -> FloorDeal: ...


# -- RULES: the real rules ------------------------------------------------------------------------


class RulesDealer:
    def outputs(self, seed: int, count: int) -> list[int]:
        rng, values = Rng.from_seed(seed), []
        for _ in range(count):
            value, rng = rng.next64()
            values.append(value)
        return values

    def below(self, seed: int, n: int) -> tuple[int, int]:
        value, rng = Rng.from_seed(seed).below(n)
        return value, rng.state

    def shuffle(self, seed: int, items: Sequence[T]) -> tuple[list[T], int]:
        shuffled, rng = Rng.from_seed(seed).shuffle(items)
        return list(shuffled), rng.state

    def number_swap(self, seed: int, seats: int) -> NumberSwapDeal:
        state = get_game("numberswap").new_game(seats, {}, seed)
        assert not any(any(g.up) for g in state.grids), "every grid card starts face down"
        return NumberSwapDeal(
            grids=tuple(tuple(g.cards) for g in state.grids),
            discard=tuple(state.discard),
            draw=tuple(state.draw),
            state=state.rng.state,
        )

    def warp99(self, seed: int, seats: int, random_start_sides: bool) -> Warp99Deal:
        options = {"random_start_sides": random_start_sides}
        state = get_game("warp99").new_game(seats, options, seed)
        return Warp99Deal(
            hands=tuple(state.hands),
            decks=tuple(state.decks),
            piles=(tuple(state.piles[0]), tuple(state.piles[1])),
            reserve=tuple(state.reserve),
            sides=tuple(state.sides),
            state=state.rng.state,
        )

    def floor(self, seed: int, seats: int) -> FloorDeal:
        state = get_game("floor").new_game(seats, {}, seed)
        shape = state.floor_shape
        return FloorDeal(
            hands=tuple(state.hands),
            discard=tuple(state.discard),
            draw=tuple(state.draw),
            floor_shape=None if shape is None else shape.value,
            floor_number=state.floor_number,
            state=state.rng.state,
        )


# -- SPEC: written from docs/fairplay.md alone ----------------------------------------------------

TWO_64 = 1 << 64


class SplitMix64:
    """The section's generator: the state is the seed; update first, then mix."""

    def __init__(self, seed: int) -> None:
        self.state = seed % TWO_64

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) % TWO_64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % TWO_64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % TWO_64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        limit = TWO_64 - (TWO_64 % n)
        while True:
            value = self.next64()
            if value < limit:
                return value % n

    def shuffle(self, items: Sequence[T]) -> list[T]:
        a = list(items)
        for i in range(len(a) - 1, 0, -1):
            j = self.below(i + 1)
            a[i], a[j] = a[j], a[i]
        return a


#: Number Swap's deck before shuffling: the 150 values in ascending order.
NS_DECK = [-2] * 5 + [-1] * 10 + [0] * 15 + [v for v in range(1, 13) for _ in range(10)]
FLOOR_SHAPES = ("circle", "triangle", "square", "star")


def spec_number_swap_deal(gen: SplitMix64, seats: int) -> NumberSwapDeal:
    d = gen.shuffle(NS_DECK)
    return NumberSwapDeal(
        grids=tuple(tuple(d[12 * s : 12 * s + 12]) for s in range(seats)),
        discard=(d[149],),
        draw=tuple(d[12 * seats : 149]),
        state=gen.state,
    )


def spec_warp99_deal(gen: SplitMix64, seats: int, random_start_sides: bool) -> Warp99Deal:
    d = gen.shuffle(range(110))
    sides = (1, 1, 1)
    if random_start_sides:
        f = gen.below(8)
        sides = (1 + (f >> 0) % 2, 1 + (f >> 1) % 2, 1 + (f >> 2) % 2)
    return Warp99Deal(
        hands=tuple(tuple(sorted(d[15 * s + 9 : 15 * s + 15])) for s in range(seats)),
        decks=tuple(tuple(d[15 * s : 15 * s + 9]) for s in range(seats)),
        piles=((d[109],), (d[108],)),
        reserve=tuple(d[15 * seats : 108]),
        sides=sides,
        state=gen.state,
    )


def spec_floor_floor(opener: int) -> tuple[str | None, int | None]:
    """The floor an opener sets: (shape, number)."""
    if opener < 80:  # a Number
        return FLOOR_SHAPES[opener // 20], (opener % 20) // 2
    if 92 <= opener < 96:  # a Freeze
        return FLOOR_SHAPES[opener - 92], None
    if 96 <= opener < 104:  # a Take1 or Take2
        return FLOOR_SHAPES[(opener - 96) % 4], None
    return None, None  # an Operation, a Swap or a Power


def spec_floor_deal(gen: SplitMix64, seats: int) -> FloorDeal:
    d = gen.shuffle(range(112))
    opener = d[111 - 7 * seats]
    shape, number = spec_floor_floor(opener)
    return FloorDeal(
        hands=tuple(tuple(sorted(d[105 - 7 * s : 112 - 7 * s])) for s in range(seats)),
        discard=(opener,),
        draw=tuple(d[0 : 111 - 7 * seats]),
        floor_shape=shape,
        floor_number=number,
        state=gen.state,
    )


class SpecDealer:
    def outputs(self, seed: int, count: int) -> list[int]:
        gen = SplitMix64(seed)
        return [gen.next64() for _ in range(count)]

    def below(self, seed: int, n: int) -> tuple[int, int]:
        gen = SplitMix64(seed)
        return gen.below(n), gen.state

    def shuffle(self, seed: int, items: Sequence[T]) -> tuple[list[T], int]:
        gen = SplitMix64(seed)
        return gen.shuffle(items), gen.state

    def number_swap(self, seed: int, seats: int) -> NumberSwapDeal:
        return spec_number_swap_deal(SplitMix64(seed), seats)

    def warp99(self, seed: int, seats: int, random_start_sides: bool) -> Warp99Deal:
        return spec_warp99_deal(SplitMix64(seed), seats, random_start_sides)

    def floor(self, seed: int, seats: int) -> FloorDeal:
        return spec_floor_deal(SplitMix64(seed), seats)


def spec_number_swap_draw(
    gen: SplitMix64, draw: Sequence[int], discard: Sequence[int]
) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """A Number Swap draw: (card drawn, draw pile after, discard pile after)."""
    pile, under = list(draw), list(discard)
    if not pile:
        pile, under = gen.shuffle(under[:-1]), under[-1:]
    card = pile.pop()
    return card, tuple(pile), tuple(under)


def spec_floor_take(
    gen: SplitMix64, draw: Sequence[int], discard: Sequence[int], count: int, *, bottom: bool
) -> tuple[list[int], tuple[int, ...], tuple[int, ...]]:
    """Floor's drawing of ``count`` cards: (cards taken, draw pile after, discard after)."""
    pile, under = list(draw), list(discard)
    taken: list[int] = []
    while len(taken) < count:
        if not pile:
            if len(under) < 2:
                break
            pile, under = gen.shuffle(under[:-1]), under[-1:]
        taken.append(pile.pop(0) if bottom else pile.pop())
    return taken, tuple(pile), tuple(under)


def spec_warp99_new_deck(
    gen: SplitMix64,
    reserve: Sequence[int],
    piles: tuple[Sequence[int], Sequence[int]],
    scored: Sequence[int],
) -> tuple[Cards, Cards, tuple[Cards, Cards], Cards]:
    """A new personal deck off the reserve: (deck, reserve, piles, scored) after it."""
    p0, p1 = tuple(piles[0]), tuple(piles[1])
    k = min(15, len(reserve))
    first = tuple(reserve[len(reserve) - k :])
    rest = tuple(reserve[: len(reserve) - k])
    pool = [*p0[:-1], *p1[:-1], *scored]
    if k == 15 or not pool:
        return first, rest, (p0, p1), tuple(scored)
    new_reserve = gen.shuffle(pool)
    more = min(15 - k, len(new_reserve))
    deck = (*new_reserve[len(new_reserve) - more :], *first)
    return deck, tuple(new_reserve[: len(new_reserve) - more]), (p0[-1:], p1[-1:]), ()


RULES = RulesDealer()
SPEC = SpecDealer()
DEALERS = pytest.mark.parametrize("dealer", [RULES, SPEC], ids=["rules", "spec"])


# -- reading the vector tables out of the document ------------------------------------------------


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines.count(SECTION) == 1, f"docs/fairplay.md has one {SECTION!r}"
    start = lines.index(SECTION)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start:end])


def _literal(cell: str) -> Any:
    match = re.fullmatch(r"`([^`]*)`", cell)
    assert match, f"a vector cell is one literal in backquotes, not {cell!r}"
    text = match.group(1)
    if text.startswith("0x"):
        assert re.fullmatch(r"0x[0-9a-f]{16}", text), f"a 64-bit hex value: {text!r}"
        return int(text, 16)
    return json.loads(text)


def vectors(heading: str) -> list[dict[str, Any]]:
    """The rows of the table under ``#### heading`` in the section: column name -> value."""
    lines = _section().splitlines()
    start = lines.index(f"#### {heading}")
    table: list[str] = []
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            table.append(line)
        elif table:
            break
    assert len(table) > 2, f"a table of vectors under {heading!r}"

    def cells(line: str) -> list[str]:
        return [c.strip() for c in line.strip().strip("|").split("|")]

    names = cells(table[0])
    assert all(set(c) <= set("-") for c in cells(table[1])), "the header's rule"
    rows = []
    for line in table[2:]:
        values = cells(line)
        assert len(values) == len(names), line
        rows.append(dict(zip(names, map(_literal, values), strict=True)))
    return rows


def _by_deal(rows: list[dict[str, Any]]) -> dict[tuple[int, int], list[dict[str, Any]]]:
    deals: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for row in rows:
        deals.setdefault((row["seed"], row["seats"]), []).append(row)
    return deals


# -- (a) the document's vectors -------------------------------------------------------------------


def test_the_vector_tables_hold_every_kind_of_vector() -> None:
    counts = {
        heading: len(vectors(heading))
        for heading in (
            "Vectors: SplitMix64",
            "Vectors: below(n)",
            "Vectors: shuffle",
            "Vectors: Number Swap grids",
            "Vectors: Number Swap piles",
            "Vectors: Warp 99 hands and decks",
            "Vectors: Warp 99 piles, reserve and rule cards",
            "Vectors: Warp 99 random start sides",
            "Vectors: Floor hands",
            "Vectors: Floor opener and draw pile",
        )
    }
    assert all(n >= 4 for n in counts.values()), counts
    # The documented seeds, for every game: 0, 1, a mixed one, and the largest.
    wanted = {0, 1, 0x0123456789ABCDEF, (1 << 64) - 1}
    for heading in ("Number Swap piles", "Warp 99 piles, reserve and rule cards"):
        assert {r["seed"] for r in vectors(f"Vectors: {heading}")} == wanted
    assert {r["seed"] for r in vectors("Vectors: Floor opener and draw pile")} == wanted
    # Every one of the eight start-side outcomes has its row.
    assert sorted(r["below(8)"] for r in vectors("Vectors: Warp 99 random start sides")) == list(
        range(8)
    )


def test_the_spec_seat_counts_are_each_games_legal_seat_counts() -> None:
    # The section's "Conventions": Number Swap 2 to 8, Warp 99 2 to 6, Floor 2 to 8.
    games = ("numberswap", "warp99", "floor")
    seats = {g: (get_game(g).min_seats, get_game(g).max_seats) for g in games}
    assert seats == {"numberswap": (2, 8), "warp99": (2, 6), "floor": (2, 8)}
    assert "Seat counts: Number Swap 2 to 8, Warp 99 2 to 6, Floor 2 to 8." in " ".join(
        _section().split()
    )


@DEALERS
def test_splitmix64_vectors_give_the_documented_first_three_outputs(dealer: Dealer) -> None:
    for row in vectors("Vectors: SplitMix64"):
        expected = [row["1st next64"], row["2nd next64"], row["3rd next64"]]
        assert dealer.outputs(row["seed"], 3) == expected, hex(row["seed"])


@DEALERS
def test_below_vectors_give_the_documented_value_draw_count_and_state(dealer: Dealer) -> None:
    rows = vectors("Vectors: below(n)")
    assert any(r["next64 outputs used"] > 1 for r in rows), "a vector shows a rejection"
    for row in rows:
        value, state = dealer.below(row["seed"], row["n"])
        used = row["next64 outputs used"]
        assert (value, state) == (row["below(n)"], row["state after"]), row
        assert state == (row["seed"] + used * 0x9E3779B97F4A7C15) % TWO_64, row


@DEALERS
def test_shuffle_vectors_give_the_documented_order_and_state(dealer: Dealer) -> None:
    for row in vectors("Vectors: shuffle"):
        shuffled, state = dealer.shuffle(row["seed"], row["list before"])
        assert (shuffled, state) == (row["list after"], row["state after"]), row
        draws = max(len(row["list before"]) - 1, 0)
        assert state == (row["seed"] + draws * 0x9E3779B97F4A7C15) % TWO_64, "one draw a position"


@DEALERS
def test_number_swap_vectors_are_the_documented_deal(dealer: Dealer) -> None:
    grids = _by_deal(vectors("Vectors: Number Swap grids"))
    for row in vectors("Vectors: Number Swap piles"):
        deal = dealer.number_swap(row["seed"], row["seats"])
        seat_rows = grids[row["seed"], row["seats"]]
        assert [r["seat"] for r in seat_rows] == list(range(row["seats"])), "every seat listed"
        assert [list(g) for g in deal.grids] == [r["grid, positions 0 to 11"] for r in seat_rows]
        assert list(deal.discard) == row["discard pile"]
        assert list(reversed(deal.draw))[:8] == row["draw pile, first 8 drawn"]
        assert len(deal.draw) == row["draw pile size"]
        assert deal.state == row["state after"]


@DEALERS
def test_warp99_vectors_are_the_documented_deal(dealer: Dealer) -> None:
    seats_rows = _by_deal(vectors("Vectors: Warp 99 hands and decks"))
    for row in vectors("Vectors: Warp 99 piles, reserve and rule cards"):
        deal = dealer.warp99(row["seed"], row["seats"], row["random_start_sides"])
        seat_rows = seats_rows[row["seed"], row["seats"]]
        assert [r["seat"] for r in seat_rows] == list(range(row["seats"])), "every seat listed"
        assert [list(h) for h in deal.hands] == [r["hand"] for r in seat_rows]
        drawn = [r["personal deck, in the order drawn"] for r in seat_rows]
        assert [list(reversed(d)) for d in deal.decks] == drawn
        assert [list(deal.piles[0]), list(deal.piles[1])] == [row["pile 0"], row["pile 1"]]
        assert list(reversed(deal.reserve))[:8] == row["reserve, first 8 taken"]
        assert len(deal.reserve) == row["reserve size"]
        assert list(deal.sides) == row["sides"]
        assert deal.state == row["state after"]


@DEALERS
def test_warp99_start_side_vectors_turn_rule_card_k_by_bit_k(dealer: Dealer) -> None:
    for row in vectors("Vectors: Warp 99 random start sides"):
        assert dealer.outputs(row["seed"], 110)[-1] == row["110th next64"]
        assert row["110th next64"] % 8 == row["below(8)"], "below(8) is the low three bits"
        assert row["sides"] == [1 + (row["below(8)"] >> k & 1) for k in range(3)]
        for seats in (2, 6):
            assert list(dealer.warp99(row["seed"], seats, True).sides) == row["sides"]
        keys = [rule.value for rule in face_up(tuple(row["sides"]))]
        assert keys == row["rules"]


@DEALERS
def test_floor_vectors_are_the_documented_deal(dealer: Dealer) -> None:
    hands = _by_deal(vectors("Vectors: Floor hands"))
    for row in vectors("Vectors: Floor opener and draw pile"):
        deal = dealer.floor(row["seed"], row["seats"])
        seat_rows = hands[row["seed"], row["seats"]]
        assert [r["seat"] for r in seat_rows] == list(range(row["seats"])), "every seat listed"
        assert [list(h) for h in deal.hands] == [r["hand"] for r in seat_rows]
        assert deal.discard == (row["opener"],)
        assert (deal.floor_shape, deal.floor_number) == (row["floor shape"], row["floor number"])
        assert list(reversed(deal.draw))[:8] == row["draw pile, first 8 drawn"]
        assert len(deal.draw) == row["draw pile size"]
        assert deal.state == row["state after"]


def test_the_vectors_card_notation_is_the_wire_notation() -> None:
    """The numbers in the tables are what the views send: Number Swap's open view's face-down
    values and ``discard_top``, Warp 99's and Floor's hands, pile tops and floor."""
    for row in vectors("Vectors: Number Swap piles"):
        game = get_game("numberswap")
        view = game.open_view(game.new_game(row["seats"], {}, row["seed"]))
        grids = _by_deal(vectors("Vectors: Number Swap grids"))[row["seed"], row["seats"]]
        assert view["down_cards"] == [r["grid, positions 0 to 11"] for r in grids]
        assert all(cell is None for grid in view["grids"] for cell in grid), "all face down"
        assert [view["discard_top"]] == row["discard pile"]
        assert view["draw_size"] == row["draw pile size"]
    for row in vectors("Vectors: Warp 99 piles, reserve and rule cards"):
        game = get_game("warp99")
        options = {"random_start_sides": row["random_start_sides"]}
        view = game.open_view(game.new_game(row["seats"], options, row["seed"]))
        decks = _by_deal(vectors("Vectors: Warp 99 hands and decks"))[row["seed"], row["seats"]]
        assert view["hands"] == [r["hand"] for r in decks]
        assert [p["top"] for p in view["piles"]] == [row["pile 0"][-1], row["pile 1"][-1]]
        assert view["rules"] == [rule.value for rule in face_up(tuple(row["sides"]))]
        assert view["reserve_size"] == row["reserve size"]
    for row in vectors("Vectors: Floor opener and draw pile"):
        game = get_game("floor")
        view = game.open_view(game.new_game(row["seats"], {}, row["seed"]))
        hands = _by_deal(vectors("Vectors: Floor hands"))[row["seed"], row["seats"]]
        assert view["hands"] == [r["hand"] for r in hands]
        assert view["top"] == row["opener"]
        assert view["floor"] == {"shape": row["floor shape"], "number": row["floor number"]}
        assert view["draw_size"] == row["draw pile size"]


# -- (b) the independent implementation against the rules, for random seeds -----------------------


def _seat_counts(game_id: str) -> range:
    game = get_game(game_id)
    return range(game.min_seats, game.max_seats + 1)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    seed=SEEDS,
    n=st.one_of(st.integers(1, 200), st.integers(1, TWO_64 - 1), st.just((1 << 63) + 1)),
    items=st.lists(st.integers(0, 999), max_size=40),
)
def test_spec_generator_below_and_shuffle_match_rules_rng(
    seed: int, n: int, items: list[int]
) -> None:
    assert SPEC.outputs(seed, 3) == RULES.outputs(seed, 3)
    assert SPEC.below(seed, n) == RULES.below(seed, n)
    assert SPEC.shuffle(seed, items) == RULES.shuffle(seed, items)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(seed=SEEDS)
def test_spec_number_swap_deal_matches_the_rules_for_every_seat_count(seed: int) -> None:
    for seats in _seat_counts("numberswap"):
        assert SPEC.number_swap(seed, seats) == RULES.number_swap(seed, seats)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(seed=SEEDS)
def test_spec_warp99_deal_matches_the_rules_for_every_seat_count_and_side_option(
    seed: int,
) -> None:
    for seats in _seat_counts("warp99"):
        for random_start_sides in (False, True):
            spec = SPEC.warp99(seed, seats, random_start_sides)
            assert spec == RULES.warp99(seed, seats, random_start_sides)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(seed=SEEDS)
def test_spec_floor_deal_matches_the_rules_for_every_seat_count(seed: int) -> None:
    for seats in _seat_counts("floor"):
        assert SPEC.floor(seed, seats) == RULES.floor(seed, seats)


# -- (b) later draws -------------------------------------------------------------------------------

NS = get_game("numberswap")
Policy = Callable[[list[dict[str, Any]], Any], dict[str, Any]]


def _play(state: Any, seat: int, action: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
    """Apply a legal action through the checked entry point."""
    assert action in NS.legal_view(state, seat), action
    after, events = NS.apply(state, seat, action)
    return after, events


def _keep_the_round_going(legal: list[dict[str, Any]], state: Any) -> dict[str, Any]:
    """Turn up positions 0 and 1 (one column), then draw and swap into position 0: the grid
    keeps ten face-down cards and no column clears, so the round never ends."""
    if state.phase.value == "choose":
        return {"type": "flip_initial", "positions": [0, 1]}
    if state.drawn is None:
        return {"type": "draw"}
    return {"type": "swap_drawn", "position": 0}


def _end_the_round(legal: list[dict[str, Any]], state: Any) -> dict[str, Any]:
    """Turn up 0 and 1, then draw and throw the card away turning up the lowest face-down
    position (or, with none left, swap into the first present one); then the next round."""
    if state.phase.value == "choose":
        return {"type": "flip_initial", "positions": [0, 1]}
    if state.phase.value == "round_end":
        return {"type": "next_round"}
    if state.drawn is None:
        return {"type": "draw"}
    flips = [a for a in legal if a["type"] == "discard_drawn"]
    return min(flips, key=lambda a: int(a["flip"])) if flips else legal[0]


def _drive(
    seed: int, seats: int, policy: Policy, stop: Callable[[Any, list[dict[str, Any]]], bool]
) -> tuple[Any, SplitMix64, int]:
    """Play Number Swap with ``policy`` from a SPEC-checked deal, checking every draw against
    SPEC's draw (its reshuffles included), until ``stop``; returns the state, SPEC's generator
    carried along, and how many reshuffles happened."""
    gen = SplitMix64(seed)
    deal = spec_number_swap_deal(gen, seats)
    state = NS.new_game(seats, {"target_score": 1000}, seed)
    assert deal == RULES.number_swap(seed, seats)
    reshuffles = 0
    for _ in range(5000):
        seat = min(NS.to_act(state))
        action = policy(NS.legal_view(state, seat), state)
        before = state
        state, events = _play(state, seat, action)
        if action["type"] == "draw":
            assert gen.state == before.rng.state, "nothing but a reshuffle draws in a round"
            card, draw, discard = spec_number_swap_draw(gen, before.draw, before.discard)
            reshuffled = [e for e in events if e["type"] == "reshuffled"]
            assert len(reshuffled) == (0 if before.draw else 1)
            if reshuffled:
                reshuffles += 1
                assert reshuffled[0]["draw_size"] == len(draw) + 1
            assert (state.drawn, state.draw, state.discard) == (card, draw, discard)
            assert state.rng.state == gen.state
        if stop(state, events):
            return state, gen, reshuffles
    raise AssertionError("the game never got there")


@settings(derandomize=True, max_examples=200, deadline=None)
@given(seed=SEEDS, seats=st.integers(2, 8))
def test_spec_number_swap_reshuffle_matches_a_game_played_to_its_first_reshuffle(
    seed: int, seats: int
) -> None:
    def reshuffled(state: Any, events: list[dict[str, Any]]) -> bool:
        return any(e["type"] == "reshuffled" for e in events)

    state, gen, reshuffles = _drive(seed, seats, _keep_the_round_going, reshuffled)
    assert reshuffles == 1
    # The reshuffle used one draw per position but the first of the discard pile below its top.
    assert state.rng.state == gen.state
    assert len(state.discard) == 1


@settings(derandomize=True, max_examples=100, deadline=None)
@given(seed=SEEDS, seats=st.integers(2, 8))
def test_spec_number_swap_next_round_is_dealt_by_the_generator_after_the_last_reshuffle(
    seed: int, seats: int
) -> None:
    def round_two(state: Any, events: list[dict[str, Any]]) -> bool:
        return bool(state.round == 2)

    before_deal: list[int] = []

    def ready(legal: list[dict[str, Any]], state: Any) -> dict[str, Any]:
        if state.phase.value == "round_end" and not before_deal:
            before_deal.append(state.rng.state)
        return _end_the_round(legal, state)

    state, gen, _ = _drive(seed, seats, ready, round_two)
    assert before_deal == [gen.state], "scoring a round draws nothing"
    deal = spec_number_swap_deal(gen, seats)
    assert tuple(g.cards for g in state.grids) == deal.grids
    assert not any(any(g.up) for g in state.grids)
    assert (state.discard, state.draw, state.rng.state) == (deal.discard, deal.draw, deal.state)


def test_a_number_swap_round_with_eight_seats_reshuffles_before_the_next_deal() -> None:
    """The next-round test above also covers a round that reshuffled (53 cards to draw from,
    about ten draws a seat)."""

    def round_two(state: Any, events: list[dict[str, Any]]) -> bool:
        return bool(state.round == 2)

    state, gen, reshuffles = _drive(0x0123456789ABCDEF, 8, _end_the_round, round_two)
    assert reshuffles >= 1
    deal = spec_number_swap_deal(SplitMix64(gen.state), 8)
    assert tuple(g.cards for g in state.grids) == deal.grids


@settings(derandomize=True, max_examples=200, deadline=None)
@given(seed=SEEDS, seats=st.integers(2, 8), data=st.data())
def test_spec_floor_draw_reshuffles_the_discard_below_its_top_as_take_from_pile_does(
    seed: int, seats: int, data: st.DataObject
) -> None:
    gen = SplitMix64(seed)
    deal = spec_floor_deal(gen, seats)
    state = get_game("floor").new_game(seats, {}, seed)
    assert deal == RULES.floor(seed, seats)
    # Keep the bottom ``kept`` cards of the draw pile; the rest lie under the opener.
    kept = data.draw(st.one_of(st.just(0), st.integers(0, len(deal.draw))), label="kept")
    draw, discard = deal.draw[:kept], (*deal.draw[kept:], *deal.discard)
    bottom = data.draw(st.booleans(), label="bottom")
    count = 1 if bottom else data.draw(st.integers(1, len(draw) + len(discard) + 2), label="n")
    state = dataclasses.replace(state, draw=draw, discard=discard)
    seat = data.draw(st.integers(0, seats - 1), label="seat")
    after, events = take_from_pile(state, seat, count, bottom=bottom)
    taken, spec_draw, spec_discard = spec_floor_take(gen, draw, discard, count, bottom=bottom)
    assert after.hands[seat] == tuple(sorted((*deal.hands[seat], *taken)))
    assert (after.draw, after.discard, after.rng.state) == (spec_draw, spec_discard, gen.state)
    reshuffled = any(e["type"] == "reshuffled" for e in events)
    assert reshuffled == (gen.state != deal.state)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(seed=SEEDS, seats=st.integers(2, 6), data=st.data())
def test_spec_warp99_new_deck_rebuilds_the_reserve_from_the_piles_and_scored_cards_as_the_table(
    seed: int, seats: int, data: st.DataObject
) -> None:
    random_start_sides = data.draw(st.booleans(), label="random_start_sides")
    gen = SplitMix64(seed)
    deal = spec_warp99_deal(gen, seats, random_start_sides)
    options = {"random_start_sides": random_start_sides}
    state = get_game("warp99").new_game(seats, options, seed)
    assert deal == RULES.warp99(seed, seats, random_start_sides)
    # The reserve keeps its top ``kept`` cards; ``pool`` of the others go under the pile tops
    # and into the scored cards (the rest leave the game: a pool too small, or none at all).
    reserve = deal.reserve
    kept = data.draw(st.one_of(st.integers(0, 17), st.just(0)), label="kept")
    under = reserve[: len(reserve) - kept]
    pool = data.draw(st.one_of(st.just(len(under)), st.integers(0, len(under))), label="pool")
    under = under[:pool]
    a = data.draw(st.integers(0, len(under)), label="a")
    b = data.draw(st.integers(a, len(under)), label="b")
    piles = ((*under[:a], *deal.piles[0]), (*under[a:b], *deal.piles[1]))
    scored = tuple(under[b:])
    state = dataclasses.replace(
        state, reserve=reserve[len(reserve) - kept :], piles=piles, scored=scored
    )
    table = Table(state)
    deck = table.take_from_reserve(15)
    spec = spec_warp99_new_deck(gen, state.reserve, piles, scored)
    assert (deck, table.reserve, tuple(table.piles), table.scored) == spec
    assert table.rng.state == gen.state
    rebuilt = any(e["type"] == "reserve_rebuilt" for e in table.events)
    assert rebuilt == (kept < 15 and bool(under))
