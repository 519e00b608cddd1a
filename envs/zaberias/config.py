"""Zaberias variant options and rules data (configs/zaberias.yaml), validated on load."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..core.resources import config_path as data_file
from ..core.game import ConfigError, Game
from ..core.options import Option, OptionTable, merge_rules, read_config
from .board import MAX_RANGE, MapTables

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


class ZaberiasGame(Game):
    """One Zaberias variant. See ``envs/zaberias/env.py`` for the options."""

    name = "zaberias_v0"
    hidden_information = False
    OPTIONS = OptionTable(
        "zaberias_v0",
        Option("num_players", int, 2, "players", low=2, high=4),
        Option("tribes", list, None, "one distinct tribe per player (default: the first ones)",
               choices=TRIBES),
        Option("rules", dict, None, "overrides of the rules table (configs/zaberias.yaml)"),
        Option("config_path", os.PathLike, None, "a rules file replacing configs/zaberias.yaml"),
    )

    def __init__(self, num_players: int = 2, tribes: list | tuple | None = None,
                 rules: dict | None = None, config_path: str | None = None):
        if tribes is None:
            tribes = TRIBES[:num_players]
        tribes = tuple(tribes)
        if len(tribes) != num_players or any(t not in TRIBES for t in tribes) \
                or len(set(tribes)) != len(tribes):
            raise ConfigError(f"tribes must be {num_players} distinct names from {TRIBES}, "
                              f"got {tribes!r}")
        self.num_seats = num_players
        self.tribes = tribes
        self.config_path = None if config_path is None else os.fspath(config_path)
        self._rules_override = dict(rules or {})
        tables = load_tables(config_path, rules)
        data = tables["data"]
        self.rules = tables["rules"]
        self.die_faces = tables["faces"]
        self.rosters = [tables["rosters"][t] for t in tribes]
        self.U = len(self.rosters[0])
        try:
            placements = data["layouts"][num_players]
            self.maps = MapTables(data["board"], data.get("roads", []), placements)
        except (KeyError, ValueError) as exc:
            raise ConfigError(f"bad map config: {exc}") from None
        g0 = self.maps.geometry((0,) * num_players)
        self.H, self.W, self.N = g0.H, g0.W, g0.N
        self.S = len(g0.site_cells)
        self.sites_per_board = self.maps.sites_per_board
        self.city_dice = [0] + [int(x) for x in data["city_dice"]]
        self.city_income = [0] + [int(x) for x in data["city_income"]]
        self.city_cost = [0] + [int(x) for x in data["city_cost"]]
        #: unit specs by global unit id (seat * U + slot)
        self.specs = [spec for roster in self.rosters for spec in roster]
        #: (seat, ability) -> unit id (each ability appears once per roster at most)
        self.ability_uid = {}
        for uid, spec in enumerate(self.specs):
            self.ability_uid.setdefault((uid // self.U, spec.ability), uid)
        from . import actions as A
        # a Siphon may briefly hold more than its capacity (an ambush, a Siphon-on-Siphon
        # transfer) and then chooses whom to keep: one RELEASE per enemy unit in the game
        self.layout = A.ActionLayout(self.U, self.S, self.N, (num_players - 1) * self.U)
        self.num_actions = self.layout.size
        # MOVE, ATTACK and ABILITY: three consecutive blocks over the N cells of the grid
        self.spatial_actions = [[self.layout.MOVE, 3]]
        from .observe import observation_layout
        self.observation_layout = observation_layout(self)

    def options(self) -> dict[str, Any]:
        return {"num_players": self.num_seats, "tribes": list(self.tribes),
                "rules": self._rules_override, "config_path": self.config_path}

    def slot_of(self, tribe_index: int, name: str) -> int:
        """Roster slot of the unit called ``name`` in the tribe of seat ``tribe_index``."""
        for i, spec in enumerate(self.rosters[tribe_index]):
            if spec.name == name:
                return i
        raise KeyError(name)

    def _new_state(self, rng: np.random.Generator):
        from .rules import ZaberiasState
        return ZaberiasState(self, rng)
