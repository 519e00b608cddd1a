"""Speed-ups must not change play: the hero occupancy map used by the move masks gives the same
answers as scanning the Heroes (rules.hero_at), in positions from seeded random games."""
from __future__ import annotations

import numpy as np

from tabletop_arena.envs.warbah import fleets, heroes, hexes, make_game, movement


def test_hero_map_agrees_with_hero_at_in_random_play():
    checked = 0
    for n, allies in ((2, False), (4, True)):
        g = make_game(num_players=n, allies=allies)
        for seed in range(2):
            st = g.new_initial_state(np.random.default_rng(seed))
            rng = np.random.default_rng(seed)
            while not st.is_terminal():
                if st.phase == "move" and st.queue_pos < len(st.queue):
                    seat, x = st.queue[st.queue_pos]
                    h = st.heroes[x]
                    occ = heroes.hero_map(st)
                    for c in range(g.n_cells):
                        assert occ.get(c, -1) == heroes.hero_at(st, c)
                        if st.land[c] and st.explored[c]:
                            assert hexes.enterable(st, seat, h, c, occ) == hexes.enterable(st, seat, h, c)
                    if h.alive and st.land[h.cell]:
                        for d in range(6):
                            assert movement.pass_cost(st, seat, h, d, occ) == \
                                movement.pass_cost(st, seat, h, d)
                    cells = [c for c in np.flatnonzero(st.fleets.ships).tolist()
                             if st.fleets.owner[c] == seat and heroes.hero_at(st, c) < 0]
                    assert fleets.unmanned_fleets(st, seat) == cells[:4]
                    checked += 1
                legal = np.flatnonzero(st.legal_actions_mask())
                st.apply(int(legal[rng.integers(len(legal))]))
    assert checked > 50
