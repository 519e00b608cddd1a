"""Training throughput: learner env steps per second, rollouts *and* PPO updates included.

    python -m tabletop_arena.train.throughput [game] [--timesteps 8192] [--compare-vec]

Prints, measured in the same run on the same machine:
1. the default training config of the game (``configs/train/<game>.yaml``), and
2. MaskablePPO with sb3-contrib's default hyperparameters (MlpPolicy, n_steps 2048, batch 64,
   10 epochs) on a single env, with torch's default thread count and with 1 thread;
both against the same self-play env (same variant and opponent mix). ``--compare-vec`` also times
DummyVecEnv vs SubprocVecEnv with 1 and 2 torch threads, which is how the default was chosen.
Numbers are printed, never asserted.
"""
from __future__ import annotations

import argparse
import time

import torch

from .. import envs
from .config import load_config


def _timed_learn(model, timesteps: int) -> float:
    model.learn(total_timesteps=model.n_steps * model.n_envs, progress_bar=False)  # warm-up rollout
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps, reset_num_timesteps=False, progress_bar=False)
    return timesteps / (time.perf_counter() - start)


def measure_config(game: str, overrides: dict | None = None, timesteps: int = 8192) -> float:
    """Steps/s of the training setup ``train.ppo.train`` would build (no callbacks, no eval)."""
    from sb3_contrib import MaskablePPO

    from ..agents.ppo import ArenaPolicy
    from .ppo import make_vec_env, policy_kwargs

    game_id = envs.resolve(game)
    cfg = load_config(None, dict(overrides or {}, progress=False), game=game_id)
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    g = envs.make_game(game_id, **cfg.env_options)
    venv = make_vec_env(game_id, cfg, seed=cfg.seed)
    try:
        model = MaskablePPO(ArenaPolicy, venv, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
                            batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
                            ent_coef=cfg.ent_coef, policy_kwargs=policy_kwargs(g, cfg), device="cpu")
        return _timed_learn(model, timesteps)
    finally:
        venv.close()


def measure_sb3_default(game: str, timesteps: int = 8192, threads: int | None = None) -> float:
    """Steps/s of ``MaskablePPO("MlpPolicy", env)`` with every hyperparameter at its default."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from .selfplay import SelfPlayEnv

    game_id = envs.resolve(game)
    cfg = load_config(None, {"progress": False}, game=game_id)
    if threads is not None:
        torch.set_num_threads(threads)
    torch.manual_seed(cfg.seed)
    venv = DummyVecEnv([lambda: SelfPlayEnv(game_id, cfg.env_options, cfg.opponent_mix, seed=cfg.seed,
                                            max_steps=cfg.max_steps)])
    try:
        model = MaskablePPO("MlpPolicy", venv, device="cpu")
        return _timed_learn(model, timesteps)
    finally:
        venv.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tabletop_arena.train.throughput", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", nargs="?", default="peacekeepers", help="game id or name (default peacekeepers)")
    p.add_argument("--timesteps", type=int, default=8192, help="learner steps timed per setup")
    p.add_argument("--compare-vec", action="store_true",
                   help="also time DummyVecEnv / SubprocVecEnv with 1 and 2 torch threads")
    args = p.parse_args(argv)
    default_threads = torch.get_num_threads()
    rows = []
    if args.compare_vec:
        for vec in ("dummy", "subproc"):
            for threads in (1, 2):
                sps = measure_config(args.game, {"vec_env": vec, "torch_threads": threads}, args.timesteps)
                rows.append((f"config, vec_env={vec}, torch_threads={threads}", sps))
                print(f"{rows[-1][0]:55s} {sps:8.1f} steps/s", flush=True)
    sps = measure_config(args.game, None, args.timesteps)
    rows.append(("default training config", sps))
    print(f"{rows[-1][0]:55s} {sps:8.1f} steps/s", flush=True)
    sps0 = measure_sb3_default(args.game, args.timesteps, threads=default_threads)
    rows.append((f"MaskablePPO sb3-contrib defaults, 1 env, {default_threads} torch threads", sps0))
    print(f"{rows[-1][0]:55s} {sps0:8.1f} steps/s", flush=True)
    sps1 = measure_sb3_default(args.game, args.timesteps, threads=1)
    rows.append(("MaskablePPO sb3-contrib defaults, 1 env, 1 torch thread", sps1))
    print(f"{rows[-1][0]:55s} {sps1:8.1f} steps/s", flush=True)
    print(f"speed-up of the default config: {sps / sps0:.2f}x ({sps / sps1:.2f}x against 1 thread)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
