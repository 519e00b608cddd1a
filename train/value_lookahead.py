"""``algorithm: value_lookahead``: one step of approximate policy iteration over the heuristic.

    arena train gorgasali                 # configs/train/gorgasali.yaml sets this algorithm
    arena eval gorgasali --opt num_players=2 --agents vlook:runs/gorgasali/vlook_seed0/value.pt heuristic

Each round: (1) play ``games_per_round`` heuristic-vs-heuristic games in which a share ``explore``
of the decisions (outside ``skip_phases``, with two or more legal moves) is a uniformly random
legal move, keeping every ``sample_every``-th position seen from each seat with that seat's final
return; (2) fit a small value network (``agents.lookahead.value_net``) to all positions so far,
keeping the weights with the lowest squared error on held-out games (every ``holdout_every``-th);
(3) accept phases: for each phase with at least ``accept_min_per_game`` such decisions a game, play
``accept_games`` seat-balanced games of the lookahead agent searching in that phase alone against
the heuristic (the other seats), and accept the phase where the Wilson 95% lower bound of its win
rate (first place alone; a shared first counts half) is above one game in the player count (one
half at 2 players, a quarter at 4); a trial is played in four parts and stops after one once its
upper bound is below that bar (rejected early: below the bar with 95% confidence already); (4) evaluate the agent (all accepted phases) against
``eval_opponents`` (one copy in every other seat) for the learning curve. All engine seeds here are even (the evaluator's are odd).

Out folder: ``value.pt`` (the agent: ``vlook:PATH``), ``config.yaml``, ``curve.csv`` / ``curve.png``
(win rate against minutes and env steps: the engine actions of the data games), ``accept.csv``
(each round's phase trials), ``fit.csv`` (held-out error by fitting step), ``eval/``.
"""
from __future__ import annotations

import dataclasses
import json
import multiprocessing as mp
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import envs
from ..agents.lookahead import (
    ValueLookaheadAgent,
    board_shape,
    check_pool,
    feature_size,
    features,
    load_value,
    save_value,
    value_net,
)
from ..agents.registry import make_agent
from ..envs.core.options import Option
from .config import ConfigError, read_config_file, with_overrides
from .curves import write_curve
from .evaluate import evaluate, field_against, wilson_interval
from .play import agent_action, observe, play
from .schema import check_config, count, number
from .stops import as_stopped, deferred, end_pool, pool_map, quiet_worker
from .stops import check as check_stop

ALGORITHM = "value_lookahead"


@dataclass
class ValueLookaheadConfig:
    algorithm: str = ALGORITHM
    env_options: dict = field(default_factory=dict)   #: options for the game (e.g. num_players: 2)
    seed: int = 0                        #: seeds the data games, the fit, the trials and evaluation
    max_steps: int = 2000                #: move cap per game
    rounds: int = 2                      #: data / fit / accept / evaluate rounds
    games_per_round: int = 8000          #: data games per round
    explore: float = 0.15                #: share of random moves at searchable decisions in data games
    sample_every: int = 10               #: keep every n-th position of a data game (both seats)
    skip_phases: list = field(default_factory=list)   #: phases never explored nor searched
    feature_pool: int = 4                #: board planes averaged over pool x pool cells
    hidden: int = 64                     #: value network width (two hidden layers)
    dropout: float = 0.2
    learning_rate: float = 1e-4
    weight_decay: float = 1e-4
    batch_size: int = 512
    fit_steps: int = 5000                #: gradient steps per round
    fit_eval_every: int = 250            #: held-out check interval (steps)
    holdout_every: int = 10              #: every n-th data game is held out
    samples: int = 1                     #: determinizations per candidate move
    delta: float = 0.0                   #: margin the best move must beat the heuristic's by
    accept_games: int = 400              #: trial games per phase
    accept_min_per_game: float = 1.0     #: phases rarer than this (decisions a game) are not tried
    eval_games: int = 100                #: learning-curve games per opponent
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    workers: int = 2                     #: processes for data, trials and evaluation
    torch_threads: int = 2               #: torch threads for the fit
    time_limit_minutes: float = 0.0      #: stop after the round that passes this (0 = none)
    max_env_steps: int = 0               #: >0 (arena train --timesteps): the data games stop at this many
    #:                                      engine actions in all, an equal share each round; a round that
    #:                                      plays fewer than games_per_round games then scales accept_games,
    #:                                      eval_games and fit_steps by the same share (at least SCALED's
    #:                                      floor each; keys set by --set stay). 0: games_per_round each round
    progress: bool = True


