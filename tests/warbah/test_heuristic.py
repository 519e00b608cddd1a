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


# -- playing to win (issue 42): the heuristic refills, keeps its capitol, buys Heroes, goes for
#    capitols; each test failed with the heuristic before issue 42 ------------------------------
def _open_field():
    """A 2-player 7x9 map of explored clear land, no settlements, rivers or encounters; seat 0's
    Hero (0) to move, seat 1's Hero (1) in the far corner; capitols at cells 0 (seat 0) and 62
    (seat 1), empty. Returns (game, state, hero 0)."""
    from tabletop_arena.envs.warbah.tables import SETTLEMENTS, TERRAINS
    from tests.warbah.test_rules import setup_state
    g, st = setup_state(2)
    n = g.n_cells
    st.land[:] = True
    st.explored[:] = True
    st.terrain[:] = TERRAINS.index("clear")
    st.settle[:], st.owner[:], st.encounter[:] = -1, -1, 0
    st.variant = [""] * n
    st.rivers.clear()
    st.garrison[:] = 0
    st.garrison_specials[:] = 0
    for seat, c in ((0, 0), (1, n - 1)):
        st.capitol[seat], st.owner[c] = c, seat
        st.terrain[c], st.settle[c] = TERRAINS.index("settlement"), SETTLEMENTS.index("capitol")
    a, b = st.heroes[0], st.heroes[1]
    a.abilities, b.abilities = [], []
    b.cell = n - 2
    a.cell, a.mp, a.scout_moves = 31, 3, 0
    st.phase, st.queue, st.queue_pos, st.to_act, st._mask = "move", [(0, 0)], 0, 0, None
    return g, st, a


def _act(g, st):
    mask = st.legal_actions_mask()
    a = HeuristicAgent(g, 0).act({"observation": None, "action_mask": mask}, st)
    assert mask[a]
    return a


def _settlement(st, c, owner, kind="village"):
    from tabletop_arena.envs.warbah.tables import SETTLEMENTS, TERRAINS
    st.terrain[c], st.settle[c], st.owner[c] = TERRAINS.index("settlement"), SETTLEMENTS.index(kind), owner
    st._mask = None


def test_heuristic_weak_hero_goes_back_to_refill():
    """A Hero with 2 troops walks towards his own garrison (cell 29, two hexes west) rather than
    towards the open enemy capitol in the east; with a full army he heads east."""
    from tabletop_arena.envs.warbah import board
    g, st, a = _open_field()
    _settlement(st, 29, 0)
    st.garrison[29] = [8, 0, 0, 0]
    a.troops[:] = [2, 0, 0, 0]
    d = _act(g, st)
    assert board.hex_distance(g.h, g.w, st.neighbours[31][d], 29) == 1
    a.troops[:] = [10, 10, 10, 10]
    st._mask = None
    d = _act(g, st)
    assert board.hex_distance(g.h, g.w, st.neighbours[31][d], 62) < board.hex_distance(g.h, g.w, 31, 62)


def test_heuristic_keeps_the_capitol_garrison_under_threat():
    """At his capitol a Hero takes the garrison one troop at a time down to ``CAPITOL_KEEP``
    while an enemy Hero is near; with none near he takes it all at once."""
    from tabletop_arena.agents.warbah import CAPITOL_KEEP
    from tabletop_arena.envs.warbah.actions import TAKE_GARRISON, TAKE_ONE0
    g, st, a = _open_field()
    a.cell, a.troops[:] = 0, [10, 0, 0, 0]
    st.garrison[0] = [20, 0, 0, 0]
    st.heroes[1].cell = 2  # two hexes away
    st._mask = None
    while (act := _act(g, st)) == TAKE_ONE0:
        st.apply(act)
    assert st.garrison[0, 0] == CAPITOL_KEEP and a.troops[0] == 30 - CAPITOL_KEEP
    g, st, a = _open_field()
    a.cell, a.troops[:] = 0, [10, 0, 0, 0]
    st.garrison[0] = [20, 0, 0, 0]
    st._mask = None
    assert _act(g, st) == TAKE_GARRISON


def test_heuristic_recruits_heroes_and_no_idle_garrisons():
    """RECRUIT: with troops for two Heroes and four settlements the heuristic buys a second Hero
    at its capitol (before troops there) and keeps 10 gold for him at a settlement whose turn
    comes first; a garrison at its target gets no more troops."""
    from tabletop_arena.agents.warbah import GARRISON_TARGET
    from tabletop_arena.envs.warbah.actions import DONE, RECRUIT, RECRUIT_HERO
    g, st, a = _open_field()
    a.cell, a.troops[:] = 31, [10, 10, 10, 10]
    for c in (9, 18, 27):
        _settlement(st, c, 0)
    st.gold[0] = 10
    st.phase, st.queue, st.queue_pos, st._mask = "recruit", [(0, 9), (0, 0), (0, 18)], 0, None
    assert _act(g, st) == DONE  # the village's warriors would leave too little for the Hero
    st.queue_pos, st._mask = 1, None
    assert _act(g, st) == RECRUIT_HERO
    st.gold[0] = 20
    st.queue_pos, st._mask = 2, None
    st.garrison[18] = [GARRISON_TARGET, 0, 0, 0]
    st.heroes.append(a.clone())  # the second Hero is bought: no third wanted yet
    st.heroes[-1].cell = 40
    assert _act(g, st) == DONE
    st.garrison[18] = [GARRISON_TARGET - 1, 0, 0, 0]
    st._mask = None
    assert _act(g, st) == RECRUIT


def test_heuristic_goes_for_a_capitol_it_can_take():
    """A strong Hero heads for an enemy capitol he can take (garrison 5) rather than a nearer
    unclaimed village: taking it puts the player out."""
    from tabletop_arena.envs.warbah import board
    g, st, a = _open_field()
    a.troops[:] = [10, 10, 10, 10]
    a.cell = 40
    _settlement(st, 38, -1)  # two hexes west of him
    st.garrison[62] = [5, 0, 0, 0]
    d = _act(g, st)
    m = st.neighbours[40][d]
    assert board.hex_distance(g.h, g.w, m, 62) < board.hex_distance(g.h, g.w, 40, 62)
    assert board.hex_distance(g.h, g.w, m, 38) >= board.hex_distance(g.h, g.w, 40, 38)
