"""Scenario tests for Warbah (each names the rulebook section it checks)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tabletop_arena.envs.core.game import ConfigError, IllegalActionError
from tabletop_arena.envs.warbah import battle, battle_flow, heroes, hexes, make_game, turn
from tabletop_arena.envs.warbah.actions import CALL_OFF, CAPITOL_AUTO, CASUALTY0, CONTINUE, DONE, RECRUIT
from tabletop_arena.envs.warbah.state import Army
from tabletop_arena.envs.warbah.tables import SETTLEMENTS, TERRAINS


def setup_state(n=2, seed=0):
    g = make_game(num_players=n)
    st = g.new_initial_state(np.random.default_rng(seed))
    for _ in range(n):
        st.apply(CAPITOL_AUTO)
    return g, st


def test_map_reproducible_and_sized():
    """MAP: hex map with land/water and rivers, generated from the seed, sized by player count."""
    g = make_game(num_players=3)
    a = g.new_initial_state(np.random.default_rng(5))
    b = g.new_initial_state(np.random.default_rng(5))
    assert np.array_equal(a.land, b.land) and a.rivers == b.rivers and a.capitol_candidates == b.capitol_candidates
    assert (g.h, g.w) == (8, 10) and make_game(num_players=4).n_cells == 99
    assert a.rivers and all(a.land[x] and a.land[y] for x, y in a.rivers)


def test_setup_capitol_hero_and_hidden_land():
    """SETUP / HEROES: capitol chosen, Hero with 1D10 of each basic troop and one ability."""
    g, st = setup_state(2)
    for s in range(2):
        c = st.capitol[s]
        assert SETTLEMENTS[st.settle[c]] == "capitol" and st.owner[c] == s and st.explored[c]
    assert st.explored.sum() == 2  # everything else starts unknown
    for h in st.heroes:
        assert all(1 <= x <= 10 for x in h.troops) and len(h.abilities) >= 1
    assert st.turn == 1 and st.phase in ("recruit", "move")


def test_bad_options():
    with pytest.raises(ConfigError):
        make_game(num_players=5)
    with pytest.raises(ConfigError):
        make_game(rules={"bogus": 1})


def test_recruit_limit_and_gold():
    """RECRUIT TROOPS: settlement type fixes the troop, max 5 per settlement per turn, gold paid."""
    g, st = setup_state(2)
    assert st.phase == "recruit"
    seat, c = st.queue[st.queue_pos]
    st.gold[seat] = 50
    st._mask = None
    for _ in range(5):
        st.apply(RECRUIT)
    assert st.garrison[c, 0] == 5 and st.gold[seat] == 45
    if st.phase == "recruit" and st.queue[st.queue_pos] == (seat, c):
        assert not st.legal_actions_mask()[RECRUIT]


def test_move_costs_and_river():
    """MOVE & EXPLORE / TERRAIN TABLE: entering costs the terrain MP, crossing a river 3."""
    g, st = setup_state(2)
    h = st.heroes[0]
    m = int(next(x for x in st.neighbours[h.cell] if x >= 0 and st.land[x]))
    st.explored[m], st.terrain[m] = True, TERRAINS.index("forest")
    st.rivers.discard((min(h.cell, m), max(h.cell, m)))
    assert hexes.enterable(st, 0, h, m) == 2
    st.rivers.add((min(h.cell, m), max(h.cell, m)))
    assert hexes.enterable(st, 0, h, m) == 3
    st.encounter[m] = -1
    assert hexes.enterable(st, 0, h, m) == 0  # encounter chits block movement


def test_explore_reveals_terrain():
    """MOVE & EXPLORE: one MP scouts an adjacent unknown hex via the Hex Terrain Type Table."""
    g, st = setup_state(2)
    while st.phase == "recruit":
        st.apply(DONE)
    seat, hi = st.queue[st.queue_pos]
    h = st.heroes[hi]
    d = next((d for d in range(6) if st.legal_actions_mask()[d]
              and not st.explored[st.neighbours[h.cell][d]]), None)
    if d is None:
        pytest.skip("no unexplored neighbour on this seed")
    m = int(st.neighbours[h.cell][d])
    mp = h.mp
    st.apply(d)
    assert st.explored[m] and st.terrain[m] >= 0 and h.mp == mp - 1 and h.cell != m


def _battle_state(attacker_troops, defender_troops, walls=0):
    g, st = setup_state(2)
    a, b = st.heroes[0], st.heroes[1]
    a.troops[:] = attacker_troops
    b.troops[:] = defender_troops
    a.abilities, b.abilities = [], []
    cell = int(next(x for x in st.neighbours[a.cell] if x >= 0 and st.land[x]))
    st.explored[cell], st.terrain[cell], st.settle[cell] = True, 0, -1
    b.cell = cell
    st.rivers.clear()
    st.phase, st.queue, st.queue_pos = "battle", [(0, 0)], 0
    return g, st, a, b, cell


def test_kill_rank_segments():
    """BATTLE ROUND SEQUENCE: a unit kills when 1D10 <= its Kill rank, in its initiative segment."""
    g, st = setup_state(2)
    side = Army(counts=np.array([1000, 0, 0, 0, 0]), monster=None, init_mod=[0] * 5, kill_mod=[0] * 5)
    rng = np.random.default_rng(0)
    assert battle.attacks(g, side, battle.segment_of(1), rng) in range(400, 600)  # warriors kill 5 in 10
    assert battle.attacks(g, side, battle.segment_of(3), rng) == 0  # archers' segment: warriors idle
    assert [battle.segment_of(i) for i in (6, 5, 4, 3, 2, 1, 0, -1)] == [0, 0, 1, 2, 3, 4, 5, 5]


def test_walls_negate_and_break():
    """BATTLE: each wall rank negates one kill per round; a 1-3 on 1D10 destroys it."""
    g, st = setup_state(2)
    side = Army(np.zeros(5, np.int64), defense=1, walls_left=2, wall_damage=0)
    left = battle.negate(g, side, 5, np.random.default_rng(0))
    assert left == 2 and side.walls_left == 0  # 1 by Defense, 2 by walls


def test_hero_dies_last_and_casualty_choice():
    """BATTLE: the Hero is the last unit killed; the owning player chooses casualties."""
    side = Army(counts=np.array([1, 1, 0, 0, 1]), monster=None)
    battle.remove_one(side, 1)
    assert side.counts.tolist() == [1, 0, 0, 0, 1]
    battle.remove_one(side)
    battle.remove_one(side)
    assert side.counts.tolist() == [0, 0, 0, 0, 0]
    g, st, a, b, cell = _battle_state([10, 10, 10, 10], [10, 10, 10, 10])
    battle_flow.start_battle(st, 0, cell)
    assert st.phase in ("casualty", "call_off")
    mask = st.legal_actions_mask()
    if st.phase == "casualty":
        assert mask[CASUALTY0:CASUALTY0 + 4].sum() >= 2 and not mask[DONE]
    else:
        assert mask[CALL_OFF] and mask[CONTINUE]


def test_attacker_calls_off():
    """BATTLE: the attacker may call off the attack at the end of a round."""
    g, st, a, b, cell = _battle_state([3, 0, 0, 0], [3, 0, 0, 0])
    battle_flow.start_battle(st, 0, cell)
    while st.phase == "casualty":
        st.apply(st.legal_actions()[0])
    if st.phase == "call_off":
        st.apply(CALL_OFF)
        assert st.battle is None and a.alive and b.alive


def test_capitol_capture_eliminates_and_ends():
    """Designed win condition: a player whose capitol is taken is eliminated; last one wins."""
    g, st = setup_state(2)
    h = st.heroes[0]
    st.heroes[1].alive = False
    h.cell = int(st.capitol[1])
    st.order = [0, 1]
    turn.recovery(st)
    assert not st.alive[1] and st.is_terminal()
    assert st.returns().tolist() == [1.0, -1.0]
    assert st.final_info()["out_by"] == [None, "capitol_taken"]


def test_encounter_battle_clears_hex():
    """ENCOUNTER TABLE / RECOVERY: a defeated encounter becomes Clear, earns XP and treasure."""
    g, st = setup_state(2)
    a = st.heroes[0]
    a.troops[:] = [40, 0, 0, 0]
    a.abilities = []
    cell = int(next(x for x in st.neighbours[a.cell] if x >= 0 and st.land[x] and heroes.hero_at(st, x) < 0))
    st.explored[cell], st.terrain[cell], st.encounter[cell] = True, 2, 5  # undead guardians
    st.phase, st.queue, st.queue_pos = "battle", [(0, 0)], 0
    battle_flow.start_battle(st, 0, cell)
    while st.battle is not None:
        st.apply(CONTINUE if st.phase == "call_off" else st.legal_actions()[0])
    if a.alive:
        assert st.encounter[cell] == 0 and TERRAINS[st.terrain[cell]] == "clear"
        assert a.cell == cell and st.pending_treasure


def test_illegal_action_leaves_state():
    g, st = setup_state(2)
    before = st.serialize()
    bad = int(np.flatnonzero(st.legal_actions_mask() == 0)[0])
    with pytest.raises(IllegalActionError):
        st.apply(bad)
    assert st.serialize() == before


def test_turn_cap_truncates():
    """Designed: the game ends after the turn cap (a backstop: here 1 turn a player) and is
    ranked by settlements; ``final_info`` says a cap ended it."""
    g = make_game(num_players=2, rules={"designed": {"turn_cap_per_player": 1}})
    st = g.new_initial_state(np.random.default_rng(1))
    rng = np.random.default_rng(1)
    while not st.is_terminal():
        la = st.legal_actions()
        st.apply(la[rng.integers(len(la))])
    info = st.final_info()
    assert info["turn"] <= 2 and abs(st.returns().sum()) < 1e-9
    assert (info["ending"], info["ended_by"]) in (("cap", "cap"), ("domination", "designed"),
                                                  ("last_standing", "designed"))


def test_determinize_hides_enemy_cards():
    """HEROES: hero index cards are hidden: determinize reshuffles enemy troops, obs unchanged."""
    g, st = setup_state(2)
    d = st.determinize(0, np.random.default_rng(3))
    assert np.array_equal(d.observation(0), st.observation(0))
    assert d.heroes[1].troops.sum() == st.heroes[1].troops.sum()


def test_variant_gold_and_diplomacy():
    """TERRAIN VARIANTS: Lumbermill +1 / Gold Mine +2 gold to the controller; RARE ABILITY
    Diplomacy marks one adjacent neutral settlement in recovery."""
    g, st = setup_state(2)
    h = st.heroes[0]
    cells = [int(x) for x in st.neighbours[h.cell] if x >= 0 and st.land[x] and heroes.hero_at(st, x) < 0]
    a = cells[0]
    st.explored[a], st.terrain[a], st.variant[a] = True, TERRAINS.index("mountains"), "gold_mine"
    st.owner[a] = 0
    st.order = [0, 1]
    before = st.gold[0]
    turn.collect_gold(st)
    assert st.gold[0] - before == 4 + 2 + heroes.ability(st, h, "wealth")  # capitol 4 + gold mine 2
    if len(cells) > 1:
        b = cells[1]
        st.explored[b], st.terrain[b] = True, TERRAINS.index("settlement")
        st.settle[b] = SETTLEMENTS.index("village")
        h.abilities = [("diplomacy", 0)]
        turn.recovery(st)
        assert st.owner[b] == 0


def test_prowess_extra_attack():
    """RARE ABILITY Prowess: one troop type gets +1 attack per round."""
    g, st = setup_state(2)
    side = Army(counts=np.array([1, 0, 0, 0, 0]), monster=None, init_mod=[0] * 5, kill_mod=[10] + [0] * 4, extra_attacks=[1, 0, 0, 0, 0])
    assert battle.attacks(g, side, battle.segment_of(1), np.random.default_rng(0)) == 2


def test_scouting_explores_without_mp():
    """ABILITY Scouting: explore +1 hex in the explore phase (spent before Move Points)."""
    g, st = setup_state(2)
    while st.phase == "recruit":
        st.apply(DONE)
    seat, hi = st.queue[st.queue_pos]
    h = st.heroes[hi]
    h.scout_moves, h.mp = 1, 0
    st._mask = None
    d = next((d for d in range(6) if st.neighbours[h.cell][d] >= 0 and st.land[st.neighbours[h.cell][d]]
              and not st.explored[st.neighbours[h.cell][d]]), None)
    if d is None:
        pytest.skip("no unexplored neighbour")
    assert st.legal_actions_mask()[d]
    st.apply(d)
    assert h.scout_moves == 0 and h.mp == 0


def test_exchange_and_drop_off():
    """MOVE & EXPLORE: adjacent friendly heroes may exchange troops instead of moving (a troop
    only once per turn); a hero may drop troops of the right type into a settlement."""
    from tabletop_arena.envs.warbah.actions import DROP_OFF, EXCHANGE0
    g, st = setup_state(2)
    while st.phase == "recruit":
        st.apply(DONE)
    seat, hi = st.queue[st.queue_pos]
    h = st.heroes[hi]
    # drop off warriors at the capitol (it recruits warriors)
    if h.cell == st.capitol[seat]:
        w = int(h.troops[0])
        g0 = int(st.garrison[h.cell, 0])
        st._mask = None
        assert st.legal_actions_mask()[DROP_OFF]
        st.apply(DROP_OFF)
        assert h.troops[0] == 0 and st.garrison[h.cell, 0] == g0 + w
    # a second friendly hero next door receives the army
    d = next(d for d in range(6) if st.neighbours[h.cell][d] >= 0 and st.land[st.neighbours[h.cell][d]]
             and heroes.hero_at(st, int(st.neighbours[h.cell][d])) < 0)
    other = replace(h.clone(), cell=int(st.neighbours[h.cell][d]), troops=np.zeros(4, np.int64), abilities=[])
    st.heroes.append(other)
    h.troops[:] = [0, 3, 2, 1]
    st._mask = None
    assert st.legal_actions_mask()[EXCHANGE0 + d]
    st.apply(EXCHANGE0 + d)
    assert other.troops.tolist() == [0, 3, 2, 1] and h.troops.sum() == 0
    assert other.received_troops.tolist() == [0, 3, 2, 1]  # not to be handed on this turn
