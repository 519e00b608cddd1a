"""The shared play loop (train/play.py) takes an agent's move only when it is an integer in the
mask: an agent that returns a masked-out action or a non-integer (a float that looks integral
included) raises AgentError naming the agent, and the game is not changed (no truncation, no
substitution). Runs over every registered game."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.agents.base import BaseAgent
from tabletop_arena.train.play import AgentError, agent_action, observe, play, play_env

NAMES = envs.names()


class _Bad(BaseAgent):
    name = "bad"

    def __init__(self, kind: str):
        super().__init__(seed=0)
        self.kind = kind

    def act(self, obs, state=None):
        mask = obs["action_mask"]
        if self.kind == "masked":
            return int(np.flatnonzero(mask == 0)[0])
        if self.kind == "float":
            return float(np.flatnonzero(mask)[0])
        return str(int(np.flatnonzero(mask)[0]))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["masked", "float", "str"])
def test_an_agents_bad_move_is_an_error_and_changes_nothing(name, kind):
    game = envs.make_game(name)
    st = game.new_initial_state(3)
    before = (len(st.history), st.legal_actions_mask().tobytes())
    with pytest.raises(AgentError, match="agent 'bad' chose it"):
        agent_action(st, _Bad(kind), observe(st), np.random.default_rng(0))
    assert (len(st.history), st.legal_actions_mask().tobytes()) == before
    with pytest.raises(AgentError, match="agent 'bad'"):
        play(game, [_Bad(kind)] * game.num_agents, seed=3)


@pytest.mark.parametrize("kind", ["float", "str"])
def test_the_env_loop_passes_the_agents_move_unconverted(kind):
    env = envs.make("zaka_v0")
    with pytest.raises(envs.IllegalActionError, match="integer"):
        play_env(env, dict.fromkeys(env.possible_agents, _Bad(kind)), seed=0)
