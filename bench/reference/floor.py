"""Floor's reference casual player (issue 31), written from ``docs/rules/floor.md`` alone.

How a decent person plays Floor after reading the rules page, with no look-ahead and no card
counting: it decides only from what its seat sees (``game.view``: its hand, the floor, the hand
sizes, whatever is pending) and the moves the rules allow (``game.legal_actions``).

* A move that empties the hand is taken at once.
* Hit by a charged Swap, it reverses it back (free, and it moves next). Frozen, it freezes back
  if it can, else breaks the Freeze with Operations (it sheds them), else draws. Under a Take
  stack it stacks a Take if it holds one, else draws the stack.
* Otherwise it sheds: the play that gets rid of the most cards (a sum or an Operation with
  riders beats a single Number), naming the shape it holds most of so that it can follow up,
  and not leaving a hand that cannot finish (only Operations or Swaps).
* Freeze and Take are played when the next player is close to going out, or when no Number
  fits. With two players a Swap is a free extra move, so it plays one when it holds something
  to follow with; with more it uses one to turn play away from a player about to go out.
* A Power is kept for last (it may be the winning card) unless nothing else fits.
* It draws only when nothing sensible is playable; with nothing to play, it grabs a Power or
  Swap opener rather than draw blind, and burns a lone Swap.

Ties are broken with ``rnd``, so a game replays from its seed.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from rules.floor.cards import CARDS, Kind

#: How close to going out (cards in hand) a player must be before it is worth hitting.
CLOSE = 3


def _kind(card: int) -> Kind:
    return CARDS[card].kind


def _cards_of(action: Any) -> list[int]:
    """The cards a play takes out of the hand."""
    kind = action.type
    if kind == "number" or kind == "discard_operations":
        return list(action.cards)
    if kind == "operation":
        return [action.card, action.operand, *action.riders]
    if kind in ("freeze", "take", "swap", "power", "burn"):
        return [action.card]
    return []


def _can_finish(hand: list[int]) -> bool:
    """Whether a hand holds a card that could ever be the last to leave it."""
    return any(_kind(c) not in (Kind.OPERATION, Kind.SWAP) for c in hand)


def _shape_counts(hand: list[int]) -> Counter[str]:
    return Counter(str(CARDS[c].shape) for c in hand if _kind(c) is Kind.NUMBER and CARDS[c].shape)


def _shed_score(action: Any, hand: list[int]) -> float:
    """How good a shedding play (Numbers, an Operation) looks: cards shed first, then a floor
    shape it can follow on, then leaving a hand that can still finish."""
    played = _cards_of(action)
    rest = [c for c in hand if c not in played]
    score = 10.0 * len(played)
    shape = str(action.shape) if action.shape is not None else None
    if shape is None:
        shapes = {str(CARDS[c].shape) for c in played if _kind(c) is Kind.NUMBER}
        shape = next(iter(shapes)) if len(shapes) == 1 else None
    if shape is not None:
        score += 1.5 * _shape_counts(rest)[shape]
    if rest and not _can_finish(rest):
        score -= 25
    # Small numbers are the easy ones to fit into sums later; shed the big ones first.
    score += 0.05 * sum(CARDS[c].value or 0 for c in played if _kind(c) is Kind.NUMBER)
    return score


def _pick(options: list[Any], score: Any, rnd: random.Random) -> Any:
    best = max(score(a) for a in options)
    return rnd.choice([a for a in options if score(a) == best])


def choose(game: Any, state: Any, seat: int, rnd: random.Random) -> Any:
    view = game.view(state, seat)
    legal = game.legal_actions(state, seat)
    if not legal:
        return None
    hand: list[int] = list(view["hand"])
    sizes: list[int] = list(view["hand_sizes"])
    players = len(sizes)
    by_type: dict[str, list[Any]] = {}
    for action in legal:
        by_type.setdefault(action.type, []).append(action)

    def rest_after(action: Any) -> list[int]:
        played = _cards_of(action)
        return [c for c in hand if c not in played]

    # Going out wins at once.
    winning = [a for a in legal if _cards_of(a) and not rest_after(a)]
    if winning:
        return rnd.choice(winning)

    pending = view["pending"]
    if pending is not None:
        kind = pending["kind"]
        if kind == "charged_swap":
            return by_type.get("reverse_back", legal)[0]
        if kind == "freeze":
            if "freeze" in by_type:
                return rnd.choice(by_type["freeze"])
            if "discard_operations" in by_type:
                # Three different Operations shed more than two of a kind.
                return _pick(by_type["discard_operations"], lambda a: len(a.cards), rnd)
        if kind == "take" and "take" in by_type:
            # Stack the bigger Take: the stack is somebody else's now.
            return _pick(by_type["take"], lambda a: CARDS[a.card].value or 0, rnd)
        for fallback in ("draw", "pass"):
            if fallback in by_type:
                return by_type[fallback][0]
        return legal[0]

    nxt = (seat + view["direction"]) % players
    next_close = sizes[nxt] <= CLOSE
    someone_close = any(sizes[s] <= CLOSE for s in range(players) if s != seat)

    sheds = by_type.get("number", []) + by_type.get("operation", [])
    sheds = [a for a in sheds if rest_after(a)]
    hits = [a for a in by_type.get("take", []) + by_type.get("freeze", []) if rest_after(a)]
    swaps = [a for a in by_type.get("swap", []) if _can_finish(rest_after(a))]
    powers = by_type.get("power", [])

    # Hit a player about to go out, before anything else.
    if hits and next_close:
        return _pick(hits, lambda a: CARDS[a.card].value or 1, rnd)
    if swaps and players > 2 and next_close:
        return rnd.choice(swaps)
    # With two players a Swap gives this seat another move: a free card shed.
    if swaps and players == 2 and (sheds or hits or len(hand) > 2):
        return rnd.choice(swaps)

    if sheds:
        best = _pick(sheds, lambda a: _shed_score(a, hand), rnd)
        # A lone Number that leaves the floor on a shape it cannot follow is worth less than a
        # Take or Freeze that hits (it sheds the same card and hurts the next player).
        if hits and len(_cards_of(best)) == 1 and players == 2:
            return rnd.choice(hits)
        return best
    if hits:
        return _pick(hits, lambda a: CARDS[a.card].value or 1, rnd)
    if swaps and (someone_close or len(hand) > 3):
        return rnd.choice(swaps)
    if powers:
        counts = _shape_counts(hand)
        if counts:
            # Name the shape it holds most Numbers of, then play one of them next turn.
            return _pick(powers, lambda a: counts[str(a.shape)], rnd)
    if "grab" in by_type:
        return by_type["grab"][0]
    if "burn" in by_type:
        return by_type["burn"][0]
    if powers:
        return rnd.choice(powers)
    for fallback in ("draw", "pass"):
        if fallback in by_type:
            return by_type[fallback][0]
    return rnd.choice(legal)
