"""Rating ladders: a fixed roster per game and player count, played round-robin, with anchored
ratings; placing a new agent on a ladder; difficulty levels derived from a ladder.

    arena ladder zaka                          # the 2-player ladder (resumable: run it again to go on)
    arena ladder zaka --players 3              # 3-player tables of the roster's subsets
    arena ladder zaka --add ppo:runs/x/final.zip     # place an agent against the roster only
    arena ladder --page                        # docs/ladder.md and its plots, from the data

    from tabletop_arena.train.ladder import place
    print(place(my_agent, "zaka_v0").text())   # an agent object, a spec or a factory f(game, seed)

**Roster** (``roster``): ``random``, ``heuristic``, ``mcts`` at three budgets (``MCTS_BUDGETS``,
chosen per game from measured costs) and every shipped agent trained for that game and player
count, alone and at its ``strongest`` spec (``checkpoints/shipped.yaml``).

**Schedule.** As in the evaluator (``train/evaluate.py``): every subset of ``num_players`` roster
agents meets in *blocks*; a block plays the subset in every seat arrangement from the same start
(engine seed and two random opening moves). A block's seeds come from the ladder seed, the subset's
specs and the block's number, so they do not change when the roster grows. ``games`` counts games
a *pairing* (games in which two given agents sit at the same table): with P players and N agents a
pair meets in C(N-2, P-2) subsets of P! games a block. Blocks are played in rounds (block 0 of
every subset, then block 1 ...), so a ladder stopped early is balanced.

**Data.** Each game is appended to ``<folder>/<game>_<N>p.csv`` as it ends (``LADDER_COLUMNS``); a
rerun skips every game already there (a game is its round and seat arrangement), so a stop (Ctrl-C,
SIGTERM, a kill) loses at most the games being played. ``<game>_<N>p.json`` holds the settings,
the ratings with intervals, the pairings' results and the cost. The published folder is
``checkpoints/ladder/``: package data, so ``arena play --level`` and ``arena serve`` find the levels
in an installed wheel as in a checkout.

**Ratings.** The evaluator's Plackett-Luce fit (``evaluate.fit_plackett_luce``: Bradley-Terry with
2 players, the full finishing order with more; ties split over their orderings; one virtual draw
between every pair as a prior) on games whose players are all on the roster, on an Elo-like scale
(400 log10 of the odds: 200 points is an expected score of 76%) anchored at ``random`` = 0. The
95% intervals are percentiles of 200 bootstrap resamples of the blocks (a block's games share their
start, so they are resampled together: ``train/ladder_fit.py``), each refitted and re-anchored (so
random's interval is [0, 0] and the others are relative to random).

**Placing** an agent (``place``): it plays the roster (the *anchors*) only, seat-balanced, and only
its strength is fitted with the anchors' ratings held at the ladder's values. Its interval
resamples its blocks and, in each resample, takes the anchors' ratings from one of the ladder's own
bootstrap resamples, so the anchors' uncertainty is counted too.

**Levels** (``derive_levels``): see its docstring.
"""
from __future__ import annotations

import csv
import dataclasses
import datetime
import hashlib
import io
import itertools
import json
import math
import multiprocessing as mp
import os
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from .. import envs
from ..agents.registry import has_heuristic, make_agent
from ..agents.shipped import agent_kind, shipped_agents
from ..threads import limited_threads
from . import evaluate as ev
from .eval_journal import file_digests
from .eval_schedule import arrangements, block_opening, block_seeds
from .journal import Appender, complete_text
from .ladder_fit import BOOTSTRAP, fit_ladder, place_rating
from .levels import (
    ANCHOR,
    FORMAT,
    LadderError,
    agent_costs,
    ladder_name,
    ladder_options,
    load_ladder,
    paths,
    read_costs,
)
from .progress import progress_bar
from .stops import as_stopped, deferred, end_pool, pool_map

#: games a pairing of the published tables (issue 46) and of ``arena ladder`` by default
DEFAULT_GAMES = 200
#: games a pairing with each anchor when an agent is placed
DEFAULT_PLACE_GAMES = 100
OPENING_MOVES = 2
#: a safety net only: every engine ends its games by its own backstop first (Zaberias' 4-player
#: action cap, the longest, is 10,800)
MAX_STEPS = 20_000
#: the MCTS budgets of each game's roster, from measured CPU time (docs/ladder.md, "Cost"): MCTS here
#: runs random rollouts of up to 300 moves, so a simulation costs about 2 ms in Zaka, 3.5 ms in
#: Peacekeepers and 15-40 ms in the long games (Gorgasali, Warbah, Zaberias); each roster's budgets
#: grow by 4x (2x in the long games) up to a few seconds of CPU a game
MCTS_BUDGETS: dict[str, tuple[int, int, int]] = {
    "zaka_v0": (4, 16, 64),
    "peacekeepers_v0": (2, 8, 32),
    "gorgasali_v0": (2, 4, 8),
    "warbah_v0": (2, 4, 8),
    "zaberias_v0": (2, 4, 8),
}
DEFAULT_MCTS_BUDGETS = (4, 16, 64)
#: the player counts docs/ladder.md publishes per game: 2 and one above (3 where the game plays
#: it; Peacekeepers' competitive mode plays 2 or 4), and 4 for Zaka and Gorgasali (its default
#: table), where their shipped 4-player agents play
PUBLISHED: dict[str, tuple[int, ...]] = {
    "zaka_v0": (2, 3, 4), "peacekeepers_v0": (2, 4), "warbah_v0": (2, 3), "zaberias_v0": (2, 3),
    "gorgasali_v0": (2, 3, 4),
}
LADDER_COLUMNS = ("round", "seats", "returns", "length", "truncated", "engine_seed", "agent_seeds",
                  "history_hash", "cpu_seconds")
