"""Flat action layout for Peacekeepers (one Discrete space, masked).

| range       | count | meaning                                                                  |
|-------------|-------|--------------------------------------------------------------------------|
| 0..999      | 1000  | PLACE colour c on cell x: ``c * 100 + x`` (brown: horde target cell,      |
|             |       | gray: the volcano to erupt, orange on an occupied cell: Troll replaces)  |
| 1000..1099  | 100   | CELL x: sub-step target (second Giant, Troll chase, starting Temple)     |
| 1100..1139  | 40    | REROLL (Elf): ``relative_seat * 10 + colour`` of a cube in a hand        |
| 1140..1339  | 200   | MOUNTAIN: ``orientation * 100 + anchor`` (0 = rightwards, 1 = downwards) |
| 1340..1343  | 4     | ZONE choice (halves: top/bottom/left/right; quadrants: see RULES.md)     |
| 1344        | 1     | RESERVE: put the rolled Giant aside (solo hand of one)                   |
| 1345        | 1     | DRAW: refill the hand to its size                                        |
| 1346        | 1     | PASS: decline an optional sub-step or a Wizard's extra turn, stop placing |
|             |       | in an end phase                                                          |
"""
from __future__ import annotations

from typing import Callable, Literal, Union

from ..core.game import seats_after
from .board import CELLS, LETTERS, NAMES, cell_name
from .tables import ZoneKind

PLACE = 0
CELL = 1000
REROLL = 1100
MOUNTAIN = 1140
ZONE = 1340
RESERVE = 1344
DRAW = 1345
PASS = 1346
NUM_ACTIONS = 1347

ZONE_NAMES: dict[ZoneKind, list[str]] = {
    "halves": ["top half", "bottom half", "left half", "right half"],
    "quadrants2": ["NW+SE quadrants", "NE+SW quadrants", "(unused)", "(unused)"],
    "quadrants4": ["NW quadrant", "NE quadrant", "SE quadrant", "SW quadrant"],
}


def place(colour: int, cell: int) -> int:
    return PLACE + colour * CELLS + cell


def cell_target(cell: int) -> int:
    return CELL + cell


def reroll(rel_seat: int, colour: int) -> int:
    return REROLL + rel_seat * 10 + colour


def mountain(orientation: int, anchor: int) -> int:
    return MOUNTAIN + orientation * CELLS + anchor


def zone(choice: int) -> int:
    return ZONE + choice


#: what ``decode`` gives: the kind, then its numbers
Decoded = Union[tuple[Literal["place"], int, int], tuple[Literal["cell"], int],
                tuple[Literal["reroll"], int, int], tuple[Literal["mountain"], int, int],
                tuple[Literal["zone"], int], tuple[Literal["reserve"]], tuple[Literal["draw"]],
                tuple[Literal["pass"]]]


def decode(action: int) -> Decoded:
    """('place', colour, cell) | ('cell', cell) | ('reroll', rel, colour) | ('mountain', o, anchor)
    | ('zone', k) | ('reserve',) | ('draw',) | ('pass',)"""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {a} out of range 0..{NUM_ACTIONS - 1}")
    if a < CELL:
        return ("place",) + divmod(a - PLACE, CELLS)
    if a < REROLL:
        return ("cell", a - CELL)
    if a < MOUNTAIN:
        return ("reroll",) + divmod(a - REROLL, 10)
    if a < ZONE:
        return ("mountain",) + divmod(a - MOUNTAIN, CELLS)
    if a < RESERVE:
        return ("zone", a - ZONE)
    if a == RESERVE:
        return ("reserve",)
    if a == DRAW:
        return ("draw",)
    return ("pass",)


def action_to_str(action: int, zone_kind: ZoneKind = "halves", who: Callable[[int], str] = seats_after) -> str:
    """The words of ``action``; ``who(k)`` names the player ``k`` seats after the one to act (the
    state's ``action_to_str`` passes ``player_<seat>``)."""
    kind, *args = decode(action)
    if kind == "place":
        colour, cell = args
        return f"place {NAMES[colour]} [{LETTERS[colour]}] at {cell_name(cell)}"
    if kind == "cell":
        return f"target {cell_name(args[0])}"
    if kind == "reroll":
        rel, colour = args
        return f"re-roll a {LETTERS[colour]} cube in " + ("your own hand" if rel == 0 else f"the hand of {who(rel)}")
    if kind == "mountain":
        o, anchor = args
        return f"mountain range from {cell_name(anchor)} going {'right' if o == 0 else 'down'}"
    if kind == "zone":
        return f"choose zone: {ZONE_NAMES[zone_kind][args[0]]}"
    return {"reserve": "put the Giant in reserve and draw another cube",
            "draw": "draw back up to a full hand", "pass": "pass / decline"}[kind]
