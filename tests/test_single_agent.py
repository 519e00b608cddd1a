"""The public single-agent Gymnasium view (envs.single_agent, issue 21), over every game.

Checks: Gymnasium's check_env; the registered ids with options and opponents as make kwargs;
action_masks() through Gymnasium's wrappers; opponents stepped inside step() (each transition is
the learner's move, its reward the learner's result); every kind of opponent; seats; illegal
learner moves (PettingZoo classic) and illegal opponent moves (an error); seeding; render modes;
vectorised rollouts (SyncVectorEnv / AsyncVectorEnv); the hooks a subclass overrides; layering.
"""
from __future__ import annotations

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from tabletop_arena import envs
from tabletop_arena.envs.core.game import ConfigError, IllegalActionError
from tabletop_arena.envs.single_agent import SingleAgentEnv

NAMES = envs.names()
IDS = {"peacekeepers_v0": "tabletop_arena/Peacekeepers-v0", "zaka_v0": "tabletop_arena/Zaka-v0",
       "zaberias_v0": "tabletop_arena/Zaberias-v0", "gorgasali_v0": "tabletop_arena/Gorgasali-v0",
       "warbah_v0": "tabletop_arena/Warbah-v0"}


def _masked_episode(env, rng, seed):
    """Play one episode with uniformly random legal actions; return the transitions."""
    obs, info = env.reset(seed=seed)
    steps = []
    while True:
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        # the learner is to move whenever step() hands back control
        me = env.unwrapped._names[env.unwrapped.learner]
        assert env.unwrapped.aec.agent_selection == me
        assert np.array_equal(env.unwrapped.action_masks(), mask.astype(bool))
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        steps.append((action, reward, terminated, truncated, info))
        if terminated or truncated:
            return steps


def test_registered_ids():
    assert {n: envs.gymnasium_id(n) for n in NAMES} == IDS
    for env_id in IDS.values():
        assert env_id in gymnasium.registry


