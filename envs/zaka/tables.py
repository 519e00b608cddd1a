"""Zaka's rules table and card list (configs/zaka.yaml), validated on load, and the card vocabulary.

Cards are named by *design* index: monster designs ``0..Dm-1`` first, then weapon designs
``Dm..Dm+Dw-1``. Copies of one design are identical, so hands, deck and discard pile hold design ids.
"""
from __future__ import annotations

from pathlib import Path
from typing import Literal, TypedDict, cast, get_args

from ..core.game import ConfigError
from ..core.options import Option, merge_rules, read_config
from ..core.resources import config_path as data_file

DEFAULT_CONFIG = data_file("zaka.yaml")

#: ability kinds; the index is what the engine and the observation use
ABILITIES = ("attack", "rampage", "mend", "drain", "disarm", "snatch", "reap")
ATTACK, RAMPAGE, MEND, DRAIN, DISARM, SNATCH, REAP = range(len(ABILITIES))
MAX_HEARTS = 10
MAX_SWORDS = 5
NUM_PLAYERS = (2, 3, 4)

#: the rules values that name a reading (``Option`` choices below); compared with literals in the
#: engine, so a misspelt literal is a type error (mypy, strict_equality), not a silent False
EmptyDeck = Literal["no_reward", "reshuffle_discard"]
KillReward = Literal["per_monster", "per_ability"]
TwoPlayerFriendly = Literal["owner", "army"]
CardKind = Literal["monster", "weapon"]


class Rules(TypedDict):
    """The rules table as the engine reads it (``game.rules``): ``RULES`` below checks every
    value when it is loaded (tests/zaka/test_config.py keeps the two in step)."""

    hand_size: int
    min_monsters: int
    reshuffle_after_redraw: bool
    first_turn_monsters: int
    plays_per_turn: int
    battlefield_cap: int
    empty_deck: EmptyDeck
    kill_reward: KillReward
    two_player_friendly: TwoPlayerFriendly
    reap_threshold: int
    drain_heal: int
    heart_weapon_heal: int
    max_turns: int


class Card(TypedDict):
    """One card design (``game.cards``). Every card carries every field: a monster has no heart
    weapon, bonus or bonus type (False, 0, -1), a weapon no hearts or ability (0, -1)."""

    id: str
    name: str
    text: str
    kind: CardKind
    type: int        # index into the weapon types
    copies: int
    hearts: int
    ability: int     # index into ABILITIES; -1 for a weapon
    swords: int
    heart: bool      # a heart weapon (heals its holder instead of adding swords)
    bonus_vs: int    # the monster type (index) a weapon's bonus applies to; -1: none
    bonus: int


class Tables(TypedDict):
    """What ``load_tables`` returns."""

    cards: list[Card]
    type_names: list[str]
    type_symbols: list[str]
    rules: Rules

#: the rules section (configs/zaka.yaml ``rules:``): every key's type and range
RULES = Option("rules", dict, doc="rules values (the rules= option overrides them)", fields=(
    Option("hand_size", int, doc="cards dealt to each hand", low=3, high=10),
    Option("min_monsters", int, doc="a dealt hand is redrawn until it holds this many monsters",
           low=1, high=5),
    Option("reshuffle_after_redraw", bool, doc="reshuffle the deck when a redraw happened"),
    Option("first_turn_monsters", int, doc="monsters placed on an army's first turn", low=1, high=5),
    Option("plays_per_turn", int, doc="cards played on a regular turn", low=1, high=5),
    Option("battlefield_cap", int, doc="active monsters per army (action/observation size)",
           low=2, high=12),
    Option("empty_deck", str, choices=get_args(EmptyDeck)),
    Option("kill_reward", str, choices=get_args(KillReward)),
    Option("two_player_friendly", str, choices=get_args(TwoPlayerFriendly)),
    Option("reap_threshold", int, low=0, high=MAX_HEARTS),
    Option("drain_heal", int, low=0, high=MAX_HEARTS),
    Option("heart_weapon_heal", int, low=0, high=MAX_HEARTS),
    Option("max_turns", int, doc="turns before the game is ranked", low=10, high=300),
))

_ID = Option("id", str, doc="unique card id", size=(1, 40))
_NAME = Option("name", str, doc="card name", size=(1, 60))
_TEXT = Option("text", str, doc="card text", size=(1, 300))
_TYPE = Option("type", str, doc="a key of weapon_types", size=(1, 20))
_COPIES = Option("copies", int, doc="copies in the deck", low=1, high=10)

