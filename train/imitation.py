"""Imitation warm start: behaviour cloning at scale to convergence, then DAgger on the student's states.

    from tabletop_arena.train.imitation import warm_start
    stats = warm_start(model.policy, game, cfg, log=print, out=run_folder)

1. **Expert data**: ``cfg.bc_games`` games of the game's heuristic against itself. Every decision is
   stored as (observation, mask, the heuristic's action, the final result of the player who moved).
2. **Cloning to convergence**: cross-entropy of the masked policy on the heuristic's actions (+
   ``VALUE_COEF`` x MSE of the value on the results; Adam at ``LEARNING_RATE``, minibatches of
   ``BATCH_SIZE``); the games are split into training and held-out games (a share ``HOLDOUT``);
   after each pass the held-out *agreement* (argmax of the
   masked logits == the heuristic's move) is measured, the best weights are kept, and training stops
   after ``cfg.bc_patience`` passes without improvement or at ``cfg.bc_epochs``.
3. **DAgger** (``cfg.dagger_rounds`` rounds of ``cfg.dagger_games`` games): the student plays one
   player against heuristic opponents (sampling from its policy, as PPO will), the heuristic labels
   every state the student reached with the move it would have made (it reads the determinized
   engine state: ~0.1-1 ms a call), the new games join the data and step 2 runs again. The held-out
   agreement on the student's *own* states is the number that says how well the clone plays the
   heuristic's game; the student's win rate in these games (against the heuristic) is logged too.

Value targets are the final results (+1 / -1 / rank based) of the player who moved. They are noisy
(one game result per state), so the held-out value MSE is printed next to the MSE of predicting 0
and the value is kept only through the held-out early stopping of step 2.

Seeds: every engine seed drawn here is even (``train_seed``); the evaluator's are odd
(``train/evaluate.py``), so no imitation or training game is ever an evaluation game.
"""
from __future__ import annotations

import csv
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..agents.policy_net import actor_latent, latents
from ..agents.registry import make_agent
from ..envs.core.game import action_index
from .progress import progress_bar
from .stops import check as check_stop

#: cloning's fixed settings (never varied by a shipped run): share of games held out to measure
#: the agreement, minibatch, Adam step size, weight of the value's squared error
HOLDOUT, BATCH_SIZE, LEARNING_RATE, VALUE_COEF = 0.1, 256, 1e-3, 0.5


def train_seed(rng: np.random.Generator) -> int:
    """An engine seed of the training domain: even (the evaluator's engine seeds are odd)."""
    return int(rng.integers(2**62)) * 2


@dataclass
class Samples:
    """Decisions with the expert's labels; ``game`` numbers the games (for held-out splits)."""

    obs: np.ndarray       # float16 (n, observation_size)
    masks: np.ndarray     # bool (n, num_actions)
    actions: np.ndarray   # int64: the expert's (heuristic's) choice
    returns: np.ndarray   # float32: final result of the player who moved
    game: np.ndarray      # int64: game number
    own: np.ndarray       # bool: a state the student reached by its own move choice (DAgger)

    def __len__(self) -> int:
        return len(self.actions)

    @staticmethod
    def concat(parts: list["Samples"]) -> "Samples":
        parts = [p for p in parts if p is not None and len(p)]
        return Samples(*(np.concatenate([getattr(p, f) for p in parts])
                         for f in ("obs", "masks", "actions", "returns", "game", "own")))

    def subset(self, idx) -> "Samples":
        return Samples(self.obs[idx], self.masks[idx], self.actions[idx], self.returns[idx],
                       self.game[idx], self.own[idx])


def _policy_logits(policy, obs: np.ndarray, masks: np.ndarray) -> torch.Tensor:
    o = torch.as_tensor(np.asarray(obs, np.float32), device=policy.device)
    logits = policy.action_net(actor_latent(policy, o))
    return logits.masked_fill(~torch.as_tensor(masks, device=logits.device), float("-inf"))


