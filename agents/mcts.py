"""A general search baseline over the engine API: UCT with random rollouts.

One algorithm covers every registered game:

- **Open-loop, information-set tree.** Nodes are reached by action sequences, not by states.
  Every simulation starts from ``state.determinize(seat, rng)`` with a fresh generator, so
  hidden hands are resampled (games with ``hidden_information``) and chance inside ``apply``
  (dice, bag draws from the state's own generator) comes out differently each time: the agent
  never peeks at the real future draws, even if it was handed the true state.
  This is single-observer ISMCTS (Cowling, Powley & Whitehouse 2012): a child's UCB uses its
  *availability* count (how often it was legal when its parent was visited) instead of the
  parent's visit count, because a move legal in one determinization may be illegal in another.
- **Multi-player returns.** Each edge remembers the agent that took it; a simulation backs up
  ``state.returns()`` mapped to agents (mean over the seats an agent owns, as the AEC adapter
  does), and each edge is credited with its own mover's return. Sub-steps (the same seat moving
  several times in a row) need nothing special: every edge carries its mover.
- **Budget.** ``simulations`` per move; rollouts stop after ``rollout_cap`` moves and score
  ``returns()`` there (zero for an unfinished game in the engines here, i.e. a draw).

The final move is the most visited legal root child (ties: higher mean value, then random).
"""
from __future__ import annotations

import math

import numpy as np

from .base import BaseAgent


class _Node:
    __slots__ = ("children", "visits", "value", "avail", "mover")

    def __init__(self, mover: int):
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.value = 0.0   # sum of the returns of ``mover`` (the agent that took the edge here)
        self.avail = 0     # simulations in which this edge was legal at its parent
        self.mover = mover


class SearchAgent(BaseAgent):
    """What the tree searches share (this UCT and ``agents.puct``): the checks of ``act``, no
    search with one legal move, and ``simulations`` simulations from fresh determinizations of
    the acting seat. Subclasses give ``_new_root()``, ``_simulate(root, state)`` and
    ``_choose(root, legal, mask)``."""

    needs_state = True

    def __init__(self, game, simulations: int, seed: int | None = None):
        super().__init__(seed)
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        self.game = game
        self.simulations = int(simulations)
        self._owner = [game.seat_owner(s) for s in range(game.num_seats)]

    def act(self, obs, state=None) -> int:
        mask = np.asarray(obs["action_mask"])
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action in the mask")
        if len(legal) == 1:
            return int(legal[0])
        who = type(self).__name__
        if state is None:
            raise ValueError(f"{who} needs the engine state (needs_state=True): pass a clone or "
                             "state.determinize(seat, rng)")
        if state.is_terminal():
            raise ValueError(f"{who}.act called on a finished game")
        seat = state.current_player
        root = self._new_root()
        for _ in range(self.simulations):
            self._simulate(root, state.determinize(seat, self.rng))
        return self._choose(root, legal, mask)

    def _new_root(self):
        raise NotImplementedError

    def _simulate(self, root, state) -> None:
        raise NotImplementedError

    def _choose(self, root, legal: np.ndarray, mask: np.ndarray) -> int:
        raise NotImplementedError


class MCTSAgent(SearchAgent):
    """UCT / determinized ISMCTS with uniformly random rollouts."""

    name = "mcts"

    def __init__(self, game, simulations: int = 200, seed: int | None = None,
                 exploration: float = 1.4, rollout_cap: int = 300):
        super().__init__(game, simulations, seed)
        if rollout_cap < 0:
            raise ValueError(f"rollout_cap must be >= 0, got {rollout_cap}")
        self.exploration = float(exploration)
        self.rollout_cap = int(rollout_cap)
        #: statistics of the last search (visits and mean value per root action), for tests and logs
        self.last_search: dict[int, tuple[int, float]] = {}

    # ------------------------------------------------------------------------------------------
    def _new_root(self) -> _Node:
        return _Node(mover=-1)

    # ------------------------------------------------------------------------------------------
    def _simulate(self, root: _Node, s) -> None:
        rng = self.rng
        path = []
        node = root
        # selection and expansion
        while not s.is_terminal():
            legal = s.legal_actions()
            mover = self._owner[s.current_player]
            children = node.children
            untried = []
            for a in legal:
                child = children.get(a)
                if child is None:
                    untried.append(a)
                else:
                    child.avail += 1
            if untried:
                a = untried[int(rng.integers(len(untried)))]
                child = _Node(mover)
                child.avail = 1
                children[a] = child
                s.apply_legal(a)   # from this position's legal_actions()
                path.append(child)
                break
            a = self._ucb_pick(children, legal)
            node = children[a]
            s.apply_legal(a)
            path.append(node)
        # rollout: random_legal draws from self.rng as a flatnonzero + integers would, and its
        # move comes from this position's mask, so apply_legal skips apply's second check
        steps = 0
        while steps < self.rollout_cap and not s.is_terminal():
            s.apply_legal(self.random_legal(s.legal_actions_mask()))
            steps += 1
        ret = self.game.agent_returns(s.returns())
        root.visits += 1
        for n in path:
            n.visits += 1
            n.value += ret[n.mover]

    def _ucb_pick(self, children: dict, legal: list[int]) -> int:
        c = self.exploration
        best_a, best_v = legal[0], -math.inf
        for a in legal:
            ch = children[a]
            # values are mapped from [-1, 1] to [0, 1] so the usual constant applies
            v = 0.5 * (ch.value / ch.visits + 1.0) + c * math.sqrt(math.log(ch.avail) / ch.visits)
            v += 1e-9 * self.rng.random()  # random tie-break
            if v > best_v:
                best_a, best_v = a, v
        return best_a

    def _choose(self, root: _Node, legal: np.ndarray, mask: np.ndarray) -> int:
        stats = {}
        for a in legal.tolist():
            ch = root.children.get(a)
            if ch is not None and ch.visits:
                stats[a] = (ch.visits, ch.value / ch.visits)
        self.last_search = stats
        if not stats:
            return self.random_legal(mask)
        top = max(stats.values())
        best = [a for a, v in stats.items() if v == top]
        return int(best[int(self.rng.integers(len(best)))])
