"""Floor's bots, at three levels (``docs/rules/floor.md``, "Bots").

Every level chooses from the compact options of :func:`rules.floor.options.options` (never the
full list of actions), so it stays quick whatever the size of its hand, and it reads only what
the seat's view shows: its own hand, the floor, the top card, the hand sizes and what is
pending. (``options`` reads the seat's hand, the floor and the pile sizes, nothing else.)

* ``strong`` scores every kind of play: cards shed, the hand it leaves (something to play next
  turn if the shape stays, a Power kept as the finishing card, answers to Freezes and Takes),
  and tempo: heads-up, a Swap, a Freeze or a Take gives it another move, so it plays those
  first and sheds after. With more players it hits the next player with a Freeze or a Take
  when they are close to finishing, and turns play away from them with a Swap. A hand of
  Powers is played out, so it never stalls. Then it looks ahead (:mod:`rules.floor.bot_search`):
  when its best plays are of different kinds, it tries the best of each of the top three kinds
  on eight deals of the cards it cannot see (six with more than two players; drawn from its
  view and ``rng`` only), each followed by two rounds of its heuristic at every seat (two
  actions per seat), and plays the one that leaves it best off (a win, or the fewest cards
  against the smallest other hand). It searches only
  while every hand holds 12 cards or fewer, which bounds a decision's cost.
* ``normal`` is ``strong`` without the look-ahead, with a slip now and then: with a small
  chance it takes its second-best play.
* ``easy`` plays the first Number that fits (no sums, no Operations), hits back when hit,
  and plays Swaps, Powers and attacks only when nothing else fits; now and then (from ``rng``)
  it draws although it could play, or plays any single card that fits.
"""

from __future__ import annotations

from rules.contract import BOT_LEVELS
from rules.floor import bot_search
from rules.floor.actions import (
    AnyAction,
    BurnSwap,
    DiscardOperations,
    Draw,
    Grab,
    Pass,
    PlayFreeze,
    PlayNumbers,
    PlayOperation,
    PlayPower,
    PlaySwap,
    PlayTake,
    ReverseBack,
)
from rules.floor.cards import CARDS, SHAPES, Kind, Shape
from rules.floor.options import Options, options, shapes_of
from rules.floor.state import Phase, State, next_seat
from rules.rng import Rng

_KIND = tuple(card.kind for card in CARDS)
_SHAPE = tuple(card.shape for card in CARDS)
#: The shapes a card may leave the floor in: its own, or any for a card without a shape.
_OWN: tuple[tuple[Shape, ...], ...] = tuple(
    SHAPES if card.shape is None else (card.shape,) for card in CARDS
)
_VALUE = tuple(card.value or 0 for card in CARDS)

#: ``normal``'s chance (in 1,000) of taking its second-best play.
SLIP = 120

#: A play's worth: (score, action). Higher is better.
Scored = tuple[float, AnyAction]


def choose(
    state: State, seat: int, rng: Rng, level: str = "normal", *, search: bool = True
) -> AnyAction:
    """The bot's move for ``seat`` at ``level``; an unknown level raises ValueError."""
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}: one of {', '.join(BOT_LEVELS)}")
    opts = options(state, seat)
    if opts.charged:
        # Reversing back costs nothing and gives this seat the next move.
        return ReverseBack()
    if opts.passing:
        return Pass()
    if state.phase is Phase.FREEZE:
        return _answer_freeze(opts, level)
    if state.phase is Phase.TAKE:
        if opts.takes:
            # The bigger Take sends the bigger stack on (easy: whichever comes first).
            pick = opts.takes[0] if level == "easy" else max(opts.takes, key=lambda c: _VALUE[c])
            return PlayTake(card=pick)
        return Draw()
    if level == "easy":
        return _easy(state, seat, opts, rng)
    ranked = sorted(_candidates(state, seat, opts), key=lambda m: m[0], reverse=True)
    if level == "normal" and len(ranked) > 1 and ranked[0][0] - ranked[1][0] < 6:
        roll, _ = rng.below(1000)
        # A slip: the second-best play, but never instead of a win.
        if roll < SLIP and ranked[0][0] < WIN:
            return ranked[1][1]
    if search and level == "strong" and ranked[0][0] < WIN and len(ranked) > 1:
        small = max(len(h) for h in state.hands) <= SEARCH_HANDS
        shortlist = _shortlist(ranked) if small else []
        if len(shortlist) > 1:
            heads_up = state.seats == 2
            samples = SAMPLES if heads_up else SAMPLES_TABLE
            depth = DEPTH_PER_SEAT * state.seats
            return bot_search.pick(state, seat, shortlist, _playout, rng, samples, depth)
    return ranked[0][1]


