"""One Peacekeepers variant: its options (mode, players, hand, mountains, zones, puzzle level,
reward), the cube and token tables, and the factory of game states
(``PeacekeepersGame.new_initial_state``)."""
from __future__ import annotations

import os
from typing import Any, get_args

import numpy as np

from ..core.game import ConfigError, Game
from ..core.options import Option, OptionTable
from . import actions as A
from .board import BLACK, BROWN, GRAY, WHITE, eruption_tree
from .state import PeacekeepersState
from .tables import (
    BOARD_PLANES,
    MODES,
    PUZZLE_LEVELS,
    VECTOR_SIZE,
    Mode,
    Mountains,
    Phase,
    PuzzleLevel,
    Reward,
    ZoneKind,
    Zones,
    load_tables,
)


class PeacekeepersGame(Game):
    """One Peacekeepers variant. See ``envs/peacekeepers/aec_env.py`` for the options."""

    name = "peacekeepers_v0"
    phase_names = get_args(Phase)
    num_actions = A.NUM_ACTIONS
    observation_layout = [("board", (BOARD_PLANES, 10, 10)), ("vector", (VECTOR_SIZE,))]
    #: PLACE (10 colours) + CELL over the 100 cells; MOUNTAIN's 2 orientations over their anchors
    spatial_actions = [[A.PLACE, 11], [A.MOUNTAIN, 2]]
    OPTIONS = OptionTable(
        "peacekeepers_v0",
        Option("mode", str, "competitive", "game mode", choices=MODES),
        Option("num_players", int, None, "players (default: by mode)", low=1, high=4),
        Option("hand_size", int, None, "cubes in hand (solo/collaborative/puzzle challenge)",
               low=1, high=4),
        Option("mountains", str, None, "mountain ranges (default: by mode)",
               choices=get_args(Mountains)),
        Option("zones", str, "halves", "competitive zones", choices=get_args(Zones)),
        Option("puzzle_level", str, "standard", "puzzle mode level", choices=PUZZLE_LEVELS),
        Option("reward", str, "result", "terminal reward", choices=get_args(Reward)),
        Option("rules", dict, None, "overrides of the rules table (configs/peacekeepers.yaml)"),
        Option("config_path", os.PathLike, None, "a rules file replacing configs/peacekeepers.yaml"),
    )

    def __init__(self, mode: Mode = "competitive", num_players: int | None = None,
                 hand_size: int | None = None, mountains: Mountains | None = None,
                 zones: Zones = "halves", puzzle_level: PuzzleLevel = "standard",
                 reward: Reward = "result", rules: dict | None = None,
                 config_path: str | None = None):
        # each option's type and range is checked by OPTIONS; here: what depends on several
        defaults_players: dict[Mode, int] = {"solo": 1, "collaborative": 2, "competitive": 2,
                                             "competitive_no_points": 2, "puzzle": 1}
        n = defaults_players[mode] if num_players is None else num_players
        if mode == "solo" and n != 1:
            raise ConfigError("solo mode is for exactly 1 player")
        if mode.startswith("competitive") and n not in (2, 4):
            raise ConfigError(f"competitive modes are for 2 or 4 players (rulebook), got {n}")
        if mode == "collaborative" and n < 2:
            raise ConfigError("collaborative mode needs at least 2 players (use mode='solo')")
        if zones == "halves" and n == 4 and mode.startswith("competitive"):
            zones = "quadrants"  # 4 players always play quadrants (rulebook)
        if mountains is None:
            mountains = "none" if mode == "puzzle" else "choose"
        if mode == "puzzle" and mountains != "none":
            raise ConfigError("puzzle modes are played without mountains")
        # an option the mode ignores is refused (not silently dropped); its default value (what
        # options() reports, and saved games and checkpoints carry) is accepted
        uses_hand = mode in ("solo", "collaborative") or (mode == "puzzle" and puzzle_level == "challenge")
        default_hands: dict[Mode, int] = {"solo": 3, "collaborative": 1}
        default_hand = default_hands.get(mode, 1)
        if not uses_hand and hand_size not in (None, default_hand):
            raise ConfigError(f"hand_size={hand_size} has no effect in {mode} mode"
                              f"{' ' + puzzle_level if mode == 'puzzle' else ''} (hand_size is for "
                              "solo, collaborative and puzzle challenge; competitive hands are "
                              "rules.competitive_hand)")
        if mode != "puzzle" and puzzle_level != "standard":
            raise ConfigError(f"puzzle_level={puzzle_level!r} has no effect in {mode} mode "
                              "(it is for mode='puzzle')")
        if hand_size is None:
            hand_size = default_hand
        if mode == "puzzle" and puzzle_level == "challenge" and hand_size > 3:
            raise ConfigError("puzzle challenge keeps a hand of 1, 2 or 3 cubes")
        self.mode, self.num_seats, self.hand_size = mode, n, hand_size
        self.mountains, self.zones, self.puzzle_level, self.reward = mountains, zones, puzzle_level, reward
        self.config_path = None if config_path is None else os.fspath(config_path)
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
        self.zone_kind: ZoneKind = \
            ("halves" if zones == "halves" else "quadrants2" if n == 2 else "quadrants4") \
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

    def max_game_length(self) -> int:
        """A documented safe bound (the engine has no cap: every game ends by the rules). The
        game is bounded by its 100 cubes: a turn is a refill (draw or pass), its set-asides to the
        reserve (each takes a drawn cube), one placement or pass and at most two follow-ups (a
        Giant's second cube, a Troll's chase, an Elf's re-roll); a placed cube leaves the hand for
        good, and a cube comes back to the bag only off the board by a Goblin Horde (whose own
        cube is discarded) or from a stuck player's hand. Counted as 10 draws a cube (a cube back
        in the bag up to 9 times) of at most 5 actions, plus the set-up (mountains, the zone, the
        first temple): 5,020. Argued, not proven; games take 9-145 actions (RULES.md, Game
        length) and the conformance test's random games stay within it."""
        return 20 + 5 * 10 * 100

    def _new_state(self, rng: np.random.Generator) -> PeacekeepersState:
        return PeacekeepersState(self, rng)
