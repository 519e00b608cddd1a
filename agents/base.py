"""The Agent protocol: act on an observation dict (``observation`` + ``action_mask``).

Agents own a seeded ``np.random.Generator`` so evaluation is reproducible. Search agents and the
rule-based baselines also read the engine state (``needs_state = True``): the play loop
(``train.play.play``) then passes ``act(obs, state=...)`` a determinized clone, never the real state.
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    name: str
    #: True where ``act`` needs the engine state (a determinized clone of the seat's view)
    needs_state: bool

    def reset(self, seed: int | None = None) -> None:
        """Start a new game (re-seed the agent's generator)."""

    def act(self, obs: dict[str, np.ndarray], state: Any = None) -> int:
        """Return a legal action for ``obs["action_mask"]``. ``state``: engine state (may be None)."""


class BaseAgent:
    """Convenience base: a seeded generator and a uniform pick among legal actions."""

    name = "base"
    needs_state = False
    #: the command-line spec that built it (``agents.make_agent``), None otherwise
    spec: str | None = None

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def random_legal(self, mask: np.ndarray) -> int:
        # np.flatnonzero's indices, without its Python-level wrappers (every step of every
        # random game, `arena bench` included, comes through here)
        legal = (mask.nonzero()[0] if type(mask) is np.ndarray and mask.ndim == 1
                 else np.flatnonzero(mask))
        if len(legal) == 0:
            raise ValueError("no legal action in the mask")
        return int(legal[self.rng.integers(len(legal))])

    def act(self, obs, state=None) -> int:
        raise NotImplementedError


class SharesBaseGenerator:
    """For an agent built on a base agent (``self.base``, e.g. the game's heuristic) that must draw
    from the same generator: setting ``rng`` (``reset`` re-seeding) sets the base's too. Put it
    before ``BaseAgent`` in the bases."""

    @property
    def rng(self):
        return self._rng

    @rng.setter
    def rng(self, value):
        self._rng = value
        if hasattr(self, "base"):
            self.base.rng = value


class RuleBasedAgent(BaseAgent):
    """Base of the per-game rule-based baselines: they read the engine state (``needs_state``)."""

    name = "heuristic"
    needs_state = True
    #: the ways it can play (``style=``), the default first; a game's heuristic may add its own
    #: (``agents.heuristics.heuristic_styles``; the ``plan`` / ``hplan`` agents choose among them)
    STYLES: tuple[str, ...] = ("default",)

    def __init__(self, game=None, seed: int | None = None, style: str = "default"):
        if style not in self.STYLES:
            raise ValueError(f"{type(self).__module__}.{type(self).__name__} has no style {style!r}; "
                             f"its styles: {', '.join(self.STYLES)}")
        super().__init__(seed)
        self.game = game
        self.style = style


class RandomAgent(BaseAgent):
    """Uniformly random legal actions."""

    name = "random"

    def act(self, obs, state=None) -> int:
        return self.random_legal(obs["action_mask"])
