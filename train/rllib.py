"""Self-play PPO on Ray RLlib (``arena train <game> --set algorithm=rllib_ppo``): the same games, config,
opponent pool and checkpoint format as the SB3 path, with rollouts and learners that scale out.

    from tabletop_arena.train.rllib import train_rllib
    path = train_rllib("peacekeepers", timesteps=200_000, out="runs/pk_rllib")   # -> policy.zip
    train_rllib("peacekeepers", out="runs/pk_rllib", resume=True, trust=True, timesteps=400_000)
    train_rllib("zaka", device="cuda", rllib={"address": "auto", "num_env_runners": 16, "num_learners": 2})

    arena train peacekeepers --set algorithm=rllib_ppo --set rllib.num_env_runners=2 --out runs/pk_rllib
    arena eval peacekeepers --agents ppo:runs/pk_rllib/policy.zip heuristic

Reads top to bottom:
1. the config: ``train/config.py``'s loader and validation; the backend's own keys live in its
   ``rllib`` section (address, num_env_runners, num_learners, gpus_per_learner, device, self_play,
   num_cpus, object_store_mb); the shared keys keep their meaning (``n_envs`` envs per env runner,
   ``n_steps`` steps per env per rollout, ``batch_size`` the minibatch, PPO coefficients as SB3's);
2. Ray: with no address a local Ray on this machine (small object store, no dashboard), else
   ``ray.init(address=...)`` joins a cluster (``auto``, ``host:6379`` or ``ray://host:10001``);
3. the env: ``train/rllib_env.py``, a turn-based ``MultiAgentEnv`` over the AEC game with the
   SB3 path's opponent pool (random, heuristic, mcts:N, ppo:PATH, frozen snapshots) inside it,
   plus self-play episodes in which every seat is the learner (``rllib.self_play``);
4. the network: ``train/rllib_module.py``'s masking ``ArenaRLModule``, which wraps the SB3
   path's ``ArenaPolicy`` (same MLP / CNN / spatial head, same config keys); one module,
   ``shared``, that every learner seat maps to;
5. PPO on RLlib's current API stack (EnvRunner / Learner / RLModule) with SB3's loss: no KL
   term, no value clipping, global-norm gradient clipping; an optional behaviour-cloning warm
   start (``bc_games``, ``train.imitation.warm_start``) before the first iteration;
6. the loop: ``algo.train()`` until ``total_timesteps``; snapshots (sent as weights to every env
   runner), checkpoints, evaluations (``train/evaluate.py``) and ``time_limit_minutes`` as in SB3.

Run folder (``out``):

| path                   | content                                                              |
|------------------------|----------------------------------------------------------------------|
| config.yaml            | the effective config                                                 |
| algorithm/             | RLlib checkpoint (``Algorithm.from_checkpoint``; ``--resume``)       |
| rllib_state.json       | learner steps and iterations done (for ``--resume``)                 |
| policy.zip             | the policy in the ``ppo:PATH`` format (``arena eval``, SB3 pools)    |
| snapshots/step_*.zip   | frozen policies used as opponents (``ppo:PATH`` format)              |
| progress.csv           | one row per iteration: steps, throughput, timers, win rates, evals   |
| eval/step_*/           | evaluation reports                                                   |

Steps: an env step is one learner move (opponents move inside ``step()``; in self-play every
move is a learner's), so ``total_timesteps`` counts the same thing as in SB3. A training batch is
``n_steps * n_envs * max(1, num_env_runners)`` env steps, split over ``max(1, num_learners)``
learners; more env runners mean larger batches per iteration, as more SubprocVecEnv workers would.
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import time
import warnings
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from .. import envs
from ..agents.registry import has_heuristic
from .config import (
    ConfigError,
    TrainConfig,
    check_resume,
    from_dict,
    load_config,
    read_yaml,
    validate,
    with_overrides,
)
from .ppo import Run
from .progress import progress_bar


class RLlibMissingError(ConfigError):
    """Ray RLlib is not installed (the ``[rllib]`` extra)."""


def require_ray():
    """Import ray and RLlib or raise ``RLlibMissingError`` saying how to install them."""
    try:
        import ray  # noqa: F401
        from ray.rllib.algorithms.ppo import PPOConfig  # noqa: F401
    except ImportError as exc:
        raise RLlibMissingError(
            f"the rllib backend needs Ray RLlib ({exc}); install it with "
            f"pip install \"tabletop-arena[train,rllib]\" (ray[rllib]==2.60.0 pins gymnasium 1.2.2: "
            f"use a separate virtual environment if other tools need a newer gymnasium)") from None
    return ray


# ---------------------------------------------------------------------------------------------
# Ray and devices
# ---------------------------------------------------------------------------------------------
def start_ray(section: dict) -> bool:
    """Join ``section["address"]`` or start a local Ray; True when this call started it.

    An already initialised Ray (a test's ``Cluster``, a notebook) is used as it is.
    """
    ray = require_ray()
    if ray.is_initialized():
        return False
    address = section["address"]
    if address:
        ray.init(address=address, log_to_driver=True)
        return True
    needed = section["num_env_runners"] + max(1, section["num_learners"])
    num_cpus = section["num_cpus"] or max(os.cpu_count() or 1, needed)
    ray.init(num_cpus=num_cpus, object_store_memory=section["object_store_mb"] * 2**20,
             include_dashboard=False, log_to_driver=True)
    return True


def resolve_gpus(device: str, gpus_per_learner: float, num_learners: int,
                 local_gpu: bool, cluster_gpus: float) -> float:
    """``num_gpus_per_learner`` for RLlib from ``--device`` / ``rllib.gpus_per_learner``.

    A local learner (``num_learners`` 0) can use a GPU only if the driver sees one
    (``local_gpu``); remote learners need ``num_learners * gpus`` GPUs in the cluster. ``auto``
    takes a GPU when there is one, else the CPU; ``cuda`` without a GPU is an error (RLlib would
    otherwise wait for resources that never come).
    """
    want = gpus_per_learner if gpus_per_learner > 0 else 1.0
    if num_learners == 0:
        available, where = (1.0 if local_gpu else 0.0), "this machine (the driver runs the learner)"
        need = want
    else:
        available, where = cluster_gpus, "the Ray cluster"
        need = want * num_learners
    if device == "cpu":
        if gpus_per_learner > 0:
            raise ConfigError("gpus_per_learner > 0 needs device cuda or auto, not cpu")
        return 0.0
    if available >= need or (num_learners == 0 and local_gpu):
        return want
    if device == "cuda" or gpus_per_learner > 0:
        raise ConfigError(f"device {device} with {want:g} GPU(s) per learner x {max(1, num_learners)} "
                          f"learner(s): {where} has {available:g} GPU(s)")
    return 0.0


def _cluster_gpus() -> float:
    import ray
    return float(ray.cluster_resources().get("GPU", 0.0))


def _local_gpu() -> bool:
    import torch
    return bool(torch.cuda.is_available())


# ---------------------------------------------------------------------------------------------
# the algorithm
# ---------------------------------------------------------------------------------------------
def _to_shared(agent_id, episode, **kwargs):
    from .rllib_module import MODULE_ID
    return MODULE_ID


def make_callbacks_class():
    """The ``RLlibCallback`` that turns each finished episode's ``episode_result`` into metrics."""
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class ArenaCallbacks(RLlibCallback):
        def on_episode_end(self, *, episode, env_runner=None, metrics_logger=None, env=None,
                           env_index=None, **kwargs):
            if metrics_logger is None or env is None or env_index is None:
                return
            sub = env.envs[env_index].unwrapped
            res = getattr(sub, "episode_result", None)
            if not res:
                return
            kind = res["kind"]
            metrics_logger.log_value(("arena", "games", kind), 1, reduce="sum")
            if res["outcome"] is not None:
                for outcome in ("win", "draw", "loss"):
                    metrics_logger.log_value(("arena", outcome, kind), int(res["outcome"] == outcome),
                                             reduce="sum")
            metrics_logger.log_value(("arena", "illegal_moves"), int(res["illegal"]), reduce="sum")
            metrics_logger.log_value(("arena", "truncated"), int(res["truncated"]), reduce="sum")

    return ArenaCallbacks


def learning_rate_schedule(cfg: TrainConfig):
    """RLlib's ``lr``: the step size, or with ``learning_rate_end`` the same straight line as the SB3
    backend's (RLlib interpolates between [timestep, value] points; the run's steps sampled)."""
    if cfg.learning_rate_end < 0:
        return cfg.learning_rate
    return [[0, cfg.learning_rate], [cfg.total_timesteps, cfg.learning_rate_end]]


def algorithm_config(game_id: str, cfg: TrainConfig, policy_kwargs: dict, num_gpus_per_learner: float):
    """The ``PPOConfig`` of a run (RLlib's current API stack)."""
    require_ray()
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from .rllib_env import ArenaMultiAgentEnv
    from .rllib_module import MODULE_ID, ArenaRLModule

    r = cfg.rllib
    runners, learners = r["num_env_runners"], r["num_learners"]
    batch = cfg.n_steps * cfg.n_envs * max(1, runners)
    per_learner = batch // max(1, learners)
    if per_learner < cfg.batch_size:
        raise ConfigError(f"batch_size ({cfg.batch_size}) exceeds the batch of each of the {learners} "
                          f"learners (n_steps * n_envs * env runners / learners = {per_learner})")
    env_config = {"game": game_id, "env_options": cfg.env_options, "max_steps": cfg.max_steps,
                  "opponent_mix": cfg.opponent_mix, "self_play": r["self_play"],
                  "score_reward": cfg.score_reward, "max_snapshots": cfg.max_snapshots,
                  "policy_kwargs": policy_kwargs}
    config = (
        PPOConfig()
        .framework("torch")
        # RLlib's env check steps one unmasked random action: the env plays illegal actions by
        # PettingZoo classic's rule (the game ends, the mover gets -1), so the check passes.
        .environment(env=ArenaMultiAgentEnv, env_config=env_config)
        .env_runners(num_env_runners=runners, num_envs_per_env_runner=cfg.n_envs,
                     rollout_fragment_length=cfg.n_steps, num_cpus_per_env_runner=1)
        .learners(num_learners=learners, num_gpus_per_learner=num_gpus_per_learner)
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=_to_shared, policies_to_train=[MODULE_ID])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            MODULE_ID: RLModuleSpec(module_class=ArenaRLModule,
                                    model_config={"policy_kwargs": policy_kwargs})}))
        # SB3's PPO loss: no KL penalty, no value clipping, gradients clipped by their global norm
        .training(train_batch_size_per_learner=per_learner, minibatch_size=cfg.batch_size,
                  num_epochs=cfg.n_epochs, lr=learning_rate_schedule(cfg), gamma=cfg.gamma, lambda_=cfg.gae_lambda,
                  clip_param=cfg.clip_range, entropy_coeff=cfg.ent_coef, vf_loss_coeff=cfg.vf_coef,
                  use_kl_loss=False, kl_coeff=0.0, vf_clip_param=float("inf"),
                  grad_clip=cfg.max_grad_norm, grad_clip_by="global_norm")
        .callbacks(make_callbacks_class())
        .debugging(seed=cfg.seed, log_level="WARN")
    )
    return config


