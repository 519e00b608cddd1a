"""Warbah rules tables: the names the engine indexes by, the phases, and configs/warbah.yaml.

The numbers themselves (troop ranks, terrain costs, the designed values) live in
configs/warbah.yaml; game.WarbahGame reads them once per variant.
"""
from __future__ import annotations

from ..core.resources import config_path as data_file

DEFAULT_CONFIG = data_file("warbah.yaml")
BASIC = ("warriors", "archers", "cavalry", "catapults")
TERRAINS = ("clear", "settlement", "forest", "marsh", "desert", "hills", "mountains")
SETTLEMENTS = ("village", "town", "city", "castle", "mine", "tower", "capitol")
#: the 13 special unit kinds (SPECIAL UNIT TYPES), in the order of a Hero's ``specials``
SPECIALS = ("woodsmen", "elves", "fey", "goblins", "dwarves", "orcs", "kobolds", "gnomes",
            "djinn", "bandits", "knights", "undead", "hobgoblins")
NUM_SPECIALS = len(SPECIALS)
ABILITIES = ("wizardry", "command", "defense", "leadership", "tactics", "logistics", "scouting",
             "intrigue", "resist_spells", "navigation", "luck", "diplomacy", "prowess", "healing",
             "siegecraft", "strategy", "wealth")
#: realm-spell windows (REALM SPELLS: when each spell may be cast), in turn order
TIMINGS = ("discard", "collect", "recruit", "espionage", "move", "disaster", "recovery")

# -- phases (``state.phase``) -------------------------------------------------------------------
#: the turn's own phases (observation vector 0-6)
TURN_PHASES = ("capitol", "recruit", "move", "battle", "casualty", "call_off", "over")
SPY_PHASES = ("espionage", "spy_loss")          # espionage.py
SEA_SUBSTEP_PHASES = ("luck", "sea_loss")       # luck.py, fleets.py
DIPLOMACY_PHASES = ("diplomacy", "ally_answer")  # diplomacy.py
#: the sub-steps of espionage, Luck, troop loss at sea and diplomacy (observation order)
SUBSTEP_PHASES = SPY_PHASES + SEA_SUBSTEP_PHASES + DIPLOMACY_PHASES
JOIN_PHASES = ("join", "join_answer")           # combined attacks (battle_flow.py)
REALM_PHASES = ("realm", "realm_target")        # realm_spells.py
BATTLE_SPELL_PHASES = ("spell", "spell_target")  # battle_spells.py
MAGIC_PHASES = REALM_PHASES + BATTLE_SPELL_PHASES


class SpellTables:
    """The spell cards of configs/warbah.yaml by id (realm and battle spells in file order)."""

    def __init__(self, cfg: dict):
        sp = cfg["spells"]
        self.cfg = sp
        self.realm_names = list(sp["realm"])
        self.battle_names = list(sp["battle"])
        self.realm = [sp["realm"][k] for k in self.realm_names]
        self.battle = [sp["battle"][k] for k in self.battle_names]
        self.by_timing = {t: [k for k, r in enumerate(self.realm) if r["timing"] == t]
                          for t in TIMINGS}
        self.NR, self.NB = len(self.realm), len(self.battle)
        self.dispell = self.battle_names.index("dispell")
