"""One Zaberias variant: its options, tribes and rosters, the map tables, the action layout, and
the factory of game states (``ZaberiasGame.new_initial_state``)."""
from __future__ import annotations

import os
from typing import Any, get_args

import numpy as np

from ..core.game import ConfigError, Game
from ..core.options import Option, OptionTable
from . import actions as A
from .board import MapTables
from .observe import ObservationTables, observation_layout
from .state import ZaberiasState
from .tables import TRIBES, Ability, Phase, Tribe, load_tables


class ZaberiasGame(Game):
    """One Zaberias variant. See ``envs/zaberias/aec_env.py`` for the options."""

    name = "zaberias_v0"
    phase_names = get_args(Phase)
    hidden_information = False
    OPTIONS = OptionTable(
        "zaberias_v0",
        Option("num_players", int, 2, "players", low=2, high=4),
        Option("tribes", list, None, "one distinct tribe per player (default: the first ones)",
               choices=TRIBES),
        Option("rules", dict, None, "overrides of the rules table (configs/zaberias.yaml)"),
        Option("config_path", os.PathLike, None, "a rules file replacing configs/zaberias.yaml"),
    )

    def __init__(self, num_players: int = 2, tribes: list | tuple | None = None,
                 rules: dict | None = None, config_path: str | None = None):
        if tribes is None:
            tribes = TRIBES[:num_players]
        tribes = tuple(tribes)
        if len(tribes) != num_players or any(t not in TRIBES for t in tribes) \
                or len(set(tribes)) != len(tribes):
            raise ConfigError(f"tribes must be {num_players} distinct names from {TRIBES}, "
                              f"got {tribes!r}")
        self.num_seats = num_players
        self.tribes: tuple[Tribe, ...] = tribes
        self.config_path = None if config_path is None else os.fspath(config_path)
        self._rules_override = dict(rules or {})
        tables = load_tables(config_path, rules)
        data = tables["data"]
        self.rules = tables["rules"]
        # backstops (the rulebook's only ending is the last tribe standing): the round cap grows
        # with the opponents to beat, the action cap with the turns the round cap allows
        self.round_cap = self.rules["round_cap_per_opponent"] * (num_players - 1)
        self.action_cap = self.rules["action_cap_per_player_round"] * num_players * self.round_cap
        self.die_faces = tables["faces"]
        self.rosters = [tables["rosters"][t] for t in tribes]
        self.U = len(self.rosters[0])
        try:
            placements = data["layouts"][num_players]
            self.maps = MapTables(data["board"], data.get("roads", []), placements)
        except (KeyError, ValueError) as exc:
            raise ConfigError(f"bad map config: {exc}") from None
        g0 = self.maps.geometry((0,) * num_players)
        self.H, self.W, self.N = g0.H, g0.W, g0.N
        self.S = len(g0.site_cells)
        self.sites_per_board = self.maps.sites_per_board
        self.city_dice = [0] + [int(x) for x in data["city_dice"]]
        self.city_income = [0] + [int(x) for x in data["city_income"]]
        self.city_cost = [0] + [int(x) for x in data["city_cost"]]
        #: unit specs by global unit id (seat * U + slot)
        self.specs = [spec for roster in self.rosters for spec in roster]
        #: (seat, ability) -> unit id (each ability appears once per roster at most)
        self.ability_uid: dict[tuple[int, Ability], int] = {}
        for uid, spec in enumerate(self.specs):
            self.ability_uid.setdefault((uid // self.U, spec.ability), uid)
        # a Siphon may briefly hold more than its capacity (an ambush, a Siphon-on-Siphon
        # transfer) and then chooses whom to keep: one RELEASE per enemy unit in the game
        self.layout = A.ActionLayout(self.U, self.S, self.N, (num_players - 1) * self.U)
        self.num_actions = self.layout.size
        # MOVE, ATTACK and ABILITY: three consecutive blocks over the N cells of the grid
        self.spatial_actions = [[self.layout.MOVE, 3]]
        self.observation_layout = observation_layout(self)
        self.observation_tables = ObservationTables(self)

    def options(self) -> dict[str, Any]:
        return {"num_players": self.num_seats, "tribes": list(self.tribes),
                "rules": self._rules_override, "config_path": self.config_path}

    def slot_of(self, tribe_index: int, name: str) -> int:
        """Roster slot of the unit called ``name`` in the tribe of seat ``tribe_index``."""
        for i, spec in enumerate(self.rosters[tribe_index]):
            if spec.name == name:
                return i
        raise KeyError(name)

    def max_game_length(self) -> int:
        """The engine's action cap (``action_cap``: ``rules.action_cap_per_player_round`` actions
        a player a round of the round cap; 1,800 / 5,400 / 10,800 at 2 / 3 / 4 players by
        default): ``_apply`` ends the game as the history reaches it."""
        return int(self.action_cap)

    def _new_state(self, rng: np.random.Generator) -> ZaberiasState:
        return ZaberiasState(self, rng)
