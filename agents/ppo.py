"""MaskablePPO checkpoints as agents (``ppo:PATH``), and the checkpoint format itself.

**A checkpoint carries no code.** It is a zip of three members, format ``tabletop-arena-ppo/2``:

| member            | content                                                                   |
|-------------------|---------------------------------------------------------------------------|
| ``arena_meta.json``| JSON: what the policy plays (table below) and how to rebuild its network |
| ``policy.pt``     | the policy's ``state_dict`` (``torch.save``), read back with              |
|                   | ``torch.load(weights_only=True)``: tensors only, no pickled objects       |
| ``optimizer.pt``  | full checkpoints only (``checkpoint.zip``, ``final.zip``: what            |
|                   | ``--resume`` reads): the Adam state, tensors and numbers, read the same way |

``arena_meta.json``:

| key                 | meaning                                                           |
|---------------------|-------------------------------------------------------------------|
| format              | ``tabletop-arena-ppo/2``                                          |
| game                | registered id, e.g. ``peacekeepers_v0``                           |
| options             | ``game.options()`` (the variant)                                  |
| observation_size    | length of the flat observation                                    |
| observation_layout  | ``game.observation_layout`` as ``[[name, shape], ...]``           |
| num_actions         | size of the Discrete action space                                 |
| num_agents/num_seats| players and seats of the variant                                  |
| timesteps           | learner steps trained so far                                      |
| config              | the training config (``train.config.TrainConfig`` as a dict)      |
| policy              | the network: ``class`` (``ArenaPolicy`` or                         |
|                     | ``MaskableActorCriticPolicy``), ``observation_space`` (shape, low,|
|                     | high), ``action_space`` (n) and ``kwargs``, the constructor's     |
|                     | keywords as JSON; the features extractor, activation and optimizer|
|                     | classes by name (``POLICY_CLASSES``, ``_class_keywords``)          |
| policy_only         | true: no optimizer state (plays, starts a fine-tune; no resume)   |
| training            | full checkpoints: ``num_timesteps``, ``n_updates``, ``episode_num``|

**Loading** reads the JSON, resolves every class it names from the allow-lists here (nothing is
imported by a name read from a file), bounds every number in the description (``MAX_NUMBER``),
builds the network on torch's ``meta`` device (shapes only) and checks that the weights file has
exactly its tensors, shapes and dtypes, then builds it for real and loads the weights. A member
that unpacks to more than ``MAX_WEIGHTS_BYTES`` is refused unread. Any failure is one
``CheckpointError``. Loading also checks every metadata field against the game it is asked to play,
so a policy never silently plays a game whose observations it cannot read.

**Pickled checkpoints are code.** Files written before this format (``tabletop-arena-ppo/1``: the
zip of ``MaskablePPO.save`` plus ``arena_meta.json``) keep SB3's ``data`` member, which SB3 unpacks
with cloudpickle: a crafted file runs any code when loaded. They load only with an explicit opt-in,
``trust=True`` here (``--trust-checkpoint`` on the command line); ``convert_checkpoint(src, dst,
trust=True)`` (``arena convert-checkpoint SRC DST --trust-checkpoint``) rewrites a trusted one in
the safe format once, after which it loads like any other.

**Fine-tuning in your own SB3 code**: ``load_maskable_ppo(name_or_path, env)`` returns a
``MaskablePPO`` with the checkpoint's network and weights (docs/integrations.md). ``MaskablePPO.load``
does not read these files (there is no pickled ``data`` member for it to unpack).

The features extractor used by the CNN network (``LayoutExtractor``) lives here rather than in
``train/`` so that loading a checkpoint needs only ``agents`` (``agents`` never imports ``train``).
This module imports torch; nothing else in ``agents`` does.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import sys
import tempfile
import zipfile
from functools import partial
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.policies import BaseModel
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from ..envs.core.errors import ArenaError
from .base import BaseAgent
from .nets import ExtractorHead
from .shipped import resolve_checkpoint

#: the safe format: JSON metadata + tensors (read with ``torch.load(weights_only=True)``)
FORMAT = "tabletop-arena-ppo/2"
#: SB3's pickled zip + ``arena_meta.json`` (loaded only with ``trust``)
LEGACY_FORMAT = "tabletop-arena-ppo/1"
META_NAME = "arena_meta.json"
WEIGHTS_NAME = "policy.pt"
OPTIMIZER_NAME = "optimizer.pt"
#: the most a member may unpack to (a zip of zeros unpacks a thousand times its size)
MAX_META_BYTES = 16 << 20
MAX_WEIGHTS_BYTES = 1 << 30


class CheckpointError(ArenaError):
    """A checkpoint that cannot be read, or was trained on a different game/variant/layout."""


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


# ---------------------------------------------------------------------------------------------
# metadata
# ---------------------------------------------------------------------------------------------
def _jsonable(x):
    return json.loads(json.dumps(x, default=str))


def game_metadata(game, game_id: str | None = None) -> dict[str, Any]:
    """The fields that identify what a policy can play."""
    return {
        "format": FORMAT,
        "game": game_id or game.name,
        "options": _jsonable(game.options()),
        "observation_size": int(game.observation_size),
        "observation_layout": [[name, [int(x) for x in shape]] for name, shape in game.observation_layout],
        "num_actions": int(game.num_actions),
        "num_agents": int(game.num_agents),
        "num_seats": int(game.num_seats),
    }


def _read_member(zf: zipfile.ZipFile, name: str, limit: int, path) -> bytes:
    """A member's bytes, refused before reading when it would unpack to more than ``limit``."""
    info = zf.getinfo(name)
    if info.file_size > limit:
        raise CheckpointError(f"{path}: {name} unpacks to {info.file_size} bytes, more than the "
                              f"{limit} a checkpoint member may have")
    return zf.read(name)


