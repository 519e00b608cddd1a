"""The heuristic's choice as a policy input ("residual" policies over the rule-based baseline).

With the training config's ``heuristic_hint: true`` the learner sees, after the game's own flat
observation, one more piece ``heuristic_hint`` of ``num_actions`` floats: 1 on every legal action
the game's rule-based heuristic rates best (its ties all marked), 0 elsewhere. The network adds
``gate(latent) * hint`` to its logits (``agents.nets.SlotNet``): a learned, state-dependent trust
in the heuristic's move, 0 at the start of a run that continues a policy trained without the
hint (so the policy starts exactly where that one stopped).

The hint leaks nothing the player may not see: it is computed on ``state.determinize(seat, rng)``
(the seat's own view, hidden cards re-dealt at random), like the heuristic baseline itself. Only
games whose heuristic exposes ``best_actions(mask, state)`` can give it (``supports_hint``).
The env's public observation layout does not change: the piece is the agent's and the training
pipeline's, recorded in the checkpoint's metadata (``heuristic_hint``), so ``PPOAgent`` rebuilds it
at play time (it then reads the determinized state: ``needs_state``).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

HINT_PIECE = "heuristic_hint"


def supports_hint(game) -> bool:
    """True where the game's heuristic can rate the legal actions (``best_actions``)."""
    from .registry import has_heuristic, make_agent
    if not has_heuristic(game):
        return False
    return callable(getattr(make_agent("heuristic", game, seed=0), "best_actions", None))


class HeuristicHint:
    """Computes the ``heuristic_hint`` piece for the player to move."""

    def __init__(self, game, seed: int | None = None):
        from .registry import make_agent
        self.game = game
        agent = make_agent("heuristic", game, seed=seed)
        best = getattr(agent, "best_actions", None)
        if not callable(best):
            raise ValueError(f"{game.name}: its heuristic cannot rate actions (no best_actions): "
                             "heuristic_hint is not available for this game")
        self.best_actions: Callable[[np.ndarray, Any], np.ndarray] = best
        self.num_actions = int(game.num_actions)

    def vector(self, state, rng: np.random.Generator, determinized: bool = False) -> np.ndarray:
        """The piece for ``state.current_player``; ``state`` is determinized for that seat first
        unless ``determinized`` says the caller already did; all 0 once the game is over."""
        if state.is_terminal():
            return np.zeros(self.num_actions, np.float32)
        if not determinized:
            state = state.determinize(state.current_player, rng)
        mask = state.legal_actions_mask()
        out = np.zeros(self.num_actions, np.float32)
        out[self.best_actions(mask, state)] = 1.0
        return out

    def extend(self, observation: np.ndarray, state, rng: np.random.Generator,
               determinized: bool = False) -> np.ndarray:
        """``observation`` with the piece appended (float32)."""
        return np.concatenate([np.asarray(observation, np.float32),
                               self.vector(state, rng, determinized)])
