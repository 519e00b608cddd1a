"""Training configuration: one dataclass, read from YAML, checked, overridden from the command line.

    cfg = load_config("configs/train/peacekeepers.yaml", {"total_timesteps": 10_000})

Lookup for a game without ``--config``: ``configs/train/<game base name>_<N>p.yaml`` when the run's
env options ask for N players and that file exists (``peacekeepers_4p.yaml``), else
``configs/train/<game base name>.yaml`` if it exists, else ``configs/train/default.yaml``
(``config_for_game``). Unknown keys and bad values raise
``ConfigError`` naming the key, so a typo never silently trains with a default.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agents.registry import AGENT_KINDS
from ..envs.core.game import ConfigError as _ConfigError
from ..envs.core.options import Option
from ..envs.core.resources import config_path
from ..envs.core.yamlio import load as yaml_load
from .schema import check_config, count, number

CONFIG_DIR = config_path("train")


ConfigError = _ConfigError   # the one config error (envs/core/game.py): a training config's too


@dataclass
class TrainConfig:
    # --- the game -------------------------------------------------------------------------------
    env_options: dict = field(default_factory=dict)  #: options for envs.make(game, **env_options)
    max_steps: int = 1000                 #: move cap per game (the env truncates there)
    # --- run length and seeding -----------------------------------------------------------------
    total_timesteps: int = 200_000        #: learner steps to train (a resumed run continues up to it)
    scale_with_run: bool = True           #: a run shorter than its config file's total_timesteps (--timesteps)
    #:                                       scales the file's bc_games, dagger_games and eval_games by the
    #:                                       same share, keeping at least RUN_SCALED's floor each (keys set
    #:                                       by --set are kept); false: the file's sizes whatever the length
    time_limit_minutes: float = 0.0       #: stop (and save) after this much wall-clock time per call, cloning
    #:                                       included (0 = none); checked between PPO steps
    seed: int = 0                         #: seeds torch, the envs, the pool and evaluation
    # --- parallel rollouts ----------------------------------------------------------------------
    n_envs: int = 8                       #: environments stepped in parallel, in this process
    vec_env: str = "dummy"                #: dummy (SB3's DummyVecEnv) or batched (the snapshot opponents'
    #:                                       moves of all envs in one forward pass: train/vecenv.py)
    torch_threads: int = 1                #: torch intra-op threads in the learner process
    update_threads: int = 0               #: torch threads during the PPO update only; 0: the cores this
    #:                                       process may use, at most 4 (the rollout's small forward passes
    #:                                       run on torch_threads; during the update the envs wait, so the
    #:                                       other cores are free). Set 1 where other jobs keep the cores busy
    device: str = "cpu"                   #: torch device of the learner: cpu, cuda, or auto (cuda if available)
    # --- network --------------------------------------------------------------------------------
    network: str = "auto"                 #: auto (cnn if the layout has a (C,H,W) piece), cnn, mlp,
    #:                                       board (agents/nets.py BoardNet) or slots (SlotNet, Zaka)
    net_arch: list = field(default_factory=lambda: [256, 256])  #: hidden sizes of the policy/value heads
    cnn_channels: list = field(default_factory=lambda: [32, 16])  #: conv layers (3x3) over the board
    cnn_hidden: int = 256                 #: linear layer after the convolutions
    vector_hidden: int = 128              #: linear layer over the vector pieces (cnn network)
    spatial_actions: list = "auto"  # type: ignore[assignment]  # a list, or the string "auto"
    #: ^ board-aligned action ranges [[first action, planes], ...]: action first + p*H*W + cell is
    #:   plane p at that board cell; they get logits from a 1x1 conv over the board features (cnn
    #:   only). "auto": the ranges the game variant declares (Game.spatial_actions; none with mlp)
    board_channels: int = 32              #: board network: channels of the residual tower
    board_dilations: list = field(default_factory=lambda: [1, 2, 4])  #: board network: one residual block per entry
    features_dim: int = 256               #: board / slots networks: width of the features (policy latent)
    pointer_actions: list = field(default_factory=list)
    #: ^ board network: [[first action, count, board plane(, only-where plane)], ...]: action first + k
    #:   selects the piece marked by observation plane (plane + k) (on cells where the 4th plane is set,
    #:   e.g. own units); its logit is read off the cells it marks
    focus_planes: list = field(default_factory=list)
    #: ^ board network: observation planes whose marked cells the features also read the final map at
    #:   (e.g. the piece now acting), one block of board_channels each
    slot_dim: int = 64                    #: slots network: width of the per-slot embedding
    pair_dim: int = 64                    #: slots network: width of the user x target pair layer
    share_features: bool = True           #: policy and value share the features extractor
    # --- PPO ------------------------------------------------------------------------------------
    learning_rate: float = 3e-4           #: Adam step size
    learning_rate_end: float = -1.0       #: step size at the end of the run, linear from learning_rate
    #:                                       over total_timesteps (-1 = constant)
    n_steps: int = 256                    #: steps per env per rollout (buffer = n_steps * n_envs)
    batch_size: int = 512                 #: minibatch size
    n_epochs: int = 4                     #: passes over each rollout
    gamma: float = 0.995                  #: discount (rewards arrive only at the end)
    gae_lambda: float = 0.95              #: GAE lambda
    clip_range: float = 0.2               #: PPO clip
    ent_coef: float = 0.01                #: entropy bonus
    vf_coef: float = 0.5                  #: value loss weight
    max_grad_norm: float = 0.5            #: gradient clipping
    value_warmup_steps: int = 0           #: first learner steps of PPO that fit only the value head (the
    #:                                       features and the policy stay as imitation left them)
    kl_coef: float = 0.0                  #: weight of KL(policy || cloned policy) in the PPO loss (needs bc_games)
    # --- self-play pool -------------------------------------------------------------------------
    opponent_mix: dict = field(default_factory=lambda: {"random": 0.2, "heuristic": 0.4, "snapshot": 0.4})
    #: ^ weight per opponent kind: any agent spec (agents/registry.py AGENT_KINDS) or
    #:   "snapshot" (a frozen past copy of the learner); kinds a game lacks (no heuristic) are dropped
    snapshot_interval: int = 20_000       #: learner steps between frozen snapshots added to the pool
    max_snapshots: int = 5                #: newest snapshots kept in the pool
    score_reward: float = 0.0             #: shaping weight of the score margin (own - best other): paid as
    #:                                       it changes (state.scores()) or at the end (final_info scores)
    snapshot_sampling: bool = True        #: snapshots sample their moves as the learner does (False: argmax)
    # --- warm start ---------------------------------------------------------------------------
    bc_games: int = 0                     #: before PPO, imitate the game's heuristic on this many of its
    #:                                       self-play games (behaviour cloning; 0 = off; fresh runs only)
    bc_epochs: int = 4                    #: most passes over the imitation data per cloning stage
    bc_patience: int = 3                  #: stop a cloning stage after this many passes without a better
    #:                                       held-out agreement (the best weights are kept)
    bc_keep: float = 1.0                  #: share of the imitation games' decisions stored (memory: a share
    #:                                       of more games beats every state of fewer)
    dagger_rounds: int = 0                #: DAgger rounds after cloning (student plays, heuristic labels)
    dagger_games: int = 200               #: games per DAgger round
    dagger_epochs: int = 3                #: most passes over the grown data after each DAgger round
    init_policy: str = ""                 #: start PPO from this checkpoint's policy weights (same network
    #:                                       config) instead of imitation; it is the KL anchor too; a path or
    #:                                       a shipped agent's name (checkpoints/shipped.yaml, e.g. zaka)
    # --- logging, checkpoints, evaluation -------------------------------------------------------
    checkpoint_interval: int = 50_000     #: learner steps between checkpoints (also written at the end)
    eval_interval: int = 50_000           #: learner steps between evaluations (0 = only at the end)
    eval_games: int = 100                 #: games per evaluation opponent (seat-balanced)
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])  #: baselines to evaluate against
    win_rate_window: int = 500            #: episodes in the live win-rate average of the progress bar
    progress: bool = True                 #: show the tqdm progress bar
    # --- Ray RLlib (algorithm: rllib_ppo; the SB3 path ignores it) ------------------------------
    rllib: dict = field(default_factory=dict)
    #: ^ a mapping of the keys in RLLIB_DEFAULTS below (missing keys take those defaults);
    #:   the shared keys above keep their meaning: n_envs = envs per env runner, n_steps = steps
    #:   per env per rollout, batch_size = minibatch, opponent_mix = the pool of pool episodes

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


#: the ``rllib`` section: key -> (default, doc). See train/rllib.py and docs/rllib.md.
RLLIB_SCHEMA: tuple[Option, ...] = (
    Option("address", str, None, "null: start a local Ray on this machine; auto: join the running cluster; "
                                 "ray://host:10001: a remote cluster through Ray Client; host:6379: a head node",
           size=(1, 1000)),
    Option("num_env_runners", int, 0, "remote sampling actors (0: sample in the driver process)", low=0),
    Option("num_learners", int, 0, "remote learner actors (0: one learner in the driver process)", low=0),
    Option("gpus_per_learner", float, 0.0, "GPUs per learner (fractions allowed); 0 = as device says", low=0),
    Option("device", str, "auto", "auto (a GPU learner when the cluster has a GPU), cpu or cuda",
           choices=("auto", "cpu", "cuda")),
    Option("self_play", float, 0.2, "share of episodes where the shared policy plays every seat (the rest: "
                                    "the learner plays one seat against opponent_mix)", low=0, high=1),
    Option("num_cpus", int, 0, "CPUs of a local Ray (0: this machine's count, raised to fit the actors)", low=0),
    Option("object_store_mb", int, 256, "object store of a local Ray, MiB (Ray refuses under 75; small: starts "
                                        "fast on a small box)", low=75),
)
#: the ``rllib`` section's keys -> (default, doc), from its rows
RLLIB_KEYS: dict[str, tuple[Any, str]] = {row.name: (row.default, row.doc) for row in RLLIB_SCHEMA}
RLLIB_DEFAULTS = {k: v for k, (v, _) in RLLIB_KEYS.items()}


def _validate_rllib(section: dict) -> dict:
    """The ``rllib`` section checked by its rows (train/schema.py ``check_config``: unknown keys with a
    did-you-mean, types, ranges, choices) with defaults filled in; an integral float for a count
    is that count (YAML ``2.0``); what ties keys together is checked here. ConfigError, one line."""
    if isinstance(section, dict):
        section = {k: int(v) if isinstance(v, float) and v.is_integer() and k in _RLLIB_COUNTS else v
                   for k, v in section.items()}
    out = check_config(RLLIB_SCHEMA, section, "rllib", "in rllib")
    if out["address"] is not None and not out["address"].strip():
        raise ConfigError(f"rllib: address must be null, auto, ray://host:port or host:port, got {out['address']!r}")
    if out["device"] == "cpu" and out["gpus_per_learner"] > 0:
        raise ConfigError("rllib: gpus_per_learner > 0 needs device cuda or auto, not cpu")
    return out


_RLLIB_COUNTS = frozenset(row.name for row in RLLIB_SCHEMA if row.kinds() == (int,))   # from the rows


FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}


def _ints(name: str, default: list, doc: str, least: int = 1) -> Option:
    return Option(name, list, default, doc, each=Option("size", int, low=1), size=(least, 1_000_000))


#: a string naming something (an agent spec, a path): not empty
_NAME = Option("name", str, size=(1, 1_000_000), doc="a non-empty string")

#: the keys of a PPO config (TrainConfig), checked by envs/core/options.py's Option rows (the doc of
#: each is the comment of its TrainConfig field, cut short). A bound that is not inclusive (> 0)
#: is the row's low of 0 and ``_ABOVE_ZERO``; what ties keys together is ``validate``'s.
SCHEMA: tuple[Option, ...] = (
    Option("env_options", dict, {}, "options for envs.make(game, **env_options)"),
    count("max_steps", 1000, 1, "move cap per game (the env truncates there)"),
    count("total_timesteps", 200_000, 0, "learner steps to train (a resumed run continues up to it)"),
    Option("scale_with_run", bool, True, "a run shorter than its file's total_timesteps scales the file's "
           "bc_games, dagger_games and eval_games by the same share (RUN_SCALED); false: the file's sizes"),
    number("time_limit_minutes", 0.0, "stop (and save) after this much wall-clock time per call (0 = none)"),
    count("seed", 0, 0, "seeds torch, the envs, the pool and evaluation"),
    count("n_envs", 8, 1, "environments stepped in parallel, in this process"),
    Option("vec_env", str, "dummy", "dummy (SB3's DummyVecEnv) or batched (train/vecenv.py)",
           choices=("dummy", "batched")),
    count("torch_threads", 1, 1, "torch intra-op threads in the learner process"),
    count("update_threads", 0, 0, "torch threads during the PPO update only (0: the process's cores, at most 4)"),
    Option("device", str, "cpu", "torch device of the learner: cpu, cuda, or auto (cuda if available)",
           choices=("auto", "cpu", "cuda")),
    Option("network", str, "auto", "auto (cnn if the layout has a (C,H,W) piece), cnn, mlp, board or slots",
           choices=("auto", "cnn", "mlp", "board", "slots")),
    _ints("net_arch", [256, 256], "hidden sizes of the policy/value heads", least=0),
    _ints("cnn_channels", [32, 16], "conv layers (3x3) over the board (at least one)"),
    count("cnn_hidden", 256, 1, "linear layer after the convolutions"),
    count("vector_hidden", 128, 1, "linear layer over the vector pieces (cnn network)"),
    Option("spatial_actions", list, "auto", "\"auto\" (the game variant's Game.spatial_actions) or "
           "board-aligned action ranges [[first action, planes], ...] (cnn only)",
           each=Option("range", list, fields=(Option("first action", int, low=0, doc="first action"),
                                              Option("planes", int, low=1, doc="planes")), doc="a range")),
    count("board_channels", 32, 1, "board network: channels of the residual tower"),
    _ints("board_dilations", [1, 2, 4], "board network: one residual block per entry (at least one)"),
    count("features_dim", 256, 1, "board / slots networks: width of the features (policy latent)"),
    Option("pointer_actions", list, [], "board network: [[first action, count >= 1, board plane(, only-where "
           "plane)], ...]", each=Option("entry", list, size=(3, 4), each=Option("n", int, low=0), doc="an entry")),
    Option("focus_planes", list, [], "board network: observation planes whose marked cells the features also "
           "read the final map at (e.g. the piece now acting)", each=Option("plane", int, low=0, doc="a plane")),
    count("slot_dim", 64, 1, "slots network: width of the per-slot embedding"),
    count("pair_dim", 64, 1, "slots network: width of the user x target pair layer"),
    Option("share_features", bool, True, "policy and value share the features extractor"),
    number("learning_rate", 3e-4, "Adam step size (> 0)"),
    number("learning_rate_end", -1.0, "step size at the end of the run, linear from learning_rate (> 0; "
         "-1 = constant)", low=-1.0),
    count("n_steps", 256, 1, "steps per env per rollout (buffer = n_steps * n_envs)"),
    count("batch_size", 512, 1, "minibatch size (at most n_steps * n_envs)"),
    count("n_epochs", 4, 1, "passes over each rollout"),
    number("gamma", 0.995, "discount (> 0; rewards arrive only at the end)", high=1.0),
    number("gae_lambda", 0.95, "GAE lambda (> 0)", high=1.0),
    number("clip_range", 0.2, "PPO clip (> 0)"),
    number("ent_coef", 0.01, "entropy bonus"),
    number("vf_coef", 0.5, "value loss weight"),
    number("max_grad_norm", 0.5, "gradient clipping"),
    count("value_warmup_steps", 0, 0, "first learner steps of PPO that fit only the value head"),
    number("kl_coef", 0.0, "weight of KL(policy || cloned policy) in the PPO loss (needs bc_games)"),
    Option("opponent_mix", dict, {"random": 0.2, "heuristic": 0.4, "snapshot": 0.4},
           "weight per opponent kind: an agent spec (agents/registry.py) or snapshot (a past copy of the "
           "learner); not all zero", keys=_NAME, each=number("weight", 0.0, "a weight >= 0"), size=(1, 1_000_000)),
    count("snapshot_interval", 20_000, 1, "learner steps between frozen snapshots added to the pool"),
    count("max_snapshots", 5, 1, "newest snapshots kept in the pool"),
    number("score_reward", 0.0, "shaping weight of the score margin (own - best other)"),
    Option("snapshot_sampling", bool, True, "snapshots sample their moves as the learner does (false: argmax)"),
    count("bc_games", 0, 0, "before PPO, imitate the game's heuristic on this many games (0 = off)"),
    count("bc_epochs", 4, 1, "most passes over the imitation data per cloning stage"),
    count("bc_patience", 3, 1, "stop a cloning stage after this many passes without a better held-out agreement"),
    number("bc_keep", 1.0, "share of the imitation games' decisions stored (> 0)", high=1.0),
    count("dagger_rounds", 0, 0, "DAgger rounds after cloning (student plays, heuristic labels)"),
    count("dagger_games", 200, 1, "games per DAgger round"),
    count("dagger_epochs", 3, 1, "most passes over the grown data after each DAgger round"),
    Option("init_policy", str, "", "start PPO from this checkpoint's policy weights (a path or a shipped "
           "agent's name) instead of imitation; the KL anchor too"),
    count("checkpoint_interval", 50_000, 1, "learner steps between checkpoints (also written at the end)"),
    count("eval_interval", 50_000, 0, "learner steps between evaluations (0 = only at the end)"),
    count("eval_games", 100, 0, "games per evaluation opponent (seat-balanced)"),
    Option("eval_opponents", list, ["random", "heuristic"], "agent specs to evaluate against", each=_NAME),
    count("win_rate_window", 500, 1, "episodes in the live win-rate average of the progress bar"),
    Option("progress", bool, True, "show the tqdm progress bar"),
    Option("rllib", dict, {}, "Ray RLlib (algorithm: rllib_ppo): a mapping of RLLIB_KEYS"),
)
ROWS = {row.name: row for row in SCHEMA}
#: keys whose range is "> 0" (the row says 0..): 0 is refused by ``validate``
_ABOVE_ZERO = ("learning_rate", "clip_range", "gamma", "gae_lambda", "bc_keep")


def _coerce(key: str, value: Any) -> Any:
    """One value checked by its row (``SCHEMA``); as before, a string given for a key that is not
    one is read as JSON (``"4"`` is 4), an integral float for an int key is that int, and an int
    for a number key is a float."""
    row = ROWS[key]
    if key == "spatial_actions" and value == "auto":
        return value
    if isinstance(value, str) and str not in row.kinds():
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            pass   # the row refuses the string, naming the key
    if row.kinds() == (int,) and isinstance(value, float) and value.is_integer():
        value = int(value)
    value = row.validate(value, "", key)
    return float(value) if row.kinds() == (float,) else value


def validate(cfg: TrainConfig) -> TrainConfig:
    """Check ranges and cross-field rules; return ``cfg``."""
    for key in FIELDS:
        setattr(cfg, key, _coerce(key, getattr(cfg, key)))
    for key in _ABOVE_ZERO:
        if getattr(cfg, key) == 0:
            raise ConfigError(f"{key} must be a number > 0 ({ROWS[key].range_words()}), got 0")
    if -1.0 < cfg.learning_rate_end <= 0:
        raise ConfigError(f"learning_rate_end must be a number > 0 or -1 (constant), got {cfg.learning_rate_end!r}")
    if cfg.batch_size > cfg.n_steps * cfg.n_envs:
        raise ConfigError(f"batch_size ({cfg.batch_size}) exceeds the rollout size n_steps * n_envs "
                          f"({cfg.n_steps * cfg.n_envs})")
    _validate_networks(cfg)
    _validate_opponents(cfg)
    cfg.rllib = _validate_rllib(cfg.rllib)
    return cfg


def _validate_networks(cfg: TrainConfig) -> None:
    """The network keys of ``validate``: layer lists, board blocks, pointer and spatial actions."""
    for i, entry in enumerate(cfg.pointer_actions):   # the row checks the rest of an entry
        if entry[1] < 1:
            raise ConfigError(f"pointer_actions[{i}] must be [first action, count >= 1, plane(, only-where "
                              f"plane)], got {entry!r}")
    if cfg.pointer_actions and cfg.network != "board":
        raise ConfigError("pointer_actions need the board network (network: board)")
    if cfg.focus_planes and cfg.network != "board":
        raise ConfigError("focus_planes need the board network (network: board)")
    if cfg.spatial_actions not in ("auto", []) and cfg.network == "mlp":
        raise ConfigError("spatial_actions need the cnn network (network: cnn or auto)")


def _validate_opponents(cfg: TrainConfig) -> None:
    """``opponent_mix`` of ``validate``: known agent kinds, weights >= 0, not all zero."""
    for kind in cfg.opponent_mix:   # the row checks the keys' and weights' types
        base = AGENT_KINDS.get(kind.split(":")[0])
        if kind != "snapshot" and (base is None or base.not_opponent is not None):
            # the kinds are not listed: every new kind made this one line longer (arena eval --help has them)
            raise ConfigError(f"opponent_mix: unknown opponent {kind!r}; use snapshot or an agent spec "
                              + (f"({base.name}: {base.not_opponent})" if base is not None
                                 else "(the kinds: arena eval --help)"))
    if sum(cfg.opponent_mix.values()) <= 0:
        raise ConfigError("opponent_mix: weights must not all be zero")


#: any value of a retired key changed nothing (``workers`` and ``pipelined`` only acted with a
#: ``vec_env`` that is gone too)
ANY = object()
#: keys of experiments that did not ship, removed in issue 44 (commit d5dc338 has them), with the
#: value at which each changed nothing: the records of older runs (a checkpoint's metadata, which
#: ``--resume`` reads; checkpoints/*/train_config.yaml) list every key, and such a config still
#: loads where a retired key holds that value. Any other value, or one on the command line, is a
#: ConfigError saying the key was removed.
RETIRED: dict[str, Any] = {
    "workers": ANY, "pipelined": ANY,                            # vec_env: parallel (env worker processes)
    "heuristic_hint": False, "hint_gate_init": 0.0, "hint_gate_lr_scale": 1.0,   # agents/hint.py
    "bc_label_smoothing": 0.0, "bc_holdout": 0.1, "bc_batch_size": 256, "bc_learning_rate": 1e-3,
    "bc_value_coef": 0.5, "kl_coef_end": -1.0,
    "opponent_random_start": 0.0, "opponent_random_end": 0.0, "opponent_random_steps": 0,
}
#: values of kept keys that were removed with them
RETIRED_VALUES = {"vec_env": {"parallel": "batched", "subproc": "dummy"}}


def _retired(key: str, value: Any) -> str:
    return (f"{key}: removed in issue 44 with the experiment it belonged to (it never shipped; commit d5dc338 "
            f"has it); got {value!r}" + (f", which changed nothing only at {RETIRED[key]!r}"
                                         if RETIRED[key] is not ANY else ""))


def drop_retired(data: dict[str, Any], source: str) -> dict[str, Any]:
    """``data`` without the ``RETIRED`` keys that hold the value at which they changed nothing;
    ConfigError for one that holds another (the run depended on what was removed)."""
    out = {}
    for key, value in data.items():
        if key not in RETIRED:
            out[key] = value
        elif RETIRED[key] is not ANY and value != RETIRED[key]:
            raise ConfigError(f"{source}: {_retired(key, value)}")
    for key, gone in RETIRED_VALUES.items():
        if isinstance(out.get(key), str) and out[key] in gone:   # a list is the row's to refuse
            raise ConfigError(f"{source}: {key}: {out[key]} was removed in issue 44 (it never shipped; "
                              f"commit d5dc338 has it): use {gone[out[key]]}")
    return out


def _check_keys(data: dict[str, Any], source: str) -> None:
    retired = [k for k in data if k in RETIRED]
    if retired:
        raise ConfigError(f"{source} {_retired(retired[0], data[retired[0]])}")
    if data.get("algorithm", PPO_ALGORITHMS[0]) not in PPO_ALGORITHMS:   # train/trainers.py picks by it
        where = source.split(" + ")[0]
        raise ConfigError(f"{short_path(where)} is an algorithm {data['algorithm']!r} config, not a PPO one: pass "
                          f"{ppo_config_hint(where)}")
    unknown = sorted(set(data) - set(FIELDS) - {"algorithm"})
    if unknown:
        import difflib
        hints = [f"{k} (did you mean {m[0]!r}?)" if (m := difflib.get_close_matches(k, FIELDS, 1)) else k
                 for k in unknown]
        raise ConfigError(f"{source}: unknown key(s) {', '.join(hints)}"
                          + ("" if "did you mean" in hints[0] else "; the keys are listed in train/config.py"))


def check_overrides(overrides: dict[str, Any], source: str = "--set") -> dict[str, Any]:
    """Unknown keys and values of the wrong type in command-line ``overrides``, blamed on
    ``source`` (not on the config file they are applied to); returns the checked values."""
    if "algorithm" in overrides:   # arena train takes it off first (train/trainers.py)
        raise ConfigError(f"{source} algorithm={overrides['algorithm']}: the trainer is chosen by arena train; "
                          "this command trains ppo")
    _check_keys(overrides, source)
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        try:
            out[key] = value if value is None else _coerce(key, value)
            if key == "rllib":   # the section's keys and values given here (the file's section fills the rest)
                _validate_rllib(out[key])
        except ConfigError as exc:
            raise ConfigError(f"{source} {exc}") from None
    return out


def from_dict(data: dict[str, Any], source: str = "config") -> TrainConfig:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: must be a mapping of option: value, got {type(data).__name__}")
    data = drop_retired(data, source)
    _check_keys(data, source)
    data = {k: v for k, v in data.items() if k != "algorithm"}   # which PPO trainer: not a TrainConfig key
    cfg = TrainConfig()
    try:
        for key, value in data.items():
            setattr(cfg, key, _coerce(key, value))
        return validate(cfg)
    except ConfigError as exc:   # name the file the value came from
        raise ConfigError(f"{source}: {exc}") from None


def read_yaml(path: str | os.PathLike) -> dict[str, Any]:
    import yaml

    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ConfigError(f"training config not found: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"training config {path} is a folder, not a YAML file") from None
    except OSError as exc:   # unreadable: permissions, a device, a path through a file
        raise ConfigError(f"cannot read training config {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"training config {path} is not a text (UTF-8) file") from None
    try:
        data = yaml_load(text)  # a key given twice is an error, not the last one winning
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ConfigError(f"{path} is not valid YAML: {getattr(exc, 'problem', None) or exc}{where}") from None
    return {} if data is None else data


#: the key naming a config file this one starts from (its keys, then this file's on top)
EXTENDS = "extends"


def read_config_file(path: str | os.PathLike) -> dict[str, Any]:
    """The keys of a training config file: ``extends: other.yaml`` (a path relative to this
    file's folder) takes the other file's keys first, this file's win; chains allowed, cycles not."""
    chain: list[Path] = []
    layers: list[dict[str, Any]] = []
    path = Path(path)
    while True:
        if path.resolve() in chain:
            raise ConfigError(f"{chain[-1]}: 'extends' goes round in a circle: "
                              + " -> ".join(p.name for p in chain + [path.resolve()]))
        if chain and path.is_dir():
            raise ConfigError(f"{chain[-1]}: '{EXTENDS}' names a folder, not a config file: {path}")
        chain.append(path.resolve())
        data = read_yaml(path)
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: must be a mapping of option: value")
        data = dict(data)
        parent = data.pop(EXTENDS, None)
        layers.append(data)
        if parent is None:
            break
        if not isinstance(parent, str) or not parent:
            raise ConfigError(f"{path}: '{EXTENDS}' must name a config file, got {parent!r}")
        path = path.parent / parent
    merged: dict[str, Any] = {}
    for data in reversed(layers):
        merged.update(data)
    return merged


def config_for_game(game: str, env_options: dict[str, Any] | None = None) -> Path:
    """``configs/train/<base>_<N>p.yaml`` if ``env_options`` asks for N players and it is present,
    else ``configs/train/<base>.yaml`` if present, else ``configs/train/default.yaml``."""
    base = game.split("_v")[0]
    players = env_options.get("num_players") if isinstance(env_options, dict) else None
    if isinstance(players, int) and not isinstance(players, bool):
        variant = CONFIG_DIR / f"{base}_{players}p.yaml"
        if variant.is_file():
            return variant
    own = CONFIG_DIR / f"{base}.yaml"
    return own if own.is_file() else CONFIG_DIR / "default.yaml"


#: the ``algorithm`` values whose config is a TrainConfig (train/trainers.py): SB3 PPO, RLlib PPO
PPO_ALGORITHMS = ("ppo", "rllib_ppo")


def ppo_config_hint(source: str) -> str:
    """The words naming a PPO config to pass instead of the config file ``source`` (written for
    another algorithm): its ``<stem>_ppo.yaml`` where the game keeps its PPO recipe there (named,
    never read in its place: Gorgasali's default config is a value lookahead)."""
    path = Path(source)
    recipe = path.with_name(f"{path.stem}_ppo.yaml")
    if not recipe.is_file():
        return "--config with a PPO config"
    return f"--config {short_path(recipe)}"


def short_path(path: str | os.PathLike) -> str:
    """``path`` as a person types it: relative to the project when under it (configs/train/...)."""
    path, root = Path(path), CONFIG_DIR.parent.parent
    return str(path.relative_to(root) if path.is_absolute() and path.is_relative_to(root) else path)


def parse_overrides(pairs: list[str] | None) -> dict[str, Any]:
    """``["n_envs=4", "opponent_mix={\\"random\\": 1}"]`` -> dict (values parsed as JSON/YAML);
    ``rllib.KEY=VALUE`` sets one key of the ``rllib`` section and ``rllib={KEY: VALUE, ...}`` several
    (both merge, in any order, into the section; ``check_overrides`` checks its keys and values)."""
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise ConfigError(f"--set expects key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        key = key.strip().replace("-", "_")
        try:
            parsed = yaml_load(value)
        except yaml.YAMLError as exc:
            if hasattr(exc, "duplicate_key"):  # {a: 1, a: 2}: not a string to pass on
                raise ConfigError(f"{key}: the key {exc.duplicate_key!r} is given twice in {value!r}") from None
            parsed = value
        section, dot, name = key.partition(".")
        if section == "rllib" and (dot or isinstance(parsed, dict)):   # rllib.num_env_runners=4
            have = out.get(section, {})
            if dot and not name:
                raise ConfigError(f"--set {pair!r}: expected {section}.KEY=VALUE")
            if not isinstance(have, dict):
                raise ConfigError(f"--set {key}: {section} is already set to {have!r}, not a section")
            out[section] = {**have, name: parsed} if dot else {**have, **parsed}
        else:
            out[key] = parsed
    return out


def load_config(path: str | os.PathLike | None = None, overrides: dict[str, Any] | None = None,
                game: str | None = None, notes: list[str] | None = None) -> TrainConfig:
    """Read ``path`` (or the game's default), apply ``overrides`` (None values ignored), scale the
    warm start and evaluations to a shortened run (``scale_to_run``), validate. ``notes`` (a
    list) receives the line saying what the scaling changed, if anything."""
    if path is None:
        if game is None:
            path = CONFIG_DIR / "default.yaml"
        else:
            path = config_for_game(game, (overrides or {}).get("env_options"))
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    data = read_config_file(path)
    merged = with_overrides(data, overrides)
    merged, note = scale_to_run(merged, data.get("total_timesteps", TrainConfig.total_timesteps), overrides,
                                Path(path).name)
    if note and notes is not None:
        notes.append(note)
    return from_dict(merged, source=str(path))


#: the sizes a run shorter than its config scales with its length, and the least each keeps: cloning
#: games, games per DAgger round, evaluation games per opponent (a 4,000-step try of a config
#: written for 1.7M steps clones 20 heuristic games, not 2000)
RUN_SCALED = {"bc_games": 20, "dagger_games": 10, "eval_games": 20}


def scale_to_run(data: dict[str, Any], written_for: Any, given: dict[str, Any] | set[str],
                 name: str = "the config") -> tuple[dict[str, Any], str | None]:
    """``data`` (a merged config) with the ``RUN_SCALED`` sizes cut by ``total_timesteps /
    written_for`` (the config file's own total) when that is below 1 and ``scale_with_run`` holds
    (rounded up, at least the floor, never above the file's value); keys in ``given`` (set on the
    command line) stay. Returns (the data, a line saying what changed, or None)."""
    total = data.get("total_timesteps", TrainConfig.total_timesteps)
    if (data.get("scale_with_run", True) is not True or not _is_count(total) or not _is_count(written_for)
            or not 0 < total < written_for):
        return data, None
    share = total / written_for
    out, changed = dict(data), []
    for key, floor in RUN_SCALED.items():
        value = out.get(key, getattr(TrainConfig, key))
        if key in given or not _is_count(value) or value <= floor:
            continue
        if key == "dagger_games" and not out.get("dagger_rounds", TrainConfig.dagger_rounds):
            continue   # no DAgger round plays them
        out[key] = max(floor, math.ceil(value * share))
        if out[key] != value:
            changed.append(f"{key} {value} -> {out[key]}")
    if not changed:
        return data, None
    return out, (f"a {total:,}-step run of {name} (written for {written_for:,} steps): the warm start and "
                 f"evaluations scale with it: {', '.join(changed)} (--set scale_with_run=false keeps the "
                 f"config's sizes; --set KEY=N sets one)")


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: config sections an override changes key by key (other keys, e.g. opponent_mix, are replaced whole)
MERGED_SECTIONS = ("env_options", "rllib")


def with_overrides(config: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """``config``'s keys with ``overrides`` on top; the ``MERGED_SECTIONS`` are merged key by key
    (``--opt zones=halves`` on a 4-player config keeps its 4 players; ``--set
    rllib.num_env_runners=4`` keeps the section's other keys)."""
    out = {**config, **overrides}
    for key in MERGED_SECTIONS:
        if isinstance(overrides.get(key), dict) and isinstance(config.get(key), dict):
            out[key] = {**config[key], **overrides[key]}
    return out


#: config keys that fix the network's shape (cannot change when a run is resumed)
#: every key that shapes the network (train/ppo.py policy_kwargs and resolve_network read them): a
#: resumed run cannot change one, else the saved weights and the run's metadata would disagree (issue
#: 44: this listed 7 of them, so --resume --set board_channels=64 passed); search_distill's network
#: section takes the same keys
NETWORK_SHAPE_KEYS = ("network", "net_arch", "cnn_channels", "cnn_hidden", "vector_hidden", "spatial_actions",
                      "board_channels", "board_dilations", "features_dim", "pointer_actions", "focus_planes", "slot_dim",
                      "pair_dim", "share_features")
#: what a resumed run keeps: the network's shape and the game it plays
NETWORK_KEYS = NETWORK_SHAPE_KEYS + ("env_options",)


def check_resume(saved: dict, overrides: dict, config_file, where: str, stacklevel: int = 3) -> None:
    """What a resumed run may change (both backends): ``--config`` is ignored with a warning (the
    run's own config is used), and the network-shaping keys must keep their ``saved`` values."""
    if config_file is not None:
        warnings.warn("--config is ignored when resuming: the run's own config is used "
                      "(override single keys instead)", stacklevel=stacklevel)
    effective = with_overrides(saved, overrides)
    for key in NETWORK_KEYS:
        if key in overrides and effective[key] != saved.get(key):
            raise ConfigError(f"{key} cannot change when resuming ({where}: {saved.get(key)!r})")
