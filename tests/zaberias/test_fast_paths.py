"""The fast paths (bitmask reach, cheap has_options, vectorised observation) against plain
reference implementations, over positions of random games: a speed change must not change a rule.
"""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.zaberias import make_game
from tabletop_arena.envs.zaberias import movement as M
from tabletop_arena.envs.zaberias.board import PORTAL, WATER


def reference_reach(st, uid):
    """Rulebook 5 as a plain breadth-first search (the original implementation)."""
    g = st.game
    spec = g.specs[uid]
    geo, occ, terrain = st.geo, st.occ, st.geo.terrain
    start = st.cell[uid]
    fly, swim = spec.fly, spec.swim
    seen, frontier, dests = {start}, [start], set()
    U = g.U
    seat = uid // U
    carry = spec.ability == "carry" and st.rider[uid] < 0
    boarding = st.status[uid] == M.BOARD and spec.grade == 1
    my_dragon = st.dragon_of(seat) if boarding else -1
    climb = my_dragon if my_dragon >= 0 and st.status[my_dragon] == M.BOARD else -1
    if my_dragon >= 0 and (st.status[my_dragon] != M.BOARD or st.rider[my_dragon] >= 0):
        my_dragon = -1
    for _ in range(M.steps(st, uid)):
        nxt = []
        for x in frontier:
            for y in geo.step_nbrs[x]:
                if y in seen or (terrain[y] == WATER and not (fly or swim)):
                    continue
                o = occ[y]
                if o >= 0:
                    if o == my_dragon:
                        dests.add(y)
                    elif carry and o // U == seat and g.specs[o].grade == 1 \
                            and st.status[o] == M.BOARD and not st.moved[o] and o != uid \
                            and not st.effects[o] & M.GLUE:
                        dests.add(y)
                    # fly over units, or climb over the own Dragon (Dragon Q&A), not portals
                    if terrain[y] == PORTAL or not (fly or o == climb):
                        continue
                seen.add(y)
                nxt.append(y)
                if o < 0:
                    dests.add(y)
        frontier = nxt
    dests.discard(start)
    return sorted(dests)


def _positions(num_players, games=4):
    g = make_game(num_players=num_players)
    rng = np.random.default_rng(num_players)
    for seed in range(games):
        st = g.new_initial_state(np.random.default_rng(seed))
        while not st.is_terminal():
            if rng.random() < 0.3:
                yield st
            legal = st.legal_actions()
            st.apply(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("num_players", [2, 4])
def test_fast_reach_and_has_options_match_reference(num_players):
    checked = 0
    for st in _positions(num_players):
        assert sorted(st.occ_cells()) == [c for c, o in enumerate(st.occ) if o >= 0]
        for u in range(len(st.game.specs)):
            if not M.on_map(st, u):
                continue
            if M.can_move(st, u):
                assert M.reach_cells(st, u) == reference_reach(st, u)
                checked += 1
            fast = st.has_options(u)
            st._memo = {}
            o = st.unit_options(u)
            assert fast == bool(o["move"] or o["attack"] or o["ability"] or o["rotate"]
                                or o["plague"])
            st._memo = {}
    assert checked > 200


def test_vectorised_observation_matches_unit_statistics():
    """Planes 12..30 agree with movement.py's per-unit dice, muscle and steps."""
    for st in _positions(3, games=2):
        g = st.game
        seat = max(0, st.current_player)
        obs = st.observation(seat)
        P = obs[:(34 + g.U) * g.N].reshape(34 + g.U, g.N)
        for u in range(len(g.specs)):
            if st.status[u] != M.BOARD or u == st.lifted:
                continue
            x = st.cell[u]
            assert P[12 + (u // g.U - seat) % g.num_seats, x] == 1.0
            assert P[31 + u % g.U, x] == 1.0
            strength = min(1.0, (M.dice(st, u) * 3 + M.muscle(st, u)) / 30)
            assert P[16, x] == np.float32(strength)
            assert P[18, x] == np.float32(min(1.0, M.steps(st, u) / 12))
            assert P[22, x] == float(st.moved[u])
            assert P[25, x] == np.float32(min(1.0, len(st.held[u]) / 3))


def test_memoised_unit_planes_equal_a_fresh_observation():
    """The unit planes kept across select / buy / upgrade equal a rebuild from scratch."""
    from tabletop_arena import envs
    env = envs.make("zaberias_v0", num_players=3)
    for game in range(3):
        rng = np.random.default_rng(game)
        env.reset(seed=game)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            st = env.unwrapped.state_
            saved, st._memo = st._memo, {}
            fresh = st.observation(env.unwrapped._seat_for_observation(agent))
            st._memo = saved
            assert np.array_equal(fresh, obs["observation"])
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
