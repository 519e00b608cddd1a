"""``arena train`` and ``arena eval``: sub-commands added to the ``arena`` parser by ``register``.

    arena train peacekeepers --timesteps 300000 --out runs/pk
    arena train peacekeepers --out runs/pk --resume --timesteps 600000
    arena eval peacekeepers --agents ppo:runs/pk/final.zip heuristic random --games 500

Heavy imports (torch, SB3) happen inside the handlers, so ``arena list`` stays fast.
"""
from __future__ import annotations

import argparse
import json
import sys

TRAIN_EPILOG = """\
examples:
  arena train peacekeepers --timesteps 300000 --out runs/pk
  arena train peacekeepers --out runs/pk --resume --timesteps 600000   # continue to 600k steps
  arena train peacekeepers --set n_envs=4 --set opponent_mix='{random: 1}'
  arena train peacekeepers --backend rllib --num-env-runners 2 --out runs/pk_rllib
  arena train peacekeepers --backend rllib --address auto --num-env-runners 32 --num-learners 2 --device cuda

Without --config the game's configs/train/<game>.yaml is used, else configs/train/default.yaml.
Every config key is documented in train/config.py. The run folder gets config.yaml, checkpoint.zip
(latest, resumable), final.zip, policy.zip (small, for ppo:PATH), snapshots/, progress.csv,
tb/ (tensorboard --logdir <out>/tb) and eval/.
"""

EVAL_EPILOG = """\
agents: random | heuristic | mcts[:N] | ppo:NAME (a shipped agent, e.g. ppo:peacekeepers) | ppo:PATH
examples:
  arena eval peacekeepers --agents ppo:runs/pk/policy.zip heuristic --games 1000
  arena eval peacekeepers --agents mcts:100 random --games 20 --options num_players=4
  arena eval peacekeepers --agents heuristic random --options '{"mode": "competitive_no_points"}'

Every group of agents that meets plays every seat arrangement equally often from the same seeded
start and random opening; --games is the number of games per group (rounded up to whole sets of
arrangements). With more than 2 players a win is finishing first alone; a shared first place is a
draw. Writes report.json, report.md and report.png into --out and prints a table.
"""


def parse_env_options(items: list[str] | None) -> dict:
    """``--options`` values: JSON objects and/or ``key=value`` pairs (values parsed as JSON if they can be)."""
    out: dict = {}
    for item in items or []:
        item = item.strip()
        if item.startswith("{"):
            try:
                data = json.loads(item)
            except json.JSONDecodeError as exc:
                raise SystemExit(f"--options: invalid JSON {item!r}: {exc}") from None
            if not isinstance(data, dict):
                raise SystemExit(f"--options: expected a JSON object, got {item!r}")
            out.update(data)
            continue
        for pair in item.split(","):
            if not pair:
                continue
            if "=" not in pair:
                raise SystemExit(f"--options expects key=value or a JSON object, got {pair!r}")
            key, value = pair.split("=", 1)
            try:
                out[key.strip()] = json.loads(value)
            except json.JSONDecodeError:
                out[key.strip()] = value
    return out


#: ``arena train`` flags only the rllib backend reads (train/rllib.py keyword arguments)
RLLIB_FLAGS = ("address", "num_env_runners", "num_learners", "gpus_per_learner")


def cmd_train(args) -> int:
    from .. import envs
    from ..agents.ppo import CheckpointError
    from .config import ConfigError, parse_overrides

    try:
        game = envs.resolve(args.game)
        overrides = parse_overrides(args.set)
        if args.options:
            overrides["env_options"] = parse_env_options(args.options)
        if args.no_progress:
            overrides["progress"] = False
        if args.backend == "rllib":
            from .rllib import train_rllib  # raises RLlibMissingError (a ConfigError) without ray
            flags = {k: getattr(args, k) for k in RLLIB_FLAGS}
            path = train_rllib(game, config_path=args.config, timesteps=args.timesteps, seed=args.seed,
                               out=args.out, resume=args.resume, device=args.device, **flags, **overrides)
        else:
            given = [f"--{k.replace('_', '-')}" for k in RLLIB_FLAGS if getattr(args, k) is not None]
            if given:
                raise ConfigError(f"{', '.join(given)} need --backend rllib")
            from .ppo import train
            if args.device is not None:
                overrides["device"] = args.device
            path = train(game, config_path=args.config, timesteps=args.timesteps, seed=args.seed,
                         out=args.out, resume=args.resume, **overrides)
    except (ConfigError, CheckpointError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"arena train: error: {msg}", file=sys.stderr)
        return 2
    print(f"final checkpoint: {path}")
    return 0


