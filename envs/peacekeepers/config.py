"""Peacekeepers rules data (configs/peacekeepers.yaml), validated on load, and the game's vocabulary
(modes, puzzle levels, phases, observation sizes)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from ..core.game import ConfigError
from ..core.options import Option, merge_rules, read_config
from ..core.resources import config_path as data_file
from .board import LETTERS

DEFAULT_CONFIG = data_file("peacekeepers.yaml")
MODES = ("solo", "collaborative", "competitive", "competitive_no_points", "puzzle")
PUZZLE_LEVELS = ("standard", "easy", "challenge")
BOARD_PLANES = 18
VECTOR_SIZE = 84
#: the phases of a game, in the order of the observation's phase one-hot
PHASES = ("mountain", "zone", "start_temple", "refill", "play", "giant2", "troll_chase", "elf", "over")


#: ranges of the rules-table keys (their types come from configs/peacekeepers.yaml)
RULE_LIMITS = (
    Option("puzzle_size", int, low=2, high=10),
    Option("competitive_hand", int, low=3, high=20),
    Option("refill_at", int, low=0, high=19),
)


def load_tables(path: str | Path | None = None, rules: dict | None = None) -> dict:
    """Read and check the YAML tables; ``rules`` overrides keys of its ``rules`` section."""
    data = dict(read_config(path, DEFAULT_CONFIG, RULE_LIMITS))
    cubes = [c for row in data.get("cubes", []) for c in (row if isinstance(row, list) else [row])]
    if len(cubes) != 100 or any(not isinstance(c, str) or len(c) != 6 or set(c) - set(LETTERS)
                                for c in cubes):
        raise ConfigError("config 'cubes' must list 100 cubes of 6 face letters from " + LETTERS)
    totals = Counter("".join(cubes))
    want = data.get("face_totals", {})
    if {k: totals.get(k, 0) for k in LETTERS} != {k: int(want.get(k, -1)) for k in LETTERS}:
        raise ConfigError(f"cube faces {dict(totals)} do not match face_totals {want}")
    tokens = data.get("mountain_tokens", [])
    ranges = {int(k): int(v) for k, v in data.get("mountain_ranges", {}).items()}
    if len(tokens) != 7 or any(len(t) != 2 or not all(1 <= int(x) <= 6 for x in t) for t in tokens):
        raise ConfigError("mountain_tokens must be 7 two-sided tokens with faces 1..6")
    for length in range(1, 7):
        most = sum(1 for t in tokens if length in t)
        if most > ranges.get(length, 0):
            raise ConfigError(f"mountain tokens can ask for {most} ranges of length {length}, "
                              f"only {ranges.get(length, 0)} exist")
    merged = merge_rules(data.get("rules"), rules, limits=RULE_LIMITS)
    if not merged["refill_at"] < merged["competitive_hand"]:
        raise ConfigError(f"rules key 'refill_at' ({merged['refill_at']}) must be below "
                          f"'competitive_hand' ({merged['competitive_hand']})")
    faces = np.array([[LETTERS.index(ch) for ch in c] for c in cubes], dtype=np.int8)
    return {"faces": faces, "tokens": [tuple(int(x) for x in t) for t in tokens],
            "eruption_path": data["eruption_path"], "rules": merged}
