"""The Zaberias rule-based baseline clearly beats random play (seat-swapped games)."""
from __future__ import annotations

import numpy as np

from tabletop_arena.agents.base import RandomAgent
from tabletop_arena.agents.zaberias import HeuristicAgent
from tabletop_arena.envs.zaberias import make_game
from tabletop_arena.train.play import play


def test_heuristic_beats_random_seat_swapped():
    g = make_game(num_players=2)
    results = []
    for i in range(8):
        hseat = i % 2
        agents = [HeuristicAgent(g, seed=i) if s == hseat else RandomAgent(seed=100 + i)
                  for s in range(2)]
        results.append(play(g, agents, i, max_steps=None).returns[hseat])
    assert np.mean(results) >= 0.75, results


def test_heuristic_only_legal_actions_in_four_player_game():
    g = make_game(num_players=4)
    agent = HeuristicAgent(g, seed=0)
    st = g.new_initial_state(np.random.default_rng(5))
    for _ in range(300):
        if st.is_terminal():
            break
        mask = st.legal_actions_mask()
        a = agent.act({"observation": None, "action_mask": mask}, state=st)
        assert mask[a]
        st.apply(a)
