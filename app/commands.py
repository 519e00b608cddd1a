"""``arena train`` and ``arena eval``: sub-commands added to the ``arena`` parser by ``register``.

    arena train peacekeepers --timesteps 300000 --out runs/pk
    arena train peacekeepers --out runs/pk --resume --timesteps 600000
    arena eval peacekeepers --agents ppo:runs/pk/final.zip heuristic random --games 500

Heavy imports (torch, SB3) happen inside the handlers, so ``arena list`` stays fast. Env options are
``--opt KEY=VALUE``; ``--set KEY=VALUE`` sets a training-config key. Mistakes raise ``CLIError``: one
line with a hint, exit code 2.
"""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from ..agents.registry import AgentSpecError, specs_epilog
from ..agents.shipped import ShippedAgentError, resolve_checkpoint
from ..envs.core.game import default_max_steps
from ..train.config import (
    RLLIB_KEYS,
    ConfigError,
    check_overrides,
    config_for_game,
    parse_overrides,
    read_config_file,
    short_path,
)
from ..train.eval_journal import JOURNAL, JournalError
from ..train.evaluate import baseline_comparison, baseline_text, evaluate
from ..train.trainers import OPTIONAL_FLAGS, SECTIONS, TRAINERS, Trainer, choose, run_algorithm, trainer
from .cli_common import (
    CLIError,
    HelpFormatter,
    add_env_options,
    add_trust_checkpoint,
    agent_error,
    check_checkpoint_exists,
    check_out_folder,
    command,
    env_options,
    int_at_least,
    int_between,
    make_agent,
    make_game,
    missing_extra,
    parse_env_options,
    resolve_game,
)
from .record import RecordingError, record_report

__all__ = ["register", "parse_env_options", "check_set_overrides", "cmd_train", "cmd_eval",
           "cmd_convert_checkpoint"]

TRAIN_EPILOG = """\
examples:
  arena train peacekeepers --timesteps 300000 --out runs/pk
  arena train peacekeepers --out runs/pk --resume --timesteps 600000   # continue to 600k steps
  arena train peacekeepers --set n_envs=4 --set opponent_mix='{random: 1}'
  arena train zaka --opt num_players=3
  arena train peacekeepers --set algorithm=rllib_ppo --set rllib.num_env_runners=2 --out runs/pk_rllib
  arena train peacekeepers --set algorithm=rllib_ppo --set rllib.address=auto --device cuda \
      --set 'rllib={num_env_runners: 32, num_learners: 2}'
  arena train gorgasali --config configs/train/gorgasali_ppo.yaml   # PPO for the game whose default is not

The trainer is the config's "algorithm:" key (train/trainers.py), or --set algorithm=NAME:
  ppo              self-play MaskablePPO (sb3-contrib) in this process; the default without the key
  rllib_ppo        the same PPO config on Ray RLlib, a local Ray or a cluster (the [rllib] extra;
                   docs/rllib.md); only it reads the config's rllib section (address, num_env_runners,
                   num_learners, gpus_per_learner, ...: --set rllib.KEY=VALUE)
  value_lookahead  the heuristic's learned-value lookahead (Gorgasali's default config)
  search_distill   expert iteration: PUCT search distilled into the network (configs/train/*_distill.yaml)
--set algorithm= switches a PPO config between ppo and rllib_ppo; a config written for another
algorithm is refused with the config to pass (Gorgasali's PPO recipe is configs/train/gorgasali_ppo.yaml).
--resume keeps the trainer that wrote the run folder; a flag (or --set rllib.KEY) the trainer does
not read is an error.

What a PPO run does: the config's warm start (cloning bc_games heuristic games, then dagger_rounds
of dagger_games), then PPO to total_timesteps, evaluating eval_games per opponent every
eval_interval steps and at the end. A run shorter than its config (--timesteps below the file's
total_timesteps) scales bc_games, dagger_games and eval_games by the same share, keeping at least
20 / 10 / 20 (a key given with --set keeps its value; --set scale_with_run=false keeps them all):
`arena train zaka --timesteps 4000` clones 20 heuristic games, not 2000, and ends in a few
minutes; the first lines of a run say what it scaled.

--opt sets the game's options (the env; each one overrides that key of the config's env_options);
--set sets a training-config key. Without --config the game's configs/train/<game>_<N>p.yaml is used
for --opt num_players=N where it exists, else configs/train/<game>.yaml, else
configs/train/default.yaml. Every config key is
documented in train/config.py. The run folder gets config.yaml, checkpoint.zip (latest,
resumable), final.zip, policy.zip (small, for ppo:PATH), snapshots/, progress.csv,
tb/ (tensorboard --logdir <out>/tb) and eval/. Ctrl-C (SIGINT) or SIGTERM stops within a second:
in PPO it saves checkpoint.zip (an update in progress is dropped: the model from before its
rollout is saved), says so and exits with 130 / 143 (continue with --resume); a checkpoint is
first saved when PPO starts, after the warm start, and a stop before it says that none was
written; a second Ctrl-C aborts without saving. A run folder in use by another run is refused
(exit 2); a resume cuts progress.csv back to the checkpoint.
algorithm rllib_ppo writes policy.zip, algorithm/, snapshots/, progress.csv and eval/ (docs/rllib.md).
algorithm value_lookahead (train/value_lookahead.py) writes value.pt (play it as vlook:PATH or vroll:N:PATH),
curve.csv/png, fit.csv, accept.csv, eval/; --set takes that algorithm's keys (rounds, games_per_round, ...); --timesteps N stops its data
games at N engine actions (max_env_steps) and scales its trials, evaluations and fit to the share
of games played.
"""