# -- strong's search ------------------------------------------------------------------------

#: How many candidates the search weighs (the best play of each kind), and how many deals:
#: ``SAMPLES`` heads-up, ``SAMPLES_TABLE`` with more players (their playouts are longer).
CANDIDATES = 3
SAMPLES = 8
SAMPLES_TABLE = 6
#: A candidate further than this below the heuristic's best is not worth a playout.
MARGIN = 40.0
#: Actions played after a candidate before the playout is scored by the hand sizes, per seat
#: at the table: two rounds of play, 4 actions heads-up, 16 at 8 seats. Short playouts
#: measured better than playing to the end heads-up (seed 1 against v1: depth 4, 68.4% of 800
#: games; depth 40, 65.2% of 400) and cost a tenth; at 8 seats against one reference player
#: and six normal bots a fixed depth of 4 (half a round) left strong at its fair share, 12.4%
#: of 1,000 games, and two rounds gave 16.6% (issue 31).
DEPTH_PER_SEAT = 2
#: The search runs only while every hand holds this many cards or fewer: a playout's cost grows
#: fast with the hands (sums and Operations), and this keeps a decision within ~40 ms.
SEARCH_HANDS = 12


def _playout(state: State, seat: int, rng: Rng) -> AnyAction:
    # Every seat plays strong's heuristic in the playouts (no search inside a search; it
    # measured a little better than normal's slips: 68.4% against 67.2%).
    return choose(state, seat, rng, "strong", search=False)


def _shortlist(ranked: list[Scored]) -> list[AnyAction]:
    """The heuristic's best play of each kind, best first, when the kinds differ."""
    best = ranked[0][0]
    out: list[AnyAction] = []
    kinds: set[type] = set()
    for score, action in ranked:
        if best - score > MARGIN or len(out) >= CANDIDATES:
            break
        if type(action) not in kinds:
            kinds.add(type(action))
            out.append(action)
    return out


def _answer_freeze(opts: Options, level: str) -> AnyAction:
    if level == "easy":
        if opts.freezes:
            return PlayFreeze(card=opts.freezes[0])
        return Draw() if opts.draw else DiscardOperations(cards=opts.discards[0])
    # Discarding Operations sheds two or three cards and keeps the turn: better than sending
    # the Freeze back.
    if opts.discards:
        return DiscardOperations(cards=max(opts.discards, key=len))
    if opts.freezes:
        return PlayFreeze(card=opts.freezes[0])
    return Draw()


# -- strong ---------------------------------------------------------------------------------

WIN = 1_000_000.0
#: Worth of each card shed.
SHED = 10.0


def _sums(hand: list[int], number: int) -> bool:
    """Whether two or three of the hand's Numbers add up to ``number``."""
    values = sorted(_VALUE[c] for c in hand if _KIND[c] is Kind.NUMBER and _VALUE[c] <= number)
    n = len(values)
    seen: set[int] = set()
    for i in range(n):
        for j in range(i + 1, n):
            pair = values[i] + values[j]
            if pair == number:
                return True
            if pair < number:
                seen.add(pair)
    if not seen:
        return False
    for i in range(n):
        for j in range(i + 1, n):
            rest = number - values[i] - values[j]
            if rest >= 0 and rest in values[j + 1 :]:
                return True
    return False


def _quality(hand: list[int], shape: Shape | None, number: int | None = None) -> float:
    """How good a hand is to hold after this move, if the Floor Shape stays ``shape``.

    A single Number must follow the shape, so the shape a player leaves often survives the next
    player's move; cards of that shape are the likely plays next turn.
    """
    fits = powers = answers = ops = swaps = numbers = 0
    for c in hand:
        kind = _KIND[c]
        if kind is Kind.NUMBER:
            numbers += 1
            if shape is None or _SHAPE[c] is shape:
                fits += 1
        elif kind is Kind.POWER:
            powers += 1
        elif kind is Kind.OPERATION:
            ops += 1
        elif kind is Kind.SWAP:
            swaps += 1
        else:
            answers += 1
            if shape is None or _SHAPE[c] is shape:
                fits += 1
    score = 1.5 * fits + (4.0 if fits or powers else 0.0)
    if powers:
        # One Power is the finishing card: it can always be played last.
        score += 7.0 + 1.5 * (powers - 1)
    # A Freeze or a Take answers the attacks that come when a hand runs low, and, as the last
    # card, sending one back wins.
    score += (6.0 if len(hand) <= 3 else 1.0) * min(answers, 1) + 1.0 * answers
    if ops > numbers:
        score -= 3.0 * (ops - numbers)
    if swaps and len(hand) <= 2:
        score -= 2.0
    if number is not None:
        # Next turn's sums, if the number stays; and a low number leaves the others few sums.
        if _sums(hand, number):
            score += 4.0
        score -= 0.3 * number
    return score


