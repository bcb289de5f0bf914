"""What a thin client does with a Floor view: turn the compact ``legal`` form into actions.

Written only from the documented form (``docs/rules/floor.md``), with no rules knowledge, so
the tests can check that the form says exactly what ``legal_actions`` says.
"""

from __future__ import annotations

import random
from typing import Any

Action = dict[str, Any]


def expand_legal(legal: list[dict[str, Any]]) -> list[Action]:
    """Every action the compact form allows, spelled as the client would send it."""
    out: list[Action] = []
    for entry in legal:
        kind = entry["type"]
        if kind in ("draw", "pass", "grab", "reverse_back", "let_stand"):
            out.append({"type": kind})
        elif kind == "number":
            for play in entry["plays"]:
                out.extend(
                    {"type": "number", "cards": play["cards"], "shape": shape}
                    for shape in play["shapes"]
                )
        elif kind == "operation":
            for choice in entry["choices"]:
                for card in choice["cards"]:
                    for operand in choice["operands"]:
                        for riders, shapes in _rider_choices(entry, operand):
                            out.extend(
                                {
                                    "type": "operation",
                                    "card": card,
                                    "operand": operand["card"],
                                    "riders": riders,
                                    "shape": shape,
                                }
                                for shape in shapes
                            )
        elif kind in ("freeze", "take", "swap", "burn"):
            out.extend({"type": kind, "card": card} for card in entry["cards"])
        elif kind == "power":
            out.extend(
                {"type": "power", "card": card, "shape": shape}
                for card in entry["cards"]
                for shape in entry["shapes"]
            )
        elif kind == "discard_operations":
            out.extend({"type": kind, "cards": cards} for cards in entry["sets"])
        else:
            raise AssertionError(f"unknown legal entry {kind!r}")
    return out


def _rider_choices(
    entry: dict[str, Any], operand: dict[str, Any]
) -> list[tuple[list[int], list[str]]]:
    """What may ride along with ``operand`` (nothing, or a set for its result that does not
    hold the operand), each with the shapes the player may then name."""
    out = [([], [operand["shape"]])]
    for rider in entry["riders"].get(str(operand["result"]), []):
        if operand["card"] not in rider["cards"]:
            shapes = sorted({operand["shape"], *rider["shapes"]})
            out.append((rider["cards"], shapes))
    return out


def pick_from_legal(legal: list[dict[str, Any]], rnd: random.Random, draw_bias: float) -> Action:
    """One action built from the compact form step by step, as a player tapping through the
    choices would; drawing is preferred with probability ``draw_bias``. Never expands the
    whole cross product, so it stays cheap for huge hands."""
    kinds = {entry["type"]: entry for entry in legal}
    if "draw" in kinds and rnd.random() < draw_bias:
        return {"type": "draw"}
    entry = rnd.choice(legal)
    kind = entry["type"]
    if kind == "number":
        play = rnd.choice(entry["plays"])
        return {"type": "number", "cards": play["cards"], "shape": rnd.choice(play["shapes"])}
    if kind == "operation":
        choice = rnd.choice(entry["choices"])
        operand = rnd.choice(choice["operands"])
        riders, shapes = rnd.choice(_rider_choices(entry, operand))
        return {
            "type": "operation",
            "card": rnd.choice(choice["cards"]),
            "operand": operand["card"],
            "riders": riders,
            "shape": rnd.choice(shapes),
        }
    if kind in ("freeze", "take", "swap", "burn"):
        return {"type": kind, "card": rnd.choice(entry["cards"])}
    if kind == "power":
        return {
            "type": kind,
            "card": rnd.choice(entry["cards"]),
            "shape": rnd.choice(entry["shapes"]),
        }
    if kind == "discard_operations":
        return {"type": kind, "cards": rnd.choice(entry["sets"])}
    return {"type": kind}
