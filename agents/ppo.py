"""MaskablePPO checkpoints as agents (``ppo:PATH``), and the checkpoint format itself.

A checkpoint is the zip that ``MaskablePPO.save`` writes plus one extra member,
``arena_meta.json``, which names what the policy was trained on:

| key                 | meaning                                                           |
|---------------------|-------------------------------------------------------------------|
| format              | ``tabletop-arena-ppo/1``                                          |
| game                | registered id, e.g. ``peacekeepers_v0``                           |
| options             | ``game.options()`` (the variant)                                  |
| observation_size    | length of the flat observation                                    |
| observation_layout  | ``game.observation_layout`` as ``[[name, shape], ...]``           |
| num_actions         | size of the Discrete action space                                 |
| num_agents/num_seats| players and seats of the variant                                  |
| timesteps           | learner steps trained so far                                      |
| config              | the training config (``train.config.TrainConfig`` as a dict)      |

Loading checks every field against the game it is asked to play and raises ``CheckpointError``
with the differences, so a policy never silently plays a game whose observations it cannot read.
SB3 ignores the extra member; ``MaskablePPO.load`` still reads these files.

The features extractor used by the CNN network (``LayoutExtractor``) lives here rather than in
``train/`` so that loading a checkpoint needs only ``agents`` (``agents`` never imports ``train``).
This module imports torch; nothing else in ``agents`` does.
"""
from __future__ import annotations

import contextlib
import io
import json
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

from .base import BaseAgent
from .nets import ExtractorHead

FORMAT = "tabletop-arena-ppo/1"
META_NAME = "arena_meta.json"


class CheckpointError(ValueError):
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
            lr = lr_schedule(1)
            params: Any = list(self.parameters())
            extractor: Any = self.pi_features_extractor
            gate = getattr(extractor, "hint_gate", None)
            if gate is not None:   # agents/hint.py: the gate may learn faster (``lr_scale`` per group)
                scale = float(extractor.hint_gate_lr_scale)
                own = {id(p) for p in gate.parameters()}
                params = [{"params": [p for p in params if id(p) not in own]},
                          {"params": list(gate.parameters()), "lr": lr * scale, "lr_scale": scale}]
            self.optimizer = self.optimizer_class(  # type: ignore[call-arg]  # as SB3 builds it
                params, lr=lr, **self.optimizer_kwargs)
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


def read_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The ``arena_meta.json`` of a checkpoint; CheckpointError if unreadable."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint not found: {path}")
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            if META_NAME not in names:
                raise CheckpointError(f"{path} has no {META_NAME}: not a Tabletop Arena checkpoint "
                                      f"(written by `arena train`)")
            if "data" not in names or "policy.pth" not in names:
                raise CheckpointError(f"{path} is incomplete (missing SB3 'data' or 'policy.pth')")
            meta = json.loads(zf.read(META_NAME).decode())
    except CheckpointError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError,
            zipfile.LargeZipFile, ValueError) as exc:
        raise CheckpointError(f"corrupt checkpoint {path}: {type(exc).__name__}: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"{path}: unknown checkpoint format {meta.get('format') if isinstance(meta, dict) else meta!r}"
                              f" (expected {FORMAT})")
    return meta


def check_compatible(meta: dict, game, path: str | os.PathLike = "checkpoint") -> None:
    """Raise CheckpointError naming every field where ``meta`` does not fit ``game``."""
    want = game_metadata(game)
    problems = []
    if meta.get("game") != want["game"]:
        problems.append(f"game: checkpoint {meta.get('game')!r}, asked {want['game']!r}")
    for key in ("options", "observation_size", "observation_layout", "num_actions", "num_agents"):
        if meta.get(key) != want[key]:
            problems.append(f"{key}: checkpoint {meta.get(key)!r}, asked {want[key]!r}")
    if problems:
        raise CheckpointError(f"{path} does not fit this game variant:\n  " + "\n  ".join(problems))


