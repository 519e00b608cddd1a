"""Self-play MaskablePPO for any registered game.

    from tabletop_arena.train.ppo import train
    path = train("peacekeepers", timesteps=200_000, seed=0, out="runs/pk")   # -> runs/pk/final.zip
    train("peacekeepers", out="runs/pk", resume=True, timesteps=400_000)    # continue to 400k

    arena train peacekeepers --timesteps 200000 --out runs/pk [--resume] [--set n_envs=4]

Reads top to bottom:
1. the config (``train/config.py``; ``configs/train/<game>.yaml`` or ``default.yaml``);
2. parallel self-play envs (``train/selfplay.py``): the learner plays a random seat against a pool
   of random / rule-based / frozen past snapshots of itself; ``n_envs`` envs in one process
   (SB3's DummyVecEnv, or ``vec_env: batched``: train/vecenv.py batches the snapshot opponents'
   moves; measured on 2 cores with train/throughput.py); optional dense shaping by the score
   margin (``score_reward``);
3. the network: an MLP over the flat vector, or (``network: cnn``) a small CNN over the (C, H, W)
   board piece of ``game.observation_layout`` plus an MLP over the rest (``agents.ppo.LayoutExtractor``),
   optionally with a spatial action head for board-aligned action ranges (``spatial_actions``);
4. an optional warm start (``bc_games``): behaviour cloning of the game's heuristic on its own games;
5. ``MaskablePPO.learn`` with one callback that keeps the tqdm bar (live win rate against the
   pool), TensorBoard scalars and ``progress.csv``, adds snapshots to the pool, writes checkpoints
   and evaluates against the baselines (``train/evaluate.py``) every so often; ``time_limit_minutes``
   stops a call cleanly (final files written; ``--resume`` continues).

Run folder (``out``):

| path                      | content                                                        |
|---------------------------|----------------------------------------------------------------|
| config.yaml               | the effective config                                           |
| checkpoint.zip            | latest full model (resumable), replaced atomically             |
| final.zip                 | full model at the end                                          |
| policy.zip                | policy only (no optimizer state): small, for ``ppo:PATH``      |
| snapshots/step_*.zip      | frozen policies used as opponents                              |
| progress.csv, tb/         | training curves                                                |
| eval/step_*/              | evaluation reports (report.json/.md/.png)                      |

Every checkpoint is in the safe format of ``agents/ppo.py`` (``tabletop-arena-ppo/2``: JSON
metadata, with the game, options, layout, action count, timesteps, config and the network's
description, plus tensors read with ``torch.load(weights_only=True)``; nothing is pickled). The full
ones (checkpoint.zip, final.zip) add the optimizer state and step counters that ``--resume`` reads.
A pickled checkpoint of an older version (``--resume`` of an old run, ``init_policy``, snapshots)
loads only with ``trust=True`` (``arena train --trust-checkpoint``).
"""
from __future__ import annotations

import csv
import os
import time
import warnings
from collections import deque
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv, VecMonitor

from .. import envs
from ..agents.checkpoint import (
    CheckpointError,
    check_compatible,
    check_trusted,
    game_metadata,
    read_metadata,
    save_checkpoint,
)
from ..agents.policy_net import ArenaPolicy, LayoutExtractor, board_piece, spatial_action_index
from ..agents.ppo import PPOAgent
from ..agents.registry import checkpoint_ref, has_heuristic, make_agent
from ..agents.shipped import ShippedAgentError, resolve_checkpoint
from .arena_ppo import ArenaPPO
from .config import ConfigError, TrainConfig, check_resume, from_dict, load_config, validate, with_overrides
from .curves import curve_title, read_curve, write_curve
from .evaluate import evaluate, field_against
from .progress import progress_bar
from .run_control import (
    EvaluationCut,
    RunLock,
    SignalStop,
    TrainingInterrupted,
    UpdateCut,
    ignore_sigint_in_worker,
    truncate_progress,
)
from .stops import as_stopped

#: seed of the evaluations during training (``evaluate(seed=EVAL_SEED_BASE + cfg.seed)``); the
#: evaluator's engine seeds are odd and every training engine seed is even (train/evaluate.py)
EVAL_SEED_BASE = 7919
#: PPO hyperparameters applied from the config when resuming
PPO_KEYS = ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range",
            "ent_coef", "vf_coef", "max_grad_norm")


# ---------------------------------------------------------------------------------------------
# building blocks
# ---------------------------------------------------------------------------------------------
def _selfplay_factory(game_id: str, cfg: TrainConfig, seed: int, snapshots: list[str], trust: bool = False):
    def make():
        import torch as _torch
        ignore_sigint_in_worker()
        _torch.set_num_threads(1)  # snapshot opponents run their policy inside the env
        from .selfplay import SelfPlayEnv
        return SelfPlayEnv(game_id, cfg.env_options, cfg.opponent_mix, seed=seed, max_steps=cfg.max_steps,
                           max_snapshots=cfg.max_snapshots, score_reward=cfg.score_reward,
                           snapshots=list(snapshots), snapshot_sampling=cfg.snapshot_sampling, trust=trust)
    return make


