"""Any registered game as an RLlib ``MultiAgentEnv`` for self-play against a pool.

Adapted from RLlib's ``PettingZooEnv`` (turn-based: only the agent to act gets an observation)
with the opponent pool of the SB3 path (``train/selfplay.py``) built in:

- each episode is either a **self-play** episode (probability ``self_play``): every player is a
  learner agent, all mapped to the one shared RLModule, so both sides' moves are training data;
  or a **pool** episode: one random player is the learner and the others are played inside
  ``step()`` by one opponent kind drawn from ``opponent_mix`` (random, heuristic, mcts:N,
  ppo:PATH, or ``snapshot``: a frozen past copy of the learner, sent to the env runners as
  weights by ``add_snapshot``, so it works on a cluster without a shared file system);
- observations: PettingZoo's dict ``{"observation": float32[K], "action_mask": int8[N]}``
  (copies: the engine reuses its buffers); the agent ids are the AEC names ``player_i``;
- rewards: each learner agent gets, with its next observation (or at the end), its AEC rewards
  since its previous move plus the optional score shaping (``score_reward`` x change of its score
  margin, as in ``SelfPlayEnv``); agents that never moved get nothing (they have no decision);
- an episode that ends at the move cap is truncated (``truncateds["__all__"]``), else terminated;
- illegal actions: the AEC env is made with ``illegal_action="lose"`` (PettingZoo classic: the
  game ends, the mover gets -1), because RLlib's env check steps unmasked random actions; the
  masked module never picks one, and ``episode_result["illegal"]`` counts any that happen, so a
  masking bug shows up in the ``illegal_moves`` metric instead of hiding.

``episode_result`` (read by ``train/rllib.py``'s callback when an episode ends): ``kind``
(``self`` or the pool kind), ``outcome`` (win / draw / loss of the learner; None in self-play),
``illegal``, ``truncated``, ``learner_steps``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from .. import envs
from ..envs.core.opponents import collect_rewards, game_over, play_opponents
from .selfplay import OpponentPool, score_margins

SELF = "self"


class SnapshotPool(OpponentPool):
    """The SB3 path's pool, whose ``snapshot`` kind draws in-memory policies (not files)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.policies: dict[str, Any] = {}

    def add_policy(self, name: str, policy) -> None:
        self.policies[name] = policy
        self.add_snapshot(name)  # keeps the newest max_snapshots names, drops cached agents of old ones
        for old in set(self.policies) - set(self.snapshots):
            del self.policies[old]

    def _agent(self, spec: str, slot: int):
        name = spec[len("ppo:"):] if spec.startswith("ppo:") else None
        if name not in self.policies:
            return super()._agent(spec, slot)
        key = (spec, slot)
        agent = self._agents.get(key)
        if agent is None:
            from ..agents.ppo import PPOAgent
            agent = PPOAgent.from_policy(self.policies[name], seed=int(self.rng.integers(2**63)))
            agent.name = agent.spec = "snapshot"
            self._agents[key] = agent
        return agent


