"""The RLlib RLModule of the ``rllib`` backend: the SB3 path's network, with action masking.

``ArenaRLModule`` wraps the very network ``arena train`` builds for MaskablePPO
(``agents.ppo.ArenaPolicy``: an MLP, or the CNN over the board piece with its optional spatial
action head), so both backends train the same architecture and an RLlib-trained policy exports
to the ``ppo:PATH`` checkpoint format unchanged (``export_policy`` in ``train/rllib.py``).

Observations are the PettingZoo dict ``{"observation": float32[K], "action_mask": int8[N]}``
as the env gives them (no renaming shim: RLlib's ``ActionMaskingRLModule`` example expects
``"observations"``); the module reads both keys and sets the logits of illegal actions to the
float32 minimum, so sampling, log-probabilities, entropy and KL only see legal actions.

``model_config`` keys: ``policy_kwargs`` (the keyword arguments of ``ArenaPolicy``, from
``train.ppo.policy_kwargs``). The module implements ``ValueFunctionAPI`` (PPO's GAE needs it);
the value head shares the features extractor with the policy, as in SB3.
"""
from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from ..agents.policy_net import ArenaPolicy, critic_latent, latents

#: the module id of the one policy every learner seat maps to
MODULE_ID = "shared"


def flat_spaces(observation_space: gymnasium.spaces.Space, action_space: gymnasium.spaces.Space):
    """The SB3 policy's spaces (flat ``Box`` observation, ``Discrete`` action) from the env's dict space."""
    if not isinstance(observation_space, gymnasium.spaces.Dict) or set(observation_space.spaces) != {
            "observation", "action_mask"}:
        raise ValueError(f"ArenaRLModule needs the dict observation space {{observation, action_mask}}, "
                         f"got {observation_space}")
    if not isinstance(action_space, gymnasium.spaces.Discrete):
        raise ValueError(f"ArenaRLModule needs a Discrete action space, got {action_space}")
    obs = observation_space["observation"]
    return gymnasium.spaces.Box(-1.0, 1.0, obs.shape, np.float32), gymnasium.spaces.Discrete(int(action_space.n))


def build_policy(observation_space, action_space, policy_kwargs: dict[str, Any]) -> ArenaPolicy:
    """An ``ArenaPolicy`` for the flat spaces (its own optimizer is never stepped here)."""
    policy = ArenaPolicy(observation_space, action_space, lambda _: 0.0, **policy_kwargs)
    policy.set_training_mode(False)
    return policy


def policy_state(module_state: dict[str, Any]) -> dict[str, torch.Tensor]:
    """The ``ArenaPolicy`` state dict inside an ``ArenaRLModule`` state (keys ``policy.*``)."""
    out = {k[len("policy."):]: torch.as_tensor(np.asarray(v)) for k, v in module_state.items()
           if k.startswith("policy.")}
    if not out:
        raise ValueError("not an ArenaRLModule state: no policy.* weights")
    return out


class ArenaRLModule(TorchRLModule, ValueFunctionAPI):
    """Masked actor-critic over the flat observation; logits of illegal actions -> FLOAT_MIN."""

    def setup(self):
        obs_space, act_space = flat_spaces(self.observation_space, self.action_space)
        kwargs = dict((self.model_config or {}).get("policy_kwargs") or {})
        self.policy = build_policy(obs_space, act_space, kwargs)

    # -- forward passes -----------------------------------------------------------------------
    def _split(self, batch):
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict) or "observation" not in obs or "action_mask" not in obs:
            raise ValueError("ArenaRLModule expects observations {'observation', 'action_mask'} "
                             f"(PettingZoo's keys), got {type(obs).__name__} "
                             f"{sorted(obs) if isinstance(obs, dict) else ''}")
        return obs["observation"].float(), obs["action_mask"]

    def _latents(self, x):
        return latents(self.policy, x)

    def _masked_logits(self, latent_pi, mask):
        logits = self.policy.action_net(latent_pi)
        return logits.masked_fill(mask <= 0, FLOAT_MIN)

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        x, mask = self._split(batch)
        latent_pi, _ = self._latents(x)
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(latent_pi, mask)}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        x, mask = self._split(batch)
        latent_pi, latent_vf = self._latents(x)
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(latent_pi, mask),
                Columns.EMBEDDINGS: latent_vf}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None):
        if embeddings is None:
            x, _ = self._split(batch)
            embeddings = critic_latent(self.policy, x)
        return self.policy.value_net(embeddings).squeeze(-1)
