"""Warbah variant options, the rules tables (configs/warbah.yaml) and the Game factory."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np

from ..core.resources import config_path as data_file
from ..core.game import ConfigError, Game, read_yaml
from ..core.options import Option, OptionTable, merge_rules
from .board import MAP_SIZE

DEFAULT_CONFIG = data_file("warbah.yaml")
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
REALM0 = SPELLS0          # +k: cast (or, in the realm phase, discard) realm spell k (26)
BSPELL0 = REALM0 + 26     # +k: cast battle spell k (42)
GROUP0 = BSPELL0 + 42     # +t: target group warriors/archers/cavalry/catapults/hero/monster (6)
TSEAT0 = GROUP0 + 6       # +r: target the opponent r seats after me (r = 1..3; slot r-1)
CELL0 = TSEAT0 + 3        # +c: target map cell c (99 = largest map)
RECRUIT_WIZARD = CELL0 + 99   # recruit the tower's wizard into the hero on the tower
GIVE_ITEM0 = RECRUIT_WIZARD + 1   # +d: hand one magic item to the friendly hero in direction d
SPELLS_END = GIVE_ITEM0 + 6
# -- block B: fleets/sea, espionage/agents, special units, alliances (extend by moving SEA_END)
SEA0 = SPELLS_END
HIRE_AGENT = SEA0         # espionage: hire one more agent (1 gold, up to the espionage roll)
TARGET0 = SEA0 + 1        # +0..11: pick target slot k (espionage results; see espionage.py)
TARGET_SLOTS = 12
GIVE0 = TARGET0 + TARGET_SLOTS   # +4*d+t: give one troop of type t to the friendly hero in dir d
TAKE_ONE0 = GIVE0 + 24    # +t: take one garrison troop of type t into the acting hero's army
DROP_ONE0 = TAKE_ONE0 + 4  # +t: drop one troop of type t into the settlement's garrison
SHIP0 = DROP_ONE0 + 4     # +d: recruit one ship into the adjacent water hex in direction d
REROLL, KEEP_ROLL = SHIP0 + 6, SHIP0 + 7   # Luck: reroll the die just rolled / keep it
RECRUIT_SP = KEEP_ROLL + 1   # recruit one special unit at this variant hex into the Hero there
LOSS_SP0 = RECRUIT_SP + 1    # +u: lose one special unit of kind u (units.SPECIALS, 13)
ALLY_PROPOSE0 = LOSS_SP0 + 13   # +r-1: offer an alliance to the player r seats on (allies=True)
ALLY_BREAK0 = ALLY_PROPOSE0 + 3  # +r-1: declare the alliance with that player over
ALLY_GOLD0 = ALLY_BREAK0 + 3     # +r-1: give one gold to that ally
ALLY_ACCEPT, ALLY_DECLINE = ALLY_GOLD0 + 3, ALLY_GOLD0 + 4
FLEET0 = ALLY_DECLINE + 1   # +6*k+d: move own unmanned fleet k (k < 4, by cell) one hex in dir d
FLEET_SLOTS = 4
GIVE_SP0 = FLEET0 + 6 * FLEET_SLOTS   # +13*d+u: give one special unit u to the friendly hero in d
PASS0 = GIVE_SP0 + 6 * 13   # +d: two hexes straight on through a friendly/allied hero
LOOK0 = PASS0 + 6   # +d: Scouting: look at the index card of the adjacent Hero in direction d
CEDE0 = LOOK0 + 6    # +r-1: cede the settlement the acting hero stands on to ally r (allies)
HERO_TO0 = CEDE0 + 3  # +r-1: hand the acting hero (army, items) over to ally r (allies)
SEA_END = HERO_TO0 + 3
# -- magic additions (helper block): special-unit spell targets ----------------------------
MAGIC0 = SEA_END
MAGIC_SPGROUP0 = MAGIC0   # +u: battle-spell target = special-unit group u (units.SPECIALS, 13)
MAGIC_END = MAGIC_SPGROUP0 + 13
# -- battle helper block: combined attacks (declare, add joining Heroes, start) ------------
BATTLE_X0 = MAGIC_END
BATTLE_JOIN0 = BATTLE_X0  # +d: the own/allied Hero in direction d from the target joins in
BATTLE_START = BATTLE_JOIN0 + 6   # start the declared (combined) attack
BATTLE_ACCEPT, BATTLE_DECLINE = BATTLE_START + 1, BATTLE_START + 2  # an ally answers a call
BATTLE_TAKE_SP = BATTLE_DECLINE + 1  # take one special unit (e.g. Knights) from the garrison
BATTLE_DROP_SP = BATTLE_TAKE_SP + 1  # drop one special unit of the settlement's kind into it
BATTLE_X_END = BATTLE_DROP_SP + 1
# -- Luck helper block: reroll one die of a battle segment (luck.py windows, combat_flow) --
LUCK0 = BATTLE_X_END
LUCK_MINE = LUCK0         # reroll one of my side's missed attack dice of this segment
LUCK_FOE = LUCK0 + 1      # reroll one of the foe's successful attack dice of this segment
LUCK_END = LUCK0 + 2
NUM_ACTIONS = LUCK_END


class WarbahGame(Game):
    name = "warbah_v0"
    num_actions = NUM_ACTIONS
    hidden_information = True
    OPTIONS = OptionTable(
        "warbah_v0",
        Option("num_players", int, 2, "players", choices=(2, 3, 4)),
        Option("rules", dict, None, "overrides of any table of configs/warbah.yaml (nested)"),
        Option("allies", bool, False, "alliances between players (3 or 4 players)"),
    )

    def __init__(self, num_players: int = 2, rules: dict | None = None, allies: bool = False):
        self.num_players = self.num_seats = num_players
        if allies and num_players < 3:
            raise ConfigError("allies=True needs 3 or 4 players (block B: alliances)")
        self.allies = allies
        self.rules_override = rules or {}
        self.cfg = merge_rules(copy.deepcopy(read_yaml(str(DEFAULT_CONFIG))), self.rules_override)
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
        self.settle_roll = {r: s["type"] for s in self.cfg["settlements"] for r in s["rolls"]}
        self.settle = {s["type"]: s for s in self.cfg["settlements"]}
        self.settle["capitol"] = dict(self.cfg["capitol"], type="capitol")
        n = self.h * self.w
        self.variant_names = sorted({v for t in self.cfg["variants"].values() for v in t.values()})
        # board planes: see observe.py
        self.observation_layout = [("board", (17, self.h, self.w)), ("vector", (48,))]
        # block B (fleets, espionage): appended last, see block_b.observe_b
        self.observation_layout += [("board_b", (7, self.h, self.w)), ("vector_b", (76,))]
        # block A (spells, wizards, items): appended after block B, see spells.observe
        self.observation_layout += [("magic", (266,))]
        self.n_cells = n

    def options(self) -> dict[str, Any]:
        out: dict[str, Any] = {"num_players": self.num_players}
        if self.rules_override:
            out["rules"] = self.rules_override
        if self.allies:
            out["allies"] = True
        return out

    def _new_state(self, rng: np.random.Generator):
        from .rules import WarbahState
        return WarbahState(self, rng)