def collect(game, games: int, rng: np.random.Generator, max_steps: int, student=None,
            first_game: int = 0, temperature: float = 1.0, parallel: int = 16,
            progress: bool = False, desc: str = "games", keep: float = 1.0) -> tuple[Samples, dict]:
    """Play ``games`` games and label every decision with the heuristic's move.

    Without ``student``: the heuristic plays every player (expert data). With ``student`` (a policy):
    one random player per game is the student, sampling its moves from the masked policy (softmax of
    the logits / ``temperature``); the other players are heuristics. Each decision is stored with
    probability ``keep`` (the states of one game are alike: a share of many games is worth more than
    all of few), labelled with the heuristic's move; ``own`` marks the student's. ``parallel`` games
    are played side by side so that the student's moves are one batched forward pass.
    """
    owner = [game.seat_owner(s) for s in range(game.num_seats)]
    counts = np.maximum(np.bincount(owner, minlength=game.num_agents), 1)
    experts = [make_agent("heuristic", game, seed=int(rng.integers(2**63))) for _ in range(game.num_agents)]
    needs_state = getattr(experts[0], "needs_state", False)
    obs, masks, actions, movers, gids, own = [], [], [], [], [], []
    returns_by_game: dict[int, np.ndarray] = {}
    wins = draws = played = 0
    live: list[list] = []  # [state, game number, student agent index]
    started = 0
    bar = None
    if progress:
        bar = progress_bar(games, desc, "game")

    def start():
        nonlocal started
        st = game.new_initial_state(np.random.default_rng(train_seed(rng)))
        s_idx = int(rng.integers(game.num_agents)) if student is not None else -1
        live.append([st, first_game + started, s_idx])
        started += 1

    def label(st, need: bool) -> tuple[np.ndarray, np.ndarray, int]:
        seat = st.current_player
        mask = st.legal_actions_mask()
        o = st.observation(seat)
        if not need:
            return o, mask, -1
        state = st.determinize(seat, rng) if needs_state else None
        agent = experts[owner[seat]]
        return o, mask, action_index(agent.act({"observation": o, "action_mask": mask}, state=state),
                                     st.phase_name())  # an integer (no coercion); applied with checks

    def finish(entry):
        nonlocal wins, draws, played
        st, gno, s_idx = entry
        per_agent = np.zeros(game.num_agents)
        np.add.at(per_agent, owner, np.asarray(st.returns(), float))
        per_agent /= counts
        returns_by_game[gno] = per_agent
        if s_idx >= 0:
            played += 1
            top = per_agent.max()
            if per_agent[s_idx] == top:
                if (per_agent == top).sum() == 1:
                    wins += 1
                else:
                    draws += 1
        if bar:
            bar.update(1)

    while started < min(parallel, games):
        start()
    while live:
        check_stop()   # a stop whose exception was lost (train/stops.py)
        waiting = []  # (entry, obs, mask, expert action) where the student is to move
        for entry in list(live):
            st, gno, s_idx = entry
            while True:
                if st.is_terminal() or len(st.history) >= max_steps:
                    finish(entry)
                    live.remove(entry)
                    if started < games:
                        start()
                    break
                seat = st.current_player
                mine = owner[seat] == s_idx
                stored = keep >= 1.0 or rng.random() < keep
                o, mask, a = label(st, need=stored or not mine)
                if stored:
                    obs.append(o.astype(np.float16))
                    masks.append(mask.astype(bool))
                    actions.append(a)
                    movers.append(owner[seat])
                    gids.append(gno)
                    own.append(mine)
                if mine:
                    legal = np.flatnonzero(mask)
                    if len(legal) > 1:
                        waiting.append((entry, o, mask))
                        break
                    a = int(legal[0])  # no choice: the one legal move (unlabelled when not stored)
                st.apply(a)
        if waiting:
            with torch.no_grad():
                logits = _policy_logits(student, np.stack([w[1] for w in waiting]),
                                        np.stack([w[2].astype(bool) for w in waiting]))
                p = torch.softmax(logits / max(temperature, 1e-6), dim=1).double().cpu().numpy()
            for (entry, _, _), pr in zip(waiting, p):
                a = int(rng.choice(len(pr), p=pr / pr.sum()))
                entry[0].apply(a)
    if bar:
        bar.close()
    rets = np.array([returns_by_game[g][m] for g, m in zip(gids, movers)], np.float32)
    data = Samples(np.stack(obs), np.stack(masks), np.asarray(actions, np.int64), rets,
                   np.asarray(gids, np.int64), np.asarray(own, bool))
    info: dict[str, float] = {"games": games, "samples": len(data)}
    if student is not None:
        info.update(student_win_rate=wins / max(played, 1), student_draw_rate=draws / max(played, 1),
                    student_samples=int(data.own.sum()))
    return data, info


def action_kind(game):
    """A function naming the kind of an action (the first field of the game's ``decode``)."""
    import importlib

    lay = getattr(game, "layout", None)
    if lay is not None and hasattr(lay, "decode"):
        return lambda a: str(lay.decode(int(a))[0])
    base = str(getattr(game, "name", "")).split("_v")[0]
    try:
        mod = importlib.import_module(f"..envs.{base}.actions", __package__)
        if hasattr(mod, "decode"):
            return lambda a: str(mod.decode(int(a))[0])
    except ImportError:
        pass
    return lambda a: "all"


