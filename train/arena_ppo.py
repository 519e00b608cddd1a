"""ArenaPPO: sb3-contrib's MaskablePPO with a KL anchor to the cloned policy and a leaner update.

The rollout collection, buffer and GAE are sb3-contrib's; the checkpoints are agents/ppo.py's safe
format (JSON + tensors; ``train/ppo.py`` rebuilds a resumed learner from them, and SB3's pickled
``MaskablePPO.load`` serves only a trusted legacy ``--resume``). The update (``train``) is rewritten:

- **KL toward the clone**: ``loss += kl_coef * KL(pi || pi_ref)`` over the legal actions of every
  state in the minibatch, where ``pi_ref`` is the frozen policy the run had after imitation
  (``set_reference``). It keeps PPO's fine-tune near the heuristic's play where the advantage says
  nothing, instead of drifting (the issue's "PPO after cloning wins 0-1%"). The reference's
  log-probabilities are computed once per rollout (one batched forward), not per minibatch and epoch.
- **Exact masked distributions**: logits are masked with -inf and normalised with ``log_softmax``
  once per minibatch; the log-prob, the entropy and both KLs come from that one tensor (SB3 builds a
  ``MaskableCategorical`` per call and re-masks).
- The whole rollout is flattened into tensors once per update (SB3 copies per minibatch).

Everything else (clipped surrogate, unclipped value loss, advantage normalisation per minibatch,
gradient clipping, ``target_kl`` early stop) is as in MaskablePPO.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import explained_variance

from ..agents.policy_net import actor_latent, critic_features, latents, numpy_outputs


def masked_log_softmax(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """log-probabilities over the legal actions (-inf elsewhere)."""
    return torch.log_softmax(logits.masked_fill(~mask, float("-inf")), dim=1)


def policy_outputs(policy, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(logits, values) of an SB3 actor-critic policy in one pass."""
    latent_pi, latent_vf = latents(policy, obs)
    return policy.action_net(latent_pi), policy.value_net(latent_vf).flatten()


def policy_logits(policy, obs: torch.Tensor) -> torch.Tensor:
    return policy.action_net(actor_latent(policy, obs))


def sample_masked(logp_all: torch.Tensor, uniform: torch.Tensor) -> torch.Tensor:
    """One action per row drawn from the masked distribution ``exp(logp_all)`` (rows of
    log-probabilities, -inf where illegal) by the Gumbel-max trick with the given uniform draws
    (same shape, in [0, 1)): argmax(logp - log(-log u)). A row's action depends on its own draws
    only."""
    return torch.argmax(logp_all - torch.log(-torch.log(uniform)), dim=1)


def along_line(start: float, end: float, step: int, total: int) -> float:
    """The value ``step`` learner steps along a straight line from ``start`` to ``end`` over
    ``total`` steps (``end`` from then on; ``start`` when ``total`` <= 0): the step size's schedule."""
    if total <= 0:
        return start
    return start + min(1.0, step / total) * (end - start)


