"""Self-play with search for ``algorithm: search_distill`` (train/search_distill.py, steps 1 and 2 of
its iteration): the batched PUCT self-play (``SelfPlay``: every game's leaves in one forward pass a
simulation step) and the policy-rollout self-play in worker processes (``RolloutSelfPlay``), both
returning a ``Chunk`` of training targets (observations, the search's policy targets over the legal
moves, every seat's result); ``Forward`` is the network's batched leaf evaluation and
``completed_q_target`` Gumbel MuZero's improved policy. The trainer's docstring describes the
settings (``simulations``, ``rollout_weight``, ``policy_target`` and the rest).
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .. import envs
from ..agents.base import RandomAgent
from ..agents.puct import Edge, Node, puct_select
from ..agents.rollout import RolloutAgent
from ..threads import limit_threads, limited_threads
from .play import play_from
from .stops import check as check_stop
from .stops import deferred, end_pool, pool_map, quiet_worker

if TYPE_CHECKING:
    from .search_distill import SearchDistillConfig


class Forward:
    """(logits over every action, value for the seat to act) of a batch of observations: one
    forward pass, in numpy where the network has a numpy twin on the CPU (``numpy_outputs``,
    Zaka's slot network), else torch in inference mode. Values are clipped to [-1, 1]."""

    def __init__(self, policy):
        from ..agents.policy_net import numpy_outputs
        self.policy = policy
        self.fast = numpy_outputs(policy)

    def __call__(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.asarray(obs, np.float32)
        if self.fast is not None:
            logits, values = self.fast(obs)
        else:
            import torch

            from ..agents.policy_net import latents
            p = self.policy
            with torch.inference_mode():
                latent_pi, latent_vf = latents(p, torch.as_tensor(obs, device=p.device))
                logits = p.action_net(latent_pi).cpu().numpy()
                values = p.value_net(latent_vf)[:, 0].cpu().numpy()
        return np.asarray(logits, np.float64), np.clip(np.asarray(values, np.float64), -1.0, 1.0)


def lr_schedule(lr: float) -> Callable[[float], float]:
    return lambda _progress: lr


def copy_policy(policy, device: str):
    """A new policy of the same network (rebuilt from its JSON description, as a checkpoint is)
    with the same weights, in eval mode on ``device``."""
    from ..agents.checkpoint import decode_spec, policy_spec
    cls, obs, act, kwargs = decode_spec(policy_spec(policy))
    new = cls(obs, act, lr_schedule(1e-4), **kwargs)
    new.load_state_dict(policy.state_dict())
    new.set_training_mode(False)
    return new.to(device)


# ==============================================================================================
# self-play with batched search
# ==============================================================================================
def _priors(node: Node, legal: list[int]) -> list[float]:
    """The softmax of the node's logits over ``legal`` (cached for the last legal set seen)."""
    cache = node.prior_cache
    if cache is not None and cache[0] == legal:
        return cache[1]
    assert node.logits is not None
    z = node.logits[legal]
    p = np.exp(z - z.max())
    out = (p / p.sum()).tolist()
    node.prior_cache = (legal, out)
    return out


def _backup(root: Node, path: list[Edge], ret: list[float]) -> None:
    for node in [root] + [e.node for e in path]:
        node.visits += 1
        if node.value_sum is None:
            node.value_sum = list(ret)
        else:
            vs = node.value_sum
            for i, r in enumerate(ret):
                vs[i] += r
    for e in path:
        e.visits += 1
        e.value += ret[e.mover]


class _Game:
    """One self-play game and the positions it has produced so far."""

    __slots__ = ("number", "state", "rng", "decisions", "obs", "legal", "targets", "owners", "root_values")

    def __init__(self, number: int, state, rng: np.random.Generator):
        self.number, self.state, self.rng = number, state, rng
        self.decisions = 0   # searched decisions so far (the temperature schedule counts them)
        self.obs: list[np.ndarray] = []
        self.legal: list[np.ndarray] = []
        self.targets: list[np.ndarray] = []
        self.owners: list[int] = []
        self.root_values: list[float] = []   # the search's root value for the mover (nan: a forced move)


class _Search:
    """One game's search at its current decision."""

    __slots__ = ("game", "seat", "legal", "root", "root_priors", "raw_priors", "net_value")

    def __init__(self, game: _Game, seat: int, legal: list[int]):
        self.game, self.seat, self.legal = game, seat, legal
        self.root = Node()
        self.root_priors: list[float] | None = None   # with the Dirichlet noise
        self.raw_priors: list[float] | None = None
        self.net_value = 0.0   # the value head's estimate of the root for the mover


@dataclass
class Chunk:
    """The positions of one iteration's self-play games (ragged: each position's legal moves)."""

    obs: np.ndarray      # float16 (n, observation size): the mover's observation
    ptr: np.ndarray      # int64 (n + 1,): position i's legal moves are legal[ptr[i]:ptr[i + 1]]
    legal: np.ndarray    # int32: the legal moves, position after position
    target: np.ndarray   # float32: the search's policy target over them (sums to 1 a position)
    value: np.ndarray    # float32 (n,): the mover's player's value target (the result, root_value_weight)
    game: np.ndarray     # int64 (n,): the self-play game number

    FIELDS = ("obs", "ptr", "legal", "target", "value", "game")

    def __len__(self) -> int:
        return len(self.value)

    def save(self, path: Path) -> None:
        tmp = path.with_name(f".{path.name}.tmp")
        with open(tmp, "wb") as fh:
            np.savez(fh, **{f: getattr(self, f) for f in self.FIELDS})
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path, obs_size: int, num_actions: int) -> "Chunk":
        """A replay file, checked (no pickles, shapes and ranges that fit the game)."""
        from ..agents.checkpoint import CheckpointError
        try:
            with np.load(path, allow_pickle=False) as z:
                chunk = cls(**{f: z[f] for f in cls.FIELDS})
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CheckpointError(f"replay file {path}: {type(exc).__name__}: {exc}") from None
        n = len(chunk.value)
        ok = (chunk.obs.shape == (n, obs_size) and chunk.ptr.shape == (n + 1,) and len(chunk.game) == n
              and chunk.legal.shape == chunk.target.shape and chunk.ptr[0] == 0 and chunk.ptr[-1] == len(chunk.legal)
              and bool(np.all(np.diff(chunk.ptr) >= 1))
              and (len(chunk.legal) == 0 or 0 <= chunk.legal.min() <= chunk.legal.max() < num_actions))
        if not ok:
            raise CheckpointError(f"replay file {path} does not fit this game (shapes or action numbers)")
        return chunk


def completed_q_target(logits: np.ndarray, visits: np.ndarray, q: np.ndarray, net_value: float,
                       c_visit: float, c_scale: float) -> np.ndarray:
    """Gumbel MuZero's improved policy (Danihelka et al. 2022, eq. 11 and appendix D) over the legal
    moves: ``softmax(logits + sigma(completed Q))``, ``sigma(q) = (c_visit + max visits) c_scale q``.
    ``q``: each move's mean return for the mover in [-1, 1] (read where ``visits`` > 0); an unvisited
    move's Q is completed with ``v_mix``, the value head's ``net_value`` mixed with the prior-weighted
    Q of the visited moves. Q is rescaled to [0, 1] first. Sums to one; with no visits it is the
    prior (every move completed with the same value)."""
    z = logits - logits.max()
    prior = np.exp(z)
    prior /= prior.sum()
    seen = visits > 0
    n = float(visits.sum())
    if seen.any():
        mass = float(prior[seen].sum())
        v_mix = (net_value + n / mass * float((prior[seen] * q[seen]).sum())) / (1.0 + n)
    else:
        v_mix = net_value
    completed = np.where(seen, q, v_mix)
    sigma = (c_visit + float(visits.max(initial=0.0))) * c_scale * (completed + 1.0) / 2.0
    y = z + sigma
    p = np.exp(y - y.max())
    return p / p.sum()


def _chunk_of(games: list[_Game], returns: dict[int, np.ndarray], obs_size: int,
              root_value_weight: float = 0.0) -> Chunk:
    obs, legal, target, value, number = [], [], [], [], []
    w = root_value_weight
    for g in games:
        ret = returns[g.number]
        obs += g.obs
        legal += g.legal
        target += g.targets
        value += [float(ret[o]) if w == 0 or math.isnan(rv) else (1.0 - w) * float(ret[o]) + w * rv
                  for o, rv in zip(g.owners, g.root_values)]
        number += [g.number] * len(g.owners)
    sizes = np.asarray([len(x) for x in legal], np.int64)
    return Chunk(obs=np.stack(obs) if obs else np.zeros((0, obs_size), np.float16),
                 ptr=np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
                 legal=np.concatenate(legal).astype(np.int32) if legal else np.zeros(0, np.int32),
                 target=np.concatenate(target).astype(np.float32) if target else np.zeros(0, np.float32),
                 value=np.asarray(value, np.float32), game=np.asarray(number, np.int64))


class SelfPlay:
    """Self-play games with PUCT at every decision; the leaves of every game's search go through
    one forward pass a simulation step (see the module docstring)."""

    def __init__(self, game, cfg: SearchDistillConfig, forward: Forward):
        self.game, self.cfg, self.forward = game, cfg, forward
        self.owner = [game.seat_owner(s) for s in range(game.num_seats)]
        self.n_agents = game.num_agents
        #: called with (state, game number) after every real move (tests: nothing leaks from search)
        self.after_move: Callable[[Any, int], None] | None = None
        self.stats = {"forward_s": 0.0, "playout_s": 0.0, "leaves": 0, "playout_moves": 0, "searches": 0}

    # -- one real move or a whole decision -------------------------------------------------------
    def _spread(self, mover: int, v: float) -> list[float]:
        n = self.n_agents
        out = [-v / (n - 1) if n > 1 else 0.0] * n
        out[mover] = v
        return out

    def _record(self, g: _Game, seat: int, legal: list[int], target: np.ndarray, root_value: float = math.nan) -> None:
        g.obs.append(g.state.observation(seat).astype(np.float16))
        g.legal.append(np.asarray(legal, np.int32))
        g.targets.append(np.asarray(target, np.float32))
        g.owners.append(self.owner[seat])
        g.root_values.append(root_value)

    def _apply(self, g: _Game, action: int) -> None:
        g.state.apply(action)   # checked against the real position's mask
        if self.after_move is not None:
            self.after_move(g.state, g.number)

    def _over(self, g: _Game) -> bool:
        return g.state.is_terminal() or len(g.state.history) >= self.cfg.max_steps

    def _to_decision(self, g: _Game) -> list[int] | None:
        """Play ``g``'s forced moves (recorded: they teach the value); the legal moves of its next
        decision, or None when the game is over."""
        while not self._over(g):
            seat = g.state.current_player
            legal = g.state.legal_actions()
            if len(legal) > 1:
                return legal
            self._record(g, seat, legal, np.ones(1))
            self._apply(g, legal[0])
        return None

    # -- the search ------------------------------------------------------------------------------
    def _root_priors(self, sr: _Search) -> list[float]:
        if sr.root_priors is None:
            raw = _priors(sr.root, sr.legal)
            sr.raw_priors = raw
            f = self.cfg.dirichlet_fraction
            if f > 0:
                noise = sr.game.rng.dirichlet(np.full(len(sr.legal), self.cfg.dirichlet_alpha))
                sr.root_priors = ((1.0 - f) * np.asarray(raw) + f * noise).tolist()
            else:
                sr.root_priors = raw
        return sr.root_priors

    def _descend(self, sr: _Search, pending: list) -> None:
        """One simulation of ``sr`` down to a leaf: a finished game is backed up at once, a new
        position joins ``pending`` for the batched evaluation."""
        s = sr.game.state.determinize(sr.seat, sr.game.rng)
        node: Node = sr.root
        path: list[Edge] = []
        c, owner = self.cfg.c_puct, self.owner
        while True:
            if s.is_terminal() or len(s.history) >= self.cfg.max_steps:
                _backup(sr.root, path, self.game.agent_returns(s.returns()).tolist())
                return
            if node.logits is None:
                pending.append((sr, node, path, s))
                return
            legal = s.legal_actions()
            mover = owner[s.current_player]
            if node is sr.root and legal == sr.legal:
                priors = self._root_priors(sr)
            else:
                priors = _priors(node, legal)
            a = puct_select(node, legal, priors, mover, c)
            edge = node.edge(a, mover)
            s.apply_legal(a)   # a is in this sample's legal list
            path.append(edge)
            node = edge.node

    def _evaluate(self, pending: list) -> None:
        t0 = time.perf_counter()
        states = [p[3] for p in pending]
        movers = [self.owner[s.current_player] for s in states]
        logits, values = self.forward(np.stack([s.observation(s.current_player) for s in states]))
        self.stats["forward_s"] += time.perf_counter() - t0
        self.stats["leaves"] += len(pending)
        w = self.cfg.rollout_weight
        outcomes = self._playouts(states, pending[0][0].game.rng) if w > 0 else None
        for i, (sr, node, path, _) in enumerate(pending):
            node.logits = logits[i]
            if node is sr.root:
                sr.net_value = float(values[i])   # the root's mover is the searching seat's player
            ret = self._spread(movers[i], float(values[i]))
            if outcomes is not None:
                ret = [(1.0 - w) * r + w * float(z) for r, z in zip(ret, outcomes[i])]
            _backup(sr.root, path, ret)

    def _playouts(self, states: list, rng: np.random.Generator) -> np.ndarray:
        """Play every (throwaway) leaf sample to the end with the network sampling every seat's
        moves, all together: one forward pass a move for all of them; the agents' returns."""
        from ..agents.ppo import PPOAgent
        t0 = time.perf_counter()
        live = [i for i, s in enumerate(states) if not s.is_terminal()]
        cap = self.cfg.max_steps
        while live:
            check_stop()   # a stop whose exception was lost (train/stops.py)
            live = [i for i in live if not states[i].is_terminal() and len(states[i].history) < cap]
            if not live:
                break
            masks = np.stack([states[i].legal_actions_mask() for i in live]).astype(bool)
            many = masks.sum(axis=1) > 1
            moves = np.argmax(masks, axis=1)   # the one legal move where there is one
            if many.any():
                rows = np.flatnonzero(many)
                obs = np.stack([states[live[r]].observation(states[live[r]].current_player) for r in rows])
                logits, _ = self.forward(obs)
                moves[rows] = PPOAgent.sample_batch(logits, masks[rows], [rng] * len(rows))
            for i, a in zip(live, moves.tolist()):
                states[i].apply_legal(a)   # legal in the mask just computed
            self.stats["playout_moves"] += len(live)
        self.stats["playout_s"] += time.perf_counter() - t0
        return np.asarray([self.game.agent_returns(s.returns()) for s in states], np.float64)

    def _decide(self, sr: _Search) -> tuple[int, np.ndarray, float]:
        """The move, the policy target over ``sr.legal`` (``policy_target``) and the root's value
        for the mover after the search. The move is drawn from (then taken as the most of) the
        visits either way."""
        g, cfg, root = sr.game, self.cfg, sr.root
        edges = [root.children.get(a) for a in sr.legal]
        visits = np.asarray([e.visits if e is not None else 0 for e in edges], np.float64)
        raw = np.asarray(sr.raw_priors if sr.raw_priors is not None else _priors(root, sr.legal))
        total = visits.sum()
        shares = visits / total if total > 0 else raw
        best = max(range(len(sr.legal)), key=lambda j: (visits[j], raw[j]))
        i = int(g.rng.choice(len(sr.legal), p=shares)) if g.decisions < cfg.temperature_moves else best
        mover = self.owner[sr.seat]
        if cfg.policy_target == "completed_q":
            assert root.logits is not None   # the first simulation expanded the root
            q = np.asarray([e.value / e.visits if e is not None and e.visits else 0.0 for e in edges])
            target = completed_q_target(np.asarray(root.logits)[sr.legal], visits, q, sr.net_value,
                                        cfg.c_visit, cfg.c_scale)
        elif cfg.policy_target == "move":   # the search's choice (the most visited), whatever was played
            target = np.zeros(len(sr.legal))
            target[best] = 1.0
        else:
            target = shares
        root_value = root.value_sum[mover] / root.visits if root.value_sum is not None and root.visits else math.nan
        return sr.legal[i], target, root_value

    # -- the games -------------------------------------------------------------------------------
    def play(self, games: int, rng: np.random.Generator, first_number: int = 0,
             bar=None) -> tuple[Chunk, dict[str, Any]]:
        """``games`` games (``parallel_games`` at a time); every engine seed is even, every game's
        generator (determinizations, noise, temperature) drawn from ``rng``."""
        from .imitation import train_seed
        cfg = self.cfg
        live: list[_Game] = []
        done: list[_Game] = []
        returns: dict[int, np.ndarray] = {}
        started = 0
        records: list[tuple[int, int, list[int]]] = []   # (game number, engine seed, history) a game

        def start() -> None:
            nonlocal started
            seed = train_seed(rng)
            g = _Game(first_number + started, self.game.new_initial_state(seed),
                      np.random.default_rng(int(rng.integers(2**63))))
            started += 1
            live.append(g)

        def finish(g: _Game) -> None:
            returns[g.number] = self.game.agent_returns(g.state.returns())
            done.append(g)
            records.append((g.number, int(g.state.seed), list(g.state.history)))
            if bar is not None:
                bar.update(1)

        while started < min(games, cfg.parallel_games):
            start()
        while live:
            check_stop()
            searches = []
            for g in list(live):
                legal = self._to_decision(g)
                while legal is None:   # finished: its slot takes a new game
                    live.remove(g)
                    finish(g)
                    if started >= games:
                        break
                    start()
                    g = live[-1]
                    legal = self._to_decision(g)
                if legal is not None:
                    searches.append(_Search(g, g.state.current_player, legal))
            if not searches:
                continue
            for _ in range(cfg.simulations):
                pending: list = []
                for sr in searches:
                    self._descend(sr, pending)
                if pending:
                    self._evaluate(pending)
            self.stats["searches"] += len(searches)
            for sr in searches:
                a, target, root_value = self._decide(sr)
                self._record(sr.game, sr.seat, sr.legal, target, root_value)
                sr.game.decisions += 1
                self._apply(sr.game, a)
        done.sort(key=lambda g: g.number)
        records.sort()
        info = {"games": len(done), "records": records,
                "moves": sum(len(h) for _, _, h in records),
                "capped": sum(1 for g in done if not g.state.is_terminal())}
        return _chunk_of(done, returns, self.game.observation_size, cfg.root_value_weight), info


class _RolloutRecorder:
    """The self-play player of ``search: rollout``: every seat's move comes from the policy-rollout
    search (``agents/rollout.py``'s ``RolloutAgent`` over the best network), and every position is
    recorded with its policy target (``policy_target`` over the search's candidates: their shares of
    the rollouts, the completed-Q policy from their mean returns, or the chosen move), like a
    PUCT position. A decision the search skips (the network sure: ``rollout_gate``; fewer than two
    candidates) and a forced move learn the move played. The first ``temperature_moves`` searched
    decisions play a move drawn by the rollout shares (the target stays the search's)."""

    name = "rollout-self-play"
    needs_state = True

    def __init__(self, game, cfg: SearchDistillConfig, forward: Forward, search, rng: np.random.Generator):
        self.game, self.cfg, self.forward, self.search, self.rng = game, cfg, forward, search, rng
        self.owner = [game.seat_owner(s) for s in range(game.num_seats)]
        self.record = _Game(0, None, rng)
        self.root: tuple[np.ndarray, float] | None = None   # the network's (logits, value) at the decision
        self.searches = 0

    def prior(self, observation, state) -> np.ndarray:
        assert self.root is not None   # act computed it for this decision
        return self.root[0]

    def reset(self, seed=None) -> None:
        pass

    def act(self, obs, state=None) -> int:
        mask = np.asarray(obs["action_mask"]).astype(bool)
        legal = np.flatnonzero(mask)
        seat = state.current_player
        g = self.record
        g.obs.append(np.asarray(obs["observation"]).astype(np.float16))
        g.legal.append(legal.astype(np.int32))
        g.owners.append(self.owner[seat])
        if len(legal) == 1:
            g.targets.append(np.ones(1, np.float32))
            g.root_values.append(math.nan)
            return int(legal[0])
        logits, values = self.forward(np.asarray(obs["observation"])[None])
        self.root = (logits[0], float(values[0]))
        a = self.search.act(obs, state)
        found = self.search.last_search   # candidate -> (prior, mean return, rollouts); {} if not searched
        if not found:
            target = (legal == a).astype(np.float64)
            g.targets.append(target.astype(np.float32))
            g.root_values.append(math.nan)
            return int(a)
        self.searches += 1
        visits = np.asarray([found[m][2] if m in found else 0 for m in legal.tolist()], np.float64)
        q = np.asarray([found[m][1] if m in found and found[m][2] else 0.0 for m in legal.tolist()])
        shares = visits / visits.sum()
        cfg = self.cfg
        if cfg.policy_target == "completed_q":
            target = completed_q_target(logits[0][legal], visits, q, self.root[1], cfg.c_visit, cfg.c_scale)
        elif cfg.policy_target == "move":
            target = (legal == a).astype(np.float64)
        else:
            target = shares
        g.targets.append(np.asarray(target, np.float32))
        g.root_values.append(float(found[a][1]))
        if g.decisions < cfg.temperature_moves:
            a = int(legal[int(self.rng.choice(len(legal), p=shares))])
        g.decisions += 1
        return int(a)


#: a self-play worker's network and search, built once per best network (``_rollout_game``)
_ROLLOUT_WORKER: dict[str, Any] = {}


def _rollout_worker_init(game_id: str, cfg: SearchDistillConfig, trust: bool, subprocess: bool = True) -> None:
    """A worker's settings: the run's config itself (a dataclass, pickled to a spawned worker; it was
    checked when the run read it)."""
    if subprocess:
        quiet_worker()
        limit_threads()
    _ROLLOUT_WORKER.clear()
    _ROLLOUT_WORKER.update(game_id=game_id, cfg=cfg, trust=trust, path=None)


def _rollout_game(task: tuple[int, int, int, str]) -> dict[str, Any]:
    """One ``search: rollout`` self-play game: (game number, engine seed, search seed, best network's
    file) -> its positions, result and history. The game depends on the task only (not on the worker
    or on the games played before it in the worker)."""
    from ..agents.checkpoint import load_policy
    from ..agents.ppo import PPOAgent
    number, engine_seed, search_seed, path = task
    w = _ROLLOUT_WORKER
    cfg: SearchDistillConfig = w["cfg"]
    if w["path"] != path:
        policy = copy_policy(load_policy(path, trust=w["trust"]), "cpu")
        w.update(path=path, policy=policy, forward=Forward(policy),
                 game=envs.make_game(w["game_id"], **cfg.env_options))
    game, policy = w["game"], w["policy"]
    seeds = np.random.SeedSequence(search_seed).spawn(3)
    roller = RandomAgent(0) if cfg.rollout_policy == "random" else PPOAgent.from_policy(policy, seed=0,
                                                                                        deterministic=False)
    recorder = _RolloutRecorder(game, cfg, w["forward"], None, np.random.default_rng(seeds[0]))
    recorder.search = RolloutAgent(None, game, rollouts=cfg.simulations, seed=int(seeds[1].generate_state(1)[0]),
                                   top_k=cfg.rollout_top_k, gate=cfg.rollout_gate, rollout_cap=cfg.max_steps,
                                   allocation=cfg.rollout_allocation, prior=recorder.prior, rollout_agent=roller)
    state = game.new_initial_state(engine_seed)
    play_from(state, [recorder] * game.num_agents, max_steps=cfg.max_steps, det_rng=np.random.default_rng(seeds[2]))
    g = recorder.record
    return {"number": number, "seed": engine_seed, "history": list(state.history), "terminal": state.is_terminal(),
            "returns": np.asarray(game.agent_returns(state.returns()), np.float64), "obs": g.obs, "legal": g.legal,
            "targets": g.targets, "owners": g.owners, "root_values": g.root_values, "searches": recorder.searches,
            "rollouts": recorder.search.rollouts_played}


class RolloutSelfPlay:
    """Self-play of ``search: rollout``: whole games in ``workers`` processes (the search's random
    playouts are the cost, not the network; nothing to batch across games), the same positions and
    targets as ``SelfPlay``'s (``Chunk``). Each game's engine seed and search seed come from the
    loop's generator in game order, so the chunk does not depend on the number of workers.
    ``stats``: ``searches`` counts the searched decisions and ``leaves`` the rollouts (the columns of
    iterations.csv that PUCT fills with its searches and leaves)."""

    def __init__(self, game_id: str, game, cfg: SearchDistillConfig, best_path: Path, trust: bool):
        self.game_id, self.game, self.cfg, self.best_path, self.trust = game_id, game, cfg, best_path, trust
        self.after_move = None   # not supported here: the games are played in other processes
        self.stats = {"forward_s": 0.0, "playout_s": 0.0, "leaves": 0, "playout_moves": 0, "searches": 0}

    def play(self, games: int, rng: np.random.Generator, first_number: int = 0,
             bar=None) -> tuple[Chunk, dict[str, Any]]:
        import multiprocessing as mp

        from .imitation import train_seed
        tasks = []
        for i in range(games):   # the order PUCT's self-play draws them: engine seed, then the game's generator
            tasks.append((first_number + i, train_seed(rng), int(rng.integers(2**63)), str(self.best_path)))
        init = (self.game_id, self.cfg, self.trust)
        out: list[dict[str, Any]] = []
        t0 = time.perf_counter()
        workers = min(self.cfg.workers, games)
        if workers <= 1:
            _rollout_worker_init(*init, subprocess=False)
            with limited_threads():
                for t in tasks:
                    out.append(_rollout_game(t))
                    if bar is not None:
                        bar.update(1)
        else:
            with deferred():
                pool = mp.get_context("spawn").Pool(workers, initializer=_rollout_worker_init, initargs=init)
            try:
                for r in pool_map(pool, _rollout_game, tasks, ordered=False):
                    out.append(r)
                    if bar is not None:
                        bar.update(1)
            finally:
                end_pool(pool)
        self.stats["playout_s"] += time.perf_counter() - t0
        out.sort(key=lambda r: r["number"])
        done, returns = [], {}
        for r in out:
            g = _Game(r["number"], None, rng)
            g.obs, g.legal, g.targets, g.owners, g.root_values = (r["obs"], r["legal"], r["targets"], r["owners"],
                                                                   r["root_values"])
            done.append(g)
            returns[r["number"]] = r["returns"]
            self.stats["searches"] += r["searches"]
            self.stats["leaves"] += r["rollouts"]
        records = [(r["number"], r["seed"], r["history"]) for r in out]
        info = {"games": len(out), "records": records, "moves": sum(len(h) for _, _, h in records),
                "capped": sum(1 for r in out if not r["terminal"])}
        return _chunk_of(done, returns, self.game.observation_size, self.cfg.root_value_weight), info
