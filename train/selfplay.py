"""The learner's view of any registered game: a single-agent ``gymnasium.Env`` for SB3.

Each episode the learner takes a random agent index (player); the other players are agents from
an opponent pool, stepped **inside** ``step()`` until it is the learner's turn again or the game is
over. So every transition and every reward is the learner's own, its losses included, whichever seat
it has. Sub-steps (the same player acting several times in a row), 3-4 players and players owning
several seats (``game.seat_owner``) all come out of the AEC env's ``agent_selection``.

- observation: the flat float32 vector (``Box(-1, 1, (observation_size,))``) of the seat that acts;
- the legal-action mask: ``action_masks()`` (the name sb3-contrib's MaskablePPO looks up);
- reward: the learner's AEC rewards summed since its previous action (zero-sum results at the end),
  plus, optionally (``score_reward`` > 0), potential-based shaping: ``score_reward`` x the change of
  (own score - best other score) since the learner's previous move, read from ``state.scores()``
  where the engine has that hook, else paid at the end from ``final_info()["scores"]``;
- ``info`` at the end of an episode: ``outcome`` (win / draw / loss: win = strictly highest
  return, see train/evaluate.py), ``opponent`` (the pool kind that played the others),
  ``learner_index``, ``truncated_by_cap``.

The pool (``OpponentPool``): weights per kind, any agent spec (``random``, ``heuristic``,
``mcts:N``, ``ppo:PATH``) plus ``snapshot`` (frozen past copies of the learner, added during
training with ``add_snapshot(path)``). One kind is drawn per episode for all the opponents
(snapshots are drawn per opponent), so win rates per kind stay clean.
"""
from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np

from .. import envs
from ..agents.registry import has_heuristic, make_agent
from ..envs.core.opponents import opponent_turns
from ..envs.single_agent import LearnerSeatEnv


def drive(steps):
    """Run a ``reset_steps`` / ``step_steps`` generator, answering each request by ``agent.act``."""
    try:
        request = next(steps)
        while True:
            agent, obs = request
            request = steps.send(agent.act(obs))
    except StopIteration as stop:
        return stop.value


def score_margins(state, game) -> np.ndarray | None:
    """Each agent's score minus the best other agent's score, from ``state.scores()`` where the
    game keeps a score, else (at the end only) from ``final_info()["scores"]``; None where neither
    exists or the game has a single agent. Seats owned by one agent count as their mean
    (``Game.agent_returns``)."""
    scores = state.scores()
    if scores is None and state.is_terminal():
        scores = state.final_info().get("scores")
    if scores is None or game.num_agents < 2:
        return None
    scores = game.agent_returns(scores)
    return np.array([scores[i] - np.delete(scores, i).max() for i in range(game.num_agents)])


class OpponentPool:
    """Weighted opponent kinds; ``snapshot`` draws among the newest frozen learner checkpoints."""

    def __init__(self, game, mix: dict[str, float], seed: int | None = None, max_snapshots: int = 5,
                 drop_unavailable: bool = True, snapshot_sampling: bool = True, trust: bool = False):
        self.game = game
        self.trust = trust   #: checkpoint opponents may be pickled (legacy) files (``train(trust=True)``)
        mix = {k: float(w) for k, w in mix.items() if float(w) > 0}
        if drop_unavailable and "heuristic" in mix and not has_heuristic(game):
            warnings.warn(f"no heuristic baseline for {game.name}: dropped from the opponent pool",
                          stacklevel=2)
            mix.pop("heuristic")
        if not mix:
            mix = {"random": 1.0}
        self.mix = mix
        self.max_snapshots = max_snapshots
        self.snapshots: list[str] = []
        self.rng = np.random.default_rng(seed)
        self.snapshot_sampling = snapshot_sampling
        self._agents: dict[tuple[str, int], Any] = {}

    def add_snapshot(self, path: str) -> None:
        path = str(path)
        if path in self.snapshots:
            return
        self.snapshots.append(path)
        while len(self.snapshots) > self.max_snapshots:
            old = self.snapshots.pop(0)
            for key in [k for k in self._agents if k[0] == "ppo:" + old]:
                del self._agents[key]

    def kinds(self) -> dict[str, float]:
        """The kinds that can be drawn now (``snapshot`` only once a snapshot exists)."""
        k = {kind: w for kind, w in self.mix.items() if kind != "snapshot" or self.snapshots}
        return k or {"random": 1.0}

    def _agent(self, spec: str, slot: int):
        key = (spec, slot)
        agent = self._agents.get(key)
        if agent is None:
            agent = make_agent(spec, self.game, seed=int(self.rng.integers(2**63)), trust=self.trust)
            if spec.startswith("ppo:") and spec[4:] in self.snapshots:
                # a frozen copy of the learner plays as the learner does: sampling, not argmax
                agent.deterministic = not self.snapshot_sampling  # type: ignore[attr-defined]  # a PPOAgent
            self._agents[key] = agent
        return agent

    def draw(self, slots: list[int]) -> tuple[str, dict[int, Any]]:
        """(kind, {agent index: agent}) for the opponents' agent indices ``slots``."""
        kinds = self.kinds()
        names = list(kinds)
        p = np.array([kinds[n] for n in names])
        kind = names[int(self.rng.choice(len(names), p=p / p.sum()))]
        out = {}
        for slot in slots:
            if kind == "snapshot":
                spec = "ppo:" + self.snapshots[int(self.rng.integers(len(self.snapshots)))]
            else:
                spec = kind
            agent = self._agent(spec, slot)
            agent.reset(int(self.rng.integers(2**63)))
            out[slot] = agent
        return kind, out


