"""Number Swap's bots, at three levels (``docs/rules/numberswap.md``, "Bots").

They read only what every seat sees: the face-up cards of every grid, the top discard, the
drawn card, how many cards are face down, how many are left in the draw pile, who (if anyone)
has ended the round.

* ``strong`` values a face-down card at the mean of the cards it has not seen (the deck's
  composition, ``cards.DECK_COUNTS``, less every face-up card, the top discard and the drawn
  card). It compares taking the discard with the expected outcome of drawing (every value the
  draw could bring, weighted by how many are unseen), swaps where the grid total drops most,
  counts a column of three equal values as gone, and builds pairs toward one. It goes out (turns
  up its last face-down card) only when it is very likely to be strictly lowest, even after
  every other seat mends its grid by ``MEND_STRONG`` on its last turn; and R7's doubling
  weighs ``RISK_STRONG`` times its expected cost. Otherwise it keeps a face-down card and
  plays on. With more than two players it values a pair toward a clear more than the other
  levels do (``PAIR_STRONG``).
  It never takes a discard that leaves its grid no better (that only puts off drawing), and in
  a standoff (every seat down to one face-down card, the pile drawn low) it now and then goes
  out anyway, so that bots never wait for each other for ever.
* ``normal`` is ``strong`` expecting less of the others' last turns (``MEND``) and weighing
  the doubling at its expected cost, with a slip now and then: with a small chance it takes
  its second-best move.
* ``easy`` keeps any low card it sees, never hunts columns, turns up cards in order, and goes
  out without looking at the others' grids.

Played by text (R11), every level picks its two cards (blind on a last turn, or as the round's
ender first thing in the next) at random in two different columns.
"""

from __future__ import annotations

import math

from rules.contract import BOT_LEVELS
from rules.numberswap.actions import (
    AnyAction,
    DiscardDrawn,
    Draw,
    FlipInitial,
    NextRound,
    PickFlips,
    SwapDrawn,
    TakeDiscard,
)
from rules.numberswap.cards import COLUMNS, DECK_COUNTS, ROWS
from rules.numberswap.state import Grid, Phase, State, must_pick, picks_up, to_act
from rules.rng import Rng

#: ``normal``'s chance (in 1,000) of taking its second-best move.
SLIP = 100
#: In a standoff (see ``_standoff``), the chance (in 1,000) that a decision ignores R7's
#: doubling risk.
BOLD = 150
#: How heavily ``strong`` weighs the chance of being doubled for going out (``normal``: 1,
#: the expected loss as it is; more is warier).
RISK_STRONG = 3.0
#: How much every other seat is expected to lower its grid on the last turn going out gives
#: it, ``strong``'s and the other levels'. More is warier.
MEND_STRONG = 5.0
MEND = 1.5
#: How a pair of equal face-up values in a full column counts toward clearing it (R5): the
#: column's expected total drops by ``weight`` x the chance that the third card comes
#: (``3 x`` its share of the unseen cards, at most ``cap``). ``strong`` hunts clears harder
#: with more than two players: to win it must end lowest of many, and a clear is the big swing
#: that does it (issue 31: 8 seats against one reference player and six normal bots, 1,000
#: games each, 17.4% -> 20.7% and 20.6%). Heads-up it gains nothing (71.3% -> 72.9% at one
#: seed, 68.5% -> 66.5% at another), so there it weighs pairs as the other levels do.
PAIR_STRONG = (0.9, 0.75)
PAIR = (0.6, 0.5)
#: A standoff needs the draw pile under this many cards (it has been drawn down).
LOW_PILE = 20
#: ``easy`` keeps a card at or below this.
EASY_KEEP = 3

Cells = tuple[tuple[int | None, bool], ...]


