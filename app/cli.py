"""The ``arena`` command line: list games, play in the terminal or the browser, benchmark, train
and evaluate.

    arena list
    arena play peacekeepers --opponents heuristic --opt mode=competitive --opt num_players=2
    arena serve                      # http://127.0.0.1:8000: play any game against any agent
    arena bench [--seconds 4] [--rounds 2] [--all-variants] [game ...]
    arena train peacekeepers ...     (see arena train --help)
    arena eval peacekeepers --agents ppo:runs/x/final.zip heuristic random
    arena quickstart

Env options are ``--opt KEY=VALUE`` everywhere (``app/cli_common.py``); ``--set`` is only for
training-config keys. A mistake on the command line prints one line with a hint and exits with 2.
"""
from __future__ import annotations

import json
import sys

from .. import envs
from ..agents.registry import AGENT_KINDS, SEARCH_COST, checkpoint_ref, specs_help
from ..agents.shipped import shipped_agents
from ..envs.core.accel import backend
from ..envs.core.terminal import supports_color
from ..train.stops import as_stopped, stop_raises
from . import commands, games_cli, ladder_cli, quickstart
from .bench import ReferenceUnavailable, format_table, run
from .cli_common import (
    ArenaParser,
    CLIError,
    add_env_options,
    add_trust_checkpoint,
    command,
    env_options,
    int_at_least,
    int_between,
    make_agent,
    make_game,
    number_between,
    parse_env_options,
    resolve_game,
    shipped_agent_label,
)
from .ladder_cli import level_opponents
from .match import LIST_LIMIT, Match, MatchError, pick_move
from .offer import DEFAULT_MAX_BUDGET, AgentAllowList, RequestError, build_agent, command_line_agent

# arena quickstart: app/quickstart.py (these names stay importable from here)
from .quickstart import QUICKSTART_DEFAULT_TIMESTEPS, cmd_quickstart, fresh_run_folder  # noqa: F401
from .serve import serve

__all__ = ["main", "build_parser", "parse_env_options"]

@command
def cmd_list(args) -> int:

    shipped = shipped_agents()
    print(f"{'id':20s} {'players':28s} description")
    for name in envs.names():
        sp = envs.spec(name)
        print(f"{name:20s} {sp.players:28s} {sp.description}")
        for vname, opts in sp.variants.items():
            print(f"{'':20s}   variant {vname}: {json.dumps(opts)}")
        for agent, entry in shipped.items():
            if entry.get("game") == name:
                print(f"{'':20s}   trained agent {shipped_agent_label(agent, entry)}")
    named = " or ".join(f"{k.name}:NAME" for k in AGENT_KINDS.values() if k.checkpoint == k.name)
    print("\nPick a variant's options with --opt, e.g. arena play zaka --opt num_players=3; a trained "
          f"agent plays as the spec listed ({named}), e.g. arena play peacekeepers "
          "--opponents ppo:peacekeepers")
    return 0


# ------------------------------------------------------------------------------------ play ----
class _Quit(Exception):
    """The person typed q (or the input ended)."""


def _choose(state, legal: list[tuple[int, str]]) -> int:
    """Ask the person for an action: a number from the list, or words to filter it
    (``train.play.pick_move``: 'help', out-of-range numbers and whole-word cells answered)."""

    shown = legal
    while True:
        for i, (_, text) in enumerate(shown[:LIST_LIMIT]):
            print(f"  [{i}] {text}")
        if len(shown) > LIST_LIMIT:
            print(f"  ... {len(shown) - LIST_LIMIT} more: type words to filter (e.g. 'Giants C4')")
        try:
            text = input("your move> ").strip()
        except EOFError:
            raise _Quit from None
        if text in ("q", "quit", "exit"):
            raise _Quit
        pick = pick_move(text, legal, shown)
        if pick.message:
            print(pick.message)
        if pick.action is not None:
            return pick.action
        shown = pick.shown


