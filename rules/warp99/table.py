"""A mutable working copy of the state for one action, and the card supply: drawing, personal
decks running out, the reserve and its rebuilding, and scoring with the instant win.

One ``apply`` copies the state into a :class:`Table`, changes it, and freezes it into a new
state; the input state is never touched. The moment a score reaches 99 the game ends, even in
the middle of a draw, so :meth:`Table.award` raises :class:`GameWon` and ``apply`` freezes the
table as it is at that moment.
"""

from __future__ import annotations

from rules.contract import Event
from rules.warp99.state import DECK_POINTS, DECK_SIZE, HAND_SIZE, TARGET, State, Step


class GameWon(Exception):
    """Raised the moment a score reaches the target; nothing after it happens."""


class Table:
    __slots__ = (
        "decks",
        "events",
        "flip_used",
        "hands",
        "moves",
        "piles",
        "played_to_pile",
        "reserve",
        "rng",
        "rows",
        "scored",
        "scores",
        "seats",
        "short_decks",
        "sides",
        "step",
        "turn",
        "winner",
    )

    def __init__(self, state: State) -> None:
        self.seats = state.seats
        self.rng = state.rng
        self.turn = state.turn
        self.step = state.step
        self.scores = list(state.scores)
        self.decks = list(state.decks)
        self.hands = list(state.hands)
        self.rows = list(state.rows)
        self.piles = list(state.piles)
        self.reserve = state.reserve
        self.scored = state.scored
        self.sides = state.sides
        self.flip_used = state.flip_used
        self.played_to_pile = state.played_to_pile
        self.winner = state.winner
        self.moves = state.moves
        self.short_decks = state.short_decks
        self.events: list[Event] = []

    def freeze(self) -> State:
        return State(
            seats=self.seats,
            rng=self.rng,
            turn=self.turn,
            step=self.step,
            scores=tuple(self.scores),
            decks=tuple(self.decks),
            hands=tuple(self.hands),
            rows=tuple(self.rows),
            piles=(self.piles[0], self.piles[1]),
            reserve=self.reserve,
            scored=self.scored,
            sides=self.sides,
            flip_used=self.flip_used,
            played_to_pile=self.played_to_pile,
            winner=self.winner,
            moves=self.moves,
            short_decks=self.short_decks,
        )

    # -- scoring ----------------------------------------------------------------------------

    def award(self, seat: int, points: int, reason: str) -> None:
        self.scores[seat] += points
        self.events.append(
            {
                "type": "scored",
                "seat": seat,
                "points": points,
                "reason": reason,
                "score": self.scores[seat],
            }
        )
        # R9: the moment a score reaches 99, that player wins.
        if self.scores[seat] >= TARGET:
            self.winner = seat
            self.events.append({"type": "game_won", "seat": seat, "score": self.scores[seat]})
            raise GameWon

    # -- hands and personal decks -----------------------------------------------------------

    def take_card(self, seat: int, card: int) -> None:
        """Remove ``card`` from the seat's hand (the caller has checked it is there)."""
        hand = self.hands[seat]
        i = hand.index(card)
        self.hands[seat] = hand[:i] + hand[i + 1 :]

    def draw(self, seat: int, why: str) -> bool:
        """Draw the top card of the seat's personal deck into its hand; False if there is none."""
        deck = self.decks[seat]
        if not deck:
            # Only when the reserve could not cover the last new deck: the player is still owed
            # one, and gets it as soon as there are cards (the points were already scored).
            self.refill_deck(seat)
            deck = self.decks[seat]
            if not deck:
                return False
        self.decks[seat] = deck[:-1]
        self.hands[seat] = tuple(sorted((*self.hands[seat], deck[-1])))
        self._note_draw(seat, why)
        if len(deck) == 1:
            # R8: the moment the deck runs out, a new deck and 15 points, before anything else.
            # R11: the points only for a deck that was dealt as a full 15; a short one is
            # replaced all the same.
            points = 0 if seat in self.short_decks else DECK_POINTS
            self.events.append({"type": "deck_emptied", "seat": seat, "bonus": points})
            self.refill_deck(seat)
            if points:
                self.award(seat, points, "deck_emptied")
        return True

    def _note_draw(self, seat: int, why: str) -> None:
        # One event per run of draws (never which cards: they are hidden from the others).
        last = self.events[-1] if self.events else None
        if last and last["type"] == "drew" and last["seat"] == seat and last["why"] == why:
            last["count"] += 1
        else:
            self.events.append({"type": "drew", "seat": seat, "count": 1, "why": why})

    def fill_hand(self, seat: int, why: str = "refill") -> int:
        """Draw until the hand holds six cards or nothing is left to draw; how many were drawn."""
        drawn = 0
        while len(self.hands[seat]) < HAND_SIZE and self.draw(seat, why):
            drawn += 1
        return drawn

    def refill_deck(self, seat: int) -> None:
        cards = self.take_from_reserve(DECK_SIZE)
        self.decks[seat] = cards
        # R11: remember whether this deck will pay when it runs out (public: its size is).
        full = len(cards) == DECK_SIZE
        short = set(self.short_decks) - {seat} if full else {*self.short_decks, seat}
        self.short_decks = tuple(sorted(short))
        if cards:
            self.events.append({"type": "new_deck", "seat": seat, "size": len(cards), "full": full})

    # -- the reserve ------------------------------------------------------------------------

    def take_from_reserve(self, count: int) -> tuple[int, ...]:
        """Up to ``count`` cards off the reserve, rebuilding it once if it runs out."""
        # R8: a reserve too short even after rebuilding gives what there is.
        taken = self._take(count)
        if len(taken) < count and self.rebuild_reserve():
            # What was taken first goes on top of the new deck (decks list their top card last),
            # so the old reserve's cards are drawn before the rebuilt reserve's.
            taken = self._take(count - len(taken)) + taken
        return taken

    def _take(self, count: int) -> tuple[int, ...]:
        split = max(0, len(self.reserve) - count)
        taken = self.reserve[split:]
        self.reserve = self.reserve[:split]
        return taken

    def rebuild_reserve(self) -> bool:
        """Shuffle both piles (each keeps its top card) and the scored cards into the reserve."""
        # R8: how the reserve is rebuilt.
        pool = self.piles[0][:-1] + self.piles[1][:-1] + self.scored
        if not pool:
            return False
        shuffled, self.rng = self.rng.shuffle(pool)
        self.reserve = self.reserve + shuffled
        self.piles = [self.piles[0][-1:], self.piles[1][-1:]]
        self.scored = ()
        self.events.append({"type": "reserve_rebuilt", "size": len(self.reserve)})
        return True

    # -- turns ------------------------------------------------------------------------------

    def start_cycle(self) -> None:
        """Enter Action A (at a turn's start, or again after emptying the hand in B)."""
        self.step = Step.A
        self.played_to_pile = False

    def pass_turn(self) -> None:
        self.turn = (self.turn + 1) % self.seats
        self.start_cycle()
        # R6: the stuck-flip is once per turn, however often A-B-C repeats.
        self.flip_used = False
        self.events.append({"type": "turn_started", "seat": self.turn})
        # R13: a hand left short by a dry supply first draws up to six, if it now can (from the
        # deck, or a new deck and a rebuilt reserve under R8). Nothing to draw: no event, as
        # nothing happened that a player would notice.
        self.fill_hand(self.turn, "top_up")