EVAL_EPILOG = specs_epilog() + """\
examples:
  arena eval peacekeepers --agents ppo:runs/pk/policy.zip heuristic --games 1000
  arena eval peacekeepers --agents mcts:100 random --games 20 --opt num_players=4
  arena eval peacekeepers --agents heuristic random --opt '{"mode": "competitive_no_points"}'
  arena eval zaka --agents heuristic random --games 10 --record 2    # + 2 games as GIFs

Every group of agents that meets plays every seat arrangement equally often from the same seeded
start and random opening (copies of one agent are interchangeable: X against three heuristics is X
once in each seat of a deal); --games is the number of games per group (rounded up to whole sets of
arrangements). With more than 2 players a win is finishing first alone; a shared first place is a
draw. Writes report.json, report.md and report.png into --out and prints a table; --record N adds
N of the games as animated GIFs (game_01_<agents>.gif ...): each move's picture with the move
written under it. Stopped (Ctrl-C, SIGTERM), it writes the report of the games finished so far
(whole sets of arrangements, so still seat-balanced; marked "stopped early") and says where.
Each agent's decisions are timed (CPU seconds a decision, mean and longest, and a game: process
time where the game was played, so under that machine's load), in the table and the report.
"""


def check_set_overrides(pairs: list[str] | None) -> dict:
    """``--set`` values of a command that trains algorithm ppo (quickstart) -> checked training-config
    overrides; a mistake blames --set."""
    try:
        overrides = check_overrides(parse_overrides(pairs), source="--set")
    except ConfigError as exc:
        raise _set_error(exc) from None
    refuse_other_sections(overrides, TRAINERS["ppo"], "this command trains algorithm ppo")
    return overrides


def refuse_other_sections(overrides: dict, chosen: Trainer, why: str) -> None:
    """``--set SECTION.KEY`` into a config section that only another trainer reads (``--set
    rllib.num_env_runners=2`` for ppo) is a one-line error, not silently ignored (train/trainers.py
    SECTIONS; a config file may keep such a section for when it runs on that trainer)."""
    for section, reader in SECTIONS.items():
        if section in overrides and chosen.name != reader:
            keys = overrides[section]
            named = ", ".join(f"{section}.{k}" for k in keys) if isinstance(keys, dict) and keys else section
            raise CLIError(f"--set {named}: the {section} section is read by algorithm {reader} only ({why})",
                           hint=f"--set algorithm={reader} (docs/rllib.md)")


