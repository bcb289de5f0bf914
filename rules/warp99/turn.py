"""The three steps of a Warp 99 turn: what each allows, and what each action does.

Action A: optionally score the row (n² points), then place exactly one card that is higher than
the row's last card and of a colour not yet in it; when no hand card fits, scoring is forced.
Action B: play cards one at a time onto either pile under any face-up rule; a card following two
or three face-up rules at once earns a bonus card unless it was the last in hand; once per turn,
when stuck right after A, a rule card may be flipped; emptying the hand refills it and starts A
again. Action C: draw back up to six and pass the turn; a hand the next player left short is
topped up as their turn starts.
"""

from __future__ import annotations

from typing import Any

from rules.errors import IllegalAction, WrongPhase
from rules.warp99.actions import AddToRow, AnyAction, EndStep, FlipRule, PlayToPile, ScoreRow
from rules.warp99.cards import COLOUR, VALUE, label
from rules.warp99.rulecards import RULE_CARDS, RULE_NAMES, playable, rules_matched
from rules.warp99.state import State, Step, is_over
from rules.warp99.table import Table

# -- what is allowed ------------------------------------------------------------------------


def fits_row(row: tuple[int, ...], card: int) -> bool:
    """Higher than the last card of the row, and of a colour not yet in it."""
    # R4: the rule of the row.
    if not row:
        return True
    if VALUE[card] <= VALUE[row[-1]]:
        return False
    colour = COLOUR[card]
    return all(COLOUR[c] != colour for c in row)


def row_options(state: State, seat: int) -> list[int]:
    row = state.rows[seat]
    return [c for c in state.hands[seat] if fits_row(row, c)]


def pile_options(state: State, seat: int) -> list[tuple[int, int]]:
    """Every (card, pile) the seat could play now under the face-up rules."""
    sides = state.sides
    return [
        (card, pile)
        for card in state.hands[seat]
        for pile in (0, 1)
        if playable(sides, state.piles[pile][-1], card)
    ]


def can_flip(state: State, seat: int, options: list[tuple[int, int]] | None = None) -> bool:
    """The stuck-flip: once per turn, right after Action A, with a hand of which nothing plays."""
    # R6: the server checks that the seat really is stuck.
    if state.step is not Step.B or state.flip_used or state.played_to_pile:
        return False
    if not state.hands[seat]:
        return False
    return not (pile_options(state, seat) if options is None else options)


def legal_dicts(state: State, seat: int) -> list[dict[str, Any]]:
    """Every move ``seat`` may make now, in wire form (views list them after every action)."""
    if is_over(state) or seat != state.turn:
        return []
    if state.step is Step.A:
        hand, row = state.hands[seat], state.rows[seat]
        # R4: score first if you like, then place exactly one card; scoring is forced when none
        # fits.
        if not hand:
            # Only once the whole supply ran dry: nothing to place, so A is skipped.
            return [{"type": "score_row"}] if row else [{"type": "end_step"}]
        dicts: list[dict[str, Any]] = [
            {"type": "add_to_row", "card": c} for c in row_options(state, seat)
        ]
        if row:
            dicts.append({"type": "score_row"})
        return dicts
    if state.step is Step.B:
        options = pile_options(state, seat)
        dicts = [{"type": "play_to_pile", "card": c, "pile": p} for c, p in options]
        if can_flip(state, seat, options):
            dicts.extend({"type": "flip_rule", "rule": r} for r in range(len(RULE_CARDS)))
        dicts.append({"type": "end_step"})
        return dicts
    return [{"type": "end_step"}]


_MODELS: dict[str, type[AnyAction]] = {
    "score_row": ScoreRow,
    "add_to_row": AddToRow,
    "play_to_pile": PlayToPile,
    "flip_rule": FlipRule,
    "end_step": EndStep,
}


def legal_actions(state: State, seat: int) -> list[AnyAction]:
    """The same moves as :func:`legal_dicts`, as action models."""
    return [_MODELS[d["type"]](**d) for d in legal_dicts(state, seat)]


# -- doing it -------------------------------------------------------------------------------


def perform(state: State, table: Table, seat: int, action: AnyAction) -> None:
    """Apply ``action`` to ``table``; raises a rules error (before any change) if refused."""
    if isinstance(action, ScoreRow):
        _score_row(state, table, seat)
    elif isinstance(action, AddToRow):
        _add_to_row(state, table, seat, action.card)
    elif isinstance(action, PlayToPile):
        _play_to_pile(state, table, seat, action.card, action.pile)
    elif isinstance(action, FlipRule):
        _flip_rule(state, table, seat, action.rule)
    else:
        _end_step(state, table, seat)


def _require_in_hand(state: State, seat: int, card: int) -> None:
    if card not in state.hands[seat]:
        raise IllegalAction(f"{label(card)} is not in your hand")


