"""``algorithm: search_distill``: expert iteration (search distilled into the network), every game.

    arena train zaka --config configs/train/zaka_distill.yaml --out runs/zaka/distill
    arena train zaka --out runs/zaka/distill --resume --set iterations=40   # continue
    arena eval zaka --agents ppo:runs/zaka/distill/best.zip heuristic --games 400

Each iteration (Anthony et al. 2017, "Thinking fast and slow with deep learning and tree search";
AlphaZero; for hidden information, search over determinizations of the mover's view as IS-MCTS and
the project's ``puct`` agent do):

1. **Self-play with search.** ``games_per_iteration`` games of the best network against itself,
   ``parallel_games`` of them advancing in lockstep. At every decision with two or more legal moves
   the mover runs ``simulations`` PUCT simulations (``agents/puct.py``'s tree: open loop, each
   simulation from a fresh ``state.determinize(seat, rng)`` of the mover's view, never the real
   hidden state; priors from the network's softmax over the sample's legal moves, first-play urgency
   at the parent's mean). Every simulation step sends the leaves of *all* games' searches through
   one batched forward pass (on one torch thread, in numpy where the network has a numpy twin).
   A leaf is scored by the value head, or with ``rollout_weight`` > 0 also by a playout of the
   network's own sampled moves to the end, all the step's playouts advancing together with one
   forward pass a move (``agents/rollout.py``'s batching): ``(1 - w) * value + w * playout``.
   The root's priors get Dirichlet noise (``dirichlet_alpha``, ``dirichlet_fraction``); for the
   first ``temperature_moves`` decisions of a game the move is drawn in proportion to the root's
   visits, then it is the most visited (ties: the higher prior).
   ``search: rollout`` replaces PUCT with policy-rollout search (``agents/rollout.py``, the
   ``rollout:N`` agent: the network's ``rollout_top_k`` best moves, each played out to the end
   ``simulations`` times from fresh determinizations by uniformly random moves or the network's
   sampled ones, ``rollout_allocation`` spreading the playouts, the best mean return chosen), for
   games where such a search is far stronger than the network and its value head (Peacekeepers:
   docs/training-notes.md, "Distilling the rollout search"). Its cost is the
   playouts, not the network, so whole games run in ``workers`` processes (the same chunk with any
   number). The visit shares are then each candidate's share of the rollouts, ``completed_q`` uses
   their mean returns as Q, and ``move`` (either search) learns the search's choice one-hot.
2. **Targets.** Every seat's positions (every seat learns): the mover's observation, the root's
   visit distribution over the legal moves (sums to one over them, zero elsewhere; a forced move is
   the one move, which teaches the value only), and the game's result for the seat's player
   (``Game.agent_returns`` of ``state.returns()``: +1/-1 with two players, rank returns summing to
   0 with more; a game stopped at ``max_steps`` is 0). The value head reads one seat's observation
   and predicts that seat's result; the search credits the other players ``-v / (n - 1)``.
   Two options: ``policy_target: completed_q`` learns Gumbel MuZero's improved policy instead of
   the visit shares (``completed_q_target``: the prior shifted towards the moves whose searched Q
   is high, every legal move kept; at a few dozen simulations over a hundred moves the visit shares
   are mostly zeros and noise), and ``root_value_weight`` w learns ``(1 - w) x result + w x`` the
   root's searched value (a searched decision; a forced move learns the result).
3. **Learning.** A replay buffer of the most recent ``replay_positions`` positions (whole
   iterations are dropped, oldest first); ``ceil(train_passes x new positions / batch_size)``
   Adam steps of cross-entropy between the masked softmax and the policy target plus
   ``value_coef`` x the squared error of the value head, gradient norm clipped at 1.
4. **Gating.** The trained network plays the best one ``gate_games`` seat-balanced games, both
   without search (argmax; with n players one trained network against n - 1 best ones). It
   replaces the best unless it is significantly worse: the Wilson 95% upper bound of its score
   (wins + draws / 2) is below the fair share 1/n. A gate that asked for a significant gain would
   freeze the run: one iteration moves a network a point or two, which a few hundred games cannot
   tell apart; this one stops a collapse and otherwise lets the run move on (AlphaZero dropped the
   gate altogether). ``gate_games: 0`` accepts every network. Self-play always uses the best.
5. **Evaluation** every ``eval_every`` iterations and at the end: the best network alone against
   each ``eval_opponents`` entry (spec: games; with n players against n - 1 of them), for the
   learning curve by minutes and by self-play games.

Seeding the first network: ``init_policy`` (a shipped agent's name or a checkpoint: its network and
weights), or a fresh ``network`` (the PPO config's network keys, ``train/config.py``), cloned from
the heuristic first when ``clone`` sets ``bc_games`` (``train/imitation.py``: cloning, DAgger).

Run folder: ``config.yaml``; ``checkpoint.zip`` (the trained network with its Adam state and the
loop's state: iteration, generator, replay files: what ``--resume`` reads); ``best.zip`` (the gated
network, ``ppo:PATH`` / ``puct:N:PATH`` / ``rollout:N:PATH`` play it); ``snapshots/iter_*.zip``
(each accepted network); ``replay/iter_*.npz`` (the buffer, one file an iteration); ``curve.csv``
/ ``curve.png``; ``iterations.csv`` (self-play, learning and gate numbers of every iteration);
``eval/``. Every engine seed of self-play is even (the evaluator's are odd). A stop (SIGINT /
SIGTERM) keeps the checkpoint of the last finished iteration; ``--resume`` replays the cut
iteration from the same generator state, so it is the iteration the run would have played.
"""
from __future__ import annotations

