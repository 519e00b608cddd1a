"""The ``arena`` command line: list games, play in the terminal, benchmark, train and evaluate.

    arena list
    arena play peacekeepers --opponents heuristic --opt mode=competitive --opt num_players=2
    arena bench [--seconds 4] [--rounds 2] [--all-variants] [game ...]
    arena train peacekeepers ...   (see arena train --help)
    arena eval peacekeepers --agents ppo:runs/x/final.zip heuristic random
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from .. import envs


def parse_options(pairs: list[str] | None) -> dict:
    """``key=value`` pairs -> kwargs; values are parsed as JSON when they can be (ints, bools, dicts)."""
    out = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise SystemExit(f"--opt expects key=value, got {pair!r}")
        key, value = pair.split("=", 1)
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def cmd_list(args) -> int:
    print(f"{'id':20s} {'players':28s} description")
    for name in envs.names():
        sp = envs.spec(name)
        print(f"{name:20s} {sp.players:28s} {sp.description}")
        for vname, opts in sp.variants.items():
            print(f"{'':20s}   variant {vname}: {json.dumps(opts)}")
    return 0


def _make_agent(spec: str, game, seed: int):
    from ..agents.registry import make_agent
    return make_agent(spec, game, seed=seed)


def _choose(state, legal: list[int]) -> int:
    """Ask the person for an action: a number from the list, or words to filter it."""
    shown = legal
    while True:
        for i, a in enumerate(shown[:60]):
            print(f"  [{i}] {state.action_to_str(a)}")
        if len(shown) > 60:
            print(f"  ... {len(shown) - 60} more: type words to filter (e.g. 'Giants C4')")
        try:
            text = input("your move> ").strip()
        except EOFError:
            raise SystemExit("\nbye") from None
        if text in ("q", "quit", "exit"):
            raise SystemExit("bye")
        if text.isdigit() and int(text) < min(60, len(shown)):
            return shown[int(text)]
        words = text.lower().split()
        filtered = [a for a in legal if all(w in state.action_to_str(a).lower() for w in words)]
        if len(filtered) == 1:
            return filtered[0]
        if not filtered:
            print("no legal action matches; showing all")
            shown = legal
        else:
            shown = filtered


def cmd_play(args) -> int:
    name = envs.resolve(args.game)
    options = parse_options(args.opt)
    env = envs.make(name, render_mode="ansi", **options)
    game = env.unwrapped.game
    env.reset(seed=args.seed)
    human = args.seat
    if not 0 <= human < game.num_agents:
        raise SystemExit(f"--seat must be 0..{game.num_agents - 1}")
    opponents = args.opponents or ["heuristic"]
    bots = {}
    k = 0
    for i in range(game.num_agents):
        if i != human:
            bots[f"player_{i}"] = _make_agent(opponents[k % len(opponents)], game, args.seed + i)
            k += 1
    me = f"player_{human}"
    from ..envs.core.terminal import supports_color
    color = not args.no_color and supports_color()   # never colour codes into a pipe or NO_COLOR
    print(f"You are {me}. Type a number, words to filter the moves, or q to quit.")
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        st = env.unwrapped.state_
        if agent == me:
            print(st.render_text(observer=st.current_player, color=color))
            action = _choose(st, np.flatnonzero(obs["action_mask"]).tolist())
        else:
            bot = bots[agent]
            state = st.determinize(st.current_player, bot.rng) if getattr(bot, "needs_state", False) else None
            action = bot.act(obs, state=state)
            print(f"{agent}: {st.action_to_str(action)}")
        env.step(action)
    st = env.unwrapped.state_
    print(st.render_text(color=color))
    final = st.final_info() if hasattr(st, "final_info") else {}
    print("final:", {a: env.rewards.get(a, 0.0) for a in env.possible_agents}, final)
    return 0


def cmd_bench(args) -> int:
    from .bench import format_table, run
    results = run(args.games or None, seconds=args.seconds, all_variants=args.all_variants,
                  rounds=args.rounds)
    print(format_table(results))
    from ..envs.core.accel import backend
    print(f"engine hot spots: {backend()}")
    return 0


def cmd_quickstart(args) -> int:
    """The main job on a small default: a short PPO run, then an evaluation against the baselines."""
    from pathlib import Path

    from .evaluate import evaluate
    from .ppo import train

    game = envs.resolve(args.game)
    out = Path(args.out)
    print(f"[1/2] training {game} for {args.timesteps} steps -> {out}")
    final = train(game, timesteps=args.timesteps, seed=args.seed, out=out,
                  checkpoint_interval=args.timesteps, eval_interval=0)
    print(f"[2/2] evaluating ppo:{final} against heuristic and random ({args.games} games a pairing)")
    report = evaluate(game, [f"ppo:{final}", "heuristic", "random"], games=args.games,
                      workers=args.workers, seed=args.seed, out=out / "eval")
    print(report.table())
    print(f"report: {out / 'eval'}/report.md (and .json, .png); checkpoint: {final}")
    return 0


def _positive(convert, what: str):
    """An argparse type: ``convert(text)``, which must be above zero."""
    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not value > 0:
            raise argparse.ArgumentTypeError(f"expected a positive {what}, got {text!r}")
        return value
    return parse


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arena", description="Tabletop Arena: RL environments from "
                                "tabletop rulebooks (PettingZoo AEC).")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("list", help="registered games and their variants")
    s.set_defaults(func=cmd_list)
    s = sub.add_parser("play", help="play a game in the terminal against agents",
                       description="Play against agents. Legal moves are listed; type the number "
                       "or a few words that pick one out (e.g. 'Giants E5').")
    s.add_argument("game", help="game id or name, e.g. peacekeepers")
    s.add_argument("--seat", type=int, default=0, help="your player index (default 0)")
    s.add_argument("--opponents", nargs="*", help="agent specs for the others (default heuristic)")
    s.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="env option, repeatable, e.g. --opt mode=solo --opt hand_size=3")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--no-color", action="store_true", help="plain text board (colours are on only on a terminal without NO_COLOR)")
    s.set_defaults(func=cmd_play)
    s = sub.add_parser("bench", help="steps/s of each env vs PettingZoo connect_four_v3")
    s.add_argument("games", nargs="*", help="games to measure (default: all)")
    s.add_argument("--seconds", type=_positive(float, "number"), default=4.0,
                   help="seconds of play per env")
    s.add_argument("--all-variants", action="store_true", help="measure every registered variant")
    s.add_argument("--rounds", type=_positive(int, "integer"), default=2,
                   help="rounds, each measuring connect_four_v3 then every env for seconds/rounds "
                        "(the table shows the lowest and highest per-round ratio)")
    s.set_defaults(func=cmd_bench)
    s = sub.add_parser("quickstart", help="train a short PPO run and evaluate it against the baselines",
                       description="The main job on a small default: MaskablePPO self-play on a game "
                       "(default Peacekeepers, 2-player competitive) for a few minutes on CPU, then a "
                       "seat-balanced evaluation against the rule-based and random agents.")
    s.add_argument("game", nargs="?", default="peacekeepers")
    s.add_argument("--timesteps", type=int, default=30_000, help="learner steps (default 30000)")
    s.add_argument("--games", type=int, default=100, help="evaluation games per pairing")
    s.add_argument("--workers", type=int, default=2)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", default="runs/quickstart", help="run folder")
    s.set_defaults(func=cmd_quickstart)
    from . import commands
    commands.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
