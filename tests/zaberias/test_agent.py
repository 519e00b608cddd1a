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


def test_heuristic_gangs_up_in_an_ambush_when_no_single_attack_pays():
    """Rulebook 8 Ambush ('you can combine the strength of all attacking units as one'): no
    Undead unit alone beats the Humans' Paladin (Soul Collector 2 dice + 2 against 2 dice + 2,
    an even fight it would lose half the time), the three together do: the heuristic declares
    the attack and its partners join it (the old heuristic never attacked here)."""
    from .util import ScriptedDice, blank, on_map, put

    st = blank(tribes=["undead", "humans"], coins=0)
    g = st.game
    sc = put(st, 0, "Soul Collector", 11, 5)
    crow = put(st, 0, "Crow", 10, 4)
    skel = put(st, 0, "Skeleton", 10, 6)
    pal = put(st, 1, "Paladin", 10, 5)
    st.rng = ScriptedDice([3, 3, 3, 3, 0, 0])      # the attackers' 4 dice, then the Paladin's 2
    agent = HeuristicAgent(g, seed=0)
    kinds = []
    while on_map(st, pal) and st.current_player == 0 and len(kinds) < 8:
        a = agent.act({"observation": None, "action_mask": st.legal_actions_mask()}, state=st)
        kinds.append(g.layout.decode(a)[0])
        st.apply(a)
    assert kinds[:4] == ["select", "attack", "join", "join"], kinds
    assert not on_map(st, pal) and all(st.attacked[u] for u in (sc, crow, skel))


def test_heuristic_focus_is_the_weakest_enemy_with_three_tribes_only():
    """With three or four tribes the heuristic gangs up on the weakest enemy (least material);
    with two there is no focus (two-player play is unchanged by it)."""
    from .util import blank, put

    st = blank(num_players=3, tribes=["undead", "humans", "orcs"])
    put(st, 1, "Giant Armor", 2, 2)                 # the Humans are the strongest
    st.coins = [6, 6, 0]                            # the Orcs the weakest
    assert HeuristicAgent._pick_focus(st, 0) == 2
    assert HeuristicAgent._pick_focus(st, 2) == 0
    assert HeuristicAgent._pick_focus(blank(), 0) == -1