class ArenaPPO(MaskablePPO):
    """MaskablePPO + KL(pi || reference) + a single-pass masked update (see the module docstring)."""

    def __init__(self, *args, kl_coef: float = 0.0, value_warmup_steps: int = 0,
                 learning_rate_end: float = -1.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.kl_coef = float(kl_coef)
        self.learning_rate_end = float(learning_rate_end)
        self.value_warmup_steps = int(value_warmup_steps)
        self.schedule_total = 0          # learner steps over which the step size moves (the run's total)
        self.reference = None            # frozen policy (the clone)
        self.update_threads = 0          # torch threads for the update (0: leave the count as it is)

    def set_reference(self, policy) -> None:
        """Freeze ``policy`` (a copy is not made: pass one the learner does not share)."""
        policy.set_training_mode(False)
        for p in policy.parameters():
            p.requires_grad_(False)
        self.reference = policy

    def current_learning_rate(self) -> float:
        """The Adam step size now: ``learning_rate`` (a number) falling linearly to
        ``learning_rate_end`` over ``schedule_total`` learner steps (counted from the start of the
        run, so a resumed run continues the same line), or SB3's own schedule when no end is set."""
        if self.learning_rate_end < 0 or self.schedule_total <= 0 or not isinstance(self.learning_rate, (int, float)):
            return float(self.lr_schedule(self._current_progress_remaining))
        return along_line(float(self.learning_rate), self.learning_rate_end, self.num_timesteps,
                          self.schedule_total)

    def _update_learning_rate(self, optimizers) -> None:
        lr = self.current_learning_rate()
        self.logger.record("train/learning_rate", lr)
        for optimizer in optimizers if isinstance(optimizers, list) else [optimizers]:
            for group in optimizer.param_groups:
                group["lr"] = lr

    def collect_rollouts(self, env, callback, rollout_buffer, n_rollout_steps: int, use_masking: bool = True) -> bool:
        """MaskablePPO's rollout loop with one forward pass per step giving logits and values, the
        masks read from the vectorized env (``action_masks()``, kept from its last step) and
        sampling from the exact masked softmax (``sample_masked``)."""
        assert self._last_obs is not None, "No previous observation was provided"
        self.policy.set_training_mode(False)
        rollout_buffer.reset()
        callback.on_rollout_start()
        done = self._collect_stepped(env, callback, rollout_buffer, n_rollout_steps)
        if done is None:
            return False
        with torch.no_grad():
            values = self.policy.predict_values(torch.as_tensor(done[0], dtype=torch.float32, device=self.device))
        rollout_buffer.compute_returns_and_advantage(last_values=values, dones=done[1])
        callback.on_rollout_end()
        return True

    def _decide(self, obs, masks: np.ndarray, uniform: torch.Tensor):
        """(actions, values, log-probs) of the current policy for ``obs`` under ``masks`` (the
        network's pass in numpy where it has a numpy twin: ``agents.ppo.numpy_outputs``)."""
        fast = numpy_outputs(self.policy)
        with torch.inference_mode():
            if fast is not None:  # a CPU policy
                logits_np, values_np = fast(np.asarray(obs, np.float32))
                logits, values = torch.from_numpy(logits_np), torch.from_numpy(values_np)
            else:
                logits, values = policy_outputs(self.policy, torch.as_tensor(obs, dtype=torch.float32,
                                                                             device=self.device))
            logp_all = masked_log_softmax(logits, torch.as_tensor(masks, device=self.device))
            actions_t = sample_masked(logp_all, uniform)
            log_probs = logp_all.gather(1, actions_t[:, None]).squeeze(1)
        return actions_t.cpu().numpy(), values, log_probs

    def _uniform(self, env) -> torch.Tensor:
        """One step's random draws for every env (``sample_masked``)."""
        return torch.rand(env.num_envs, int(env.action_space.n), device=self.device)

    def _after_step(self, env, callback, rollout_buffer, step: tuple, new: tuple) -> bool:
        """The bookkeeping of one whole step: counters, callback, episode info, the
        value of truncated games' last states, the buffer row. False: the callback stops."""
        actions, values, log_probs, masks = step
        new_obs, rewards, dones, infos = new
        self.num_timesteps += env.num_envs
        callback.update_locals({"infos": infos, "dones": dones, "rewards": rewards, "new_obs": new_obs,
                                "actions": actions, "values": values, "log_probs": log_probs, "env": env})
        if not callback.on_step():
            return False
        self._update_info_buffer(infos, dones)
        for idx, done in enumerate(dones):
            if done and infos[idx].get("terminal_observation") is not None \
                    and infos[idx].get("TimeLimit.truncated", False):
                terminal_obs = torch.as_tensor(infos[idx]["terminal_observation"][None], dtype=torch.float32,
                                               device=self.device)
                with torch.no_grad():
                    rewards[idx] += self.gamma * self.policy.predict_values(terminal_obs)[0].item()
        rollout_buffer.add(self._last_obs, actions.reshape(-1, 1), rewards, self._last_episode_starts,
                           values, log_probs, action_masks=masks)
        self._last_obs = new_obs
        self._last_episode_starts = dones
        return True

    def _collect_stepped(self, env, callback, rollout_buffer, n_rollout_steps: int):
        """One whole vectorized step at a time. Returns (last observations, dones), or None when
        the callback stopped the run."""
        from sb3_contrib.common.maskable.utils import get_action_masks

        read_masks = getattr(env, "action_masks", None)
        dones = None
        new_obs = self._last_obs
        for _ in range(n_rollout_steps):
            masks = read_masks() if read_masks is not None else get_action_masks(env)
            actions, values, log_probs = self._decide(self._last_obs, masks, self._uniform(env))
            new = env.step(actions)
            new_obs, dones = new[0], new[2]
            if not self._after_step(env, callback, rollout_buffer, (actions, values, log_probs, masks), new):
                return None
        return new_obs, dones

    def _excluded_save_params(self) -> list[str]:
        return super()._excluded_save_params() + ["reference", "_value_opt"]

    def train(self) -> None:
        threads = torch.get_num_threads()
        if self.update_threads > 0 and self.update_threads != threads:
            torch.set_num_threads(self.update_threads)
            try:
                self._train()
            finally:
                torch.set_num_threads(threads)
        else:
            self._train()

    def _train(self) -> None:
        policy = self.policy
        policy.set_training_mode(True)
        self._update_learning_rate(policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)  # type: ignore[operator]
        buf = self.rollout_buffer
        n = buf.buffer_size * buf.n_envs
        dev = self.device

        def flat(x, dtype=None):
            t = torch.as_tensor(buf.swap_and_flatten(x), device=dev)
            return t if dtype is None else t.to(dtype)

        obs = flat(buf.observations, torch.float32).reshape(n, -1)
        actions = flat(buf.actions).reshape(n).long()
        old_logp = flat(buf.log_probs, torch.float32).reshape(n)
        advantages = flat(buf.advantages, torch.float32).reshape(n)
        returns = flat(buf.returns, torch.float32).reshape(n)
        masks = flat(buf.action_masks).reshape(n, -1).bool()
        kl_coef = self.kl_coef if self.reference is not None else 0.0
        ref_logp = None
        if kl_coef > 0:
            with torch.no_grad():
                ref_logp = torch.cat([masked_log_softmax(policy_logits(self.reference, obs[s:s + 4096]),
                                                         masks[s:s + 4096]) for s in range(0, n, 4096)])
        warmup = self.num_timesteps <= self.value_warmup_steps
        if warmup:  # fit the value head on detached features; nothing else moves
            value_params = list(policy.mlp_extractor.value_net.parameters()) + list(policy.value_net.parameters())
            value_opt: Any = getattr(self, "_value_opt", None)
            if value_opt is None:
                value_opt = self._value_opt = torch.optim.Adam(value_params, lr=self.lr_schedule(1), eps=1e-5)
        stats: dict[str, list[float]] = {"pg": [], "vf": [], "ent": [], "kl_ref": [], "approx_kl": [], "clip": []}
        continue_training = True
        loss = torch.zeros(())
        batch_size = int(self.batch_size or n)
        for _epoch in range(self.n_epochs):
            perm = torch.randperm(n, device=dev)
            for start in range(0, n, batch_size):
                idx = perm[start:start + batch_size]
                if warmup:
                    with torch.no_grad():   # the warm-up fits the value MLP on frozen features
                        features = critic_features(policy, obs[idx])
                    critic = policy.mlp_extractor.forward_critic(features)
                    vf = F.mse_loss(policy.value_net(critic).flatten(),
                                    returns[idx])
                    value_opt.zero_grad(set_to_none=True)
                    vf.backward()
                    torch.nn.utils.clip_grad_norm_(value_params, self.max_grad_norm)
                    value_opt.step()
                    stats["vf"].append(float(vf.detach()))
                    continue
                m = masks[idx]
                logits, values = policy_outputs(policy, obs[idx])
                logp_all = masked_log_softmax(logits, m)
                logp = logp_all.gather(1, actions[idx, None]).squeeze(1)
                p_all = logp_all.exp()
                safe = logp_all.masked_fill(~m, 0.0)
                entropy = -(p_all * safe).sum(1)
                adv = advantages[idx]
                if self.normalize_advantage and len(idx) > 1:
                    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                log_ratio = logp - old_logp[idx]
                ratio = log_ratio.exp()
                pg = -torch.min(adv * ratio, adv * torch.clamp(ratio, 1 - clip_range, 1 + clip_range)).mean()
                vf = F.mse_loss(values, returns[idx])
                loss = pg + self.vf_coef * vf - self.ent_coef * entropy.mean()
                if ref_logp is not None:
                    kl = (p_all * (safe - ref_logp[idx].masked_fill(~m, 0.0))).sum(1).mean()
                    loss = loss + kl_coef * kl
                    stats["kl_ref"].append(float(kl.detach()))
                with torch.no_grad():
                    approx_kl = float(((ratio - 1) - log_ratio).mean())
                stats["pg"].append(float(pg.detach()))
                stats["vf"].append(float(vf.detach()))
                stats["ent"].append(float(entropy.mean().detach()))
                stats["approx_kl"].append(approx_kl)
                stats["clip"].append(float(((ratio - 1).abs() > clip_range).float().mean()))
                if self.target_kl is not None and approx_kl > 1.5 * self.target_kl:
                    continue_training = False
                    break
                policy.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), self.max_grad_norm)
                policy.optimizer.step()
            self._n_updates += 1
            if not continue_training:
                break
        ev = explained_variance(buf.values.flatten(), buf.returns.flatten())
        rec = self.logger.record
        rec("train/entropy", float(np.mean(stats["ent"])) if stats["ent"] else float("nan"))
        rec("train/entropy_loss", -float(np.mean(stats["ent"])) if stats["ent"] else float("nan"))
        rec("train/policy_gradient_loss", float(np.mean(stats["pg"])) if stats["pg"] else float("nan"))
        rec("train/value_loss", float(np.mean(stats["vf"])) if stats["vf"] else float("nan"))
        rec("train/approx_kl", float(np.mean(stats["approx_kl"])) if stats["approx_kl"] else float("nan"))
        rec("train/clip_fraction", float(np.mean(stats["clip"])) if stats["clip"] else float("nan"))
        if stats["kl_ref"]:
            rec("train/kl_reference", float(np.mean(stats["kl_ref"])))
            rec("train/kl_coef", kl_coef)
        rec("train/loss", float(loss.detach()))
        rec("train/explained_variance", ev)
        rec("train/n_updates", self._n_updates, exclude="tensorboard")
        rec("train/clip_range", clip_range)
        self.last_train_stats = {k: (float(np.mean(v)) if v else float("nan")) for k, v in stats.items()}
        self.last_train_stats["explained_variance"] = float(ev)
