"""The networks of MaskablePPO checkpoints: ``ArenaPolicy`` (MaskablePPO's policy with an optional
spatial action head), its CNN features extractor ``LayoutExtractor``, and the numpy twins and latent
helpers that play a policy without autograd (``numpy_forward``, ``actor_latent``, ...).

Loading a checkpoint needs only ``agents`` (``agents`` never imports ``train``), so these live here;
the checkpoint format is ``agents/checkpoint.py``, the agent that plays one ``agents/ppo.py``.
Checkpoints pickled before the safe format name these classes ``tabletop_arena.agents.ppo.*`` (and
older ones ``agents.ppo.*``): ``agents/ppo.py`` re-exports them, so those names still resolve.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import BaseModel
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from .nets import ExtractorHead


# ---------------------------------------------------------------------------------------------
# network
# ---------------------------------------------------------------------------------------------
def board_piece(layout) -> tuple[int, tuple[int, int, int]] | None:
    """(offset, (C, H, W)) of the first 3-d piece of an observation layout, or None."""
    offset = 0
    for _, shape in layout:
        shape = tuple(int(x) for x in shape)
        if len(shape) == 3:
            return offset, shape
        offset += int(np.prod(shape))
    return None


class LayoutExtractor(BaseFeaturesExtractor):
    """Small CNN over the (C, H, W) board piece + an MLP over the remaining (vector) pieces.

    ``layout`` is ``game.observation_layout``; the flat observation is split back into its pieces
    by offset, so any game whose layout has a 3-d piece can use it. The last convolution's feature
    map is kept in ``last_map`` for a spatial action head (``SpatialActionHead``).
    """

    def __init__(self, observation_space: spaces.Box, layout, cnn_channels=(32, 32),
                 cnn_hidden: int = 256, vector_hidden: int = 128):
        found = board_piece(layout)
        if found is None:
            raise ValueError("LayoutExtractor needs a (C, H, W) piece in the observation layout")
        offset, (c, h, w) = found
        total = int(observation_space.shape[0])
        vec = total - c * h * w
        super().__init__(observation_space, cnn_hidden + (vector_hidden if vec else 0))
        self.offset, self.board_shape, self.board_size, self.vector_size = offset, (c, h, w), c * h * w, vec
        layers: list[nn.Module] = []
        ch = c
        for out in cnn_channels:
            layers += [nn.Conv2d(ch, int(out), kernel_size=3, padding=1), nn.ReLU()]
            ch = int(out)
        self.map_channels = ch
        self.convs = nn.Sequential(*layers)
        self.board_head = nn.Sequential(nn.Flatten(), nn.Linear(ch * h * w, cnn_hidden), nn.ReLU())
        self.mlp = nn.Sequential(nn.Linear(vec, vector_hidden), nn.ReLU()) if vec else None
        self.last_map: torch.Tensor | None = None

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        a, b = self.offset, self.offset + self.board_size
        board = obs[:, a:b].reshape(-1, *self.board_shape)
        self.last_map = self.convs(board)
        out = self.board_head(self.last_map)
        if self.mlp is None:
            return out
        vec = obs[:, b:] if a == 0 else torch.cat([obs[:, :a], obs[:, b:]], dim=1)
        return torch.cat([out, self.mlp(vec)], dim=1)


def spatial_action_index(spatial_actions, board_hw: tuple[int, int], num_actions: int) -> list[int]:
    """The actions covered by board-aligned ranges ``[[first, planes], ...]``, in plane/cell order;
    ValueError if a range leaves the action space or two ranges overlap."""
    h, w = board_hw
    idx: list[int] = []
    for entry in spatial_actions:
        first, planes = int(entry[0]), int(entry[1])
        if first < 0 or planes < 1 or first + planes * h * w > num_actions:
            raise ValueError(f"spatial action range {list(entry)} ({planes} planes of {h}x{w} from "
                             f"action {first}) does not fit {num_actions} actions")
        idx.extend(range(first, first + planes * h * w))
    if len(set(idx)) != len(idx):
        raise ValueError(f"spatial action ranges overlap: {spatial_actions}")
    return idx


class SpatialActionHead(nn.Module):
    """Action logits where part of the action space is aligned with the board.

    For each range ``[first, planes]`` action ``first + p*H*W + cell`` gets the logit of plane p at
    that cell from a 1x1 convolution over the extractor's last feature map (plus a per-plane bias
    computed from the policy latent, for global context); every other action gets a logit from a
    linear layer on the latent (as in SB3's default head). AlphaZero-style policy heads like this
    share what is learnt about one cell with every other cell.
    """

    position: torch.Tensor   # a registered buffer: action -> column of the concatenated logits

    def __init__(self, extractor: LayoutExtractor, latent_dim: int, num_actions: int, spatial_actions):
        super().__init__()
        self._extractor = [extractor]  # a plain reference: its parameters belong to the policy already
        _, h, w = extractor.board_shape
        spatial = spatial_action_index(spatial_actions, (h, w), num_actions)
        planes = len(spatial) // (h * w)
        covered = set(spatial)
        other = [a for a in range(num_actions) if a not in covered]
        self.conv = nn.Conv2d(extractor.map_channels, planes, kernel_size=1)
        self.plane_bias = nn.Linear(latent_dim, planes)
        self.dense = nn.Linear(latent_dim, len(other)) if other else None
        position = np.empty(num_actions, np.int64)
        position[np.asarray(spatial + other, np.int64)] = np.arange(num_actions)
        self.register_buffer("position", torch.as_tensor(position), persistent=False)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        fmap = self._extractor[0].last_map
        if fmap is None or fmap.shape[0] != latent.shape[0]:
            raise RuntimeError("SpatialActionHead: the features extractor must run on the same batch first")
        spatial = (self.conv(fmap) + self.plane_bias(latent)[:, :, None, None]).flatten(1)
        parts = [spatial] if self.dense is None else [spatial, self.dense(latent)]
        return torch.index_select(torch.cat(parts, dim=1), 1, self.position)


def actor_latent(policy, obs: torch.Tensor) -> torch.Tensor:
    """The policy branch's latent (what ``action_net`` reads) of an SB3 actor-critic policy, whether
    or not it shares its features extractor with the value branch (``share_features``). SB3's own
    ``extract_features(obs, extractor)`` ignores the extractor it is given when the two are not
    shared and returns both branches' features, so every caller goes through here."""
    return policy.mlp_extractor.forward_actor(
        BaseModel.extract_features(policy, obs, policy.pi_features_extractor))


def critic_features(policy, obs: torch.Tensor) -> torch.Tensor:
    """The value branch's features (what its MLP reads); see ``actor_latent``."""
    return BaseModel.extract_features(policy, obs, policy.vf_features_extractor)


def critic_latent(policy, obs: torch.Tensor) -> torch.Tensor:
    """The value branch's latent (what ``value_net`` reads); see ``actor_latent``."""
    return policy.mlp_extractor.forward_critic(critic_features(policy, obs))


def latents(policy, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(policy latent, value latent), with one extractor pass where the two branches share it."""
    if policy.share_features_extractor:
        return policy.mlp_extractor(BaseModel.extract_features(policy, obs, policy.features_extractor))
    return actor_latent(policy, obs), critic_latent(policy, obs)


def numpy_forward(policy):
    """The policy's logits as a numpy function of a float32 batch, where its features extractor
    has a numpy twin (``SlotNet.numpy_logits``), it runs on the CPU and the actor adds no layer of
    its own; else None (use torch)."""
    ext = policy.pi_features_extractor
    fn = getattr(ext, "numpy_logits", None)
    if fn is None or policy.device.type != "cpu" or len(policy.mlp_extractor.policy_net) \
            or not isinstance(policy.action_net, ExtractorHead):
        return None
    return fn


_NUMPY_ACTIVATIONS: dict[type, Callable[[np.ndarray], np.ndarray]] = {nn.Tanh: np.tanh, nn.ReLU: lambda x: np.maximum(x, 0)}


def numpy_outputs(policy):
    """(logits, values) as a numpy function of a float32 batch (the rollout's forward pass) where
    ``numpy_forward`` applies and the critic (shared features, then Linear / Tanh / ReLU layers)
    runs in numpy too; else None. The critic's weights are read as views of its parameters at
    each call, so they follow the updates."""
    if numpy_forward(policy) is None or not policy.share_features_extractor:
        return None
    layers = list(policy.mlp_extractor.value_net) + [policy.value_net]
    if not all(isinstance(m, nn.Linear) or type(m) in _NUMPY_ACTIVATIONS for m in layers):
        return None
    forward = policy.features_extractor.numpy_forward

    def outputs(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        logits, x = forward(obs)
        for m in layers:
            if isinstance(m, nn.Linear):
                x = x @ m.weight.detach().cpu().numpy().T + m.bias.detach().cpu().numpy()
            else:
                x = _NUMPY_ACTIVATIONS[type(m)](x)
        return logits, x[:, 0]

    return outputs


class ArenaPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with an optional spatial action head (``spatial_actions``)."""

    def __init__(self, *args, spatial_actions=None, **kwargs):
        self.spatial_actions = [[int(a), int(b)] for a, b in spatial_actions] if spatial_actions else []
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        if getattr(self.features_extractor, "provides_logits", False):
            # agents/nets.py: the extractor scores the actions itself (pointer / spatial heads)
            self.action_net = ExtractorHead(self.pi_features_extractor)
            self.optimizer = self.optimizer_class(  # type: ignore[call-arg]  # as SB3 builds it
                self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
        elif self.spatial_actions:
            if not isinstance(self.features_extractor, LayoutExtractor) or not self.share_features_extractor:
                raise ValueError("spatial_actions need the cnn network (LayoutExtractor, shared)")
            assert isinstance(self.action_space, spaces.Discrete)
            self.action_net = SpatialActionHead(self.features_extractor, self.mlp_extractor.latent_dim_pi,
                                                int(self.action_space.n), self.spatial_actions)
            if self.ortho_init:
                self.action_net.apply(partial(self.init_weights, gain=0.01))
            # SB3 types optimizer_class as torch's base Optimizer, whose __init__ takes no lr
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),  # type: ignore[call-arg]
                                                  **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["spatial_actions"] = self.spatial_actions
        return data
