"""Gorgasali rules data and card list (configs/gorgasali.yaml), validated on load, and the game's
vocabulary (characters, rarities, card groups and kinds)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core.game import ConfigError
from ..core.options import Option, merge_rules, read_config
from ..core.resources import config_path as data_file
from . import actions as A
from .board import Board

DEFAULT_CONFIG = data_file("gorgasali.yaml")
CHARACTERS = A.CHARACTER_NAMES
RARITIES = ("common", "rare", "epic", "legendary")
GROUPS = ("six_shooter", "striker", "massive", "scout")
SKILLS = ("seven_is_twelve", "extra_move", "no_reload", "heal_on_hit", "bonus_on_11",
          "armour_piercing")
SUPPORT_KINDS = ("barrier", "ball", "tree", "field", "flame", "spear", "ntt", "smoke", "armour",
                 "heal", "cross_forest", "cross_water", "cross_mountain", "adrenaline",
                 "extension", "ammo", "teleport")
CATEGORIES = ("weapon", "armour", "consumable", "throwable", "defensive")
#: abilities Octor may copy: every one but E'moon's (rulebook); the passive ones (Tharsis,
#: D'rain) act once, at their first trigger (designed)
COPYABLE = frozenset({"Armazi", "Ebue", "Varas", "Medea", "Tsiva", "Kruber", "Tharsis", "D'rain"})


@dataclass(frozen=True)
class CardType:
    """One card design. ``id`` indexes ``Tables.cards``; weapons come first."""

    id: int
    name: str
    category: str
    rarity: int
    kind: str = ""            # support kind (SUPPORT_KINDS) or the weapon group
    group: str = ""           # weapon group (weapons, extensions)
    range_min: int = 0
    range_max: int = 0
    dice: int = 0
    per_bullet: int = 0
    damage: int = 0
    hit: int = 0
    hit_by_range: tuple = ()
    skill: str = ""
    skill_value: int = 0
    value: int = 0
    count: int = 0


@dataclass(frozen=True)
class Character:
    name: str
    range: int
    cooldown: int
    damage: int = 0
    heal: int = 0
    bonus: int = 0
    above: int = 0


def _cards(data: dict) -> list[CardType]:
    cards: list[CardType] = []
    for name, w in (data.get("weapons") or {}).items():
        if w.get("group") not in GROUPS or w.get("rarity") not in RARITIES:
            raise ConfigError(f"weapon {name!r}: group must be one of {GROUPS}, rarity one of {RARITIES}")
        skill = w.get("skill", "")
        if skill and skill not in SKILLS:
            raise ConfigError(f"weapon {name!r}: unknown skill {skill!r}; known {SKILLS}")
        rarity = RARITIES.index(w["rarity"])
        if skill and rarity < 2:
            raise ConfigError(f"weapon {name!r}: only epic and legendary weapons carry skills (rulebook)")
        lo, hi = (int(x) for x in w["range"])
        if not 1 <= lo <= hi <= 8:
            raise ConfigError(f"weapon {name!r}: range must satisfy 1 <= min <= max <= 8")
        per_bullet = int(w.get("per_bullet", 0))
        hbr = tuple(int(x) for x in w.get("hit_by_range", ()))
        if (per_bullet > 0) == bool(w.get("damage")):
            raise ConfigError(f"weapon {name!r}: give either per_bullet or damage")
        if not per_bullet and not (w.get("hit") or hbr):
            raise ConfigError(f"weapon {name!r}: fixed-damage weapons need hit or hit_by_range")
        if hbr and len(hbr) != hi:
            raise ConfigError(f"weapon {name!r}: hit_by_range needs one number per distance 1..{hi}")
        cards.append(CardType(len(cards), name, "weapon", rarity, kind=w["group"], group=w["group"],
                              range_min=lo, range_max=hi, dice=int(w["dice"]),
                              per_bullet=per_bullet, damage=int(w.get("damage", 0)),
                              hit=int(w.get("hit", 0)), hit_by_range=hbr, skill=skill,
                              skill_value=int(w.get("skill_value", 0)), count=int(w["count"])))
    for name, s in (data.get("supports") or {}).items():
        if s.get("category") not in CATEGORIES[1:] or s.get("kind") not in SUPPORT_KINDS:
            raise ConfigError(f"support {name!r}: bad category or kind")
        if s.get("rarity") not in RARITIES:
            raise ConfigError(f"support {name!r}: rarity must be one of {RARITIES}")
        group = s.get("group", "")
        if s["kind"] == "extension" and group not in GROUPS:
            raise ConfigError(f"extension {name!r} needs a weapon group")
        rng = int(s.get("range", 0))
        cards.append(CardType(len(cards), name, s["category"], RARITIES.index(s["rarity"]),
                              kind=s["kind"], group=group, range_max=rng,
                              range_min=2 if s["kind"] == "flame" else (1 if rng else 0),
                              hit=int(s.get("hit", 0)), value=int(s.get("value", 0)),
                              count=int(s["count"])))
    if any(c.count < 0 for c in cards):
        raise ConfigError("card counts must be >= 0")
    kinds = {c.kind for c in cards if c.category != "weapon"}
    if len(cards) > 40 or sum(1 for c in cards if c.category == "weapon") == 0 or "heal" not in kinds:
        raise ConfigError("the card tables need weapons, healing cards and at most 40 card designs")
    return cards


#: choices and ranges of the rules-table keys (their types come from configs/gorgasali.yaml)
RULE_LIMITS = (
    Option("max_health", int, low=1, high=1000),
    Option("heal_square", int, low=0, high=1000),
    Option("zone_interval", int, low=1, high=100),
    Option("max_rounds", int, low=1, high=200),
    Option("banner_rounds", int, low=1, high=100),
    Option("start_extra_chests", int, low=0, high=10),
    Option("chest_weapons", int, low=0, high=10),
    Option("chest_supports", int, low=0, high=10),
    Option("skill_die", str, choices=("first", "sum")),
    Option("burn_turns", int, low=0, high=10),
    Option("octor_copies_per_turn", int, low=1, high=100),
)


def load_tables(path: str | Path | None = None, rules: dict | None = None) -> dict:
    """Read and check the YAML tables; ``rules`` overrides keys of its ``rules`` section."""
    data = dict(read_config(path, DEFAULT_CONFIG, RULE_LIMITS))
    merged = merge_rules(data.get("rules"), rules, limits=RULE_LIMITS)
    if len(merged["zone_penalty"]) != 4 or any(x < 0 for x in merged["zone_penalty"]):
        raise ConfigError("rules key 'zone_penalty' must list 4 non-negative ints")
    cost = merged["movement_cost"]
    if any(not 1 <= v <= 6 for v in cost.values()):
        raise ConfigError("movement_cost needs water, forest, mountain in 1..6")
    board = Board.from_config(data.get("map") or {})
    chars = []
    table = data.get("characters") or {}
    for name in CHARACTERS:
        if name not in table:
            raise ConfigError(f"characters: {name!r} missing")
        c = table[name]
        chars.append(Character(name, int(c.get("range", 0)), int(c.get("cooldown", 0)),
                               int(c.get("damage", 0)), int(c.get("heal", 0)),
                               int(c.get("bonus", 0)), int(c.get("above", 0))))
    return {"rules": merged, "board": board, "cards": _cards(data), "characters": chars}