#: what a run cut short by max_env_steps scales with the share of its data games, and the least
#: each keeps (trial games per phase, evaluation games per opponent, fitting steps a round)
SCALED = {"accept_games": 20, "eval_games": 20, "fit_steps": 200}
#: a phase trial is played in this many parts and stops after a part once it is below the bar with 95%
#: confidence (the Wilson upper bound below it: rejected early): Zaberias' and Warbah's 4-player runs spent most of their trial
#: games on phases at 0-1% first place (docs/training-notes.md)
TRIAL_LOOKS = 4


#: the keys of an ``algorithm: value_lookahead`` config (train/schema.py checks a config against them)
SCHEMA = (
    Option("algorithm", str, ALGORITHM, "the trainer (train/trainers.py picks by it)", choices=(ALGORITHM,)),
    Option("env_options", dict, {}, "options for the game (e.g. num_players: 2)"),
    count("seed", 0, 0, "seeds the data games, the fit, the trials and evaluation"),
    count("max_steps", 2000, 1, "move cap per game"),
    count("rounds", 2, 1, "data / fit / accept / evaluate rounds"),
    count("games_per_round", 8000, 2, "data games per round"),
    number("explore", 0.15, "share of random moves at searchable decisions in data games", low=0.0, high=1.0),
    count("sample_every", 10, 1, "keep every n-th position of a data game (both seats)"),
    Option("skip_phases", list, [], "phases never explored nor searched", each=Option("phase", str)),
    count("feature_pool", 4, 1, "board planes averaged over pool x pool cells"),
    count("hidden", 64, 1, "value network width (two hidden layers)"),
    number("dropout", 0.2, "dropout of the value network while it is fitted", low=0.0, high=0.95),
    number("learning_rate", 1e-4, "Adam step size of the fit", low=1e-9, high=1.0),
    number("weight_decay", 1e-4, "Adam weight decay of the fit", low=0.0, high=1.0),
    count("batch_size", 512, 1, "positions a fitting step"),
    count("fit_steps", 5000, 1, "gradient steps per round"),
    count("fit_eval_every", 250, 1, "held-out check interval (steps)"),
    count("holdout_every", 10, 2, "every n-th data game is held out"),
    count("samples", 1, 1, "determinizations per candidate move"),
    number("delta", 0.0, "margin the best move must beat the heuristic's by", low=0.0, high=2.0),
    count("accept_games", 400, 2, "trial games per phase"),
    number("accept_min_per_game", 1.0, "phases rarer than this (decisions a game) are not tried", low=0.0, high=1e6),
    count("eval_games", 100, 2, "learning-curve games per opponent"),
    Option("eval_opponents", list, ["random", "heuristic"], "agent specs the learning curve plays",
           each=Option("spec", str)),
    count("workers", 2, 1, "processes for data, trials and evaluation"),
    count("torch_threads", 2, 1, "torch threads for the fit"),
    number("time_limit_minutes", 0.0, "stop after the round that passes this (0 = none)", low=0.0, high=1e9),
    count("max_env_steps", 0, 0, ">0 (arena train --timesteps): the data games stop at this many engine "
         "actions in all, an equal share each round; a shorter round scales accept_games, eval_games and "
         "fit_steps (SCALED)"),
    Option("progress", bool, True, "progress bars"),
)


def is_value_config(data: dict[str, Any]) -> bool:
    return data.get("algorithm") == ALGORITHM


def from_dict(data: dict[str, Any], source: str) -> ValueLookaheadConfig:
    """A checked config (``SCHEMA``): unknown keys, wrong types (no coercion) and out-of-range
    values raise ConfigError naming the key."""
    return ValueLookaheadConfig(**check_config(SCHEMA, data, source, f"for algorithm {ALGORITHM}"))