def agreement_by_kind(policy, data: Samples, kind, batch: int = 2048) -> dict[str, tuple[float, int]]:
    """Agreement per kind of the expert's action (choices only): {kind: (agreement, decisions)}."""
    choice = data.masks.sum(1) > 1
    data = data.subset(choice)
    hits = np.zeros(len(data), bool)
    with torch.no_grad():
        for s in range(0, len(data), batch):
            sl = slice(s, s + batch)
            hits[sl] = _policy_logits(policy, data.obs[sl], data.masks[sl]).argmax(1).cpu().numpy() == data.actions[sl]
    kinds = np.array([kind(a) for a in data.actions])
    return {k: (float(hits[kinds == k].mean()), int((kinds == k).sum())) for k in sorted(set(kinds))}


def _batches(n: int, size: int, rng: np.random.Generator):
    order = rng.permutation(n)
    for s in range(0, n, size):
        yield order[s:s + size]


def evaluate_clone(policy, data: Samples, batch: int = 2048) -> dict:
    """Agreement (argmax == label) and value MSE on ``data`` (and on its student-own part)."""
    if len(data) == 0:
        return {"agreement": float("nan"), "value_mse": float("nan"), "zero_mse": float("nan")}
    hits = np.zeros(len(data), bool)
    vals = np.zeros(len(data), np.float32)
    with torch.no_grad():
        for s in range(0, len(data), batch):
            sl = slice(s, s + batch)
            logits = _policy_logits(policy, data.obs[sl], data.masks[sl])
            hits[sl] = (logits.argmax(1).cpu().numpy() == data.actions[sl])
            o = torch.as_tensor(data.obs[sl].astype(np.float32), device=policy.device)
            vals[sl] = policy.predict_values(o).flatten().cpu().numpy()
    # decisions with one legal move say nothing about the clone: left out of the agreement
    choice = data.masks.sum(1) > 1
    out = {"agreement": float(hits[choice].mean()) if choice.any() else float("nan"),
           "value_mse": float(np.mean((vals - data.returns) ** 2)),
           "zero_mse": float(np.mean(data.returns ** 2))}
    own = choice & data.own
    if own.any():
        out["agreement_own"] = float(hits[own].mean())
    return out


def _clone_loss(logits, actions, weight):
    """Weighted cross-entropy of the masked ``logits`` against the teacher's ``actions``."""
    nll = -torch.log_softmax(logits, dim=1).gather(1, actions[:, None]).squeeze(1)
    return (nll * weight).sum() / weight.sum().clamp_min(1.0)


