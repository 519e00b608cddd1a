"""One Zaka variant: its options, its card tables as flat per-design tuples, the action layout, and
the factory of game states (``ZakaGame.new_initial_state``)."""
from __future__ import annotations

import os
from typing import Any, get_args

import numpy as np

from ..core.game import ConfigError, Game
from ..core.options import Option, OptionTable
from .actions import ActionLayout
from .observe import ObservationTables, observation_layout
from .state import Phase, ZakaState
from .tables import MEND, NUM_PLAYERS, load_tables


class ZakaGame(Game):
    """One Zaka variant. See ``envs/zaka/aec_env.py`` for the options."""

    name = "zaka_v0"
    phase_names = get_args(Phase)
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
        self.hearts = tuple(c["hearts"] for c in cards)
        self.ability = tuple(c["ability"] for c in cards)
        self.swords = tuple(c["swords"] for c in cards)
        self.heart_weapon = tuple(c["heart"] for c in cards)
        self.bonus_vs = tuple(c["bonus_vs"] for c in cards)
        self.bonus = tuple(c["bonus"] for c in cards)
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
        #: per army: the armies it may damage (foes) and those it never damages (friends, itself
        #: included), from ``friendly``
        self.foes = tuple(tuple(t for t in range(self.num_seats) if not self.friendly(s, t))
                          for s in range(self.num_seats))
        self.friends = tuple(tuple(t for t in range(self.num_seats) if self.friendly(s, t))
                             for s in range(self.num_seats))
        self.field_cap = r["battlefield_cap"]
        self.layout = ActionLayout(dm, self.num_weapon_designs, self.field_cap, self.num_seats)
        self.num_actions = self.layout.num_actions
        self.observation_layout = observation_layout(self)
        self.observation_tables = ObservationTables(self)

    def strength(self, design: int, weapon: int) -> int:
        """Swords of a monster's ability plus its weapon's (``weapon`` -1: none); a Mend monster's
        strength is the hearts it restores (its weapon adds nothing to that)."""
        if self.ability[design] == MEND:
            return self.swords[design]
        return self.swords[design] + (self.swords[weapon] if weapon >= 0 else 0)

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

    def max_game_length(self) -> int:
        """``rules.max_turns`` turns (every army's turn counts, an idle pass included) of at most
        max(first_turn_monsters, plays_per_turn + 1) actions: a first turn ends itself at
        ``first_turn_monsters`` cards (fewer and END), a regular turn plays up to
        ``plays_per_turn`` cards (fewer and END) and then one ability, which ends it (600 by
        default)."""
        r = self.rules
        return int(r["max_turns"] * max(r["first_turn_monsters"], r["plays_per_turn"] + 1))

    def _new_state(self, rng: np.random.Generator) -> ZakaState:
        return ZakaState(self, rng)