def _blame(exc, overrides: dict) -> CLIError:
    """A training-config error raised while training starts, naming --set when a --set key (or a
    value out of range there) caused it, else the config file."""
    text = str(exc)
    body = re.sub(r"^\S+?(?:\.ya?ml|\.zip config \+ overrides): ", "", text)   # the file a value came from
    for key in overrides:
        if re.match(rf"{re.escape(key)}\b", body) or f"({key}" in body:
            return CLIError(f"--set {body}", hint="see train/config.py for the allowed values")
    return CLIError(text)


#: training-config keys with a flag of their own: (flag's attribute, config key)
FLAG_KEYS = (("seed", "seed"), ("timesteps", "total_timesteps"), ("device", "device"))


def fold_set_into_flags(args, overrides: dict) -> None:
    """``--set seed=3`` is ``--seed 3`` (likewise ``total_timesteps`` / ``--timesteps`` and
    ``device`` / ``--device``, where the command has that flag): the key moves onto the flag, so it
    reaches training once (it reached it twice: a TypeError). Both given with different values is
    an error, not one of them silently winning; likewise ``--opt`` beside ``--set env_options``."""
    for flag, key in FLAG_KEYS:
        if key not in overrides or not hasattr(args, flag):
            continue
        value = overrides.pop(key)
        given = getattr(args, flag)
        if given is not None and given != value:
            raise CLIError(f"--{flag} {given} and --set {key}={value} disagree", hint="give one of them")
        setattr(args, flag, value)
    if "env_options" in overrides and getattr(args, "opt", None):
        raise CLIError("--opt and --set env_options both set env options", hint="use --opt KEY=VALUE")


@command
def cmd_train(args) -> int:
    """The trainer is the config's ``algorithm`` (train/trainers.py): the file's, ``--set
    algorithm=NAME``, or with ``--resume`` the one that wrote the run folder."""
    game = resolve_game(args.game)
    check_out_folder(args.out if args.out is not None else "runs")
    try:
        overrides = parse_overrides(args.set)
        chosen, data, source = _choose_trainer(args, game, overrides.pop("algorithm", None))
    except ConfigError as exc:
        raise CLIError(str(exc)) from None
    _check_flags(args, chosen, source, overrides)
    return RUNNERS[chosen.name](args, game, chosen, data, source, overrides)


def _choose_trainer(args, game: str, asked) -> tuple[Trainer, dict | None, str]:
    """(trainer, config keys, where they came from): a new run's config file (given or the game's
    default) names it, ``asked`` (--set algorithm) may change PPO's backend; a resumed run keeps
    the trainer of its folder (``asked`` must agree), its keys come from the folder."""
    if asked is not None:
        trainer(asked, "--set")   # an unknown name, before anything is read
    if args.resume:
        if args.out is None:   # the trainer says --resume needs --out
            return TRAINERS[asked or "ppo"], None, "--resume"
        out = Path(args.out)
        found = run_algorithm(out)
        if found is not None and asked is not None and asked != found:
            raise CLIError(f"--set algorithm={asked}: {out} holds an algorithm {found} run, and a resumed run "
                           f"keeps its trainer", hint="leave --set algorithm out, or start a new run with another --out")
        chosen = TRAINERS[found or asked or "ppo"]   # nothing there: the trainer says what is missing
        if not chosen.resumes:
            raise CLIError(f"{out} holds a {chosen.name} run, which cannot be resumed (each round refits "
                           f"on every data game so far, and those are not kept)",
                           hint="start a new run with another --out")
        return chosen, None, str(out)
    path = Path(args.config) if args.config is not None else config_for_game(game, env_options(args))
    data = read_config_file(path)
    return choose(data, str(path), asked), data, str(path)


#: what to do instead of a flag a trainer does not read: (trainer, flag) -> (words, hint)
FLAG_HINTS = {("search_distill", "timesteps"): ("counts iterations, not learner steps",
                                                "--set iterations=N (or time_limit_minutes=M)"),
              ("value_lookahead", "device"): ("not read", "its value network fits on the CPU (torch_threads)")}