@pytest.mark.parametrize("name", NAMES)
def test_check_env_with_default_options(name, capsys):
    """Gymnasium's checker, default options: it steps unmasked action_space.sample()s, which the
    PettingZoo-classic illegal-move rule turns into a lost game (not an exception). Through
    gymnasium.make the env has a spec, so the checker also builds each render mode."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", envs.IllegalMoveWarning)
        # without gymnasium.make there is no spec: the checker notes it skips the render modes
        warnings.filterwarnings("ignore", ".*Not able to test alternative render modes", UserWarning)
        check_env(envs.make_single_agent(name))
        check_env(gymnasium.make(IDS[name]).unwrapped)
    capsys.readouterr()


@pytest.mark.parametrize("name", NAMES)
def test_gymnasium_make_kwargs_and_action_masks_through_wrappers(name):
    players = 3 if name != "peacekeepers_v0" else 4
    env = gymnasium.make(IDS[name], opponent="random", seat=1, num_players=players, max_steps=300)
    obs, info = env.reset(seed=3)
    assert env.unwrapped.num_players == players and env.unwrapped.game.num_agents == players
    assert info["seat"] == 1
    assert env.observation_space.contains(obs)
    # gymnasium.make's chain ends in ActionMasks, so the method is right there ...
    assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
    # ... and under any further wrapper Gymnasium's own lookup reaches it (what SB3 calls)
    wrapped = gymnasium.wrappers.RecordEpisodeStatistics(env)
    assert np.array_equal(wrapped.get_wrapper_attr("action_masks")(), info["action_mask"].astype(bool))
    assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))
    action = int(np.flatnonzero(info["action_mask"])[0])
    obs, reward, terminated, truncated, info = wrapped.step(action)
    assert isinstance(reward, float)


@pytest.mark.parametrize("name", NAMES)
def test_opponents_move_inside_step(name):
    """Each step is one learner move; when it returns, the learner is to move again (or the game is
    over); the rewards sum to the learner's AEC result; nobody else's transitions leak out."""
    rng = np.random.default_rng(0)
    env = envs.make_single_agent(name, opponent="random", seat=None)
    for seed in range(3):
        steps = _masked_episode(env, rng, seed)
        me = env._names[env.learner]
        final = steps[-1][4]
        total = sum(s[1] for s in steps)
        assert total == pytest.approx(env._totals[env.learner])
        assert all(s[1] == 0.0 for s in steps[:-1])  # results come at the end only
        assert final["outcome"] in ("win", "draw", "loss") and final["opponent"] == "random"
        assert final["seat"] == env.learner and final["learner_steps"] == len(steps)
        assert not final["action_mask"].any() and not env.action_masks().any()
        aec = env.aec
        assert aec.terminations[me] or aec.truncations[me]
        with pytest.raises(RuntimeError, match="call reset"):
            env.step(0)


@pytest.mark.parametrize("name", NAMES)
def test_fixed_and_random_seats(name):
    env = envs.make_single_agent(name, seat=1)
    for seed in range(3):
        _, info = env.reset(seed=seed)
        assert info["seat"] == 1 and env.aec.agent_selection == "player_1"
    env = envs.make_single_agent(name, seat=None)
    drawn = {env.reset(seed=s)[1]["seat"] for s in range(12)}
    assert drawn == set(range(env.num_players))
    _, info = env.reset(seed=0, options={"seat": 0})
    assert info["seat"] == 0
    with pytest.raises(ConfigError):
        envs.make_single_agent(name, seat=env.num_players)
    with pytest.raises(ConfigError):
        envs.make_single_agent(name, seat="player_0")
    with pytest.raises(ConfigError):
        env.reset(options={"bogus": 1})


def test_callable_agent_object_and_list_opponents():
    name = "zaka_v0"
    calls = []

    def first_legal(observation, mask):
        calls.append((observation.shape, mask.dtype))
        return int(np.flatnonzero(mask)[0])

    game = envs.make_game(name)
    env = envs.make_single_agent(name, opponent=first_legal, seat=0)
    steps = _masked_episode(env, np.random.default_rng(1), 0)
    assert calls and calls[0] == ((game.observation_size,), np.int8)
    assert steps[-1][4]["opponent"] == "first_legal"

    from tabletop_arena.agents import RandomAgent
    env = envs.make_single_agent(name, opponent=RandomAgent(seed=0), seat=1)
    assert _masked_episode(env, np.random.default_rng(1), 0)[-1][4]["opponent"] == "random"

    env = envs.make_single_agent(name, opponent=["random", first_legal, "heuristic"])
    seen = {env.reset(seed=s)[1]["opponent"] for s in range(20)}
    assert seen == {"random", "first_legal", "heuristic"}


@pytest.mark.parametrize("name", NAMES)
def test_spec_string_opponents(name):
    env = envs.make_single_agent(name, opponent=["heuristic", "mcts:2"], seat=0, max_steps=120)
    labels = set()
    for seed in range(3):
        steps = _masked_episode(env, np.random.default_rng(seed), seed)
        labels.add(steps[-1][4]["opponent"])
    assert labels <= {"heuristic", "mcts:2"} and labels


def test_shipped_ppo_opponent():
    pytest.importorskip("torch")
    env = envs.make_single_agent("peacekeepers", opponent="ppo:peacekeepers", seat=0)
    steps = _masked_episode(env, np.random.default_rng(0), 0)
    assert steps[-1][4]["opponent"] == "ppo:peacekeepers"


def test_bad_opponents_raise():
    from tabletop_arena.agents.registry import AgentSpecError
    with pytest.raises(AgentSpecError):
        envs.make_single_agent("zaka", opponent="alphazero")
    with pytest.raises(ConfigError):
        envs.make_single_agent("zaka", opponent=[])
    with pytest.raises(ConfigError):
        envs.make_single_agent("zaka", opponent=42)
    with pytest.raises(ConfigError):
        envs.make_single_agent("zaka", render_mode="bogus")
    env = envs.make_single_agent("zaka", opponent=lambda obs, mask: int(np.flatnonzero(mask == 0)[0]),
                                 seat=1)
    with pytest.raises(IllegalActionError, match="opponent"):
        env.reset(seed=0)


@pytest.mark.parametrize("name", NAMES)
def test_illegal_learner_action_loses(name):
    env = envs.make_single_agent(name, seat=0)
    _, info = env.reset(seed=0)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.warns(envs.IllegalMoveWarning):
        obs, reward, terminated, truncated, info = env.step(bad)
    assert reward == -1.0 and terminated and not truncated
    assert info["illegal_move"] is True and info["illegal_action"] == bad
    assert info["illegal_reason"] and info["outcome"] == "loss"
    env = envs.make_single_agent(name, seat=0, illegal_action="raise")
    _, info = env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_episode(name):
    def run():
        env = envs.make_single_agent(name, opponent="heuristic", max_steps=200)
        return [(s[0], s[1]) for s in _masked_episode(env, np.random.default_rng(5), 11)], env.learner
    assert run() == run()


@pytest.mark.parametrize("name", NAMES)
def test_render_modes(name, capsys):
    env = envs.make_single_agent(name, render_mode="ansi")
    env.reset(seed=0)
    assert isinstance(env.render(), str) and len(env.render().splitlines()) >= 3
    env = envs.make_single_agent(name, render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8
    env = envs.make_single_agent(name, render_mode="human")
    capsys.readouterr()
    _, info = env.reset(seed=0)
    assert len(capsys.readouterr().out.splitlines()) >= 3  # drawn at reset ...
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert len(capsys.readouterr().out.splitlines()) >= 3  # ... and after each learner step
    assert env.render() is None


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_vector_envs(mode):
    """gymnasium.make_vec over a registered id: masks stacked in info and through call()."""
    from gymnasium.vector import AutoresetMode

    vec = gymnasium.make_vec("tabletop_arena/Zaka-v0", num_envs=3, vectorization_mode=mode,
                             vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
                             opponent="random")
    try:
        obs, info = vec.reset(seed=0)
        n = vec.single_action_space.n
        assert obs.shape == (3,) + vec.single_observation_space.shape
        rng = np.random.default_rng(0)
        finished = 0
        for _ in range(150):
            mask = info["action_mask"]
            assert mask.shape == (3, n) and mask.any(axis=1).all()  # SAME_STEP: reset obs + mask
            calls = np.stack(vec.call("action_masks"))
            assert np.array_equal(calls, mask.astype(bool))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            obs, reward, term, trunc, info = vec.step(actions)
            finished += int((term | trunc).sum())
        assert finished > 0
    finally:
        vec.close()


def test_sync_vector_env_of_make_single_agent():
    vec = gymnasium.vector.SyncVectorEnv(
        [lambda i=i: envs.make_single_agent("peacekeepers", opponent="heuristic", seat=i % 2)
         for i in range(2)])
    _, info = vec.reset(seed=1)
    assert list(info["seat"]) == [0, 1]
    assert np.stack(vec.call("action_masks")).shape == (2, vec.single_action_space.n)
    vec.close()


def test_subclass_hooks():
    """What a self-play trainer overrides: per-episode opponents, seat and shaping."""
    seen = []

    class Pool(SingleAgentEnv):
        def sample_opponents(self, slots):
            seen.append(list(slots))
            label, agents = super().sample_opponents(slots)
            return "pool:" + label, agents

        def sample_seat(self):
            return 1

        def shaping_reward(self):
            return 0.5

    env = Pool("zaberias", opponent="random")
    _, info = env.reset(seed=0)
    assert info["opponent"] == "pool:random" and info["seat"] == 1 and seen == [[0]]
    steps = _masked_episode(env, np.random.default_rng(0), 0)
    assert all(s[1] == pytest.approx(0.5) for s in steps[:-1])


def test_importing_envs_does_not_import_agents_or_torch():
    code = ("import sys, tabletop_arena.envs as e; e.make_single_agent('zaka', opponent=lambda o, m: 0);"
            "print(sorted(m for m in sys.modules if m.startswith('tabletop_arena.agents') or m == 'torch'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
