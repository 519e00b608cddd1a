"""One Gorgasali variant: its options, the board, card and character tables, and the factory of
game states (``GorgasaliGame.new_initial_state``)."""
from __future__ import annotations

import os
from typing import Any, Literal, Union, get_args

import numpy as np

from ..core.game import ConfigError, Game
from ..core.options import Option, OptionTable
from . import actions as A
from .board import Board
from .observe import ObservationTables, observation_layout
from .state import GorgasaliState
from .tables import CHARACTERS, CardType, Character, CrossKind, Phase, load_tables

Mode = Literal["solo", "duo"]
MODES: tuple[Mode, ...] = get_args(Mode)
#: the ``characters`` option: drawn at random, chosen at set-up, or one name per player
Characters = Union[Literal["random", "choose"], list[str]]


class GorgasaliGame(Game):
    """One Gorgasali variant. See ``envs/gorgasali/aec_env.py`` for the options."""

    name = "gorgasali_v0"
    phase_names = get_args(Phase)
    num_actions = A.NUM_ACTIONS
    hidden_information = True
    spatial_actions = [[A.SQUARE, 1]]   # SQUARE x over the 20x20 map
    OPTIONS = OptionTable(
        "gorgasali_v0",
        Option("num_players", int, 4, "players", low=2, high=A.MAX_PLAYERS),
        Option("mode", str, "solo", "free-for-all or teams of two", choices=MODES),
        Option("characters", (str, list), "random",
               "'random', 'choose' or a list of one distinct character name per player"),
        Option("rules", dict, None, "overrides of the rules table (configs/gorgasali.yaml)"),
        Option("config_path", os.PathLike, None, "a rules file replacing configs/gorgasali.yaml"),
    )

    def __init__(self, num_players: int = 4, mode: Mode = "solo", characters: Any = "random",
                 rules: dict | None = None, config_path: str | None = None):
        if mode == "duo" and (num_players % 2 or num_players < 4):
            raise ConfigError("duo mode needs an even number of players, at least 4 (rulebook)")
        if isinstance(characters, (list, tuple)):
            characters = list(characters)
            if len(characters) != num_players or any(c not in CHARACTERS for c in characters) \
                    or len(set(characters)) != len(characters):
                raise ConfigError(f"characters must list {num_players} distinct names from {CHARACTERS}")
        elif characters not in ("random", "choose"):
            raise ConfigError("characters must be 'random', 'choose' or a list of names")
        self.num_seats = num_players
        self.mode = mode
        self.characters: Characters = characters
        self.config_path = None if config_path is None else os.fspath(config_path)
        self._rules_override = dict(rules or {})
        tables = load_tables(config_path, rules)
        self.rules = tables["rules"]
        self.board: Board = tables["board"]
        self.cards: list[CardType] = tables["cards"]
        self.chars: list[Character] = tables["characters"]
        self.num_cards = len(self.cards)
        self.weapon_ids = [c.id for c in self.cards if c.category == "weapon"]
        self.support_ids = [c.id for c in self.cards if c.category != "weapon"]
        self.weapon_deck = [c.id for c in self.cards if c.category == "weapon" for _ in range(c.count)]
        self.support_deck = [c.id for c in self.cards if c.category != "weapon" for _ in range(c.count)]
        ball = [c for c in self.cards if c.kind == "ball"]
        #: Ball Lightning (damage, range)
        self.ball = (ball[0].value, ball[0].range_max) if ball else (35, 3)
        self.cost = self.board.cost_table(self.rules["movement_cost"])
        mc = self.rules["movement_cost"]
        #: movement points to enter each terrain (0: never)
        self.terrain_cost = (1, int(mc["water"]), int(mc["forest"]), int(mc["mountain"]), 0)
        self.team_size = 2 if mode == "duo" else 1
        self.num_teams = num_players // self.team_size
        # rulebook (Duo): teammates sit opposite each other
        self.team = [s % self.num_teams for s in range(num_players)]
        self.observation_layout = observation_layout()
        self.observation_tables = ObservationTables(self)
        #: the walk's cost to enter each square, by the crossing cards and the Barriers' squares
        #: (``MovementMixin.walk_cost``)
        self._walk_cost_cache: dict[tuple[frozenset[CrossKind], frozenset[int]], tuple[int, ...]] = {}

    def options(self) -> dict[str, Any]:
        return {"num_players": self.num_seats, "mode": self.mode, "characters": self.characters,
                "rules": self._rules_override, "config_path": self.config_path}

    def max_game_length(self) -> int | None:
        """A safe bound from the round cap: ``rules.max_rounds`` rounds of ``num_players`` turns
        (``_pass_turn`` ends the game past the cap), plus the characters chosen at set-up, with a
        turn bounded by what a turn may do once (RULES.md, Turn): every other player's reaction
        (an extra chest, an ability and its target square or card, a pass); the turn's extra
        chest, ability and target, ``octor_copies_per_turn`` copies and their targets, one
        consumable and its Teleport square, the roll, the walk (a square a step, no square twice,
        at most 24 points with Adrenaline: 48 counted), a skip, a throw, a defensive card, Kruber's
        return, the main action and its sub-step (the bonus move, a steal), a revive, the end;
        and a LOOT choice for each card received without a free slot (chests: every player's
        extra chest and the walk's, a Medea draw or a steal per ability and copy, the spoils of
        every other player's mat). Generous, not tight (a 4-player game: 30 rounds of 4 turns of
        at most ~540 actions; games take 264-960). None in duo: a trade (give, take, give the
        extra chest, take it back) has no limit of its own, so no bound holds there."""
        if self.team_size > 1:
            return None
        n, r = self.num_seats, self.rules
        copies = r["octor_copies_per_turn"]
        chest = r["chest_weapons"] + r["chest_supports"]
        received = (n + 1) * chest + 2 * (n + copies) + (n - 1) * A.MAT_SIZE
        turn = 4 * (n - 1) + 2 * (2 + copies) + 2 + 1 + 48 + 2 + 1 + 1 + 1 + 2 + 1 + 1 + received
        return int(n + r["max_rounds"] * n * turn)

    def _new_state(self, rng: np.random.Generator) -> GorgasaliState:
        return GorgasaliState(self, rng)
