"""Gorgasali rules data and card list (configs/gorgasali.yaml), validated on load, and the game's
vocabulary (characters, rarities, card groups and kinds)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict, Union, cast, get_args

from ..core.game import ConfigError
from ..core.options import Option, merge_rules, read_config
from ..core.resources import config_path as data_file
from . import actions as A
from .board import SIZE, Board

DEFAULT_CONFIG = data_file("gorgasali.yaml")
CHARACTERS = A.CHARACTER_NAMES
RARITIES = ("common", "rare", "epic", "legendary")
# The names the engine compares with literals are Literal types (mypy with strict_equality: a
# misspelt literal is an error, not a silent False); the tuples of choices come from them.
Group = Literal["six_shooter", "striker", "massive", "scout"]
GROUPS: tuple[Group, ...] = get_args(Group)
Skill = Literal["seven_is_twelve", "extra_move", "no_reload", "heal_on_hit", "bonus_on_11",
                "armour_piercing"]
SKILLS: tuple[Skill, ...] = get_args(Skill)
#: the movement cards that let a walk cross an obstacle at 1 point a square (``state.cross``)
CrossKind = Literal["cross_forest", "cross_water", "cross_mountain"]
CROSS_KINDS: tuple[CrossKind, ...] = get_args(CrossKind)
SupportKind = Literal["barrier", "ball", "tree", "field", "flame", "spear", "ntt", "smoke", "armour",
                      "heal", CrossKind, "adrenaline", "extension", "ammo", "teleport"]
SUPPORT_KINDS: tuple[SupportKind, ...] = get_args(SupportKind)
#: a card's kind: a support card's kind, a weapon's group
CardKind = Union[SupportKind, Group]
Category = Literal["weapon", "armour", "consumable", "throwable", "defensive"]
CATEGORIES: tuple[Category, ...] = get_args(Category)
#: which dice a weapon skill reads (``rules.skill_die``)
SkillDie = Literal["first", "sum"]
SKILL_DIES: tuple[SkillDie, ...] = get_args(SkillDie)
#: the phases of a turn (state.py; see its docstring): ``react_next`` and ``pass`` are
#: continuations within one action (the next reactor, the passing turn), never a phase to act in
Phase = Literal["choose", "react", "react_next", "start", "move", "act", "loot", "pull", "steal",
                "bonus", "trade", "teleport", "pass", "over"]
#: abilities Octor may copy: every one but E'moon's (rulebook); the passive ones (Tharsis,
#: D'rain) act once, at their first trigger (designed)
COPYABLE = frozenset({"Armazi", "Ebue", "Varas", "Medea", "Tsiva", "Kruber", "Tharsis", "D'rain"})


@dataclass(frozen=True)
class CardType:
    """One card design. ``id`` indexes ``Tables.cards``; weapons come first."""

    id: int
    name: str
    category: Category
    rarity: int
    kind: CardKind            # support kind (SUPPORT_KINDS) or the weapon group
    group: Group | Literal[""] = ""   # weapon group (weapons, extensions)
    range_min: int = 0
    range_max: int = 0
    dice: int = 0
    per_bullet: int = 0
    damage: int = 0
    hit: int = 0
    hit_by_range: tuple[int, ...] = ()
    skill: Skill | Literal[""] = ""
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


class MovementCost(TypedDict):
    """Movement points to enter each obstacle terrain (``rules.movement_cost``)."""

    water: int
    forest: int
    mountain: int


class Rules(TypedDict):
    """The rules table as the engine reads it (``game.rules``): ``RULES`` below checks every
    value when it is loaded (tests/gorgasali/test_fields.py keeps the two in step)."""

    max_health: int
    heal_square: int
    movement_cost: MovementCost
    zone_interval: int
    zone_penalty: list[int]
    teleport_penalty: bool
    max_rounds: int
    banner_rounds: int
    start_extra_chests: int
    chest_weapons: int
    chest_supports: int
    skill_die: SkillDie
    ability_ready_at_start: bool
    react_window: bool
    extra_chest_any_time: bool
    burn_turns: int
    octor_copies_per_turn: int


class Tables(TypedDict):
    """What ``load_tables`` returns."""

    rules: Rules
    board: Board
    cards: list[CardType]
    characters: list[Character]


#: the value of a support card, by kind, where the generic 0..100 is too wide to play (the
#: Adrenaline card multiplies the walk; an extension adds dice or range)
SUPPORT_VALUE: dict[str, tuple[int, int]] = {"adrenaline": (1, 3), "extension": (0, 3)}


def _cards(data: dict, at: str) -> list[CardType]:
    """The card designs of the (schema-checked) tables, weapons first; what ties fields together
    is checked here."""
    cards: list[CardType] = []
    for name, w in data["weapons"].items():
        where = f"{at}weapons.{name}"
        skill = w.get("skill", "")
        rarity = RARITIES.index(w["rarity"])
        if skill and rarity < 2:
            raise ConfigError(f"{where}: only epic and legendary weapons carry skills (rulebook)")
        lo, hi = w["range"]
        if lo > hi:
            raise ConfigError(f"{where}.range: the minimum {lo} exceeds the maximum {hi}")
        per_bullet = w.get("per_bullet", 0)
        hbr = tuple(w.get("hit_by_range", ()))
        if (per_bullet > 0) == bool(w.get("damage")):
            raise ConfigError(f"{where}: give either per_bullet or damage")
        if not per_bullet and not (w.get("hit") or hbr):
            raise ConfigError(f"{where}: fixed-damage weapons need hit or hit_by_range")
        if hbr and len(hbr) != hi:
            raise ConfigError(f"{where}.hit_by_range needs one number per distance 1..{hi}")
        cards.append(CardType(len(cards), name, "weapon", rarity, kind=w["group"], group=w["group"],
                              range_min=lo, range_max=hi, dice=w["dice"],
                              per_bullet=per_bullet, damage=w.get("damage", 0),
                              hit=w.get("hit", 0), hit_by_range=hbr, skill=skill,
                              skill_value=w.get("skill_value", 0), count=w["count"]))
    for name, s in data["supports"].items():
        where = f"{at}supports.{name}"
        group = s.get("group", "")
        if (s["kind"] == "extension") != bool(group):
            raise ConfigError(f"{where}: an extension names a weapon group, other cards none")
        lo, hi = SUPPORT_VALUE.get(s["kind"], (0, 100))
        if not lo <= s.get("value", 0) <= hi:
            raise ConfigError(f"{where}.value must be in {lo}..{hi} for a {s['kind']} card, "
                              f"got {s.get('value', 0)}")
        rng = s.get("range", 0)
        cards.append(CardType(len(cards), name, s["category"], RARITIES.index(s["rarity"]),
                              kind=s["kind"], group=group, range_max=rng,
                              range_min=2 if s["kind"] == "flame" else (1 if rng else 0),
                              hit=s.get("hit", 0), value=s.get("value", 0), count=s["count"]))
    kinds = {c.kind for c in cards if c.category != "weapon"}
    if len(cards) > MAX_DESIGNS or "heal" not in kinds:
        raise ConfigError(f"{at}the card tables need healing cards and at most {MAX_DESIGNS} card "
                          f"designs, got {len(cards)}")
    return cards


#: card designs (weapons and supports): the observation has a slot per design
MAX_DESIGNS = 40

#: the rules section (configs/gorgasali.yaml ``rules:``): every key's type and range
RULES = Option("rules", dict, doc="rules values (the rules= option overrides them)", fields=(
    Option("max_health", int, low=1, high=1000),
    Option("heal_square", int, doc="health a healing square gives", low=0, high=1000),
    Option("movement_cost", dict, doc="movement points to enter water, forest, mountain", fields=(
        Option("water", int, low=1, high=6), Option("forest", int, low=1, high=6),
        Option("mountain", int, low=1, high=6))),
    Option("zone_interval", int, doc="rounds between zones going inactive", low=1, high=100),
    Option("zone_penalty", list, doc="health lost per inactive square entered, by zones gone",
           size=(4, 4), each=Option("penalty", int, low=0, high=1000)),
    Option("teleport_penalty", bool),
    Option("max_rounds", int, low=1, high=200),
    Option("banner_rounds", int, low=1, high=100),
    Option("start_extra_chests", int, low=0, high=10),
    Option("chest_weapons", int, low=0, high=10),
    Option("chest_supports", int, low=0, high=10),
    Option("skill_die", str, choices=SKILL_DIES),
    Option("ability_ready_at_start", bool),
    Option("react_window", bool),
    Option("extra_chest_any_time", bool),
    Option("burn_turns", int, low=0, high=10),
    Option("octor_copies_per_turn", int, low=1, high=100),
))

_ROW = Option("row", str, size=(SIZE, SIZE))
_HIT = Option("hit", int, 0, "minimum roll to hit (fixed-damage cards)", low=0, high=36)
_COUNT = Option("count", int, doc="copies in the deck", low=0, high=20)
_RARITY = Option("rarity", str, choices=RARITIES)
_CARD_NAME = Option("name", str, size=(1, 30))

#: the whole file, section by section
SCHEMA = Option("", dict, fields=(
    Option("map", dict, doc="the 20x20 map", fields=(
        Option("rows", list, doc="glyphs . c + ~ f ^ # G, one string per row", size=(SIZE, SIZE),
               each=_ROW),
        Option("zones", list, doc="zone digits 1..4, one string per row", size=(SIZE, SIZE),
               each=_ROW),
        Option("gates", list, doc="[row, col] of the 20 start sectors' gates", size=(20, 20),
               each=Option("gate", list, size=(2, 2), each=Option("coordinate", int, low=0,
                                                                   high=SIZE - 1))))),
    RULES,
    Option("characters", dict, doc="the ten characters", fields=tuple(
        Option(name, dict, fields=(
            Option("range", int, doc="ability range (Chebyshev)", low=0, high=SIZE),
            Option("cooldown", int, doc="turns between uses", low=0, high=20),
            Option("damage", int, 0, low=0, high=200),
            Option("heal", int, 0, low=0, high=200),
            Option("bonus", int, 0, low=0, high=50),
            Option("above", int, 0, doc="dice above this count", low=0, high=6)))
        for name in CHARACTERS)),
    Option("weapons", dict, doc="weapon designs by name", size=(1, MAX_DESIGNS - 1),
           keys=_CARD_NAME, each=Option("weapon", dict, fields=(
               Option("group", str, choices=GROUPS), _RARITY, _COUNT,
               Option("range", list, doc="[min, max] distance", size=(2, 2),
                      each=Option("distance", int, low=1, high=8)),
               Option("dice", int, low=1, high=6),
               Option("per_bullet", int, 0, "damage per pip (six shooters, strikers)",
                      low=0, high=50),
               Option("damage", int, 0, "damage on a hit (fixed-damage cards)", low=0, high=200),
               _HIT,
               Option("hit_by_range", list, [], "minimum roll by distance 1..max", size=(0, 8),
                      each=Option("roll", int, low=1, high=36)),
               Option("skill", str, "", "epic and legendary cards only", choices=("",) + SKILLS),
               Option("skill_value", int, 0, low=0, high=50)))),
    Option("supports", dict, doc="support card designs by name", size=(1, MAX_DESIGNS - 1),
           keys=_CARD_NAME, each=Option("support", dict, fields=(
               Option("category", str, choices=CATEGORIES[1:]),
               Option("kind", str, choices=SUPPORT_KINDS), _RARITY, _COUNT,
               Option("value", int, 0, "the card's number (adrenaline {}..{}, extension {}..{})"
                      .format(*SUPPORT_VALUE["adrenaline"], *SUPPORT_VALUE["extension"]),
                      low=0, high=100),
               Option("range", int, 0, low=0, high=10), _HIT,
               Option("group", str, "", "the weapon group of an extension",
                      choices=("",) + GROUPS)))),
))


def load_tables(path: str | Path | None = None, rules: dict | None = None) -> Tables:
    """Read and check the YAML tables (``SCHEMA``, then what ties fields together); ``rules``
    overrides keys of its ``rules`` section."""
    data = read_config(path, DEFAULT_CONFIG, SCHEMA)
    at = f"{path}: " if path is not None else ""
    merged = merge_rules(data["rules"], rules, schema=RULES)
    try:
        board = Board.from_config(data["map"])
    except ConfigError as exc:
        raise ConfigError(f"{at}{exc}") from None
    table = data["characters"]
    chars = [Character(name, table[name]["range"], table[name]["cooldown"],
                       table[name].get("damage", 0), table[name].get("heal", 0),
                       table[name].get("bonus", 0), table[name].get("above", 0))
             for name in CHARACTERS]
    return {"rules": cast(Rules, merged), "board": board, "cards": _cards(data, at),   # checked by RULES
            "characters": chars}
