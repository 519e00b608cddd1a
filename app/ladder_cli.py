"""``arena ladder``: run a game's rating ladder, place an agent on it, show it, write the page.

    arena ladder zaka                        # play (or continue) the 2-player ladder: 200 games a pairing
    arena ladder zaka --players 3 --workers 2
    arena ladder zaka --add ppo:runs/x/final.zip      # place an agent: games against the roster only
    arena ladder zaka --show                 # the table and the difficulty levels, nothing played
    arena ladder zaka --replay               # play recorded games again: does this code reproduce them?
    arena ladder zaka --redo ppo:zaka        # a shipped network replaced: its games played again
    arena ladder --page                      # docs/ladder.md and docs/images/ladder_*.png from the data

The data go to ``checkpoints/ladder/`` (the published ladders) unless ``--dir DIR`` says otherwise.
"""
from __future__ import annotations

from pathlib import Path

from ..train import ladder
from ..train.levels import LadderError, derive_levels, ladder_name, level_spec, level_table, load_ladder, players_of
from .cli_common import (
    CLIError,
    add_trust_checkpoint,
    check_out_folder,
    command,
    int_at_least,
    int_between,
    make_agent,
    number_between,
    resolve_game,
)
from .ladder_page import write_page

MAX_GAMES = 100_000
MAX_WORKERS = 64

DESCRIPTION = (
    "A rating ladder per game and player count: a fixed roster (random, heuristic, MCTS at three "
    "budgets, every shipped agent of the game and player count alone and at its strongest spec) plays "
    "round-robin, seat-balanced (every subset of the roster at the table with more than 2 players); "
    "ratings are Plackett-Luce / Bradley-Terry fits on 400 log10 odds, anchored at random = 0, with 95% "
    "bootstrap intervals. Each game is saved as it ends: run the same command again to continue a "
    "stopped ladder (Ctrl-C keeps what was played). --add places one more agent against the roster only "
    "(the roster's ratings held fixed) and prints its rating.")


def _docs_folder(given: str | None) -> Path:
    if given:
        return check_out_folder(given, "--docs")
    root = Path(__file__).resolve().parents[1] / "docs"
    if not (root / "games.md").is_file():
        raise CLIError("no docs/ folder of a checkout next to this installation",
                       hint="give the folder: arena ladder --page --docs DIR")
    return root


#: the options that only a run that plays (the ladder itself, or --add) reads
_PLAY_OPTIONS = ("games", "seed", "workers", "anchors", "out", "redo")


def _refuse(args, what: str, names: tuple[str, ...], hint: str) -> None:
    """One line naming the options given to ``what`` that it would ignore."""
    given = [n for n in names if getattr(args, n) is not None and getattr(args, n) is not False]   # 0 is given
    if given:
        flags = ", ".join("--" + n.replace("_", "-") for n in given)
        raise CLIError(f"{what} takes no {flags} (it would ignore them)", hint=hint)


@command
def cmd_ladder(args) -> int:

    try:
        return _ladder(args)
    except LadderError as exc:
        raise CLIError(str(exc)) from None


def _ladder(args) -> int:

    folder = check_out_folder(args.dir, "--dir") if args.dir else None
    if args.roster and (folder is None or args.add or args.page or args.show):
        raise CLIError("--roster plays another roster than the published one: it needs --dir DIR (never the "
                       "published ladders' folder) and goes without --add, --show and --page")
    if args.page:
        if args.game or args.add or args.show:
            raise CLIError("--page writes the page from every ladder's data; it takes no game, --add or --show",
                           hint="arena ladder --page [--dir DIR] [--docs DIR]")
        _refuse(args, "--page", ("replay", "replay_max_cpu", *_PLAY_OPTIONS),
                "arena ladder --page [--dir DIR] [--docs DIR]")
        if args.players != 2:
            raise CLIError("--page writes every player count's tables; it takes no --players",
                           hint="arena ladder --page [--dir DIR] [--docs DIR]")
        written = write_page(folder, _docs_folder(args.docs))
        print("wrote " + ", ".join(str(p) for p in written))
        return 0
    if not args.game:
        raise CLIError("which game?", hint="e.g. arena ladder zaka (or arena ladder --page)")
    if args.docs:
        raise CLIError("--docs goes with --page")
    game_id = resolve_game(args.game)
    game = ladder.build_game(game_id, args.players)
    if args.replay:
        if args.add or args.show or args.roster:
            raise CLIError("--replay plays recorded games again; it goes without --add, --show and --roster")
        _refuse(args, "--replay (the games and seeds come from the ladder's data)", _PLAY_OPTIONS,
                "arena ladder GAME [--players N] [--dir DIR] --replay [--replay-max-cpu S]")
        replays = ladder.replay_games(game_id, args.players, folder=folder, max_cpu=args.replay_max_cpu,
                                      trust=args.trust_checkpoint)
        for r in replays:
            print(r.text())
        played = [r for r in replays if r.again is not None]
        differ = [r for r in played if not r.same]
        print(f"\n{len(played)} recorded games played again, the cheapest of each roster agent "
              f"({len(replays) - len(played)} left out, recorded above --replay-max-cpu): "
              f"{len(played) - len(differ)} the same, {len(differ)} differ"
              + (" -- this code no longer plays the ladder's games; its ratings describe other code"
                 if differ else ""))
        return 1 if differ else 0
    if args.replay_max_cpu is not None:
        raise CLIError("--replay-max-cpu goes with --replay")
    if args.show:
        if args.add:
            raise CLIError("--show plays nothing; --add places an agent", hint="give one of them")
        _refuse(args, "--show (it plays nothing)", _PLAY_OPTIONS, "arena ladder GAME [--players N] [--dir DIR] --show")
        data = load_ladder(game_id, args.players, folder)
        print(ladder.ratings_table(data))
        print()
        print(level_table(derive_levels(data)))
        return 0
    if args.add:
        if args.redo:
            raise CLIError("--redo plays a roster agent's ladder games again; --add places another agent",
                           hint="give one of them")
        make_agent(args.add, game, seed=0, trust=args.trust_checkpoint)   # a bad spec: one line, now
        out = check_out_folder(args.out) if args.out else None
        result = ladder.place(args.add, game_id, args.players, games=args.games or ladder.DEFAULT_PLACE_GAMES,
                              anchors=args.anchors, workers=args.workers or 1, seed=args.seed or 0, folder=folder,
                              out=out, progress=not args.no_progress, trust=args.trust_checkpoint)
        print(result.text())
        if out is not None:
            print(f"games and result: {out / 'games.csv'}, {out / 'placement.json'}")
        return 0
    if args.anchors or args.out:
        raise CLIError("--anchors and --out go with --add", hint="arena ladder GAME --add SPEC [--anchors ...]")
    if args.roster:
        for spec in args.roster:
            make_agent(spec, game, seed=0, trust=args.trust_checkpoint)
    run = ladder.run_ladder(game_id, args.players, games=args.games or ladder.DEFAULT_GAMES,
                            workers=args.workers or 1, seed=args.seed or 0, folder=folder, specs=args.roster,
                            progress=not args.no_progress, trust=args.trust_checkpoint, redo=args.redo or ())
    print(run.table())
    print()
    print(level_table(derive_levels(run.data)))
    print(f"\n{run.played} games played now; data: {run.csv_path}, {run.json_path}")
    return 0