def _check_flags(args, chosen: Trainer, source: str, overrides: dict) -> None:
    """A flag the trainer does not read is a one-line error, not silently dropped; so is ``--set``
    into a config section that only another trainer reads (``--set rllib.num_env_runners=2``)."""
    refuse_other_sections(overrides, chosen, f"{short_path(source)} is algorithm {chosen.name}")
    given = [k for k in OPTIONAL_FLAGS if k not in chosen.flags and getattr(args, k, None) not in (None, False)]
    if given:
        words, hint = FLAG_HINTS.get((chosen.name, given[0]), ("not read", None))
        flag = f"--{given[0].replace('_', '-')}"
        if words == "not read":
            raise CLIError(f"{flag}: not read by algorithm {chosen.name} ({short_path(source)})", hint=hint)
        raise CLIError(f"{flag}: algorithm {chosen.name} {words}", hint=hint)


def _checked_set(overrides: dict) -> dict:
    """Parsed --set values of a PPO trainer, checked against train/config.py; a mistake blames --set."""
    try:
        return check_overrides(overrides, source="--set")
    except ConfigError as exc:
        raise _set_error(exc) from None


def _set_error(exc: ConfigError) -> CLIError:
    """A --set value train/config.py refused, with where its keys are listed."""
    text = str(exc)
    if text.startswith("--set rllib"):
        return CLIError(text, hint="docs/rllib.md")   # the message names the section's keys
    return CLIError(text, hint="training-config keys are listed in train/config.py; env options go to --opt")


def _train_ppo(args, game: str, chosen: Trainer, data, source: str, overrides: dict) -> int:
    """algorithm ppo: sb3-contrib MaskablePPO in this process (train/ppo.py)."""
    overrides = _checked_set(overrides)
    fold_set_into_flags(args, overrides)
    _add_env_and_progress(args, game, overrides)
    if args.device is not None:
        overrides["device"] = args.device  # a training-config key of the SB3 path
    try:   # a stop (SIGINT / SIGTERM) ends in arena's main: one line saying what was saved
        path = chosen.function()(game, config_path=args.config, timesteps=args.timesteps, seed=args.seed,
                                 out=args.out, resume=args.resume, trust=args.trust_checkpoint, **overrides)
    except ConfigError as exc:
        raise _blame(exc, overrides) from None
    print(f"final checkpoint: {path}")
    return 0


def _train_rllib(args, game: str, chosen: Trainer, data, source: str, overrides: dict) -> int:
    """algorithm rllib_ppo: the same PPO config on Ray RLlib (train/rllib.py; the [rllib] extra)."""
    overrides = _checked_set(overrides)
    fold_set_into_flags(args, overrides)
    _add_env_and_progress(args, game, overrides)
    from ..train.rllib import RLlibMissingError
    try:   # Ray's settings come as the rllib section of the config and of --set (rllib.KEY=VALUE)
        path = chosen.function()(game, config_path=args.config, timesteps=args.timesteps, seed=args.seed,
                                 out=args.out, resume=args.resume, device=args.device,
                                 trust=args.trust_checkpoint, **overrides)
    except RLlibMissingError as exc:
        raise CLIError(str(exc), hint="docs/rllib.md") from None
    except ConfigError as exc:
        raise _blame(exc, overrides) from None
    print(f"policy: {path}")
    return 0


def _add_env_and_progress(args, game: str, overrides: dict) -> None:
    """--opt (checked by building the game) and --no-progress, as config overrides."""
    options = env_options(args)
    if options:
        make_game(game, options)
        overrides["env_options"] = options
    if args.no_progress:
        overrides["progress"] = False


def _train_value_lookahead(args, game: str, chosen: Trainer, data, source: str, overrides: dict) -> int:
    """algorithm value_lookahead: the heuristic's learned-value lookahead (train/value_lookahead.py)."""
    assert data is not None   # it does not resume: always a new run's config
    if args.seed is not None:
        overrides["seed"] = args.seed
    if args.timesteps is not None:   # env steps of the data games, as the curve counts them
        if overrides.get("max_env_steps", args.timesteps) != args.timesteps:
            raise CLIError(f"--timesteps {args.timesteps} and --set max_env_steps={overrides['max_env_steps']} "
                           f"disagree", hint="give one of them")
        overrides["max_env_steps"] = args.timesteps
    _add_env_and_progress(args, game, overrides)
    try:
        path = chosen.function()(game, data, source, args.out, overrides)
    except ConfigError as exc:
        raise CLIError(str(exc), hint="its keys: train/value_lookahead.py") from None
    print(f"value checkpoint: {path} (play it as vlook:{path}, or with rollouts as vroll:4:{path})")
    return 0