@command
def cmd_play(args) -> int:

    game_id = resolve_game(args.game)
    options = env_options(args)
    game = make_game(game_id, options)
    opponents = level_opponents(args, game_id, game) or args.opponents or ["heuristic"]
    try:
        match = Match(game_id, options, human=args.seat, opponents=opponents,
                      seed=args.seed, game_obj=game,
                      agent_factory=lambda spec, g, seed=None: make_agent(spec, g, seed, trust=args.trust_checkpoint))
    except MatchError as exc:
        raise CLIError(str(exc), hint="--seat is your player index, from 0") from None
    others = ", ".join(label for i, label in enumerate(match.labels) if i != match.human)
    print(f"{game_id} {json.dumps(game.options())} seed {match.seed}: you are player_{match.human}, "
          f"against {others}.")
    print("Type a move's number, words that pick it out, or q to quit.")
    shown = 0
    color = not args.no_color and supports_color()   # a terminal, NO_COLOR unset (no codes in pipes)
    try:
        while not match.over:
            for move in match.log[shown:]:
                if move.player != match.human:
                    print(f"{move.who}: {move.text}")
            shown = len(match.log)
            st = match.state
            print(st.render_text(observer=match.observer(), color=color))
            match.play(_choose(st, match.legal_moves()))
    except _Quit:
        print(f"bye (game left unfinished after {len(match.state.history)} moves)")
        return 0
    for move in match.log[shown:]:
        if move.player != match.human:
            print(f"{move.who}: {move.text}")
    print(match.state.render_text(observer=None, color=color))
    result = match.result()
    assert result is not None   # the loop above ran to the end of the game
    print(result.text(match.labels))
    return 0


# ----------------------------------------------------------------------------------- bench ----
#: the longest measurement a bench run takes per env, and its most rounds (each round measures
#: every env for seconds / rounds: many rounds of nearly nothing measure only the overhead)
MAX_BENCH_SECONDS, MAX_BENCH_ROUNDS = 3600.0, 100

@command
def cmd_bench(args) -> int:

    games = [resolve_game(g) for g in args.games] if args.games else None
    options = env_options(args)
    if options:
        for g in games or envs.names():
            make_game(g, options)  # a bad option: one line before any measuring
    try:
        results = run(games, seconds=args.seconds, all_variants=args.all_variants, rounds=args.rounds,
                      options=options or None)
    except ReferenceUnavailable as exc:
        print(f"arena bench: note: {exc}", file=sys.stderr)
        results = run(games, seconds=args.seconds, all_variants=args.all_variants, rounds=args.rounds,
                      options=options or None, reference=False)
    print(format_table(results))
    print(f"engine hot spots: {backend()}")
    return 0


