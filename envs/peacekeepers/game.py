"""One Peacekeepers variant: its options (mode, players, hand, mountains, zones, puzzle level,
reward), the cube and token tables, and the factory of game states
(``PeacekeepersGame.new_initial_state``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core.game import ConfigError, Game
from . import actions as A
from .board import BLACK, BROWN, GRAY, WHITE, eruption_tree
from .config import BOARD_PLANES, MODES, PUZZLE_LEVELS, VECTOR_SIZE, load_tables
from .rules import PeacekeepersState


class PeacekeepersGame(Game):
    """One Peacekeepers variant. See ``envs/peacekeepers/env.py`` for the options."""

    name = "peacekeepers_v0"
    num_actions = A.NUM_ACTIONS
    observation_layout = [("board", (BOARD_PLANES, 10, 10)), ("vector", (VECTOR_SIZE,))]
    #: PLACE (10 colours) + CELL over the 100 cells; MOUNTAIN's 2 orientations over their anchors
    spatial_actions = [[A.PLACE, 11], [A.MOUNTAIN, 2]]

    def __init__(self, mode: str = "competitive", num_players: int | None = None,
                 hand_size: int | None = None, mountains: str | None = None, zones: str = "halves",
                 puzzle_level: str = "standard", reward: str = "result",
                 rules: dict | None = None, config_path: str | None = None):
        if mode not in MODES:
            raise ConfigError(f"mode must be one of {MODES}, got {mode!r}")
        defaults_players = {"solo": 1, "collaborative": 2, "competitive": 2,
                            "competitive_no_points": 2, "puzzle": 1}
        n = defaults_players[mode] if num_players is None else num_players
        if not isinstance(n, int) or isinstance(n, bool):
            raise ConfigError(f"num_players must be an int, got {n!r}")
        if mode == "solo" and n != 1:
            raise ConfigError("solo mode is for exactly 1 player")
        if mode.startswith("competitive") and n not in (2, 4):
            raise ConfigError(f"competitive modes are for 2 or 4 players (rulebook), got {n}")
        if mode in ("collaborative", "puzzle") and not 1 <= n <= 4:
            raise ConfigError(f"{mode} mode supports 1..4 players here, got {n}")
        if mode == "collaborative" and n < 2:
            raise ConfigError("collaborative mode needs at least 2 players (use mode='solo')")
        if zones not in ("halves", "quadrants"):
            raise ConfigError(f"zones must be 'halves' or 'quadrants', got {zones!r}")
        if zones == "halves" and n == 4 and mode.startswith("competitive"):
            zones = "quadrants"  # 4 players always play quadrants (rulebook)
        if puzzle_level not in PUZZLE_LEVELS:
            raise ConfigError(f"puzzle_level must be one of {PUZZLE_LEVELS}, got {puzzle_level!r}")
        if reward not in ("result", "score"):
            raise ConfigError(f"reward must be 'result' or 'score', got {reward!r}")
        if mountains is None:
            mountains = "none" if mode == "puzzle" else "choose"
        if mountains not in ("choose", "random", "none"):
            raise ConfigError(f"mountains must be 'choose', 'random' or 'none', got {mountains!r}")
        if mode == "puzzle" and mountains != "none":
            raise ConfigError("puzzle modes are played without mountains")
        if hand_size is None:
            hand_size = {"solo": 3, "collaborative": 1}.get(mode, 1)
        if not isinstance(hand_size, int) or not 1 <= hand_size <= 4:
            raise ConfigError(f"hand_size must be 1..4 (solo/collaborative/puzzle challenge), "
                              f"got {hand_size!r}")
        if mode == "puzzle" and puzzle_level == "challenge" and hand_size > 3:
            raise ConfigError("puzzle challenge keeps a hand of 1, 2 or 3 cubes")
        self.mode, self.num_seats, self.hand_size = mode, n, hand_size
        self.mountains, self.zones, self.puzzle_level, self.reward = mountains, zones, puzzle_level, reward
        self.config_path = config_path
        self._rules_override = dict(rules or {})
        tables = load_tables(config_path, rules)
        self.faces = tables["faces"]
        #: face_present[cube, colour]: does the cube have a side of that colour
        self.face_present = np.zeros((100, 10), np.int32)
        for cube in range(100):
            self.face_present[cube, self.faces[cube]] = 1
        #: face_sets[cube]: its face colours as a frozenset (membership without numpy scalars)
        self.face_sets = tuple(frozenset(int(f) for f in row) for row in self.faces)
        #: face_tuples[cube]: its six faces as Python ints (a roll indexes it without numpy)
        self.face_tuples = tuple(tuple(int(f) for f in row) for row in self.faces)
        self.tokens = tables["tokens"]
        self.eruption_path = tables["eruption_path"]
        self.rules = tables["rules"]
        self.competitive = mode.startswith("competitive")
        self.points = mode == "competitive"
        self.puzzle = mode == "puzzle"
        self.zone_kind = ("halves" if zones == "halves" else "quadrants2" if n == 2 else "quadrants4") \
            if self.competitive else "halves"
        self.hidden_information = bool(self.rules["hidden_hands"])
        self.hand_cap = self.rules["competitive_hand"] if self.competitive else hand_size
        self.eruption = eruption_tree(self.eruption_path)
        banned = set()
        if self.rules["reroll_hordes"]:
            banned.add(BROWN)        # For Beginners: re-roll Goblin Hordes
        if self.rules["reroll_eruptions"]:
            banned.add(GRAY)         # For Beginners: re-roll Volcanic Eruptions
        if self.puzzle and puzzle_level == "challenge" and not self.rules["puzzle_hazards"]:
            banned |= {BLACK, WHITE, BROWN, GRAY}  # played without hordes, volcanoes, temples
        #: faces re-rolled whenever a cube is rolled in this variant
        self.always_reroll = frozenset(banned)
        #: the rule switches the placement kernel reads (envs/_accel.c, pk_placement_bits)
        self._kernel_flags = (1 * self.puzzle + 2 * bool(self.rules["restart_on_empty_board"])
                              + 4 * bool(self.rules["troll_check_after_chase"])
                              + 8 * bool(self.rules["giant_pairs_only"]))

    def options(self) -> dict[str, Any]:
        return {"mode": self.mode, "num_players": self.num_seats, "hand_size": self.hand_size,
                "mountains": self.mountains, "zones": self.zones, "puzzle_level": self.puzzle_level,
                "reward": self.reward, "rules": self._rules_override, "config_path": self.config_path}

    def new_initial_state(self, rng: np.random.Generator):
        return PeacekeepersState(self, rng)
