"""The shared evaluator: seat-balanced matches between agents, with statistics and a report.

    from tabletop_arena.train.evaluate import evaluate
    report = evaluate("peacekeepers_v0", ["ppo:runs/x/final.zip", "heuristic", "random"],
                      options={"mode": "competitive", "num_players": 2}, games=200, workers=2)
    report.write("runs/x/eval")          # report.json, report.md, report.png
    print(report.table())

**Schedule.** With P players per game and N agents, every group of P agents (all
``itertools.combinations``; with N < P the agents are cycled to fill the seats) meets in *blocks*.
A block plays the group in **every seat arrangement** (all distinct permutations of the group over
the agent indices) from the same start: the same engine seed and the same random opening. So each
arrangement is played equally often, and seat order is balanced pair by pair (duplicate-bridge
style). Copies of one agent (equal specs, e.g. three ``heuristic``) are exchangeable, so seatings
that only swap them are one seating (``arrangements``): ``X`` against three heuristics is 4 games a
block, X once in each seat, not 24 games replaying one deal six times from each seat.
``games`` is the number of games per group, rounded up to a whole number of blocks.

**Seeds.** One ``np.random.SeedSequence(seed)`` spawns a child per block; the block's engine seed
and opening come from it and every game of the block gets its own agent seeds (so each game has a
distinct seed tuple). Results do not depend on the number of workers. Engine seeds here are always
odd and the training pipeline's are always even (``evaluation_engine_seed``), so an evaluation
never replays a game position a policy was trained on from the start.

**Openings.** Deterministic agents would replay one game over and over; ``opening_moves`` random
legal moves (seeded per block, the same for every arrangement of the block) start each game. They
count in the game length. Distinct games are counted by hashing (seat arrangement, action history);
repeats are reported and warned about.

**Outcomes.** Per game, each agent index gets its return (the mean over the seats it owns). *Win* =
strictly highest return (finishing first alone); *draw* = sharing the highest return; *loss* =
anything else. With 2 players this is the usual W/D/L; with more players a tie for first is a draw
for those tied and a loss for the rest. Truncated games (move cap) are counted as the engine scores
them (zero returns: a draw for everybody) and reported separately. Pairwise results (head-to-head,
per-pair sign test) compare the two agents' returns in games where both played.

**Statistics.** Win rates with 95% Wilson score intervals; exact two-sided sign test on decisive
pairwise games; Bradley-Terry ratings (Plackett-Luce over full finishing orders for > 2 players; ties
split over their orderings) fitted in batch by Hunter's MM algorithm with one virtual draw per pair
as a prior, on an Elo scale (400 log10), with bootstrap 95% intervals over games.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import math
import multiprocessing as mp
import os
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .. import envs
from ..agents.registry import make_agent
from ..agents.shipped import resolve_checkpoint
from ..envs.core.game import Game, default_max_steps
from ..threads import limit_threads, limited_threads
from .eval_journal import JOURNAL, journal_line, open_journal, run_identity
from .eval_schedule import (
    GameRecord,
    arrangements,
    block_opening,
    block_seeds,
    history_digest,
    make_groups,
    seat_kinds,
)
from .journal import Appender
from .play import play
from .progress import progress_bar
from .stops import Stopped, as_stopped, deferred, end_pool, pool_paced, quiet_worker

Z95 = 1.959963984540054


# =============================================================================================
# statistics
# =============================================================================================
def field_against(learner: Any, spec: str, players: int) -> tuple[list[Any], list[str]]:
    """(entrants, names) of ``learner`` (a spec or a factory) against ``spec`` in every other seat of
    a ``players``-player game: the learner named ``learner``, the others ``spec``, ``spec_2``, ...
    (names must differ). With two entrants in a 4-seat game the evaluator would cycle them, the
    learner holding two seats: a trainer's curve plays this field instead."""
    return [learner] + [spec] * (players - 1), ["learner"] + [spec if i == 1 else f"{spec}_{i}" for i in range(1, players)]


