"""Zaberias rules data (configs/zaberias.yaml), validated on load, and the game's vocabulary
(tribes, ability groups, phases)."""
from __future__ import annotations

import os
from typing import Literal, NamedTuple, TypedDict, cast, get_args

from ..core.game import ConfigError
from ..core.options import Option, merge_rules, read_config
from ..core.resources import config_path as data_file
from .board import MAX_RANGE, MapTables

DEFAULT_CONFIG = data_file("zaberias.yaml")

# The names the engine compares with literals are Literal types (mypy with strict_equality: a
# misspelt tribe, ability, group or phase is a type error, not a silent False)
Tribe = Literal["undead", "humans", "orcs", "guardians"]
TRIBES: tuple[Tribe, ...] = get_args(Tribe)
#: a unit's special ability (``UnitSpec.ability``), in the order of the rules file's choices
Ability = Literal["none", "love", "dazzle", "shock", "glue", "vampire", "ninja", "headhunter",
                  "phantom", "necromancer", "teleport", "energize", "share", "plague", "armor",
                  "trample", "rotate", "skull", "carry", "cluster", "twohead"]
#: a unit group of the rulebook ("Unit Groups"; ``UnitSpec.group``)
Group = Literal["basic", "sorcerer", "siphon", "helper", "titan", "dragon"]
ABILITY_GROUP: dict[Ability, Group] = {
    "none": "basic",
    "love": "sorcerer", "dazzle": "sorcerer", "shock": "sorcerer", "glue": "sorcerer",
    "vampire": "siphon", "ninja": "siphon", "headhunter": "siphon", "phantom": "siphon",
    "necromancer": "helper", "teleport": "helper", "energize": "helper", "share": "helper",
    "plague": "titan", "armor": "titan", "trample": "titan", "rotate": "titan",
    "skull": "dragon", "carry": "dragon", "cluster": "dragon", "twohead": "dragon",
}
#: siphons that keep defeated units underneath them (the Head Hunter sells heads instead)
HOLDING_SIPHONS: tuple[Ability, ...] = ("vampire", "ninja", "phantom")
#: the phases of a turn, in the order of the observation's phase one-hot
Phase = Literal["main", "unit", "buy_city", "teleport", "rhino", "ambush", "tie", "siphon", "pickup",
                "tele_move", "over"]
PHASES: tuple[Phase, ...] = get_args(Phase)


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
    ability: Ability
    group: Group


class Rules(TypedDict):
    """The rules table as the engine reads it (``game.rules``): ``RULES`` below checks every
    value when it is loaded (tests/zaberias/test_typed.py keeps the two in step)."""

    start_coins: int
    max_coins: int
    siphon_capacity: int
    headhunter_coins: int
    round_cap_per_opponent: int
    action_cap_per_player_round: int
    auto_defence_assist: bool
    income_first_turn: bool
    rider_attacks_alone: bool


class Data(TypedDict):
    """The rules file's sections as ``SCHEMA`` below checked them (``read_config``)."""

    board: list[str]
    roads: list[list[list[int]]]
    layouts: dict[int, list[list[int]]]
    die_faces: list[int]
    city_dice: list[int]
    city_income: list[int]
    city_cost: list[int]
    tribes: dict[Tribe, list[list]]
    rules: Rules


class Tables(TypedDict):
    """What ``load_tables`` returns."""

    data: Data
    rosters: dict[Tribe, tuple[UnitSpec, ...]]
    faces: tuple[int, ...]
    rules: Rules


def _parse_roster(rows: list) -> tuple[UnitSpec, ...]:
    """A tribe's (schema-checked) unit rows as UnitSpecs."""
    return tuple(UnitSpec(name, glyph, dice, muscle, rng, steps, grade, cost, "f" in flags,
                          "s" in flags, ability, ABILITY_GROUP[ability])
                 for name, glyph, dice, muscle, rng, steps, grade, cost, flags, ability in rows)


#: the rules section (configs/zaberias.yaml ``rules:``): every key's type and range
RULES = Option("rules", dict, doc="rule options (the rules= option overrides them)", fields=(
    Option("start_coins", int, doc="coins at the start", low=0, high=20),
    Option("max_coins", int, doc="coins a tribe may hold", low=1, high=20),
    Option("siphon_capacity", int, doc="units a Siphon holds", low=1, high=3),
    Option("headhunter_coins", int, doc="coins for a head", low=0, high=20),
    Option("round_cap_per_opponent", int,
           doc="rounds an opponent before the game is ranked (x (players - 1))", low=1, high=500),
    Option("action_cap_per_player_round", int,
           doc="engine actions a player a round (of the round cap) before the game is ranked",
           low=1, high=1000),
    Option("auto_defence_assist", bool),
    Option("income_first_turn", bool),
    Option("rider_attacks_alone", bool),
))