def read_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The ``arena_meta.json`` of a checkpoint, of either format (JSON only: nothing is unpickled);
    CheckpointError if unreadable."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint not found: {path}")
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            if META_NAME not in names:
                raise CheckpointError(f"{path} has no {META_NAME}: not a Tabletop Arena checkpoint "
                                      f"(written by `arena train`)")
            meta = json.loads(_read_member(zf, META_NAME, MAX_META_BYTES, path).decode())
            fmt = meta.get("format") if isinstance(meta, dict) else None
            needs = (WEIGHTS_NAME,) if fmt == FORMAT else ("data", "policy.pth") if fmt == LEGACY_FORMAT else ()
            missing = [n for n in needs if n not in names]
            if missing:
                raise CheckpointError(f"{path} is incomplete (no {', '.join(missing)})")
    except CheckpointError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError,
            zipfile.LargeZipFile, ValueError, RecursionError) as exc:
        raise CheckpointError(f"corrupt checkpoint {path}: {type(exc).__name__}: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") not in (FORMAT, LEGACY_FORMAT):
        raise CheckpointError(f"{path}: unknown checkpoint format {meta.get('format') if isinstance(meta, dict) else meta!r}"
                              f" (expected {FORMAT})")
    return meta


def is_legacy(meta: dict) -> bool:
    """Whether a checkpoint's metadata (``read_metadata``) belongs to a pickled SB3 zip."""
    return meta.get("format") == LEGACY_FORMAT


def legacy_refusal(path) -> str:
    """Why a pickled checkpoint (format ``LEGACY_FORMAT``) is not loaded by default, and the two ways
    on, in one line short enough for the command line."""
    return (f"{path} is a pickled checkpoint (loading it runs any code in it): if you trust its source, "
            f"--trust-checkpoint (trust=True) or arena convert-checkpoint")


def check_trusted(meta: dict, path, trust: bool) -> None:
    """CheckpointError (``legacy_refusal``) for a pickled checkpoint unless ``trust``."""
    if is_legacy(meta) and not trust:
        raise CheckpointError(legacy_refusal(path))


def check_compatible(meta: dict, game, path: str | os.PathLike = "checkpoint") -> None:
    """Raise CheckpointError naming every field where ``meta`` does not fit ``game``."""
    want = game_metadata(game)
    problems = []
    if meta.get("game") != want["game"]:
        problems.append(f"game: checkpoint {meta.get('game')!r}, asked {want['game']!r}")
    for key in ("options", "observation_size", "observation_layout", "num_actions", "num_agents"):
        if meta.get(key) != want[key]:
            problems.append(f"{key}: checkpoint {meta.get(key)!r}, asked {want[key]!r}")
    if meta.get("heuristic_hint"):   # an input of an experiment that did not ship (issue 44)
        problems.append("heuristic_hint: the network reads the heuristic's best moves as an extra input, "
                        "which this version no longer builds (removed in issue 44; commit d5dc338 has it)")
    if problems:
        raise CheckpointError(f"{path} does not fit this game variant:\n  " + "\n  ".join(problems))


