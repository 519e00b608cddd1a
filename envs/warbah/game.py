"""The Warbah Game: one variant's options and rules tables (configs/warbah.yaml, read once),
and the factory of its states."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core.game import ConfigError, Game, read_yaml
from .actions import NUM_ACTIONS
from .board import MAP_SIZE
from .config import (BASIC, DEFAULT_CONFIG, SETTLEMENTS, SPECIALS, TERRAINS, SpellTables,
                     merge_rules)
from .rules import WarbahState


class WarbahGame(Game):
    name = "warbah_v0"
    num_actions = NUM_ACTIONS
    hidden_information = True

    def __init__(self, num_players: int = 2, rules: dict | None = None, allies: bool = False,
                 **extra: Any):
        if extra:
            raise ConfigError(f"unknown options {sorted(extra)}")
        if num_players not in (2, 3, 4):
            raise ConfigError(f"num_players must be 2, 3 or 4, got {num_players!r}")
        if rules is not None and not isinstance(rules, dict):
            raise ConfigError("rules must be a dict overriding configs/warbah.yaml")
        self.num_players = self.num_seats = num_players
        if allies not in (False, True) or (allies and num_players < 3):
            raise ConfigError("allies=True needs 3 or 4 players (alliances)")
        self.allies = bool(allies)
        self.rules_override = rules or {}
        self.cfg = merge_rules(read_yaml(str(DEFAULT_CONFIG)), self.rules_override)
        d = self.cfg["designed"]
        for k in ("turn_cap", "max_actions", "hero_mp", "army_cap", "battle_round_cap"):
            if not isinstance(d[k], int) or d[k] < 1:
                raise ConfigError(f"designed.{k} must be a positive int")
        if self.cfg["mass_formula"] not in (False, True):
            raise ConfigError("mass_formula must be true or false (the designer's shortcut)")
        self.h, self.w = MAP_SIZE[num_players]
        self.troop = {k: (v["init"], v["kill"], v["cost"]) for k, v in self.cfg["troops"].items()}
        self.terrain_roll = {r: t["type"] for t in self.cfg["terrain"] for r in t["rolls"]}
        self.terrain = {t["type"]: t for t in self.cfg["terrain"]}
        #: MP to enter a hex, by terrain code (config.TERRAINS order)
        self.terrain_mp = [self.terrain[t]["mp"] for t in TERRAINS]
        self.settle_roll = {r: s["type"] for s in self.cfg["settlements"] for r in s["rolls"]}
        self.settle = {s["type"]: s for s in self.cfg["settlements"]}
        self.settle["capitol"] = dict(self.cfg["capitol"], type="capitol")
        #: the basic troop type (config.BASIC index) each settlement recruits, -1 none (by
        #: settlement code, config.SETTLEMENTS order)
        self.settlement_recruits = [BASIC.index(self.settle[s]["recruit"])
                                    if self.settle[s]["recruit"] in BASIC else -1
                                    for s in SETTLEMENTS]
        self.variant_names = sorted({v for t in self.cfg["variants"].values() for v in t.values()})
        self.spells = SpellTables(self.cfg)
        #: {ability: indices of the special unit kinds granting it} (SPECIAL UNIT TYPES)
        self.granting_units: dict[str, list[int]] = {}
        for u, kind in enumerate(SPECIALS):
            for a in self.cfg["special_units"][kind].get("grants", ()):
                if u not in self.granting_units.setdefault(a, []):
                    self.granting_units[a].append(u)
        self.n_cells = self.h * self.w
        # the observation (observe.py): map planes and vector; fleets, espionage, special
        # units and alliances; magic
        self.observation_layout = [("board", (17, self.h, self.w)), ("vector", (48,)),
                                   ("board_b", (7, self.h, self.w)), ("vector_b", (76,)),
                                   ("magic", (266,))]

    def options(self) -> dict[str, Any]:
        out: dict[str, Any] = {"num_players": self.num_players}
        if self.rules_override:
            out["rules"] = self.rules_override
        if self.allies:
            out["allies"] = True
        return out

    def new_initial_state(self, rng: np.random.Generator):
        return WarbahState(self, rng)
