"""Warbah variant options, the rules tables (configs/warbah.yaml) and the Game factory."""
from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from envs.core.game import ConfigError, Game
from envs.warbah.board import MAP_SIZE

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "warbah.yaml"
BASIC = ("warriors", "archers", "cavalry", "catapults")
TERRAINS = ("clear", "settlement", "forest", "marsh", "desert", "hills", "mountains")
SETTLEMENTS = ("village", "town", "city", "castle", "mine", "tower", "capitol")
ABILITIES = ("wizardry", "command", "defense", "leadership", "tactics", "logistics", "scouting",
             "intrigue", "resist_spells", "navigation", "luck", "diplomacy", "prowess", "healing",
             "siegecraft", "strategy", "wealth")
# action table
DONE, RECRUIT, TAKE_GARRISON, RECRUIT_HERO, CALL_OFF, CONTINUE = 6, 7, 8, 9, 10, 11
CASUALTY0 = 12            # 12..15: lose one warrior/archer/cavalry/catapult
CAPITOL0 = 16             # 16..23: capitol candidate k
CAPITOL_AUTO = 24
EXCHANGE0 = 25            # 25..30: hand the army to the friendly hero in direction d
DROP_OFF = 31             # drop troops of the settlement's type into its garrison
BASE_END = 32
# -- block A: spells, wizards, towers, magic items (extend by moving SPELLS_END) ------------
SPELLS0 = BASE_END
SPELLS_END = SPELLS0
# -- block B: fleets/sea, espionage/agents, special units, alliances (extend by moving SEA_END)
SEA0 = SPELLS_END
SEA_END = SEA0
NUM_ACTIONS = SEA_END


@functools.lru_cache(maxsize=4)
def _load(path: str) -> dict:
    with open(path) as f:
        return yaml.safe_load(f)


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if k not in out:
            raise ConfigError(f"unknown rules key {k!r}")
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out[k], dict) else v
    return out


class WarbahGame(Game):
    name = "warbah_v0"
    num_actions = NUM_ACTIONS
    hidden_information = True

    def __init__(self, num_players: int = 2, rules: dict | None = None, **extra: Any):
        if extra:
            raise ConfigError(f"unknown options {sorted(extra)}")
        if num_players not in (2, 3, 4):
            raise ConfigError(f"num_players must be 2, 3 or 4, got {num_players!r}")
        if rules is not None and not isinstance(rules, dict):
            raise ConfigError("rules must be a dict overriding configs/warbah.yaml")
        self.num_players = self.num_seats = num_players
        self.rules_override = rules or {}
        self.cfg = _merge(_load(str(DEFAULT_CONFIG)), self.rules_override)
        d = self.cfg["designed"]
        for k in ("turn_cap", "max_actions", "hero_mp", "army_cap", "battle_round_cap"):
            if not isinstance(d[k], int) or d[k] < 1:
                raise ConfigError(f"designed.{k} must be a positive int")
        self.h, self.w = MAP_SIZE[num_players]
        self.troop = {k: (v["init"], v["kill"], v["cost"]) for k, v in self.cfg["troops"].items()}
        self.terrain_roll = {r: t["type"] for t in self.cfg["terrain"] for r in t["rolls"]}
        self.terrain = {t["type"]: t for t in self.cfg["terrain"]}
        self.settle_roll = {r: s["type"] for s in self.cfg["settlements"] for r in s["rolls"]}
        self.settle = {s["type"]: s for s in self.cfg["settlements"]}
        self.settle["capitol"] = dict(self.cfg["capitol"], type="capitol")
        n = self.h * self.w
        self.variant_names = sorted({v for t in self.cfg["variants"].values() for v in t.values()})
        # board planes: see observe.py
        self.observation_layout = [("board", (17, self.h, self.w)), ("vector", (48,))]
        self.n_cells = n

    def options(self) -> dict[str, Any]:
        out: dict[str, Any] = {"num_players": self.num_players}
        if self.rules_override:
            out["rules"] = self.rules_override
        return out

    def new_initial_state(self, rng: np.random.Generator):
        from envs.warbah.rules import WarbahState
        return WarbahState(self, rng)