def make_vec_env(game_id: str, cfg: TrainConfig, seed: int, snapshots: Sequence[str] = (), trust: bool = False):
    """``cfg.n_envs`` self-play envs in this process (``vec_env``: SB3's DummyVecEnv, or batched:
    train/vecenv.py), with episode statistics; ``trust``: their opponents may load pickled
    (legacy) checkpoints."""
    seeds = [int(s.generate_state(1, np.uint64)[0] % (2**63))
             for s in np.random.SeedSequence(seed).spawn(cfg.n_envs)]
    fns = [_selfplay_factory(game_id, cfg, s, list(snapshots), trust) for s in seeds]
    venv: VecEnv
    if cfg.vec_env == "batched":
        from .vecenv import SelfPlayVecEnv
        venv = SelfPlayVecEnv(fns)
    else:
        venv = DummyVecEnv(fns)
    return VecMonitor(venv)


def update_threads(cfg: TrainConfig) -> int:
    """Torch threads for the PPO update: the config's, or for 0 the cores this process may run on
    (at most 4)."""
    if cfg.update_threads > 0:
        return cfg.update_threads
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def resolve_device(device: str) -> str:
    """``auto``: cuda when torch sees a GPU, else cpu; ``cuda`` without one is an error."""
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device: cuda asked for, but torch sees no CUDA device (use auto or cpu)")
    return device


def resolve_network(game, cfg: TrainConfig) -> str:
    if cfg.network == "auto":
        return "cnn" if board_piece(game.observation_layout) is not None else "mlp"
    if cfg.network == "slots":
        names = {name for name, _ in game.observation_layout}
        if not {"armies", "army_info"} <= names or not hasattr(game, "num_monster_designs"):
            raise ConfigError(f"network: slots fits Zaka-like layouts (armies, army_info pieces); "
                              f"{game.name} has {sorted(names)}")
        return "slots"
    if cfg.network in ("cnn", "board") and board_piece(game.observation_layout) is None:
        raise ConfigError(f"network: cnn needs a (C, H, W) piece in {game.name}'s observation layout "
                          f"{game.observation_layout}; use mlp or auto")
    return cfg.network


def resolve_spatial_actions(game, cfg: TrainConfig, network: str) -> list:
    """The spatial head's action ranges: the config's list, or with ``auto`` the ranges the game
    variant declares (``Game.spatial_actions``: a 4-player board has other ranges than a
    2-player one), none for the mlp network."""
    if cfg.spatial_actions == "auto":
        return [list(x) for x in game.spatial_actions] if network in ("cnn", "board") else []
    return [list(x) for x in cfg.spatial_actions]


def policy_kwargs(game, cfg: TrainConfig) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)},
                              "share_features_extractor": cfg.share_features}
    network = resolve_network(game, cfg)
    layout = [[name, [int(x) for x in shape]] for name, shape in game.observation_layout]
    obs_size = int(game.observation_size)
    if network in ("board", "slots"):
        # agents/nets.py: the extractor gives the logits itself; the policy latent is its features,
        # the value an MLP (net_arch) on them
        from ..agents.nets import BoardNet, SlotNet
        kwargs = {"net_arch": {"pi": [], "vf": list(cfg.net_arch)}, "ortho_init": False,
                  "share_features_extractor": cfg.share_features}
        if network == "board":
            spatial = resolve_spatial_actions(game, cfg, network)
            kwargs["features_extractor_class"] = BoardNet
            kwargs["features_extractor_kwargs"] = {
                "layout": layout, "num_actions": int(game.num_actions), "channels": cfg.board_channels,
                "dilations": list(cfg.board_dilations), "vector_hidden": cfg.vector_hidden,
                "features_dim": cfg.features_dim, "spatial_actions": spatial,
                "pointer_actions": [list(x) for x in cfg.pointer_actions],
                "focus_planes": list(cfg.focus_planes)}
        else:
            kwargs["features_extractor_class"] = SlotNet
            kwargs["features_extractor_kwargs"] = {
                "layout": layout, "num_actions": int(game.num_actions),
                "monster_designs": int(game.num_monster_designs), "weapon_designs": int(game.num_weapon_designs),
                "slot_dim": cfg.slot_dim, "pair_dim": cfg.pair_dim, "features_dim": cfg.features_dim}
        try:  # build once to report a misfit (ranges, sizes) as a config error
            kwargs["features_extractor_class"](
                gymnasium_box(obs_size), **kwargs["features_extractor_kwargs"])
        except ValueError as exc:
            raise ConfigError(f"network {network}: {exc}") from None
        return kwargs
    spatial = resolve_spatial_actions(game, cfg, network)
    if spatial:
        if network != "cnn":
            raise ConfigError(f"spatial_actions need a (C, H, W) board piece and the cnn network; "
                              f"{game.name} resolves to {network}")
        if not cfg.share_features:
            raise ConfigError("spatial_actions (the cnn network's spatial head reads the shared "
                              "features extractor) need share_features: true; set spatial_actions: [] "
                              "to give the value branch its own extractor")
        piece = board_piece(game.observation_layout)
        assert piece is not None   # resolve_network gives cnn only with a (C, H, W) piece
        _, (_, h, w) = piece
        try:
            spatial_action_index(spatial, (h, w), game.num_actions)
        except ValueError as exc:
            raise ConfigError(f"spatial_actions: {exc}") from None
        kwargs["spatial_actions"] = spatial
    if network == "cnn":
        kwargs["features_extractor_class"] = LayoutExtractor
        kwargs["features_extractor_kwargs"] = {
            "layout": [[name, [int(x) for x in shape]] for name, shape in game.observation_layout],
            "cnn_channels": list(cfg.cnn_channels), "cnn_hidden": cfg.cnn_hidden,
            "vector_hidden": cfg.vector_hidden}
    return kwargs


