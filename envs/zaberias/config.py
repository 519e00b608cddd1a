"""Zaberias rules data (configs/zaberias.yaml), validated on load, and the game's vocabulary
(tribes, ability groups, phases)."""
from __future__ import annotations

from typing import NamedTuple

from ..core.game import ConfigError
from ..core.options import Option, merge_rules, read_config
from ..core.resources import config_path as data_file
from .board import MAX_RANGE

DEFAULT_CONFIG = data_file("zaberias.yaml")
TRIBES = ("undead", "humans", "orcs", "guardians")
ABILITY_GROUP = {
    "none": "basic",
    "love": "sorcerer", "dazzle": "sorcerer", "shock": "sorcerer", "glue": "sorcerer",
    "vampire": "siphon", "ninja": "siphon", "headhunter": "siphon", "phantom": "siphon",
    "necromancer": "helper", "teleport": "helper", "energize": "helper", "share": "helper",
    "plague": "titan", "armor": "titan", "trample": "titan", "rotate": "titan",
    "skull": "dragon", "carry": "dragon", "cluster": "dragon", "twohead": "dragon",
}
#: siphons that keep defeated units underneath them (the Head Hunter sells heads instead)
HOLDING_SIPHONS = ("vampire", "ninja", "phantom")
#: the phases of a turn, in the order of the observation's phase one-hot
PHASES = ("main", "unit", "buy_city", "teleport", "rhino", "ambush", "tie", "siphon", "pickup",
          "tele_move", "over")


class UnitSpec(NamedTuple):
    name: str
    glyph: str
    dice: int
    muscle: int
    range: int
    steps: int
    grade: int
    cost: int
    fly: bool
    swim: bool
    ability: str
    group: str


def _parse_roster(tribe: str, rows) -> tuple[UnitSpec, ...]:
    out = []
    for row in rows:
        if not isinstance(row, list) or len(row) != 10:
            raise ConfigError(f"{tribe}: a unit row needs 10 fields, got {row!r}")
        name, glyph, dice, muscle, rng, steps, grade, cost, flags, ability = row
        if ability not in ABILITY_GROUP:
            raise ConfigError(f"{tribe} {name}: unknown ability {ability!r}")
        if not (0 <= int(dice) <= 6 and 0 <= int(muscle) <= 9 and 1 <= int(rng) <= MAX_RANGE - 1
                and 1 <= int(steps) <= 8 and 1 <= int(grade) <= 3 and 0 <= int(cost) <= 6):
            raise ConfigError(f"{tribe} {name}: stats out of range {row!r}")
        if str(flags) not in ("-", "f", "s", "fs"):
            raise ConfigError(f"{tribe} {name}: flags must be -, f, s or fs")
        out.append(UnitSpec(str(name), str(glyph)[:1], int(dice), int(muscle), int(rng),
                            int(steps), int(grade), int(cost), "f" in str(flags),
                            "s" in str(flags), str(ability), ABILITY_GROUP[str(ability)]))
    return tuple(out)


#: ranges of the rules-table keys (their types come from configs/zaberias.yaml)
RULE_LIMITS = (
    Option("start_coins", int, low=0, high=20),
    Option("max_coins", int, low=1, high=20),
    Option("siphon_capacity", int, low=1, high=3),
    Option("headhunter_coins", int, low=0, high=20),
    Option("max_rounds", int, low=1, high=500),
    Option("max_actions", int, low=10, high=100000),
)


def load_tables(path=None, rules: dict | None = None) -> dict:
    data = read_config(path, DEFAULT_CONFIG, RULE_LIMITS)
    try:
        rosters = {t: _parse_roster(t, data["tribes"][t]) for t in TRIBES}
    except KeyError as exc:
        raise ConfigError(f"config lacks tribe {exc}") from None
    sizes = {len(r) for r in rosters.values()}
    if len(sizes) != 1:
        raise ConfigError("every tribe roster must have the same number of units")
    faces = [int(f) for f in data["die_faces"]]
    if not faces or min(faces) < 0 or max(faces) > 9:
        raise ConfigError("die_faces must be digits 0..9 (0 = blank)")
    merged = merge_rules(data.get("rules"), rules, limits=RULE_LIMITS)
    if merged["start_coins"] > merged["max_coins"]:
        raise ConfigError(f"rules key 'start_coins' ({merged['start_coins']}) cannot exceed "
                          f"'max_coins' ({merged['max_coins']})")
    return {"data": data, "rosters": rosters, "faces": tuple(faces), "rules": merged}
