"""A tiny game with hidden hands, registered for the server tests only.

Each seat is dealt ``hand`` cards; in turn, a seat plays a card face up or discards one face
down. Highest total face-up wins. Enough hidden information to test redaction, short enough
for fast full games; the real games are tested the same way as they land in the registry.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.contract import ActionModel, Event, Game, GameOptions, Result, View, places_from_scores
from rules.errors import IllegalAction
from rules.rng import Rng


class ToyOptions(GameOptions):
    hand: int = Field(3, ge=1, le=6)


class Play(ActionModel):
    type: Literal["play"]
    card: int


class Discard(ActionModel):
    type: Literal["discard"]
    card: int


ToyAction = Annotated[Play | Discard, Field(discriminator="type")]


class ToyState(BaseModel):
    model_config = ConfigDict(frozen=True)
    hands: tuple[tuple[int, ...], ...]
    table: tuple[tuple[int, ...], ...]
    discarded: tuple[tuple[int, ...], ...]
    turn: int


class ToyGame(Game[ToyState, Play | Discard]):
    id = "toy"
    name = "Toy"
    summary = "Play or discard; highest face-up total wins."
    min_seats = 2
    max_seats = 8
    options_model = ToyOptions
    state_type = ToyState
    action_type = ToyAction

    def initial_state(self, seats: int, options: Any, seed: int) -> ToyState:
        deck, _ = Rng.from_seed(seed).shuffle(range(1, seats * options.hand + 1))
        hands = tuple(tuple(sorted(deck[i::seats])) for i in range(seats))
        empty: tuple[tuple[int, ...], ...] = tuple(() for _ in range(seats))
        return ToyState(hands=hands, table=empty, discarded=empty, turn=0)

    def seat_count(self, state: ToyState) -> int:
        return len(state.hands)

    def to_act(self, state: ToyState) -> frozenset[int]:
        return frozenset() if self._over(state) else frozenset({state.turn})

    @staticmethod
    def _over(state: ToyState) -> bool:
        return not any(state.hands)

    def legal_actions(self, state: ToyState, seat: int) -> list[Play | Discard]:
        if seat not in self.to_act(state):
            return []
        hand = state.hands[seat]
        return [Play(type="play", card=c) for c in hand] + [
            Discard(type="discard", card=c) for c in hand
        ]

    def apply_action(
        self, state: ToyState, seat: int, action: Play | Discard
    ) -> tuple[ToyState, list[Event]]:
        hand = state.hands[seat]
        if action.card not in hand:
            raise IllegalAction("You do not hold that card")
        hands = list(state.hands)
        hands[seat] = tuple(c for c in hand if c != action.card)
        table, discarded = list(state.table), list(state.discarded)
        if isinstance(action, Play):
            table[seat] = (*table[seat], action.card)
            event: Event = {"type": "played", "seat": seat, "card": action.card}
        else:
            discarded[seat] = (*discarded[seat], action.card)
            event = {"type": "discarded", "seat": seat}
        n = len(hands)
        turn = state.turn
        for step in range(1, n + 1):
            if hands[(seat + step) % n]:
                turn = (seat + step) % n
                break
        new = ToyState(
            hands=tuple(hands), table=tuple(table), discarded=tuple(discarded), turn=turn
        )
        return new, [event]

    def seat_view(self, state: ToyState, seat: int | None) -> View:
        return {
            "hand": None if seat is None else list(state.hands[seat]),
            "hand_sizes": [len(h) for h in state.hands],
            "table": [list(t) for t in state.table],
            "discarded": [len(d) for d in state.discarded],
            "turn": state.turn,
        }

    def open_body(self, state: ToyState) -> View:
        # The open view: the spectator's, plus every hand and every face-down discard.
        body = self.seat_view(state, None)
        body["hands"] = [list(h) for h in state.hands]
        body["discards"] = [list(d) for d in state.discarded]
        return body

    def result(self, state: ToyState) -> Result | None:
        if not self._over(state):
            return None
        scores = tuple(sum(t) for t in state.table)
        places = places_from_scores(scores, lower_is_better=False)
        winners = tuple(i for i, p in enumerate(places) if p == 1)
        return Result(winners=winners, places=places, scores=scores, reason="hands empty")
