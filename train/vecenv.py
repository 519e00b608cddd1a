"""Vectorized self-play envs for SB3: snapshot opponents' moves batched (``vec_env: batched``).

``SelfPlayVecEnv`` steps ``n`` ``SelfPlayEnv`` s in one process like SB3's DummyVecEnv, with two
differences that matter for speed:

- the frozen snapshots of the learner that play as opponents do not run one forward pass per move:
  every env runs until it needs such a move (``SelfPlayEnv.step_steps`` is a generator that yields
  the request), then all pending requests of one snapshot are answered by one batched forward pass,
  and the envs go on; scripted opponents (heuristic, random, MCTS) act inside the env as before;
- the learner's action masks are kept from the step that produced the observation
  (``action_masks()`` needs no call into each env).

``env_method`` reaches every ``SelfPlayEnv`` (pool control: ``add_snapshot``). It follows SB3's
VecEnv contract: ``step`` returns the next episode's first observation after an
episode ends, with the last one in ``info["terminal_observation"]``.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv


class SelfPlayVecEnv(VecEnv):
    """``n`` self-play envs in this process; snapshot opponents' moves batched per snapshot."""

    def __init__(self, env_fns: Sequence[Callable[[], Any]]):
        self.envs = [fn() for fn in env_fns]
        env = self.envs[0]
        super().__init__(len(self.envs), env.observation_space, env.action_space)
        self.metadata = env.metadata
        n = len(self.envs)
        self._obs = np.zeros((n, *env.observation_space.shape), np.float32)
        self._masks = np.zeros((n, env.action_space.n), bool)
        self._actions: np.ndarray | None = None

    # -- driving generators -----------------------------------------------------------------
    @staticmethod
    def _run(gens: dict[int, Any]) -> dict[int, Any]:
        """Drive generators to completion; answer their (agent, obs) requests batched per policy."""
        from ..agents.ppo import PPOAgent

        results: dict[int, Any] = {}
        pending: dict[int, tuple] = {}
        for i, g in gens.items():
            try:
                pending[i] = next(g)
            except StopIteration as stop:
                results[i] = stop.value
        while pending:
            groups: dict[int, list[int]] = {}
            for i, (agent, _) in pending.items():
                groups.setdefault(id(agent.policy), []).append(i)
            answers: dict[int, int] = {}
            for ids in groups.values():
                policy = pending[ids[0]][0].policy
                logits = PPOAgent.logits_batch(policy, np.stack([pending[i][1]["observation"] for i in ids]))
                for i, z in zip(ids, logits):
                    agent, obs = pending[i]
                    answers[i] = agent.choose(z, obs["action_mask"])
            nxt: dict[int, tuple] = {}
            for i, a in answers.items():
                try:
                    nxt[i] = gens[i].send(a)
                except StopIteration as stop:
                    results[i] = stop.value
            pending = nxt
        return results

    # -- VecEnv API -------------------------------------------------------------------------
    def reset(self):
        gens = {i: e.reset_steps(self._seeds[i]) for i, e in enumerate(self.envs)}
        for i, (obs, info) in self._run(gens).items():
            self._obs[i] = obs
            self.reset_infos[i] = info
            self._masks[i] = self.envs[i].action_masks()
        self._reset_seeds()
        self._reset_options()
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        n = self.num_envs
        rews = np.zeros(n, np.float32)
        dones = np.zeros(n, bool)
        infos: list[dict] = [{} for _ in range(n)]
        actions = self._actions
        assert actions is not None, "step_async first"
        results = self._run({i: e.step_steps(int(actions[i])) for i, e in enumerate(self.envs)})
        resets = {}
        for i, (obs, r, term, trunc, info) in results.items():
            rews[i] = r
            dones[i] = term or trunc
            info["TimeLimit.truncated"] = bool(trunc and not term)
            infos[i] = info
            if dones[i]:
                info["terminal_observation"] = obs
                resets[i] = self.envs[i].reset_steps()
            else:
                self._obs[i] = obs
                self._masks[i] = self.envs[i].action_masks()
        for i, (obs, info) in self._run(resets).items():
            self._obs[i] = obs
            self.reset_infos[i] = info
            self._masks[i] = self.envs[i].action_masks()
        return self._obs.copy(), rews, dones, infos

    def action_masks(self) -> np.ndarray:
        """The learner's masks for the observations last returned."""
        return self._masks.copy()

    def close(self) -> None:
        for e in self.envs:
            e.close()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self.envs[i], attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        for i in self._get_indices(indices):
            setattr(self.envs[i], attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        return [getattr(self.envs[i], method_name)(*method_args, **method_kwargs) for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