def _score_row(state: State, table: Table, seat: int) -> None:
    if state.step is not Step.A:
        raise WrongPhase("You can score your row only in Action A, before placing a card")
    row = state.rows[seat]
    if not row:
        raise IllegalAction("Your row is empty: there is nothing to score")
    # R4: n² points, and the row goes onto the scored-cards pile.
    table.rows[seat] = ()
    table.scored = table.scored + row
    # Never whether a card would have fitted: that would tell everyone about the hand.
    table.events.append({"type": "row_scored", "seat": seat, "cards": list(row)})
    table.award(seat, len(row) ** 2, "row")


def _add_to_row(state: State, table: Table, seat: int, card: int) -> None:
    if state.step is not Step.A:
        raise WrongPhase("You place a card in your row only in Action A")
    _require_in_hand(state, seat, card)
    row = state.rows[seat]
    if not fits_row(row, card):
        if not row_options(state, seat):
            raise IllegalAction("No card in your hand fits your row: you must score it first")
        raise IllegalAction(
            f"{label(card)} does not fit your row: it must be higher than "
            f"{label(row[-1])} and of a colour not yet in the row"
        )
    table.take_card(seat, card)
    table.rows[seat] = (*row, card)
    table.step = Step.B
    table.events.append({"type": "row_card", "seat": seat, "card": card})


def _play_to_pile(state: State, table: Table, seat: int, card: int, pile: int) -> None:
    if state.step is not Step.B:
        raise WrongPhase(
            "You play onto the piles only in Action B"
            if state.step is Step.C
            else "Place a card in your row first (Action A)"
        )
    _require_in_hand(state, seat, card)
    # R5: one card at a time, onto either pile, following at least one face-up rule; two or
    # more at once earn a bonus card from the own deck.
    top = state.piles[pile][-1]
    matched = rules_matched(state.sides, top, card)
    if not matched:
        raise IllegalAction(f"{label(card)} on {label(top)} follows none of the face-up rules")
    table.take_card(seat, card)
    table.piles[pile] = (*state.piles[pile], card)
    table.played_to_pile = True
    # R12: no bonus card for the last card in hand; R7's refill below applies instead.
    bonus = len(matched) >= 2 and bool(table.hands[seat])
    table.events.append(
        {
            "type": "pile_card",
            "seat": seat,
            "card": card,
            "pile": pile,
            "rules": [str(r) for r in matched],
            "bonus": bonus,
        }
    )
    if bonus and not table.draw(seat, "bonus"):
        table.events.append({"type": "drew", "seat": seat, "count": 0, "why": "bonus"})
    # R7: an empty hand in Action B draws up to six and repeats A, B and C.
    if not table.hands[seat]:
        table.events.append({"type": "hand_emptied", "seat": seat})
        _refill(table, seat)
        table.start_cycle()


def _flip_rule(state: State, table: Table, seat: int, rule: int) -> None:
    if state.step is not Step.B:
        raise WrongPhase("A rule card is flipped only in Action B, right after Action A")
    # R6: once per turn, right after Action A, and only when really stuck.
    if state.flip_used:
        raise IllegalAction("You have already flipped a rule card this turn")
    if state.played_to_pile:
        raise IllegalAction("Too late: flip only right after Action A, before playing a card")
    if not state.hands[seat]:
        raise IllegalAction("You have no cards in hand")
    options = pile_options(state, seat)
    if options:
        card, pile = options[0]
        raise IllegalAction(f"You are not stuck: {label(card)} can go on pile {pile + 1}")
    side = 3 - state.sides[rule]
    sides = list(state.sides)
    sides[rule] = side
    table.sides = (sides[0], sides[1], sides[2])
    table.flip_used = True
    table.events.append(
        {
            "type": "rule_flipped",
            "seat": seat,
            "rule": rule,
            "side": side,
            "now": str(RULE_CARDS[rule][side - 1]),
            "name": RULE_NAMES[RULE_CARDS[rule][side - 1]],
        }
    )


def _refill(table: Table, seat: int) -> None:
    """R7: draw up to six; a refill always says how many it drew, even none."""
    if not table.fill_hand(seat):
        table.events.append({"type": "drew", "seat": seat, "count": 0, "why": "refill"})


def _end_step(state: State, table: Table, seat: int) -> None:
    if state.step is Step.A:
        if state.hands[seat]:
            raise IllegalAction("Action A: place exactly one card in your row first")
        if state.rows[seat]:
            raise IllegalAction("You cannot place a card, so you must score your row")
        table.step = Step.B
        table.events.append({"type": "step_ended", "seat": seat, "step": "A"})
    elif state.step is Step.B:
        table.step = Step.C
        table.events.append({"type": "step_ended", "seat": seat, "step": "B"})
    else:
        # R7: Action C draws up to six.
        table.events.append({"type": "step_ended", "seat": seat, "step": "C"})
        _refill(table, seat)
        table.pass_turn()