#: a second seed stream for placement games (never the ladder's own games)
_PLACE_STREAM = 1


# =============================================================================================
# roster and game
# =============================================================================================
def build_game(game_id: str, num_players: int):
    """The ladder's game: default rules for ``num_players`` (a LadderError if the game has no such
    player count)."""
    try:
        return envs.make_game(game_id, **ladder_options(num_players))
    except (ValueError, TypeError) as exc:
        text = str(exc).removeprefix(f"{game_id}: ")
        raise LadderError(f"{game_id} cannot be played by {num_players} players: {text}") from None


def shipped_for_ladder(game_id: str, num_players: int) -> list[str]:
    """The shipped agents' specs for this game and player count: each agent alone (``ppo:NAME``,
    ``vlook:NAME``) and at its ``strongest`` spec, for entries whose options give the ladder's
    game (the default rules at that player count)."""

    want = build_game(game_id, num_players).options_json()
    out: list[str] = []
    for name, entry in shipped_agents().items():
        if entry.get("game") != game_id:
            continue
        try:
            have = envs.make_game(game_id, **dict(entry.get("options") or {})).options_json()
        except (ValueError, TypeError):
            continue
        if have != want:
            continue
        out.append(f"{agent_kind(entry)}:{name}")
        if entry.get("strongest"):
            out.append(str(entry["strongest"]))
    return out


def roster(game_id: str, num_players: int) -> list[str]:
    """The fixed roster of a ladder (see the module docstring)."""
    game_id = envs.resolve(game_id)

    out = [ANCHOR] + (["heuristic"] if has_heuristic(game_id) else [])
    out += [f"mcts:{n}" for n in MCTS_BUDGETS.get(game_id, DEFAULT_MCTS_BUDGETS)]
    return out + shipped_for_ladder(game_id, num_players)


