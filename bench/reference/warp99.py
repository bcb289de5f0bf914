"""Warp 99's reference casual player (issue 31), written from ``docs/rules/warp99.md`` alone,
before reading the bots' code (``rules/warp99/policy*.py``, ``bot_search.py``).

How a decent person plays after reading the rules page, with no card counting and no
look-ahead: it decides only from what its seat sees (``game.view``: its hand, every row, the
pile tops, the face-up rules) and the moves the rules allow (``game.legal_actions``).

* Action A: score the row when it has 5 or more cards, or 3 or more and the best card that
  would fit jumps 4 or more above the row's last card (the row is nearly spent); score when
  forced. Otherwise place the fitting card just above the row's last card (the smallest
  rise), starting a new row with a low card.
* Action B: play a card that earns a bonus card first; then play any other card that goes on a
  pile, except a card worth keeping for the row (one that would fit the row with a small rise)
  while the hand still holds three or more cards; end the step when nothing is left worth
  playing.
* Stuck after Action A: flip the rule card whose other side lets the most hand cards go on a
  pile.
* Action C: draw.

Ties are broken with ``rnd``, so a game replays from its seed.
"""

from __future__ import annotations

import random
from typing import Any

#: A row this long is worth scoring.
LONG_ROW = 5
#: A row at least this long is scored when the next card would jump this far.
SPENT_ROW, BIG_JUMP = 3, 4
#: The rule on each rule card's other side.
OTHER_SIDE = {
    "same_colour": "same_number",
    "same_number": "same_colour",
    "plus_one": "minus_one",
    "minus_one": "plus_one",
    "total_ten": "double_or_half",
    "double_or_half": "total_ten",
}


def _colour(card: int) -> int:
    return card // 11


def _value(card: int) -> int:
    return card % 11


def _follows(rule: str, card: int, top: int) -> bool:
    c, t = _value(card), _value(top)
    if rule == "same_colour":
        return _colour(card) == _colour(top)
    if rule == "same_number":
        return c == t
    if rule == "plus_one":
        return c == t + 1
    if rule == "minus_one":
        return c == t - 1
    if rule == "total_ten":
        return c + t == 10
    return c == 2 * t or 2 * c == t


def _matches(rules: list[str], card: int, top: int) -> int:
    return sum(_follows(r, card, top) for r in rules)


def _fits_row(row: list[int], card: int) -> bool:
    if not row:
        return True
    return _value(card) > _value(row[-1]) and _colour(card) not in {_colour(c) for c in row}


def _rise(row: list[int], card: int) -> int:
    return _value(card) - (_value(row[-1]) if row else -1)


def choose(game: Any, state: Any, seat: int, rnd: random.Random) -> Any:
    legal = game.legal_actions(state, seat)
    if not legal:
        return None
    view = game.view(state, seat)
    hand: list[int] = list(view["hand"])
    row: list[int] = list(view["rows"][seat])
    rules: list[str] = list(view["rules"])
    tops = [p["top"] for p in view["piles"]]
    by_type: dict[str, list[Any]] = {}
    for a in legal:
        by_type.setdefault(a.type, []).append(a)

    def pick(options: list[Any], key: Any) -> Any:
        best = min(key(a) for a in options)
        return rnd.choice([a for a in options if key(a) == best])

    adds = by_type.get("add_to_row", [])
    if "score_row" in by_type:
        if not adds:
            return by_type["score_row"][0]
        smallest = min(_rise(row, a.card) for a in adds)
        if len(row) >= LONG_ROW or (len(row) >= SPENT_ROW and smallest >= BIG_JUMP):
            return by_type["score_row"][0]
    if adds:
        return pick(adds, lambda a: (_rise(row, a.card), _value(a.card)))

    if "flip_rule" in by_type:

        def playable_after(a: Any) -> int:
            new = list(rules)
            new[a.rule] = OTHER_SIDE.get(new[a.rule], new[a.rule])
            return -sum(any(_matches(new, c, t) for t in tops) for c in hand)

        return pick(by_type["flip_rule"], playable_after)

    plays = by_type.get("play_to_pile", [])
    if plays:
        bonus = [a for a in plays if _matches(rules, a.card, tops[a.pile]) >= 2 and len(hand) > 1]
        if bonus:
            return pick(bonus, lambda a: _value(a.card))

        def keeper(card: int) -> bool:
            return _fits_row(row, card) and _rise(row, card) <= 2

        spare = [a for a in plays if len(hand) <= 2 or not keeper(a.card)]
        if spare:
            return pick(spare, lambda a: -_value(a.card))
    return by_type.get("end_step", legal)[0]
