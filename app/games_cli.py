"""``arena games``: the games an ``arena eval`` played, listed, and any one of them move by move.

    arena games runs/eval/warbah                               # every game: seats, winner, length
    arena games runs/eval/warbah --agent ppo:warbah --result loss   # the ones the network lost
    arena games runs/eval/warbah 12                            # game 12: every move, the end position
    arena games runs/eval/warbah 12 --at 40 --observer 1       # the position after move 40, as seat 1 sees it
    arena games runs/eval/warbah 12 --record lost12.gif        # and as an animated GIF

It reads the evaluation's games journal (``OUT/games.jsonl``, train/eval_journal.py), which holds
every game's seed and moves. Nothing is played by an agent: the engine replays the recorded moves
from the recorded seed, checking that each is legal and that they give the recorded result, so a
journal written by other code (or edited) is refused, not shown wrong. No checkpoint is read.
"""
from __future__ import annotations

import json
import shlex
from collections import Counter
from pathlib import Path

from ..envs.core.terminal import supports_color
from ..train.eval_journal import JOURNAL, JournalError, read_games, replay_game
from ..train.eval_schedule import GameRecord
from ..train.evaluate import outcomes
from ..train.play import game_result, shown_details
from .cli_common import CLIError, command, int_at_least, make_game, resolve_game
from .record import RecordingError, record_game

RESULTS = ("win", "draw", "loss")

DESCRIPTION = (
    "List the games an 'arena eval' played (from its --out folder's games.jsonl): the agents in each "
    "seat, the winner, the length; or show one of them move by move, every move with the player and "
    "agent that made it, then the final position and result, replayed by the engine from the recorded "
    "seed (each move checked legal, the result checked against the record). Agents are not run and "
    "no checkpoint is read.")


def _journal_path(text: str) -> Path:
    path = Path(text)
    if path.is_dir():
        path = path / JOURNAL
    if not path.is_file():
        raise CLIError(f"no games journal at {path}",
                       hint=f"give an 'arena eval --out' folder or its {JOURNAL}")
    return path


def _entrant(run: dict, text: str) -> int:
    """The run's agent ``text`` names: its spec as the run lists it, or its 0-based index there."""
    names = run["names"]
    if text in names:
        return names.index(text)
    if text.isdigit() and int(text) < len(names):
        return int(text)
    raise CLIError(f"--agent {text}: not one of this evaluation's agents",
                   hint="its agents: " + ", ".join(f"{i} {n}" for i, n in enumerate(names)))


def labels_of(run: dict, rec: GameRecord) -> list[str]:
    """Each player's label in ``rec``: ``player_<i> (<agent>)``, as ``arena play`` and the evaluator name them."""
    return [f"player_{i} ({run['names'][e]})" for i, e in enumerate(rec.arrangement)]


def _winner(rec: GameRecord, names: list[str]) -> str:
    if rec.truncated:
        return "move cap (no result)"
    top = max(rec.returns)
    first = [f"player_{i} {names[e]}" for i, e in enumerate(rec.arrangement) if rec.returns[i] == top]
    return first[0] if len(first) == 1 else "shared: " + ", ".join(first)


def list_games(path: Path, run: dict, games: list[GameRecord], picked: list[int], game=None) -> str:
    """The table of the ``picked`` games; with ``game`` (the journal's, built) each is replayed and
    its row ends with the engine's details of how it ended (``final_info``: the turn, the ending, ...)."""
    names = run["names"]
    lines = [f"{path}: {run['game']} {_options(run)}, agents {', '.join(names)}; {len(games)} games"]
    width = max(len(n) for n in names)
    head = "  ".join(f"{'player_' + str(i):<{width}}" for i in range(len(games[0].arrangement))) if games else ""
    lines.append(f"{'#':>5}  {'block':>5}  {head}  {'moves':>5}  winner")
    tally: dict[str, Counter] = {}   # --details: each word-valued detail's values over the listed games
    for k in picked:
        rec = games[k]
        seats = "  ".join(f"{names[e]:<{width}}" for e in rec.arrangement)
        row = f"{k + 1:>5}  {rec.block:>5}  {seats}  {rec.length:>5}  {_winner(rec, names)}"
        if game is not None:
            try:
                result = game_result(replay_game(game, rec, run["max_steps"]))
            except ValueError as exc:   # IllegalActionError, a result the moves do not give
                raise CLIError(f"{path}, game {k + 1} does not replay: {exc}",
                               hint="a journal written by other code, or edited") from None
            details = result.details_text()
            row += f"  ({details})" if details else ""
            for key, value in shown_details(result.details, len(result.returns)).items():
                if isinstance(value, str):
                    tally.setdefault(key, Counter())[value] += 1
        lines.append(row)
    if len(picked) != len(games):
        lines.append(f"{len(picked)} of the {len(games)} games")
    for key, counts in tally.items():
        lines.append(f"{key}: " + ", ".join(f"{value} {n}" for value, n in counts.most_common()))
    lines.append(f"one game move by move: arena games {shlex.quote(str(path.parent))} N")
    return "\n".join(lines)


def _options(run: dict) -> str:
    return json.dumps(run["options"], sort_keys=True)