#: the side of a map board (the observation and action sizes follow it)
BOARD_SIDE = (3, 10)
_CELL = Option("coordinate", int, low=0, high=BOARD_SIDE[1] - 1)
_GRADE = Option("grade", int, doc="1 wood, 2 metal, 3 gold", low=1, high=3)
#: a unit row: [name, glyph, dice, muscle, range, steps, grade, cost, flags, ability]
UNIT = Option("unit", list, fields=(
    Option("name", str, size=(1, 30)), Option("glyph", str, doc="its letter on the board", size=(1, 1)),
    Option("dice", int, low=0, high=6), Option("muscle", int, low=0, high=9),
    Option("range", int, low=1, high=MAX_RANGE - 1), Option("steps", int, low=1, high=8),
    _GRADE, Option("cost", int, doc="coins", low=0, high=6),
    Option("flags", str, doc="- none, f flying, s swimming, fs both", choices=("-", "f", "s", "fs")),
    Option("ability", str, choices=get_args(Ability))))

#: the whole file, section by section
SCHEMA = Option("", dict, fields=(
    Option("board", list, doc="one player's map board: rows of space-separated glyphs "
           ". T ~ O $ * H C", size=BOARD_SIDE,
           each=Option("row", str, size=(BOARD_SIDE[0] * 2 - 1, BOARD_SIDE[1] * 2 + 10))),
    Option("roads", list, [], "diagonal roads: chains of [row, col] cells", size=(0, 20),
           each=Option("road", list, size=(2, 10), each=Option("cell", list, size=(2, 2),
                                                              each=_CELL))),
    Option("layouts", dict, doc="board placement per player count: [top, left, quarter turns]",
           size=(3, 3), keys=Option("players", int, low=2, high=4),
           each=Option("layout", list, size=(2, 4), each=Option("board", list, fields=(
               Option("top", int, low=0, high=4 * BOARD_SIDE[1]),
               Option("left", int, low=0, high=4 * BOARD_SIDE[1]),
               Option("turns", int, low=0, high=3))))),
    Option("die_faces", list, doc="the die: digits 0..9 (0 = blank)", size=(2, 12),
           each=Option("face", int, low=0, high=9)),
    Option("city_dice", list, doc="defence dice of wood, metal, gold cities", size=(3, 3),
           each=Option("dice", int, low=0, high=6)),
    Option("city_income", list, doc="income of wood, metal, gold cities", size=(3, 3),
           each=Option("coins", int, low=0, high=6)),
    Option("city_cost", list, doc="buying cost of wood, metal, gold cities", size=(3, 3),
           each=Option("coins", int, low=0, high=20)),
    Option("tribes", dict, doc="unit rosters, slot order fixed", fields=tuple(
        Option(t, list, size=(1, 12), each=UNIT) for t in TRIBES)),
    RULES,
))


def load_tables(path: str | os.PathLike | None = None, rules: dict | None = None) -> Tables:
    """Read and check the YAML tables (``SCHEMA``, then what ties fields together); ``rules``
    overrides keys of the ``rules`` section."""
    data = cast(Data, read_config(path, DEFAULT_CONFIG, SCHEMA))   # the shape SCHEMA checked
    at = f"{path}: " if path is not None else ""
    rosters = {t: _parse_roster(data["tribes"][t]) for t in TRIBES}
    if len({len(r) for r in rosters.values()}) != 1:
        raise ConfigError(f"{at}tribes: every roster must have the same number of units")
    for t, roster in rosters.items():
        abilities = [u.ability for u in roster if u.ability != "none"]
        if len(set(abilities)) != len(abilities):
            raise ConfigError(f"{at}tribes.{t}: an ability appears twice in one roster")
    faces = tuple(data["die_faces"])
    if all(f == 1 for f in faces):
        raise ConfigError(f"{at}die_faces: a face other than 1 is needed (the Balloon Dragon "
                          "rolls again on every 1)")
    if sorted(data["layouts"]) != [2, 3, 4] or any(len(data["layouts"][k]) != k for k in (2, 3, 4)):
        raise ConfigError(f"{at}layouts: one placement per board for 2, 3 and 4 players")
    if path is not None:  # the shipped boards are known to fit; a custom file's are built here
        for k in (2, 3, 4):
            try:
                MapTables(data["board"], data.get("roads", []), data["layouts"][k])
            except (KeyError, ValueError) as exc:
                raise ConfigError(f"{at}board, roads or layouts.{k} do not fit: {exc}") from None
    merged = cast(Rules, merge_rules(data["rules"], rules, schema=RULES))   # RULES checked it
    if merged["start_coins"] > merged["max_coins"]:
        raise ConfigError(f"{at}rules.start_coins ({merged['start_coins']}) cannot exceed "
                          f"rules.max_coins ({merged['max_coins']})")
    return {"data": data, "rosters": rosters, "faces": faces, "rules": merged}
