"""A trained policy improved at play time by its own rollouts: ``rollout:N:REF``.

    from tabletop_arena.agents.registry import make_agent
    agent = make_agent("rollout:16:zaka", envs.make_game("zaka_v0"), seed=0)

This is on-line policy improvement by Monte Carlo simulation (Tesauro & Galperin, "On-line policy
improvement using Monte-Carlo search", NIPS 1996), with the checkpoint as both the proposal and the
rollout policy:

- **Candidates.** The checkpoint's logits on the seat's observation rank the legal moves; the
  ``top_k`` best with a prior of at least ``min_prior`` are candidates. When the best move's prior
  is at least ``gate`` (the network is sure), or only one candidate is left, the agent plays the
  network's move without searching: most decisions cost one forward pass.
- **Rollouts.** Each candidate is played ``N`` times from a fresh ``state.determinize(seat, rng)``
  (hidden cards resampled, future chance re-seeded: the agent never sees the real future), then
  every seat, its own and the opponents', moves by *sampling* the checkpoint's policy until the game
  ends (or ``rollout_cap`` moves, scored by ``returns()`` there). No rule-based agent is involved.
- **Batched.** All ``k x N`` rollouts of a decision advance together, one move each a round, so a
  network rollout policy scores them in one forward pass a round (``PPOAgent.logits_batch``, then
  ``PPOAgent.sample_batch``); each game draws from its own generator, so a game's result does not
  depend on the games beside it (the same moves as playing it alone).
- **Common random numbers.** Rollout i uses the same determinization seed and the same sampling
  seed for every candidate, so candidates are compared on the same deals and dice as far as their
  games stay alike; the comparison is paired, not just averaged.
- **The move** is the candidate with the highest mean return for the acting agent (an agent owning
  several seats is scored as ``Game.agent_returns`` does); ties go to the higher prior.
- **Settings** in the spec, after N: ``rollout:64,k=10,gate=1,floor=0.02,by=random:peacekeepers``
  (``k`` = ``top_k``, ``floor`` = ``min_prior``, ``by=random``: uniformly random rollouts instead of
  the checkpoint's policy, cheap where the network is slow against a long game), ``alloc=halving``
  (below).
- **Allocation.** ``uniform`` (the default): N rollouts for every candidate. ``halving``:
  sequential halving (Karnin, Koren & Somekh, "Almost optimal exploration in multi-armed bandits",
  ICML 2013, as in Gumbel MuZero's root): the same ``k x N`` budget split over ``ceil(log2 k)``
  rounds; each round the surviving candidates share that round's budget equally (common random
  numbers within the round) and the better half by mean so far survives (ties to the prior), so
  the close contenders at the end get the most rollouts (at least one rollout for each survivor
  a round, so a budget smaller than the rounds' candidates is exceeded).
- **A budget in moves** (``moves=M``, with ``alloc=halving``): a rollout's cost is its length, the
  rest of the game, so N rollouts a candidate cost most at the first decision and little near the
  end. With ``moves=M`` the first round is played as above; its rollouts' mean length L then sets
  the decision's budget to ``max(k x N, M / (L + ROLLOUT_START_MOVES))`` rollouts (starting a
  rollout costs about as much as a few of its moves), of which each later round gets its share as
  before; with two candidates (one round) both get the rest in a second batch. N stays the fewest;
  where the game's rest is short the decision gets more rollouts, a little under M simulated
  moves in all, so every decision costs about the same time. Deterministic: the lengths come from
  the seeded rollouts, not from a clock.

Cost: ``k x N`` rollouts of the rest of the game, on the decisions where the network is unsure.
``rollout:16:zaka`` plays a Zaka game in about 1-2 s on one core (the network alone in ~0.02 s);
``rollout:16,k=10,gate=1:peacekeepers`` a Peacekeepers game in ~25 s. At 4 players (every seat
scored by its rank return): ``rollout:16:peacekeepers_4p`` ~5 s a game, ``rollout:64,k=16,gate=1:zaka_4p``
~2.2 s (docs/training-notes.md, "Four players by network rollouts").
"""
from __future__ import annotations