def show_game(game, run: dict, rec: GameRecord, number: int, at: int | None, observer: int | None,
              color: bool, log: bool = True) -> str:
    """Game ``number`` (1-based) of the journal, move by move up to ``at`` moves (default: all of
    them), then the position there and, at the end, the result."""
    labels = labels_of(run, rec)
    end = replay_game(game, rec, run["max_steps"])   # every move legal, the recorded result
    stop = len(rec.history) if at is None else at
    opening = run["opening_moves"]
    lines = [f"game {number}: {run['game']} {_options(run)}, engine seed {rec.engine_seed}, block {rec.block}, "
             f"{rec.length} moves (the first {opening} random: the evaluation's opening)",
             "players: " + ", ".join(labels)]
    state = game.new_initial_state(rec.engine_seed)
    for k, action in enumerate(rec.history[:stop], start=1):
        if log:
            seat = state.current_player
            who = labels[game.seat_owner(seat)] + (f" seat {seat}" if game.num_seats != game.num_agents else "")
            tag = " (opening)" if k <= opening else ""
            lines.append(f"{k:>5}  {who}{tag}  [{state.phase_name()}]  {state.action_to_str(action)}")
        state.apply(action)
    lines.append("")
    lines.append(state.render_text(observer=observer, color=color))
    if stop == len(rec.history):
        lines.append(game_result(end).text(labels))
    else:
        lines.append(f"(after move {stop} of {len(rec.history)})")
    return "\n".join(lines)


@command
def cmd_games(args) -> int:
    path = _journal_path(args.journal)
    try:
        run, games = read_games(path)
    except JournalError as exc:
        raise CLIError(str(exc)) from None
    if args.result is not None and args.agent is None:
        raise CLIError("--result needs --agent: whose win, draw or loss", hint="e.g. --agent ppo:zaka --result loss")
    if args.number is None:
        if args.at is not None or args.observer is not None or args.record is not None or args.no_log:
            raise CLIError("--at, --observer, --no-log and --record show one game: give its number N")
        picked = list(range(len(games)))
        if args.agent is not None:
            entrant = _entrant(run, args.agent)
            picked = [k for k in picked if entrant in games[k].arrangement and (
                args.result is None or outcomes(games[k].returns)[games[k].arrangement.index(entrant)] == args.result)]
        game = make_game(resolve_game(run["game"]), run["options"]) if args.details else None
        print(list_games(path, run, games, picked, game))
        return 0
    if args.agent is not None or args.details:
        raise CLIError("--agent, --result and --details are for the list; with a game's number N the game's "
                       "details are at its end")
    if not games:
        raise CLIError(f"no game {args.number}: the journal holds no finished game yet")
    if not 1 <= args.number <= len(games):
        raise CLIError(f"no game {args.number}: the journal holds games 1-{len(games)}")
    rec = games[args.number - 1]
    game = make_game(resolve_game(run["game"]), run["options"])
    if args.at is not None and args.at > rec.length:
        raise CLIError(f"--at {args.at}: game {args.number} has {rec.length} moves")
    if args.observer is not None and args.observer >= game.num_seats:
        raise CLIError(f"--observer {args.observer}: the game has seats 0-{game.num_seats - 1}")
    color = not args.no_color and supports_color()
    try:
        print(show_game(game, run, rec, args.number, args.at, args.observer, color, log=not args.no_log))
    except ValueError as exc:   # IllegalActionError, a result the moves do not give
        raise CLIError(f"{path}, game {args.number} does not replay: {exc}",
                       hint="a journal written by other code, or edited") from None
    if args.record is not None:
        moves = rec.history if args.at is None else rec.history[:args.at]
        try:
            print(f"recorded: {record_game(game, rec.engine_seed, moves, args.record, players=labels_of(run, rec), opening_moves=run['opening_moves'])}")
        except RecordingError as exc:
            raise CLIError(str(exc), hint="--record PATH ends in .gif (or .mp4 with imageio-ffmpeg)") from None
    return 0


def register(subparsers) -> None:
    """Add ``games`` to the ``arena`` sub-commands."""
    p = subparsers.add_parser("games", help="list an evaluation's games; replay one move by move",
                              description=DESCRIPTION)
    p.add_argument("journal", help="an 'arena eval --out' folder, or its games.jsonl")
    p.add_argument("number", nargs="?", type=int_at_least(1), help="the game to show (its # in the list)")
    p.add_argument("--agent", metavar="AGENT", help="list only the games this agent played (its spec as the "
                   "evaluation named it, or its 0-based index among the evaluation's agents)")
    p.add_argument("--result", choices=RESULTS, help="with --agent: only the games it won, drew or lost")
    p.add_argument("--details", action="store_true",
                   help="replay every listed game and end its row with how it ended (the engine's final_info: "
                        "turn, ending, ...)")
    p.add_argument("--at", type=int_at_least(0), metavar="MOVE",
                   help="show the position after this many moves (default: the end)")
    p.add_argument("--observer", type=int_at_least(0), metavar="SEAT",
                   help="draw the position as this seat sees it (hidden cards and unexplored map hidden); "
                        "default: everything")
    p.add_argument("--no-log", action="store_true", help="leave out the move list: the position only")
    p.add_argument("--no-color", action="store_true",
                   help="plain text board (colour is only used on a terminal without NO_COLOR)")
    p.add_argument("--record", metavar="PATH",
                   help="also write the game (up to --at) as an animated GIF (or .mp4) at PATH")
    p.set_defaults(func=cmd_games)