def fit(policy, train: Samples, held: Samples, cfg, rng: np.random.Generator, log=print,
        tag: str = "bc", rows: list | None = None, epochs: int | None = None) -> dict:
    """Clone ``train`` until the held-out agreement stops improving; keep the best weights."""
    policy.set_training_mode(True)
    opt = torch.optim.Adam(policy.parameters(), lr=LEARNING_RATE, eps=1e-5)
    best, best_state, stale = -1.0, None, 0
    choice = train.masks.sum(1) > 1   # forced moves teach nothing; they still train the value
    result = {}
    t0 = time.time()
    for epoch in range(epochs or cfg.bc_epochs):
        tot, n_seen = 0.0, 0
        for idx in _batches(len(train), BATCH_SIZE, rng):
            check_stop()
            o = torch.as_tensor(train.obs[idx].astype(np.float32), device=policy.device)
            m = torch.as_tensor(train.masks[idx], device=policy.device)
            a = torch.as_tensor(train.actions[idx], device=policy.device)
            latent_pi, latent_vf = latents(policy, o)
            logits = policy.action_net(latent_pi).masked_fill(~m, float("-inf"))
            ce = _clone_loss(logits, a, torch.as_tensor(choice[idx], dtype=torch.float32, device=policy.device))
            v = policy.value_net(latent_vf).flatten()
            loss = ce + VALUE_COEF * torch.nn.functional.mse_loss(
                v, torch.as_tensor(train.returns[idx], device=policy.device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.max_grad_norm)
            opt.step()
            tot += float(ce.detach()) * len(idx)
            n_seen += len(idx)
        policy.set_training_mode(False)
        ev = evaluate_clone(policy, held)
        policy.set_training_mode(True)
        row = {"stage": tag, "epoch": epoch + 1, "samples": len(train), "train_ce": tot / max(n_seen, 1),
               "held_agreement": ev["agreement"], "held_agreement_own": ev.get("agreement_own", float("nan")),
               "held_value_mse": ev["value_mse"], "held_zero_mse": ev["zero_mse"],
               "seconds": round(time.time() - t0, 1)}
        if rows is not None:
            rows.append(row)
        log(f"{tag} epoch {epoch + 1}: train ce {row['train_ce']:.3f}, held-out agreement "
            f"{100 * ev['agreement']:.1f}%" + (f" (student's own states {100 * ev['agreement_own']:.1f}%)"
                                               if "agreement_own" in ev else "")
            + f", value mse {ev['value_mse']:.3f} (predicting 0: {ev['zero_mse']:.3f}), {row['seconds']:.0f}s")
        score = ev.get("agreement_own", ev["agreement"])
        if score > best + 1e-4:
            best, stale = score, 0
            best_state = {k: v.detach().clone() for k, v in policy.state_dict().items()}
            result = row
        else:
            stale += 1
            if stale >= cfg.bc_patience:
                break
    if best_state is not None:
        policy.load_state_dict(best_state)
    policy.set_training_mode(False)
    return result


def split(data: Samples, holdout: float, rng: np.random.Generator) -> tuple[Samples, Samples]:
    """Split by whole games (states of one game are correlated)."""
    ids = np.unique(data.game)
    held_ids = (rng.choice(ids, size=max(1, int(round(holdout * len(ids)))), replace=False) if len(ids) > 1
                else np.zeros(0, ids.dtype))
    held = np.isin(data.game, held_ids)
    return data.subset(~held), data.subset(held)


def warm_start(policy, game, cfg, log=print, out: Path | None = None, on_phase=None) -> dict:
    """Clone the heuristic (expert games), then DAgger rounds; returns the last round's stats.

    Writes ``imitation.csv`` (one row per pass) into ``out`` when given. ``on_phase(words)`` hears
    each step as it starts (the words a stop prints: where the warm start was).
    """
    phase = on_phase or (lambda what: None)
    rng = np.random.default_rng([cfg.seed, 104729])
    rows: list[dict] = []
    t0 = time.time()
    phase(f"{cfg.bc_games} expert games")
    data, info = collect(game, cfg.bc_games, rng, cfg.max_steps, progress=cfg.progress, desc="expert games",
                         keep=cfg.bc_keep)
    log(f"imitation: {info['samples']} decisions from {cfg.bc_games} heuristic games ({time.time() - t0:.0f}s)")
    train_part, held = split(data, HOLDOUT, rng)
    phase("behaviour cloning")
    stats = fit(policy, train_part, held, cfg, rng, log=log, tag="bc", rows=rows)
    next_game = cfg.bc_games
    for r in range(cfg.dagger_rounds):
        t1 = time.time()
        phase(f"DAgger round {r + 1} of {cfg.dagger_rounds}")
        new, info = collect(game, cfg.dagger_games, rng, cfg.max_steps, student=policy, first_game=next_game,
                            progress=cfg.progress, desc=f"dagger {r + 1}", keep=cfg.bc_keep)
        next_game += cfg.dagger_games
        log(f"dagger round {r + 1}: {info['student_samples']} student decisions in {cfg.dagger_games} games "
            f"vs heuristic, student won {100 * info['student_win_rate']:.1f}% ({time.time() - t1:.0f}s)")
        new_train, new_held = split(new, HOLDOUT, rng)
        train_part = Samples.concat([train_part, new_train])
        held = new_held  # judge on the student's latest states
        stats = fit(policy, train_part, held, cfg, rng, log=log, tag=f"dagger{r + 1}", rows=rows,
                    epochs=cfg.dagger_epochs)
        stats["student_win_rate"] = info["student_win_rate"]
        if rows:
            rows[-1]["student_win_rate_before"] = info["student_win_rate"]
    by_kind = agreement_by_kind(policy, held, action_kind(game))
    log("held-out agreement by the heuristic's action kind: " + ", ".join(
        f"{k} {100 * r:.0f}% ({n})" for k, (r, n) in by_kind.items()))
    stats["by_kind"] = by_kind
    if out is not None and rows:
        out.mkdir(parents=True, exist_ok=True)
        keys = list(dict.fromkeys(k for r in rows for k in r))
        with open(out / "imitation.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
    stats["seconds"] = time.time() - t0
    return stats