def cmd_eval(args) -> int:
    from .. import envs
    from .evaluate import evaluate

    try:
        game = envs.resolve(args.game)
        out = args.out or f"runs/eval/{game}"
        report = evaluate(game, args.agents, options=parse_env_options(args.options), games=args.games,
                          workers=args.workers, seed=args.seed, opening_moves=args.opening_moves,
                          max_steps=args.max_steps, progress=not args.no_progress, out=out)
    except (ValueError, KeyError) as exc:  # bad agent spec, checkpoint, option or game name
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"arena eval: error: {msg}", file=sys.stderr)
        return 2
    print(report.table())
    print(f"report: {out}/report.md, report.json, report.png")
    return 0


def register(subparsers) -> None:
    """Add ``train`` and ``eval`` to an ``argparse`` sub-parser set (``arena`` calls this)."""
    p = subparsers.add_parser(
        "train", help="self-play MaskablePPO training for a registered game",
        description="Train a MaskablePPO policy by self-play against a pool (random, rule-based, "
                    "frozen snapshots of itself), with periodic checkpoints and evaluations.",
        epilog=TRAIN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", help="game id or name, e.g. peacekeepers or peacekeepers_v0")
    p.add_argument("--config", help="training config YAML (default: configs/train/<game>.yaml or default.yaml)")
    p.add_argument("--timesteps", type=int, help="total learner steps of the run (a resumed run trains up to it)")
    p.add_argument("--seed", type=int, help="seed (default: the config's)")
    p.add_argument("--out", help="run folder (default runs/<game>/ppo_seed<seed>)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint.zip")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="override one config key, repeatable (e.g. --set n_envs=4)")
    p.add_argument("--options", action="append", metavar="JSON|KEY=VALUE",
                   help="env options (replace the config's env_options), e.g. num_players=4")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--backend", choices=("sb3", "rllib"), default="sb3",
                   help="sb3: MaskablePPO in this process (default); rllib: Ray RLlib PPO, local Ray "
                        "or a cluster (needs the [rllib] extra; docs/rllib.md)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"),
                   help="where the learner runs (rllib: auto = a GPU learner when there is a GPU)")
    p.add_argument("--address", help="rllib: Ray cluster to join: auto, host:6379 or ray://host:10001 "
                                     "(default: start a local Ray)")
    p.add_argument("--num-env-runners", type=int, help="rllib: remote sampling actors (default 0: sample in-process)")
    p.add_argument("--num-learners", type=int, help="rllib: remote learner actors (default 0: learn in-process)")
    p.add_argument("--gpus-per-learner", type=float, help="rllib: GPUs per learner (default: 1 with a GPU device)")
    p.set_defaults(func=cmd_train)

    p = subparsers.add_parser(
        "eval", help="seat-balanced evaluation of agents with statistics",
        description="Play agents against each other in every seat arrangement and report W/D/L, "
                    "Wilson intervals, head-to-head, sign tests and Bradley-Terry / Plackett-Luce ratings.",
        epilog=EVAL_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", help="game id or name, e.g. peacekeepers")
    p.add_argument("--agents", nargs="+", required=True, metavar="AGENT",
                   help="agent specs: random, heuristic, mcts[:N], ppo:NAME (shipped), ppo:PATH")
    p.add_argument("--games", type=int, default=100, help="games per group of agents (default 100)")
    p.add_argument("--workers", type=int, default=2, help="parallel worker processes (default 2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the whole evaluation (default 0)")
    p.add_argument("--out", help="report folder (default runs/eval/<game>)")
    p.add_argument("--opening-moves", type=int, default=2,
                   help="random legal moves opening each game, shared by its seat arrangements (default 2)")
    p.add_argument("--max-steps", type=int, default=1000, help="move cap; longer games are truncated (default 1000)")
    p.add_argument("--options", action="append", metavar="JSON|KEY=VALUE",
                   help="env options, e.g. '{\"mode\": \"competitive\"}' or num_players=4 (repeatable)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_eval)