# ------------------------------------------------------------------------------ data games --
def _data_game(task) -> tuple[np.ndarray, np.ndarray, int, dict[str, int]]:
    """One data game: (features, returns, engine actions, searchable decisions by phase)."""
    game_id, options, seed, explore, every, skip, max_steps, pool = task
    game = envs.make_game(game_id, **options)
    board = board_shape(game)
    rng = np.random.default_rng(seed + 1)
    state = game.new_initial_state(seed)
    bots = [make_agent("heuristic", game, seed=seed + s) for s in range(game.num_seats)]
    rows: list[list[np.ndarray]] = [[] for _ in range(game.num_seats)]
    phases: dict[str, int] = {}
    k = 0
    while not state.is_terminal() and len(state.history) < max_steps:
        check_stop()   # a stop whose exception was lost (train/stops.py)
        seat = state.current_player
        mask = state.legal_actions_mask()
        if k % every == 0:
            for s in range(game.num_seats):
                rows[s].append(features(state.observation(s), board, pool).astype(np.float16))
        k += 1
        legal = np.flatnonzero(mask)
        phase = state.phase_name()
        if len(legal) > 1 and phase not in skip:
            phases[phase] = phases.get(phase, 0) + 1
            if rng.random() < explore:
                state.apply(int(rng.choice(legal)))
                continue
        state.apply_legal(agent_action(state, bots[seat], observe(state), rng))
    ret = np.asarray(state.returns(), np.float32) if state.is_terminal() else np.zeros(game.num_seats, np.float32)
    x = np.concatenate([np.stack(r) for r in rows if r]) if any(rows) else np.zeros((0, 0), np.float16)
    y = np.concatenate([np.full(len(r), ret[s], np.float32) for s, r in enumerate(rows) if r])
    return x, y, len(state.history), phases


# ------------------------------------------------------------------------------ trials --
_CACHE: dict[str, Any] = {}


def _trial_game(task) -> float:
    """One trial game: the lookahead agent (searching in ``phases``) against the heuristic; its
    result (+1 / 0 / -1 by return) from seat ``me``."""
    game_id, options, path, phases, seed, me, aseed = task
    game = envs.make_game(game_id, **options)
    key = f"{path}:{os.path.getmtime(path)}"
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = load_value(path, game)
    net, meta = _CACHE[key]
    agent = ValueLookaheadAgent(path, game, seed=aseed, net=net, meta=meta, phases=phases)
    agents = [make_agent("heuristic", game, seed=aseed + 7) for _ in range(game.num_agents)]
    agents[me] = agent
    r = play(game, agents, seed, det_rng=np.random.default_rng(aseed ^ 0x5EED))
    ret = np.asarray(game.agent_returns(r.returns))
    others = np.delete(ret, me)
    return float(np.sign(ret[me] - others.max()))


def _firsts(results) -> float:
    """First places in trial results (``_trial_game``: +1 alone, 0 shared, -1 not): a shared first
    counts half."""
    res = np.asarray(results)
    return float(((res > 0) + 0.5 * (res == 0)).sum())


def _init_worker():
    """A pool worker: one torch thread; Ctrl-C left to the main process, which ends the pool."""
    quiet_worker()
    import torch
    torch.set_num_threads(1)


