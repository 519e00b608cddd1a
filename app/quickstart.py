"""``arena quickstart``: the first command a newcomer runs, a few CPU-minutes of the main job.

    arena quickstart                       # Peacekeepers, 2-player competitive
    arena quickstart --timesteps 250000    # a longer run: a stronger agent (11 CPU-minutes on the quiet machine, 2026-11-26)
    arena quickstart zaka

It trains with the game's own training config cut to a short run (``QUICKSTART_RUNS``), then
plays the agent against the rule-based agent (``--games``, default 400) and random (a quarter as
many), and ends with the verdict in one line, the cost in CPU-minutes, the tables and what a
longer run gives. Each run gets a fresh folder (``runs/quickstart``, then ``runs/quickstart-2``,
...); a folder that an interrupted quickstart left before its first checkpoint is reused.

Where the time goes (Peacekeepers, measured by CPU time on the shared 2-core machine at load 9,
where a CPU-second is about 2x a quiet one): a heuristic game to clone 0.24 s, a game of the
trained agent against the heuristic 0.20 s, against random 0.08 s, a PPO step ~10 ms. The old
default (250k PPO steps and 1200 evaluation games, the heuristic against random included) spent
most of its time in PPO; this one runs 30k steps, evaluates 400 + 100 games and skips the
heuristic-against-random pairing.
"""
from __future__ import annotations

import json
import resource
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..agents.registry import has_heuristic
from ..train.config import CONFIG_DIR, ConfigError, config_for_game, load_config
from ..train.curves import read_curve
from ..train.evaluate import evaluate, field_against
from .cli_common import (
    CLIError,
    HelpFormatter,
    add_env_options,
    check_out_folder,
    command,
    env_options,
    int_at_least,
    int_between,
    make_game,
    resolve_game,
)
from .commands import MAX_GAMES, MAX_WORKERS, _blame, check_set_overrides, fold_set_into_flags

if TYPE_CHECKING:
    from ..train.config import TrainConfig

__all__ = ["register", "cmd_quickstart", "fresh_run_folder", "interrupted_start", "QUICKSTART_RUNS",
           "QUICKSTART_DEFAULT_TIMESTEPS", "cpu_seconds"]

#: what ``arena quickstart`` changes in the game's training config, per game. Peacekeepers keeps
#: its config's warm start (300 cloned heuristic games) and evaluation size (``scale_with_run``
#: false) and runs 30k PPO steps instead of 1M; the other games run 30k steps with their config's
#: warm start and evaluations scaled to that length (train/config.py ``scale_to_run``).
QUICKSTART_RUNS: dict[str, dict] = {"peacekeepers_v0": {"total_timesteps": 30_000, "scale_with_run": False}}
QUICKSTART_DEFAULT_TIMESTEPS = 30_000
#: quickstart trains PPO: the config it reads for a game whose default config is another
#: algorithm's (configs/train/gorgasali.yaml is a value lookahead), under configs/train/
QUICKSTART_CONFIGS = {"gorgasali_v0": "gorgasali_ppo.yaml"}
DEFAULT_GAMES = 400

#: what a longer run gives, per game: (command, what it gave, where it was measured)
LONGER = {"peacekeepers_v0": ("arena quickstart --timesteps 250000 (11 CPU-minutes on the quiet machine, 2026-11-26) won 57-64% of 400 "
                              "fresh games against the heuristic in four runs; arena train peacekeepers "
                              "(its full config) trained ppo:peacekeepers, which won 57.2% of 400 fresh games")}

#: what a run writes before its first checkpoint (config.yaml, the lock, the cloning log):
#: a folder holding nothing else is the start of a run that was stopped
START_FILES = frozenset({"config.yaml", ".lock", "imitation.csv", "progress.csv", "tb"})


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the evaluation's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def interrupted_start(folder: Path) -> bool:
    """``folder`` holds only what a run writes before its first checkpoint (a quickstart stopped
    during its warm start) and no live run holds its lock: nothing in it can be resumed."""
    if not folder.is_dir():
        return False
    names = {p.name for p in folder.iterdir()}
    if not names or not names <= START_FILES:
        return False
    from ..train.run_control import RunFolderBusy, RunLock
    try:
        with RunLock(folder):
            pass
    except RunFolderBusy:   # a quickstart running now, in another terminal
        return False
    return True