#: members a policy-only checkpoint leaves out (it can be played, not resumed)
_TRAINING_ONLY = ("policy.optimizer.pth", "pytorch_variables.pth")


def save_checkpoint(model, path: str | os.PathLike, meta: dict[str, Any], policy_only: bool = False) -> Path:
    """Write ``model`` + ``meta`` atomically: a temporary file in the same folder, then os.replace.

    ``policy_only`` drops the optimizer state (about 2/3 of the file): enough for ``PPOAgent``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = io.BytesIO()
    model.save(saved)
    buf = io.BytesIO()
    with zipfile.ZipFile(saved) as src, zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for item in src.infolist():
            if policy_only and item.filename in _TRAINING_ONLY:
                continue
            zf.writestr(item, src.read(item.filename))
        zf.writestr(META_NAME, json.dumps(dict(meta, format=FORMAT, policy_only=policy_only),
                                          indent=2, default=str))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(buf.getvalue())
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
    return path


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


def load_policy(path: str | os.PathLike, device: str = "cpu"):
    """The MaskableActorCriticPolicy of a checkpoint (no optimizer state, no rollout buffer)."""
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
        if data is None or params is None:
            raise CheckpointError(f"checkpoint {path} holds no policy (no data or parameters)")
        policy = data["policy_class"](data["observation_space"], data["action_space"],
                                      lambda _: 0.0, **data["policy_kwargs"])
        policy.load_state_dict(params["policy"])
    except CheckpointError:
        raise
    except Exception as exc:  # any unpickling / shape / zip problem means the file is unusable
        raise CheckpointError(f"corrupt checkpoint {path}: {type(exc).__name__}: {exc}") from None
    policy.set_training_mode(False)
    return policy.to(device)


# ---------------------------------------------------------------------------------------------
# the agent
# ---------------------------------------------------------------------------------------------
class PPOAgent(BaseAgent):
    """Plays a trained checkpoint: argmax of the masked policy logits (or a sample from them)."""

    name = "ppo"
    needs_state = False
    batchable = True  #: a vectorized self-play env may batch its moves (``logits_batch`` + ``choose``)

    def __init__(self, path: str | os.PathLike, game, seed: int | None = None,
                 deterministic: bool = True, check: bool = True):
        super().__init__(seed)
        self.path = str(path)
        self.meta = read_metadata(path)
        if check:
            check_compatible(self.meta, game, path)
        self.policy = load_policy(path)
        self.deterministic = deterministic
        self._set_hint(game if self.meta.get("heuristic_hint") else None)

    def _set_hint(self, game) -> None:
        """With a ``heuristic_hint`` policy (agents/hint.py) the agent appends the heuristic's best
        moves to each observation, computed on the determinized state the play loop passes
        (``needs_state``); such an agent is not batched by the self-play env."""
        self.hint = None
        if game is not None:
            from .hint import HeuristicHint
            self.hint = HeuristicHint(game, seed=0)   # its ties are all marked: no draw
            self.needs_state, self.batchable = True, False

    @classmethod
    def from_policy(cls, policy, seed: int | None = None, deterministic: bool = True,
                    hint_game=None) -> "PPOAgent":
        """Wrap an in-memory policy (e.g. the learner during training); ``hint_game``: the game,
        for a policy trained with ``heuristic_hint``."""
        agent = cls.__new__(cls)
        BaseAgent.__init__(agent, seed)
        agent.path, agent.meta, agent.policy, agent.deterministic = "<memory>", {}, policy, deterministic
        agent._set_hint(hint_game)
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
        observation = obs["observation"]
        if self.hint is not None:
            if state is None:
                raise ValueError("this policy reads the heuristic's hint: pass the (determinized) engine "
                                 "state (needs_state=True)")
            observation = self.hint.extend(observation, state, self.rng, determinized=True)
        return self.choose(self.logits(observation), mask)

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