class ArenaMultiAgentEnv(MultiAgentEnv):
    """Turn-based multi-agent view of ``envs.make_raw(game, **env_options)`` for RLlib.

    ``config`` keys: ``game`` (required), ``env_options``, ``max_steps``, ``opponent_mix``,
    ``self_play`` (probability of a self-play episode), ``score_reward``, ``max_snapshots``,
    ``policy_kwargs`` (to rebuild snapshot policies from weights), ``seed``.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        if "game" not in config:
            raise ValueError("ArenaMultiAgentEnv needs config['game'] (a registered game id)")
        self.game_id = envs.resolve(config["game"])
        self.env_options = dict(config.get("env_options") or {})
        max_steps = config.get("max_steps")   # None: the game's max_game_length()
        self.aec = envs.make_raw(self.game_id, max_steps=None if max_steps is None else int(max_steps),
                                 illegal_action="lose", **self.env_options)
        self.game = self.aec.game
        self.self_play = float(config.get("self_play", 0.0))
        if not 0.0 <= self.self_play <= 1.0:
            raise ValueError(f"self_play must be in [0, 1], got {self.self_play!r}")
        self.score_reward = float(config.get("score_reward", 0.0))
        self.policy_kwargs = config.get("policy_kwargs") or {}
        seed = config.get("seed")
        # Sub-envs of one vector env share this config: RLlib's reset(seed=...) gives each its
        # own stream; without one, fresh OS entropy keeps them apart.
        self.rng = np.random.default_rng(None if seed is None else seed)
        self.pool = SnapshotPool(self.game, config.get("opponent_mix") or {"random": 1.0},
                                 seed=int(self.rng.integers(2**63)),
                                 max_snapshots=int(config.get("max_snapshots", 5)))
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        space = self.aec.observation_space(self.possible_agents[0])
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.possible_agents}
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self.learners: set[int] = set()
        self.opponents: dict[int, Any] = {}
        self.kind = ""
        self.episode_result: dict[str, Any] | None = None
        self._done = True

    # -- pool control (train/rllib.py calls these on every env runner) --------------------------
    def add_snapshot(self, name: str, state: dict):
        """Add a frozen copy of the learner (an ``ArenaPolicy`` state dict) to the pool; return
        the policy built from it (``add_snapshot_policy`` shares it with other envs)."""
        import torch

        from .rllib_module import build_policy, flat_spaces
        obs_space, act_space = flat_spaces(self.observation_spaces[self.possible_agents[0]],
                                           self.action_spaces[self.possible_agents[0]])
        policy = build_policy(obs_space, act_space, self.policy_kwargs)
        policy.load_state_dict({k: torch.as_tensor(np.asarray(v)) for k, v in state.items()})
        self.add_snapshot_policy(name, policy)
        return policy

    def add_snapshot_policy(self, name: str, policy) -> None:
        """Add an already built frozen ``ArenaPolicy`` to the pool."""
        self.pool.add_policy(name, policy)

    def snapshot_names(self) -> list[str]:
        return list(self.pool.snapshots)

    # -- MultiAgentEnv API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.pool.rng = np.random.default_rng(self.rng.integers(2**63))
        n = len(self.possible_agents)
        for _ in range(1000):
            self.aec.reset(seed=int(self.rng.integers(2**63)))
            if self.rng.random() < self.self_play:
                self.learners, self.kind, self.opponents = set(range(n)), SELF, {}
            else:
                learner = int(self.rng.integers(n))
                self.learners = {learner}
                self.kind, self.opponents = self.pool.draw([i for i in range(n) if i != learner])
            self._totals = np.zeros(n)
            self._paid = np.zeros(n)        # totals already handed to each learner agent
            self._margin_paid = np.zeros(n)  # score margin at each learner agent's previous move
            self._acted: set[int] = set()
            self._steps = 0
            self._done = False
            self.episode_result = None
            self._advance()
            if not self._done:  # a game decided before any learner move teaches nothing
                if self.score_reward:
                    self._margin_paid[:] = self._margins()
                agent = self.aec.agent_selection
                return {agent: self._observe(agent)}, {}
        raise RuntimeError(f"{self.game_id}: 1000 games in a row ended before a learner could move")

    def step(self, action_dict: dict):
        if self._done:
            raise RuntimeError("step() after the episode ended; call reset()")
        agent = self.aec.agent_selection
        if set(action_dict) != {agent}:
            raise ValueError(f"turn-based env: expected an action for {agent!r} only, got "
                             f"{sorted(action_dict)}")
        self._acted.add(self._index[agent])
        self.aec.step(action_dict[agent])  # the AEC env refuses a non-integer (no coercion)
        self._steps += 1
        self._collect()
        self._advance()
        if not self._done:
            nxt = self.aec.agent_selection
            return ({nxt: self._observe(nxt)}, {nxt: self._pay(self._index[nxt])},
                    {"__all__": False}, {"__all__": False}, {})
        return self._finish()

    def render(self):
        return self.aec.state_.render_text(observer=None, color=False)

    # -- internals ------------------------------------------------------------------------------
    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.aec.observe(agent)
        return {"observation": np.array(obs["observation"], np.float32),
                "action_mask": np.array(obs["action_mask"], np.int8)}

    def _collect(self) -> None:
        collect_rewards(self.aec, self._totals)

    def _margins(self) -> np.ndarray:
        m = score_margins(self.aec.state_, self.game)
        return np.zeros(len(self.possible_agents)) if m is None else m

    def _pay(self, i: int) -> float:
        """Reward of learner agent ``i`` since its previous move (results + score shaping)."""
        reward = float(self._totals[i] - self._paid[i])
        self._paid[i] = self._totals[i]
        if self.score_reward:
            m = self._margins()[i]
            reward += self.score_reward * float(m - self._margin_paid[i])
            self._margin_paid[i] = m
        return reward

    def _game_over(self) -> bool:
        return game_over(self.aec)

    def _advance(self) -> None:
        """Step pool opponents until a learner agent is to move or the game is over
        (``envs.core.opponents.play_opponents``; a self-play episode has none: every agent learns)."""
        self._done = play_opponents(self.aec, self.learners, self.opponents, self.rng, self.kind,
                                    self._totals)

    def _finish(self):
        first = self.possible_agents[0]
        truncated = bool(self.aec.truncations[first]) and not bool(self.aec.terminations[first])
        illegal = any(bool(i.get("illegal_move")) for i in self.aec.infos.values())
        outcome = None
        if self.kind != SELF:
            (learner,) = self.learners
            mine = self._totals[learner]
            others = np.delete(self._totals, learner)
            best = others.max() if len(others) else 0.0
            outcome = "win" if mine > best else "draw" if mine == best else "loss"
        self.episode_result = {"kind": self.kind, "outcome": outcome, "illegal": illegal,
                               "truncated": truncated, "learner_steps": self._steps}
        obs, rew, info = {}, {}, {}
        for i in sorted(self._acted):
            name = self.possible_agents[i]
            obs[name] = self._observe(name)
            rew[name] = self._pay(i)
            info[name] = dict(self.episode_result)
        terminateds = {name: not truncated for name in obs}
        truncateds = {name: truncated for name in obs}
        terminateds["__all__"], truncateds["__all__"] = not truncated, truncated
        return obs, rew, terminateds, truncateds, info