class _Run:
    def __init__(self, game_id: str, cfg: ValueLookaheadConfig, out: Path):
        self.game_id, self.cfg, self.out = game_id, cfg, out
        self.game = envs.make_game(game_id, **cfg.env_options)
        try:
            check_pool(self.game, cfg.feature_pool)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        unknown = self.game.unknown_phases(cfg.skip_phases)
        if unknown:   # a misspelt phase would be searched after all, silently
            raise ConfigError(f"skip_phases: {unknown}")
        for spec in ["heuristic", *cfg.eval_opponents]:   # a bad opponent fails now, not after a round
            make_agent(spec, self.game, seed=0)
        self.t0 = time.time()
        self.cpu0 = time.process_time()
        self.rng = np.random.default_rng(cfg.seed)
        self.pool: Any = None   # the worker processes, started by the first imap
        self.X: list[np.ndarray] = []
        self.Y: list[np.ndarray] = []
        self.G: list[np.ndarray] = []
        self.games = 0
        self.env_steps = 0
        self.phase_counts: dict[str, int] = {}
        self.curve: list[dict] = []
        self.net: Any = None
        self.accepted: list[str] = []

    def log(self, msg: str) -> None:
        if self.cfg.progress:
            print(f"[{(time.time() - self.t0) / 60:5.1f} min] {msg}", flush=True)

    def imap(self, fn, tasks):
        """``fn`` over ``tasks`` on the worker pool (in order, as results come), or here."""
        if self.cfg.workers <= 1:
            return map(fn, tasks)
        if self.pool is None:
            with deferred():   # a stop while the workers start waits until they have started
                self.pool = mp.get_context().Pool(self.cfg.workers, initializer=_init_worker)
        return pool_map(self.pool, fn, tasks, chunksize=max(1, len(tasks) // (8 * self.cfg.workers)))

    def close(self, abort: bool = False):
        """End the worker pool: let it finish (``close``), or, on a stop or an error, end the
        workers now (``terminate``: a closed pool waits for tasks a stop will never collect)."""
        if self.pool is not None:
            if abort:
                end_pool(self.pool)
            else:
                self.pool.close()
                self.pool.join()
            self.pool = None

    # -- (1) data
    def collect(self, budget: int = 0) -> int:
        """One round's data games: ``games_per_round``, or fewer where ``budget`` (> 0) engine
        actions are reached first (the games are played in batches of a few per worker, so the
        round stops at the first batch that reaches it). Returns the games played."""
        cfg = self.cfg
        seeds = [2 * int(self.rng.integers(2**61)) for _ in range(cfg.games_per_round)]
        batch = len(seeds) if budget <= 0 else max(1, 2 * cfg.workers)
        step = max(1, len(seeds) // 5)
        played = steps_now = 0
        while played < len(seeds) and (budget <= 0 or steps_now < budget):
            tasks = [(self.game_id, cfg.env_options, seed, cfg.explore, cfg.sample_every, tuple(cfg.skip_phases),
                      cfg.max_steps, cfg.feature_pool) for seed in seeds[played:played + batch]]
            for x, y, steps, phases in self.imap(_data_game, tasks):
                played += 1
                if played % step == 0 and played < len(seeds):
                    self.log(f"data: {played} of {len(seeds)} games")
                if len(y):
                    self.X.append(x)
                    self.Y.append(y)
                    self.G.append(np.full(len(y), self.games, np.int64))
                self.games += 1
                self.env_steps += steps
                steps_now += steps
                for p, n in phases.items():
                    self.phase_counts[p] = self.phase_counts.get(p, 0) + n
        self.log(f"data: {self.games} games, {sum(len(y) for y in self.Y)} positions, {self.env_steps} env steps")
        return played

    # -- (2) fit
    def fit(self, round_no: int) -> float:
        import torch
        cfg = self.cfg
        torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed + round_no)
        # one float16 array of all positions so far (a float32 copy of 900k x 2800 would not fit in
        # a small machine's memory): batches are converted as they are drawn
        self.X, self.Y, self.G = [np.concatenate(self.X)], [np.concatenate(self.Y)], [np.concatenate(self.G)]
        X, Y, G = self.X[0], self.Y[0], self.G[0]
        held = G % cfg.holdout_every == 0
        train_rows = np.flatnonzero(~held)
        xall = torch.from_numpy(X)
        yt = torch.as_tensor(Y[~held])
        xh, yh = torch.as_tensor(X[held].astype(np.float32)), torch.as_tensor(Y[held])
        if self.net is None:
            self.net = value_net(X.shape[1], cfg.hidden, cfg.dropout)
        net = self.net
        opt = torch.optim.Adam(net.parameters(), cfg.learning_rate, weight_decay=cfg.weight_decay)
        gen = torch.Generator().manual_seed(cfg.seed * 1000 + round_no)
        best, best_state = self._held_error(xh, yh), {k: v.clone() for k, v in net.state_dict().items()}
        rows = []
        for step in range(1, cfg.fit_steps + 1):
            check_stop()
            net.train()
            b = torch.randint(0, len(yt), (cfg.batch_size,), generator=gen)
            xb = xall[torch.as_tensor(train_rows[b.cpu().numpy()])].float()
            loss = ((net(xb).squeeze(-1) - yt[b]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % cfg.fit_eval_every == 0 or step == cfg.fit_steps:
                err = self._held_error(xh, yh)
                rows.append({"round": round_no, "step": step, "held_out_mse": round(err, 5),
                             "predict_zero_mse": round(float((yh ** 2).mean()), 5)})
                if err < best:
                    best, best_state = err, {k: v.clone() for k, v in net.state_dict().items()}
        net.load_state_dict(best_state)
        net.eval()
        _append_csv(self.out / "fit.csv", rows)
        self.log(f"fit: held-out squared error {best:.4f} (predicting 0: {float((yh ** 2).mean()):.4f})")
        return best

    def _held_error(self, xh, yh) -> float:
        import torch
        self.net.eval()
        with torch.no_grad():
            return float(((self.net(xh).squeeze(-1) - yh) ** 2).mean())

    def meta(self, phases: list[str], extra: dict | None = None) -> dict[str, Any]:
        cfg = self.cfg
        return {"game": self.game_id, "options": self.game.options(), "inputs": feature_size(self.game, cfg.feature_pool),
                "hidden": cfg.hidden, "dropout": cfg.dropout, "pool": cfg.feature_pool, "phases": list(phases),
                "samples": cfg.samples, "delta": cfg.delta, "config": dataclasses.asdict(cfg),
                "games": self.games, "env_steps": self.env_steps, **(extra or {})}

    # -- (3) accept
    def accept(self, round_no: int, path: Path) -> list[str]:
        cfg = self.cfg
        games_played = max(1, self.games)
        tried = sorted((p for p, n in self.phase_counts.items() if n / games_played >= cfg.accept_min_per_game),
                       key=lambda p: -self.phase_counts[p])
        accepted, rows = [], []
        for phase in tried:
            tasks = []
            for _ in range(max(1, cfg.accept_games // self.game.num_agents)):
                seed, aseed = 2 * int(self.rng.integers(2**61)), int(self.rng.integers(2**62))
                tasks += [(self.game_id, cfg.env_options, str(path), [phase], seed, me, aseed)
                          for me in range(self.game.num_agents)]
            bar = 1 / self.game.num_agents   # even: one game in the player count
            res, stopped = self.trial(tasks, bar)
            score = _firsts(res)
            lo, hi = wilson_interval(score, len(res))
            ok = lo > bar
            rows.append({"round": round_no, "phase": phase, "decisions_per_game": round(self.phase_counts[phase] / games_played, 2),
                         "games": len(res), "win_rate": round(score / len(res), 4), "ci_low": round(lo, 4),
                         "ci_high": round(hi, 4), "accepted": ok, "stopped_early": stopped})
            self.log(f"trial {phase}: {100 * score / len(res):.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] of {len(res)}"
                     + (" accepted" if ok else "") + (f" (stopped: the upper bound is below {100 * bar:.0f}%)"
                                                      if stopped else ""))
            if ok:
                accepted.append(phase)
        _append_csv(self.out / "accept.csv", rows)
        return accepted

    def trial(self, tasks: list, bar: float) -> tuple[np.ndarray, bool]:
        """A phase trial's results, played in ``TRIAL_LOOKS`` equal parts (whole seat rotations):
        after each part but the last, a trial whose Wilson upper bound is already below ``bar`` stops,
        rejected (its win rate is below the bar with 95% confidence; acceptance needs the lower bound
        above it). Returns (results, stopped early)."""
        n = self.game.num_agents
        part = n * max(1, -(-len(tasks) // (n * TRIAL_LOOKS)))
        res: list[float] = []
        for start in range(0, len(tasks), part):
            res += self.imap(_trial_game, tasks[start:start + part])
            if len(res) < len(tasks):
                if wilson_interval(_firsts(res), len(res))[1] < bar:
                    return np.asarray(res), True
        return np.asarray(res), False

    # -- (4) evaluate
    def curve_point(self, path: Path, tag: str) -> None:
        cfg = self.cfg
        row: dict[str, Any] = {"timesteps": self.env_steps, "minutes": round((time.time() - self.t0) / 60, 2),
                               "cpu_minutes": round(time.process_time() / 60 - self.cpu0 / 60, 2), "games": cfg.eval_games}
        for opp in cfg.eval_opponents:
            specs, names = field_against(f"vlook:{path}", opp, self.game.num_agents)
            report = evaluate(self.game_id, specs, names=names, games=cfg.eval_games,
                              workers=cfg.workers, seed=7919 + cfg.seed, opening_moves=2, max_steps=cfg.max_steps,
                              progress=False, bootstrap=0, options=cfg.env_options)
            a = report.agent("learner")
            lo, hi = a["win_rate_ci95"]
            row.update({f"{opp}_win_rate": round(a["win_rate"], 4), f"{opp}_ci_low": round(lo, 4),
                        f"{opp}_ci_high": round(hi, 4)})
            report.write(self.out / "eval" / tag / opp.replace(":", "_").replace("/", "_"))
            self.log(f"eval vs {opp}: {100 * a['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]")
        self.curve.append(row)
        write_curve(self.curve, self.out / "curve.csv", self.out / "curve.png", title=self.title(),
                    steps_label="env steps of the data games", players=self.game.num_agents)

    def title(self) -> str:
        players = self.game.options().get("num_players")
        return f"{self.game_id}{f' {players}p' if players else ''} value lookahead"


def scale_to_share(cfg: ValueLookaheadConfig, share: float, given: set[str]) -> str:
    """Cut ``cfg``'s ``SCALED`` sizes to ``share`` of them (rounded up, at least the floor; keys in
    ``given`` stay), in place; returns what changed, as words ('' if nothing)."""
    import math
    changed = []
    for key, floor in SCALED.items():
        value = getattr(cfg, key)
        if key in given or value <= floor:
            continue
        setattr(cfg, key, max(floor, math.ceil(value * share)))
        changed.append(f"{key} {value} -> {getattr(cfg, key)}")
    if changed:
        changed.append("--set KEY=N sets one")
    return ", ".join(changed)


def _append_csv(path: Path, rows: list[dict]) -> None:
    import csv
    if not rows:
        return
    new = not path.exists()
    with open(path, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        if new:
            w.writeheader()
        w.writerows(rows)


def train_value_lookahead(game: str, data: dict[str, Any], source: str, out: str | os.PathLike | None,
                          overrides: dict[str, Any]) -> Path:
    """Run the algorithm on ``game`` with the config keys ``data`` (+ ``overrides``); return value.pt."""
    import yaml
    game_id = envs.resolve(game)
    merged = with_overrides(data, {k: v for k, v in overrides.items() if v is not None})
    from_dict(data, source)           # the file's own mistakes name the file,
    cfg = from_dict(merged, "--set")  # the rest came from the command line
    out = Path(out) if out is not None else Path("runs") / game_id.split("_v")[0] / f"vlook_seed{cfg.seed}"
    if (out / "value.pt").exists():
        raise ConfigError(f"{out} already holds a run (value.pt); choose another --out")
    given = set(overrides)
    run = _Run(game_id, cfg, out)   # checks the game, pool and opponents before the folder is made
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "config.yaml", "w") as fh:
        yaml.safe_dump(dataclasses.asdict(cfg), fh, sort_keys=False)
    path, trial = out / "value.pt", out / "trial.pt"
    done, stage = 0, "the start"   # rounds whose value.pt is written; where a stop finds the run
    try:
        for r in range(1, cfg.rounds + 1):
            stage = f"round {r} (data games)"
            budget = 0
            if cfg.max_env_steps:   # this round's share of what is left
                budget = max(1, (cfg.max_env_steps - run.env_steps) // (cfg.rounds - r + 1))
            played = run.collect(budget)
            if cfg.max_env_steps and r == 1 and played < cfg.games_per_round:
                note = scale_to_share(cfg, played / cfg.games_per_round, given)
                if note:
                    print(f"{played} of {cfg.games_per_round} data games in this round's share of "
                          f"max_env_steps {cfg.max_env_steps:,}: {note}", flush=True)
                    with open(out / "config.yaml", "w") as fh:   # the sizes the run uses
                        yaml.safe_dump(dataclasses.asdict(cfg), fh, sort_keys=False)
            stage = f"round {r} (fitting the value)"
            err = run.fit(r)
            save_value(run.net, trial, run.meta([]))
            stage = f"round {r} (phase trials)"
            run.accepted = run.accept(r, trial)
            extra = {"held_out_mse": round(err, 5), "round": r, "wall_seconds": round(time.time() - run.t0, 1),
                     "accept": run.accepted}
            save_value(run.net, path, run.meta(run.accepted, extra))
            done = r
            trial.unlink()
            stage = f"round {r} (evaluation)"
            run.curve_point(path, tag=f"round_{r}")
            if cfg.time_limit_minutes and time.time() - run.t0 > 60 * cfg.time_limit_minutes:
                run.log(f"time limit {cfg.time_limit_minutes} min reached after round {r}")
                break
    except KeyboardInterrupt as exc:   # SIGINT / SIGTERM (train/stops.py): say what is kept
        run.close(abort=True)
        trial.unlink(missing_ok=True)
        kept = (f"value.pt of round {done} is kept (play it as vlook:{path})" if done
                else "no value.pt written")
        raise as_stopped(exc).with_detail(f"during {stage}; {kept}; a value_lookahead run cannot be "
                                          f"resumed (start a new one with another --out)") from None
    except BaseException:
        run.close(abort=True)
        raise
    run.close()
    run.log(f"done: {path} (accepted phases: {', '.join(run.accepted) or 'none'}); "
            f"{json.dumps({'games': run.games, 'env_steps': run.env_steps})}")
    return path


def is_value_run(out: Path) -> bool:
    """Whether the run folder ``out`` was written by this algorithm (its value.pt or config.yaml)."""
    if (out / "value.pt").exists():
        return True
    try:
        return is_value_config(read_config_file(out / "config.yaml"))
    except ConfigError:
        return False