import csv
import dataclasses
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import envs
from ..agents.registry import has_heuristic, make_agent
from ..envs.core.options import Option
from .config import NETWORK_SHAPE_KEYS, ConfigError, with_overrides
from .config import from_dict as ppo_from_dict
from .curves import curve_title, read_curve, write_curve
from .distill_selfplay import Chunk, Forward, RolloutSelfPlay, SelfPlay, copy_policy, lr_schedule
from .evaluate import evaluate, field_against, wilson_interval
from .progress import progress_bar
from .schema import ANY_VALUE, check_config, count, number
from .stops import as_stopped, deferred
from .stops import check as check_stop

ALGORITHM = "search_distill"
#: ``policy_target``: what the policy learns at a searched decision
POLICY_TARGETS = ("visits", "completed_q", "move")
#: ``search``: PUCT over the value head (lockstep, batched leaves) or policy-rollout search
#: (``agents/rollout.py``: the network's top candidates, each played out to the end many times)
SEARCHES = ("puct", "rollout")
#: evaluation seeds (``evaluate(seed=...)``): the curve's as PPO's (train/ppo.py), the gate's per iteration
EVAL_SEED_BASE, GATE_SEED_BASE = 7919, 104_729
#: gradient norm clip of the learning steps
MAX_GRAD_NORM = 1.0
#: the PPO config's keys that describe a fresh network (``network:``) and the warm start (``clone:``)
NETWORK_KEYS = NETWORK_SHAPE_KEYS   # the PPO config's network keys (train/config.py)
CLONE_KEYS = ("bc_games", "bc_epochs", "bc_patience", "bc_keep", "dagger_rounds", "dagger_games",
              "dagger_epochs")
#: keys that fix the network or the data it learns from: they cannot change on --resume
FIXED_ON_RESUME = ("env_options", "init_policy", "network", "clone", "seed")


@dataclass
class SearchDistillConfig:
    algorithm: str = ALGORITHM
    env_options: dict = field(default_factory=dict)   #: options for the game (e.g. num_players: 2)
    seed: int = 0                          #: seeds self-play, learning and evaluation
    max_steps: int = 1000                  #: move cap of a game (self-play, playouts, evaluation); 0 result there
    init_policy: str = ""                  #: first network: a shipped agent's name or a checkpoint path
    network: dict = field(default_factory=dict)   #: or a fresh one: train/config.py's network keys
    clone: dict = field(default_factory=dict)     #: fresh network only: train/config.py's bc_* / dagger_* keys
    iterations: int = 20                   #: self-play / learn / gate / evaluate rounds (a resumed run goes on to it)
    games_per_iteration: int = 64          #: self-play games an iteration
    parallel_games: int = 32               #: games advancing in lockstep (their leaves share a forward pass)
    search: str = "puct"                   #: puct, or rollout (policy-rollout search, self-play in `workers` processes)
    simulations: int = 32                  #: PUCT simulations a decision (>= 2); search rollout: rollouts a candidate
    rollout_top_k: int = 16                #: search rollout: candidates (the network's best moves)
    rollout_gate: float = 1.0              #: search rollout: no search where the network's best move has this prior
    rollout_policy: str = "random"         #: search rollout: random (uniform playouts) or network (sampled moves)
    rollout_allocation: str = "halving"    #: search rollout: halving (sequential halving) or uniform
    c_puct: float = 1.5                    #: exploration constant of PUCT
    rollout_weight: float = 0.0            #: leaf value: (1 - w) x value head + w x a playout of the network
    dirichlet_alpha: float = 0.3           #: root noise: Dirichlet(alpha) over the legal moves
    dirichlet_fraction: float = 0.25       #: root priors: (1 - f) x the network's + f x the noise
    temperature_moves: int = 10            #: first decisions of a game drawn by visit counts, then the most visited
    policy_target: str = "visits"          #: visits (the root's visit shares), completed_q (Gumbel MuZero's) or move
    c_visit: float = 50.0                  #: completed_q: sigma(q) = (c_visit + max visits) x c_scale x q
    c_scale: float = 0.1                   #: completed_q: see c_visit
    root_value_weight: float = 0.0         #: value target: (1 - w) x the result + w x the search's root value
    replay_positions: int = 100_000        #: the replay buffer keeps the newest iterations up to this many positions
    train_passes: float = 4.0              #: learning steps = ceil(this x new positions / batch_size)
    batch_size: int = 256                  #: positions a learning step
    learning_rate: float = 1e-4            #: Adam step size
    value_coef: float = 1.0                #: weight of the value's squared error
    gate_games: int = 200                  #: new network vs the best, network alone (0 = accept every one)
    eval_every: int = 1                    #: iterations between evaluations (and one at the end)
    eval_opponents: dict = field(default_factory=lambda: {"heuristic": 100, "random": 50})  #: spec: games
    workers: int = 2                       #: evaluation processes (and self-play's with search rollout)
    torch_threads: int = 1                 #: torch threads of this process
    device: str = "cpu"                    #: cpu, cuda or auto: where the network learns and self-play's leaves run
    time_limit_minutes: float = 0.0        #: stop after the iteration that passes this (0 = none)
    progress: bool = True                  #: progress bars (the log's line an iteration is printed either way)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _section(name: str, keys: tuple[str, ...], doc: str) -> Option:
    """A mapping of some of the PPO config's keys (their values are checked there: ``ppo_config``)."""
    return Option(name, dict, {}, doc, fields=tuple(Option(k, ANY_VALUE, None, f"the PPO config's {k}")
                                                   for k in keys))