def fresh_run_folder(base: Path) -> Path:
    """``base`` if it holds no run yet, else the first of ``base-2``, ``base-3`` ... that does not.
    A folder left by a run stopped before its first checkpoint (``interrupted_start``) counts as
    free: the quickstart clears and reuses it instead of stepping over it."""
    def taken(p: Path) -> bool:
        return p.exists() and any(p.iterdir()) and not interrupted_start(p)
    if not taken(base):
        return base
    k = 2
    while taken(base.with_name(f"{base.name}-{k}")):
        k += 1
    return base.with_name(f"{base.name}-{k}")


def _clear_start(folder: Path) -> None:
    """Remove what an interrupted start left (only ``START_FILES``: nothing else is touched)."""
    for p in folder.iterdir():
        if p.name not in START_FILES:
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()


def _run_folder(args, game: str) -> Path:
    if args.out is not None:
        out = check_out_folder(args.out)
        if interrupted_start(out):
            print(f"{out} holds a quickstart stopped before its first checkpoint (nothing to resume): "
                  f"it is cleared and reused", flush=True)
            _clear_start(out)
        elif out.exists() and any(out.iterdir()):
            raise CLIError(f"{out} already holds files",
                           hint=f"leave out --out for a fresh runs/quickstart-N, or continue it: arena train "
                                f"{game.split('_v')[0]} --out DIR --resume --timesteps N")
        return out
    base = Path("runs/quickstart")
    check_out_folder(base)
    out = fresh_run_folder(base)
    if out.exists() and any(out.iterdir()):
        print(f"{out} holds a quickstart stopped before its first checkpoint (nothing to resume): "
              f"it is cleared and reused", flush=True)
        _clear_start(out)
    elif out != base:
        print(f"{base} already holds a run; this one goes to {out} (--out DIR picks the folder)", flush=True)
    return out


def quickstart_config(game: str, options: dict) -> Path:
    """The PPO config quickstart reads: ``QUICKSTART_CONFIGS``, else the game's default."""
    return CONFIG_DIR / QUICKSTART_CONFIGS[game] if game in QUICKSTART_CONFIGS else config_for_game(game, options)


def _plan(game: str, options: dict, overrides: dict) -> tuple[str, "TrainConfig"]:
    """The words of what the run will do, and its config (``train.config.load_config``)."""
    cfg = load_config(quickstart_config(game, options), overrides, game=game)
    warm = ""
    if cfg.bc_games:
        warm = f"cloning {cfg.bc_games} heuristic games"
        if cfg.dagger_rounds:
            warm += f" and {cfg.dagger_rounds} DAgger round(s) of {cfg.dagger_games}"
        warm += ", then "
    return (f"{warm}{cfg.total_timesteps:,} PPO steps (configs/train/{quickstart_config(game, options).name}, "
            f"cut to a short run)"), cfg


def _curve_words(out: Path) -> str:
    """The learning curve's first and last win rates against the heuristic, in words."""
    rows = [r for r in read_curve(out / "curve.csv") if isinstance(r.get("heuristic_win_rate"), float)]
    if not rows:
        return ""
    first, last = rows[0], rows[-1]
    text = f"vs the heuristic {100 * first['heuristic_win_rate']:.0f}% at {first['timesteps']:,} steps"
    if first["timesteps"] == 0:
        text = f"vs the heuristic {100 * first['heuristic_win_rate']:.0f}% after cloning"
    if len(rows) > 1:
        text += f" -> {100 * last['heuristic_win_rate']:.0f}% at {last['timesteps']:,} steps"
    return f"{text} ({last['games']} games a point: a rough check, another sample than the table's)"