class SelfPlayEnv(LearnerSeatEnv):
    """Learner-centric single-agent env over ``envs.make(game, **env_options)``."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: str, env_options: dict | None = None, opponent_mix: dict | None = None,
                 seed: int | None = None, max_steps: int | None = None, max_snapshots: int = 5,
                 score_reward: float = 0.0, snapshots: list[str] | tuple = (), render_mode: str | None = None,
                 snapshot_sampling: bool = True, trust: bool = False):
        super().__init__()
        self.game_id = envs.resolve(game)
        self.env_options = dict(env_options or {})
        self.aec = envs.make_raw(self.game_id, max_steps=max_steps, **self.env_options)
        self.game = self.aec.game
        self.render_mode = render_mode
        n, k = self.game.num_actions, self.game.observation_size
        self.rng = np.random.default_rng(seed)
        self.observation_space = gymnasium.spaces.Box(-1.0, 1.0, (k,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(n)
        self.pool = OpponentPool(self.game, opponent_mix or {"random": 1.0},
                                 seed=int(self.rng.integers(2**63)), max_snapshots=max_snapshots,
                                 snapshot_sampling=snapshot_sampling, trust=trust)
        for s in snapshots:
            self.pool.add_snapshot(s)
        self.score_reward = float(score_reward)
        self._last_margin = 0.0
        self._names = self.aec.possible_agents
        self.learner = 0
        self.opponents: dict[int, Any] = {}
        self.kind = ""
        self._totals = np.zeros(len(self._names))
        self._done = True

    def _opponent_name(self) -> str:
        """This episode's opponent kind (random, heuristic, snapshot, ...), for error messages."""
        return self.kind

    # -- pool control (reachable through VecEnv.env_method) -----------------------------------
    def add_snapshot(self, path: str) -> None:
        self.pool.add_snapshot(path)

    def snapshot_paths(self) -> list[str]:
        return list(self.pool.snapshots)

    # -- gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        return drive(self.reset_steps(seed))

    def step(self, action):
        return drive(self.step_steps(action))

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (all False once the game is over)."""
        return self.aec.action_masks()

    def render(self):
        return self.aec.state_.render_text(observer=None, color=False)

    # -- the same as generators: they yield (policy agent, observation) where a snapshot must act,
    #    so that a vectorized env can answer many envs' requests with one batched forward pass
    #    (train/vecenv.py); ``drive`` answers them one by one
    def reset_steps(self, seed: int | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.pool.rng = np.random.default_rng(self.rng.integers(2**63))
        for _ in range(1000):
            # training engine seeds are even; the evaluator's are odd (train/evaluate.py)
            self.aec.reset(seed=int(self.rng.integers(2**62)) * 2)
            self.learner = int(self.rng.integers(len(self._names)))
            slots = [i for i in range(len(self._names)) if i != self.learner]
            self.kind, self.opponents = self.pool.draw(slots)
            self._totals[:] = 0.0
            self._steps = 0
            self._done = False
            yield from self._advance()
            if not self._done:  # a game decided before the learner's first move teaches nothing
                self._last_margin = (self._margin() or 0.0) if self.score_reward else 0.0
                return self._observe(), {"learner_index": self.learner, "opponent": self.kind}
        raise RuntimeError(f"{self.game_id}: 1000 games in a row ended before the learner could move")

    def step_steps(self, action):
        if self._done:
            raise RuntimeError("step() after the episode ended; call reset()")
        before = self._totals[self.learner]
        self.aec.step(int(action))
        self._steps += 1
        self._collect()
        yield from self._advance()
        reward = float(self._totals[self.learner] - before) + self._score_reward()
        info: dict[str, Any] = {}
        terminated = truncated = False
        if self._done:
            name = self._names[self.learner]
            truncated = bool(self.aec.truncations[name]) and not bool(self.aec.terminations[name])
            terminated = not truncated
            info = {"outcome": self.outcome(), "opponent": self.kind, "learner_index": self.learner,
                    "truncated_by_cap": truncated, "learner_steps": self._steps}
        return self._observe(), reward, terminated, truncated, info

    # -- internals (the observation, reward totals and outcome are
    #    envs.single_agent.LearnerSeatEnv's) ---------------------------------------------------
    def _advance(self):
        """Step the opponents until the learner is to move or the game is over
        (``envs.core.opponents.opponent_turns``, a generator: a batchable opponent's move is
        requested with ``yield (agent, observation)``)."""
        self._done = yield from opponent_turns(self.aec, (self.learner,), self.opponents, self.rng,
                                               self._opponent_name(), self._totals, batch=True)

    def _margin(self) -> float | None:
        """Own score minus the best other score (``score_margins``); None where the game has none."""
        margins = score_margins(self.aec.state_, self.game)
        return None if margins is None else float(margins[self.learner])

    def _score_reward(self) -> float:
        """``score_reward`` x the change of the score margin since the learner's previous move.

        Potential-based: over an episode it sums to score_reward x (final margin - margin at the
        learner's first move), so it adds a dense signal without changing what a win is worth
        relative to another win.
        """
        if not self.score_reward:
            return 0.0
        margin = self._margin()
        if margin is None:
            return 0.0
        delta = margin - self._last_margin
        self._last_margin = margin
        return self.score_reward * delta
