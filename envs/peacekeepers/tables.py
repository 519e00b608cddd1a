"""Peacekeepers rules data (configs/peacekeepers.yaml), validated on load, and the game's vocabulary
(modes, puzzle levels, phases, observation sizes)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Literal, TypedDict, cast, get_args

import numpy as np

from ..core.game import ConfigError
from ..core.options import Option, merge_rules, read_config
from ..core.resources import config_path as data_file
from .board import LETTERS

DEFAULT_CONFIG = data_file("peacekeepers.yaml")
# The names the engine compares with literals are Literal types (mypy with strict_equality: a
# misspelt literal is an error, not a silent False); the tuples of choices come from them.
Mode = Literal["solo", "collaborative", "competitive", "competitive_no_points", "puzzle"]
MODES: tuple[Mode, ...] = get_args(Mode)
PuzzleLevel = Literal["standard", "easy", "challenge"]
PUZZLE_LEVELS: tuple[PuzzleLevel, ...] = get_args(PuzzleLevel)
Mountains = Literal["choose", "random", "none"]
Zones = Literal["halves", "quadrants"]
Reward = Literal["result", "score"]
#: how the board is split (``game.zone_kind``): halves, or quadrants for 2 or for 4 players
ZoneKind = Literal["halves", "quadrants2", "quadrants4"]
BOARD_PLANES = 18
VECTOR_SIZE = 84
#: the phases of a game, in the order of the observation's phase one-hot
Phase = Literal["mountain", "zone", "start_temple", "refill", "play", "giant2", "troll_chase", "elf",
                "over"]
PHASES: tuple[Phase, ...] = get_args(Phase)
#: the end phases (``state.end_phase``, None in normal play): a zone was filled, a player got stuck
EndPhase = Literal["zone", "stuck"]


class Rules(TypedDict):
    """The rules table as the engine reads it (``game.rules``): ``RULES`` below checks every
    value when it is loaded (tests/test_typed_tables.py keeps the two in step)."""

    giant_pairs_only: bool
    troll_check_after_chase: bool
    eruption_captures: bool
    solo_horde_to_bag: bool
    refill_choice: bool
    restart_on_empty_board: bool
    hidden_hands: bool
    reroll_hordes: bool
    reroll_eruptions: bool
    puzzle_size: int
    puzzle_hazards: bool
    competitive_hand: int
    refill_at: int


class Tables(TypedDict):
    """What ``load_tables`` returns."""

    faces: np.ndarray                      # int8 [100, 6]: each cube's face colours
    tokens: list[tuple[int, ...]]          # the mountain tokens' two sides
    eruption_path: list[list[list[int]]]   # [[row, col], [parent row, parent col]] per cell
    rules: Rules


#: the rules section (configs/peacekeepers.yaml ``rules:``): every key's type and range
RULES = Option("rules", dict, doc="rule options (the rules= option overrides them)", fields=(
    Option("giant_pairs_only", bool, doc="every Giant comes with a partner from hand"),
    Option("troll_check_after_chase", bool, doc="a Troll's neighbour rules after its chase"),
    Option("eruption_captures", bool, doc="competitive: cubes hit by an eruption are captured"),
    Option("solo_horde_to_bag", bool, doc="non-competitive: chased cubes go back to the bag"),
    Option("refill_choice", bool, doc="competitive: drawing back up is a decision"),
    Option("restart_on_empty_board", bool, doc="competitive: restart on an edge of one's zone"),
    Option("hidden_hands", bool, doc="other players see only the size of a hand"),
    Option("reroll_hordes", bool, doc="beginners: re-roll brown"),
    Option("reroll_eruptions", bool, doc="beginners: re-roll gray"),
    Option("puzzle_size", int, doc="side of the square puzzle field", low=2, high=10),
    Option("puzzle_hazards", bool, doc="puzzle easy/challenge: hordes, volcanoes, temples"),
    Option("competitive_hand", int, doc="competitive hand size", low=3, high=20),
    Option("refill_at", int, doc="competitive: refill at this many cubes or fewer", low=0, high=19),
))

_OFFSET = Option("offset", list, doc="[row, col] from the volcano", size=(2, 2),
                 each=Option("delta", int, low=-2, high=2))

#: the whole file, section by section
SCHEMA = Option("", dict, fields=(
    Option("colours", list, doc="the 10 colour letters", size=(10, 10),
           each=Option("letter", str, choices=tuple(LETTERS))),
    Option("face_totals", dict, doc="faces of each colour over all cubes", size=(10, 10),
           keys=Option("colour", str, choices=tuple(LETTERS)),
           each=Option("faces", int, low=0, high=600)),
    Option("cubes", list, doc="rows of cubes, 100 cubes in all", size=(1, 100),
           each=Option("row", list, size=(1, 100),
                       each=Option("cube", str, doc="six face letters", size=(6, 6)))),
    Option("mountain_ranges", dict, doc="mountain ranges by length", size=(1, 6),
           keys=Option("length", int, low=1, high=6), each=Option("ranges", int, low=0, high=14)),
    Option("mountain_tokens", list, doc="the 7 two-sided mountain tokens", size=(7, 7),
           each=Option("token", list, size=(2, 2), each=Option("face", int, low=1, high=6))),
    Option("eruption_path", list, doc="eruption zone cells and the cell each is fed from",
           size=(1, 24), each=Option("cell", list, doc="[cell, parent]", size=(2, 2), each=_OFFSET)),
    RULES,
))


def load_tables(path: str | Path | None = None, rules: dict | None = None) -> Tables:
    """Read and check the YAML tables (``SCHEMA``, then what ties fields together); ``rules``
    overrides keys of its ``rules`` section."""
    data = read_config(path, DEFAULT_CONFIG, SCHEMA)
    at = f"{path}: " if path is not None else ""
    if sorted(data["colours"]) != sorted(LETTERS):
        raise ConfigError(f"{at}colours must list each of {LETTERS} once")
    cubes = [c for row in data["cubes"] for c in row]
    if len(cubes) != 100 or any(set(c) - set(LETTERS) for c in cubes):
        raise ConfigError(f"{at}cubes must list 100 cubes of 6 face letters from {LETTERS}")
    totals = Counter("".join(cubes))
    want = data["face_totals"]
    if {k: totals.get(k, 0) for k in LETTERS} != {k: want.get(k, -1) for k in LETTERS}:
        raise ConfigError(f"{at}cube faces {dict(totals)} do not match face_totals {want}")
    tokens = data["mountain_tokens"]
    ranges = data["mountain_ranges"]
    for length in range(1, 7):
        most = sum(1 for t in tokens if length in t)
        if most > ranges.get(length, 0):
            raise ConfigError(f"{at}mountain_tokens can ask for {most} ranges of length {length}, "
                              f"mountain_ranges has {ranges.get(length, 0)}")
    cells = [tuple(cell) for cell, _ in data["eruption_path"]]
    if len(set(cells)) != len(cells) or (0, 0) in cells:
        raise ConfigError(f"{at}eruption_path must name distinct cells other than the volcano [0, 0]")
    for (r, c), (pr, pc) in data["eruption_path"]:
        if ((pr, pc) != (0, 0) and (pr, pc) not in cells) or max(abs(r - pr), abs(c - pc)) != 1 \
                or max(abs(pr), abs(pc)) >= max(abs(r), abs(c)):
            raise ConfigError(f"{at}eruption_path: [{r}, {c}] must be fed from a neighbouring "
                              f"cell nearer the volcano, got [{pr}, {pc}]")
    merged = merge_rules(data["rules"], rules, schema=RULES)
    if not merged["refill_at"] < merged["competitive_hand"]:
        raise ConfigError(f"{at}rules.refill_at ({merged['refill_at']}) must be below "
                          f"rules.competitive_hand ({merged['competitive_hand']})")
    faces = np.array([[LETTERS.index(ch) for ch in c] for c in cubes], dtype=np.int8)
    return {"faces": faces, "tokens": [tuple(t) for t in tokens],
            "eruption_path": data["eruption_path"], "rules": cast(Rules, merged)}   # checked by RULES