# ----------------------------------------------------------------------------------- serve ----
@command
def cmd_serve(args) -> int:

    trust = bool(getattr(args, "trust_checkpoint", False))
    try:
        listed = [command_line_agent(item, trust=trust) for item in args.agent or []]
        allowed = AgentAllowList(args.max_budget or DEFAULT_MAX_BUDGET, listed, trust=trust)
    except ValueError as exc:
        raise CLIError(str(exc), hint="e.g. arena serve zaka --agent mine=runs/x/final.zip --opponents ppo:mine") from None
    refused = "name the file with --agent NAME=PATH, then --opponents ppo:NAME"
    shipped = allowed.checkpoints
    defaults = {}
    if args.game:
        game_id = resolve_game(args.game)
        options = env_options(args)
        game = make_game(game_id, options)
        defaults = {"game": game_id, "options": options}
        if not 0 <= args.seat < game.num_agents:
            raise CLIError(f"--seat must be 0..{game.num_agents - 1} for this variant, got {args.seat}")
        for spec in args.opponents or []:
            try:
                internal = allowed.check(spec, game_id)
            except RequestError as exc:
                ref = checkpoint_ref(spec)   # a spec naming a file of yours is not built here
                if ref is None or ref[1] in shipped:
                    make_agent(spec, game, seed=0)   # its own words (a typo, another game's agent); no file of yours
                if exc.status == 403:
                    raise CLIError(f"--opponents {spec}: the page plays checkpoints by name, not by path",
                                   hint=refused) from None
                raise CLIError(f"--opponents {spec}: {exc}") from None
            build_agent(internal, game, 0, trust=trust and internal != spec)   # loaded once, before serving
    elif args.opt:
        raise CLIError("--opt needs a game", hint="e.g. arena serve zaka --opt num_players=3")
    else:
        for spec in args.opponents or []:   # no game: offered for at least one
            errors = []
            for game_id in envs.names():
                try:
                    allowed.check(spec, game_id)
                    break
                except RequestError as exc:
                    errors.append(exc)
            else:
                if all(exc.status == 403 for exc in errors):
                    raise CLIError(f"--opponents {spec}: the page plays checkpoints by name, not by path",
                                   hint=refused)
                raise CLIError(f"--opponents {spec}: {errors[0]}")
    if args.opponents:
        defaults["opponents"] = list(args.opponents)
    defaults["seat"] = args.seat
    if args.seed is not None:
        defaults["seed"] = args.seed
    return serve(args.host, args.port, defaults=defaults, open_browser=args.open, allowed=allowed)


# ------------------------------------------------------------------------------------ main ----
def _port(text: str) -> int:
    import argparse
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0..65535, got {text!r}")
    return value


def _named(checkpoint: str) -> str:
    """``ppo:NAME, puct:N:NAME, rollout:N:NAME``: the specs that play a ``checkpoint`` file by name."""
    return ", ".join(k.syntax.replace("REF", "NAME") for k in AGENT_KINDS.values() if k.checkpoint == checkpoint)


