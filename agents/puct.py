"""A trained policy with search at play time: PUCT (AlphaZero's selection rule) over the engine,
guided by a MaskablePPO checkpoint's policy (priors) and value head (leaf values).

    from tabletop_arena.agents.registry import make_agent
    agent = make_agent("puct:64:zaka", envs.make_game("zaka_v0"), seed=0)   # 64 simulations

The tree is the one ``agents.mcts`` searches (open-loop, information-set: every simulation starts
from ``state.determinize(seat, rng)`` with the searching agent's generator, so hidden cards are
resampled and dice come out differently each time; it never sees the real future draws). What
changes is how a simulation is scored and where it goes:

- **Leaf values from the network, no rollouts.** A simulation walks down the tree until it reaches
  a position the tree has not expanded, evaluates it once with the checkpoint (the acting seat's
  observation: logits for the priors and the value head's estimate of the final result for that
  seat) and backs the value up. The value is for the seat to act; with two players the other gets
  its negative, with more players each other player gets ``-v / (n - 1)`` (the returns of the games
  here sum to 0: ``envs.core.game.rank_returns``). A finished game backs up its real returns.
- **Priors.** A node keeps the logits of the first position that expanded it; at each visit the
  prior is the softmax of those logits over the actions legal in this simulation's
  determinization (a move legal in one sample may be illegal in another).
- **Selection.** PUCT: ``Q(a) + c * P(a) * sqrt(N) / (1 + n(a))``, where ``N`` counts the
  node's visits, ``n(a)`` the child's and ``Q`` is the mean return of the child's mover; a child
  not yet visited scores the parent's mean value for that mover (first-play urgency), so the
  priors order the first visits.
- **The move** is the most visited legal root child (ties: higher prior). With one legal move
  there is no search.

Cost: one network forward pass per simulation (about 0.2-1 ms on a CPU core for the shipped
networks), so ``puct:64`` spends a few hundredths of a second a move.
"""
from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import torch

from .checkpoint import check_compatible, check_trusted, load_policy, read_metadata
from .mcts import SearchAgent
from .policy_net import latents


class Node:
    """A position of the open-loop tree (reached by an action sequence, not a state): used by
    ``PUCTAgent`` and by the search-distillation trainer's batched search."""

    __slots__ = ("children", "visits", "logits", "value_sum", "prior_cache")

    def __init__(self):
        self.children: dict[int, Edge] = {}
        self.visits = 0
        self.logits: np.ndarray | None = None   # the network's logits where this node was expanded
        #: per agent: the sum of the returns backed up here (an array here, a list in the trainer)
        self.value_sum: Any = None
        #: the trainer's (legal moves, their priors) of the last legal set seen
        self.prior_cache: tuple[list[int], list[float]] | None = None

    def edge(self, action: int, mover: int) -> "Edge":
        """The edge of ``action`` (taken by agent ``mover``), made on its first visit."""
        e = self.children.get(action)
        if e is None:
            e = self.children[action] = Edge(mover)
        return e


class Edge:
    __slots__ = ("node", "visits", "value", "mover")

    def __init__(self, mover: int):
        self.node = Node()
        self.visits = 0
        self.value = 0.0   # sum of the returns of ``mover`` (the agent taking this edge)
        self.mover = mover


def puct_select(node: Any, legal: list[int], priors: list[float], mover: int, c: float) -> int:
    """The PUCT rule, ``Q + c P sqrt(N) / (1 + n)`` over ``legal`` (``priors`` in its order): the
    move to follow from ``node`` (``visits``, ``value_sum`` per agent, ``children``: action -> edge
    with ``visits`` and ``value``, the sum of its mover's returns). An unvisited child scores the
    parent's mean for the mover (first-play urgency); ties go to the earlier legal move. Used by
    ``PUCTAgent`` and the search-distillation trainer's batched search
    (train/distill_selfplay.py)."""
    sqrt_n = math.sqrt(max(node.visits, 1))
    vs = node.value_sum
    fpu = vs[mover] / node.visits if vs is not None and node.visits else 0.0
    best_a, best = legal[0], -math.inf
    children = node.children
    for a, p in zip(legal, priors):
        e = children.get(a)
        if e is None or e.visits == 0:
            score = fpu + c * p * sqrt_n
        else:
            score = e.value / e.visits + c * p * sqrt_n / (1 + e.visits)
        if score > best:
            best_a, best = a, score
    return best_a