#: the keys of an ``algorithm: search_distill`` config (train/schema.py checks a config against them)
SCHEMA = (
    Option("algorithm", str, ALGORITHM, "the trainer (train/trainers.py picks by it)", choices=(ALGORITHM,)),
    Option("env_options", dict, {}, "options for the game (e.g. num_players: 2)"),
    count("seed", 0, 0, "seeds self-play, learning and evaluation"),
    count("max_steps", 1000, 1, "move cap of a game (self-play, playouts, evaluation); 0 result there"),
    Option("init_policy", str, "", "first network: a shipped agent's name or a checkpoint path"),
    _section("network", NETWORK_KEYS, "or a fresh one: train/config.py's network keys"),
    _section("clone", CLONE_KEYS, "fresh network only: train/config.py's bc_* / dagger_* keys"),
    count("iterations", 20, 1, "self-play / learn / gate / evaluate rounds (a resumed run goes on to it)"),
    count("games_per_iteration", 64, 1, "self-play games an iteration"),
    count("parallel_games", 32, 1, "games advancing in lockstep (their leaves share a forward pass)"),
    Option("search", str, "puct", "puct (PUCT over the value head, games in lockstep) or rollout (policy-rollout "
           "search: the network's top candidates played out to the end, self-play in `workers` processes)",
           choices=SEARCHES),
    count("simulations", 32, 2, "PUCT simulations a decision (>= 2; the first expands the root); with search: "
          "rollout, the rollouts a candidate (N of rollout:N)"),
    count("rollout_top_k", 16, 1, "search rollout: candidates, the network's best moves (k=)"),
    number("rollout_gate", 1.0, "search rollout: play the network's move unsearched where its prior is at least "
           "this (gate=)", low=1e-6, high=1.0),
    Option("rollout_policy", str, "random", "search rollout: random (uniform playouts, by=random) or network "
           "(the network's sampled moves)", choices=("random", "network")),
    Option("rollout_allocation", str, "halving", "search rollout: halving (sequential halving) or uniform (alloc=)",
           choices=("halving", "uniform")),
    number("c_puct", 1.5, "exploration constant of PUCT", low=1e-6, high=1e3),
    number("rollout_weight", 0.0, "leaf value: (1 - w) x value head + w x a playout of the network", low=0.0, high=1.0),
    number("dirichlet_alpha", 0.3, "root noise: Dirichlet(alpha) over the legal moves", low=1e-6, high=1e3),
    number("dirichlet_fraction", 0.25, "root priors: (1 - f) x the network's + f x the noise", low=0.0, high=1.0),
    count("temperature_moves", 10, 0, "first decisions of a game drawn by visit counts, then the most visited"),
    Option("policy_target", str, "visits", "visits (the root's visit shares; search rollout: each candidate's "
           "share of the rollouts), completed_q (Gumbel MuZero's improved policy: softmax(logits + sigma(completed "
           "Q))) or move (the move the search chose, one-hot)", choices=POLICY_TARGETS),
    number("c_visit", 50.0, "completed_q: sigma(q) = (c_visit + max visits) x c_scale x q", low=0.0, high=1e6),
    number("c_scale", 0.1, "completed_q: see c_visit", low=0.0, high=1e6),
    number("root_value_weight", 0.0, "value target: (1 - w) x the result + w x the search's root value",
           low=0.0, high=1.0),
    count("replay_positions", 100_000, 1, "the replay buffer keeps the newest iterations up to this many positions"),
    number("train_passes", 4.0, "learning steps = ceil(this x new positions / batch_size)", low=0.0, high=1e4),
    count("batch_size", 256, 1, "positions a learning step"),
    number("learning_rate", 1e-4, "Adam step size", low=1e-9, high=1.0),
    number("value_coef", 1.0, "weight of the value's squared error", low=0.0, high=1e3),
    count("gate_games", 200, 0, "new network vs the best, network alone (0 = accept every one)"),
    count("eval_every", 1, 1, "iterations between evaluations (and one at the end)"),
    Option("eval_opponents", dict, {"heuristic": 100, "random": 50},
           "agent spec: games, e.g. {heuristic: 200, 'mcts:200': 20}",
           keys=Option("agent spec", str, size=(1, 10_000)), each=Option("games", int, low=0)),
    count("workers", 2, 1, "evaluation processes (and self-play's with search: rollout)"),
    count("torch_threads", 1, 1, "torch threads of this process"),
    Option("device", str, "cpu", "where the network learns and self-play's leaves run (auto: cuda if there is one)",
           choices=("cpu", "cuda", "auto")),
    number("time_limit_minutes", 0.0, "stop after the iteration that passes this (0 = none)", low=0.0, high=1e9),
    Option("progress", bool, True, "progress bars (the log's line an iteration is printed either way)"),
)


def is_distill_config(data: Any) -> bool:
    return isinstance(data, dict) and data.get("algorithm") == ALGORITHM


def from_dict(data: Any, source: str) -> SearchDistillConfig:
    """A checked config (``SCHEMA``): unknown keys (with a suggestion), wrong types (no coercion:
    a string is not a number) and out-of-range values raise ConfigError naming the key."""
    checked = check_config(SCHEMA, data, source, f"for algorithm {ALGORITHM} (its keys: train/search_distill.py)")
    if checked["init_policy"] and (checked["network"] or checked["clone"]):
        raise ConfigError(f"{source}: init_policy brings its own network and weights: leave network and "
                          f"clone out, or init_policy empty")
    cfg = SearchDistillConfig(**checked)
    if cfg.network or cfg.clone:
        ppo_config(cfg, source)   # the network and cloning keys are checked as the PPO config checks them
    return cfg


