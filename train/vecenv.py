"""Vectorized self-play envs for SB3: batched snapshot opponents, optional worker processes.

``SelfPlayVecEnv`` steps ``n`` ``SelfPlayEnv`` s in one process like SB3's DummyVecEnv, with two
differences that matter for speed:

- the frozen snapshots of the learner that play as opponents do not run one forward pass per move:
  every env runs until it needs such a move (``SelfPlayEnv.step_steps`` is a generator that yields
  the request), then all pending requests of one snapshot are answered by one batched forward pass,
  and the envs go on; scripted opponents (heuristic, random, MCTS) act inside the env as before;
- the learner's action masks are kept from the step that produced the observation
  (``action_masks()`` needs no call into each env).

``ParallelSelfPlayVecEnv`` splits the envs over ``workers`` processes (each runs a
``SelfPlayVecEnv`` of its share, torch limited to one thread) and exchanges whole arrays per step,
so the game engines and the opponents of 2 cores run side by side while the learner's process does
the forward pass and the PPO update. ``env_method`` reaches every ``SelfPlayEnv`` (pool control:
``add_snapshot``, ``set_opponent_random``). Its workers can also be stepped one at a time
(``step_group_async`` / ``step_group_wait``, then ``finish_group_step``): ArenaPPO's pipelined
rollouts decide one worker's next actions while the other worker is still stepping its envs.

Both follow SB3's VecEnv contract: ``step`` returns the next episode's first observation after an
episode ends, with the last one in ``info["terminal_observation"]``.
"""
from __future__ import annotations

import multiprocessing as mp
import os
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


# =============================================================================================
# worker processes
# =============================================================================================
def _worker(remote, parent_remote, fns) -> None:
    parent_remote.close()
    import torch
    torch.set_num_threads(1)
    venv = SelfPlayVecEnv(fns)
    try:
        while True:
            cmd, data = remote.recv()
            if cmd == "step":
                venv.step_async(data)
                obs, rews, dones, infos = venv.step_wait()
                remote.send((obs, rews, dones, infos, venv._masks.copy()))
            elif cmd == "reset":
                venv._seeds = data
                obs = venv.reset()
                remote.send((obs, venv.reset_infos, venv._masks.copy()))
            elif cmd == "env_method":
                name, args, kwargs, idx = data
                remote.send(venv.env_method(name, *args, indices=idx, **kwargs))
            elif cmd == "get_attr":
                name, idx = data
                remote.send(venv.get_attr(name, indices=idx))
            elif cmd == "set_attr":
                name, value, idx = data
                venv.set_attr(name, value, indices=idx)
                remote.send(None)
            elif cmd == "close":
                venv.close()
                remote.close()
                break
            else:
                raise NotImplementedError(cmd)
    except KeyboardInterrupt:
        pass


