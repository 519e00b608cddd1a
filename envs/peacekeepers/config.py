"""Peacekeepers rules data (configs/peacekeepers.yaml), validated on load, and the game's vocabulary
(modes, puzzle levels, phases, observation sizes)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from ..core.game import ConfigError, merge_rules, read_yaml
from ..core.resources import config_path as data_file
from .board import LETTERS

DEFAULT_CONFIG = data_file("peacekeepers.yaml")
MODES = ("solo", "collaborative", "competitive", "competitive_no_points", "puzzle")
PUZZLE_LEVELS = ("standard", "easy", "challenge")
BOARD_PLANES = 18
VECTOR_SIZE = 84
#: the phases of a game, in the order of the observation's phase one-hot
PHASES = ("mountain", "zone", "start_temple", "refill", "play", "giant2", "troll_chase", "elf", "over")


def load_tables(path: str | Path | None = None, rules: dict | None = None) -> dict:
    """Read and check the YAML tables; ``rules`` overrides keys of its ``rules`` section."""
    data = dict(read_yaml(str(path or DEFAULT_CONFIG)))
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
    merged = merge_rules(data.get("rules"), rules)
    if not 2 <= merged["puzzle_size"] <= 10:
        raise ConfigError(f"puzzle_size must be 2..10, got {merged['puzzle_size']}")
    if not 3 <= merged["competitive_hand"] <= 20 or not 0 <= merged["refill_at"] < merged["competitive_hand"]:
        raise ConfigError("competitive_hand must be 3..20 and refill_at below it")
    faces = np.array([[LETTERS.index(ch) for ch in c] for c in cubes], dtype=np.int8)
    return {"faces": faces, "tokens": [tuple(int(x) for x in t) for t in tokens],
            "eruption_path": data["eruption_path"], "rules": merged}
