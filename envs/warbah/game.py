"""The Warbah Game: one variant's options and rules tables (configs/warbah.yaml, read once),
and the factory of its states."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core.game import ConfigError, Game
from ..core.options import Option, OptionTable
from .actions import NUM_ACTIONS
from .board import MAP_SIZE
from .config import BASIC, SETTLEMENTS, SPECIALS, TERRAINS, SpellTables, load_tables
from .rules import WarbahState


class WarbahGame(Game):
    name = "warbah_v0"
    num_actions = NUM_ACTIONS
    hidden_information = True
    #: the constructor's options, checked by envs.core.game.Game before ``__init__`` runs
    OPTIONS = OptionTable(
        "warbah_v0",
        Option("num_players", int, 2, "players", choices=(2, 3, 4)),
        Option("rules", dict, None, "overrides of any table of configs/warbah.yaml (nested)"),
        Option("allies", bool, False, "alliances between players (3 or 4 players)"),
    )

    def __init__(self, num_players: int = 2, rules: dict | None = None, allies: bool = False):
        self.num_players = self.num_seats = num_players
        if allies and num_players < 3:
            raise ConfigError("allies=True needs 3 or 4 players (alliances)")
        self.allies = allies
        self.rules_override = rules or {}
        # the file with the overrides, checked against config.SCHEMA (every section and field:
        # type, range; what ties fields together): a fresh table, never read_yaml's cached one
        self.cfg = load_tables(self.rules_override)
        self.h, self.w = MAP_SIZE[num_players]
        self.troop = {k: (v["init"], v["kill"], v["cost"]) for k, v in self.cfg["troops"].items()}
        self.terrain_roll = {r: t["type"] for t in self.cfg["terrain"] for r in t["rolls"]}
        self.terrain = {t["type"]: t for t in self.cfg["terrain"]}
        #: MP to enter a hex, by terrain code (config.TERRAINS order)
        self.terrain_mp = [self.terrain[t]["mp"] for t in TERRAINS]
        self._step_constants()
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

    def _step_constants(self) -> None:
        """The rules numbers read on every step, as plain attributes (no dict lookups on the hot
        path). The game reads its rules when built: a later edit of ``cfg`` is not seen."""
        d, sea = self.cfg["designed"], self.cfg["sea"]
        self.army_cap, self.command_bonus = d["army_cap"], d["command_bonus"]
        self.troop_types, self.max_recruit = d["troop_types"], d["max_recruit_per_settlement"]
        # the backstops scale with the player count: turns per player, actions per player-turn
        self.turn_cap = d["turn_cap_per_player"] * self.num_seats
        self.max_actions = d["action_cap_per_player_turn"] * self.num_seats * self.turn_cap
        self.sea_moves, self.ship_cost = sea["sea_moves"], sea["ship_cost"]
        self.mass_formula = bool(self.cfg["mass_formula"])

    def options(self) -> dict[str, Any]:
        out: dict[str, Any] = {"num_players": self.num_players}
        if self.rules_override:
            out["rules"] = self.rules_override
        if self.allies:
            out["allies"] = True
        return out

    def _new_state(self, rng: np.random.Generator):
        return WarbahState(self, rng)
