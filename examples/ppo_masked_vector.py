"""CleanRL-style single-file PPO with invalid-action masking on a Tabletop Arena game.

One learner against opponents that move inside ``step()`` (``tabletop_arena.envs.single_agent``),
vectorised with ``gymnasium.make_vec``. Reads top to bottom: config, env, agent, rollout, update.

    python examples/ppo_masked_vector.py --env-id tabletop_arena/Zaka-v0 --opponent heuristic \
        --num-envs 8 --total-timesteps 200000

Masks: each sub-env puts its legal-action mask in ``info["action_mask"]``; the vector env stacks
them to ``(num_envs, N)``. The env is built with ``AutoresetMode.SAME_STEP``: when an episode ends,
the step returns the *next* episode's first observation and mask (the finished episode's outcome is
in ``info["final_info"]``), so every row of the mask is the one for the observation handed back.
Illegal logits get -1e8 before the softmax, so sampled actions are always legal.
"""
from __future__ import annotations

import argparse
import dataclasses
import time

import gymnasium
import numpy as np
import torch
import torch.nn as nn
from gymnasium.vector import AutoresetMode
from torch.distributions.categorical import Categorical

# registers tabletop_arena/<Game>-v0 with Gymnasium (--env-id tabletop_arena:tabletop_arena/Zaka-v0
# would import it too: Gymnasium's module:id form)
import tabletop_arena.envs  # noqa: F401


@dataclasses.dataclass
class Args:
    env_id: str = "tabletop_arena/Peacekeepers-v0"  #: a registered Gymnasium id
    opponent: str = "random"  #: opponent spec: random, heuristic, mcts:N, ppo:NAME|PATH
    seed: int = 1  #: seed of the envs, torch and the action sampling
    num_envs: int = 4  #: parallel game instances
    vectorization: str = "sync"  #: sync (one process) or async (one process per env)
    num_steps: int = 128  #: learner steps per env per rollout
    total_timesteps: int = 100_000  #: learner steps in all
    learning_rate: float = 2.5e-4  #: Adam step size (annealed linearly to 0)
    gamma: float = 0.99  #: discount
    gae_lambda: float = 0.95  #: GAE lambda
    num_minibatches: int = 4  #: minibatches per epoch
    update_epochs: int = 4  #: epochs per rollout
    clip_coef: float = 0.2  #: PPO clip range
    ent_coef: float = 0.01  #: entropy bonus
    vf_coef: float = 0.5  #: value loss weight
    max_grad_norm: float = 0.5  #: gradient clipping
    hidden: int = 128  #: width of the two hidden layers
    torch_threads: int = 1  #: torch CPU threads (0: leave them; an opponent spec set one, docs/integrations.md)


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in dataclasses.fields(Args):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return Args(**vars(parser.parse_args()))


def layer(n_in: int, n_out: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, n_obs: int, n_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(layer(n_obs, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                    layer(hidden, 1, std=1.0))
        self.actor = nn.Sequential(layer(n_obs, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                   layer(hidden, n_actions, std=0.01))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, mask, action=None):
        logits = self.actor(x).masked_fill(~mask, -1e8)  # illegal actions get no probability
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(x)


def main(args: Args) -> dict:
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_updates = max(1, args.total_timesteps // batch_size)
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    torch.manual_seed(args.seed)

    envs = gymnasium.make_vec(args.env_id, num_envs=args.num_envs, vectorization_mode=args.vectorization,
                              vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
                              opponent=args.opponent)
    n_obs = envs.single_observation_space.shape[0]
    n_act = envs.single_action_space.n
    agent = Agent(n_obs, n_act, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.num_envs, n_obs))
    masks = torch.zeros((args.num_steps, args.num_envs, n_act), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    start = time.time()
    next_obs, info = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs)
    next_mask = torch.as_tensor(info["action_mask"], dtype=torch.bool)
    next_done = torch.zeros(args.num_envs)
    outcomes: list[str] = []
    stats = {}
    for update in range(1, num_updates + 1):
        optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - (update - 1.0) / num_updates)
        episodes_before = len(outcomes)
        for step in range(args.num_steps):
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step] = value.flatten()
            actions[step], logprobs[step] = action, logprob
            next_obs, reward, terminated, truncated, info = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs = torch.as_tensor(next_obs)
            next_mask = torch.as_tensor(info["action_mask"], dtype=torch.bool)
            next_done = torch.as_tensor(np.logical_or(terminated, truncated), dtype=torch.float32)
            if "final_info" in info:  # episodes that ended on this step
                final = info["final_info"]
                outcomes += [str(final["outcome"][i]) for i in np.flatnonzero(info["_final_info"])]

        with torch.no_grad():  # generalised advantage estimation
            next_value = agent.get_value(next_obs).flatten()
            advantages = torch.zeros_like(rewards)
            last_gae = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    not_done, next_v = 1.0 - next_done, next_value
                else:
                    not_done, next_v = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * next_v * not_done - values[t]
                last_gae = delta + args.gamma * args.gae_lambda * not_done * last_gae
                advantages[t] = last_gae
            returns = advantages + values

        b_obs, b_masks = obs.reshape(-1, n_obs), masks.reshape(-1, n_act)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_adv, b_returns = advantages.reshape(-1), returns.reshape(-1)
        order = np.arange(batch_size)
        for _ in range(args.update_epochs):
            np.random.default_rng(args.seed + update).shuffle(order)
            for lo in range(0, batch_size, minibatch_size):
                mb = order[lo:lo + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                pg_loss = torch.max(-adv * ratio,
                                    -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue.flatten() - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        recent = outcomes[episodes_before:]
        stats = {"update": update, "steps": update * batch_size,
                 "sps": int(update * batch_size / (time.time() - start)),
                 "episodes": len(recent),
                 "win_rate": round(recent.count("win") / len(recent), 3) if recent else None,
                 "policy_loss": round(pg_loss.item(), 4), "value_loss": round(v_loss.item(), 4),
                 "entropy": round(entropy.mean().item(), 3)}
        print(" ".join(f"{k}={v}" for k, v in stats.items()), flush=True)
    envs.close()
    stats["episodes_total"] = len(outcomes)
    print(f"done: {num_updates} updates, {num_updates * batch_size} learner steps, "
          f"{len(outcomes)} episodes, wins {outcomes.count('win')}", flush=True)
    return stats


if __name__ == "__main__":
    main(parse_args())
