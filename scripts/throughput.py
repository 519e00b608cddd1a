"""Training throughput: learner env steps per second, rollouts *and* PPO updates included.

    python scripts/throughput.py [game] [--rounds 5] [--steps 8192] [--compare-vec]
        [--also KEY=VALUE[,KEY=VALUE...]]   # e.g. --also device=cuda: the project config on a GPU

Setups, all built once in this process and timed against the same self-play env (the game's
default training variant and its config's **real opponent mix**: random / heuristic / frozen
snapshots of the learner; the pool starts with a snapshot of each setup's own initial policy, so
snapshot opponents play from the first step and cost what they cost):

1. ``project default``: ``configs/train/<game>.yaml`` as ``arena train`` runs it (ArenaPPO, its
   network, vectorized env, torch threads for the rollouts and for the update: ``update_threads``);
2. ``sb3-contrib defaults, T threads``: ``MaskablePPO("MlpPolicy", env)`` with every hyperparameter
   at its default (n_steps 2048, batch 64, 10 epochs, a 64x64 MLP) on one ``SelfPlayEnv`` in SB3's
   DummyVecEnv, with torch limited to T = 1 and T = 2 threads.

Each round times every setup once for ``--steps`` learner steps (whole rollouts plus their updates;
the order rotates from round to round, so that a load change on the machine does not always hit
the same setup), after one untimed warm-up segment per setup. The table gives each setup's median
steps/s over the rounds and the speed-up: per round, the project default divided by the faster
sb3 setup of that round, then the median over rounds. The 1-minute load average is printed before
and after. Numbers are printed, never asserted.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

import torch

from tabletop_arena import envs
from tabletop_arena.train.config import load_config


class Setup:
    """A model ready to ``learn`` more steps, and the torch thread count it runs with."""

    def __init__(self, name: str, model, venv, threads: int):
        self.name, self.model, self.venv, self.threads = name, model, venv, threads
        self.rates: list[float] = []

    def run(self, steps: int) -> float:
        torch.set_num_threads(self.threads)
        before = self.model.num_timesteps
        start = time.perf_counter()
        self.model.learn(total_timesteps=steps, reset_num_timesteps=False, progress_bar=False)
        return (self.model.num_timesteps - before) / (time.perf_counter() - start)


def _seed_snapshot(model, game, game_id: str, venv, folder: Path, name: str) -> None:
    """Put a snapshot of ``model``'s current policy into the pool of every env of ``venv``."""
    from tabletop_arena.agents.checkpoint import game_metadata, save_checkpoint

    path = save_checkpoint(model, folder / f"{name}.zip", game_metadata(game, game_id), policy_only=True)
    venv.env_method("add_snapshot", str(path))


def project_setup(game: str, folder: Path, overrides: dict | None = None, name: str = "project default") -> Setup:
    from tabletop_arena.agents.policy_net import ArenaPolicy
    from tabletop_arena.train.arena_ppo import ArenaPPO
    from tabletop_arena.train.ppo import make_vec_env, policy_kwargs, resolve_device, update_threads

    game_id = envs.resolve(game)
    cfg = load_config(None, dict(overrides or {}, progress=False), game=game_id)
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    g = envs.make_game(game_id, **cfg.env_options)
    venv = make_vec_env(game_id, cfg, seed=cfg.seed)
    model = ArenaPPO(ArenaPolicy, venv, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
                     batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda,
                     clip_range=cfg.clip_range, ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef,
                     max_grad_norm=cfg.max_grad_norm, policy_kwargs=policy_kwargs(g, cfg),
                     device=resolve_device(cfg.device), kl_coef=cfg.kl_coef)
    model.update_threads = update_threads(cfg)
    if cfg.kl_coef > 0:  # the KL term costs a reference forward pass per rollout: time it too
        from tabletop_arena.agents.checkpoint import load_policy
        path = Path(folder) / f"{name.replace(' ', '_')}_reference.zip"
        from tabletop_arena.agents.checkpoint import game_metadata, save_checkpoint
        save_checkpoint(model, path, game_metadata(g, game_id), policy_only=True)
        model.set_reference(load_policy(path, device=str(model.device)))
    if "snapshot" in cfg.opponent_mix:
        _seed_snapshot(model, g, game_id, venv, Path(folder), name.replace(" ", "_"))
    return Setup(f"{name} ({cfg.vec_env} x{cfg.n_envs}, {cfg.torch_threads} thread{'s' * (cfg.torch_threads > 1)}, "
                 f"update {model.update_threads})", model, venv, cfg.torch_threads)