import os
import sys
from typing import Callable

import numpy as np

from .base import BaseAgent, RandomAgent, SharesBaseGenerator
from .heuristics import make_heuristic

#: the defaults of ``rollout:N:REF`` (chosen on Zaka: docs/training-notes.md, "R1")
TOP_K, GATE, MIN_PRIOR, ROLLOUT_CAP = 4, 0.99, 0.02, 1000
#: what starting a rollout costs (a determinization, a copy, the candidate applied), in moves of a
#: rollout, for ``moves=M``: ~5 measured on Peacekeepers (a late decision: 6698 rollouts of 38438
#: moves in all took 1.8 CPU s, at ~24 us a move; docs/training-notes.md, "Peacekeepers against
#: `mcts:200` with a budget in moves")
ROLLOUT_START_MOVES = 8
#: how the ``k x N`` rollouts of a decision are spread over the candidates
ALLOCATIONS = ("uniform", "halving")


class RolloutAgent(BaseAgent):
    """Policy-rollout search with a MaskablePPO checkpoint (see the module docstring).

    ``prior`` and ``rollout_agent`` replace the checkpoint (tests, other policies): ``prior(obs,
    state)`` returns logits over every action, ``rollout_agent.act(obs, state)`` moves every seat
    in the rollouts (its ``rng`` is re-seeded for each rollout)."""

    name = "rollout"
    needs_state = True

    def __init__(self, path: str | os.PathLike | None, game, rollouts: int = 16, seed: int | None = None,
                 top_k: int = TOP_K, gate: float = GATE, min_prior: float = MIN_PRIOR,
                 rollout_cap: int = ROLLOUT_CAP, allocation: str = "uniform", moves: int | None = None,
                 check: bool = True,
                 prior: Callable[[np.ndarray, object], np.ndarray] | None = None,
                 rollout_agent: BaseAgent | None = None, trust: bool = False):
        super().__init__(seed)
        counts = {"rollouts": rollouts, "top_k": top_k, "rollout_cap": rollout_cap}
        if moves is not None:
            counts["moves"] = moves
        for key, value in counts.items():
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{key} must be an integer >= 1, got {value!r}")
        if not 0.0 < gate <= 1.0:
            raise ValueError(f"gate must be in (0, 1], got {gate!r}")
        if not 0.0 <= min_prior < 1.0:
            raise ValueError(f"min_prior must be in [0, 1), got {min_prior!r}")
        if allocation not in ALLOCATIONS:
            raise ValueError(f"allocation must be one of {', '.join(ALLOCATIONS)}, got {allocation!r}")
        if moves is not None and allocation != "halving":
            raise ValueError("moves (a budget in simulated moves) needs allocation 'halving': its "
                             "first round measures the rollouts' length")
        self.allocation = allocation
        self.moves = None if moves is None else int(moves)
        self.game = game
        self.rollouts, self.top_k, self.rollout_cap = int(rollouts), int(top_k), int(rollout_cap)
        self.gate, self.min_prior = float(gate), float(min_prior)
        self._owner = [game.seat_owner(s) for s in range(game.num_seats)]
        self.path = "<memory>"
        if prior is None or rollout_agent is None:
            if path is None:
                raise ValueError("RolloutAgent needs a checkpoint path, or both prior and rollout_agent")
            # imports torch: only for a checkpoint (hroll plays without one)
            from .ppo import PPOAgent

            # reads, checks and loads the checkpoint (a pickled one only with trust=True)
            net = PPOAgent(path, game, seed=0, check=check, trust=trust)
            self.path = net.path
            if prior is None:
                prior = self._network_prior(net)
            if rollout_agent is None:
                rollout_agent = PPOAgent.from_policy(net.policy, seed=0, deterministic=False)
        self._prior = prior
        self._rollout_agent = rollout_agent
        #: the last search: candidate -> (prior, mean return of the acting agent, rollouts); {} if none
        self.last_search: dict[int, tuple[float, float, int]] = {}
        self.rollouts_played = 0  #: rollouts so far (for logs and tests)
        self.moves_played = 0     #: moves played in rollouts so far (for logs and tests)

    def _network_prior(self, net):
        def prior(observation, state):
            return net.logits(observation)
        return prior

    # ------------------------------------------------------------------------------------------
    def _start(self, obs) -> np.ndarray:
        """The legal moves of ``obs`` (ValueError if none); forgets the last search."""
        legal = np.flatnonzero(np.asarray(obs["action_mask"]).astype(bool))
        if len(legal) == 0:
            raise ValueError("no legal action in the mask")
        self.last_search = {}
        return legal

    def act(self, obs, state=None) -> int:
        legal = self._start(obs)
        if len(legal) == 1:
            return int(legal[0])
        if state is None:
            raise ValueError("RolloutAgent needs the engine state (needs_state=True): pass a clone or "
                             "state.determinize(seat, rng)")
        if state.is_terminal():
            raise ValueError("RolloutAgent.act called on a finished game")
        z = np.asarray(self._prior(obs["observation"], state), np.float64)[legal]
        order = np.argsort(-z, kind="stable")
        p = np.exp(z - z.max())
        p /= p.sum()
        cands = [int(legal[i]) for i in order[: self.top_k] if p[i] >= self.min_prior]
        if p[order[0]] >= self.gate or len(cands) < 2:
            return int(legal[order[0]])
        priors = {int(legal[i]): float(p[i]) for i in order[: self.top_k]}
        seat = state.current_player
        me = self._owner[seat]
        budget = self.rollouts * len(cands)
        alive = list(range(len(cands)))          # indices into cands, in prior order
        totals, counts = np.zeros(len(cands)), np.zeros(len(cands), int)
        rounds = 1 if self.allocation == "uniform" else int(np.ceil(np.log2(len(cands))))

        def play_round(n: int) -> None:
            totals[alive] += self._rollouts(state, seat, [cands[j] for j in alive], n)[:, :, me].sum(axis=0)
            counts[alive] += n
            self.rollouts_played += n * len(alive)

        for r in range(rounds):
            n = self.rollouts if rounds == 1 else max(1, budget // (rounds * len(alive)))
            moves_before = self.moves_played
            play_round(n)
            if r == 0 and self.moves is not None:   # the rest of the game is about this long
                length = (self.moves_played - moves_before) / (n * len(alive)) + ROLLOUT_START_MOVES
                budget = max(budget, int(self.moves / length))
                if rounds == 1 and budget // len(alive) > n:   # two candidates: more of the same
                    play_round(budget // len(alive) - n)
            if r < rounds - 1:   # keep the better half (ties to the prior), rounded up
                ranked = sorted(alive, key=lambda j: (-totals[j] / counts[j], j))
                alive = sorted(ranked[: (len(alive) + 1) // 2])
        means = np.divide(totals, counts, out=np.full(len(cands), -np.inf), where=counts > 0)
        self.last_search = {a: (priors[a], float(totals[j] / counts[j]) if counts[j] else float("nan"),
                                int(counts[j])) for j, a in enumerate(cands)}
        best = max(alive, key=lambda j: (means[j], -j))   # ties to the prior
        return cands[best]

    def _rollouts(self, state, seat: int, cands: list[int], n: int) -> np.ndarray:
        """``n`` rollouts of each candidate (``paired_starts``: common random numbers). Returns
        (n, candidates, agents)."""
        starts, seeds = paired_starts(state, seat, cands, seed_pairs(self.rng, n, 2**63))
        before = sum(len(s.history) for s in starts)
        values = self._play_out_all(starts, seeds)
        self.moves_played += sum(len(s.history) for s in starts) - before
        return values.reshape(n, len(cands), -1)

    def _play_out_all(self, states: list, seeds: list[int]) -> np.ndarray:
        """Play every state to the end (or ``rollout_cap`` moves) with the rollout policy on every
        seat (``play_out``); the agents' returns there, one row a state."""
        play_out(states, seeds, self._rollout_agent, self.rollout_cap)
        return np.asarray([self.game.agent_returns(s.returns()) for s in states], np.float64)


def sure_gain(values: np.ndarray, z: float) -> int:
    """The column of ``values`` (rollouts x candidates, column 0 the base policy's choice, rollout i
    paired across columns) to play: the one with the largest mean gain over column 0 among those
    whose gain is positive and at least ``z`` standard errors of the mean (a gain with no spread
    counts as sure); 0 when none is (ties: the first column)."""
    gain = values[:, 1:] - values[:, :1]
    mean = gain.mean(axis=0)
    se = gain.std(axis=0, ddof=1) / np.sqrt(len(gain))
    sure = (mean > 0) & (mean >= z * se)
    return 1 + int(np.argmax(np.where(sure, mean, -np.inf))) if sure.any() else 0


def seed_pairs(rng: np.random.Generator, n: int, bound: int) -> list[tuple[int, int]]:
    """``n`` (determinization seed, play seed) pairs below ``bound``, drawn in order from ``rng``."""
    return [(int(a), int(b)) for a, b in (rng.integers(bound, size=2) for _ in range(n))]


def paired_starts(state, seat: int, cands: list[int], pairs: list[tuple[int, int]]) -> tuple[list, list[int]]:
    """The rollouts' starting positions, paired on common random numbers: for each (determinization
    seed, play seed) in ``pairs``, every candidate applied to the same determinization of ``seat``'s
    view (``state.determinize``), all played out with the same play seed. Returns (states, play
    seeds), rollout-major: ``len(pairs) x len(cands)``."""
    starts, seeds = [], []
    for det_seed, play_seed in pairs:
        for a in cands:
            s = state.determinize(seat, np.random.default_rng(det_seed))
            s.apply(a)   # checked: the view is another position than the mask's
            starts.append(s)
            seeds.append(play_seed)
    return starts, seeds


def play_out(states: list, seeds: list[int], agent, cap: int) -> None:
    """Advance every state in place to its end or by ``cap`` moves, ``agent`` moving every seat, each
    game drawing its moves from its own generator (``default_rng(seeds[r])``). A sampling network
    plays the games together, one move each a round, so it scores all of them in one forward pass a
    round (``PPOAgent.logits_batch``); any other agent plays them one after another, since a
    rule-based agent may keep a plan from one move to its next (the Gorgasali and Zaberias
    heuristics do), which a move in another game would overwrite. Either way a game's moves do not
    depend on what is played beside it."""
    # a sampling PPOAgent: one forward pass a round for every game (not one unless agents.ppo, and so
    # torch, was imported: heuristic rollouts never load it)
    ppo = sys.modules.get(f"{__package__}.ppo")
    net = agent if (ppo is not None and isinstance(agent, ppo.PPOAgent) and agent.batchable
                    and not agent.deterministic) else None
    if net is None:
        for state, seed in zip(states, seeds):
            _advance([state], [seed], agent, cap, None)
    else:
        _advance(states, seeds, agent, cap, net)


def _advance(states: list, seeds: list[int], agent, cap: int, net) -> None:
    """``play_out``'s loop: the live games one move each a round."""
    uniform = type(agent) is RandomAgent                       # no observation to build
    gens = [np.random.default_rng(seed) for seed in seeds]
    live = [r for r, s in enumerate(states) if not s.is_terminal()]
    for _ in range(cap):
        if not live:
            break
        masks = [states[r].legal_actions_mask() for r in live]
        picks: dict[int, int] = {}
        if net is not None:
            rows = [i for i, m in enumerate(masks) if np.count_nonzero(m) > 1]
            if rows:
                obs = np.stack([states[live[i]].observation(states[live[i]].current_player) for i in rows])
                moves = net.sample_batch(net.logits_batch(net.policy, obs),
                                         np.stack([masks[i] for i in rows]), [gens[live[i]] for i in rows])
                picks = dict(zip(rows, moves.tolist()))
        for i, r in enumerate(live):
            s, mask = states[r], masks[i]
            agent.rng = gens[r]
            if uniform:
                a = agent.random_legal(mask)
            elif net is not None:
                a = picks[i] if i in picks else int(np.flatnonzero(mask)[0])
            else:
                a = int(agent.act({"observation": s.observation(s.current_player), "action_mask": mask},
                                  state=s))
            if not mask[a]:
                raise ValueError(f"the rollout agent chose an illegal action: {s.action_to_str(a)}")
            s.apply_legal(a)   # checked against the mask just computed: no second check
        live = [r for r in live if not states[r].is_terminal()]


#: hroll's default rollouts a legal move, and how many paired standard errors a move must gain over
#: the heuristic's to replace it (a prototype on Zaka, 4 players: docs/training-notes.md, "The
#: targets measured as they stand, and `hroll`")
HROLL_ROLLOUTS, HROLL_Z = 8, 2.0


class HeuristicRolloutAgent(SharesBaseGenerator, RolloutAgent):
    """``hroll[:N]``: the game's rule-based agent, improved by its own rollouts where they are sure.

    At a decision with two or more legal moves the heuristic names its move; then every legal move is
    played out ``N`` times from fresh determinizations of the mover's view (``state.determinize``:
    hidden cards resampled, future chance re-seeded), with the heuristic moving every seat to the end
    of the game (``rollout_cap`` moves at most). Rollout i uses the same determinization and the same
    generator for every move (common random numbers), so each move is compared with the heuristic's
    on paired games: the gain ``d_i`` = a move's return minus the heuristic move's return in rollout
    i. A move replaces the heuristic's only when its mean gain is positive and at least ``z`` standard
    errors of the mean (``std(d, ddof=1) / sqrt(N)``; a gain with no spread at all, as in a game with
    no chance, counts as sure); the largest such gain wins. Everywhere else the heuristic's move
    stands: policy improvement by rollouts (Tesauro & Galperin 1996) with the base policy as the
    default, so noise alone rarely changes a move.

    Cost: ``N`` rollouts of the rest of the game for every legal move at every decision with a
    choice: Zaka, 4 players, ``hroll:8``: ~9 CPU s a game on one core (the heuristic alone ~0.01 s);
    games with many legal moves or long games (Peacekeepers, Zaberias, Warbah) cost far more."""

    name = "hroll"

    def __init__(self, game, rollouts: int = HROLL_ROLLOUTS, seed: int | None = None, z: float = HROLL_Z,
                 rollout_cap: int = ROLLOUT_CAP, base: BaseAgent | None = None,
                 rollout_agent: BaseAgent | None = None):
        """``base`` and ``rollout_agent`` replace the game's heuristic (tests, other base policies)."""
        if isinstance(rollouts, bool) or not isinstance(rollouts, (int, np.integer)) or rollouts < 2:
            raise ValueError(f"hroll needs at least 2 rollouts a move (a standard error), got {rollouts!r}")
        if isinstance(z, bool) or not isinstance(z, (int, float)) or not np.isfinite(z) or z < 0:
            raise ValueError(f"z must be a finite number >= 0, got {z!r}")
        self.base = make_heuristic(game, seed) if base is None else base
        super().__init__(None, game, rollouts=rollouts, seed=seed, gate=1.0, min_prior=0.0,
                         rollout_cap=rollout_cap, prior=lambda observation, state: np.zeros(game.num_actions),
                         rollout_agent=make_heuristic(game, seed) if rollout_agent is None else rollout_agent)
        self.z = float(z)
        self.deviations = 0   #: decisions where a rolled-out move replaced the heuristic's (logs, tests)

    def act(self, obs, state=None) -> int:
        legal = self._start(obs)
        if state is None:
            raise ValueError("hroll needs the engine state (needs_state=True): pass a clone or "
                             "state.determinize(seat, rng)")
        move = int(self.base.act(obs, state))
        if len(legal) == 1:
            return move
        if state.is_terminal():
            raise ValueError("hroll's act called on a finished game")
        seat = state.current_player
        cands = [move] + [int(a) for a in legal if a != move]
        returns = self._rollouts(state, seat, cands, self.rollouts)[:, :, self._owner[seat]]
        self.rollouts_played += returns.size
        self.last_search = {a: (1.0 if a == move else 0.0, float(returns[:, j].mean()), len(returns))
                            for j, a in enumerate(cands)}
        best = sure_gain(returns, self.z)
        self.deviations += best > 0
        return cands[best]
