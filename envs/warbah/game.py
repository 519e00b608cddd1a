"""The Warbah Game: one variant's options, its rules tables (config.WarbahTables, configs/warbah.yaml
read once) and the factory of its states."""
from __future__ import annotations

from typing import Any, get_args

import numpy as np

from ..core.options import Option, OptionTable
from .actions import NUM_ACTIONS
from .position import WarbahPosition
from .tables import Phase, WarbahTables


class WarbahGame(WarbahTables):
    name = "warbah_v0"
    phase_names = get_args(Phase)
    num_actions = NUM_ACTIONS
    hidden_information = True
    #: the constructor's options, checked by envs.core.game.Game before ``__init__`` runs
    OPTIONS = OptionTable(
        "warbah_v0",
        Option("num_players", int, 2, "players", choices=(2, 3, 4)),
        Option("rules", dict, None, "overrides of any table of configs/warbah.yaml (nested)"),
        Option("allies", bool, False, "alliances between players (3 or 4 players)"),
    )

    def __init__(self, num_players: int = 2, rules: dict | None = None, allies: bool = False):
        super().__init__(num_players, rules, allies)   # the rules tables (config.WarbahTables)
        # the observation (observe.py): map planes and vector; fleets, espionage, special
        # units and alliances; magic
        self.observation_layout = [("board", (17, self.h, self.w)), ("vector", (48,)),
                                   ("board_b", (7, self.h, self.w)), ("vector_b", (76,)),
                                   ("magic", (266,))]

    def options(self) -> dict[str, Any]:
        out: dict[str, Any] = {"num_players": self.num_players}
        if self.rules_override:
            out["rules"] = self.rules_override
        if self.allies:
            out["allies"] = True
        return out

    def max_game_length(self) -> int:
        """The engine's action cap, ``designed.action_cap_per_player_turn`` actions a player a
        turn of the turn cap (``max_actions``: 960 / 2,160 / 3,840 at 2 / 3 / 4 players by
        default): ``turn.advance`` ends the game as the history reaches it."""
        return int(self.max_actions)

    def _new_state(self, rng: np.random.Generator) -> WarbahPosition:
        return WarbahPosition(self, rng)