def choose(state: State, seat: int, rng: Rng, level: str = "normal") -> AnyAction | None:
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}: one of {', '.join(BOT_LEVELS)}")
    if seat not in to_act(state):
        raise ValueError("seat may not act")
    if state.phase is Phase.ROUND_END:
        # A bot has nothing to read: it is ready at once (the server paces it).
        return NextRound()
    grid = state.grids[seat]
    if state.phase is Phase.CHOOSE:
        down = grid.face_down()
        first, rng = rng.below(len(down))
        second, rng = rng.below(len(down) - 1)
        second += second >= first
        return FlipInitial(positions=(down[first], down[second]))
    if seat != state.current:
        # Only an undo is open to this seat; a bot never takes its moves back.
        return None
    if must_pick(state):
        return _pick(grid, rng, blind=not picks_up(state))
    if level == "easy":
        return _easy(state, seat)
    roll, rng = rng.below(1000)
    # Now and then, in a standoff, the bot takes the risk of going out anyway (a model that is
    # not careful ignores R7, so its wariness does not matter): two bots that each wait for
    # the other to go out would otherwise play one round for ever.
    bold = roll < BOLD and _standoff(state)
    if level == "strong":
        pairs = PAIR_STRONG if state.seats > 2 else PAIR
        model = _Model(
            state, seat, careful=not bold, risk=RISK_STRONG, mend=MEND_STRONG, pairs=pairs
        )
    else:
        model = _Model(state, seat, careful=not bold)
    ranked = model.ranked()
    if not bold and state.drawn is None and _treading_water(model, ranked[0]):
        # Taking a discard that mends nothing only puts off drawing; two bots doing it in
        # turn would pass the same cards round for ever. Draw instead (the pile runs down,
        # and a standoff, above, can end the round).
        ranked = [m for m in ranked if isinstance(m[1], Draw)]
    if level == "normal" and len(ranked) > 1:
        roll, _ = rng.below(1000)
        # A slip: the second-best move, when it is not much worse.
        if roll < SLIP and ranked[1][0] - ranked[0][0] < 3.0:
            return ranked[1][1]
    return ranked[0][1]


def _standoff(state: State) -> bool:
    """Every seat is down to one face-down card or none and the pile has been drawn low: each
    is waiting for another to go out. Both facts are on the table for every seat to see."""
    return len(state.draw) < LOW_PILE and all(g.face_down_count() <= 1 for g in state.grids)


def _treading_water(model: _Model, best: tuple[float, AnyAction]) -> bool:
    """The best careful move is a discard taken that leaves the seat's grid no better."""
    value, action = best
    cells = _cells(model.state.grids[model.seat])
    return isinstance(action, TakeDiscard) and value >= model.estimate(cells) - 1e-9


def _pick(grid: Grid, rng: Rng, *, blind: bool) -> PickFlips:
    """R11, at every level: two cards at random in two different columns (one card up in
    each of two columns starts two pairs toward a clear; nothing is known of the cards). A
    blind pick names positions of the next grid, so any of the twelve will do."""
    spots = tuple(range(len(grid.cards))) if blind else grid.face_down()
    first, rng = rng.below(len(spots))
    others = [p for p in spots if p // ROWS != spots[first] // ROWS] or [
        p for p in spots if p != spots[first]
    ]
    second, _ = rng.below(len(others))
    return PickFlips(positions=(spots[first], others[second]))


# -- strong ----------------------------------------------------------------------------------


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