# ---------------------------------------------------------------------------------------------
# the network, described in JSON (the safe format's "policy" entry)
# ---------------------------------------------------------------------------------------------
#: the policy classes a checkpoint may name
POLICY_CLASSES: dict[str, type] = {"ArenaPolicy": ArenaPolicy,
                                   "MaskableActorCriticPolicy": MaskableActorCriticPolicy}
#: the constructor keywords a checkpoint's policy may set
POLICY_KEYWORDS = ("net_arch", "activation_fn", "ortho_init", "features_extractor_class",
                   "features_extractor_kwargs", "share_features_extractor", "normalize_images",
                   "optimizer_class", "optimizer_kwargs", "spatial_actions")
#: every integer in the metadata is at most this (a layer of a million units is already absurd
#: here); the weights file bounds the rest (``_check_weights_fit``)
MAX_NUMBER = 1 << 20


def _class_keywords() -> dict[str, dict[str, type]]:
    """keyword -> {name: class}: the only classes a checkpoint can name, found by name here
    (never imported by a name read from a file)."""
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from .nets import BoardNet, SlotNet
    return {
        "features_extractor_class": {c.__name__: c for c in (LayoutExtractor, BoardNet, SlotNet, FlattenExtractor)},
        "activation_fn": {c.__name__: c for c in (nn.Tanh, nn.ReLU, nn.ELU, nn.GELU, nn.LeakyReLU, nn.SiLU)},
        "optimizer_class": {c.__name__: c for c in (torch.optim.Adam, torch.optim.AdamW, torch.optim.SGD,
                                                    torch.optim.RMSprop)},
    }