def _best_shape(
    hand: list[int], allowed: tuple[Shape, ...], number: int | None, deny: dict[Shape, float]
) -> tuple[Shape, float]:
    scored = [(_quality(hand, s, number) - deny[s], -i, s) for i, s in enumerate(allowed)]
    q, _, best = max(scored)
    return best, q


#: Heads-up, the tempo a Take or a Freeze is worth (the other player loses a turn).
ATTACK_HEADS_UP = 25.0
#: Heads-up, the tempo a Swap is worth (the same seat moves again).
SWAP_HEADS_UP = 20.0
#: Heads-up, attacks are played at once only while the other player holds this many cards or
#: fewer; before that they are worth ``ATTACK_EARLY``.
HOLD_UNTIL = 99
ATTACK_EARLY = 25.0

#: How much leaving a shape is worth avoiding, scaled by how likely the next player holds it.
DENY = 60.0


def _denial(state: State, seat: int, target: int) -> dict[Shape, float]:
    """Per shape, the cost of leaving it to ``target``: how likely a card of it is among the
    cards this seat cannot see (a shape this seat holds much of is one the others lack)."""
    danger = DENY
    if target == seat:
        return dict.fromkeys(SHAPES, 0.0)
    # 20 Numbers, a Freeze and two Takes of each shape; the seat sees its hand and the top card.
    unseen = dict.fromkeys(SHAPES, 23)
    visible = [*state.hands[seat], *state.discard[-1:]]
    for c in visible:
        shape = _SHAPE[c]
        if shape is not None:
            unseen[shape] -= 1
    total = len(CARDS) - len(visible)
    return {s: danger * unseen[s] / total for s in SHAPES}


def _rest(hand: tuple[int, ...], played: tuple[int, ...]) -> list[int]:
    gone = set(played)
    return [c for c in hand if c not in gone]


def _candidates(state: State, seat: int, opts: Options) -> list[Scored]:
    hand = state.hands[seat]
    sizes = [len(h) for h in state.hands]
    heads_up = state.seats == 2
    following = next_seat(state, seat)
    behind = next_seat(state, seat, -state.direction)
    out: list[Scored] = []

    floor = state.floor_number
    deny = _denial(state, seat, following)

    def shed(
        played: tuple[int, ...],
        allowed: tuple[Shape, ...],
        bonus: float,
        deny: dict[Shape, float] = deny,
    ) -> float:
        rest = _rest(hand, played)
        if not rest:
            return WIN
        _, q = _best_shape(rest, allowed, floor, deny)
        return SHED * len(played) + q + bonus

    for play in opts.numbers:
        rest = _rest(hand, play.cards)
        allowed = shapes_of(play.cards)
        number = _VALUE[play.cards[0]] if len(play.cards) == 1 else floor
        shape, q = _best_shape(rest, allowed, number, deny)
        score = WIN if not rest else SHED * len(play.cards) + q
        out.append((score, PlayNumbers(cards=play.cards, shape=shape)))
    riders = dict(opts.riders)
    for choice in opts.operations:
        card = choice.cards[0]
        for x, result in choice.operands:
            for ride in ((), *(r.cards for r in riders[result] if x not in r.cards)):
                played = (card, x, *ride)
                rest = _rest(hand, played)
                shape, q = _best_shape(rest, shapes_of((x, *ride)), result, deny)
                score = WIN if not rest else SHED * len(played) + q
                out.append((score, PlayOperation(card=card, operand=x, riders=ride, shape=shape)))
    # Tempo: heads-up, an attack the other player cannot answer gives this seat the next move
    # with the floor unchanged; with more players it costs the next player a turn.
    threat = sizes[following]
    if heads_up:
        attack = ATTACK_HEADS_UP if threat <= HOLD_UNTIL else ATTACK_EARLY
    else:
        attack = 2.0 + (12.0 if threat <= 2 else 6.0 if threat <= 3 else 0.0)
    for take in sorted(opts.takes, key=lambda c: -_VALUE[c]):
        allowed = _OWN[take]
        bonus = attack + (1.0 if _VALUE[take] == 2 else 0.0)
        out.append((shed((take,), allowed, bonus), PlayTake(card=take)))
    for freeze in opts.freezes:
        allowed = _OWN[freeze]
        out.append((shed((freeze,), allowed, attack + 2.0), PlayFreeze(card=freeze)))
    for swap in opts.swaps[:1]:
        charged = sizes[following] == 2
        if heads_up:
            # Not charged, a Swap is a free card: the same seat moves again.
            bonus = -8.0 if charged else SWAP_HEADS_UP
        elif charged:
            bonus = -8.0
        else:
            # Turn play away from the next player when they are closer to finishing.
            bonus = 3.0 * (sizes[behind] - sizes[following]) - 2.0
            bonus = max(-6.0, min(bonus, 12.0))
        keep = (state.floor_shape,) if state.floor_shape else SHAPES
        turned = _denial(state, seat, seat if heads_up else behind)
        out.append((shed((swap,), keep, bonus, turned), PlaySwap(card=swap)))
    for power in opts.powers[:1]:
        rest = _rest(hand, (power,))
        if not rest:
            out.append((WIN, PlayPower(card=power, shape=SHAPES[0])))
            continue
        shape, q = _best_shape(rest, SHAPES, floor, deny)
        score = SHED + q - 2.0
        if len(opts.powers) == 1 and len(hand) > 3:
            score = -60.0
        out.append((score, PlayPower(card=power, shape=shape)))
    for burn in opts.burns:
        out.append((SHED - 5.0, BurnSwap(card=burn)))
    if opts.grab is not None:
        kind = _KIND[opts.grab]
        grabbed = [*hand, opts.grab]
        out.append((-SHED + _quality(grabbed, None) + (3.0 if kind is Kind.POWER else 0.0), Grab()))
    if opts.draw:
        # Drawing only when nothing else is open: the bot must never stall.
        out.append((-50.0, Draw()))
    return out


