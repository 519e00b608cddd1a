"""The Warbah heuristic beats uniform random play over seat-swapped 2-player games."""
import time

import numpy as np

from agents.base import RandomAgent
from agents.warbah import HeuristicAgent
from envs.warbah import make_game


def test_heuristic_beats_random():
    t0 = time.time()
    g = make_game(num_players=2)
    total = 0.0
    for seed in range(8):
        for hseat in (0, 1):
            st = g.new_initial_state(np.random.default_rng(seed))
            ag = {hseat: HeuristicAgent(g, seed), 1 - hseat: RandomAgent(seed)}
            while not st.is_terminal():
                p = st.current_player
                obs = {"observation": st.observation(p), "action_mask": st.legal_actions_mask()}
                view = st.determinize(p, np.random.default_rng(seed)) if ag[p].needs_state else None
                st.apply(ag[p].act(obs, view))
            total += st.returns()[hseat]
    assert total / 16 > 0.2
    assert time.time() - t0 < 20