def build_parser() -> ArenaParser:
    agents_help = f"agent specs: {specs_help()}"   # every kind of agents.registry.AGENT_KINDS
    p = ArenaParser(prog="arena", description="Tabletop Arena: RL environments from tabletop rulebooks "
                    "(PettingZoo AEC), with agents, training, evaluation and a web page to play them.",
                    epilog="Env options are --opt KEY=VALUE in every command; --set KEY=VALUE (train, "
                           "quickstart) sets a training-config key.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    s = sub.add_parser("list", help="registered games and their variants",
                       description="Registered games, their players and the named option sets (variants).")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("play", help="play a game in the terminal against agents",
                       description="Play against agents in the terminal. Legal moves are listed; type "
                       "the number or a few words that pick one out (e.g. 'Giants E5'). The game ends "
                       "with the winner and every player's return and score.")
    s.add_argument("game", help="game id or name, e.g. peacekeepers")
    s.add_argument("--seat", type=int_at_least(0), default=0, help="your player index")
    s.add_argument("--opponents", nargs="+", metavar="AGENT",
                   help=f"agents for the other players, in order, cycled ({agents_help}); default heuristic")
    add_env_options(s)
    s.add_argument("--seed", type=int_at_least(0), default=0, help="seed of the game")
    s.add_argument("--level", type=int_between(1, 5), metavar="N",
                   help="an opponent of difficulty level N (1 Beginner ... 5 Master) instead of --opponents: "
                        "an agent from the game's rating ladder (docs/ladder.md), 'arena ladder GAME --show' lists them")
    s.add_argument("--no-color", action="store_true", help="plain text board (colour is only used on a terminal without NO_COLOR)")
    add_trust_checkpoint(s)
    s.set_defaults(func=cmd_play)

    s = sub.add_parser("serve", help="a local web page to play any game against any agent",
                       description="Serve a web page (standard library HTTP server, no internet, no "
                       "account) where you play any game against any agent: the board drawn, the legal "
                       "moves listed and clickable, the agents' moves and the result shown. The page "
                       "picks game, options and agents; the arguments here only preset them.")
    s.add_argument("game", nargs="?", help="preset game id or name (the page can change it)")
    s.add_argument("--opponents", nargs="+", metavar="AGENT", help=f"preset agents ({agents_help})")
    add_env_options(s)
    s.add_argument("--seat", type=int_at_least(0), default=0, help="preset player index for you")
    s.add_argument("--seed", type=int_at_least(0), help="preset seed (default: a new one each game)")
    s.add_argument("--agent", action="append", metavar="NAME=PATH",
                   help=f"a checkpoint file the page may play, as {_named('ppo')}, or {_named('vlook')} for a "
                        "value.pt; repeatable. The page itself never names a file")
    s.add_argument("--max-budget", type=int_at_least(1), metavar="N",
                   help=f"the most search a move the page may choose, in MCTS simulations (a puct simulation "
                        f"counts {SEARCH_COST['puct']}, a rollout N x k of the network "
                        f"{SEARCH_COST['rollout by policy']} each, a random one {SEARCH_COST['rollout by random']}; "
                        "default 400, about 1.5 s a move on Zaka or Peacekeepers)")
    s.add_argument("--trust-checkpoint", action="store_true",
                   help="also load --agent checkpoints in the old pickled format (SB3 zips): such a file "
                        "runs any code it carries, so only for files whose source you trust")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this "
                   "machine only; 0.0.0.0: anyone who can reach the port can play, there is no login)")
    s.add_argument("--port", type=_port, default=8000, help="port (0: any free one)")
    s.add_argument("--open", action="store_true", help="open the page in the default browser")
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("bench", help="steps/s of each env vs PettingZoo connect_four_v3",
                       description="Steps per second of random legal play through each env's PettingZoo "
                       "API (agent_iter / last / step, with observations), against PettingZoo's "
                       "connect_four_v3 measured with the same loop in the same run. Numbers are "
                       "printed, never asserted. Without pygame (connect_four_v3 needs it) the envs "
                       "are measured without the reference.")
    s.add_argument("games", nargs="*", help="games to measure (default: all)")
    s.add_argument("--seconds", type=number_between(0, MAX_BENCH_SECONDS), default=4.0,
                   help=f"seconds of play per env (at most {MAX_BENCH_SECONDS})")
    s.add_argument("--all-variants", action="store_true", help="measure every registered variant")
    s.add_argument("--rounds", type=int_between(1, MAX_BENCH_ROUNDS), default=2,
                   help="rounds, each measuring connect_four_v3 then every env for seconds/rounds "
                        "(the table shows the lowest and highest per-round ratio)")
    add_env_options(s)
    s.set_defaults(func=cmd_bench)

    quickstart.register(sub)
    commands.register(sub)
    ladder_cli.register(sub)
    games_cli.register(sub)
    return p


#: what a stop (SIGINT / SIGTERM) of a command leaves, where the command does not say more itself
STOP_NOTES = {"eval": "; no report written (no game had finished)",
              "train": "; no checkpoint written by this stop",
              "quickstart": "; no checkpoint written by this stop",
              "bench": "; no table printed"}


def main(argv: list[str] | None = None) -> int:
    """``arena``: returns the exit code (2 for a mistake on the command line, printed as one line)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except CLIError as exc:
        print(exc.line(), file=sys.stderr)
        return 2

    prog = f"arena {args.command}"
    try:
        with stop_raises(prog):   # SIGINT and SIGTERM unwind (worker pools end), then one line here
            return int(args.func(args) or 0)
    except KeyboardInterrupt as exc:
        stop = as_stopped(exc)
        line = f"{prog}: {stop.text() if stop.detail else stop.text() + STOP_NOTES.get(args.command, '')}"
        code = stop.exit_code
        del stop   # the stop's frames go now: a progress bar in them closes before the last line
    except BrokenPipeError:  # the reader stopped reading (arena list | head): not an error
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    print(line, file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