# -- easy -----------------------------------------------------------------------------------


#: ``easy``'s chance (in 1,000) of drawing although it could play (never with a hand that
#: cannot wait: only Powers, or one card).
EASY_DRAW = 175
#: ``easy``'s chance (in 1,000) of playing any single card that fits instead of its rule.
EASY_ANY = 175


def _easy(state: State, seat: int, opts: Options, rng: Rng) -> AnyAction:
    """A beginner: the first Number that fits, before any sum; specials only when stuck.

    Now and then (from ``rng``) it draws although it could play, or plays whichever single
    card fits, as a new player does who has not looked at the whole hand.
    """
    hand = state.hands[seat]
    roll, rng = rng.below(1000)
    can_wait = len(hand) > 1 and any(_KIND[c] is not Kind.POWER for c in hand)
    if roll < EASY_DRAW and opts.draw and can_wait:
        return Draw()
    if roll < EASY_DRAW + EASY_ANY:
        fitting: list[AnyAction] = [
            PlayNumbers(cards=p.cards, shape=shapes_of(p.cards)[0])
            for p in opts.numbers
            if len(p.cards) == 1
        ]
        fitting += [PlayTake(card=c) for c in opts.takes]
        fitting += [PlayFreeze(card=c) for c in opts.freezes]
        fitting += [PlaySwap(card=c) for c in opts.swaps]
        if fitting:
            pick, _ = rng.choice(fitting)
            return pick
    # The shape it names: the one it holds most of (a beginner's rule of thumb).
    counts = {s: sum(1 for c in hand if _SHAPE[c] is s) for s in SHAPES}

    def name(allowed: tuple[Shape, ...]) -> Shape:
        return max(allowed, key=lambda s: counts[s])

    singles = [p for p in opts.numbers if len(p.cards) == 1]
    if singles:
        play = singles[0]
        return PlayNumbers(cards=play.cards, shape=shapes_of(play.cards)[0])
    if opts.takes:
        return PlayTake(card=opts.takes[0])
    if opts.freezes:
        return PlayFreeze(card=opts.freezes[0])
    if opts.numbers:
        play = opts.numbers[0]
        return PlayNumbers(cards=play.cards, shape=name(shapes_of(play.cards)))
    if opts.operations:
        choice = opts.operations[0]
        x, _ = choice.operands[0]
        return PlayOperation(card=choice.cards[0], operand=x, shape=name(shapes_of((x,))))
    if opts.swaps:
        return PlaySwap(card=opts.swaps[0])
    if opts.powers:
        return PlayPower(card=opts.powers[0], shape=name(SHAPES))
    if opts.burns:
        return BurnSwap(card=opts.burns[0])
    if opts.draw:
        return Draw()
    return Grab()