@command
def cmd_eval(args) -> int:

    game = resolve_game(args.game)
    options = env_options(args)
    game_obj = make_game(game, options)
    max_steps = default_max_steps(game_obj) if args.max_steps is None else args.max_steps
    if args.opening_moves >= max_steps:
        raise CLIError(f"--opening-moves {args.opening_moves} must be below the move cap "
                       f"--max-steps {max_steps}", hint="the random opening is part of every game")
    out = args.out or f"runs/eval/{game}"
    check_out_folder(out)
    trust = args.trust_checkpoint
    if args.baseline is not None and len(args.agents) < 2:
        raise CLIError("--baseline replaces the first of two or more agents; got one agent",
                       hint="e.g. --agents ppo:zaka_4p heuristic heuristic heuristic --baseline heuristic")
    for spec in [*args.agents, *([] if args.baseline is None else [args.baseline])]:
        # each spec (and checkpoint) checked before any game is played
        if not spec.startswith("ppo:"):
            make_agent(spec, game_obj, seed=0, trust=trust)
        else:
            _check_checkpoint(spec, game_obj, trust)

    def run(agents: list[str], folder: str, resume: bool):
        # --baseline's second run differs in its first agent only: the seeds do not depend on the agents,
        # and it seats them as the first run did (the baseline where the agent sat, even when it is a
        # copy of the others)
        try:
            return evaluate(game, agents, options=options, games=args.games, workers=args.workers, seed=args.seed,
                            opening_moves=args.opening_moves, max_steps=max_steps, progress=not args.no_progress,
                            out=folder, trust=trust, seat_like=args.agents, resume=resume)
        except JournalError as exc:
            raise CLIError(str(exc), hint="--resume continues the same command in the same --out") from None

    report = run(args.agents, out, args.resume)
    print(report.table())
    try:
        import matplotlib  # noqa: F401
        picture = ", report.png"
    except ModuleNotFoundError:
        picture = " (report.png needs matplotlib: pip install 'tabletop-arena[train]')"
    print(f"report: {out}/report.md, report.json{picture}")
    shown = shlex.quote(str(out))
    print(f"games: arena games {shown} lists them, arena games {shown} N replays game N move by move")
    if args.baseline is not None:
        base_out = f"{out}/baseline"
        # a stop in the first run means the baseline's had not begun: it resumes only if it began
        again = args.resume and Path(base_out, JOURNAL).exists()
        comparison = baseline_comparison(report, run([args.baseline, *args.agents[1:]], base_out, again))
        Path(out, "baseline.json").write_text(json.dumps(comparison, indent=2) + "\n", encoding="utf-8")
        print(f"\nbaseline: {args.baseline} in the first agent's place (report: {base_out}/report.md; "
              f"numbers: {out}/baseline.json)")
        print(baseline_text(comparison))
    if args.record:
        try:
            for path in record_report(report, game_obj, out, args.record, fmt=args.record_format):
                print(f"recorded: {path}")
        except RecordingError as exc:
            raise CLIError(str(exc), hint="--record-format gif needs only Pillow") from None
    return 0


def _check_checkpoint(spec: str, game, trust: bool = False) -> None:
    """A ppo: spec names a readable checkpoint that fits ``game`` (torch is imported: the
    evaluation needs it anyway), refused if pickled (legacy) unless ``trust``."""

    check_checkpoint_exists(spec, game)
    try:
        if not spec[4:]:
            raise AgentSpecError("ppo needs a shipped agent's name or a checkpoint path")
        path = resolve_checkpoint(spec[4:])
        from ..agents.checkpoint import check_compatible, check_trusted, read_metadata
        meta = read_metadata(path)
        check_trusted(meta, path, trust)
        check_compatible(meta, game, path)
    except ImportError as exc:
        words = missing_extra(exc) or f"needs {exc.name or 'a package'}, which is not installed"
        raise CLIError(f"agent {spec!r} {words}") from None
    except (ValueError, ShippedAgentError) as exc:  # AgentSpecError, CheckpointError
        raise agent_error(spec, exc, game) from None