def wilson_interval(k: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval for k successes in n trials ((0, 1) when n == 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k <= 0 else max(0.0, centre - half)
    hi = 1.0 if k >= n else min(1.0, centre + half)
    return lo, hi


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test p-value of ``wins`` vs ``losses`` (draws left out). The binomial
    tail is summed in log space (``lgamma``), so 100,000 games take milliseconds where exact big
    integers took hours; below 1e-300 it is 0.0."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2.0)
            for i in range(k + 1)]
    top = max(logs)
    return min(1.0, 2.0 * math.exp(top) * math.fsum(math.exp(x - top) for x in logs))


def _orderings(groups: Sequence[Sequence[int]]):
    """All total orders consistent with tie groups (best group first), each with its weight."""
    per_group = [list(itertools.permutations(g)) for g in groups]
    w = 1.0 / math.prod(len(p) for p in per_group)
    for combo in itertools.product(*per_group):
        yield tuple(x for part in combo for x in part), w


def fit_plackett_luce(rankings: Sequence[tuple[int, ...]], weights: Sequence[float], n_items: int,
                      prior: float = 1.0, iters: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """Log-strengths (mean 0) of a Plackett-Luce model by Hunter's (2004) MM algorithm.

    ``rankings`` are total orders (best first) of item ids, with a weight each; an item may appear
    more than once in a ranking. ``prior`` adds that many virtual draws between every pair of
    items (keeps perfect records finite). With two items per ranking this is Bradley-Terry.
    """
    rankings = list(rankings)
    weights = list(weights)
    if prior > 0:
        for i, j in itertools.combinations(range(n_items), 2):
            rankings += [(i, j), (j, i)]
            weights += [prior / 2, prior / 2]
    wins = np.zeros(n_items)
    stages: list[tuple[np.ndarray, float]] = []  # (items in the choice set, weight)
    for r, w in zip(rankings, weights):
        if w <= 0:
            continue
        for j in range(len(r) - 1):
            wins[r[j]] += w
            stages.append((np.asarray(r[j:], int), w))
    gamma = np.ones(n_items)
    if not stages:
        return np.zeros(n_items)
    # group stages by their choice set to vectorise the update
    sets: dict[tuple[int, ...], float] = {}
    for items, w in stages:
        key = tuple(items.tolist())
        sets[key] = sets.get(key, 0.0) + w
    keys = list(sets)
    set_w = np.array([sets[k] for k in keys])
    member = np.zeros((len(keys), n_items))  # multiplicity of each item in each choice set
    for row, key in enumerate(keys):
        for x in key:
            member[row, x] += 1
    for _ in range(iters):
        totals = member @ gamma
        denom = (set_w / totals) @ member
        new = np.where(denom > 0, wins / np.maximum(denom, 1e-300), gamma)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tol:
            gamma = new
            break
        gamma = new
    return np.log(gamma)


# =============================================================================================
# schedule and play
# =============================================================================================
class _Context:
    """What a worker needs: the game, how to build each entrant, the move cap."""

    def __init__(self, game_source, entrants, max_steps: int, trust: bool = False, kinds: Sequence[int] | None = None):
        self.game_source, self.entrants, self.max_steps = game_source, entrants, max_steps
        self.kinds = kinds   #: ``seat_kinds``: which entrants are copies of one agent (the seatings)
        self.trust = trust   #: spec strings may load pickled (legacy) checkpoints
        self._game: Game | None = None   # built in the worker (setup), not pickled to it
        self.cache: dict[tuple[int, int], Any] = {}

    def setup(self):
        if self._game is None:
            src = self.game_source
            if isinstance(src, tuple) and src and src[0] == "registry":
                self._game = envs.make_game(src[1], **src[2])
            else:
                self._game = src
        return self

    @property
    def game(self) -> Game:
        assert self._game is not None, "setup() builds the game first"
        return self._game

    def label(self, entrant: int) -> str:
        """The entrant as the user named it (an agent spec, or a factory's name)."""
        entry = self.entrants[entrant]
        return entry if isinstance(entry, str) else repr(entry)

    def agent(self, entrant: int, slot: int, seed: int):
        key = (entrant, slot)
        agent = self.cache.get(key)
        if agent is None:
            entry = self.entrants[entrant]
            if isinstance(entry, str):
                agent = make_agent(entry, self.game, seed=seed, trust=self.trust)
            else:
                agent = entry(self.game, seed)
            self.cache[key] = agent
        agent.reset(seed)
        return agent


_WORKER: _Context | None = None


def _init_worker(ctx: _Context, subprocess: bool = True):
    global _WORKER
    if subprocess:
        # Ctrl-C (sent to the whole process group) is the main process's to handle: it ends the
        # pool; a worker whose main process died (even by SIGKILL) ends too (train/stops.py)
        quiet_worker()
        # one core per worker, no oversubscription: torch and numpy's BLAS on one thread each
        # (TABLETOP_ARENA_TORCH_THREADS), whichever agent loads torch later. Two puct:64 workers on
        # 2 cores at torch's default threads took 15x the CPU time of one worker; rollout:16 workers
        # with torch on one thread but numpy's OpenBLAS at its default 3-4x (tabletop_arena/threads.py)
        limit_threads()
    _WORKER = ctx.setup()


def _one_torch_thread():
    """Games played in the calling process run torch and numpy's BLAS on one thread, as the worker
    processes do, and the caller's settings come back afterwards. A policy's forward pass on one
    observation gains nothing from more threads, and on a busy machine their spin-waiting slows
    in-process evaluation down (10 Peacekeepers games, ppo:peacekeepers vs heuristic, 2-core machine
    at load 2.3: 9.2 s with torch's default 2 threads, 6.2 s with one; same results). It used to
    skip torch when the agents had not loaded it yet, i.e. always on the first evaluation."""
    return limited_threads()


def play_game(ctx: _Context, arrangement: tuple[int, ...], engine_seed: int, opening: list[int],
              agent_seeds: tuple[int, ...], block: int = 0) -> GameRecord:
    """Play one game: ``arrangement[i]`` is the entrant controlling agent index i."""
    players = [ctx.agent(e, slot, agent_seeds[slot]) for slot, e in enumerate(arrangement)]
    labels = [ctx.label(e) for e in arrangement]
    cpu: list[list[float]] = [[] for _ in players]
    res = play(ctx.game, players, engine_seed, opening=opening, max_steps=ctx.max_steps,
               det_rng=np.random.default_rng(agent_seeds[0] ^ 0x5EED), labels=labels, cpu=cpu)
    digest = history_digest(arrangement, res.history)
    scores = None if res.scores is None else tuple(res.scores)
    return GameRecord(block, tuple(arrangement), int(engine_seed), tuple(int(s) for s in agent_seeds),
                      tuple(res.returns), scores, res.steps, res.truncated, digest, tuple(res.history),
                      tuple((float(sum(t)), float(max(t, default=0.0)), len(t)) for t in cpu))


def _run_block(task) -> list[GameRecord]:
    block, group, seed_words, opening_moves = task
    ctx = _WORKER
    assert ctx is not None, "_init_worker runs first"
    arrs = arrangements(group, ctx.kinds, block)
    engine_seed, opening_seed, seeds = block_seeds(seed_words, arrs)
    opening = block_opening(ctx.game, engine_seed, opening_seed, opening_moves)
    return [play_game(ctx, arr, engine_seed, opening, s, block) for arr, s in zip(arrs, seeds)]


# report
# =============================================================================================
def outcomes(ret: Sequence[float]) -> list[str]:
    """'win' (strictly first), 'draw' (shares first) or 'loss' for each agent index."""
    top = max(ret)
    n_top = sum(1 for r in ret if r == top)
    return ["win" if r == top and n_top == 1 else "draw" if r == top else "loss" for r in ret]


def _wdl(w: int, d: int, l: int) -> dict[str, Any]:
    n = w + d + l
    lo, hi = wilson_interval(w, n)
    return {"games": n, "wins": w, "draws": d, "losses": l,
            "win_rate": w / n if n else 0.0, "win_rate_ci95": [lo, hi],
            "score_rate": (w + 0.5 * d) / n if n else 0.0}


@dataclasses.dataclass
class EvalReport:
    """Everything ``evaluate`` measured; ``data`` is what report.json holds."""

    data: dict[str, Any]
    records: list[GameRecord]

    # -- access ---------------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return self.data["agents"]

    def agent(self, name: str) -> dict[str, Any]:
        return self.data["per_agent"][name]

    def pair(self, a: str, b: str) -> dict[str, Any]:
        """Results of ``a`` against ``b`` (from a's side)."""
        for p in self.data["pairs"]:
            if (p["a"], p["b"]) == (a, b):
                return p
            if (p["a"], p["b"]) == (b, a):
                flip = dict(p, a=a, b=b, wins=p["losses"], losses=p["wins"])
                flip.update(_wdl(p["losses"], p["draws"], p["wins"]))
                flip["mean_score_a"], flip["mean_score_b"] = p["mean_score_b"], p["mean_score_a"]
                return flip
        raise KeyError((a, b))

    # -- output ---------------------------------------------------------------------------------
    def table(self, legend: bool = True) -> str:
        """The results as text (full agent names), with a legend: each pairing first (what one agent
        did against one other), then each agent against all the others pooled (with three or more
        agents a pooled row mixes opponents: heuristic's row counts its games against random too)."""
        d = self.data
        lines = []
        if d["pairs"]:
            pw = max([7] + [len(p["a"]) + len(p["b"]) + 4 for p in d["pairs"]])
            lines.append("Each pairing, from the first agent's side (its wins, draws, losses against the second):")
            lines.append(f"{'pairing':{pw}s} {'W-D-L':>16s} {'win%':>6s} {'95% CI':>15s} {'p (sign)':>9s}")
            for p in d["pairs"]:
                lo, hi = p["win_rate_ci95"]
                wdl = f"{p['wins']}-{p['draws']}-{p['losses']}"
                lines.append(f"{p['a'] + ' vs ' + p['b']:{pw}s} {wdl:>16s} {100 * p['win_rate']:6.1f} "
                             f"[{100 * lo:5.1f},{100 * hi:5.1f}] {p['p_value']:9.2g}")
            lines.append("")
        pooled = len(d["agents"]) > 2
        lines.append("Each agent against all the others" + (" pooled (its games against every opponent "
                     "together):" if pooled else ":"))
        width = max([5] + [len(n) for n in d["agents"]])
        lines.append(f"{'agent':{width}s} {'games':>6s} {'W':>6s} {'D':>5s} {'L':>6s} {'win%':>6s} "
                     f"{'95% CI':>15s} {'Elo':>7s} {'Elo 95% CI':>17s} {'len':>6s}")
        for name in d["agents"]:
            a = d["per_agent"][name]
            r = d["ratings"][name]
            lo, hi = a["win_rate_ci95"]
            lines.append(f"{name:{width}s} {a['games']:6d} {a['wins']:6d} {a['draws']:5d} {a['losses']:6d} "
                         f"{100 * a['win_rate']:6.1f} [{100 * lo:5.1f},{100 * hi:5.1f}] {r['elo']:7.0f} "
                         f"[{r['elo_ci95'][0]:7.0f},{r['elo_ci95'][1]:7.0f}] {a['mean_length']:6.1f}")
        if any(c["decisions"] for c in d.get("move_cpu", {}).values()):
            lines += ["", "CPU seconds a decision (process time where the game was played; a timing, not a result):"]
            for name in d["agents"]:
                c = d["move_cpu"][name]
                if c["decisions"]:
                    lines.append(f"{name:{width}s} mean {_seconds(c['mean_s'])}, longest {_seconds(c['max_s'])}, "
                                 f"{_seconds(c['per_game_s'])} a game ({c['decisions']} decisions)")
        if legend:
            lines += ["",
                      "W/D/L: games won (first place alone), drawn (first place shared), lost; 95% CI: "
                      "Wilson interval of win%.",
                      "Elo: rating fitted to all games (Bradley-Terry; Plackett-Luce for more players), "
                      "mean 0 over these agents; 100 points apart = 64% expected score.",
                      "len: mean game length in moves (every player's, the random opening included). "
                      "p (sign): sign test of wins vs losses (small = not chance)."]
        for w in d["warnings"]:
            lines.append(f"WARNING: {w}")
        return "\n".join(lines)

    def markdown(self) -> str:
        d = self.data
        s = d["settings"]
        out = [f"# Evaluation: {d['game']}", "",
               f"Options: `{json.dumps(d['options'])}`  ", 
               f"{d['total_games']} games ({s['games_per_group']} per group of {d['num_players']} agents, "
               f"every seat arrangement equally often, copies of one agent interchangeable), seed {s['seed']}, {s['opening_moves']} random "
               f"opening moves, move cap {s['max_steps']}, {s['workers']} worker(s).  ",
               f"Distinct games: {d['distinct_games']} of {d['total_games']}; truncated: {d['truncated_games']}.",
               "", "Win = finishing first alone (highest return); a shared first place is a draw; "
               "95% intervals are Wilson score intervals.", "",
               "## Per agent", "",
               "| agent | games | W | D | L | win % | 95% CI | score % | mean score | mean length | truncations | Elo | Elo 95% CI |",
               "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|"]
        for name in d["agents"]:
            a = d["per_agent"][name]
            r = d["ratings"][name]
            ms = "" if a["mean_score"] is None else f"{a['mean_score']:.2f}"
            out.append(f"| {name} | {a['games']} | {a['wins']} | {a['draws']} | {a['losses']} | "
                       f"{100 * a['win_rate']:.1f} | {100 * a['win_rate_ci95'][0]:.1f}-{100 * a['win_rate_ci95'][1]:.1f} | "
                       f"{100 * a['score_rate']:.1f} | {ms} | {a['mean_length']:.1f} | {a['truncations']} | "
                       f"{r['elo']:.0f} | {r['elo_ci95'][0]:.0f} to {r['elo_ci95'][1]:.0f} |")
        out += ["", "## Pairs", "",
                "| a | b | games | a W | D | a L | a win % | 95% CI | sign test p | a mean score | b mean score |",
                "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|"]
        for p in d["pairs"]:
            sa = "" if p["mean_score_a"] is None else f"{p['mean_score_a']:.2f}"
            sb = "" if p["mean_score_b"] is None else f"{p['mean_score_b']:.2f}"
            out.append(f"| {p['a']} | {p['b']} | {p['games']} | {p['wins']} | {p['draws']} | {p['losses']} | "
                       f"{100 * p['win_rate']:.1f} | {100 * p['win_rate_ci95'][0]:.1f}-{100 * p['win_rate_ci95'][1]:.1f} | "
                       f"{p['p_value']:.3g} | {sa} | {sb} |")
        names = d["agents"]
        out += ["", "## Head to head (row's win % against column; W-D-L)", "",
                "| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for a in names:
            cells = []
            for b in names:
                cell = d["head_to_head"][a].get(b)
                cells.append("" if cell is None else f"{100 * cell['win_rate']:.1f} ({cell['wins']}-{cell['draws']}-{cell['losses']})")
            out.append(f"| {a} | " + " | ".join(cells) + " |")
        out += ["", "## By seat (agent index)", "", "| agent | seat | games | W | D | L | win % |",
                "|---|---:|---:|---:|---:|---:|---:|"]
        for name in names:
            for seat, a in d["per_agent"][name]["by_seat"].items():
                out.append(f"| {name} | {seat} | {a['games']} | {a['wins']} | {a['draws']} | {a['losses']} | "
                           f"{100 * a['win_rate']:.1f} |")
        if d.get("move_cpu"):
            out += ["", "## Time a decision (CPU seconds)", "",
                    "Process CPU time of each decision (the agent's act() with its view, a network's "
                    "torch threads included) where the game was played, on this machine under its load "
                    "at the time: a timing, not part of the result.", "",
                    "| agent | decisions | mean | longest | a game |", "|---|---:|---:|---:|---:|"]
            for name in names:
                c = d["move_cpu"][name]
                out.append(f"| {name} | {c['decisions']} | " + " | ".join(
                    "" if c[k] is None else _seconds(c[k]) for k in ("mean_s", "max_s", "per_game_s")) + " |")
        if d["warnings"]:
            out += ["", "## Warnings", ""] + [f"- {w}" for w in d["warnings"]]
        return "\n".join(out) + "\n"

    def plot(self, path: str | os.PathLike) -> Path:
        """Win rates with their intervals as horizontal bars, one row each (so that long agent
        names never overlap): every pairing from both sides first, then each agent pooled over
        all its opponents."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        d = self.data
        rows: list[tuple[str, dict, str]] = []
        for p in d["pairs"]:
            for a, b in ((p["a"], p["b"]), (p["b"], p["a"])):
                rows.append((f"{a}  vs  {b}", self.pair(a, b), "tab:orange"))
        if len(d["agents"]) > 2 or not d["pairs"]:
            for name in d["agents"]:
                rows.append((f"{name}  vs  all others (pooled)", d["per_agent"][name], "tab:blue"))
        labels = [r[0] if len(r[0]) <= 70 else r[0][:67] + "..." for r in rows]
        rate = np.asarray([r[1]["win_rate"] for r in rows])
        lo = np.asarray([r[1]["win_rate_ci95"][0] for r in rows])
        hi = np.asarray([r[1]["win_rate_ci95"][1] for r in rows])
        longest = max(len(lbl) for lbl in labels)
        fig, ax = plt.subplots(figsize=(5.5 + 0.075 * longest, 1.2 + 0.42 * len(rows)))
        y = np.arange(len(rows))[::-1]
        ax.barh(y, rate, color=[r[2] for r in rows], height=0.6)
        ax.errorbar(rate, y, xerr=[rate - lo, hi - rate], fmt="none", ecolor="black", capsize=3)
        for yi, r, row in zip(y, rate, rows):   # the number beside the plot, clear of the bars
            ax.text(1.02, yi, f"{100 * r:.1f}% of {row[1]['games']}", va="center", fontsize=8,
                    transform=ax.get_yaxis_transform())
        ax.axvline(0.5, color="gray", lw=0.8, ls="--")
        ax.set_yticks(y)
        ax.set_yticklabels(labels, fontsize=8)
        ax.set_xlim(0, 1)
        ax.set_xlabel("win rate (first place alone; 95% Wilson interval)")
        ax.set_title(f"{d['game']}: {d['total_games']} games", fontsize=10)
        fig.tight_layout()
        path = Path(path)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path

    def write(self, out_dir: str | os.PathLike) -> dict[str, Path]:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {"json": out / "report.json", "md": out / "report.md", "png": out / "report.png"}
        paths["json"].write_text(json.dumps(self.data, indent=2))
        paths["md"].write_text(self.markdown())
        try:
            self.plot(paths["png"])
        except ModuleNotFoundError as exc:   # a base install: matplotlib comes with the train extra
            if exc.name != "matplotlib":
                raise
            del paths["png"]
        return paths


def _seconds(x: float) -> str:
    """A CPU time for people: ``0.227 ms``, ``1.68 s``."""
    return f"{1000 * x:.3g} ms" if x < 1 else f"{x:.3g} s"


def build_report(records: list[GameRecord], names: list[str], game, game_id: str, settings: dict,
                 bootstrap: int = 200, seed: int = 0) -> EvalReport:
    n = len(names)
    per: dict[int, Counter] = {i: Counter() for i in range(n)}
    seat: dict[int, dict[int, Counter]] = {i: {} for i in range(n)}
    lengths: dict[int, list[int]] = {i: [] for i in range(n)}
    trunc: Counter = Counter()
    scores: dict[int, list[float]] = {i: [] for i in range(n)}
    pair: dict[tuple[int, int], Counter] = {}  # (i, j) with i < j -> Counter of i's results vs j
    pair_scores: dict[tuple[int, int], list[list[float]]] = {}
    rankings: Counter = Counter()
    for rec in records:
        res = outcomes(rec.returns)
        for slot, e in enumerate(rec.arrangement):
            per[e][res[slot]] += 1
            seat[e].setdefault(slot, Counter())[res[slot]] += 1
            lengths[e].append(rec.length)
            trunc[e] += rec.truncated
            if rec.scores is not None:
                scores[e].append(rec.scores[slot])
        for s1, s2 in itertools.combinations(range(len(rec.arrangement)), 2):
            e1, e2 = rec.arrangement[s1], rec.arrangement[s2]
            if e1 == e2:
                continue
            r1, r2 = rec.returns[s1], rec.returns[s2]
            if e1 > e2:
                e1, e2, r1, r2, s1, s2 = e2, e1, r2, r1, s2, s1
            c = pair.setdefault((e1, e2), Counter())
            c["win" if r1 > r2 else "loss" if r1 < r2 else "draw"] += 1
            c["length"] += rec.length
            if rec.scores is not None:
                ps = pair_scores.setdefault((e1, e2), [[], []])
                ps[0].append(rec.scores[s1])
                ps[1].append(rec.scores[s2])
        # finishing order by return, ties grouped (best first)
        by_ret: dict[float, list[int]] = {}
        for slot, e in enumerate(rec.arrangement):
            by_ret.setdefault(rec.returns[slot], []).append(e)
        groups = tuple(tuple(sorted(by_ret[r])) for r in sorted(by_ret, reverse=True))
        rankings[groups] += 1

    per_agent = {}
    for i, name in enumerate(names):
        c = per[i]
        entry = _wdl(c["win"], c["draw"], c["loss"])
        entry["mean_score"] = float(np.mean(scores[i])) if scores[i] else None
        entry["mean_length"] = float(np.mean(lengths[i])) if lengths[i] else 0.0
        entry["truncations"] = int(trunc[i])
        entry["by_seat"] = {str(s): _wdl(sc["win"], sc["draw"], sc["loss"]) for s, sc in sorted(seat[i].items())}
        per_agent[name] = entry
    move_cpu = {}
    for i, name in enumerate(names):   # every copy of an entrant pooled
        rows = [rec.cpu[slot] for rec in records if rec.cpu for slot, e in enumerate(rec.arrangement) if e == i]
        total, decisions = sum(r[0] for r in rows), sum(r[2] for r in rows)
        move_cpu[name] = {"decisions": int(decisions), "mean_s": total / decisions if decisions else None,
                          "max_s": max((r[1] for r in rows), default=None),
                          "per_game_s": total / len(rows) if rows else None}
    pairs = []
    h2h: dict[str, dict[str, Any]] = {a: {} for a in names}
    for (i, j), c in sorted(pair.items()):
        entry = {"a": names[i], "b": names[j]}
        entry.update(_wdl(c["win"], c["draw"], c["loss"]))
        entry["p_value"] = sign_test(c["win"], c["loss"])
        entry["mean_length"] = c["length"] / max(1, entry["games"])
        both = pair_scores.get((i, j))
        entry["mean_score_a"] = float(np.mean(both[0])) if both else None
        entry["mean_score_b"] = float(np.mean(both[1])) if both else None
        pairs.append(entry)
        h2h[names[i]][names[j]] = _wdl(c["win"], c["draw"], c["loss"])
        h2h[names[j]][names[i]] = _wdl(c["loss"], c["draw"], c["win"])

    # ratings: Plackett-Luce (Bradley-Terry for 2 players) + bootstrap over games
    uniq = list(rankings)
    expanded = [list(_orderings(g)) for g in uniq]
    counts = np.array([rankings[g] for g in uniq], float)

    def fit(weights):
        rk, ws = [], []
        for orders, w in zip(expanded, weights):
            if w > 0:
                for order, ow in orders:
                    rk.append(order)
                    ws.append(w * ow)
        return fit_plackett_luce(rk, ws, n)

    to_elo = 400 / math.log(10)
    point = fit(counts) * to_elo
    samples = []
    if bootstrap and len(records) > 1:
        rng = np.random.default_rng(seed)
        for _ in range(bootstrap):
            samples.append(fit(rng.multinomial(len(records), counts / counts.sum())) * to_elo)
    boot = np.asarray(samples) if samples else np.asarray([point])
    ratings = {name: {"elo": float(point[i]), "elo_ci95": [float(np.percentile(boot[:, i], 2.5)),
                                                           float(np.percentile(boot[:, i], 97.5))]}
               for i, name in enumerate(names)}

    hashes = Counter(r.history_hash for r in records)
    distinct = len(hashes)
    warns = []
    if distinct < len(records):
        warns.append(f"{len(records) - distinct} of {len(records)} games repeat an earlier game move for move "
                     f"(same seating, same action history); raise --opening-moves for more varied games")
    total_trunc = sum(r.truncated for r in records)
    if total_trunc:
        warns.append(f"{total_trunc} games hit the move cap ({settings.get('max_steps')}) and were truncated")
    data = {
        "game": game_id, "options": game.options_json(),
        "num_players": game.num_agents, "agents": list(names), "settings": settings,
        "win_definition": "win = strictly highest return (finishing first alone); draw = shared first place; "
                          "loss otherwise. Pairs compare the two agents' returns.",
        "total_games": len(records), "distinct_games": distinct, "truncated_games": int(total_trunc),
        "per_agent": per_agent, "pairs": pairs, "head_to_head": h2h, "ratings": ratings,
        "rating_model": "Plackett-Luce (Bradley-Terry for 2 players), Elo scale, mean 0, "
                        f"bootstrap {bootstrap} resamples of games",
        "move_cpu": move_cpu,
        "move_cpu_clock": "CPU seconds (process time) of each decision's act() call with its determinized "
                          "view, in the process that played the game, one game a process at a time; "
                          "depends on the machine and its load",
        "warnings": warns,
    }
    for w in warns:
        warnings.warn(w, stacklevel=3)
    if "stopped_after" in settings:   # in the report only: the stop's own line says it already
        data["warnings"] = [f"stopped early: {len(records)} of the {settings['planned_games']} planned games "
                            f"(whole blocks, every seating of each deal, so still seat-balanced)", *warns]
    return EvalReport(data, records)


# =============================================================================================
# entry point
# =============================================================================================
def _label(entry, used: Counter) -> str:
    # a factory may carry a name (ConstFactory.name), else its function or class name
    base = entry if isinstance(entry, str) else str(getattr(entry, "name", None) or getattr(entry, "__name__", "agent"))
    if isinstance(entry, str) and entry.startswith(("ppo:", "vlook:")):
        kind, _, ref = entry.partition(":")
        base = f"{kind}:{Path(ref).name}" if len(entry) > 40 else entry
    used[base] += 1
    return base if used[base] == 1 else f"{base}#{used[base]}"


def _play_blocks(ctx: _Context, todo: list[tuple], workers: int, start_method: str,
                 finished: Callable[[list[GameRecord]], None], bar) -> None:
    """Play the blocks ``todo`` (in this process with one worker), handing each block's games to
    ``finished`` as they come back."""
    if not todo:
        return
    if workers == 1 or len(todo) == 1:
        _init_worker(ctx, subprocess=False)
        with _one_torch_thread():
            for t in todo:
                recs = _run_block(t)
                finished(recs)
                if bar:
                    bar.update(len(recs))
        return
    mpctx = mp.get_context(start_method)
    with deferred():   # a stop while the workers start waits until they have started
        pool = mpctx.Pool(min(workers, len(todo)), initializer=_init_worker, initargs=(ctx,))
    try:
        # chunks of blocks sized by their measured time (slow games come back one block at a time),
        # at most 8 and a quarter of a worker's share
        chunk = max(1, min(8, len(todo) // (4 * workers)))
        for part in pool_paced(pool, _run_block, todo, workers, max_chunk=chunk):
            for recs in part:
                finished(recs)
            if bar:   # once a chunk: a bar written to a file (every 30 s) shows the count after it
                bar.update(sum(len(recs) for recs in part))
    finally:   # as `with Pool()` would, and whatever a signal left the workers holding
        end_pool(pool)


def evaluate(game, agents: Sequence[str | Callable], *, options: dict | None = None, games: int = 100,
             workers: int = 2, seed: int = 0, opening_moves: int = 2, max_steps: int | None = None,
             names: Sequence[str] | None = None, progress: bool = True, bootstrap: int = 200,
             out: str | os.PathLike | None = None, start_method: str = "spawn",
             trust: bool = False, seat_like: Sequence[str | Callable] | None = None,
             resume: bool = False) -> EvalReport:
    """Play seat-balanced matches between ``agents`` and return an ``EvalReport``.

    ``game``: a registered id or bare name (built with ``options``), or an ``envs.core.game.Game``.
    ``agents``: agent specs (``random``, ``heuristic``, ``mcts:N``, ``ppo:PATH``) or factories
    ``f(game, seed) -> Agent`` (picklable when ``workers > 1``).
    ``games``: games per group of agents that meet (rounded up to whole blocks of arrangements).
    ``max_steps``: the move cap of a game (a game stopped there is a draw); None: the game's
    ``max_game_length()`` (``envs.core.game.default_max_steps``; 1000 where the game has none), so
    no game is cut before its own ending or backstop.
    ``out``: if given, the report files are written there.
    ``trust``: spec strings may load pickled (legacy) checkpoints, which run any code they carry
    (``arena eval --trust-checkpoint``); without it such a spec is refused before any game.
    ``seat_like``: the list whose equal entries are copies for the seatings (``arrangements``):
    ``agents`` by default; a run that must seat its agents as another run did passes that run's
    list (``arena eval --baseline``: the baseline in the first agent's seats).
    A stop (SIGINT / SIGTERM: ``Stopped``) re-raises it after writing, when ``out`` is given, the
    report of the blocks finished so far (each block is every seating of one deal, so the games
    stay seat-balanced; ``settings["stopped_after"]`` and a warning say so).
    With ``out``, each finished block is also appended to ``out/games.jsonl`` as it comes back (the
    journal; a new evaluation empties it first). ``resume``: continue the evaluation whose journal
    ``out`` holds, which must be the same command (game, options, agents and their checkpoints'
    contents, seed, games, opening, move cap; workers may differ): its blocks are read back, not
    played again, so a stopped or killed run ends with the same games as an unbroken one.
    """
    if isinstance(game, str):
        game_id = envs.resolve(game)
        game_obj = envs.make_game(game_id, **(options or {}))
        source = ("registry", game_id, dict(options or {}))
    else:
        if options:
            raise ValueError("options are for registered game names; pass a built Game otherwise")
        game_obj, game_id, source = game, game.name, game
    agents = list(agents)
    if not agents:
        raise ValueError("evaluate needs at least one agent")
    if max_steps is None:
        max_steps = default_max_steps(game_obj)
    if games < 1 or workers < 1 or opening_moves < 0 or max_steps < 1:
        raise ValueError("games, workers and max_steps must be >= 1 and opening_moves >= 0")
    used: Counter = Counter()
    labels = list(names) if names is not None else [_label(a, used) for a in agents]
    if len(labels) != len(agents) or len(set(labels)) != len(labels):
        raise ValueError(f"names must be unique, one per agent: {labels}")
    if isinstance(source, tuple):  # fail fast on a bad spec (e.g. a missing checkpoint) before forking
        for a in agents:
            if isinstance(a, str) and not a.startswith("ppo:"):
                make_agent(a, game_obj, seed=0, trust=trust)
            elif isinstance(a, str):   # ppo:NAME (a shipped agent) or ppo:PATH
                from ..agents.checkpoint import check_compatible, check_trusted, read_metadata
                path = resolve_checkpoint(a[4:])
                meta = read_metadata(path)
                check_trusted(meta, path, trust)
                check_compatible(meta, game_obj, path)
    n_players = game_obj.num_agents
    groups = make_groups(len(agents), n_players)
    like = list(agents if seat_like is None else seat_like)
    if len(like) != len(agents):
        raise ValueError(f"seat_like lists {len(like)} agents, the evaluation {len(agents)}")
    kinds = seat_kinds(like)
    tasks: list[tuple] = []
    for g_idx, group in enumerate(groups):
        per_block = len(arrangements(group, kinds))
        blocks = max(1, math.ceil(games / per_block))
        for b in range(blocks):
            tasks.append((len(tasks), group, (seed, g_idx, b), opening_moves))
    total_games = sum(len(arrangements(t[1], kinds)) for t in tasks)
    ctx = _Context(source, agents, max_steps, trust, kinds)
    journal: Appender | None = None
    records: list[GameRecord] = []
    if resume and not all(isinstance(a, str) for a in [*agents, *like]):
        raise ValueError("resume needs agent specs (strings): a factory's games cannot be "
                         "recognised as the same agent's")
    if resume and out is None:
        raise ValueError("resume continues the games journal in out: give out")
    if out is not None:
        identity = run_identity(game_obj, game_id, agents, labels, kinds, seed, games, opening_moves, max_steps)
        journal, records = open_journal(Path(out) / JOURNAL, identity, tasks, kinds, game_obj, max_steps, resume)
    resumed = len(records)
    done = {r.block for r in records}
    todo = [t for t in tasks if t[0] not in done]
    bar = None
    if progress:
        try:
            bar = progress_bar(total_games, f"eval {game_id}", "game", initial=resumed)
        except ModuleNotFoundError:   # a base install (tqdm comes with the train extra): no bar
            pass

    def finished(recs: list[GameRecord]) -> None:
        with deferred():   # a stop waits: the report counts a block exactly when the journal holds it
            records.extend(recs)
            if journal is not None and recs:
                journal.add(journal_line(recs))

    stop: Stopped | None = None
    try:
        _play_blocks(ctx, todo, workers, start_method, finished, bar)
    except KeyboardInterrupt as exc:   # SIGINT / SIGTERM (``Stopped``): report the finished games
        stop = as_stopped(exc)
    finally:
        if bar:
            bar.close()
        if journal is not None:
            journal.close()
    records.sort(key=lambda r: (r.block, r.arrangement))
    settings = {"seed": seed, "games_per_group": games, "opening_moves": opening_moves,
                "max_steps": max_steps, "workers": workers,
                "agent_specs": [a if isinstance(a, str) else repr(a) for a in agents], "seat_kinds": kinds}
    if resume:
        settings["resumed_games"] = resumed   # read back from the journal, not played by this call
    if stop is not None:
        if not records or out is None:   # nothing to report, or nowhere to write it
            raise stop
        settings["stopped_after"] = len(records)   # whole blocks: every seating of a deal, still balanced
        settings["planned_games"] = total_games
    report = build_report(records, labels, game_obj, game_id, settings, bootstrap=bootstrap, seed=seed)
    if out is not None:
        report.write(out)
    if stop is not None:
        raise stop.with_detail(f"after {len(records)} of {total_games} games, whose report is "
                               f"{Path(out or '.') / 'report.md'} (the same command with --resume "
                               f"plays the rest)") from None
    return report


def baseline_comparison(report: EvalReport, baseline: EvalReport) -> dict[str, Any]:
    """The first agent of ``report`` against what the first agent of ``baseline`` did in its
    place: the same evaluation (game, options, seed, games, the other agents) with only that agent
    changed, so the two played the same engine seeds and openings from the same seats (the seeds
    do not depend on the agents: module docstring). This is how "first place at least 1.5 times a
    heuristic's in the same seat" is read: ``ratio`` = its win rate (first place alone) over the
    baseline's, ``ratio_lower`` = the lower end of its Wilson interval over the baseline's rate (both
    None where the baseline never won)."""
    same = ("game", "options", "num_players")
    mine, theirs = report.data, baseline.data
    keys = ("seed", "games_per_group", "opening_moves", "max_steps")
    if any(mine[k] != theirs[k] for k in same) or any(mine["settings"][k] != theirs["settings"][k] for k in keys) \
            or mine["settings"]["agent_specs"][1:] != theirs["settings"]["agent_specs"][1:] \
            or mine["settings"].get("seat_kinds") != theirs["settings"].get("seat_kinds") \
            or mine["total_games"] != theirs["total_games"]:
        raise ValueError("a baseline comparison needs the same evaluation with only the first agent changed")
    a, b = report.agent(report.names[0]), baseline.agent(baseline.names[0])
    rate, base = a["win_rate"], b["win_rate"]
    return {"agent": report.names[0], "baseline": baseline.names[0], "games": a["games"],
            "wins": a["wins"], "win_rate": rate, "win_rate_ci95": list(a["win_rate_ci95"]),
            "baseline_wins": b["wins"], "baseline_win_rate": base,
            "ratio": rate / base if base else None,            # None: the baseline never won
            "ratio_lower": a["win_rate_ci95"][0] / base if base else None}


def baseline_text(c: dict[str, Any]) -> str:
    """One paragraph of ``baseline_comparison``'s numbers."""
    lo, hi = c["win_rate_ci95"]
    return (f"{c['agent']}: first place (alone) {100 * c['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] "
            f"({c['wins']} of {c['games']}); {c['baseline']} in the same seats on the same seeds: "
            f"{100 * c['baseline_win_rate']:.1f}% ({c['baseline_wins']} of {c['games']}).\n"
            + ("no ratio: the baseline never finished first alone" if c["ratio"] is None else
               f"ratio {c['ratio']:.2f}x; the lower end of the interval is {c['ratio_lower']:.2f}x the baseline's rate"))
