"""Warbah rules tables: the names the engine indexes by, the phases, and configs/warbah.yaml
with its schema (``SCHEMA``: every section and field, type and range; ``load_tables`` checks
the file with the ``rules=`` overrides against it).

The numbers themselves (troop ranks, terrain costs, the designed values) live in
configs/warbah.yaml; ``WarbahTables`` (the base of game.WarbahGame) reads them once per variant.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal, TypedDict, get_args

from ..core.game import ConfigError, Game, read_yaml
from ..core.options import REQUIRED, Option, merge_rules
from ..core.resources import config_path as data_file
from .board import MAP_SIZE

DEFAULT_CONFIG = data_file("warbah.yaml")
BASIC = ("warriors", "archers", "cavalry", "catapults")
TERRAINS = ("clear", "settlement", "forest", "marsh", "desert", "hills", "mountains")
SETTLEMENTS = ("village", "town", "city", "castle", "mine", "tower", "capitol")
#: the 13 special unit kinds (SPECIAL UNIT TYPES), in the order of a Hero's ``specials``
SPECIALS = ("woodsmen", "elves", "fey", "goblins", "dwarves", "orcs", "kobolds", "gnomes",
            "djinn", "bandits", "knights", "undead", "hobgoblins")
NUM_SPECIALS = len(SPECIALS)
#: a Hero's abilities (ABILITY TABLE, RARE ABILITY TABLE), in the observation's order: a name
#: outside them is an error (mypy checks the names written in the code, ``heroes.ability`` any
#: name at run time; the rules file's tables are checked against ABILITIES by SCHEMA)
Ability = Literal["wizardry", "command", "defense", "leadership", "tactics", "logistics",
                  "scouting", "intrigue", "resist_spells", "navigation", "luck", "diplomacy",
                  "prowess", "healing", "siegecraft", "strategy", "wealth"]
ABILITIES: tuple[Ability, ...] = get_args(Ability)
#: realm-spell windows (REALM SPELLS: when each spell may be cast), in turn order
Timing = Literal["discard", "collect", "recruit", "espionage", "move", "disaster", "recovery"]
TIMINGS: tuple[Timing, ...] = get_args(Timing)

# -- phases (``state.phase``) -------------------------------------------------------------------
#: every phase a Warbah position can be in (``state.WarbahState.phase``): a phase compared or
#: set by a name outside it is a type error (strict_equality), not a silent False
Phase = Literal["capitol", "recruit", "move", "battle", "casualty", "call_off", "over",
                "espionage", "spy_loss", "luck", "sea_loss", "diplomacy", "ally_answer",
                "join", "join_answer", "realm", "realm_target", "spell", "spell_target"]
#: the turn's own phases (observation vector 0-6)
TURN_PHASES: tuple[Phase, ...] = ("capitol", "recruit", "move", "battle", "casualty", "call_off", "over")
SPY_PHASES: tuple[Phase, ...] = ("espionage", "spy_loss")          # espionage.py
SEA_SUBSTEP_PHASES: tuple[Phase, ...] = ("luck", "sea_loss")       # luck.py, fleets.py
DIPLOMACY_PHASES: tuple[Phase, ...] = ("diplomacy", "ally_answer")  # diplomacy.py
#: the sub-steps of espionage, Luck, troop loss at sea and diplomacy (observation order)
SUBSTEP_PHASES = SPY_PHASES + SEA_SUBSTEP_PHASES + DIPLOMACY_PHASES
JOIN_PHASES: tuple[Phase, ...] = ("join", "join_answer")           # combined attacks (battle_flow.py)
REALM_PHASES: tuple[Phase, ...] = ("realm", "realm_target")        # realm_spells.py
BATTLE_SPELL_PHASES: tuple[Phase, ...] = ("spell", "spell_target")  # battle_spells.py
MAGIC_PHASES = REALM_PHASES + BATTLE_SPELL_PHASES


class SpellTables:
    """The spell cards of configs/warbah.yaml by id (realm and battle spells in file order)."""

    def __init__(self, cfg: dict):
        sp = cfg["spells"]
        self.cfg = sp
        self.realm_names = list(sp["realm"])
        self.battle_names = list(sp["battle"])
        self.realm: list[RealmSpell] = [sp["realm"][k] for k in self.realm_names]
        self.battle: list[BattleSpell] = [sp["battle"][k] for k in self.battle_names]
        self.by_timing = {t: [k for k, r in enumerate(self.realm) if r["timing"] == t]
                          for t in TIMINGS}
        self.NR, self.NB = len(self.realm), len(self.battle)
        self.dispell = self.battle_names.index("dispell")



# -- the rules file: its schema (every section and field) and what ties fields together -------
#: variant names a terrain's VARIANT TYPES table may give a hex
VARIANTS = ("lumbermill", "gold_mine", "temple", "merchant_caravan") + tuple(
    f"recruit_{u}" for u in SPECIALS)
TROOP_KINDS = BASIC + ("hero",)
#: realm-spell targets (realm_spells._TARGETS) and effects (realm_spells._EFFECTS)
RealmTarget = Literal["none", "adj_army", "adj_settlement", "adj_encounter", "adj_ship", "opponent",
                      "hero_no_wizard", "own_cell", "any_cell", "unexplored_cell"]
REALM_TARGETS: tuple[RealmTarget, ...] = get_args(RealmTarget)
RealmEffect = Literal["sea_move", "teleport", "dimension_door", "fly", "blizzard", "raze",
                      "decimate", "death", "gain_warriors", "gold", "curse", "heal", "research",
                      "avatar", "banish", "whirlpool", "sanctuary", "stone_walls", "view", "scry",
                      "fortell"]
REALM_EFFECTS: tuple[RealmEffect, ...] = get_args(RealmEffect)
#: battle-spell effects (battle_spells: the scheduled ones, _EFFECTS, dispell)
BattleEffect = Literal["kill", "neutralize", "neutralize_kill", "weaken", "control", "blessing",
                       "boost", "group_boost", "smite", "stone_to_mud", "shield", "forget",
                       "spellbind", "armor", "raise_dead", "illusions", "summon", "shatter", "slow",
                       "ice_wall", "block", "precision", "fog", "dispell"]
BATTLE_EFFECTS: tuple[BattleEffect, ...] = get_args(BattleEffect)
#: a battle's troop groups 0-5 (the spells' target groups before the special units)
GroupName = Literal["warriors", "archers", "cavalry", "catapults", "hero", "monster"]
GROUP_NAMES: tuple[GroupName, ...] = get_args(GroupName)


# the spell cards as the rules read them (``SpellTables.realm`` / ``battle``): the keys of
# _REALM / _BATTLE below, a key with a default absent from a card that leaves it out
# (tests/warbah/test_typed.py keeps the two in step)
class _RealmSpellKeys(TypedDict):
    timing: Timing
    target: RealmTarget
    effect: RealmEffect
    text: str


class RealmSpell(_RealmSpellKeys, total=False):
    """A realm-spell card (configs/warbah.yaml spells.realm)."""
    n: int
    dice: int


class _BattleSpellKeys(TypedDict):
    effect: BattleEffect
    text: str


class BattleSpell(_BattleSpellKeys, total=False):
    """A battle-spell card (configs/warbah.yaml spells.battle)."""
    n: int
    d5: int
    init: int
    kill: int
    group: bool
    own_group: bool
    types: Literal["all"] | list[GroupName]
    rounds: int
    hits: int


#: what a spell card does is the engine's (the actions and observation are laid out per card):
#: these keys of a card keep their shipped values; its numbers may change within their ranges
FIXED_SPELL_KEYS = ("timing", "target", "effect", "group", "own_group")
#: SEA ENCOUNTER TABLE: the keys each kind of sea encounter reads
SEA_KIND_KEYS = {"monster": ("monster",), "storm": ("sink_max",), "winds": ("moves",),
                 "becalmed": ("moves",), "pirates": ()}
ESPIONAGE_RESULTS = ("kill_hero", "garrison", "item", "steal_gold", "damage", "delay", "wizard",
                     "disband", "false_orders", "sink")


def _n(name: str, low: int, high: int, doc: str = "", default: Any = REQUIRED) -> Option:
    return Option(name, int, default, doc, low=low, high=high)


def _s(name: str, choices: tuple, doc: str = "", default: Any = REQUIRED) -> Option:
    return Option(name, str, default, doc, choices=choices)


def _b(name: str, doc: str = "", default: Any = REQUIRED) -> Option:
    return Option(name, bool, default, doc)


def _record(name: str, *fields: Option, doc: str = "", default: Any = REQUIRED) -> Option:
    return Option(name, dict, default, doc, fields=fields)


def _table(name: str, keys: Option, each: Option, size: tuple[int, int], doc: str = "") -> Option:
    return Option(name, dict, doc=doc, keys=keys, each=each, size=size)


_D10 = _n("d10", 1, 10)
_ROLLS = Option("rolls", list, doc="its d10 results", size=(1, 10), each=_n("roll", 1, 10))
_TEXT = Option("text", str, doc="card text", size=(1, 200))
_MONSTER = _record("monster", _n("init", 0, 10), _n("kill", 0, 10), _n("hits", 1, 20),
                   _b("hits_ships", "its kills sink ships", False), doc="a monster foe", default={})
_GROUPS = Option("groups", list, [], "troop groups: [troop, number of d10]", size=(0, 4),
                 each=Option("group", list, fields=(_s("troop", BASIC), _n("dice", 1, 5))))
_TROOP = _record("troop", _n("cost", 0, 50, "gold"), _n("init", 0, 10, "initiative"),
                 _n("kill", 0, 10, "1d10 <= kill scores a kill"))
_UNIT = _record("unit", _n("cost", 0, 20), _n("init", 0, 10), _n("kill", 0, 10),
                _s("location", TERRAINS + ("castle",)),
                Option("grants", list, doc="abilities the Hero gets", size=(0, 5),
                       each=_s("ability", ABILITIES)),
                _n("regenerate_dice", 0, 5, default=0))
_FIXED = "fixed: each card keeps its shipped value"
_REALM = _record("realm spell", _s("timing", TIMINGS, _FIXED), _s("target", REALM_TARGETS, _FIXED),
                 _s("effect", REALM_EFFECTS, _FIXED), _n("n", 0, 10, default=0),
                 _n("dice", 1, 5, "d10 rolled", default=1), _TEXT)
_BATTLE = _record("battle spell", _s("effect", BATTLE_EFFECTS, _FIXED),
                  _n("n", 0, 10, "units", default=0),
                  _n("d5", 1, 5, "d5 rolled for the units", default=1),
                  _n("init", -5, 10, "initiative segment or modifier", default=0),
                  _n("kill", -5, 5, "kill rank modifier", default=0),
                  _b("group", f"the caster picks a target group ({_FIXED})", False),
                  _b("own_group", f"the target group is the caster's own ({_FIXED})", False),
                  Option("types", (str, list), [], "the groups it acts on ('all': every group, "
                         "only where the card has it)",
                         choices=GROUP_NAMES + ("all",), size=(1, 6)),
                  _n("rounds", 1, 10, default=1), _n("hits", 1, 20, default=1), _TEXT)

#: the whole of configs/warbah.yaml (the rules= option overrides any part of it, nested)
SCHEMA = Option("", dict, fields=(
    Option("terrain", list, doc="TERRAIN TABLE: every terrain once, each d10 roll once",
           size=(len(TERRAINS), len(TERRAINS)), each=_record(
               "terrain", _s("type", TERRAINS), _ROLLS, _n("mp", 1, 6, "movement points to enter"),
               _n("walls", 0, 5, "defensive wall ranks"))),
    _n("encounter_chance", 0, 10, "non-settlement terrain holds an encounter on d10 <= this"),
    _record("river", _n("cross_mp", 1, 6), _n("same_side_walls", 0, 5), _n("cross_walls", 0, 5)),
    Option("settlements", list, doc="SETTLEMENT TABLE: every settlement once, each d10 roll once",
           size=(len(SETTLEMENTS) - 1, len(SETTLEMENTS) - 1), each=_record(
               "settlement", _s("type", SETTLEMENTS[:-1]), _ROLLS, _n("gold", 0, 10, "per turn"),
               _n("walls", 0, 10), _s("recruit", BASIC + ("none",)))),
    _record("capitol", _n("gold", 0, 10), _n("walls", 0, 10), _s("recruit", BASIC + ("none",))),
    _record("adjacency_bonus", _s("village", TERRAINS), _s("mine", TERRAINS),
            doc="+1 gold per adjacent terrain of this kind"),
    _record("troops", *(replace(_TROOP, name=k) for k in TROOP_KINDS)),
    _table("encounters", _D10, _record(
        "encounter", Option("name", str, size=(1, 40)), _GROUPS,
        _n("treasure", 0, 3, "treasure rolls", default=0),
        _n("lose_dice", 1, 5, "disease: d10 troops lost", default=1), _MONSTER,
        _b("wizard", default=False), _b("hero", default=False)), (10, 10), "ENCOUNTER TABLE"),
    Option("treasure", list, doc="TREASURE TABLE: each d10 roll once", size=(1, 10), each=_record(
        "treasure", _ROLLS, _n("gold_dice", 1, 5, default=1), _n("followers_dice", 1, 5, default=1),
        _b("wandering_mage", default=False),
        _s("magic_item", ("ability", "realm", "battle"), default="ability"))),
    _table("abilities", _D10, _s("ability", ABILITIES), (1, 10), "ABILITY TABLE (d10; the rest "
           "from rare_abilities)"),
    _table("rare_abilities", _D10, _s("ability", ABILITIES), (10, 10)),
    _table("random_troop_type", _n("d5", 1, 5), _s("troop", TROOP_KINDS), (5, 5)),
    _record("designed", _n("turn_cap_per_player", 1, 100, "turns a player before the game is ranked"),
            _n("action_cap_per_player_turn", 1, 1000,
               "engine actions a player a turn (of the turn cap) before the game is ranked"),
            _n("start_gold", 0, 100), _n("hero_mp", 1, 10, "a Hero's movement points"),
            _n("army_cap", 1, 200, "troops per army"), _n("command_bonus", 0, 50),
            _n("max_recruit_per_settlement", 1, 20), _n("wall_break_chance", 0, 10),
            _n("battle_round_cap", 1, 50), _n("capitol_candidates", 4, 8, "capitol sites offered"),
            _n("troop_types", 1, 10, "troop types per army"),
            _record("victory", _b("heroless_out"),
                    _n("domination_min", 1, 100, "settlements held"),
                    Option("domination_share", float, doc="more than 0.5 of all held settlements",
                           low=0.5, high=1.0))),
    _table("variants", _s("terrain", TERRAINS + ("castle",)),
           _table("table", _D10, _s("variant", VARIANTS), (1, 10)), (1, 8), "VARIANT TYPES"),
    _record("variant_gold", _n("lumbermill", 0, 10), _n("gold_mine", 0, 10)),
    _b("mass_formula", "the designers' one-roll kill shortcut"),
    _n("caravan_gold_dice", 0, 5),
    _record("espionage", _record("table", _n("failure_max", 0, 10), _n("look_max", 0, 10)),
            _table("agent_success", _D10, _s("result", ESPIONAGE_RESULTS), (10, 10)),
            _n("agent_cost", 0, 20, "gold per agent"), _n("contact_distance", 1, 10)),
    _record("sea", _n("ship_cost", 0, 20), _n("ship_init", 0, 10), _n("ship_kill", 0, 10),
            _n("ship_capacity", 1, 50, "land units per ship"), _n("sea_moves", 1, 10),
            _table("encounters", _D10, _record(
                "sea encounter", _s("kind", tuple(SEA_KIND_KEYS)), _MONSTER,
                _n("treasure", 0, 3, default=0), _n("sink_max", 0, 10, default=0),
                _n("moves", -10, 10, default=0), _n("ships", 0, 10, default=0), _GROUPS),
                (1, 10), "SEA ENCOUNTER TABLE (d10; the rest: nothing)"),
            _n("island_min_size", 0, 20, "0: the main land mass only")),
    _record("spells", _n("wizard_cost", 0, 50), _n("battle_draw", 0, 10, "drawn per battle"),
            _n("disaster_troop_dice", 0, 5),
            _table("realm", Option("spell", str, size=(1, 40)), _REALM, (1, 64)),
            _table("battle", Option("spell", str, size=(1, 40)), _BATTLE, (1, 64))),
    _record("special_units", *(replace(_UNIT, name=u) for u in SPECIALS)),
))


def _partition(rows: list, what: str) -> None:
    seen = sorted(r for row in rows for r in row["rolls"])
    if seen != list(range(1, 11)):
        raise ConfigError(f"rules.{what}: the rolls must cover 1..10 once each, got {seen}")


def load_tables(rules: dict | None = None) -> dict:
    """configs/warbah.yaml with the ``rules=`` overrides (any part of the file, nested), checked
    against ``SCHEMA`` and then for what ties fields together."""
    default = read_yaml(str(DEFAULT_CONFIG))
    cfg = merge_rules(default, rules, "rules", SCHEMA)
    for key, names in (("terrain", TERRAINS), ("settlements", SETTLEMENTS[:-1])):
        if sorted(row["type"] for row in cfg[key]) != sorted(names):
            raise ConfigError(f"rules.{key}: every type of {list(names)} once")
        _partition(cfg[key], key)
    _partition(cfg["treasure"], "treasure")
    share = cfg["designed"]["victory"]["domination_share"]
    if not 0.5 < share <= 1:
        raise ConfigError("rules.designed.victory.domination_share must be more than 0.5 (one "
                          f"dominating player at most), got {share}")
    table = cfg["espionage"]["table"]
    if table["failure_max"] > table["look_max"]:
        raise ConfigError("rules.espionage.table: failure_max cannot exceed look_max")
    for kind in ("realm", "battle"):
        shipped = default["spells"][kind]
        for spell, row in cfg["spells"][kind].items():
            for key in FIXED_SPELL_KEYS:
                if row.get(key) != shipped[spell].get(key):
                    raise ConfigError(f"rules.spells.{kind}.{spell}.{key} is the engine's "
                                      f"({shipped[spell].get(key)!r}): it cannot change")
            was = shipped[spell].get("types")
            if "types" in row and isinstance(row["types"], str) != isinstance(was, str):
                raise ConfigError(f"rules.spells.{kind}.{spell}.types must be "
                                  f"{repr(was) if isinstance(was, str) else 'a list of groups'}")
    for d, row in cfg["sea"]["encounters"].items():
        missing = [k for k in SEA_KIND_KEYS[row["kind"]] if k not in row]
        if missing:
            raise ConfigError(f"rules.sea.encounters.{d}: a {row['kind']} encounter needs "
                              f"{', '.join(missing)}")
    return cfg


class WarbahTables(Game):
    """One variant's rules tables, read once when the game is built (configs/warbah.yaml with the
    ``rules=`` overrides, checked by ``load_tables``): what the rules read from ``st.game``. The
    base of game.WarbahGame, which adds the options and builds the states; declared here, below
    the rules, so that state.WarbahState types its ``game`` without an import cycle. The game
    reads its rules when built: a later edit of ``cfg`` is not seen."""

    num_players: int
    allies: bool
    rules_override: dict
    cfg: dict                       # the checked rules file (configs/warbah.yaml + overrides)
    h: int                          # the map's rows and columns (board.MAP_SIZE)
    w: int
    n_cells: int
    troop: dict[str, tuple[int, int, int]]  # troop type -> (initiative, kill, cost)
    terrain_roll: dict[int, str]    # TERRAIN TABLE: d10 -> terrain type
    terrain: dict[str, dict]        # terrain type -> its row
    terrain_mp: list[int]           # MP to enter a hex, by terrain code (TERRAINS order)
    settle_roll: dict[int, str]     # SETTLEMENT TABLE: d10 -> settlement type
    settle: dict[str, dict]         # settlement type -> its row (the capitol included)
    #: the basic troop type (BASIC index) each settlement recruits, -1 none (SETTLEMENTS order)
    settlement_recruits: list[int]
    variant_names: list[str]
    spells: SpellTables
    #: {ability: indices of the special unit kinds granting it} (SPECIAL UNIT TYPES)
    granting_units: dict[Ability, list[int]]
    # the rules numbers read on every step (``_step_constants``)
    army_cap: int
    command_bonus: int
    troop_types: int
    max_recruit: int
    turn_cap: int
    max_actions: int
    sea_moves: int
    ship_cost: int
    mass_formula: bool
    # caches of the observation (map_planes.py), built on first use
    _obs_wall_tables: tuple[Any, Any]
    _obs_size: int

    def __init__(self, num_players: int, rules: dict | None, allies: bool):
        self.num_players = self.num_seats = num_players
        if allies and num_players < 3:
            raise ConfigError("allies=True needs 3 or 4 players (alliances)")
        self.allies = allies
        self.rules_override = rules or {}
        # the file with the overrides, checked against SCHEMA (every section and field: type,
        # range; what ties fields together): a fresh table, never read_yaml's cached one
        self.cfg = load_tables(self.rules_override)
        self.h, self.w = MAP_SIZE[num_players]
        self.troop = {k: (v["init"], v["kill"], v["cost"]) for k, v in self.cfg["troops"].items()}
        self.terrain_roll = {r: t["type"] for t in self.cfg["terrain"] for r in t["rolls"]}
        self.terrain = {t["type"]: t for t in self.cfg["terrain"]}
        self.terrain_mp = [self.terrain[t]["mp"] for t in TERRAINS]
        self._step_constants()
        self.settle_roll = {r: s["type"] for s in self.cfg["settlements"] for r in s["rolls"]}
        self.settle = {s["type"]: s for s in self.cfg["settlements"]}
        self.settle["capitol"] = dict(self.cfg["capitol"], type="capitol")
        self.settlement_recruits = [BASIC.index(self.settle[s]["recruit"])
                                    if self.settle[s]["recruit"] in BASIC else -1
                                    for s in SETTLEMENTS]
        self.variant_names = sorted({v for t in self.cfg["variants"].values() for v in t.values()})
        self.spells = SpellTables(self.cfg)
        self.granting_units = {}
        for u, kind in enumerate(SPECIALS):
            for a in self.cfg["special_units"][kind].get("grants", ()):
                if u not in self.granting_units.setdefault(a, []):
                    self.granting_units[a].append(u)
        self.n_cells = self.h * self.w

    def _step_constants(self) -> None:
        """The rules numbers read on every step, as plain attributes (no dict lookups on the hot
        path)."""
        d, sea = self.cfg["designed"], self.cfg["sea"]
        self.army_cap, self.command_bonus = d["army_cap"], d["command_bonus"]
        self.troop_types, self.max_recruit = d["troop_types"], d["max_recruit_per_settlement"]
        # the backstops scale with the player count: turns per player, actions per player-turn
        self.turn_cap = d["turn_cap_per_player"] * self.num_seats
        self.max_actions = d["action_cap_per_player_turn"] * self.num_seats * self.turn_cap
        self.sea_moves, self.ship_cost = sea["sea_moves"], sea["ship_cost"]
        self.mass_formula = bool(self.cfg["mass_formula"])
