"""Zaka's rules table and card list (configs/zaka.yaml), validated on load, and the card vocabulary.

Cards are named by *design* index: monster designs ``0..Dm-1`` first, then weapon designs
``Dm..Dm+Dw-1``. Copies of one design are identical, so hands, deck and discard pile hold design ids.
"""
from __future__ import annotations

from pathlib import Path

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

#: choices and ranges of the rules-table keys (their types come from configs/zaka.yaml)
RULE_LIMITS = (
    Option("empty_deck", str, choices=("no_reward", "reshuffle_discard")),
    Option("kill_reward", str, choices=("per_monster", "per_ability")),
    Option("two_player_friendly", str, choices=("owner", "army")),
    Option("hand_size", int, low=3, high=10),
    Option("min_monsters", int, low=1, high=5),
    Option("first_turn_monsters", int, low=1, high=5),
    Option("plays_per_turn", int, low=1, high=5),
    Option("battlefield_cap", int, low=2, high=12),
    Option("reap_threshold", int, low=0, high=MAX_HEARTS),
    Option("drain_heal", int, low=0, high=MAX_HEARTS),
    Option("heart_weapon_heal", int, low=0, high=MAX_HEARTS),
    Option("max_turns", int, low=10, high=300),
)


def _int(card: dict, key: str, lo: int, hi: int, where: str) -> int:
    v = card.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ConfigError(f"{where}: {key!r} must be an int in {lo}..{hi}, got {v!r}")
    return v


def load_tables(path: str | Path | None = None, rules: dict | None = None) -> dict:
    """Read and check the card list and rules; ``rules`` overrides keys of the ``rules`` section."""
    data = read_config(path, DEFAULT_CONFIG, RULE_LIMITS)
    types = data.get("weapon_types")
    if not isinstance(types, dict) or len(types) != 2:
        raise ConfigError("config 'weapon_types' must name exactly two weapon types")
    type_ids = list(types)
    symbols = [str(types[t].get("symbol", t[0])).upper()[:1] for t in type_ids]
    monsters, weapons = data.get("monsters") or [], data.get("weapons") or []
    if not monsters or not weapons:
        raise ConfigError("config needs a non-empty 'monsters' and 'weapons' list")
    seen = set()
    cards = []
    for kind, rows in (("monster", monsters), ("weapon", weapons)):
        for i, c in enumerate(rows):
            where = f"{kind} #{i} ({c.get('id') if isinstance(c, dict) else c!r})"
            if not isinstance(c, dict):
                raise ConfigError(f"{where}: must be a mapping")
            cid = c.get("id")
            if not isinstance(cid, str) or cid in seen:
                raise ConfigError(f"{where}: needs a unique string 'id'")
            seen.add(cid)
            for key in ("name", "text"):
                if not isinstance(c.get(key), str) or not c[key].strip():
                    raise ConfigError(f"{where}: needs a non-empty {key!r}")
            if c.get("type") not in type_ids:
                raise ConfigError(f"{where}: 'type' must be one of {type_ids}, got {c.get('type')!r}")
            card = {"id": cid, "name": c["name"], "text": c["text"], "kind": kind,
                    "type": type_ids.index(c["type"]), "copies": _int(c, "copies", 1, 10, where)}
            if kind == "monster":
                if c.get("ability") not in ABILITIES:
                    raise ConfigError(f"{where}: 'ability' must be one of {ABILITIES}, got {c.get('ability')!r}")
                card.update(hearts=_int(c, "hearts", 1, MAX_HEARTS, where),
                            ability=ABILITIES.index(c["ability"]),
                            swords=_int(c, "swords", 1, MAX_SWORDS, where))
            else:
                heart = c.get("heart", False)
                if not isinstance(heart, bool):
                    raise ConfigError(f"{where}: 'heart' must be true or false")
                bonus_vs = c.get("bonus_vs")
                if bonus_vs is not None and bonus_vs not in type_ids:
                    raise ConfigError(f"{where}: 'bonus_vs' must be null or one of {type_ids}")
                card.update(swords=_int(c, "swords", 0, MAX_SWORDS, where), heart=heart,
                            bonus_vs=-1 if bonus_vs is None else type_ids.index(bonus_vs),
                            bonus=_int(c, "bonus", 0, MAX_SWORDS, where))
                if heart and card["swords"]:
                    raise ConfigError(f"{where}: a heart weapon carries a heart instead of swords")
                if not heart and card["swords"] == 0 and card["bonus"] == 0:
                    raise ConfigError(f"{where}: a weapon needs swords, a bonus or a heart")
            cards.append(card)
    merged = merge_rules(data.get("rules"), rules, limits=RULE_LIMITS)
    if merged["min_monsters"] > merged["hand_size"]:
        raise ConfigError("min_monsters cannot exceed hand_size")
    if merged["first_turn_monsters"] > merged["battlefield_cap"]:
        raise ConfigError("first_turn_monsters cannot exceed battlefield_cap")
    return {"cards": cards, "type_names": [str(types[t].get("name", t)) for t in type_ids],
            "type_symbols": symbols, "rules": merged}