class ParallelSelfPlayVecEnv(VecEnv):
    """The envs split over ``workers`` processes, each a ``SelfPlayVecEnv``; arrays per step."""

    def __init__(self, env_fns: Sequence[Callable[[], Any]], workers: int = 2, start_method: str | None = None):
        n = len(env_fns)
        workers = max(1, min(int(workers), n))
        ctx: Any = mp.get_context(start_method or ("forkserver" if os.name == "posix" else "spawn"))
        bounds = np.linspace(0, n, workers + 1).round().astype(int)
        self.slices = [(int(bounds[k]), int(bounds[k + 1])) for k in range(workers)]
        self.remotes, self.processes = [], []
        for a, b in self.slices:
            remote, work_remote = ctx.Pipe()
            p = ctx.Process(target=_worker, args=(work_remote, remote, list(env_fns[a:b])), daemon=True)
            p.start()
            work_remote.close()
            self.remotes.append(remote)
            self.processes.append(p)
        self._inflight: set[int] = set()      # workers with a group step sent and not yet received
        self._received: dict[int, tuple] = {}  # group step replies taken off the pipes early
        self._assembled: tuple | None = None   # the step the next step_wait() returns
        probe = env_fns[0]()
        super().__init__(n, probe.observation_space, probe.action_space)
        self.metadata = probe.metadata
        probe.close()
        self._masks = np.zeros((n, probe.action_space.n), bool)
        self.closed = False

    # -- stepping one worker at a time (ArenaPPO's pipelined rollouts) ------------------------
    @property
    def groups(self) -> list[tuple[int, int]]:
        """The env index range [a, b) of each worker, in worker order."""
        return list(self.slices)

    def step_group_async(self, k: int, actions: np.ndarray) -> None:
        """Send worker ``k`` the actions of its envs (``groups[k]``); it steps them while the
        caller goes on."""
        if k in self._inflight or k in self._received:
            raise RuntimeError(f"worker {k} already has a step in flight (step_group_wait first)")
        a, b = self.slices[k]
        actions = np.asarray(actions)
        if actions.shape != (b - a,):
            raise ValueError(f"worker {k} runs envs {a}..{b - 1}: expected {b - a} actions, got shape {actions.shape}")
        self.remotes[k].send(("step", actions))
        self._inflight.add(k)

    def step_group_wait(self, k: int) -> tuple:
        """(obs, rewards, dones, infos) of worker ``k``'s envs after its step (SB3's step_wait
        contract for that range); their masks become ``action_masks()[a:b]``."""
        res = self._received.pop(k, None)
        if res is None:
            if k not in self._inflight:
                raise RuntimeError(f"worker {k} has no step in flight (step_group_async first)")
            res = self.remotes[k].recv()
            self._inflight.discard(k)
        obs, rews, dones, infos, masks = res
        a, b = self.slices[k]
        self._masks[a:b] = masks
        return obs, rews, dones, infos

    def finish_group_step(self, parts: list[tuple]) -> None:
        """Join the per-worker ``step_group_wait`` results of one step (in worker order) into the
        reply of the next ``step_wait()`` (so wrappers such as VecMonitor see a whole step)."""
        if len(parts) != len(self.slices):
            raise ValueError(f"expected the results of {len(self.slices)} workers, got {len(parts)}")
        infos: list = []
        for p in parts:
            infos.extend(p[3])
        self._assembled = (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
                           np.concatenate([p[2] for p in parts]), infos)

    def settle(self) -> None:
        """Take the replies of group steps still in flight off the pipes (``step_group_wait``
        returns them later), so that the pipes are free for another command."""
        for k in sorted(self._inflight):
            self._received[k] = self.remotes[k].recv()
        self._inflight.clear()

    def _check_no_group_step(self, what: str) -> None:
        self.settle()
        if self._received or self._assembled is not None:
            raise RuntimeError(f"{what} while a stepwise step is unfinished (step_group_wait / step_wait first)")

    def reset(self):
        self._check_no_group_step("reset()")
        for remote, (a, b) in zip(self.remotes, self.slices):
            remote.send(("reset", self._seeds[a:b]))
        obs = []
        for remote, (a, b) in zip(self.remotes, self.slices):
            o, infos, masks = remote.recv()
            obs.append(o)
            self.reset_infos[a:b] = infos
            self._masks[a:b] = masks
        self._reset_seeds()
        self._reset_options()
        return np.concatenate(obs)

    def step_async(self, actions: np.ndarray) -> None:
        """A whole step: every worker's share of ``actions`` (``step_group_async``)."""
        if self._assembled is not None:
            raise RuntimeError("step_async() while a stepwise step is unfinished (step_wait first)")
        actions = np.asarray(actions)
        for k, (a, b) in enumerate(self.slices):
            self.step_group_async(k, actions[a:b])

    def step_wait(self):
        """The whole step: every worker's reply joined (or the step ``finish_group_step`` joined)."""
        if self._assembled is None:
            self.finish_group_step([self.step_group_wait(k) for k in range(len(self.slices))])
        out, self._assembled = self._assembled, None
        return out

    def action_masks(self) -> np.ndarray:
        return self._masks.copy()

    def _by_worker(self, indices) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for i in self._get_indices(indices):
            for k, (a, b) in enumerate(self.slices):
                if a <= i < b:
                    out.setdefault(k, []).append(i - a)
        return out

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        self.settle()  # replies of steps in flight first: the pipes carry one reply at a time
        jobs = self._by_worker(indices)
        for k, idx in jobs.items():
            self.remotes[k].send(("env_method", (method_name, method_args, method_kwargs, idx)))
        out: list[Any] = []
        for k in jobs:
            out.extend(self.remotes[k].recv())
        return out

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        self.settle()
        jobs = self._by_worker(indices)
        for k, idx in jobs.items():
            self.remotes[k].send(("get_attr", (attr_name, idx)))
        out: list[Any] = []
        for k in jobs:
            out.extend(self.remotes[k].recv())
        return out

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        self.settle()
        jobs = self._by_worker(indices)
        for k, idx in jobs.items():
            self.remotes[k].send(("set_attr", (attr_name, value, idx)))
        for k in jobs:
            self.remotes[k].recv()

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def close(self) -> None:
        if self.closed:
            return
        try:
            self.settle()
        except (BrokenPipeError, EOFError):
            pass
        for remote in self.remotes:
            try:
                remote.send(("close", None))
            except (BrokenPipeError, EOFError):
                pass
        for p in self.processes:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()
        self.closed = True
