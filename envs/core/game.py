"""The engine contract every game implements (numpy + stdlib only).

A *Game* holds the immutable rules configuration; a *State* is one position, mutable, with a cheap
``clone()`` (OpenSpiel style). Engines speak in seats ``0..num_seats-1``; the AEC adapter maps seats
to agent names (several seats may belong to one agent, e.g. Zaka's two armies per player).

Randomness: a State owns an ``np.random.Generator`` handed to ``Game.new_initial_state(rng)``; every
draw, roll and shuffle comes from it, so the seed plus the action history replays a game exactly.
"""
from __future__ import annotations

import functools
import json
from typing import Any, Sequence

import numpy as np


class IllegalActionError(ValueError):
    """Raised by ``State.apply`` for an action the current position does not allow.

    The state is left exactly as it was before the call.
    """

    def __init__(self, action: int, phase: str, reason: str):
        self.action, self.phase, self.reason = action, phase, reason
        super().__init__(f"illegal action {action} in phase {phase!r}: {reason}")


class ConfigError(ValueError):
    """A rules option or config table that is unknown or out of range."""


@functools.lru_cache(maxsize=16)
def read_yaml(path: str) -> dict:
    """Load a rules table (cached per path); a missing or malformed file raises ConfigError."""
    import yaml  # local import: only needed when a game is built

    try:
        with open(path) as fh:
            data = yaml.safe_load(fh)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping")
    return data


def merge_rules(defaults: dict | None, overrides: dict | None) -> dict:
    """The ``rules:`` table of a config with ``overrides`` applied: unknown keys and values of
    another type raise ConfigError (no silent substitution)."""
    merged = dict(defaults or {})
    for key, value in (overrides or {}).items():
        if key not in merged:
            raise ConfigError(f"unknown rules option {key!r}; known: {sorted(merged)}")
        if type(value) is not type(merged[key]):
            raise ConfigError(f"rules option {key!r} must be {type(merged[key]).__name__}, "
                              f"got {value!r}")
        merged[key] = value
    return merged