def ppo_config(cfg: SearchDistillConfig, source: str = "config"):
    """The ``train.config.TrainConfig`` of the network and clone sections (checked there, a
    mistake named by the key as the PPO config names it)."""
    data = {**cfg.network, **cfg.clone, "seed": cfg.seed, "max_steps": cfg.max_steps, "progress": cfg.progress,
            "env_options": cfg.env_options}
    return ppo_from_dict(data, source=f"{source} (network / clone)")


# ==============================================================================================
# the network: leaves, seeding, learning
# ==============================================================================================
def new_policy(game, cfg: SearchDistillConfig, device: str):
    """A fresh ArenaPolicy from the ``network`` section (the PPO config's network keys)."""
    from gymnasium import spaces

    from ..agents.policy_net import ArenaPolicy
    from .ppo import gymnasium_box, policy_kwargs
    tcfg = ppo_config(cfg)
    kwargs = policy_kwargs(game, tcfg)
    policy = ArenaPolicy(gymnasium_box(game.observation_size), spaces.Discrete(game.num_actions),
                         lr_schedule(cfg.learning_rate), **kwargs)
    return policy.to(device)


def policy_from_checkpoint(path, device: str, trust: bool = False):
    """A trainable copy of a checkpoint's network and weights (with a fresh Adam optimizer)."""
    from ..agents.checkpoint import CheckpointError, load_policy, read_metadata
    if read_metadata(path).get("heuristic_hint"):
        raise CheckpointError(f"{path}: a policy that reads the heuristic's hint (heuristic_hint) is not "
                              f"supported by search_distill")
    return copy_policy(load_policy(path, trust=trust), device)


def set_learning_rate(policy, lr: float) -> None:
    for group in policy.optimizer.param_groups:
        group["lr"] = lr * float(group.get("lr_scale", 1.0))