class _Model:
    """The seat's estimate of every grid, from what it can see."""

    def __init__(
        self,
        state: State,
        seat: int,
        *,
        careful: bool = True,
        risk: float = 1.0,
        mend: float = MEND,
        pairs: tuple[float, float] = PAIR,
    ) -> None:
        self.state = state
        self.careful = careful
        self.risk = risk
        self.mend = mend
        self.pair_weight, self.pair_cap = pairs
        self.seat = seat
        pool = dict(DECK_COUNTS)
        seen: list[int] = [
            c
            for g in state.grids
            for c, up in zip(g.cards, g.up, strict=True)
            if up and c is not None
        ]
        if state.discard:
            seen.append(state.discard[-1])
        if state.drawn is not None:
            seen.append(state.drawn)
        for c in seen:
            if pool.get(c, 0) > 0:
                pool[c] -= 1
        total = sum(pool.values()) or 1
        self.pool = pool
        self.total = total
        self.mean = sum(v * n for v, n in pool.items()) / total
        self.var = sum(n * (v - self.mean) ** 2 for v, n in pool.items()) / total
        self.last_turn = state.ender is not None
        self._base_of: Cells | None = None
        self._base: list[float] = []
        others = [s for s in range(state.seats) if s != seat]
        self.others = [
            (self.estimate(_cells(state.grids[s])), state.grids[s].face_down_count())
            for s in others
        ]

    def column(self, column: Cells) -> float:
        """A column's expected total, counting a pair that may yet clear it (R5)."""
        ups = [c for c, up in column if up and c is not None]
        down = sum(1 for c, up in column if c is not None and not up)
        if not ups and not down:
            return 0.0
        value = sum(ups) + self.mean * down
        if len(ups) >= 2 and down + len(ups) == ROWS:
            # Two equal face-up values: the third may yet come and clear the column.
            for w in set(ups):
                if ups.count(w) == 2 and w > 0:
                    chance = min(self.pair_cap, 3.0 * self.pool.get(w, 0) / self.total)
                    value -= self.pair_weight * chance * value
        return value

    def estimate(self, cells: Cells) -> float:
        """A grid's expected total (lower is better)."""
        return sum(self.column(cells[i * ROWS : i * ROWS + ROWS]) for i in range(COLUMNS))

    def outcome(self, cells: Cells, mine: float | None = None) -> float:
        """The seat's expected round score with this grid, counting R7's doubling."""
        if mine is None:
            mine = self.estimate(cells)
        down = sum(1 for c, up in cells if c is not None and not up)
        if down or self.last_turn or not self.careful:
            return mine
        # Going out: every other seat gets one more turn, then all is shown.
        safe = 1.0
        for est, their_down in self.others:
            sd = math.sqrt(their_down * self.var + 6.0)
            safe *= 1.0 - _phi((mine + 0.5 - (est - self.mend)) / sd)
        if mine <= 0:
            return mine - 1.0
        return mine + self.risk * mine * (1.0 - safe)

    def ranked(self) -> list[tuple[float, AnyAction]]:
        state = self.state
        cells = _cells(state.grids[self.seat])
        if state.drawn is not None:
            return sorted(self._with(cells, state.drawn), key=lambda m: m[0])
        top = state.discard[-1]
        moves: list[tuple[float, AnyAction]] = [
            (self._placed(cells, p, top), TakeDiscard(position=p))
            for p, (c, _) in enumerate(cells)
            if c is not None
        ]
        # Drawing: the best answer to every value the draw could bring.
        expected = 0.0
        for value, n in self.pool.items():
            if n:
                expected += n * min(s for s, _ in self._with(cells, value, exact=False))
        moves.append((expected / self.total, Draw()))
        return sorted(moves, key=lambda m: m[0])

    def _with(self, cells: Cells, card: int, exact: bool = True) -> list[tuple[float, AnyAction]]:
        """Every way to play a drawn ``card``: swap it in, or throw it and turn a card up."""
        out: list[tuple[float, AnyAction]] = []
        down = sum(1 for c, up in cells if c is not None and not up)
        unchanged = self.outcome(cells) if down > 1 else 0.0
        for p, (c, up) in enumerate(cells):
            if c is None:
                continue
            out.append((self._placed(cells, p, card), SwapDrawn(position=p)))
            if not up:
                # Not going out, a turned card is worth the mean, as it was face down.
                score = self._mean_flip(cells, p) if exact or down == 1 else unchanged
                out.append((score, DiscardDrawn(flip=p)))
        return out

    def _placed(self, cells: Cells, p: int, card: int) -> float:
        """outcome() of the grid with ``card`` placed at ``p``: only its column changes."""
        after = _place(cells, p, card)
        col = p // ROWS
        if self._base_of is not cells:
            self._base_of = cells
            self._base = [self.column(cells[i * ROWS : i * ROWS + ROWS]) for i in range(COLUMNS)]
        mine = (
            sum(self._base) - self._base[col] + self.column(after[col * ROWS : col * ROWS + ROWS])
        )
        return self.outcome(after, mine)

    def _mean_flip(self, cells: Cells, pos: int) -> float:
        """Expected outcome of turning up the face-down card at ``pos``, over its values."""
        total = 0.0
        for value, n in self.pool.items():
            if n:
                total += n * self._placed(cells, pos, value)
        return total / self.total


def _cells(grid: Grid) -> Cells:
    return tuple(zip(grid.cards, grid.up, strict=True))


def _place(cells: Cells, p: int, card: int) -> Cells:
    """The grid with ``card`` face up at ``p``, its column cleared if three now match (R5)."""
    out = list(cells)
    out[p] = (card, True)
    col = p // ROWS
    column = out[col * ROWS : col * ROWS + ROWS]
    if all(up and c == card for c, up in column):
        for q in range(col * ROWS, col * ROWS + ROWS):
            out[q] = (None, False)
    return tuple(out)


# -- easy ------------------------------------------------------------------------------------


def _easy(state: State, seat: int) -> AnyAction:
    grid = state.grids[seat]
    card = state.discard[-1] if state.drawn is None else state.drawn
    target = None
    if card <= EASY_KEEP:
        down = grid.face_down()
        ups = [p for p, c in enumerate(grid.cards) if c is not None and grid.up[p]]
        worst = max(ups, key=lambda p: grid.cards[p] or 0, default=None)
        if worst is not None and (grid.cards[worst] or 0) > card + 2:
            target = worst
        elif down:
            target = down[0]
    if state.drawn is None:
        return TakeDiscard(position=target) if target is not None else Draw()
    if target is not None:
        return SwapDrawn(position=target)
    down = grid.face_down()
    if down:
        return DiscardDrawn(flip=down[0])
    highest = max(
        (p for p, c in enumerate(grid.cards) if c is not None), key=lambda p: grid.cards[p] or 0
    )
    return SwapDrawn(position=highest)