def verdict(heuristic_pair: dict | None, random_pair: dict | None, players: int = 2) -> str:
    """The one line at the top of the final output (at more than 2 players the agent's results
    against a copy of the opponent in every other seat)."""
    def rate(p: dict) -> str:
        lo, hi = p["win_rate_ci95"]
        return f"{100 * p['win_rate']:.1f}% [{100 * lo:.1f}-{100 * hi:.1f}] of {p['games']} games"

    def against(opp: str) -> str:
        return f"the {opp}" if players == 2 else f"{players - 1} {opp}{'s' if opp == 'heuristic' else ''}"
    parts = []
    if heuristic_pair is not None:
        parts.append(f"Your agent won {rate(heuristic_pair)} against {against('heuristic')}")
    if random_pair is not None:
        parts.append(("and " if parts else "Your agent won ") + f"{rate(random_pair)} against "
                     + ("random" if players == 2 else f"{players - 1} random players"))
    return " ".join(parts) + " (win = first place alone; [95% interval])."


@command
def cmd_quickstart(args) -> int:
    """The main job on a small default: a short PPO run, then its agent against the baselines."""
    t0, cpu0 = time.time(), cpu_seconds()
    game = resolve_game(args.game)
    options = env_options(args)
    players = make_game(game, options).num_agents   # a bad option: one line before anything runs

    overrides = check_set_overrides(args.set)
    fold_set_into_flags(args, overrides)
    seed = 0 if args.seed is None else args.seed
    run = dict(QUICKSTART_RUNS.get(game, {"total_timesteps": QUICKSTART_DEFAULT_TIMESTEPS}))
    steps = args.timesteps if args.timesteps is not None else run.pop("total_timesteps")
    run.pop("total_timesteps", None)
    opponents = (["heuristic"] if has_heuristic(game) else []) + ["random"]
    # the learning curve: the clone (step 0) and the end, against the heuristic
    quick = {**run, "checkpoint_interval": steps, "eval_opponents": opponents[:1]}
    overrides = {**quick, **overrides, "total_timesteps": steps, "seed": seed}
    if options:
        overrides["env_options"] = options
    if args.no_progress:
        overrides["progress"] = False
    try:
        plan, cfg = _plan(game, options, overrides)
    except ConfigError as exc:
        raise _blame(exc, overrides) from None
    if "eval_interval" not in overrides:   # past the run's last rollout: no point in between
        rollout = cfg.n_envs * cfg.n_steps
        overrides["eval_interval"] = -(-steps // rollout) * rollout + 1
    out = _run_folder(args, game)
    from ..train.ppo import train

    print(f"[1/2] training {game}: {plan} -> {out}", flush=True)
    train_overrides = {k: v for k, v in overrides.items() if k not in ("total_timesteps", "seed")}
    try:
        final = train(game, config_path=quickstart_config(game, options), timesteps=steps, seed=seed, out=out,
                      **train_overrides)
    except ConfigError as exc:
        raise _blame(exc, overrides) from None
    label = f"ppo ({final})"
    sizes = {"heuristic": args.games, "random": max(20, args.games // 4)}
    print(f"[2/2] evaluating {label}: " + ", ".join(f"{sizes[o]} games against {o}" for o in opponents), flush=True)
    reports = {}
    for opp in opponents:
        entrants, names = field_against(f"ppo:{final}", opp, players)   # the agent in one seat
        reports[opp] = evaluate(game, entrants, names=[label, *names[1:]], options=options or None,
                                games=sizes[opp], workers=args.workers if opp == "heuristic" else 1, seed=seed,
                                progress=not args.no_progress, out=out / "eval" / f"vs_{opp}")
    # 2 players: the pairing; more: the agent against the whole table (first place alone)
    pairs = {opp: rep.pair(label, opp) if players == 2 else rep.agent(label) for opp, rep in reports.items()}
    cpu, wall = cpu_seconds() - cpu0, time.time() - t0
    meta = _final_meta(final)
    print()
    print(verdict(pairs.get("heuristic"), pairs.get("random"), players))
    print(f"It cost {cpu / 60:.1f} CPU-minutes ({wall / 60:.1f} minutes wall): training "
          f"{meta.get('cpu_seconds', 0) / 60:.1f}, the {sum(sizes[o] for o in opponents)} evaluation games "
          f"the rest (this process and its workers; `arena quickstart --help` says what a run does).")
    curve = _curve_words(out)
    if curve:
        print(f"Learning curve ({out / 'curve.png'}): {curve}.")
    print()
    print(f"{'against':10s} {'W-D-L':>11s} {'win%':>6s} {'95% CI':>14s} {'games':>6s}   (every seat equally often)")
    for opp, p in pairs.items():
        lo, hi = p["win_rate_ci95"]
        wdl = f"{p['wins']}-{p['draws']}-{p['losses']}"
        print(f"{opp:10s} {wdl:>11s} {100 * p['win_rate']:6.1f} [{100 * lo:5.1f}, {100 * hi:5.1f}] {p['games']:6d}")
    print()
    longer = LONGER.get(game, f"arena train {game.split('_v')[0]} runs the game's full config")
    print(f"A longer run plays better: {longer}.")
    print(f"reports: {out / 'eval'}/vs_*/report.md (and .json, .png); checkpoint: {final}")
    print(f"play it: arena play {game.split('_v')[0]} --opponents ppo:{final}   "
          f"or in the browser: arena serve {game.split('_v')[0]} --agent mine={final} --opponents ppo:mine")
    return 0


def _final_meta(path: Path) -> dict:
    from ..agents.checkpoint import read_metadata
    try:
        return dict(read_metadata(path))
    except (OSError, ValueError, json.JSONDecodeError):
        return {}


def register(sub) -> None:
    """Add ``quickstart`` to the ``arena`` sub-commands."""
    s = sub.add_parser(
        "quickstart", help="a short PPO run and its agent against the baselines (a few CPU-minutes)",
        description="The main job on a small default, a few CPU-minutes: the game's training config cut "
                    "to a short run (Peacekeepers, 2-player competitive: cloning 300 heuristic games, then "
                    "30,000 PPO steps), then the agent against the "
                    "rule-based agent (--games) and random (a quarter as many). It ends with the verdict in "
                    "one line, the cost in CPU-minutes, the tables and what a longer run gives. The agent of "
                    "the default run plays below the heuristic (--seed 0: 34.2% of 400 games, 91% against "
                    "random; the whole command 6.6 CPU-minutes and 8 minutes wall at load 3 on 2 cores, 11.4 and 54 "
                    "with eight other CPU-bound processes); --timesteps 250000 "
                    "(11 CPU-minutes on the quiet machine, 2026-11-26) won 57-64% against the heuristic, and arena train peacekeepers "
                    "is the full run. Each run gets a fresh folder: runs/quickstart, then runs/quickstart-2, "
                    "...; a folder left by a quickstart stopped before its first checkpoint is cleared and "
                    "reused.", formatter_class=HelpFormatter)
    s.add_argument("game", nargs="?", default="peacekeepers", help="game id or name")
    s.add_argument("--timesteps", type=int_at_least(1),
                   help=f"PPO steps (default: {QUICKSTART_DEFAULT_TIMESTEPS:,}; the other games' warm start "
                        "and evaluations scale with it, Peacekeepers keeps its 300 cloned games)")
    s.add_argument("--games", type=int_between(1, MAX_GAMES), default=DEFAULT_GAMES,
                   help="evaluation games against the heuristic (against random a quarter as many, at least 20)")
    s.add_argument("--workers", type=int_between(1, MAX_WORKERS), default=2, help="evaluation worker processes")
    s.add_argument("--seed", type=int_at_least(0), help="seed of training and evaluation (default 0)")
    s.add_argument("--out", help="run folder (default: runs/quickstart, or the next free runs/quickstart-N)")
    s.add_argument("--no-progress", action="store_true", help="no progress bars")
    add_env_options(s)
    s.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="training-config key (train/config.py), repeatable, e.g. --set n_envs=4")
    s.set_defaults(func=cmd_quickstart)