@command
def cmd_convert_checkpoint(args) -> int:
    from pathlib import Path

    from ..agents.checkpoint import convert_checkpoint, is_legacy, read_metadata

    src, dst = Path(args.src), Path(args.dst)   # the same path: converted in place (atomically)
    meta = read_metadata(src)
    try:
        written = convert_checkpoint(src, dst, trust=args.trust_checkpoint)
    except OSError as exc:   # DST in a folder that cannot be written, DST a folder
        raise CLIError(f"cannot write {dst}: {exc.strerror or exc}", hint="DST is the new .zip file") from None
    what = "converted" if is_legacy(meta) else "already in the safe format; copied"
    print(f"{src}: {what} -> {written}")
    return 0


_positive_int = int_at_least(1)
#: the most games per group and worker processes an evaluation takes (more is a typo, not a plan)
MAX_GAMES, MAX_WORKERS = 1_000_000, 256


def register(subparsers) -> None:
    """Add ``train`` and ``eval`` to an ``argparse`` sub-parser set (``arena`` calls this)."""
    p = subparsers.add_parser(
        "train", help="train an agent for a registered game (self-play PPO by default)",
        description="Train an agent with the trainer the config's 'algorithm:' key names (or --set "
                    "algorithm=NAME): by default a MaskablePPO policy by self-play against a pool (random, "
                    "rule-based, frozen snapshots of itself), with periodic checkpoints and evaluations.",
        epilog=TRAIN_EPILOG, formatter_class=HelpFormatter)
    p.add_argument("game", help="game id or name, e.g. peacekeepers or peacekeepers_v0")
    p.add_argument("--config", help="training config YAML (default: configs/train/<game>_<N>p.yaml when --opt "
                   "num_players=N and it exists, else <game>.yaml, else default.yaml; a config may "
                   "start from another with 'extends: FILE')")
    p.add_argument("--timesteps", type=_positive_int,
                   help="total learner steps of the run (a resumed run trains up to it; default: the config's); "
                        "fewer than the config's total also scale its warm start and evaluations (below)")
    p.add_argument("--seed", type=int_at_least(0), help="seed (default: the config's)")
    p.add_argument("--out", help="run folder (default runs/<game>/ppo_seed<seed>)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint.zip")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="training-config key (train/config.py), repeatable, e.g. --set n_envs=4; "
                        f"rllib.KEY=VALUE sets one key of the rllib section, read by rllib_ppo "
                        f"({', '.join(RLLIB_KEYS)})")
    add_env_options(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"),
                   help="where the learner runs (rllib_ppo: auto = a GPU learner when there is a GPU)")
    add_trust_checkpoint(p, help="also load pickled checkpoints (written before the safe format) as "
                         "init_policy, for --resume, as snapshots or opponents, and (required) resume "
                         "algorithm rllib_ppo, whose algorithm/ folder Ray pickles: such a file runs any code "
                         "it carries; only for files whose source you trust")
    p.set_defaults(func=cmd_train)

    p = subparsers.add_parser(
        "eval", help="seat-balanced evaluation of agents with statistics",
        description="Play agents against each other in every seat arrangement and report W/D/L, "
                    "Wilson intervals, head-to-head, sign tests and Bradley-Terry / Plackett-Luce ratings.",
        epilog=EVAL_EPILOG, formatter_class=HelpFormatter)
    p.add_argument("game", help="game id or name, e.g. peacekeepers")
    p.add_argument("--agents", nargs="+", required=True, metavar="AGENT",
                   help="agent specs, e.g. ppo:peacekeepers heuristic (every kind: below)")
    p.add_argument("--games", type=int_between(1, MAX_GAMES), default=100, help="games per group of agents")
    p.add_argument("--workers", type=int_between(1, MAX_WORKERS), default=2, help="parallel worker processes")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the whole evaluation")
    p.add_argument("--out", help="report folder (default runs/eval/<game>); each finished block of games is "
                                 "also appended to OUT/games.jsonl as it ends")
    p.add_argument("--resume", action="store_true",
                   help="continue the evaluation in --out from its games.jsonl (a stopped or killed run): the "
                        "same command (game, options, agents and their checkpoints, --games, --seed, opening, "
                        "move cap; --workers may differ) plays only the games not there yet and reports all")
    p.add_argument("--opening-moves", type=int_at_least(0), default=2,
                   help="random legal moves opening each game, shared by its seat arrangements")
    p.add_argument("--max-steps", type=_positive_int, default=None,
                   help="move cap; longer games are truncated as draws (default: the game's max_game_length(), "
                        "an upper bound on its length from its own caps, so no game is cut short; 1000 where "
                        "the game has none)")
    add_env_options(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--record", type=int_at_least(0), default=0, metavar="N",
                   help="also write N of the games as animated GIFs into --out, one frame per move")
    p.add_argument("--record-format", choices=("gif", "mp4"), default="gif",
                   help="recording format (mp4 needs imageio-ffmpeg)")
    p.add_argument("--baseline", metavar="AGENT",
                   help="also play the same games (seeds, openings, seats, the other agents) with AGENT in "
                        "the first agent's place, and print the first agent's first-place rate over AGENT's "
                        "there, with its interval's lower end over it: e.g. --agents ppo:zaka_4p heuristic "
                        "heuristic heuristic --baseline heuristic reads 'first place against three heuristics "
                        "at least 1.5 times a heuristic's in the same seat'; AGENT's report goes to OUT/baseline")
    add_trust_checkpoint(p)
    p.set_defaults(func=cmd_eval)

    p = subparsers.add_parser(
        "convert-checkpoint", help="rewrite a pickled checkpoint in the safe format",
        description="Rewrite a checkpoint written before the safe format (an SB3 zip whose 'data' "
                    "member is a pickle, tabletop-arena-ppo/1) as a safe one (JSON + tensors, "
                    "tabletop-arena-ppo/2) with the same weights, metadata and, for a full "
                    "checkpoint, optimizer state. Reading the old file unpickles it, which runs any "
                    "code it carries: --trust-checkpoint says that you trust its source.",
        formatter_class=HelpFormatter)
    p.add_argument("src", help="the pickled checkpoint (.zip)")
    p.add_argument("dst", help="where to write the safe checkpoint (.zip; replaced atomically)")
    add_trust_checkpoint(p, help="required: unpickle SRC (it runs any code it carries)")
    p.set_defaults(func=cmd_convert_checkpoint)


