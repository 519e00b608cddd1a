"""Opponents played inside an env's own ``step``: the one loop that steps an AEC env with the
opponents' moves until a learner is to move or the game is over.

Three envs give a learner only its own turns and play everyone else inside ``step()``: the
single-agent view (``envs.single_agent.SingleAgentEnv``), self-play's SB3 env
(``train.selfplay.SelfPlayEnv``) and the RLlib multi-agent env (``train.rllib_env``). They all
call ``opponent_turns`` (or ``play_opponents``, the same loop with every move answered here):

- it stops when the game is over (every agent of the AEC env ends at once: a result, an illegal
  move, or the move cap ``max_steps``, which the AEC env counts over every move, the opponents'
  included, and which truncates every agent) or when the agent to move plays a learner seat;
- an opponent ``opponents[i]`` (an agent object: ``act(obs, state=None)``) gets the engine state,
  determinized for its seat with ``rng``, only when it says ``needs_state``;
- its choice is checked before it is played (``checked_opponent_action``): an illegal,
  out-of-range or non-integer move raises IllegalActionError naming the opponent and plays
  nothing; the AEC env would instead end the game with the opponent losing, a free win;
- after each move every player's AEC rewards are added to ``totals`` (``collect_rewards``, what
  the envs also call after the learner's own move), so the learner's reward for a transition is
  the change of its total.

Engine-level only (numpy and envs/core): ``envs/`` stays free of ``agents/``, ``train/`` and torch.
"""
from __future__ import annotations

from typing import Any, Container, Generator, Mapping

import numpy as np

from .game import checked_choice

#: what ``opponent_turns`` yields when a batchable opponent must move: (the agent, its observation)
Request = tuple[Any, dict]


def checked_opponent_action(aec, agent: str, obs: dict, action, label: str) -> int:
    """``action``, an opponent's choice on its observation ``obs`` in the AEC env ``aec``, as an
    int once it is legal there. An illegal, out-of-range or non-integer choice raises
    IllegalActionError naming the opponent (``label``) and plays nothing: it is a bug in that
    policy, not a result for the learner (the AEC env would end the game with the opponent
    losing: a free win)."""
    return checked_choice(action, obs["action_mask"], aec.state_.phase_name(),
                          f"opponent {label!r} ({agent}) chose it", why=aec.illegal_reason)


def collect_rewards(aec, totals: np.ndarray) -> None:
    """Add the AEC env's latest ``rewards`` to ``totals`` (one entry per ``possible_agents``)."""
    rewards = aec.rewards
    for i, name in enumerate(aec.possible_agents):
        totals[i] += rewards.get(name, 0.0)


def game_over(aec) -> bool:
    """Whether the AEC env's game has ended (terminated or truncated: all agents end together)."""
    first = aec.possible_agents[0]
    return bool(aec.terminations[first] or aec.truncations[first])


def opponent_turns(aec, learners: Container[int], opponents: Mapping[int, Any],
                   rng: np.random.Generator, label: str, totals: np.ndarray, *,
                   batch: bool = False) -> Generator[Request, Any, bool]:
    """Play the opponents' moves in ``aec`` until an agent index in ``learners`` is to move or the
    game is over; return True when the game is over (see the module docstring).

    ``opponents`` maps the other agent indices to agents; ``label`` names them in an illegal-move
    error; ``rng`` determinizes the state for an opponent that ``needs_state``. A generator: with
    ``batch``, a ``batchable`` opponent's move is asked for with ``yield (agent, observation)`` and
    the caller sends the action back (a vectorized env answers many envs' requests with one
    forward pass, train/vecenv.py); without, it never yields (``play_opponents``)."""
    while True:
        if game_over(aec):
            return True
        agent = aec.agent_selection
        idx = aec._agent_index[agent]
        if idx in learners:
            return False
        opponent = opponents[idx]
        obs = aec.observe(agent)
        if batch and getattr(opponent, "batchable", False):
            action = yield (opponent, obs)
        else:
            st = aec.state_
            state = (st.determinize(st.current_player, rng)
                     if getattr(opponent, "needs_state", False) else None)
            action = opponent.act(obs, state=state)
        aec.step(checked_opponent_action(aec, agent, obs, action, label))
        collect_rewards(aec, totals)


def play_opponents(aec, learners: Container[int], opponents: Mapping[int, Any],
                   rng: np.random.Generator, label: str, totals: np.ndarray) -> bool:
    """``opponent_turns`` run to its end, every opponent answering by its own ``act``; True when
    the game is over, False when a learner is to move."""
    turns = opponent_turns(aec, learners, opponents, rng, label, totals)
    try:
        next(turns)
    except StopIteration as stop:
        return bool(stop.value)
    raise AssertionError("opponent_turns without batch asked for a move")  # unreachable
