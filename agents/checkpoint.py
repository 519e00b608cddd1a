"""The MaskablePPO checkpoint format: writing, reading, checking and converting checkpoints.

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

The networks a checkpoint may name are ``agents/policy_net.py``'s (and ``agents/nets.py``'s); the
agent that plays a checkpoint is ``agents/ppo.py``, which re-exports this module's public names.
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
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from ..envs.core.errors import ArenaError
from .policy_net import ArenaPolicy, LayoutExtractor
from .shipped import resolve_checkpoint
from .torch_files import load_failure

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
        raise CheckpointError(f"corrupt checkpoint {path}: {name}: {load_failure(exc)}") from None


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
    ``agents.ppo.ArenaPolicy``; while one loads, those names point at this package and at the module
    that defines the network classes (only where nothing else holds them), and are removed again
    afterwards."""
    added = []
    for old, new in (("agents", __package__), ("agents.ppo", ArenaPolicy.__module__)):
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