def _train_search_distill(args, game_id: str, chosen: Trainer, data, source: str, overrides: dict) -> int:
    """algorithm search_distill: expert iteration (train/search_distill.py); resumes from its folder."""
    for flag in ("seed", "device"):
        value = getattr(args, flag, None)
        if value is None:
            continue
        if flag in overrides and overrides[flag] != value:
            raise CLIError(f"--{flag} {value} and --set {flag}={overrides[flag]} disagree", hint="give one of them")
        overrides[flag] = value
    options = env_options(args)
    if options:
        if "env_options" in overrides:
            raise CLIError("--opt and --set env_options both set env options", hint="use --opt KEY=VALUE")
        make_game(game_id, options)
        overrides["env_options"] = options
    if args.no_progress:
        overrides["progress"] = False
    if args.resume and args.config is not None:
        print(f"arena train: note: --config {args.config} is ignored when resuming (the run's own config is "
              f"used; --set changes single keys)", flush=True)
    path = chosen.function()(game_id, data, source, args.out, overrides, resume=args.resume,
                             trust=getattr(args, "trust_checkpoint", False))
    print(f"best network: {path} (play it as ppo:{path}, or with search as puct:64:{path})")
    return 0


#: how ``arena train`` runs each trainer of train/trainers.py TRAINERS (the flags, --set and --opt
#: turned into the trainer function's arguments)
RUNNERS = {"ppo": _train_ppo, "rllib_ppo": _train_rllib, "value_lookahead": _train_value_lookahead,
           "search_distill": _train_search_distill}