def level_opponents(args, game_id: str, game) -> list[str] | None:
    """``arena play --level N``: the level's agent in every opponent's place (None without --level),
    from the committed ladder data of the game and player count."""
    if getattr(args, "level", None) is None:
        return None
    if args.opponents:
        raise CLIError("--level picks the opponents; leave out --opponents", hint="e.g. arena play zaka --level 3")

    n = players_of(game)
    try:
        level = level_spec(game_id, n, args.level, options=game.options())
    except LadderError as exc:
        raise CLIError(str(exc)) from None
    print(f"level {level.number} {level.name}: {level.spec}, rating {level.rating:.0f} on the "
          f"{ladder_name(game_id, n)} ladder (random = 0; docs/ladder.md)")
    return [level.spec]


def register(subparsers) -> None:
    """Add ``ladder`` to the ``arena`` sub-commands."""
    p = subparsers.add_parser("ladder", help="a game's rating ladder; place your agent on it",
                              description=DESCRIPTION)
    p.add_argument("game", nargs="?", help="game id or name, e.g. zaka")
    p.add_argument("--players", type=int_at_least(1), default=2, help="player count (default 2)")
    p.add_argument("--games", type=int_between(1, MAX_GAMES),
                   help="games a pairing (two agents at the same table): default 200 for the ladder, "
                        "100 for --add")
    p.add_argument("--workers", type=int_between(1, MAX_WORKERS),
                   help="worker processes (default 1; results do not depend on it)")
    p.add_argument("--seed", type=int_at_least(0), help="seed of the ladder's (or placement's) games (default 0)")
    p.add_argument("--dir", help="the ladders' data folder (default: the published checkpoints/ladder/)")
    p.add_argument("--roster", nargs="+", metavar="AGENT",
                   help="experiments: another roster than the fixed one (random among them), with --dir")
    p.add_argument("--add", metavar="AGENT",
                   help="place this agent (any agent spec, e.g. ppo:runs/x/final.zip, mcts:500) on the "
                        "ladder: it plays the roster only and its rating is fitted with the roster's held fixed")
    p.add_argument("--anchors", nargs="+", metavar="AGENT",
                   help="with --add: the roster agents to play (default: all of them)")
    p.add_argument("--out", help="with --add: a folder for the placement's games (resumable) and result")
    p.add_argument("--redo", nargs="+", metavar="AGENT",
                   help="take the games of these roster agents out of the ladder and play them again from the "
                        "same seeds (after a shipped checkpoint is replaced: the ladder refuses to go on with "
                        "games of the old file)")
    p.add_argument("--show", action="store_true", help="print the ladder's table and difficulty levels; play nothing")
    p.add_argument("--replay", action="store_true",
                   help="play again each roster agent's cheapest recorded game of the ladder and check that "
                        "the same seeds give the same moves and results (exit status 1 if any differs)")
    p.add_argument("--replay-max-cpu", type=number_between(0.0, 1e6), metavar="SECONDS",
                   help="with --replay: leave out games recorded as costing more CPU seconds")
    p.add_argument("--page", action="store_true",
                   help="write docs/ladder.md and its plots (docs/images/ladder_<game>.png) from the data")
    p.add_argument("--docs", help="with --page: the docs folder (default: the checkout's docs/)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_trust_checkpoint(p)
    p.set_defaults(func=cmd_ladder)
