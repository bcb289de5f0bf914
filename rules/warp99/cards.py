"""Warp 99's 110 number cards: ten colours, each with the values 0 to 10.

Every card is unique, so a card is named by one integer id, ``colour * 11 + value``. Each colour
also has a name and a symbol: the client shows the symbol next to the colour so that no player
has to tell colours apart to play.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Colour:
    key: str
    name: str
    symbol: str


# R1: ten colours, each with a name and a symbol (so no player has to tell colours apart).
COLOURS: tuple[Colour, ...] = (
    Colour("red", "Red", "♥"),
    Colour("orange", "Orange", "◆"),
    Colour("yellow", "Yellow", "★"),
    Colour("green", "Green", "♣"),
    Colour("light_blue", "Light blue", "●"),
    Colour("blue", "Blue", "▲"),
    Colour("purple", "Purple", "■"),
    Colour("pink", "Pink", "✿"),
    Colour("tan", "Tan", "♠"),
    Colour("gray", "Gray", "✚"),
)
# R1: the values 0 to 10 in each colour, every card unique: 110 cards.
VALUES = 11
CARD_COUNT = len(COLOURS) * VALUES
ALL_CARDS: tuple[int, ...] = tuple(range(CARD_COUNT))

#: Looked up on every rules check, so computed once.
VALUE: tuple[int, ...] = tuple(c % VALUES for c in ALL_CARDS)
COLOUR: tuple[int, ...] = tuple(c // VALUES for c in ALL_CARDS)


def card(colour: str, value: int) -> int:
    """The id of the card of that colour (by key) and value: ``card("red", 4)``."""
    for index, candidate in enumerate(COLOURS):
        if candidate.key == colour:
            if not 0 <= value < VALUES:
                raise ValueError(f"no card with value {value}")
            return index * VALUES + value
    raise ValueError(f"no colour {colour!r}")


def label(card_id: int) -> str:
    """How a card reads in messages: ``Red 4``."""
    return f"{COLOURS[COLOUR[card_id]].name} {VALUE[card_id]}"