# ---------------------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------------------
class RLlibFiles(Run):
    """``Run``'s folder, snapshots and evaluations for an RLlib run, whose checkpoints' metadata
    says ``backend: rllib`` and counts the env steps RLlib sampled (``timesteps``), not the driver
    copy's steps."""

    def __init__(self, game_id: str, cfg: TrainConfig, out: Path):
        super().__init__(game_id, cfg, out)
        self.timesteps = 0

    def meta(self) -> dict[str, Any]:
        from ..agents.checkpoint import game_metadata
        from .ppo import resolve_network
        m = game_metadata(self.game, self.game_id)
        m.update(timesteps=int(self.timesteps), config=self.cfg.to_dict(), backend="rllib",
                 network=resolve_network(self.game, self.cfg), saved_at=time.strftime("%Y-%m-%d %H:%M:%S"))
        return m


class RLlibRun:
    """The run folder and the driver-side copy of the policy (a MaskablePPO model used only to
    write ``ppo:PATH`` checkpoints and to evaluate); the algorithm lives in Ray."""

    def __init__(self, game_id: str, cfg: TrainConfig, out: Path, policy_kwargs: dict):
        import torch
        from sb3_contrib import MaskablePPO

        from ..agents.policy_net import ArenaPolicy
        from .selfplay import SelfPlayEnv

        self.base = RLlibFiles(game_id, cfg, out)  # game, snapshots, evaluation, checkpoint metadata
        self.game_id, self.cfg, self.out, self.game = game_id, cfg, out, self.base.game
        env = SelfPlayEnv(game_id, cfg.env_options, {"random": 1.0}, seed=cfg.seed, max_steps=cfg.max_steps)
        torch.manual_seed(cfg.seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the rollout size of this 1-env copy is never used
            self.model = MaskablePPO(ArenaPolicy, env, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
                                     batch_size=min(cfg.batch_size, cfg.n_steps), n_epochs=cfg.n_epochs,
                                     gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range,
                                     ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm,
                                     policy_kwargs=policy_kwargs, device="cpu", verbose=0)
        self.base.model = self.model
        self.iterations = 0

    @property
    def timesteps(self) -> int:
        """Env steps sampled so far (the checkpoints' ``timesteps``)."""
        return self.base.timesteps

    @timesteps.setter
    def timesteps(self, value: int) -> None:
        self.base.timesteps = value

    # -- weights between the learners and the driver copy ----------------------------------------
    def pull(self, algo) -> None:
        """Copy the learners' weights into the driver's policy."""
        from .rllib_module import MODULE_ID, policy_state
        state = algo.learner_group.get_weights(module_ids=[MODULE_ID])[MODULE_ID]
        self.model.policy.load_state_dict(policy_state(state))
        self.model.num_timesteps = self.timesteps

    def push(self, algo) -> None:
        """Copy the driver's policy into the learners and the env runners (after a warm start)."""
        from .rllib_module import MODULE_ID
        state = {f"policy.{k}": v.detach().cpu().numpy() for k, v in self.model.policy.state_dict().items()}
        algo.learner_group.set_weights({MODULE_ID: state})
        algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group,
                                           policies=[MODULE_ID], inference_only=True, timeout_seconds=60.0)

    # -- files ---------------------------------------------------------------------------------
    def save_policy(self, name: str = "policy.zip") -> Path:
        return self.base.save(name, policy_only=True)

    def snapshot(self, algo) -> Path:
        """Write snapshots/step_N.zip and send its weights to every env runner's pool."""
        self.model.num_timesteps = self.timesteps
        path = self.base.snapshot()
        send_snapshot(algo, path.stem, self.model.policy)
        return path

    def save_algorithm(self, algo) -> Path:
        """The RLlib checkpoint (written beside, then swapped in) and rllib_state.json."""
        final, tmp = self.out / "algorithm", self.out / ".algorithm.tmp"
        if tmp.exists():
            shutil.rmtree(tmp)
        algo.save_to_path(str(tmp.resolve()))
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
        state = {"timesteps": self.timesteps, "iterations": self.iterations,
                 "saved_at": time.strftime("%Y-%m-%d %H:%M:%S")}
        (self.out / "rllib_state.json").write_text(json.dumps(state, indent=2))
        return final