class PUCTAgent(SearchAgent):
    """Policy-and-value guided search with a MaskablePPO checkpoint (see the module docstring)."""

    name = "puct"

    def __init__(self, path: str | os.PathLike | None, game, simulations: int = 64,
                 seed: int | None = None, c_puct: float = 1.5, policy=None, check: bool = True,
                 evaluator=None, trust: bool = False):
        super().__init__(game, simulations, seed)
        if not c_puct > 0:
            raise ValueError(f"c_puct must be > 0, got {c_puct}")
        if policy is None and evaluator is None:
            if path is None:
                raise ValueError("PUCTAgent needs a checkpoint path or a policy")
            meta = read_metadata(path)
            check_trusted(meta, path, trust)   # a pickled checkpoint only with trust=True
            if check:
                check_compatible(meta, game, path)
            policy = load_policy(path, trust=trust)
        self.path = str(path) if path is not None else "<memory>"
        self.policy = policy
        self.c_puct = float(c_puct)
        self._n_agents = game.num_agents
        #: the last search's root statistics: action -> (visits, mean value of its mover, prior)
        self.last_search: dict[int, tuple[int, float, float]] = {}
        self.evaluations = 0  #: leaf evaluations so far (for logs and tests)
        #: state -> (logits over every action, value for the seat to act): the network unless given
        self._evaluate = evaluator if evaluator is not None else self.evaluate

    # ------------------------------------------------------------------------------------------
    def evaluate(self, state) -> tuple[np.ndarray, float]:
        """(logits over every action, value for the seat to act) of ``state`` from the network,
        on that seat's observation (the one the seat may see)."""
        seat = state.current_player
        observation = np.asarray(state.observation(seat), np.float32)
        obs = torch.as_tensor(observation[None], device=self.policy.device)
        p = self.policy
        with torch.no_grad():
            latent_pi, latent_vf = latents(p, obs)
            logits = p.action_net(latent_pi)[0].cpu().numpy().astype(np.float64)
            value = float(p.value_net(latent_vf)[0, 0])
        return logits, max(-1.0, min(1.0, value))

    def _spread(self, mover: int, v: float) -> np.ndarray:
        """Per-agent returns from the mover's value (zero-sum returns, see the docstring)."""
        n = self._n_agents
        out = np.full(n, -v / (n - 1) if n > 1 else 0.0)
        out[mover] = v
        return out

    # ------------------------------------------------------------------------------------------
    def _new_root(self) -> Node:
        return Node()

    def _simulate(self, root: Node, s) -> None:
        path: list[Edge] = []
        node = root
        while True:
            if s.is_terminal():
                ret = np.asarray(self.game.agent_returns(s.returns()), np.float64)
                break
            mover = self._owner[s.current_player]
            if node.logits is None:  # a leaf: evaluate it, expand it, back the value up
                node.logits, v = self._evaluate(s)
                node.logits = np.asarray(node.logits, np.float64)
                self.evaluations += 1
                ret = self._spread(mover, v)
                break
            legal = s.legal_actions()
            a = self._select(node, legal, mover)
            edge = node.edge(a, mover)
            s.apply_legal(a)  # a is in this position's legal list
            path.append(edge)
            node = edge.node
        # back up: the root and every node on the path count the visit
        self._add(root, ret)
        for edge in path:
            edge.visits += 1
            edge.value += ret[edge.mover]
            self._add(edge.node, ret)

    @staticmethod
    def _add(node: Node, ret: np.ndarray) -> None:
        node.visits += 1
        if node.value_sum is None:
            node.value_sum = ret.copy()
        else:
            node.value_sum += ret

    @staticmethod
    def _priors(node: Node, legal) -> np.ndarray:
        """The softmax of the node's logits over ``legal`` (the node has been evaluated)."""
        assert node.logits is not None
        z = node.logits[legal]
        p = np.exp(z - z.max())
        return p / p.sum()

    def _select(self, node: Node, legal: list[int], mover: int) -> int:
        return puct_select(node, legal, self._priors(node, legal).tolist(), mover, self.c_puct)

    def _choose(self, root: Node, legal: np.ndarray, mask: np.ndarray) -> int:
        priors = self._priors(root, legal) if root.logits is not None else np.ones(len(legal))
        stats = {}
        for a, p in zip(legal.tolist(), priors.tolist()):
            e = root.children.get(a)
            if e is None or not e.visits:
                stats[a] = (0, 0.0, p)
            else:
                stats[a] = (e.visits, e.value / e.visits, p)
        self.last_search = stats
        return int(max(stats, key=lambda a: (stats[a][0], stats[a][2])))