def _stable_hash(parts: Iterable[str]) -> int:
    """A 63-bit number from strings, the same in every process and Python version."""
    digest = hashlib.sha256("\n".join(parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


# =============================================================================================
# schedule
# =============================================================================================
@dataclasses.dataclass(frozen=True)
class GameTask:
    """One game of a schedule: its table (``group``, sorted specs), seat arrangement and seeds."""

    round: int
    seats: tuple[str, ...]          # spec (label) per player index
    entrants: tuple[int, ...]       # index into the context's entrants per player index
    seed_words: tuple[int, ...]     # the block's seed (SeedSequence entropy)
    arrangement: int                # index among the block's arrangements
    n_arrangements: int
    opening_moves: int

    @property
    def key(self) -> tuple[int, tuple[str, ...]]:
        return self.round, self.seats


def blocks_per_group(games: int, n_agents: int, n_players: int) -> int:
    """Blocks of every subset so that each pairing has at least ``games`` games."""
    per_block = math.factorial(n_players) * math.comb(n_agents - 2, n_players - 2)
    return max(1, math.ceil(games / per_block))


def schedule(specs: Sequence[str], n_players: int, games: int, seed: int, opening_moves: int,
             entrant_index: dict[str, int] | None = None, must_include: str | None = None,
             stream: int = 0) -> list[GameTask]:
    """Every game of a round-robin of ``specs`` in tables of ``n_players`` (rounds first).
    ``must_include``: only the tables with that spec (placement: the new agent against anchors),
    counting pairings between it and the others."""
    specs = list(specs)
    if len(set(specs)) != len(specs):
        raise LadderError(f"a roster names each agent once, got {specs}")
    if len(specs) < n_players:
        raise LadderError(f"{n_players}-player tables need at least {n_players} agents, got {len(specs)}")
    index = entrant_index or {s: i for i, s in enumerate(specs)}
    tables = [tuple(sorted(g)) for g in itertools.combinations(specs, n_players)]
    if must_include is not None:   # it meets each other agent in C(N-2, P-2) of these, as in a round-robin
        tables = [t for t in tables if must_include in t]
    rounds = blocks_per_group(games, len(specs), n_players)
    perms = arrangements(tuple(range(n_players)))
    tasks = []
    for r in range(rounds):
        for table in tables:
            words = (int(seed), _stable_hash(table), r) + ((stream,) if stream else ())
            for a, perm in enumerate(perms):
                seats = tuple(table[i] for i in perm)
                tasks.append(GameTask(r, seats, tuple(index[s] for s in seats), words, a, len(perms),
                                      opening_moves))
    return tasks


def _play_task(task: GameTask) -> dict[str, Any]:
    """Play one scheduled game in a worker (or the calling process): its CSV row."""
    ctx = ev._WORKER
    assert ctx is not None, "evaluate._init_worker runs first"
    # the block's seeds as the evaluator draws them; this game is one arrangement of its block
    engine_seed, opening_seed, block = block_seeds(list(task.seed_words), [task.entrants] * task.n_arrangements)
    seeds = block[task.arrangement]
    opening = block_opening(ctx.game, engine_seed, opening_seed, task.opening_moves)
    # the players are built (a network loaded, torch imported) before the clock starts: a row's
    # cpu_seconds is its game's, not the first game's share of the worker's set-up (play_game gets
    # them from ctx's cache and resets them to the same seeds, so the game is the same)
    for slot, entrant in enumerate(task.entrants):
        ctx.agent(entrant, slot, seeds[slot])
    start = time.process_time()
    rec = ev.play_game(ctx, task.entrants, engine_seed, opening, seeds, task.round)
    cpu = time.process_time() - start
    return {"round": task.round, "seats": list(task.seats), "returns": [float(x) for x in rec.returns],
            "length": rec.length, "truncated": bool(rec.truncated), "engine_seed": rec.engine_seed,
            "agent_seeds": list(rec.agent_seeds), "history_hash": rec.history_hash,
            "cpu_seconds": round(cpu, 4)}


# =============================================================================================
# the games file
# =============================================================================================
def _row_to_csv(row: dict[str, Any]) -> list[str]:
    return [str(row["round"]), json.dumps(row["seats"]), json.dumps(row["returns"]), str(row["length"]),
            "1" if row["truncated"] else "0", str(row["engine_seed"]), json.dumps(row["agent_seeds"]),
            row["history_hash"], f"{row['cpu_seconds']:.4f}"]


def read_games(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The games of a ladder CSV (an unfinished last line, from a process killed while writing it,
    is left out). A malformed row is a LadderError naming its line."""
    path = Path(path)
    if not path.exists():
        return []
    text = complete_text(path)
    rows = []
    reader = csv.reader(text.splitlines())
    header = next(reader, None)
    if header is None:
        return []
    if tuple(header) != LADDER_COLUMNS:
        raise LadderError(f"{path}: not a ladder's games file (its header is {header}, expected "
                          f"{list(LADDER_COLUMNS)})")
    for line, fields in enumerate(reader, start=2):
        try:
            if len(fields) != len(LADDER_COLUMNS):
                raise ValueError(f"{len(fields)} fields")
            rnd, seats, rets, length, trunc, eseed, aseeds, digest, cpu = fields
            seat_list = [str(s) for s in json.loads(seats)]
            returns = [float(x) for x in json.loads(rets)]
            if len(seat_list) != len(returns) or trunc not in ("0", "1"):
                raise ValueError("seats and returns differ in length")
            row = {"round": int(rnd), "seats": seat_list, "returns": returns, "length": int(length),
                   "truncated": trunc == "1", "engine_seed": int(eseed),
                   "agent_seeds": [int(x) for x in json.loads(aseeds)], "history_hash": digest,
                   "cpu_seconds": float(cpu)}
        except (ValueError, TypeError) as exc:
            raise LadderError(f"{path}, line {line}: malformed row ({exc}); fix or delete the line") from None
        rows.append(row)
    return rows


def _busy(path: Path) -> LadderError:
    return LadderError(f"{path} is being played by another run right now (arena ladder or a placement); "
                       f"a second one would play the same games twice: wait for it, or stop it "
                       f"(Ctrl-C keeps its games) and run again")


def _csv_line(fields: Sequence[str]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(fields)
    return buf.getvalue()[:-1]


class _Appender(Appender):
    """Appends game rows to a games CSV (``train/journal.Appender``: the header first, each row
    flushed as it comes, an unfinished last line of a killed process cut, the file locked until
    ``close``: a second run on it is a LadderError)."""

    def __init__(self, path: Path):
        super().__init__(path, _csv_line(LADDER_COLUMNS), _busy)

    def add_row(self, row: dict[str, Any]) -> None:
        self.add(_csv_line(_row_to_csv(row)))


# =============================================================================================
# running a ladder
# =============================================================================================
@dataclasses.dataclass
class LadderSettings:
    game: str
    num_players: int
    games: int = DEFAULT_GAMES
    seed: int = 0
    opening_moves: int = OPENING_MOVES
    max_steps: int = MAX_STEPS

    def command(self) -> str:
        """The ``arena ladder`` command that plays these settings."""
        base = self.game.split("_v")[0]
        cmd = f"arena ladder {base} --players {self.num_players}"
        if self.games != DEFAULT_GAMES:
            cmd += f" --games {self.games}"
        if self.seed:
            cmd += f" --seed {self.seed}"
        return cmd


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def ladder_data(settings: LadderSettings, specs: Sequence[str], rows: Sequence[dict[str, Any]],
                game, scheduled: Sequence[GameTask], bootstrap: int = BOOTSTRAP,
                updated: str | None = None, files: dict[str, str] | None = None,
                costs: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a ladder's JSON holds, from its games and its schedule (complete when every
    ``scheduled`` game is among ``rows``); ``files``: the sha256 of the checkpoints (and rules
    file) the roster's games were played with (``eval_journal.file_digests``); ``costs``: the
    ladder's ``costs.json`` entry, for the time left of tables with no games yet."""
    fit = fit_ladder(rows, specs, bootstrap=bootstrap, seed=settings.seed)
    mine = [r for r in rows if all(s in specs for s in r["seats"])]
    pairs = fit["pairs"]
    expected = len(list(itertools.combinations(specs, 2)))
    per_pair = [p["games"] for p in pairs] + [0] * (expected - len(pairs))
    target = settings.games
    played = {(r["round"], tuple(r["seats"])) for r in mine}
    left = [t for t in scheduled if t.key not in played]
    return {
        "format": FORMAT, "name": ladder_name(settings.game, settings.num_players),
        "game": settings.game, "num_players": settings.num_players, "options": game.options_json(),
        "settings": dataclasses.asdict(settings), "command": settings.command(),
        "roster": list(specs), "file_sha256": dict(files or {}), "anchor": ANCHOR,
        "rating_model": ("Plackett-Luce (Bradley-Terry for 2 players) by the evaluator's fit, "
                         "400 log10 odds (Elo-like), anchored at random = 0; 95% intervals: "
                         f"percentiles of {bootstrap} bootstrap resamples of the blocks (a table's "
                         "games from one start, every seat arrangement), each re-anchored"),
        "games": len(mine),
        "games_per_pairing": {"min": min(per_pair, default=0), "max": max(per_pair, default=0),
                              "target": target},
        "scheduled_games": len(scheduled),
        "complete": not left,
        "truncated_games": sum(1 for r in mine if r["truncated"]),
        "cpu_minutes": round(sum(r["cpu_seconds"] for r in mine) / 60, 1),
        "cpu_minutes_left": _cpu_minutes_left(mine, left, costs),
        "updated": updated or _now(),
        "ratings": fit["ratings"], "pairs": pairs,
        "bootstrap_order": fit["rated"], "bootstrap": fit["bootstrap"],
    }


def _cpu_minutes_left(rows: Sequence[dict[str, Any]], left: Sequence[GameTask],
                      costs: dict[str, Any] | None = None) -> float | None:
    """CPU minutes the games ``left`` to play should take: each at the mean CPU time of its table's
    games in ``rows`` (a table's agents set its cost, and ``--redo`` leaves some tables with far
    fewer games than others, or none); where its table has none yet, at the measured seconds a game
    of its agents' moves plus the engine's (``costs``, a ``costs.json`` entry) when every one of
    them is measured, else at the mean of all games; None without a game to go by."""
    if not rows:
        return None
    per_agent = agent_costs(costs or {})
    engine = float((costs or {}).get("engine", 0.0))
    per_table: dict[tuple[str, ...], list[float]] = {}
    for r in rows:
        per_table.setdefault(tuple(sorted(r["seats"])), []).append(float(r["cpu_seconds"]))
    overall = sum(sum(v) for v in per_table.values()) / len(rows)
    seconds = 0.0
    for t in left:
        spent = per_table.get(tuple(sorted(t.seats)))
        if spent:
            seconds += sum(spent) / len(spent)
        elif all(s in per_agent for s in t.seats):
            seconds += sum(per_agent[s] for s in t.seats) + engine
        else:
            seconds += overall
    return round(seconds / 60, 1)


def _check_settings(jpath: Path, settings: LadderSettings) -> None:
    if not jpath.exists():
        return
    try:
        old = json.loads(jpath.read_text(encoding="utf-8")).get("settings", {})
    except (OSError, ValueError) as exc:
        raise LadderError(f"{jpath}: unreadable ladder data ({exc}); delete it and its .csv to start over") from None
    mine = dataclasses.asdict(settings)
    differ = [k for k in ("game", "num_players", "seed", "opening_moves", "max_steps") if old.get(k) != mine[k]]
    if differ:
        raise LadderError(f"{jpath} was played with " + ", ".join(f"{k}={old.get(k)!r}" for k in differ)
                          + " (asked: " + ", ".join(f"{k}={mine[k]!r}" for k in differ) + "); its games "
                          "would not continue it: use another --dir, or the same settings")


def _check_files(jpath: Path, files: dict[str, str], rows: Sequence[dict[str, Any]],
                 redo: Sequence[str], settings: LadderSettings) -> None:
    """Every roster agent with games in the ladder still plays from the file those games were
    played with (the sha256 its JSON recorded): a checkpoint replaced at the same path would put
    two networks' games under one name. ``redo`` names the agents whose games are played again."""
    if not jpath.exists():
        return
    try:
        was = json.loads(jpath.read_text(encoding="utf-8")).get("file_sha256")
    except (OSError, ValueError) as exc:
        raise LadderError(f"{jpath}: unreadable ladder data ({exc}); delete it and its .csv to start over") from None
    if not isinstance(was, dict):   # data from before the files were recorded: nothing to compare
        return
    played = {s for r in rows for s in r["seats"]}
    for key in sorted(set(was) | set(files)):
        if was.get(key) == files.get(key) or key in redo or (key != "config_path" and key not in played):
            continue
        what = "the rules file" if key == "config_path" else f"{key}'s checkpoint"
        then, now = (str(x)[:12] if x else "none" for x in (was.get(key), files.get(key)))
        hint = (f"{settings.command()} --redo {key} plays its games again with the file there now (the "
                f"same seeds)" if key != "config_path" else "use another --dir for other rules")
        raise LadderError(f"{what} is not the file the games in {jpath.with_suffix('.csv')} were played "
                          f"with (sha256 {then}... then, {now}... now): the ladder would rate two "
                          f"different agents under one name; {hint}")


def _context(game_id: str, num_players: int, specs: Sequence[str], trust: bool, max_steps: int = MAX_STEPS):
    """The evaluator's worker context for a ladder's games: the game at ``num_players``, ``specs``
    indexed by a task's seats."""
    return ev._Context(("registry", game_id, ladder_options(num_players)), list(specs), max_steps, trust)


def _play_all(ctx, tasks: list[GameTask], workers: int, on_row: Callable[[dict], None],
              start_method: str = "spawn") -> None:
    """Play ``tasks`` (in the calling process with ``workers == 1``), handing each row to ``on_row``
    as it ends."""
    if not tasks:
        return
    if workers == 1 or len(tasks) == 1:
        ev._init_worker(ctx, subprocess=False)
        with limited_threads():
            for t in tasks:
                on_row(_play_task(t))
        return
    with deferred():   # a stop while the workers start waits until they have started
        pool = mp.get_context(start_method).Pool(min(workers, len(tasks)), initializer=ev._init_worker,
                                                 initargs=(ctx,))
    try:
        for row in pool_map(pool, _play_task, tasks, chunksize=1, ordered=False):
            on_row(row)
    finally:
        end_pool(pool)


def _progress(total: int, done: int, desc: str, enabled: bool):
    if not enabled:
        return None
    return progress_bar(total, desc, "game", initial=done)


@dataclasses.dataclass
class LadderRun:
    """What ``run_ladder`` did: the data written and the games played this time."""

    data: dict[str, Any]
    played: int
    csv_path: Path
    json_path: Path

    def table(self) -> str:
        return ratings_table(self.data)


def _check_specs(specs: Sequence[str], game, trust: bool) -> None:
    """Every spec builds (a missing checkpoint, a typo) before any game is played."""
    for s in specs:
        make_agent(s, game, seed=0, trust=trust)


def run_ladder(game_id: str, num_players: int = 2, *, games: int = DEFAULT_GAMES, workers: int = 1,
               seed: int = 0, folder: str | os.PathLike | None = None,
               specs: Sequence[str] | None = None, progress: bool = True, max_games: int | None = None,
               bootstrap: int = BOOTSTRAP, trust: bool = False, start_method: str = "spawn",
               redo: Sequence[str] = ()) -> LadderRun:
    """Play (or continue) the ladder of ``game_id`` at ``num_players``, appending each game to its
    CSV in ``folder`` and writing its JSON; returns the data. ``specs``: another roster (tests,
    experiments; default ``roster(game, num_players)``). ``max_games``: stop after that many new
    games (the rest is played by the next run). A stop (Ctrl-C / SIGTERM, ``train.stops``) keeps
    every finished game, writes the JSON and re-raises with what was saved.
    The JSON records the sha256 of every roster checkpoint; a continued ladder whose agent's file
    has changed since its games were played is a LadderError, unless that agent is in ``redo``:
    its games are then taken out of the CSV and played again from the same seeds."""
    game_id = envs.resolve(game_id)
    if games < 1 or workers < 1 or (max_games is not None and max_games < 0):
        raise LadderError("games and workers must be >= 1 and max_games >= 0")
    game = build_game(game_id, num_players)
    specs = list(specs) if specs is not None else roster(game_id, num_players)
    if ANCHOR not in specs:
        raise LadderError(f"a ladder's roster includes {ANCHOR!r} (the anchor, rating 0), got {specs}")
    settings = LadderSettings(game_id, num_players, games, seed)
    csv_path, json_path = paths(game_id, num_players, folder)
    _check_settings(json_path, settings)
    bad = [s for s in redo if s not in specs]
    if bad:
        raise LadderError(f"--redo names agents of the roster: {bad} are not on it ({', '.join(specs)})")
    files = file_digests(game, specs)
    if not json_path.exists() and read_games(csv_path):
        raise LadderError(f"{csv_path} has no {json_path.name} beside it (its settings): delete the "
                          f".csv to start over")
    # locked before its games are read: another run on this ladder is refused here (LadderError), and
    # the games counted as done below are all the games there are
    appender = _Appender(csv_path)
    try:
        rows = read_games(csv_path)
        _check_files(json_path, files, rows, redo, settings)
        if redo:   # their games out, in one step (a kill leaves the old file or the new one)
            kept = [r for r in rows if not set(redo) & set(r["seats"])]
            if len(kept) < len(rows):
                appender.rewrite([_csv_line(_row_to_csv(r)) for r in kept])
                rows = kept
        tasks = schedule(specs, num_players, games, seed, OPENING_MOVES)
        done = {(r["round"], tuple(r["seats"])) for r in rows}
        todo = [t for t in tasks if t.key not in done]
        if max_games is not None:
            todo = todo[:max_games]
        if todo:
            _check_specs(specs, game, trust)
        played = 0
        costs = read_costs(folder).get(ladder_name(game_id, num_players))

        def write() -> dict[str, Any]:
            old = json.loads(json_path.read_text(encoding="utf-8")) if json_path.exists() else {}
            data = ladder_data(settings, specs, rows, game, tasks, bootstrap=bootstrap, files=files, costs=costs,
                               updated=old.get("updated") if not played and old.get("games") == len(rows) else None)
            json_path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            return data

        if not json_path.exists():
            write()   # the settings first: a run killed before its first game still continues
        ctx = _context(game_id, num_players, specs, trust)
        bar = _progress(len(tasks), sum(t.key in done for t in tasks), f"ladder {ladder_name(game_id, num_players)}",
                        progress)

        def on_row(row: dict[str, Any]) -> None:
            nonlocal played
            with deferred():   # a stop waits: the JSON written at a stop counts exactly the CSV's rows
                appender.add_row(row)
                rows.append(row)
                played += 1
            if bar is not None:
                bar.update(1)

        try:
            _play_all(ctx, todo, workers, on_row, start_method)
        except KeyboardInterrupt as exc:
            write()
            left = len([t for t in tasks if t.key not in {(r["round"], tuple(r["seats"])) for r in rows}])
            raise as_stopped(exc).with_detail(
                f"{played} new games saved ({len(tasks) - left} of {len(tasks)} in {csv_path}); the same "
                f"command continues with the {left} left") from None
        finally:
            if bar is not None:
                bar.close()
        return LadderRun(write(), played, csv_path, json_path)
    finally:
        appender.close()


# =============================================================================================
# replaying recorded games
# =============================================================================================
#: what a replayed game must reproduce of its recorded row
REPLAY_KEYS = ("returns", "length", "truncated", "engine_seed", "agent_seeds", "history_hash")


@dataclasses.dataclass
class Replay:
    """A recorded ladder game and the same game played again (``again``: its row, or None when it
    was not replayed because it costs more than asked)."""

    specs: list[str]               # the roster agents whose cheapest game this is
    row: dict[str, Any]
    again: dict[str, Any] | None

    @property
    def same(self) -> bool:
        return self.again is not None and all(self.row[k] == self.again[k] for k in REPLAY_KEYS)

    def text(self) -> str:
        what = f"round {self.row['round']}, {' vs '.join(self.row['seats'])} (for {', '.join(self.specs)})"
        if self.again is None:
            return f"skipped  {what} (recorded {self.row['cpu_seconds']:.1f} CPU-s)"
        if self.same:
            return f"same     {what}: {self.row['length']} moves, {self.again['cpu_seconds']:.1f} CPU-s"
        differ = [k for k in REPLAY_KEYS if self.row[k] != self.again[k]]
        return f"DIFFERS  {what}: " + ", ".join(f"{k} {self.row[k]!r} -> {self.again[k]!r}" for k in differ)


def replay_games(game_id: str, num_players: int = 2, *, folder: str | os.PathLike | None = None,
                 max_cpu: float | None = None, trust: bool = False) -> list[Replay]:
    """Play again, for each roster agent, the cheapest recorded game it played (by the CPU time in
    the data) and compare it with its row: the same seeds must give the same moves and results, or
    the published ratings no longer describe the code (an engine or agent change altered the
    games). ``max_cpu``: games recorded as costing more CPU seconds are listed, not played."""
    game_id = envs.resolve(game_id)
    csv_path, json_path = paths(game_id, num_players, folder)
    data = load_ladder(game_id, num_players, folder)
    settings = data["settings"]
    if settings.get("max_steps") != MAX_STEPS or settings.get("opening_moves") != OPENING_MOVES:
        raise LadderError(f"{json_path} was played with max_steps={settings.get('max_steps')}, "
                          f"opening_moves={settings.get('opening_moves')}; this code plays "
                          f"{MAX_STEPS} and {OPENING_MOVES}: its games cannot be replayed")
    specs = list(data["roster"])
    tasks = {t.key: t for t in schedule(specs, num_players, settings["games"], settings["seed"], OPENING_MOVES)}
    rows = [r for r in read_games(csv_path) if (r["round"], tuple(r["seats"])) in tasks]
    picked: dict[tuple, Replay] = {}   # one entry a game, in roster order of its first agent
    for spec in specs:
        mine = [r for r in rows if spec in r["seats"]]
        if mine:
            r = min(mine, key=lambda r: (r["cpu_seconds"], r["round"], r["seats"]))
            picked.setdefault((r["round"], tuple(r["seats"])), Replay([], r, None)).specs.append(spec)
    todo = [key for key, rep in picked.items() if max_cpu is None or rep.row["cpu_seconds"] <= max_cpu]

    def on_row(row: dict[str, Any]) -> None:
        picked[(row["round"], tuple(row["seats"]))].again = row

    _play_all(_context(game_id, num_players, specs, trust), [tasks[key] for key in todo], 1, on_row)
    return list(picked.values())


def ratings_table(data: dict[str, Any]) -> str:
    """A ladder's ratings as text, strongest first."""
    lines = [f"{data['name']}: {data['games']} games, {data['games_per_pairing']['min']}-"
             f"{data['games_per_pairing']['max']} a pairing (target {data['games_per_pairing']['target']}), "
             f"{data['cpu_minutes']} CPU minutes; rating: 400 log10 odds, {ANCHOR} = 0, 95% bootstrap interval"]
    width = max([5] + [len(s) for s in data["roster"]])
    lines.append(f"{'agent':{width}s} {'rating':>7s} {'95% interval':>17s} {'games':>6s} {'W-D-L':>14s}")
    for spec, r in sorted_ratings(data):
        ci = f"[{r['ci95'][0]:6.0f},{r['ci95'][1]:6.0f}]" if r["ci95"] else ""
        rating = f"{r['rating']:7.0f}" if r["rating"] is not None else f"{'-':>7s}"
        lines.append(f"{spec:{width}s} {rating} {ci:>17s} {r['games']:6d} "
                     f"{str(r['wins']) + '-' + str(r['draws']) + '-' + str(r['losses']):>14s}")
    for spec, bound in unbounded_ratings(data):
        lines.append(f"note: {spec} {'came first in' if bound == 'lower' else 'lost'} every game it played: no "
                     f"finite rating fits that; its {data['ratings'][spec]['rating']:.0f} is where the fit's prior "
                     f"(one virtual draw with each other agent) holds it, {'a lower' if bound == 'lower' else 'an upper'} "
                     f"bound")
    return "\n".join(lines)


def unbounded_ratings(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The agents whose record no finite rating fits, as (spec, "lower" | "upper"): first alone in
    every game (a lower bound), or with 2 players lost every game (an upper bound; not the anchor,
    whose 0 is fixed). Their ratings are where the fit's prior (one virtual draw between every pair)
    holds them, not measurements."""
    out = []
    for spec, r in sorted_ratings(data):
        bound = record_bound(r["wins"], r["losses"], r["games"], data["num_players"])
        if r["rating"] is not None and bound and not (bound == "upper" and spec == ANCHOR):
            out.append((spec, bound))
    return out


def record_bound(wins: int, losses: int, games: int, num_players: int) -> str | None:
    """"lower" when a record is first alone in every game, "upper" when (2 players) it lost every
    game: no finite rating fits either; None otherwise (or without games)."""
    if not games:
        return None
    if wins == games:
        return "lower"
    return "upper" if num_players == 2 and losses == games else None


def sorted_ratings(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(spec, rating entry) strongest first; unrated agents last, in roster order."""
    items = list(data["ratings"].items())
    rated = sorted((kv for kv in items if kv[1]["rating"] is not None), key=lambda kv: -kv[1]["rating"])
    return rated + [kv for kv in items if kv[1]["rating"] is None]


# =============================================================================================
# placing an agent
# =============================================================================================
@dataclasses.dataclass
class Placement:
    """An agent placed on a ladder: its rating with a 95% interval, and its results per anchor."""

    game: str
    num_players: int
    label: str
    rating: float
    ci95: tuple[float, float]
    games: int
    anchors: list[dict[str, Any]]   # spec, rating, games, wins, draws, losses (the agent's side)
    cpu_minutes: float

    def text(self) -> str:
        lines = [f"{self.label} on the {ladder_name(self.game, self.num_players)} ladder: rating "
                 f"{self.rating:.0f} (95% interval {self.ci95[0]:.0f} to {self.ci95[1]:.0f}; {ANCHOR} = 0) "
                 f"from {self.games} games against the roster ({self.cpu_minutes} CPU minutes)"]
        width = max([6] + [len(a["spec"]) for a in self.anchors])
        lines.append(f"  {'anchor':{width}s} {'rating':>7s} {'games':>6s} {'W-D-L (the agent)':>18s} {'score':>6s}")
        for a in self.anchors:
            n = max(1, a["games"])
            lines.append(f"  {a['spec']:{width}s} {a['rating']:7.0f} {a['games']:6d} "
                         f"{str(a['wins']) + '-' + str(a['draws']) + '-' + str(a['losses']):>18s} "
                         f"{(a['wins'] + 0.5 * a['draws']) / n:6.2f}")
        bound = record_bound(sum(a["wins"] for a in self.anchors), sum(a["losses"] for a in self.anchors),
                             sum(a["games"] for a in self.anchors), self.num_players)
        if bound:
            lines.append(f"note: {'won' if bound == 'lower' else 'lost'} every game: no finite rating fits that; "
                         f"{self.rating:.0f} is where the fit's prior (one virtual draw with each anchor) holds it, "
                         f"{'a lower' if bound == 'lower' else 'an upper'} bound")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


class _Given:
    """A factory that hands out one agent object (placing an agent built by the caller)."""

    def __init__(self, agent, name: str):
        self.agent, self.name = agent, name

    def __call__(self, game, seed):
        return self.agent

    def __repr__(self) -> str:
        return self.name


def place(agent: Any, game_id: str, num_players: int = 2, *, games: int = DEFAULT_PLACE_GAMES,
          anchors: Sequence[str] | None = None, name: str | None = None, workers: int = 1,
          seed: int = 0, folder: str | os.PathLike | None = None, out: str | os.PathLike | None = None,
          progress: bool = True, bootstrap: int = BOOTSTRAP, trust: bool = False) -> Placement:
    """Place ``agent`` on the ladder of ``game_id`` at ``num_players``: it plays the ladder's roster
    (or the ``anchors`` named) only, ``games`` games a pairing, seat-balanced; the roster's ratings
    stay as the ladder has them and only the agent's is fitted (module docstring).

    ``agent``: an agent object (``act(obs, state=None)``, ``reset(seed)``; played in this process),
    an agent spec (``ppo:runs/x/final.zip``, ``mcts:500``) or a factory ``f(game, seed) -> Agent``
    (picklable when ``workers > 1``). ``out``: a folder for the placement's games (CSV, resumable)
    and result (JSON)."""
    game_id = envs.resolve(game_id)
    if games < 1 or workers < 1:
        raise LadderError("games and workers must be >= 1")
    data = load_ladder(game_id, num_players, folder)
    game = build_game(game_id, num_players)
    if data.get("options") != game.options_json():
        raise LadderError(f"the {data['name']} ladder was played with options {data.get('options')}, "
                          f"this game has {game.options_json()}")
    rated = {s: r["rating"] for s, r in data["ratings"].items() if r["rating"] is not None}
    if isinstance(agent, str):
        label = name or agent.strip()
        entry: Any = agent.strip()
        make_agent(entry, game, seed=0, trust=trust)   # a bad spec: its own error, before any game
    elif hasattr(agent, "act"):
        if workers != 1:
            raise LadderError("an agent object plays in this process: use workers=1, or pass a "
                              "picklable factory f(game, seed) -> Agent")
        label = name or str(getattr(agent, "spec", None) or getattr(agent, "name", None) or "agent")
        entry = _Given(agent, label)
    elif callable(agent):
        label = name or str(getattr(agent, "name", None) or getattr(agent, "__name__", "agent"))
        entry = agent
    else:
        raise LadderError(f"place needs an agent object, an agent spec or a factory f(game, seed), "
                          f"got {type(agent).__name__}")
    chosen = list(anchors) if anchors is not None else [s for s in data["roster"] if s in rated]
    unknown = [s for s in chosen if s not in rated]
    if unknown:
        raise LadderError(f"anchors must be rated agents of the {data['name']} ladder: {unknown} are "
                          f"not (rated: {', '.join(rated)})")
    chosen = [s for s in chosen if s != label]   # never against itself
    recorded = data.get("file_sha256")
    if isinstance(recorded, dict):   # the anchors' ratings are their files' games
        now = file_digests(game, chosen)
        changed = [s for s in chosen if recorded.get(s) != now.get(s)]
        if changed:
            raise LadderError(f"anchors {changed} no longer play from the files the {data['name']} ladder "
                              f"rated (their checkpoints changed): play their games again first "
                              f"({data['command']} --redo {changed[0]}), or leave them out (anchors)")
    if len(chosen) < num_players - 1:
        raise LadderError(f"{num_players}-player tables need at least {num_players - 1} anchors, got {chosen}")
    specs = chosen + [label]
    index = {s: i for i, s in enumerate(specs)}
    tasks = schedule(specs, num_players, games, seed, int(data["settings"]["opening_moves"]), index,
                     must_include=label, stream=_PLACE_STREAM)
    rows: list[dict[str, Any]] = []
    appender = None
    if out is not None:
        out = Path(out)
        appender = _Appender(out / "games.csv")   # locked first: the rows read are the ones it extends
        rows = [r for r in read_games(out / "games.csv") if label in r["seats"]]
    done = {(r["round"], tuple(r["seats"])) for r in rows}
    todo = [t for t in tasks if t.key not in done]
    ctx = _context(game_id, num_players, [*chosen, entry], trust, int(data["settings"]["max_steps"]))
    bar = _progress(len(tasks), len(tasks) - len(todo), f"place {label} on {data['name']}", progress)

    def on_row(row: dict[str, Any]) -> None:
        rows.append(row)
        if appender is not None:
            appender.add_row(row)
        if bar is not None:
            bar.update(1)

    try:
        _play_all(ctx, todo, workers, on_row)
    except KeyboardInterrupt as exc:
        detail = (f"{len(rows)} placement games saved in {out}; the same call continues" if out is not None
                  else f"{len(rows)} placement games played and dropped (out= keeps them)")
        raise as_stopped(exc).with_detail(detail) from None
    finally:
        if appender is not None:
            appender.close()
        if bar is not None:
            bar.close()
    rating, ci, per_anchor = place_rating(data, rows, label, chosen, bootstrap, seed)
    mine = [r for r in rows if label in r["seats"]]
    result = Placement(data["game"], int(data["num_players"]), label, rating, ci, len(mine), per_anchor,
                       round(sum(r["cpu_seconds"] for r in mine) / 60, 1))
    if out is not None:
        (out / "placement.json").write_text(json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8")
    return result