def sb3_default_setup(game: str, folder: Path, threads: int) -> Setup:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from tabletop_arena.train.selfplay import SelfPlayEnv

    game_id = envs.resolve(game)
    cfg = load_config(None, {"progress": False}, game=game_id)
    torch.set_num_threads(threads)
    torch.manual_seed(cfg.seed)
    g = envs.make_game(game_id, **cfg.env_options)
    venv = DummyVecEnv([lambda: SelfPlayEnv(game_id, cfg.env_options, cfg.opponent_mix, seed=cfg.seed,
                                            max_steps=cfg.max_steps, max_snapshots=cfg.max_snapshots,
                                            score_reward=cfg.score_reward)])
    model = MaskablePPO("MlpPolicy", venv, device="cpu")
    if "snapshot" in cfg.opponent_mix:
        _seed_snapshot(model, g, game_id, venv, Path(folder), f"sb3_{threads}")
    return Setup(f"sb3-contrib MaskablePPO defaults, {threads} thread{'s' * (threads > 1)}", model, venv, threads)


def measure(setups: list[Setup], rounds: int, steps: int, log=print) -> None:
    for s in setups:  # warm-up: first-use imports, snapshot loading, buffer allocation
        s.run(steps // 4)
    for r in range(rounds):
        order = setups[r % len(setups):] + setups[:r % len(setups)]
        for s in order:
            rate = s.run(steps)
            s.rates.append(rate)
            log(f"round {r + 1}: {s.name:60s} {rate:8.1f} steps/s")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python scripts/throughput.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", nargs="?", default="zaka", help="game id or name (default zaka)")
    p.add_argument("--rounds", type=int, default=5, help="timed rounds per setup (default 5)")
    p.add_argument("--steps", type=int, default=8192,
                   help="learner steps per timed segment; whole rollouts of every setup (default 8192)")
    p.add_argument("--compare-vec", action="store_true",
                   help="also time the project config with vec_env dummy and batched (one process): "
                        "--also vec_env=dummy --also vec_env=batched")
    p.add_argument("--also", action="append", default=[], metavar="KEY=VALUE[,KEY=VALUE...]",
                   help="also time the project config with these training-config keys changed (one "
                        "setup per --also; repeatable), e.g. --also device=cuda --also "
                        "vec_env=batched,n_envs=32; the speed-up line still compares the project default")
    args = p.parse_args(argv)
    from tabletop_arena.train.config import ConfigError, check_overrides, parse_overrides
    try:
        also = [check_overrides(parse_overrides(re.split(r",(?=[A-Za-z_][\w.]*=)", x)), source="--also")
                for x in args.also]  # commas inside a value ([256,256]) stay
    except ConfigError as exc:
        p.error(str(exc))
    if args.compare_vec:  # shorthand for two --also setups
        also += [{"vec_env": "dummy"}, {"vec_env": "batched"}]
    load0 = os.getloadavg()[0]
    print(f"{envs.resolve(args.game)}: {args.rounds} rounds of {args.steps} learner steps per setup; "
          f"load average (1 min) {load0:.2f} on {os.cpu_count()} CPUs", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        setups = [project_setup(args.game, folder)]
        setups += [project_setup(args.game, folder, o, name="project " + ",".join(f"{k}={v}" for k, v in o.items()))
                   for o in also]
        setups += [sb3_default_setup(args.game, folder, 1), sb3_default_setup(args.game, folder, 2)]
        try:
            measure(setups, args.rounds, args.steps, log=lambda m: print(m, flush=True))
        finally:
            for s in setups:
                s.venv.close()
    print(f"\nload average (1 min) {os.getloadavg()[0]:.2f} after (was {load0:.2f})")
    print("\n| setup | median steps/s | rounds |\n|---|---|---|")
    for s in setups:
        print(f"| {s.name} | {statistics.median(s.rates):.1f} | {', '.join(f'{x:.0f}' for x in s.rates)} |")
    base = [s for s in setups if s.name.startswith("sb3")]
    ratios = [setups[0].rates[r] / max(b.rates[r] for b in base) for r in range(args.rounds)]
    print(f"\nspeed-up of the project default over sb3-contrib defaults at their best thread count: "
          f"median {statistics.median(ratios):.2f}x (per round: {', '.join(f'{x:.2f}' for x in ratios)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
