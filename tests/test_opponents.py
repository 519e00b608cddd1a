"""The one loop that plays opponents inside an env's ``step`` (envs/core/opponents.py, issue 44).

Its contract, over every game: it stops exactly when a learner seat is to move or the game is
over; an opponent's illegal, out-of-range or non-integer move raises and plays nothing; every
move counts toward the AEC env's move cap, which ends the loop truncated; the rewards collected
are the AEC env's; an opponent gets the engine state only when it needs it. And the envs that step
opponents (SingleAgentEnv, self-play's SelfPlayEnv, RLlib's env) go through it, so a fix there
reaches all of them.
"""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.envs.core import opponents as opp
from tabletop_arena.envs.core.game import IllegalActionError

NAMES = envs.names()


class _Random:
    """A random agent that records what it was given."""
    needs_state = False

    def __init__(self, seed=0, needs_state=False):
        self.rng = np.random.default_rng(seed)
        self.needs_state = needs_state
        self.states: list = []

    def act(self, obs, state=None):
        self.states.append(state)
        return int(self.rng.choice(np.flatnonzero(obs["action_mask"])))


class _Bad:
    needs_state = False

    def __init__(self, kind):
        self.kind = kind

    def act(self, obs, state=None):
        mask = obs["action_mask"]
        return {"illegal": int(np.flatnonzero(mask == 0)[0]) if (mask == 0).any() else len(mask),
                "range": len(mask), "float": float(np.flatnonzero(mask)[0])}[self.kind]


def _aec(name, **kw):
    aec = envs.make_raw(name, **kw)
    aec.reset(seed=0)
    return aec


@pytest.mark.parametrize("name", NAMES)
def test_stops_at_a_learner_seat_or_the_end(name):
    aec = _aec(name, max_steps=200)
    n = len(aec.possible_agents)
    learners = {n - 1}
    others = {i: _Random(i) for i in range(n) if i not in learners}
    totals = np.zeros(n)
    rng = np.random.default_rng(0)
    learner_moves = 0
    while True:
        over = opp.play_opponents(aec, learners, others, rng, "random", totals)
        assert over == opp.game_over(aec)
        if over:
            break
        assert aec._agent_index[aec.agent_selection] in learners   # a learner's turn, not before
        mask = aec.observe(aec.agent_selection)["action_mask"]
        aec.step(int(rng.choice(np.flatnonzero(mask))))
        opp.collect_rewards(aec, totals)
        learner_moves += 1
    assert learner_moves > 0
    # every learner seat: nothing to play
    aec.reset(seed=1)
    steps = aec.num_steps
    assert opp.play_opponents(aec, set(range(n)), {}, rng, "x", np.zeros(n)) is opp.game_over(aec)
    assert aec.num_steps == steps


@pytest.mark.parametrize("name", NAMES)
def test_opponents_only_play_to_the_end_and_collect_the_returns(name):
    """No learner: the opponents play the whole game; the totals are the AEC rewards, i.e. the
    game's returns per agent (or the cap's truncation, with nothing handed out)."""
    aec = _aec(name, max_steps=400)
    n = len(aec.possible_agents)
    totals = np.zeros(n)
    assert opp.play_opponents(aec, (), {i: _Random(i) for i in range(n)},
                              np.random.default_rng(0), "random", totals) is True
    if aec.truncations[aec.possible_agents[0]]:
        assert aec.num_steps == 400 and not totals.any()
    else:
        assert np.allclose(totals, aec.game.agent_returns(aec.state_.returns()))


@pytest.mark.parametrize("name", NAMES)
def test_every_opponent_move_counts_toward_the_cap(name):
    aec = _aec(name, max_steps=5)
    n = len(aec.possible_agents)
    totals = np.zeros(n)
    assert opp.play_opponents(aec, (), {i: _Random(i) for i in range(n)},
                              np.random.default_rng(0), "random", totals) is True
    first = aec.possible_agents[0]
    assert aec.num_steps == 5 and aec.truncations[first] and not aec.terminations[first]
    assert aec.infos[first]["truncated_by_cap"] is True and not totals.any()


@pytest.mark.parametrize("kind", ["illegal", "range", "float"])
@pytest.mark.parametrize("name", NAMES)
def test_an_illegal_opponent_move_raises_and_plays_nothing(name, kind):
    aec = _aec(name)
    n = len(aec.possible_agents)
    mover = aec._agent_index[aec.agent_selection]
    history = list(aec.state_.history)
    totals = np.zeros(n)
    with pytest.raises(IllegalActionError, match=rf"opponent 'buggy' \({aec.agent_selection}\) chose it"):
        opp.play_opponents(aec, (), {mover: _Bad(kind)}, np.random.default_rng(0), "buggy", totals)
    assert list(aec.state_.history) == history and aec.num_steps == 0 and not opp.game_over(aec)
    assert not totals.any()


def test_the_state_goes_only_to_an_opponent_that_needs_it():
    aec = _aec("peacekeepers", max_steps=30)
    blind, seeing = _Random(0), _Random(1, needs_state=True)
    opp.play_opponents(aec, (), {0: blind, 1: seeing}, np.random.default_rng(0), "r", np.zeros(2))
    assert blind.states and all(s is None for s in blind.states)
    assert seeing.states and all(s is not None and s is not aec.state_ for s in seeing.states)


def test_batch_asks_a_batchable_opponent_through_yield():
    aec = _aec("zaka", max_steps=20)
    n = len(aec.possible_agents)

    class Batchable(_Random):
        batchable = True

        def act(self, obs, state=None):
            raise AssertionError("a batchable opponent is asked through yield")

    agents = {i: Batchable(i) for i in range(n)}
    turns = opp.opponent_turns(aec, (), agents, np.random.default_rng(0), "b", np.zeros(n), batch=True)
    rng = np.random.default_rng(0)
    asked = 0
    try:
        request = next(turns)
        while True:
            agent, obs = request
            assert agent is agents[aec._agent_index[aec.agent_selection]]
            asked += 1
            request = turns.send(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    except StopIteration as stop:
        assert stop.value is True
    assert asked == aec.num_steps == 20


def _counting(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def spy(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


def test_single_agent_env_plays_its_opponents_through_the_helper(monkeypatch):
    from tabletop_arena.envs import single_agent

    calls = _counting(monkeypatch, single_agent, "play_opponents")
    env = envs.make_single_agent("peacekeepers", opponent="random", seat=1)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert len(calls) == 2 and calls[0][0] is env.aec and calls[0][1] == (1,)


def test_selfplay_env_plays_its_opponents_through_the_helper(monkeypatch):
    from tabletop_arena.train import selfplay

    calls = _counting(monkeypatch, selfplay, "opponent_turns")
    env = selfplay.SelfPlayEnv("peacekeepers", {}, {"random": 1.0}, seed=0)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert len(calls) == 2 and calls[0][0] is env.aec and calls[0][1] == (env.learner,)


def test_rllib_env_plays_its_opponents_through_the_helper(monkeypatch):
    pytest.importorskip("ray")
    from tabletop_arena.train import rllib_env

    calls = _counting(monkeypatch, rllib_env, "play_opponents")
    env = rllib_env.ArenaMultiAgentEnv({"game": "peacekeepers", "seed": 0})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    env.step({agent: int(np.flatnonzero(o["action_mask"])[0])})
    assert len(calls) == 2 and calls[0][0] is env.aec and calls[0][1] == env.learners