def _plain(value, where: str):
    """``value`` if it is JSON data (tuples become lists), else ValueError."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v, where) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _plain(v, f"{where}.{k}") for k, v in value.items()}
    raise ValueError(f"{where}: {value!r} is not plain data (the safe checkpoint format stores JSON)")


def policy_spec(policy: MaskableActorCriticPolicy) -> dict[str, Any]:
    """The JSON description from which ``build_policy`` rebuilds ``policy``'s network: its class,
    spaces and every constructor keyword (classes by their allow-listed names). ValueError for a
    policy the safe format cannot describe."""
    name = type(policy).__name__
    if POLICY_CLASSES.get(name) is not type(policy):
        raise ValueError(f"policy class {type(policy).__qualname__} is not one the safe checkpoint "
                         f"format knows ({', '.join(POLICY_CLASSES)})")
    obs, act = policy.observation_space, policy.action_space
    if not (isinstance(obs, spaces.Box) and len(obs.shape) == 1 and obs.dtype == np.float32
            and np.all(obs.low == obs.low.flat[0]) and np.all(obs.high == obs.high.flat[0])):
        raise ValueError(f"observation space {obs}: the safe format stores a flat float32 Box with "
                         f"one low and one high")
    if not isinstance(act, spaces.Discrete) or int(act.start) != 0:
        raise ValueError(f"action space {act}: the safe format stores Discrete(n)")
    params = policy._get_constructor_parameters()
    params["share_features_extractor"] = bool(policy.share_features_extractor)  # SB3 leaves it out
    classes = _class_keywords()
    kwargs: dict[str, Any] = {}
    for key in POLICY_KEYWORDS:
        if key not in params:
            continue
        value = params[key]
        if key in classes:
            class_name = str(getattr(value, "__name__", ""))
            if classes[key].get(class_name) is not value:
                raise ValueError(f"{key} {value!r} is not in the safe format's allow-list "
                                 f"({', '.join(classes[key])})")
            value = class_name
        kwargs[key] = _plain(value, key)
    return {"class": name,
            "observation_space": {"shape": [int(obs.shape[0])], "low": float(obs.low.flat[0]),
                                  "high": float(obs.high.flat[0]), "dtype": "float32"},
            "action_space": {"n": int(act.n)},
            "kwargs": kwargs}


def _check_numbers(value, where: str, depth: int = 0) -> None:
    if depth > 16:
        raise CheckpointError(f"{where}: nested too deeply")
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) > MAX_NUMBER:
            raise CheckpointError(f"{where}: {value} is out of range (at most {MAX_NUMBER})")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise CheckpointError(f"{where}: {value} is not a finite number")
    elif isinstance(value, list):
        if len(value) > 10_000:
            raise CheckpointError(f"{where}: a list of {len(value)} entries")
        for i, v in enumerate(value):
            _check_numbers(v, f"{where}[{i}]", depth + 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_numbers(v, f"{where}.{k}", depth + 1)
    else:
        raise CheckpointError(f"{where}: {value!r} is not plain data")


def decode_spec(spec, path="checkpoint") -> tuple[type, spaces.Box, spaces.Discrete, dict[str, Any]]:
    """(policy class, observation space, action space, constructor keywords) from a ``policy``
    entry; CheckpointError for anything outside the allow-lists or the number bounds."""
    if not isinstance(spec, dict):
        raise CheckpointError(f"{path}: its metadata has no network description ('policy')")
    _check_numbers(spec, f"{path}: policy")
    name = spec.get("class")
    cls = POLICY_CLASSES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise CheckpointError(f"{path}: policy class {spec.get('class')!r} is not one this package "
                              f"loads ({', '.join(POLICY_CLASSES)})")
    try:
        o, a = spec["observation_space"], spec["action_space"]
        shape, n = [int(x) for x in o["shape"]], int(a["n"])
        if len(shape) != 1 or shape[0] < 1 or n < 1 or o.get("dtype") != "float32":
            raise ValueError("a flat float32 observation and n >= 1 actions")
        obs = spaces.Box(float(o["low"]), float(o["high"]), (shape[0],), np.float32)
        act = spaces.Discrete(n)
        kwargs = dict(spec["kwargs"])
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: bad spaces in its network description: {type(exc).__name__}: {exc}") from None
    unknown = sorted(set(kwargs) - set(POLICY_KEYWORDS))
    if unknown:
        raise CheckpointError(f"{path}: unknown policy keywords {unknown} (allowed: {', '.join(POLICY_KEYWORDS)})")
    for key, allowed in _class_keywords().items():
        if key in kwargs:
            found = allowed.get(kwargs[key]) if isinstance(kwargs[key], str) else None
            if found is None:
                raise CheckpointError(f"{path}: {key} {kwargs[key]!r} is not in the allow-list "
                                      f"({', '.join(allowed)})")
            kwargs[key] = found
    return cls, obs, act, kwargs


def _check_weights_fit(spec_parts, state: dict, path) -> None:
    """The network the metadata describes, built on torch's ``meta`` device (shapes only, no
    memory, no random numbers drawn), has exactly the tensors of the weights file: a description
    cannot make the loader allocate more than the file holds."""
    cls, obs, act, kwargs = spec_parts

    class ShapesOnly(cls):  # type: ignore[valid-type, misc]
        @property
        def device(self) -> torch.device:   # SB3 moves parts to the policy's device: stay on meta
            return torch.device("meta")

    try:
        with torch.device("meta"):
            want = ShapesOnly(obs, act, _zero_schedule, **kwargs).state_dict()
    except Exception as exc:   # noqa: BLE001 - a description no constructor accepts
        raise CheckpointError(f"{path}: its network description does not build: {type(exc).__name__}: {exc}") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise CheckpointError(f"{path}: {WEIGHTS_NAME} is not a dict of tensors")
    missing, unexpected = sorted(set(want) - set(state)), sorted(set(state) - set(want))
    wrong = [f"{k} {tuple(state[k].shape)} {state[k].dtype} (the network has {tuple(v.shape)} {v.dtype})"
             for k, v in want.items() if k in state and (state[k].shape != v.shape or state[k].dtype != v.dtype)]
    if missing or unexpected or wrong:
        parts = ([f"missing {missing[:5]}"] if missing else []) + \
                ([f"unexpected {unexpected[:5]}"] if unexpected else []) + wrong[:5]
        raise CheckpointError(f"{path}: the weights do not fit the network its metadata describes: "
                              + "; ".join(parts))


def _zero_schedule(_progress: float) -> float:
    return 0.0


def _read_tensors(path, name: str, device: str = "cpu"):
    """A tensor file inside the checkpoint, read with ``torch.load(weights_only=True)``: tensors,
    numbers, strings and containers only (torch refuses anything else)."""
    try:
        with zipfile.ZipFile(path) as zf:
            raw = _read_member(zf, name, MAX_WEIGHTS_BYTES, path)
        return torch.load(io.BytesIO(raw), map_location=device, weights_only=True)
    except CheckpointError:
        raise
    except Exception as exc:   # noqa: BLE001 - truncated, foreign or refused by weights_only
        raise CheckpointError(f"corrupt checkpoint {path}: {name}: {type(exc).__name__}: {exc}") from None


def build_policy(meta: dict, state: dict, path="checkpoint", device: str = "cpu"):
    """The policy a safe checkpoint's metadata describes, with the weights ``state`` (checked to
    fit first), in eval mode on ``device``."""
    parts = decode_spec(meta.get("policy"), path)
    _check_weights_fit(parts, state, path)
    cls, obs, act, kwargs = parts
    try:
        policy = cls(obs, act, _zero_schedule, **kwargs)
        policy.load_state_dict(state)
    except Exception as exc:   # noqa: BLE001
        raise CheckpointError(f"corrupt checkpoint {path}: {type(exc).__name__}: {exc}") from None
    policy.set_training_mode(False)
    return policy.to(device)


# ---------------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------------
def _write_atomically(path: Path, payload: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; a checkpoint is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _tensor_bytes(obj) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def write_checkpoint(path: str | os.PathLike, meta: dict[str, Any], policy, optimizer_state=None,
                     training: dict[str, Any] | None = None) -> Path:
    """Write a safe checkpoint atomically (a temporary file in the same folder, then os.replace):
    ``meta`` + the description of ``policy`` in ``arena_meta.json``, its weights in ``policy.pt``
    and, for a resumable checkpoint, ``optimizer_state`` in ``optimizer.pt`` and ``training``
    (learner step counters) in the metadata."""
    path = Path(path)
    full = optimizer_state is not None
    meta = dict(meta, format=FORMAT, policy_only=not full, policy=policy_spec(policy))
    if full:
        meta["training"] = dict(training or {})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(META_NAME, json.dumps(meta, indent=2, default=str))
        zf.writestr(WEIGHTS_NAME, _tensor_bytes({k: v.detach().cpu() for k, v in policy.state_dict().items()}))
        if full:
            zf.writestr(OPTIMIZER_NAME, _tensor_bytes(optimizer_state))
    _write_atomically(path, buf.getvalue())
    return path


def save_checkpoint(model, path: str | os.PathLike, meta: dict[str, Any], policy_only: bool = False) -> Path:
    """Write ``model`` (an SB3 MaskablePPO) + ``meta`` in the safe format, atomically.

    ``policy_only`` leaves out the optimizer state and the step counters (about 2/3 of a full
    file): enough to play (``PPOAgent``) or to start a fine-tune, not to ``--resume``.
    """
    if policy_only:
        return write_checkpoint(path, meta, model.policy)
    training = {"num_timesteps": int(model.num_timesteps), "n_updates": int(getattr(model, "_n_updates", 0)),
                "episode_num": int(getattr(model, "_episode_num", 0))}
    return write_checkpoint(path, meta, model.policy, model.policy.optimizer.state_dict(), training)


def read_training_state(path: str | os.PathLike, meta: dict | None = None) -> tuple[dict, Any, dict]:
    """(policy weights, optimizer state, step counters) of a resumable safe checkpoint."""
    meta = read_metadata(path) if meta is None else meta
    if is_legacy(meta):
        raise CheckpointError(legacy_refusal(path))
    if meta.get("policy_only") or not isinstance(meta.get("training"), dict):
        raise CheckpointError(f"{path} holds a policy only (no optimizer state): it plays and starts "
                              f"a fine-tune (init_policy), but a run cannot resume from it")
    state = _read_tensors(path, WEIGHTS_NAME)
    _check_weights_fit(decode_spec(meta.get("policy"), path), state, path)
    optimizer = _read_tensors(path, OPTIMIZER_NAME)
    if not isinstance(optimizer, dict) or "state" not in optimizer or "param_groups" not in optimizer:
        raise CheckpointError(f"corrupt checkpoint {path}: {OPTIMIZER_NAME} is not an optimizer state")
    training = meta["training"]
    for key in ("num_timesteps", "n_updates", "episode_num"):
        value = training.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**62:
            raise CheckpointError(f"corrupt checkpoint {path}: training.{key} is {value!r}, not a count")
    return state, optimizer, training


# ---------------------------------------------------------------------------------------------
# legacy: SB3's pickled zips (only with trust)
# ---------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _legacy_module_names():
    """Checkpoints written before the ``tabletop_arena`` namespace pickled their classes as
    ``agents.ppo.ArenaPolicy``; while one loads, those names point at this package (only where
    nothing else holds them), and are removed again afterwards."""
    added = []
    for old, new in (("agents", __package__), ("agents.ppo", __name__)):
        if old not in sys.modules:
            sys.modules[old] = sys.modules[new]
            added.append(old)
    try:
        yield
    finally:
        for old in added:
            sys.modules.pop(old, None)


def numpy_too_old(exc: BaseException, path) -> CheckpointError | None:
    """The error to show where unpickling a trusted legacy file failed because it was written with
    numpy 2 (its pickle names ``numpy._core``) and the installed numpy is older; else None."""
    if isinstance(exc, ModuleNotFoundError) and (exc.name or "").startswith("numpy._core"):
        return CheckpointError(
            f"{path} was written with numpy >= 2 (its pickle names {exc.name}); the installed numpy "
            f"{np.__version__} is too old to read it: install numpy >= 2, or convert the file where "
            f"numpy >= 2 is installed (arena convert-checkpoint; the safe format needs no numpy)")
    return None


def load_legacy(path: str | os.PathLike, device: str = "cpu") -> tuple[dict, dict]:
    """SB3's (data, params) of a pickled checkpoint: UNPICKLES the file (runs any code it holds).
    Only behind an explicit ``trust``."""
    from stable_baselines3.common.save_util import load_from_zip_file

    custom = {"learning_rate": 0.0, "lr_schedule": None, "clip_range": None}
    try:
        try:
            data, params, _ = load_from_zip_file(str(path), device=device, custom_objects=custom)
        except ModuleNotFoundError as exc:
            if exc.name not in ("agents", "agents.ppo"):
                raise
            with _legacy_module_names():
                data, params, _ = load_from_zip_file(str(path), device=device, custom_objects=custom)
        if data is None or params is None or "policy" not in params:
            raise CheckpointError(f"checkpoint {path} holds no policy (no data or parameters)")
    except CheckpointError:
        raise
    except Exception as exc:  # any unpickling / zip problem means the file is unusable
        raise numpy_too_old(exc, path) or CheckpointError(
            f"corrupt checkpoint {path}: {type(exc).__name__}: {exc}") from None
    return data, params


def _legacy_policy(path, device: str = "cpu"):
    data, params = load_legacy(path, device)
    try:
        policy = data["policy_class"](data["observation_space"], data["action_space"],
                                      _zero_schedule, **data["policy_kwargs"])
        policy.load_state_dict(params["policy"])
    except Exception as exc:  # noqa: BLE001 - shapes, keywords: the file is unusable
        raise CheckpointError(f"corrupt checkpoint {path}: {type(exc).__name__}: {exc}") from None
    policy.set_training_mode(False)
    return policy.to(device), data, params


def convert_checkpoint(src: str | os.PathLike, dst: str | os.PathLike, *, trust: bool) -> Path:
    """Rewrite a pickled (legacy) checkpoint in the safe format: the same weights, metadata and,
    for a full checkpoint, optimizer state and step counters. Unpickles ``src`` (runs any code it
    holds), so ``trust=True`` must be passed: convert only files whose source you trust. A safe
    ``src`` is copied as it is."""
    meta = read_metadata(src)
    if not is_legacy(meta):
        load_policy(src)   # checked: it loads
        dst = Path(dst)
        _write_atomically(dst, Path(src).read_bytes())
        return dst
    check_trusted(meta, src, trust)
    policy, data, params = _legacy_policy(src)
    optimizer = params.get("policy.optimizer")
    training = {"num_timesteps": int(data.get("num_timesteps", meta.get("timesteps", 0)) or 0),
                "n_updates": int(data.get("_n_updates", 0) or 0),
                "episode_num": int(data.get("_episode_num", 0) or 0)}
    keep = {k: v for k, v in meta.items() if k not in ("format", "policy_only", "policy", "training")}
    try:
        return write_checkpoint(dst, keep, policy, optimizer, training if optimizer is not None else None)
    except ValueError as exc:
        raise CheckpointError(f"{src} cannot be written in the safe format: {exc}") from None


# ---------------------------------------------------------------------------------------------
# loading
# ---------------------------------------------------------------------------------------------
def load_policy(path: str | os.PathLike, device: str = "cpu", trust: bool = False):
    """The MaskableActorCriticPolicy of a checkpoint (no optimizer state), in eval mode.

    A safe checkpoint is rebuilt from its JSON description and ``torch.load(weights_only=True)``
    weights. A pickled (legacy) one is refused with ``CheckpointError`` unless ``trust`` (loading it
    runs whatever code it carries)."""
    meta = read_metadata(path)
    if is_legacy(meta):
        check_trusted(meta, path, trust)
        return _legacy_policy(path, device)[0]
    return build_policy(meta, _read_tensors(path, WEIGHTS_NAME), path, device)


def load_maskable_ppo(ref: str | os.PathLike, env, *, device: str = "auto", trust: bool = False,
                      **ppo_kwargs):
    """A ``sb3_contrib.MaskablePPO`` on ``env`` carrying a checkpoint's network and weights, ready
    for ``.learn()``: fine-tune a shipped agent (``ref`` its name, e.g. ``"zaka"``) or your own
    checkpoint (``ref`` a path) in your own SB3 code.

        import gymnasium, tabletop_arena.envs
        from tabletop_arena.agents.ppo import load_maskable_ppo
        env = gymnasium.make("tabletop_arena/Zaka-v0", opponent="heuristic")
        model = load_maskable_ppo("zaka", env, learning_rate=1e-4, n_steps=256)
        model.learn(10_000)

    ``env``'s spaces must be the checkpoint's (its game and variant: the flat observation and the
    action count); ``ppo_kwargs`` go to ``MaskablePPO`` (learning_rate, n_steps, batch_size, seed,
    ...; not ``policy_kwargs``, which come from the checkpoint). The optimizer starts fresh (shipped
    checkpoints hold the policy only); ``model.save`` writes SB3's own (pickled) zip, and
    ``agents.ppo.save_checkpoint(model, path, meta)`` a safe one that ``ppo:PATH`` plays.
    ``MaskablePPO.load`` does not read Tabletop Arena checkpoints: they hold no pickle to unpack.
    """
    from sb3_contrib import MaskablePPO


    if "policy_kwargs" in ppo_kwargs:
        raise TypeError("load_maskable_ppo: policy_kwargs come from the checkpoint")
    path = resolve_checkpoint(ref)
    meta = read_metadata(path)
    check_trusted(meta, path, trust)
    policy = load_policy(path, trust=trust)
    obs_space, act_space = env.observation_space, env.action_space
    if tuple(obs_space.shape) != tuple(policy.observation_space.shape) or \
            getattr(act_space, "n", None) != policy.action_space.n:
        raise CheckpointError(
            f"{path} was trained on {meta.get('game')} {meta.get('options')} (observation "
            f"{tuple(policy.observation_space.shape)}, {policy.action_space.n} actions); this env has "
            f"observation {tuple(obs_space.shape)} and {getattr(act_space, 'n', act_space)} actions")
    game = getattr(getattr(env, "unwrapped", env), "game", None)
    if game is not None and hasattr(game, "observation_layout"):
        check_compatible(meta, game, path)
    if is_legacy(meta):
        kwargs = {k: v for k, v in policy._get_constructor_parameters().items()
                  if k in POLICY_KEYWORDS}
        kwargs["share_features_extractor"] = policy.share_features_extractor
        policy_class: type = type(policy)
    else:
        policy_class, _, _, kwargs = decode_spec(meta["policy"], path)
    model = MaskablePPO(policy_class, env, policy_kwargs=kwargs, device=device, **ppo_kwargs)
    model.policy.load_state_dict(policy.state_dict())
    return model


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
