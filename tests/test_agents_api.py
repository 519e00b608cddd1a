"""Agents from Python (issue 47 item 3): ``make_agent`` takes a game id (with options), a Game or an
env, and ``env.unwrapped.view_state()`` is the documented way to give a state-reading agent what
the player to move may see (the README's loop over every agent kind runs in tests/test_docs.py)."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import agents, envs


def test_make_agent_takes_a_game_id_with_options_a_game_or_an_env():
    agent = agents.make_agent("heuristic", "zaka_v0", seed=0)
    assert agent.game.name == "zaka_v0"
    assert agents.make_agent("heuristic", "zaka", seed=0).game.name == "zaka_v0"   # a bare name
    three = agents.make_agent("heuristic", "zaka_v0", options={"num_players": 3})
    assert three.game.num_agents == 3
    env = envs.make("zaka_v0", num_players=3)
    assert agents.make_agent("heuristic", env).game is env.unwrapped.game
    game = envs.make_game("zaka_v0")
    assert agents.make_agent("heuristic", game).game is game
    with pytest.raises(TypeError, match="options= goes with a game id"):
        agents.make_agent("heuristic", game, options={"num_players": 3})
    with pytest.raises(TypeError, match="make_agent needs a game"):
        agents.make_agent("heuristic", 3)
    with pytest.raises(envs.ConfigError):
        agents.make_agent("heuristic", "zaka_v0", options={"num_player": 3})


def test_make_agent_loads_a_shipped_agent_by_game_id():
    pytest.importorskip("torch")
    agent = agents.make_agent("ppo:peacekeepers", "peacekeepers_v0", seed=0)   # AttributeError before
    env = envs.make("peacekeepers_v0")
    env.reset(seed=0)
    obs, *_ = env.last()
    assert obs["action_mask"][agent.act(obs)] == 1
    vlook = agents.make_agent("vlook:gorgasali", "gorgasali_v0", options={"num_players": 2})
    assert vlook.game.num_agents == 2


def test_view_state_is_the_movers_view_never_the_real_state():
    """Zaka hides the other player's hand: the view agrees with what the mover sees and resamples
    what it does not (in some of a few games), is a sample (no seed), and repeats with the env's
    seed."""
    env = envs.make("zaka_v0")
    differs = 0
    for seed in range(6):
        env.reset(seed=seed)
        real = env.unwrapped.engine_state
        mover = real.current_player
        view = env.unwrapped.view_state()
        assert view is not real and view.seed is None
        np.testing.assert_array_equal(view.observation(mover), real.observation(mover))
        np.testing.assert_array_equal(view.legal_actions_mask(), real.legal_actions_mask())
        other = 1 - mover
        differs += not np.array_equal(view.observation(other), real.observation(other))
        env.reset(seed=seed)
        again = env.unwrapped.view_state()
        np.testing.assert_array_equal(again.observation(other), view.observation(other))
    assert differs > 0, "the view showed the other player's real hand in every game"


def test_view_state_needs_a_game_to_move_in():
    env = envs.make("zaka_v0")
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.view_state()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    with pytest.raises(RuntimeError, match="the game is over"):
        env.unwrapped.view_state()