def send_snapshot(algo, name: str, policy) -> None:
    """Add a frozen policy (by value: no shared file system needed) to every env's pool."""
    state = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}

    def add(env_runner):
        subs = [sub.unwrapped for sub in getattr(getattr(env_runner, "env", None), "envs", ()) or ()]
        if subs:  # one copy per env runner, shared by its envs (they play it one after another)
            policy = subs[0].add_snapshot(name, state)
            for sub in subs[1:]:
                sub.add_snapshot_policy(name, policy)
        return len(subs)

    algo.env_runner_group.foreach_env_runner(add, local_env_runner=True)


class Progress:
    """Per-iteration bookkeeping: win-rate windows per kind, progress.csv, the tqdm bar."""

    def __init__(self, run: RLlibRun, start: int):
        cfg = run.cfg
        self.run = run
        self.kinds = [k for k, w in cfg.opponent_mix.items() if w > 0]
        self.window: deque = deque(maxlen=cfg.win_rate_window)
        self.per_kind: dict[str, deque] = {k: deque(maxlen=max(50, cfg.win_rate_window // max(1, len(self.kinds))))
                         for k in self.kinds}
        self.illegal = 0
        self.episodes = 0
        self.self_play_games = 0
        self.t0 = time.time()
        self.start = start
        self.columns = (["timesteps", "iteration", "episodes", "self_play_episodes", "elapsed_s",
                         "env_steps_per_s", "sample_s", "learn_s", "sync_s", "win_rate"]
                        + [f"win_rate_{k}" for k in self.kinds] + ["illegal_moves"]
                        + [f"eval_{o}_{x}" for o in run.base.eval_opponents
                           for x in ("win_rate", "ci_low", "ci_high")])
        path = run.out / "progress.csv"
        new = not path.exists()
        self.csv = open(path, "a", newline="")
        self.writer = csv.DictWriter(self.csv, fieldnames=self.columns, extrasaction="ignore")
        if new:
            self.writer.writeheader()
        self.bar = None
        if cfg.progress:
            self.bar = progress_bar(cfg.total_timesteps, f"train {run.game_id} (rllib)", "step",
                                    initial=start, smoothing=0.1)

    @staticmethod
    def rate(d) -> float:
        return sum(1.0 for x in d if x == "win") / len(d) if d else float("nan")

    def add(self, result: dict, steps: int) -> dict[str, Any]:
        arena = (result.get("env_runners") or {}).get("arena") or {}
        for kind, n in (arena.get("games") or {}).items():
            n = _count(n)
            self.episodes += n
            if kind == "self":
                self.self_play_games += n
                continue
            outcomes = []
            for outcome in ("win", "draw", "loss"):
                outcomes += [outcome] * _count((arena.get(outcome) or {}).get(kind))
            self.window.extend(outcomes)
            if kind in self.per_kind:
                self.per_kind[kind].extend(outcomes)
        self.illegal += _count(arena.get("illegal_moves"))
        timers = result.get("timers") or {}
        elapsed = time.time() - self.t0
        row = {"timesteps": self.run.timesteps, "iteration": self.run.iterations, "episodes": self.episodes,
               "self_play_episodes": self.self_play_games, "elapsed_s": round(elapsed, 1),
               "env_steps_per_s": round((self.run.timesteps - self.start) / max(elapsed, 1e-9), 1),
               "sample_s": round(float(timers.get("env_runner_sampling_timer", float("nan"))), 3),
               "learn_s": round(float(timers.get("learner_update_timer", float("nan"))), 3),
               "sync_s": round(float(timers.get("synch_weights", float("nan"))), 3),
               "win_rate": self.rate(self.window), "illegal_moves": self.illegal}
        for k, d in self.per_kind.items():
            row[f"win_rate_{k}"] = self.rate(d)
        for o, (r, lo, hi) in self.run.base.last_eval.items():
            row.update({f"eval_{o}_win_rate": r, f"eval_{o}_ci_low": lo, f"eval_{o}_ci_high": hi})
        self.writer.writerow(row)
        self.csv.flush()
        if self.bar is not None:
            self.bar.update(steps)
            parts = [f"win {row['win_rate']:.2f}"] + [f"{k[:5]} {self.rate(d):.2f}" for k, d in self.per_kind.items() if d]
            if self.illegal:
                parts.append(f"ILLEGAL {self.illegal}")
            self.bar.set_postfix_str(" ".join(parts), refresh=False)
        return row

    def write(self, msg: str) -> None:
        if self.bar is not None:
            self.bar.write(msg)
        else:
            print(msg, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        self.csv.close()


def per_iteration_timers(algo) -> None:
    """Report PPO's sampling / learning / weight-sync timers per iteration (window 1) instead of
    RLlib's default EMA with coefficient 0.01, which barely moves from the first iteration's value."""
    from ray.rllib.utils.metrics import (
        ENV_RUNNER_SAMPLING_TIMER,
        LEARNER_UPDATE_TIMER,
        SYNCH_WORKER_WEIGHTS_TIMER,
        TIMERS,
    )
    for name in (ENV_RUNNER_SAMPLING_TIMER, LEARNER_UPDATE_TIMER, SYNCH_WORKER_WEIGHTS_TIMER):
        algo.metrics.log_value((TIMERS, name), 0.0, reduce="mean", window=1)


def _count(x) -> int:
    """A summed episode count from RLlib's metrics (None or NaN when nothing was logged)."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return 0
    return 0 if not np.isfinite(x) else int(round(x))


def _due(interval: int, last: int, now: int) -> bool:
    return interval > 0 and now // interval > last // interval


def _with_device(cfg_rllib: dict | None, device: str | None) -> dict:
    """The ``rllib`` section with ``device`` (``--device``) where given."""
    return {**(cfg_rllib or {}), **({"device": device} if device is not None else {})}


def _config(game_id: str, config_path, overrides: dict, device: str | None, resume: bool,
            out, trust: bool = False) -> tuple[Any, Path]:
    """(cfg, out): the effective config of a new run, or of the run in ``out`` when resuming."""
    if resume:
        if out is None:
            raise ConfigError("--resume needs --out (the run folder to continue)")
        out = Path(out)
        if not (out / "algorithm").is_dir() or not (out / "rllib_state.json").is_file():
            raise ConfigError(f"{out} holds no rllib run to resume (algorithm/ and rllib_state.json)")
        if not trust:   # checked before Ray starts or anything in the folder is read
            raise ConfigError(f"{out / 'algorithm'} is RLlib's own checkpoint, which Ray pickles: loading it runs "
                              "any code it carries. Resume only a run you made: pass --trust-checkpoint "
                              "(trust=True) to continue it")
        saved = read_yaml(out / "config.yaml")
        check_resume(saved, overrides, config_path, "run", stacklevel=4)
        data = with_overrides(saved, overrides)
        data["rllib"] = _with_device(data.get("rllib"), device)
        return from_dict(data, source=f"{out / 'config.yaml'} + overrides"), out
    notes: list[str] = []   # the same scaling of a shortened run as the SB3 path (train/config.py scale_to_run)
    cfg = load_config(config_path, overrides, game=game_id, notes=notes)
    for note in notes:
        print(note, flush=True)
    cfg.rllib = _with_device(cfg.rllib, device)
    validate(cfg)
    out = Path(out) if out is not None else Path("runs") / game_id / f"rllib_seed{cfg.seed}"
    if (out / "algorithm").exists() or (out / "checkpoint.zip").exists():
        raise ConfigError(f"{out} already holds a run; pass --resume to continue it or choose another --out")
    return cfg, out


def train_rllib(game: str, config_path: str | os.PathLike | None = None, timesteps: int | None = None,
                seed: int | None = None, out: str | os.PathLike | None = None, resume: bool = False,
                device: str | None = None, trust: bool = False, **overrides) -> Path:
    """Train (or with ``resume`` continue) self-play PPO on RLlib; return ``policy.zip``'s path.

    ``device`` (``--device``) overrides the config's ``rllib.device``; other keyword arguments are
    config keys (``None`` ignored; ``rllib={"num_env_runners": 2, ...}`` merges into the section:
    Ray's address, env runners, learners and GPUs per learner are set there). ``trust``: a resumed run's snapshots may be pickled
    (legacy) checkpoints (they run any code they carry); the files this run writes are safe ones.
    The ``algorithm/`` folder is RLlib's own checkpoint (pickled by Ray): resume only your own runs.
    """
    require_ray()
    import ray
    import torch

    from ..agents.checkpoint import check_compatible, load_policy, read_metadata
    from .imitation import warm_start
    from .ppo import policy_kwargs, resolve_network

    game_id = envs.resolve(game)
    overrides = {k: v for k, v in overrides.items() if v is not None}
    if timesteps is not None:
        overrides["total_timesteps"] = timesteps
    if seed is not None:
        overrides["seed"] = seed
    cfg, out = _config(game_id, config_path, overrides, device, resume, out, trust)
    game_obj = envs.make_game(game_id, **cfg.env_options)   # a variant or network that does not fit the
    resolve_network(game_obj, cfg)                           # game fails before the run folder is made
    kwargs = policy_kwargs(game_obj, cfg)
    out.mkdir(parents=True, exist_ok=True)
    import yaml
    (out / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    torch.set_num_threads(cfg.torch_threads)
    r = cfg.rllib
    started = start_ray(r)
    algo = progress = None
    try:
        gpus = resolve_gpus(r["device"], r["gpus_per_learner"], r["num_learners"],
                            local_gpu=_local_gpu(), cluster_gpus=_cluster_gpus())
        run = RLlibRun(game_id, cfg, out, kwargs)
        run.base.trust = trust
        algo = algorithm_config(game_id, cfg, kwargs, gpus).build_algo()
        if resume:
            algo.restore_from_path(str((out / "algorithm").resolve()))
            state = json.loads((out / "rllib_state.json").read_text())
            run.timesteps, run.iterations = int(state["timesteps"]), int(state["iterations"])
            run.pull(algo)
            for path in run.base.existing_snapshots():
                snap = load_policy(path, trust=trust)
                send_snapshot(algo, Path(path).stem, snap)
        else:
            if cfg.bc_games:
                if has_heuristic(game_obj):
                    warm_start(run.model.policy, game_obj, cfg, log=lambda m: print(m, flush=True), out=out)
                    run.push(algo)
                else:
                    warnings.warn(f"bc_games: {game_obj.name} has no heuristic to imitate; skipped", stacklevel=2)
                    run.pull(algo)
            else:
                run.pull(algo)
            if "snapshot" in cfg.opponent_mix:  # the starting policy is the pool's first snapshot
                run.snapshot(algo)
        per_iteration_timers(algo)
        progress = Progress(run, run.timesteps)
        t0 = time.time()
        warned = False
        while run.timesteps < cfg.total_timesteps:
            result = algo.train()
            last = run.timesteps
            steps = int((result.get("env_runners") or {}).get("num_env_steps_sampled", 0) or 0)
            run.timesteps += steps
            run.iterations += 1
            now = run.timesteps
            row = progress.add(result, steps)
            pulled = False
            if _due(cfg.snapshot_interval, last, now) and "snapshot" in cfg.opponent_mix:
                run.pull(algo)
                pulled = True
                run.snapshot(algo)
            if _due(cfg.checkpoint_interval, last, now):
                run.save_algorithm(algo)
            if _due(cfg.eval_interval, last, now):
                if not pulled:
                    run.pull(algo)
                res = run.base.evaluate(tag=f"step_{now:010d}")
                progress.write(f"[{now}] eval: " + ", ".join(
                    f"vs {o} {100 * w:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]" for o, (w, lo, hi) in res.items()))
            if row["illegal_moves"] and not warned:
                warnings.warn(f"{row['illegal_moves']} illegal moves were played (each ended its game "
                              f"with -1 for the mover): the action mask is not applied", stacklevel=2)
                warned = True
            limit = cfg.time_limit_minutes
            if limit and time.time() - t0 > 60 * limit:
                progress.write(f"time limit of {limit:g} min reached at {now} steps: stopping")
                break
        progress.close()
        run.pull(algo)
        run.save_algorithm(algo)
        final = run.save_policy("policy.zip")
        if run.base.eval_opponents and cfg.eval_games > 0:
            res = run.base.evaluate(tag="final")
            msg = ", ".join(f"vs {o} {100 * w:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]" for o, (w, lo, hi) in res.items())
            print(f"final evaluation ({cfg.eval_games} games each): {msg}", flush=True)
        check_compatible(read_metadata(final), game_obj, final)
    finally:
        if progress is not None and not progress.csv.closed:
            progress.close()
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()
    return final
