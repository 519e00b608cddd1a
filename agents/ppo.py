"""MaskablePPO checkpoints as agents: ``ppo:PATH`` (``PPOAgent``).

The checkpoint format (a zip of JSON metadata and tensors, no code) is ``agents/checkpoint.py``; the
networks are ``agents/policy_net.py``. Both are re-exported here: ``tabletop_arena.agents.ppo`` is
where user code imports ``load_maskable_ppo``, ``load_policy`` or ``save_checkpoint`` from
(docs/integrations.md), and where pickled (legacy) checkpoints name ``ArenaPolicy``,
``LayoutExtractor`` and ``SpatialActionHead``, so the names must keep resolving here.
"""
from __future__ import annotations

import os

import numpy as np
import torch

from .base import BaseAgent
from .checkpoint import (  # noqa: F401 - re-exported: the public names and what legacy files name
    FORMAT,
    LEGACY_FORMAT,
    MAX_META_BYTES,
    MAX_WEIGHTS_BYTES,
    META_NAME,
    OPTIMIZER_NAME,
    POLICY_CLASSES,
    POLICY_KEYWORDS,
    WEIGHTS_NAME,
    CheckpointError,
    build_policy,
    check_compatible,
    check_trusted,
    convert_checkpoint,
    decode_spec,
    game_metadata,
    is_legacy,
    legacy_refusal,
    load_legacy,
    load_maskable_ppo,
    load_policy,
    numpy_too_old,
    policy_spec,
    read_metadata,
    read_training_state,
    save_checkpoint,
    write_checkpoint,
)
from .policy_net import (  # noqa: F401 - re-exported, as above
    ArenaPolicy,
    LayoutExtractor,
    SpatialActionHead,
    actor_latent,
    board_piece,
    critic_features,
    critic_latent,
    latents,
    numpy_forward,
    numpy_outputs,
    spatial_action_index,
)


# ---------------------------------------------------------------------------------------------
# the agent
# ---------------------------------------------------------------------------------------------
class PPOAgent(BaseAgent):
    """Plays a trained checkpoint: argmax of the masked policy logits (or a sample from them).

    ``trust=True`` also loads a pickled (legacy) checkpoint, which runs any code it carries."""

    name = "ppo"
    needs_state = False
    batchable = True  #: a vectorized self-play env may batch its moves (``logits_batch`` + ``choose``)

    def __init__(self, path: str | os.PathLike, game, seed: int | None = None,
                 deterministic: bool = True, check: bool = True, trust: bool = False):
        super().__init__(seed)
        self.path = str(path)
        self.meta = read_metadata(path)
        check_trusted(self.meta, path, trust)   # before anything else reads the file
        if check:
            check_compatible(self.meta, game, path)
        self.policy = load_policy(path, trust=trust)
        self.deterministic = deterministic

    @classmethod
    def from_policy(cls, policy, seed: int | None = None, deterministic: bool = True) -> "PPOAgent":
        """Wrap an in-memory policy (e.g. the learner during training)."""
        agent = cls.__new__(cls)
        BaseAgent.__init__(agent, seed)
        agent.path, agent.meta, agent.policy, agent.deterministic = "<memory>", {}, policy, deterministic
        return agent

    def logits(self, observation: np.ndarray) -> np.ndarray:
        return self.logits_batch(self.policy, np.asarray(observation, np.float32)[None])[0]

    @staticmethod
    def logits_batch(policy, observations: np.ndarray) -> np.ndarray:
        """Logits of a batch of observations (one forward pass; in numpy where the network has a
        numpy twin, ``numpy_forward``)."""
        fast = numpy_forward(policy)
        if fast is not None:
            return fast(np.asarray(observations, np.float32)).astype(np.float64)
        obs = torch.as_tensor(np.asarray(observations, np.float32), device=policy.device)
        with torch.inference_mode():
            return policy.action_net(actor_latent(policy, obs)).cpu().numpy().astype(np.float64)

    def act(self, obs, state=None) -> int:
        mask = np.asarray(obs["action_mask"]).astype(bool)
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("no legal action in the mask")
        if len(legal) == 1:
            return int(legal[0])
        return self.choose(self.logits(obs["observation"]), mask)

    def choose(self, logits: np.ndarray, mask: np.ndarray) -> int:
        """The move for these logits: argmax over the legal actions (ties at random), or a sample."""
        legal = np.flatnonzero(np.asarray(mask).astype(bool))
        if len(legal) == 0:
            raise ValueError("no legal action in the mask")
        if len(legal) == 1:
            return int(legal[0])
        z = np.asarray(logits, np.float64)[legal]
        if self.deterministic:
            best = np.flatnonzero(z >= z.max() - 1e-12)
            return int(legal[best[self.rng.integers(len(best))]] if len(best) > 1 else legal[best[0]])
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(legal[self.rng.choice(len(legal), p=p)])

    @staticmethod
    def sample_batch(logits: np.ndarray, masks: np.ndarray, rngs) -> np.ndarray:
        """``choose`` of a sampling agent (``deterministic=False``) for a batch of rows, row ``r``
        drawing from ``rngs[r]``: one softmax over the batch instead of a Python loop a row. Row by
        row it draws what ``choose`` draws (``Generator.choice``'s inverse CDF on one uniform),
        so the moves are ``choose``'s up to the last bit of rounding; a row with one legal move
        takes it without a draw, as ``choose`` does."""
        masks = np.asarray(masks, bool)
        rows, cols = np.nonzero(masks)            # the legal moves, row by row, in action order
        n_legal = np.bincount(rows, minlength=len(masks))
        if (n_legal == 0).any():
            raise ValueError("no legal action in the mask")
        # the legal logits packed to the left of a (rows x most legal moves) table, -inf after
        starts = np.concatenate(([0], np.cumsum(n_legal)[:-1]))
        at = np.arange(len(rows)) - starts[rows]
        z = np.full((len(masks), int(n_legal.max())), -np.inf)
        z[rows, at] = np.asarray(logits, np.float64)[rows, cols]
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        cdf = np.cumsum(p, axis=1)
        cdf /= cdf[np.arange(len(masks)), n_legal - 1][:, None]
        u = np.array([rng.random() if k > 1 else 0.0 for rng, k in zip(rngs, n_legal)])
        k = np.minimum((cdf <= u[:, None]).sum(axis=1), n_legal - 1)   # searchsorted 'right'
        return cols[starts + k]