#: the whole file, section by section
SCHEMA = Option("", dict, fields=(
    Option("weapon_types", dict, doc="the two weapon types", size=(2, 2),
           keys=Option("type id", str, size=(1, 20)),
           each=Option("weapon type", dict, fields=(
               Option("symbol", str, "", "one letter (default: the id's first)", size=(1, 1)),
               Option("name", str, "", "display name (default: the id)", size=(1, 20))))),
    Option("monsters", list, doc="monster designs", size=(1, 32), each=Option("monster", dict, fields=(
        _ID, _NAME, _TYPE,
        Option("hearts", int, low=1, high=MAX_HEARTS),
        Option("ability", str, choices=ABILITIES),
        Option("swords", int, low=1, high=MAX_SWORDS),
        _COPIES, _TEXT))),
    Option("weapons", list, doc="weapon designs", size=(1, 32), each=Option("weapon", dict, fields=(
        _ID, _NAME, _TYPE,
        Option("swords", int, low=0, high=MAX_SWORDS),
        Option("heart", bool, False, "a heart weapon (heals its holder) instead of swords"),
        Option("bonus_vs", str, None, "the monster type taking the bonus (null: none)",
               size=(1, 20)),
        Option("bonus", int, low=0, high=MAX_SWORDS),
        _COPIES, _TEXT))),
    RULES,
))


def load_tables(path: str | Path | None = None, rules: dict | None = None) -> Tables:
    """Read and check the card list and rules (``SCHEMA``, then what ties fields together);
    ``rules`` overrides keys of the ``rules`` section."""
    where = str(path or DEFAULT_CONFIG)
    data = read_config(path, DEFAULT_CONFIG, SCHEMA)
    types = data["weapon_types"]
    type_ids = list(types)
    symbols = [str(types[t].get("symbol", t[0])).upper()[:1] for t in type_ids]
    seen = set()
    cards: list[Card] = []
    kinds: tuple[tuple[CardKind, list], ...] = (("monster", data["monsters"]), ("weapon", data["weapons"]))
    for kind, rows in kinds:
        for i, c in enumerate(rows):
            at = f"{where}: {kind}s[{i}] ({c['id']})"
            if c["id"] in seen:
                raise ConfigError(f"{at}: id {c['id']!r} is used twice")
            seen.add(c["id"])
            for key in ("name", "text"):
                if not c[key].strip():
                    raise ConfigError(f"{at}: {key} is blank")
            if c["type"] not in type_ids:
                raise ConfigError(f"{at}: type must be one of {type_ids}, got {c['type']!r}")
            card: Card = {"id": c["id"], "name": c["name"], "text": c["text"], "kind": kind,
                          "type": type_ids.index(c["type"]), "copies": c["copies"],
                          "hearts": 0, "ability": -1, "swords": c["swords"], "heart": False,
                          "bonus_vs": -1, "bonus": 0}
            if kind == "monster":
                card["hearts"], card["ability"] = c["hearts"], ABILITIES.index(c["ability"])
            else:
                heart = c.get("heart", False)
                bonus_vs = c.get("bonus_vs")
                if bonus_vs is not None and bonus_vs not in type_ids:
                    raise ConfigError(f"{at}: bonus_vs must be null or one of {type_ids}, "
                                      f"got {bonus_vs!r}")
                card["heart"], card["bonus"] = heart, c["bonus"]
                card["bonus_vs"] = -1 if bonus_vs is None else type_ids.index(bonus_vs)
                if heart and card["swords"]:
                    raise ConfigError(f"{at}: a heart weapon carries a heart instead of swords")
                if not heart and card["swords"] == 0 and card["bonus"] == 0:
                    raise ConfigError(f"{at}: a weapon needs swords, a bonus or a heart")
            cards.append(card)
    merged = merge_rules(data["rules"], rules, schema=RULES)
    at = f"{path}: " if path is not None else ""
    if merged["min_monsters"] > merged["hand_size"]:
        raise ConfigError(f"{at}rules.min_monsters ({merged['min_monsters']}) cannot exceed "
                          f"rules.hand_size ({merged['hand_size']})")
    if merged["first_turn_monsters"] > merged["battlefield_cap"]:
        raise ConfigError(f"{at}rules.first_turn_monsters ({merged['first_turn_monsters']}) "
                          f"cannot exceed rules.battlefield_cap ({merged['battlefield_cap']})")
    return {"cards": cards, "type_names": [str(types[t].get("name", t)) for t in type_ids],
            "type_symbols": symbols, "rules": cast(Rules, merged)}   # checked by RULES
