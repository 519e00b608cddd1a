"""Zaka variant options and the card list (configs/zaka.yaml), validated on load.

Cards are named by *design* index: monster designs ``0..Dm-1`` first, then weapon designs
``Dm..Dm+Dw-1``. Copies of one design are identical, so hands, deck and discard pile hold design ids.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core.resources import config_path as data_file
from ..core.game import ConfigError, Game
from ..core.options import Option, OptionTable, merge_rules, read_config
from .actions import ActionLayout

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


class ZakaGame(Game):
    """One Zaka variant. See ``envs/zaka/env.py`` for the options."""

    name = "zaka_v0"
    hidden_information = True
    OPTIONS = OptionTable(
        "zaka_v0",
        Option("num_players", int, 2, "players (2 players run two armies each)", choices=NUM_PLAYERS),
        Option("rules", dict, None, "overrides of the rules table (configs/zaka.yaml)"),
        Option("config_path", os.PathLike, None, "a rules file replacing configs/zaka.yaml"),
    )

    def __init__(self, num_players: int = 2, rules: dict | None = None,
                 config_path: str | None = None):
        self.num_players = num_players
        #: 2 players run two armies each, seated as in a 4-player game (2 PLAYER GAME)
        self.two_player = num_players == 2
        self.num_seats = 4 if self.two_player else num_players
        self.config_path = None if config_path is None else os.fspath(config_path)
        self._rules_override = dict(rules or {})
        tables = load_tables(config_path, rules)
        self.rules = tables["rules"]
        self.type_names, self.type_symbols = tables["type_names"], tables["type_symbols"]
        cards = [c for c in tables["cards"] if c["kind"] == "monster"] + \
                [c for c in tables["cards"] if c["kind"] == "weapon"]
        self.cards = cards
        self.num_designs = len(cards)
        self.num_monster_designs = sum(1 for c in cards if c["kind"] == "monster")
        self.num_weapon_designs = self.num_designs - self.num_monster_designs
        dm = self.num_monster_designs
        # flat per-design tables (tuples: plain Python indexing is the fast path)
        self.is_monster = tuple(c["kind"] == "monster" for c in cards)
        self.card_type = tuple(c["type"] for c in cards)
        self.hearts = tuple(c.get("hearts", 0) for c in cards)
        self.ability = tuple(c.get("ability", -1) for c in cards)
        self.swords = tuple(c["swords"] for c in cards)
        self.heart_weapon = tuple(bool(c.get("heart", False)) for c in cards)
        self.bonus_vs = tuple(c.get("bonus_vs", -1) for c in cards)
        self.bonus = tuple(c.get("bonus", 0) for c in cards)
        self.copies = tuple(c["copies"] for c in cards)
        self.names = tuple(c["name"] for c in cards)
        self.monster_designs = tuple(range(dm))
        self.weapon_designs = tuple(range(dm, self.num_designs))
        self.deck_size = sum(self.copies)
        n_monsters = sum(self.copies[d] for d in self.monster_designs)
        r = self.rules
        if self.deck_size < r["hand_size"] * self.num_seats + 1:
            raise ConfigError(f"the deck ({self.deck_size} cards) cannot deal {r['hand_size']} cards "
                              f"to {self.num_seats} hands")
        # the set-up redraw must be able to finish even if the other hands hold only monsters
        if n_monsters < r["hand_size"] * (self.num_seats - 1) + r["min_monsters"]:
            raise ConfigError(f"the deck holds {n_monsters} monsters, too few to guarantee "
                              f"{self.num_seats} hands of at least {r['min_monsters']}")
        self.field_cap = r["battlefield_cap"]
        self.layout = ActionLayout(dm, self.num_weapon_designs, self.field_cap, self.num_seats)
        self.num_actions = self.layout.num_actions
        from .observe import observation_layout
        self.observation_layout = observation_layout(self)

    def seat_owner(self, seat: int) -> int:
        return seat % self.num_players

    @property
    def num_agents(self) -> int:
        return self.num_players

    def friendly(self, a: int, b: int) -> bool:
        """Whether army ``a`` may never damage army ``b`` (NOTE under Attack Abilities; the
        2-player reading is ``rules.two_player_friendly``)."""
        if a == b:
            return True
        return self.two_player and self.rules["two_player_friendly"] == "owner" and \
            a % 2 == b % 2

    def options(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "rules": self._rules_override,
                "config_path": self.config_path}

    def _new_state(self, rng):
        from .rules import ZakaState
        return ZakaState(self, rng)