def check_network(game, cfg: TrainConfig) -> None:
    """Raise ConfigError if ``cfg``'s network does not fit ``game`` (``policy_kwargs``'s trial build),
    drawing nothing from torch's generator: trainers call it before making a run folder. The real
    build keeps its draws (a run's first weights for a seed are as before)."""
    with torch.random.fork_rng(devices=[]):
        policy_kwargs(game, cfg)


def gymnasium_box(size: int):
    import gymnasium
    return gymnasium.spaces.Box(-1.0, 1.0, (int(size),), np.float32)


def available_opponents(game, specs) -> list[str]:
    """Drop ``heuristic`` where the game has no rule-based baseline (with a warning)."""
    out = []
    for s in specs:
        if s == "heuristic" and not has_heuristic(game):
            warnings.warn(f"no heuristic baseline for {game.name}; not evaluated against it", stacklevel=2)
            continue
        out.append(s)
    return out


def cpu_time() -> float:
    """CPU seconds of this process and of its children (finished ones, and live ones from /proc)."""
    t = os.times()
    total = t.user + t.system + t.children_user + t.children_system
    try:
        import multiprocessing
        tick = os.sysconf("SC_CLK_TCK")
        for child in multiprocessing.active_children():
            with open(f"/proc/{child.pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
    except (OSError, ValueError, IndexError):
        pass
    return total


def default_out(game_id: str, seed: int) -> Path:
    return Path("runs") / game_id / f"ppo_seed{seed}"


# ---------------------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------------------
class Run:
    """The run folder, the game, the config; writes checkpoints, snapshots and evaluations."""

    def __init__(self, game_id: str, cfg: TrainConfig, out: Path):
        self.game_id, self.cfg, self.out = game_id, cfg, out
        self.game = envs.make_game(game_id, **cfg.env_options)
        self.model: MaskablePPO | None = None
        self.snap_dir = out / "snapshots"
        self.eval_opponents = available_opponents(self.game, cfg.eval_opponents)
        self.last_eval: dict[str, tuple[float, float, float]] = {}
        self.t0 = time.time()
        self.wall_offset = 0.0  # wall-clock seconds of earlier calls (a resumed run)
        self.cpu0 = cpu_time()
        self.cpu_offset = 0.0
        self.trust = False   #: pickled (legacy) checkpoints may load (``train(trust=True)``)
        self.curve: list[dict] = read_curve(out / "curve.csv")

    def wall_seconds(self) -> float:
        """Wall-clock seconds of the run so far (imitation, rollouts, updates, evaluations)."""
        return self.wall_offset + time.time() - self.t0

    def cpu_seconds(self) -> float:
        """CPU seconds of the run so far: this process (every thread), its finished children and
        its live ones (env workers). On a shared machine this, not the wall clock, says how long
        the run takes on cores of its own."""
        return self.cpu_offset + cpu_time() - self.cpu0

    def trained(self) -> MaskablePPO:
        """The model (``train`` builds or loads it before anything saves or evaluates)."""
        assert self.model is not None, "no model yet"
        return self.model

    def meta(self) -> dict[str, Any]:
        m = game_metadata(self.game, self.game_id)
        m.update(timesteps=int(self.trained().num_timesteps), config=self.cfg.to_dict(),
                 network=resolve_network(self.game, self.cfg),
                 saved_at=time.strftime("%Y-%m-%d %H:%M:%S"),
                 wall_seconds=round(self.wall_seconds(), 1), cpu_seconds=round(self.cpu_seconds(), 1),
                 last_eval={o: list(v) for o, v in self.last_eval.items()})
        return m

    def curve_point(self, log=None, tag: str | None = None) -> dict:
        """Evaluate now and add a point to the learning curve (curve.csv and curve.png)."""
        steps = int(self.trained().num_timesteps)
        res = self.evaluate(tag=tag or f"step_{steps:010d}")
        row = {"timesteps": steps, "minutes": round(self.wall_seconds() / 60, 2),
               "cpu_minutes": round(self.cpu_seconds() / 60, 2), "games": self.cfg.eval_games}
        for o, (r, lo, hi) in res.items():
            row.update({f"{o}_win_rate": round(r, 4), f"{o}_ci_low": round(lo, 4), f"{o}_ci_high": round(hi, 4)})
        self.curve.append(row)
        write_curve(self.curve, self.out / "curve.csv", self.out / "curve.png",
                    title=curve_title(self.game_id, self.game.options()), players=self.game.num_agents)
        if log is not None:
            log(f"[{steps} steps, {row['minutes']:.1f} min] eval: " + ", ".join(
                f"vs {o} {100 * r:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]" for o, (r, lo, hi) in res.items()))
        return row

    #: where the run is and its last checkpoint (the words of a stop), set by ``train``
    stage: "_Stage | None" = None

    def save(self, name: str, policy_only: bool = False) -> Path:
        path = save_checkpoint(self.trained(), self.out / name, self.meta(), policy_only=policy_only)
        if name == "checkpoint.zip" and self.stage is not None:
            self.stage.checkpoint, self.stage.steps = path, int(self.trained().num_timesteps)
        return path

    def snapshot(self) -> Path:
        model = self.trained()
        return save_checkpoint(model, self.snap_dir / f"step_{model.num_timesteps:010d}.zip",
                               self.meta(), policy_only=True)

    def existing_snapshots(self) -> list[str]:
        if not self.snap_dir.is_dir():
            return []
        paths = sorted(str(p) for p in self.snap_dir.glob("step_*.zip"))
        good = []
        for p in paths:
            try:
                meta = read_metadata(p)
                check_trusted(meta, p, self.trust)
                check_compatible(meta, self.game, p)
                good.append(p)
            except CheckpointError as exc:
                warnings.warn(f"skipping snapshot: {exc}", stacklevel=2)
        return good[-self.cfg.max_snapshots:]

    def evaluate(self, games: int | None = None, tag: str | None = None) -> dict[str, tuple[float, float, float]]:
        """Win rate (with Wilson interval) of the current policy against each eval opponent."""

        policy = self.trained().policy
        was_training = policy.training
        policy.set_training_mode(False)
        results = {}
        try:
            for opp in self.eval_opponents:
                entrants, names = field_against(_LearnerFactory(policy), opp, self.game.num_agents)
                report = evaluate(self.game, entrants, names=names,
                                  games=games or self.cfg.eval_games, workers=1, seed=EVAL_SEED_BASE + self.cfg.seed,
                                  opening_moves=2, max_steps=self.cfg.max_steps, progress=False, bootstrap=0,
                                  trust=self.trust)
                a = report.agent("learner")
                results[opp] = (a["win_rate"], *a["win_rate_ci95"])
                if tag:
                    report.write(self.out / "eval" / tag / opp.replace(":", "_").replace("/", "_"))
        finally:
            policy.set_training_mode(was_training)
        self.last_eval = results
        return results


class _LearnerFactory:
    """Evaluator entrant that plays the in-memory learner policy (argmax of masked logits)."""

    name = "learner"

    def __init__(self, policy):
        self.policy = policy

    def __call__(self, game, seed):
        return PPOAgent.from_policy(self.policy, seed=seed)


class ArenaCallback(BaseCallback):
    """Progress bar, live win rates, TensorBoard, CSV, snapshots, checkpoints, evaluations."""

    def __init__(self, run: Run, stop: SignalStop | None = None):
        super().__init__()
        self.run = run
        self.stop = stop   # a stop asked for: no snapshot, checkpoint or evaluation before it saves
        cfg = run.cfg
        self.window: deque = deque(maxlen=cfg.win_rate_window)
        self.kinds = [k for k in cfg.opponent_mix if cfg.opponent_mix[k] > 0]
        self.per_kind: dict[str, deque] = {k: deque(maxlen=max(50, cfg.win_rate_window // max(1, len(self.kinds))))
                         for k in self.kinds}
        self.episodes = 0
        self.stopped_by_time = False
        self.bar = None
        self.csv_path = run.out / "progress.csv"
        self.columns = (["timesteps", "episodes", "elapsed_s", "steps_per_s", "win_rate"]
                        + [f"win_rate_{k}" for k in self.kinds]
                        + ["entropy", "kl_reference", "approx_kl", "clip_fraction",
                           "value_loss", "explained_variance"]
                        + [f"eval_{o}_{x}" for o in run.eval_opponents for x in ("win_rate", "ci_low", "ci_high")])

    # -- helpers ----------------------------------------------------------------------------
    @staticmethod
    def _rate(d) -> float:
        if not d:
            return float("nan")
        return sum(1.0 if x == "win" else 0.0 for x in d) / len(d)

    def _due(self, interval: int, last: int) -> bool:
        stopping = self.stop is not None and self.stop.signum is not None
        return interval > 0 and self.num_timesteps // interval > last // interval and not stopping

    # -- SB3 hooks --------------------------------------------------------------------------
    def _on_training_start(self) -> None:
        self.t0 = time.time()
        self.start_steps = self.num_timesteps
        self.last_steps = self.num_timesteps
        if self.run.cfg.progress:
            self.bar = progress_bar(self.run.cfg.total_timesteps, f"train {self.run.game_id}", "step",
                                    initial=self.num_timesteps, smoothing=0.05)
        new = not self.csv_path.exists()
        if not new:   # a resumed run writes the columns its file has (an older version's may differ)
            with open(self.csv_path, newline="") as fh:
                header: list[str] = next(csv.reader(fh), [])
            self.columns = header or self.columns
        self.csv = open(self.csv_path, "a", newline="")
        self.writer = csv.DictWriter(self.csv, fieldnames=self.columns, extrasaction="ignore")
        if new:
            self.writer.writeheader()

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            outcome = info.get("outcome")
            if outcome is not None:
                self.episodes += 1
                self.window.append(outcome)
                if info.get("opponent") in self.per_kind:
                    self.per_kind[info["opponent"]].append(outcome)
        last, now = self.last_steps, self.num_timesteps
        cfg = self.run.cfg
        if self._due(cfg.snapshot_interval, last) and "snapshot" in cfg.opponent_mix:
            path = self.run.snapshot()
            self.training_env.env_method("add_snapshot", str(path))
        if self._due(cfg.checkpoint_interval, last):
            self.run.save("checkpoint.zip")
        if self._due(cfg.eval_interval, last):
            self._evaluate()
        if self.bar is not None:
            self.bar.update(now - last)
            if self.n_calls % 20 == 0:
                self.bar.set_postfix_str(self._postfix(), refresh=False)
        self.last_steps = now
        limit = cfg.time_limit_minutes
        if limit and time.time() - self.run.t0 > 60 * limit:  # this call's whole time, cloning included
            if self.bar is not None:
                self.bar.write(f"time limit of {limit:g} min reached at {now} steps: stopping")
            self.stopped_by_time = True
            return False
        return True

    def _evaluate(self) -> None:
        log = self.bar.write if self.bar is not None else (lambda m: print(m, flush=True))
        if self.stop is None:
            self.run.curve_point(log=log)
        else:
            try:   # a stop cuts the evaluation short: the checkpoint does not need it
                with self.stop.cut_short():
                    self.run.curve_point(log=log)
            except EvaluationCut:
                return
        for opp, (rate, lo, _hi) in self.run.last_eval.items():
            self.logger.record(f"eval/win_rate_{opp}", rate)
            self.logger.record(f"eval/win_rate_{opp}_ci_low", lo)

    def _postfix(self) -> str:
        parts = [f"win {self._rate(self.window):.2f}"]
        parts += [f"{k[:5]} {self._rate(d):.2f}" for k, d in self.per_kind.items() if d]
        if self.run.last_eval:
            parts.append("eval " + " ".join(f"{o[:5]} {r:.2f}" for o, (r, _, _) in self.run.last_eval.items()))
        return " ".join(parts)

    def _on_rollout_end(self) -> None:
        elapsed = time.time() - self.t0
        sps = (self.num_timesteps - self.start_steps) / max(elapsed, 1e-9)
        row: dict[str, Any] = {"timesteps": self.num_timesteps, "episodes": self.episodes, "elapsed_s": round(elapsed, 1),
               "steps_per_s": round(sps, 1), "win_rate": self._rate(self.window)}
        self.logger.record("selfplay/win_rate", row["win_rate"])
        self.logger.record("selfplay/episodes", self.episodes)
        self.logger.record("selfplay/steps_per_s", sps)
        for k, d in self.per_kind.items():
            row[f"win_rate_{k}"] = self._rate(d)
            if d:
                self.logger.record(f"selfplay/win_rate_{k}", row[f"win_rate_{k}"])
        for o, (r, lo, hi) in self.run.last_eval.items():
            row.update({f"eval_{o}_win_rate": r, f"eval_{o}_ci_low": lo, f"eval_{o}_ci_high": hi})
        ts = getattr(self.model, "last_train_stats", None) or {}
        row.update({"entropy": ts.get("ent"), "kl_reference": ts.get("kl_ref"), "approx_kl": ts.get("approx_kl"),
                    "clip_fraction": ts.get("clip"), "value_loss": ts.get("vf"),
                    "explained_variance": ts.get("explained_variance")})
        self.writer.writerow(row)
        self.csv.flush()

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(self._postfix())
            self.bar.close()
        self.csv.close()


# ---------------------------------------------------------------------------------------------
# entry point
# ---------------------------------------------------------------------------------------------
def _write_config(cfg: TrainConfig, path: Path) -> None:
    import yaml
    path.write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))


def train(game: str, config_path: str | os.PathLike | None = None, timesteps: int | None = None,
          seed: int | None = None, out: str | os.PathLike | None = None, resume: bool = False,
          trust: bool = False, **overrides) -> Path:
    """Train (or, with ``resume``, continue training) a MaskablePPO policy; return final.zip's path.

    ``timesteps`` is the run's total (a resumed run trains the difference). ``overrides`` are
    config keys (see ``train/config.py``); ``None`` values are ignored. ``trust`` (``arena train
    --trust-checkpoint``) lets the run load pickled (legacy) checkpoints: the ``--resume``
    checkpoint, ``init_policy``, snapshots and checkpoint opponents; such a file runs any code it
    carries. Every file the run writes is in the safe format.
    """
    game_id = envs.resolve(game)
    overrides = {k: v for k, v in overrides.items() if v is not None}
    if timesteps is not None:
        overrides["total_timesteps"] = timesteps
    if seed is not None:
        overrides["seed"] = seed
    if resume:
        if out is None:
            raise ConfigError("--resume needs --out (the run folder to continue)")
        out = Path(out)
        ckpt = out / "checkpoint.zip"
        if not ckpt.is_file():
            raise ConfigError(_no_checkpoint(out))
        meta = read_metadata(ckpt)
        check_trusted(meta, ckpt, trust)
        if meta.get("game") != game_id:
            raise CheckpointError(f"{ckpt} was trained on {meta.get('game')!r}, not {game_id!r}")
        saved = meta.get("config")
        if not isinstance(saved, dict):
            raise CheckpointError(f"{ckpt} has no training config in its metadata")
        check_resume(saved, overrides, config_path, "checkpoint")
        cfg = from_dict(with_overrides(saved, overrides), source=f"{ckpt} config + overrides")
    else:
        notes: list[str] = []   # a run shorter than its config: what its warm start and evaluations scale to
        cfg = load_config(config_path, overrides, game=game_id, notes=notes)
        for note in notes:
            print(note, flush=True)
        out = Path(out) if out is not None else default_out(game_id, cfg.seed)
        if (out / "checkpoint.zip").exists():
            raise ConfigError(f"{out} already holds a run (checkpoint.zip); pass --resume to continue it "
                              f"or choose another --out")
    validate(cfg)
    game_obj = envs.make_game(game_id, **cfg.env_options)
    check_network(game_obj, cfg)   # before the run folder is made: a network that does not fit changes nothing
    if cfg.init_policy:   # likewise a refused file
        init_policy_path(cfg.init_policy, game_obj, trust)
    out.mkdir(parents=True, exist_ok=True)
    with RunLock(out) as lock:
        if lock.took_over:
            print(f"{out}: taking over the lock left by pid {lock.took_over} (no longer running)",
                  flush=True)
        if resume:   # rows past the checkpoint belong to training that was lost
            truncate_progress(out / "progress.csv", int(meta.get("timesteps", 0)))
        stage = _Stage(ckpt if resume else None, int(meta.get("timesteps", 0)) if resume else 0)
        try:
            return _train_locked(game_id, cfg, out, resume, meta if resume else None,
                                 ckpt if resume else None, trust, stage=stage)
        except KeyboardInterrupt as exc:   # SIGINT / SIGTERM outside PPO's own stop: say what is kept
            if isinstance(exc, TrainingInterrupted):
                raise
            raise as_stopped(exc).with_detail(stage.words()) from None


class _Stage:
    """Where a run is and its last checkpoint: the words of the line a stop prints."""

    def __init__(self, checkpoint: Path | None, steps: int = 0):
        self.what = "the start of the run"
        self.checkpoint, self.steps = checkpoint, steps
        self.signal_stop: SignalStop | None = None   # PPO's own stop, while it learns

    def words(self) -> str:
        what = self.what
        if self.signal_stop is not None and self.signal_stop.signum is not None:
            what += " (a second signal: stopped without saving)"
        if self.checkpoint is None:
            return (f"during {what}; no checkpoint written (the first is saved when PPO starts, after the "
                    f"warm start): start the run again without --resume")
        return f"during {what}; checkpoint {self.checkpoint} ({self.steps} steps) is kept (continue with --resume)"


def _no_checkpoint(out: Path) -> str:
    """Why ``--resume`` finds no checkpoint.zip in ``out``."""
    if not out.exists():
        return f"--resume: {out} does not exist (there is no run to continue)"
    if (out / "config.yaml").is_file():
        return (f"--resume: {out} has no checkpoint.zip: its run stopped before its first checkpoint "
                f"(saved when PPO starts, after the warm start); start it again without --resume")
    return f"--resume: {out} holds no run (no checkpoint.zip)"


def init_policy_path(ref: str, game, trust: bool) -> str:
    """An ``init_policy``'s file (a shipped agent's name or a path), checked from its metadata alone
    (nothing is unpickled): it exists, fits ``game``, and is a safe checkpoint or ``trust``. The PPO
    and the search-distillation trainers both read ``init_policy`` through it."""
    try:
        path = resolve_checkpoint(ref)
    except ShippedAgentError as exc:
        raise ConfigError(f"init_policy: {exc}") from None
    try:
        meta = read_metadata(path)
        check_trusted(meta, path, trust)
        check_compatible(meta, game, path)
    except CheckpointError as exc:
        raise CheckpointError(f"init_policy: {exc}") from None
    return str(path)


def _checkpoint_opponents(run: Run) -> None:
    """The config's opponents and evaluation opponents that play a checkpoint (``ppo:``,
    ``puct:``, ``rollout:``, ``vlook:``: ``agents.registry.checkpoint_ref``) load now: a missing,
    mismatched or untrusted pickled file is one error before any training, not a crash in an env
    worker later."""
    for spec in list(run.cfg.opponent_mix) + list(run.eval_opponents):
        if checkpoint_ref(spec) is not None:
            make_agent(spec, run.game, seed=0, trust=run.trust)


def _resume_model(ckpt: Path, meta: dict, venv, cfg: TrainConfig, device: str, trust: bool) -> ArenaPPO:
    """The learner of a run folder's checkpoint.zip, on ``venv``, with the config's PPO settings:
    rebuilt from the safe format (network description, weights, optimizer state, step counters),
    or, for a pickled (legacy) file and only with ``trust``, SB3's own ``load``."""
    from ..agents.checkpoint import decode_spec, is_legacy, numpy_too_old, read_training_state
    ppo_settings = {k: getattr(cfg, k) for k in PPO_KEYS}
    if is_legacy(meta):
        check_trusted(meta, ckpt, trust)
        try:
            return ArenaPPO.load(ckpt, env=venv, device=device,
                                 custom_objects={k: ppo_settings.pop(k) for k in ("learning_rate", "clip_range")},
                                 **ppo_settings)
        except Exception as exc:
            raise numpy_too_old(exc, ckpt) or CheckpointError(
                f"cannot resume from {ckpt}: {type(exc).__name__}: {exc}") from None
    state, optimizer, training = read_training_state(ckpt, meta)
    policy_class, _, _, kwargs = decode_spec(meta["policy"], ckpt)
    model = ArenaPPO(policy_class, venv, policy_kwargs=kwargs, device=device, verbose=0, **ppo_settings)
    try:
        model.policy.load_state_dict(state)
        model.policy.optimizer.load_state_dict(optimizer)
        model.num_timesteps = int(training["num_timesteps"])
        model._n_updates = int(training.get("n_updates", 0))
        model._episode_num = int(training.get("episode_num", 0))
    except Exception as exc:   # noqa: BLE001 - an optimizer state of another network, a bad counter
        raise CheckpointError(f"cannot resume from {ckpt}: {type(exc).__name__}: {exc}") from None
    return model


def _train_locked(game_id: str, cfg: TrainConfig, out: Path, resume: bool, meta: dict | None,
                  ckpt: Path | None, trust: bool = False, stage: _Stage | None = None) -> Path:
    """``train`` in its locked run folder: build or load the model, learn, save. ``stage`` follows
    where the run is and its last checkpoint, for the line a stop prints."""
    stage = stage or _Stage(ckpt)
    _write_config(cfg, out / "config.yaml")
    torch.set_num_threads(cfg.torch_threads)
    device = resolve_device(cfg.device)

    run = Run(game_id, cfg, out)
    run.stage = stage
    run.trust = trust
    resolve_network(run.game, cfg)  # raise early on a cnn request without a board piece
    _checkpoint_opponents(run)
    log = (lambda m: print(m, flush=True))
    stage.what = "loading the checkpoint" if resume else "building the model"
    if resume:
        assert meta is not None and ckpt is not None   # train() reads both when resuming
        check_compatible(meta, run.game, ckpt)
        done = int(meta.get("timesteps", 0))
        run.wall_offset = float(meta.get("wall_seconds", 0.0))
        run.cpu_offset = float(meta.get("cpu_seconds", 0.0))
        torch.manual_seed(cfg.seed * 1_000_003 + done)
        venv = make_vec_env(game_id, cfg, seed=cfg.seed * 1_000_003 + done, snapshots=run.existing_snapshots(),
                            trust=trust)
        try:
            run.model = _resume_model(ckpt, meta, venv, cfg, device, trust)
        except BaseException:
            venv.close()
            raise
        run.model.tensorboard_log = str(out / "tb")
        run.model.kl_coef = cfg.kl_coef
        run.model.learning_rate_end = cfg.learning_rate_end
        run.model.value_warmup_steps = cfg.value_warmup_steps
        run.model.update_threads = update_threads(cfg)
        if cfg.kl_coef > 0 and (out / "reference.zip").is_file():
            from ..agents.checkpoint import load_policy
            run.model.set_reference(load_policy(out / "reference.zip", device=device, trust=trust))
    else:
        torch.manual_seed(cfg.seed)
        venv = make_vec_env(game_id, cfg, seed=cfg.seed, trust=trust)
        run.model = ArenaPPO(
            ArenaPolicy, venv, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
            batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda,
            clip_range=cfg.clip_range, ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef,
            max_grad_norm=cfg.max_grad_norm, policy_kwargs=policy_kwargs(run.game, cfg),
            tensorboard_log=str(out / "tb"), device=device, verbose=0,
            kl_coef=cfg.kl_coef, value_warmup_steps=cfg.value_warmup_steps,
            learning_rate_end=cfg.learning_rate_end)
        run.model.update_threads = update_threads(cfg)
        if cfg.init_policy:
            from ..agents.checkpoint import load_policy
            init_path = init_policy_path(cfg.init_policy, run.game, trust)   # a shipped agent's name or a path
            start = load_policy(init_path, device=device, trust=trust)
            try:
                run.model.policy.load_state_dict(start.state_dict())
            except RuntimeError as exc:
                raise ConfigError(f"init_policy {cfg.init_policy}: the network differs from the config's: {exc}") from None
            log(f"initial policy: {cfg.init_policy}")
            if cfg.kl_coef > 0:
                run.save("reference.zip", policy_only=True)
                run.model.set_reference(load_policy(out / "reference.zip", device=device))
        elif cfg.bc_games:
            if has_heuristic(run.game):
                from .imitation import warm_start
                warm_start(run.model.policy, run.game, cfg, log=log, out=out,
                           on_phase=lambda what: setattr(stage, "what", f"the warm start ({what})"))
                if cfg.kl_coef > 0:  # the clone, frozen: the anchor of the KL term
                    run.save("reference.zip", policy_only=True)
                    from ..agents.checkpoint import load_policy
                    run.model.set_reference(load_policy(out / "reference.zip", device=device))
            else:
                warnings.warn(f"bc_games: {run.game.name} has no heuristic to imitate; skipped", stacklevel=2)
        if "snapshot" in cfg.opponent_mix:  # the starting policy is the pool's first snapshot
            venv.env_method("add_snapshot", str(run.snapshot()))
        run.save("checkpoint.zip")   # from here on a stop leaves a run that resumes (the clone kept)
    model = run.model
    model.schedule_total = cfg.total_timesteps
    remaining = cfg.total_timesteps - model.num_timesteps
    try:
        if not resume and run.eval_opponents and cfg.eval_games > 0 and cfg.eval_interval > 0:
            stage.what = "the first evaluation"
            run.curve_point(log)  # the learning curve starts at the (cloned) initial policy
        if remaining > 0:
            stage.what = "PPO"
            with SignalStop() as stop:   # SIGINT / SIGTERM: stop (rollout: next step), save, exit
                stage.signal_stop = stop
                callback = ArenaCallback(run, stop)
                try:
                    model.learn(total_timesteps=remaining, callback=[callback, stop],
                                reset_num_timesteps=not resume, tb_log_name="ppo", progress_bar=False)
                except UpdateCut:   # the update is dropped: the model from before its rollout is saved
                    stop.restore(model)
                    callback.on_training_end()
                    truncate_progress(out / "progress.csv", model.num_timesteps)   # no row past it
            stage.what = "saving the checkpoint"
            if stop.signum is not None:
                raise TrainingInterrupted(stop.signum, run.save("checkpoint.zip"), model.num_timesteps)
        run.save("checkpoint.zip")
        final = run.save("final.zip")
        run.save("policy.zip", policy_only=True)
        if run.eval_opponents and cfg.eval_games > 0:
            stage.what = "the final evaluation"
            if not run.curve or run.curve[-1]["timesteps"] != model.num_timesteps:
                run.curve_point(log, tag="final")
            res = run.last_eval
            msg = ", ".join(f"vs {o} {100 * r:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]" for o, (r, lo, hi) in res.items())
            print(f"final evaluation ({cfg.eval_games} games each): {msg}", flush=True)
            run.save("final.zip")  # the wall time of the final evaluation in the metadata
            run.save("policy.zip", policy_only=True)
    finally:
        venv.close()
    return final