# ==============================================================================================
# the replay buffer and the learning steps
# ==============================================================================================
class Replay:
    """The newest iterations' chunks, at most ``capacity`` positions (whole chunks dropped, oldest
    first; the newest chunk is always kept)."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.chunks: list[tuple[int, Chunk]] = []   # (iteration, chunk)

    def __len__(self) -> int:
        return sum(len(c) for _, c in self.chunks)

    def add(self, iteration: int, chunk: Chunk) -> None:
        self.chunks.append((iteration, chunk))
        while len(self.chunks) > 1 and len(self) - len(self.chunks[0][1]) >= self.capacity:
            self.chunks.pop(0)

    def batch(self, rng: np.random.Generator, size: int, num_actions: int):
        """(observations float32, legal masks, target distributions, values) of ``size``
        positions drawn uniformly with replacement."""
        sizes = np.asarray([len(c) for _, c in self.chunks])
        idx = np.sort(rng.integers(int(sizes.sum()), size=size))
        which = np.searchsorted(np.cumsum(sizes), idx, side="right")
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        obs, masks, targets, values = [], [], [], []
        for k in np.unique(which):
            c = self.chunks[int(k)][1]
            rows = idx[which == k] - starts[k]
            obs.append(c.obs[rows].astype(np.float32))
            values.append(c.value[rows])
            lo, hi = c.ptr[rows], c.ptr[rows + 1]
            lens = hi - lo
            flat = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi)])
            r = np.repeat(np.arange(len(rows)), lens)
            m = np.zeros((len(rows), num_actions), bool)
            t = np.zeros((len(rows), num_actions), np.float32)
            m[r, c.legal[flat]] = True
            t[r, c.legal[flat]] = c.target[flat]
            masks.append(m)
            targets.append(t)
        return np.concatenate(obs), np.concatenate(masks), np.concatenate(targets), np.concatenate(values)


def learn(policy, replay: Replay, steps: int, cfg: SearchDistillConfig, rng: np.random.Generator,
          num_actions: int) -> dict[str, float]:
    """``steps`` Adam steps on batches from ``replay``: cross-entropy to the visit distribution
    (over the legal moves) + ``value_coef`` x squared error of the value; mean losses."""
    import torch

    from ..agents.policy_net import latents
    policy.set_training_mode(True)
    set_learning_rate(policy, cfg.learning_rate)
    dev = policy.device
    tot_p = tot_v = 0.0
    for _ in range(steps):
        check_stop()   # a stop whose exception was lost (train/stops.py)
        o, m, t, v = replay.batch(rng, cfg.batch_size, num_actions)
        obs = torch.as_tensor(o, device=dev)
        mask = torch.as_tensor(m, device=dev)
        target = torch.as_tensor(t, device=dev)
        latent_pi, latent_vf = latents(policy, obs)
        logits = policy.action_net(latent_pi).masked_fill(~mask, -1e9)
        logp = torch.log_softmax(logits, dim=1).masked_fill(~mask, 0.0)
        policy_loss = -(target * logp).sum(dim=1).mean()
        value_loss = torch.nn.functional.mse_loss(policy.value_net(latent_vf).flatten(),
                                                  torch.as_tensor(v, device=dev))
        loss = policy_loss + cfg.value_coef * value_loss
        policy.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), MAX_GRAD_NORM)
        policy.optimizer.step()
        tot_p += float(policy_loss.detach())
        tot_v += float(value_loss.detach())
    policy.set_training_mode(False)
    return {"policy_loss": tot_p / max(steps, 1), "value_loss": tot_v / max(steps, 1)}


# ==============================================================================================
# the run
# ==============================================================================================
def _rng_state(rng: np.random.Generator) -> dict:
    return dict(rng.bit_generator.state)


def _rng_from(state: Any, where: str) -> np.random.Generator:
    from ..agents.checkpoint import CheckpointError
    rng = np.random.default_rng()
    try:
        rng.bit_generator.state = state
    except (TypeError, ValueError, KeyError) as exc:
        raise CheckpointError(f"{where}: the generator state is not one numpy can take: {exc}") from None
    return rng


def _write_rows(path: Path, rows: list[dict]) -> None:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, path)


def _read_rows(path: Path, upto: int) -> list[dict]:
    """The rows of ``path`` (iterations.csv) up to iteration ``upto`` (a resume drops the rest)."""
    if not path.is_file():
        return []
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [r for r in rows if r.get("iteration", "").isdigit() and int(r["iteration"]) <= upto]


def gate_accepts(score: float, games: int, players: int) -> bool:
    """The gate's rule: the new network (``score`` = wins + draws / 2 of ``games`` against the best)
    is accepted unless the Wilson 95% upper bound of its score is below the fair share 1/players."""
    return games == 0 or wilson_interval(score, games)[1] >= 1.0 / players


class _Run:
    """The run folder, the networks, the buffer and the loop's counters."""

    def __init__(self, game_id: str, cfg: SearchDistillConfig, out: Path, trust: bool):
        from .ppo import available_opponents, cpu_time, resolve_device
        self.game_id, self.cfg, self.out, self.trust = game_id, cfg, out, trust
        self.game = envs.make_game(game_id, **cfg.env_options)
        self.device = resolve_device(cfg.device)
        self.rng = np.random.default_rng([cfg.seed, 45])   # everything the loop draws comes from here
        self.replay = Replay(cfg.replay_positions)
        self.iteration = self.best_iteration = 0
        self.games = self.positions = self.updates = 0
        self.saved: int | None = None   # the iteration of the last checkpoint.zip
        self.stage = "the start of the run"
        self.policy: Any = None   # the network that learns
        self.best: Any = None     # the gated network: self-play and evaluation
        self.t0, self.cpu0 = time.time(), cpu_time()
        self.wall_offset = self.cpu_offset = 0.0
        opponents = available_opponents(self.game, [s for s, n in cfg.eval_opponents.items() if n > 0])
        self.eval_opponents = [(s, cfg.eval_opponents[s]) for s in opponents]
        self.curve: list[dict] = []
        self.rows: list[dict] = []
        self.last_eval: dict[str, list[float]] = {}

    # -- clocks and words ------------------------------------------------------------------------
    def wall_seconds(self) -> float:
        return self.wall_offset + time.time() - self.t0

    def cpu_seconds(self) -> float:
        from .ppo import cpu_time
        return self.cpu_offset + cpu_time() - self.cpu0

    def log(self, msg: str) -> None:
        """A line of the run's log (printed with or without ``progress``, which is the bars)."""
        print(f"[{self.wall_seconds() / 60:6.1f} min] {msg}", flush=True)

    def stop_words(self) -> str:
        if self.saved is None:
            return (f"during {self.stage}; no checkpoint written (the first is saved once the first network "
                    f"is made): start the run again without --resume")
        return (f"during {self.stage}; {self.out / 'checkpoint.zip'} of iteration {self.saved} is kept "
                f"(continue with --resume)")

    # -- files -----------------------------------------------------------------------------------
    def snapshot_path(self, iteration: int) -> Path:
        return self.out / "snapshots" / f"iter_{iteration:05d}.zip"

    def replay_path(self, iteration: int) -> Path:
        return self.out / "replay" / f"iter_{iteration:05d}.npz"

    def meta(self, iteration: int) -> dict[str, Any]:
        from ..agents.checkpoint import game_metadata
        m = game_metadata(self.game, self.game_id)
        m.update(algorithm=ALGORITHM, timesteps=self.positions, config=self.cfg.to_dict(), iteration=iteration,
                 saved_at=time.strftime("%Y-%m-%d %H:%M:%S"), wall_seconds=round(self.wall_seconds(), 1),
                 cpu_seconds=round(self.cpu_seconds(), 1), last_eval=self.last_eval)
        return m

    def save(self, accepted: bool) -> None:
        """The iteration's files, in an order that a crash or a stop at any point leaves a run that
        resumes: the replay file and the accepted network first, then checkpoint.zip (which names
        them), then best.zip and the clean-up. A stop waits until they are written."""
        from ..agents.checkpoint import write_checkpoint
        k = self.iteration
        with deferred():
            if k > 0 and self.replay.chunks and self.replay.chunks[-1][0] == k:
                self.replay_path(k).parent.mkdir(parents=True, exist_ok=True)
                self.replay.chunks[-1][1].save(self.replay_path(k))
            if accepted:
                write_checkpoint(self.snapshot_path(k), self.meta(k), self.best)
            meta = self.meta(k)
            meta["search_distill"] = {
                "iteration": k, "best_iteration": self.best_iteration, "games": self.games,
                "positions": self.positions, "updates": self.updates, "rng": _rng_state(self.rng),
                "replay": [self.replay_path(i).name for i, _ in self.replay.chunks]}
            write_checkpoint(self.out / "checkpoint.zip", meta, self.policy, self.policy.optimizer.state_dict(),
                             {"num_timesteps": self.positions, "n_updates": self.updates, "episode_num": self.games})
            self.saved = k
            if accepted:
                write_checkpoint(self.out / "best.zip", self.meta(k), self.best)
            keep = set(meta["search_distill"]["replay"])
            for old in (self.out / "replay").glob("iter_*.npz") if (self.out / "replay").is_dir() else []:
                if old.name not in keep:
                    old.unlink()
            if self.rows:
                _write_rows(self.out / "iterations.csv", self.rows)

    # -- the first network, or the checkpoint's --------------------------------------------------
    def start_fresh(self) -> None:
        cfg = self.cfg
        if cfg.init_policy:
            self.stage = f"loading init_policy {cfg.init_policy}"
            path = init_policy_path(cfg, self.game, self.trust)
            self.policy = policy_from_checkpoint(path, self.device, self.trust)
            self.log(f"first network: {cfg.init_policy} ({path})")
        else:
            self.stage = "building the network"
            self.policy = new_policy(self.game, cfg, self.device)
            if cfg.clone.get("bc_games", 0) > 0:
                from .imitation import warm_start
                if not has_heuristic(self.game):
                    raise ConfigError(f"clone: {self.game.name} has no heuristic to clone")
                warm_start(self.policy, self.game, ppo_config(cfg), log=self.log, out=self.out,
                           on_phase=lambda what: setattr(self, "stage", f"the warm start ({what})"))
                self.policy.to(self.device)
        self.policy.set_training_mode(False)
        self.best = copy_policy(self.policy, self.device)
        self.stage = "saving the first network"
        self.save(accepted=True)

    def start_resumed(self, ckpt: Path, meta: dict) -> None:
        from ..agents.checkpoint import CheckpointError, check_compatible, decode_spec, load_policy, read_training_state
        self.stage = "loading the checkpoint"
        check_compatible(meta, self.game, ckpt)
        state = meta.get("search_distill")
        if not isinstance(state, dict):
            raise CheckpointError(f"{ckpt} holds no search_distill state")
        try:
            k, b = int(state["iteration"]), int(state["best_iteration"])
            games, positions, updates = int(state["games"]), int(state["positions"]), int(state["updates"])
            names = [str(n) for n in state["replay"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise CheckpointError(f"{ckpt}: corrupt search_distill state: {exc!r}") from None
        weights, optimizer, _ = read_training_state(ckpt, meta)
        cls, obs, act, kwargs = decode_spec(meta["policy"], ckpt)
        self.policy = cls(obs, act, lr_schedule(self.cfg.learning_rate), **kwargs).to(self.device)
        try:
            self.policy.load_state_dict(weights)
            self.policy.optimizer.load_state_dict(optimizer)
        except Exception as exc:   # noqa: BLE001 - an optimizer state of another network
            raise CheckpointError(f"cannot resume from {ckpt}: {type(exc).__name__}: {exc}") from None
        self.policy.set_training_mode(False)
        self.best = copy_policy(load_policy(self.snapshot_path(b)), self.device)
        for name in names:
            if not name.startswith("iter_") or not name.endswith(".npz") or not name[5:-4].isdigit():
                raise CheckpointError(f"{ckpt}: replay file name {name!r} is not one this trainer writes")
            self.replay.chunks.append((int(name[5:-4]), Chunk.load(self.out / "replay" / name, self.game.observation_size,
                                                                  self.game.num_actions)))
        self.rng = _rng_from(state.get("rng"), str(ckpt))
        self.iteration, self.best_iteration, self.saved = k, b, k
        self.games, self.positions, self.updates = games, positions, updates
        self.wall_offset = float(meta.get("wall_seconds", 0.0))
        self.cpu_offset = float(meta.get("cpu_seconds", 0.0))
        self.last_eval = meta.get("last_eval") or {}
        self.curve = [r for r in read_curve(self.out / "curve.csv") if r.get("iteration", math.inf) <= k]
        self.rows = _read_rows(self.out / "iterations.csv", k)
        self.log(f"resumed at iteration {k} ({games} self-play games, {len(self.replay)} positions in the "
                 f"buffer, best network of iteration {b})")

    # -- one iteration ---------------------------------------------------------------------------
    def step(self) -> None:
        cfg = self.cfg
        k = self.iteration + 1
        self.stage = f"iteration {k} (self-play)"
        t0 = time.time()
        selfplay: SelfPlay | RolloutSelfPlay
        if cfg.search == "rollout":
            selfplay = RolloutSelfPlay(self.game_id, self.game, cfg, self.snapshot_path(self.best_iteration), self.trust)
        else:
            selfplay = SelfPlay(self.game, cfg, Forward(self.best))
        bar = None
        if cfg.progress:
            bar = progress_bar(cfg.games_per_iteration, f"iteration {k}/{cfg.iterations} self-play", "game",
                               leave=False)
        try:
            chunk, info = selfplay.play(cfg.games_per_iteration, self.rng, first_number=self.games, bar=bar)
        finally:
            if bar is not None:
                bar.close()
        t_play = time.time() - t0
        self.replay.add(k, chunk)
        self.games += info["games"]
        self.positions += len(chunk)
        self.stage = f"iteration {k} (learning)"
        t1 = time.time()
        steps = math.ceil(cfg.train_passes * len(chunk) / cfg.batch_size)
        losses = learn(self.policy, self.replay, steps, cfg, self.rng, self.game.num_actions)
        self.updates += steps
        t_learn = time.time() - t1
        self.stage = f"iteration {k} (gate)"
        accepted, gate = self.gate(k)
        self.iteration = k
        if accepted:
            self.best.load_state_dict(self.policy.state_dict())
            self.best_iteration = k
        st = selfplay.stats
        row = {"iteration": k, "selfplay_games": self.games, "positions": self.positions, "new_positions": len(chunk),
               "buffer": len(self.replay), "moves_per_game": round(info["moves"] / max(info["games"], 1), 1),
               "capped_games": info["capped"], "searches": st["searches"], "leaves": st["leaves"],
               "playout_moves": st["playout_moves"], "selfplay_s": round(t_play, 1), "forward_s": round(st["forward_s"], 1),
               "playout_s": round(st["playout_s"], 1), "learn_steps": steps, "learn_s": round(t_learn, 1),
               "policy_loss": round(losses["policy_loss"], 4), "value_loss": round(losses["value_loss"], 4),
               **gate, "accepted": accepted, "best_iteration": self.best_iteration,
               "minutes": round(self.wall_seconds() / 60, 2), "cpu_minutes": round(self.cpu_seconds() / 60, 2)}
        self.rows.append(row)
        self.stage = f"iteration {k} (saving)"
        self.save(accepted)
        gate_words = (f"gate {100 * gate['gate_score']:.1f}% [{100 * gate['gate_ci_low']:.1f}, "
                      f"{100 * gate['gate_ci_high']:.1f}] of {gate['gate_games']}" if gate["gate_games"] else "no gate")
        search_words = (f"{st['searches']} searches, {st['leaves']} rollouts" if cfg.search == "rollout" else
                        f"{st['leaves']} leaves, forward {st['forward_s']:.0f}s, playouts {st['playout_s']:.0f}s")
        self.log(f"iteration {k}: {info['games']} games ({row['moves_per_game']} moves each), {len(chunk)} positions "
                 f"(buffer {len(self.replay)}), self-play {t_play:.0f}s ({search_words}); {steps} steps {t_learn:.0f}s, "
                 f"loss policy {losses['policy_loss']:.3f} value {losses['value_loss']:.3f}; {gate_words}: "
                 + ("accepted" if accepted else f"kept iteration {self.best_iteration}"))

    def gate(self, k: int) -> tuple[bool, dict[str, Any]]:
        """The trained network against the best, both without search (see the module docstring)."""
        from .ppo import _LearnerFactory
        cfg = self.cfg
        if cfg.gate_games == 0:
            return True, {"gate_games": 0, "gate_score": math.nan, "gate_ci_low": math.nan, "gate_ci_high": math.nan}
        n = self.game.num_agents
        entrants = [_LearnerFactory(self.policy)] + [_LearnerFactory(self.best)] * (n - 1)
        names = ["new"] + [f"best_{i}" for i in range(1, n)]
        report = evaluate(self.game, entrants, names=names, games=cfg.gate_games, workers=1,
                          seed=GATE_SEED_BASE + 1000 * cfg.seed + k, opening_moves=2, max_steps=cfg.max_steps,
                          progress=False, bootstrap=0)
        a = report.agent("new")
        score = a["wins"] + 0.5 * a["draws"]
        lo, hi = wilson_interval(score, a["games"])
        return gate_accepts(score, a["games"], n), {
            "gate_games": a["games"], "gate_score": round(score / a["games"], 4), "gate_ci_low": round(lo, 4),
            "gate_ci_high": round(hi, 4)}

    def curve_point(self) -> None:
        """The best network alone against each evaluation opponent (n - 1 of them with n players)."""
        cfg = self.cfg
        k, b = self.iteration, self.best_iteration
        self.stage = f"the evaluation after iteration {k}"
        row: dict[str, Any] = {"timesteps": self.games, "iteration": k, "best_iteration": b,
                               "selfplay_games": self.games, "positions": self.positions,
                               "minutes": round(self.wall_seconds() / 60, 2),
                               "cpu_minutes": round(self.cpu_seconds() / 60, 2),
                               "games": self.eval_opponents[0][1] if self.eval_opponents else 0}
        last = self.curve[-1] if self.curve else None
        n = self.game.num_agents
        for spec, games in self.eval_opponents:
            if last is not None and last.get("best_iteration") == b and f"{spec}_win_rate" in last:
                r, lo, hi = (last[f"{spec}_{x}"] for x in ("win_rate", "ci_low", "ci_high"))   # the same network
            else:
                path = self.snapshot_path(b)
                specs, names = field_against(f"ppo:{path}", spec, n)
                report = evaluate(self.game_id, specs, options=cfg.env_options, names=names,
                                  games=games, workers=cfg.workers, seed=EVAL_SEED_BASE + cfg.seed, opening_moves=2,
                                  max_steps=cfg.max_steps, progress=False, bootstrap=0, trust=self.trust)
                report.write(self.out / "eval" / f"iter_{k:05d}" / spec.replace(":", "_").replace("/", "_"))
                a = report.agent("learner")
                r, (lo, hi) = a["win_rate"], a["win_rate_ci95"]
            row.update({f"{spec}_win_rate": round(float(r), 4), f"{spec}_ci_low": round(float(lo), 4),
                        f"{spec}_ci_high": round(float(hi), 4), f"{spec}_games": games})
            self.last_eval[spec] = [round(float(r), 4), round(float(lo), 4), round(float(hi), 4)]
        self.curve.append(row)
        players = self.game.num_agents
        write_curve(self.curve, self.out / "curve.csv", self.out / "curve.png", steps_label="self-play games",
                    title=f"{curve_title(self.game_id, self.game.options())} search distillation"
                          + (f" ({players}p)" if players > 2 else ""), players=players)
        self.log(f"evaluation of the best network (iteration {b}) after iteration {k}: " + ", ".join(
            f"vs {s} {100 * row[f'{s}_win_rate']:.1f}% [{100 * row[f'{s}_ci_low']:.1f}, "
            f"{100 * row[f'{s}_ci_high']:.1f}] of {row[f'{s}_games']}" for s, _ in self.eval_opponents))

    def evaluation_due(self) -> bool:
        if not self.eval_opponents:
            return False
        if self.curve and self.curve[-1].get("iteration") == self.iteration:
            return False
        return self.iteration % self.cfg.eval_every == 0 or self.iteration >= self.cfg.iterations

    # -- the loop --------------------------------------------------------------------------------
    def loop(self) -> None:
        cfg = self.cfg
        t_call = time.time()
        if self.evaluation_due() or not self.curve:
            self.curve_point()
        while self.iteration < cfg.iterations:
            self.step()
            out_of_time = cfg.time_limit_minutes and time.time() - t_call > 60 * cfg.time_limit_minutes
            if self.evaluation_due() or (out_of_time and self.eval_opponents
                                         and self.curve[-1].get("iteration") != self.iteration):
                self.curve_point()
            if out_of_time:
                self.log(f"time limit {cfg.time_limit_minutes} min reached after iteration {self.iteration} "
                         f"(continue with --resume)")
                break
        self.stage = "the end of the run"


# ==============================================================================================
# entry points: the trainer and arena train
# ==============================================================================================
def init_policy_path(cfg: SearchDistillConfig, game, trust: bool) -> str:
    """``init_policy``'s file (a shipped agent's name or a path), checked from its metadata
    (``train.ppo.init_policy_path``: the PPO trainer's check)."""
    from .ppo import init_policy_path as checked
    return checked(cfg.init_policy, game, trust)


def default_out(game_id: str, seed: int) -> Path:
    return Path("runs") / game_id.split("_v")[0] / f"distill_seed{seed}"


def _resume_config(ckpt: Path, overrides: dict[str, Any]) -> tuple[SearchDistillConfig, dict]:
    from ..agents.checkpoint import CheckpointError, read_metadata
    meta = read_metadata(ckpt)
    if meta.get("algorithm") != ALGORITHM or not isinstance(meta.get("config"), dict):
        raise CheckpointError(f"{ckpt} is not a {ALGORITHM} checkpoint")
    saved = meta["config"]
    for key in FIXED_ON_RESUME:
        if key in overrides and with_overrides(saved, {key: overrides[key]})[key] != saved.get(key):
            raise ConfigError(f"{key} cannot change when resuming (the checkpoint's: {saved.get(key)!r})")
    return from_dict(with_overrides(saved, overrides), f"{ckpt} config + overrides"), meta


def train_search_distill(game: str, data: dict[str, Any] | None, source: str, out: str | os.PathLike | None,
                         overrides: dict[str, Any], resume: bool = False, trust: bool = False) -> Path:
    """Run (or with ``resume`` continue) ``algorithm: search_distill`` on ``game`` with the config
    keys ``data`` (+ ``overrides``; a resumed run takes its checkpoint's config); return best.zip."""
    import torch
    import yaml

    from .run_control import RunLock
    game_id = envs.resolve(game)
    overrides = {k: v for k, v in overrides.items() if v is not None}
    meta: dict = {}
    if resume:
        if out is None:
            raise ConfigError("--resume needs --out (the run folder to continue)")
        out = Path(out)
        ckpt = out / "checkpoint.zip"
        if not ckpt.is_file():
            why = ("its run stopped before its first checkpoint (saved once the first network is made); "
                   "start it again without --resume") if (out / "config.yaml").is_file() else "there is no run to continue"
            raise ConfigError(f"--resume: {out} has no checkpoint.zip: {why}")
        cfg, meta = _resume_config(ckpt, overrides)
    else:
        from_dict(data, source)          # the file's own mistakes name the file,
        cfg = from_dict(with_overrides(data or {}, overrides), "--set")   # the rest came from the command line
        out = Path(out) if out is not None else default_out(game_id, cfg.seed)
        if (out / "checkpoint.zip").exists():
            raise ConfigError(f"{out} already holds a run (checkpoint.zip); pass --resume to continue it or "
                              f"choose another --out")
    game_obj = envs.make_game(game_id, **cfg.env_options)   # a bad variant fails before the folder is made
    from .ppo import resolve_device
    resolve_device(cfg.device)
    if cfg.init_policy and not resume:
        init_policy_path(cfg, game_obj, trust)
    if not cfg.init_policy and not resume:
        if not cfg.network:
            raise ConfigError(f"{source}: give init_policy (a shipped agent or a checkpoint) or a network section")
        from .ppo import check_network
        check_network(game_obj, ppo_config(cfg))   # a network that does not fit the game: before the folder
    for spec in cfg.eval_opponents:   # a bad opponent fails now, not after an iteration
        make_agent(spec, game_obj, seed=0, trust=trust)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(cfg.torch_threads)
    with RunLock(out) as lock:
        if lock.took_over:
            print(f"{out}: taking over the lock left by pid {lock.took_over} (no longer running)", flush=True)
        with open(out / "config.yaml", "w") as fh:
            yaml.safe_dump(cfg.to_dict(), fh, sort_keys=False)
        run = _Run(game_id, cfg, out, trust)
        try:
            if resume:
                run.start_resumed(out / "checkpoint.zip", meta)
            else:
                run.start_fresh()
            run.loop()
        except KeyboardInterrupt as exc:   # SIGINT / SIGTERM (train/stops.py): say what is kept
            raise as_stopped(exc).with_detail(run.stop_words()) from None
    run.log(f"done: {out / 'best.zip'} (best network of iteration {run.best_iteration}; {run.games} self-play "
            f"games, {run.wall_seconds() / 60:.1f} min wall, {run.cpu_seconds() / 60:.1f} CPU min)")
    return out / "best.zip"