class Game:
    """Rules configuration of one game variant; a factory for states."""

    name: str = "game"
    num_seats: int = 2
    num_actions: int = 0
    #: named pieces of the flat observation vector: [(name, shape), ...] in order
    observation_layout: list[tuple[str, tuple[int, ...]]] = []
    #: True where a player may hold information the others cannot see (hands, unexplored map)
    hidden_information: bool = False
    #: board-aligned action ranges ``[[first, planes], ...]``: action ``first + p * H * W + cell``
    #: acts on ``cell`` (row-major) of the observation's (C, H, W) board piece, for p < planes.
    #: Read by the training pipeline's spatial policy head (``spatial_actions: auto``).
    spatial_actions: list[list[int]] = []

    def new_initial_state(self, rng: np.random.Generator) -> "State":
        raise NotImplementedError

    @property
    def observation_size(self) -> int:
        return int(sum(int(np.prod(shape)) for _, shape in self.observation_layout))

    def seat_owner(self, seat: int) -> int:
        """Agent index controlling ``seat`` (identity unless a player runs several seats)."""
        return seat

    @property
    def num_agents(self) -> int:
        return self.num_seats

    def options(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this variant (for checkpoints and replays)."""
        return {}

    # -- replay -------------------------------------------------------------------------------
    def replay(self, seed: int | None, actions: Sequence[int]) -> "State":
        """Rebuild a state from its seed and action history."""
        state = self.new_initial_state(np.random.default_rng(seed))
        state.seed = seed
        for a in actions:
            state.apply(int(a))
        return state


class State:
    """One position. Subclasses implement the abstract methods below."""

    game: Game
    history: list[int]
    seed: int | None

    # -- abstract -----------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        """Seat to act, or -1 once the game is over."""
        raise NotImplementedError

    def legal_actions_mask(self) -> np.ndarray:
        """int8[num_actions]: 1 where the current player may take the action."""
        raise NotImplementedError

    def _apply(self, action: int) -> None:
        """Apply a legal action (already validated)."""
        raise NotImplementedError

    def is_terminal(self) -> bool:
        raise NotImplementedError

    def returns(self) -> np.ndarray:
        """float[num_seats]: final rewards (0 while the game runs)."""
        raise NotImplementedError

    def observation(self, seat: int) -> np.ndarray:
        """float32[observation_size] as seen by ``seat``."""
        raise NotImplementedError

    def action_to_str(self, action: int) -> str:
        raise NotImplementedError

    def phase_name(self) -> str:
        return "play"

    def clone(self) -> "State":
        raise NotImplementedError

    def render_text(self, observer: int | None = None, color: bool = False) -> str:
        """The position as text. ``observer`` None: the spectator's view (public information
        only where the game hides some); a seat: what that seat's player may see. ``color``: ANSI
        colour codes (off by default, see ``envs.core.terminal``)."""
        raise NotImplementedError

    def render_rgb(self, observer: int | None = None) -> np.ndarray:
        """The position as an ``(H, W, 3) uint8`` picture, with the same ``observer`` rule as
        ``render_text``. Games draw their own (``envs/<game>/render.py``); this fallback is a
        picture of the coloured text."""
        from .textimage import text_to_rgb
        return text_to_rgb(self.render_text(observer=observer, color=True))

    # -- shared -------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_actions_mask()).tolist()

    def illegal_reason(self, action: int) -> str:
        """Why ``action`` is illegal here (games may override with a sharper message)."""
        return "not allowed in this position (see legal_actions())"

    def apply(self, action: int) -> None:
        """Validate and apply ``action``; raise IllegalActionError and change nothing if illegal."""
        a = int(action)
        if self.is_terminal():
            raise IllegalActionError(a, self.phase_name(), "the game is over")
        if not 0 <= a < self.game.num_actions:
            raise IllegalActionError(a, self.phase_name(),
                                     f"out of range: actions are 0..{self.game.num_actions - 1}")
        if not self.legal_actions_mask()[a]:
            raise IllegalActionError(a, self.phase_name(),
                                     f"{self.action_to_str(a)}: {self.illegal_reason(a)}")
        self.apply_legal(a)

    def apply_legal(self, action: int) -> None:
        """``apply`` for an action the caller has just found set in ``legal_actions_mask()`` of
        this very position (the AEC adapter checks its mask first): skips the second check."""
        self._apply(action)
        self.history.append(action)

    def determinize(self, observer: int, rng: np.random.Generator) -> "State":
        """A clone in which everything ``observer`` cannot see is resampled from ``rng``.

        The default fits games whose only hidden information is future chance (bag draws, dice):
        the clone gets a fresh generator. Games with hidden hands override it.
        """
        s = self.clone()
        s.rng = np.random.default_rng(rng.integers(2**63))
        return s

    def serialize(self) -> str:
        """JSON with the variant options, the seed and the action history."""
        return json.dumps({"game": self.game.name, "options": self.game.options(),
                           "seed": self.seed, "actions": list(self.history)})


def restore(game: Game, blob: str) -> State:
    """Inverse of ``State.serialize`` for a game built with the same options."""
    data = json.loads(blob)
    if data.get("game") != game.name:
        raise ConfigError(f"saved game is {data.get('game')!r}, not {game.name!r}")
    if data.get("options") != json.loads(json.dumps(game.options())):
        raise ConfigError(f"saved options {data.get('options')} differ from {game.options()}")
    return game.replay(data.get("seed"), data["actions"])


def new_rng(seed: int | None) -> tuple[np.random.Generator, int]:
    """A Generator and the concrete seed used (drawn from OS entropy when seed is None)."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2**63))
    return np.random.default_rng(seed), int(seed)


def rank_returns(scores: Sequence[float], active: Sequence[bool] | None = None) -> np.ndarray:
    """Zero-sum rank rewards: +1 best .. -1 worst, ties share the mean of their ranks.

    For two players this is +1/-1/0. Scores compare higher-is-better.
    """
    n = len(scores)
    if n == 1:
        return np.zeros(1)
    order = sorted(range(n), key=lambda i: -scores[i])
    values = np.linspace(1.0, -1.0, n)
    out = np.zeros(n)
    i = 0
    while i < n:
        j = i
        while j + 1 < n and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        v = values[i:j + 1].mean()
        for k in range(i, j + 1):
            out[order[k]] = v
        i = j + 1
    return out
