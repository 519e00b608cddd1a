"""The Warbah heuristic beats uniform random play over seat-swapped 2-player games, and answers
every kind of decision it can meet."""
import numpy as np
import pytest

from tabletop_arena.agents.base import RandomAgent
from tabletop_arena.agents.warbah import HeuristicAgent
from tabletop_arena.envs.warbah import battle_flow, make_game


def test_heuristic_beats_random():
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


@pytest.mark.parametrize("rolls", [[9, 9, 9, 1, 9, 9, 2], [1, 1, 1, 9, 1, 9, 8]])
def test_heuristic_answers_a_battle_luck_window(rolls):
    """BATTLE / Luck window (LUCK_MINE / LUCK_FOE / KEEP_ROLL): the heuristic picks a legal answer
    (it once called the die picker, now battle_luck.pick_die, with an outdated signature and
    crashed in training)."""
    
    from tests.warbah.test_luck_rolls import _duel
    g, st, a, b, cell = _duel(rolls)
    battle_flow.start_battle(st, 0, cell)
    assert st.phase == "luck" and st.luck.what == "battle_dice"
    mask = st.legal_actions_mask()
    act = HeuristicAgent(g, 0).act({"observation": st.observation(0), "action_mask": mask}, st)
    assert mask[act]
    st.apply(act)
