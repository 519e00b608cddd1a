"""Speed-ups must not change play: the hero occupancy map used by the move masks gives the same
answers as scanning the Heroes (rules.hero_at), in positions from seeded random games."""
from __future__ import annotations

import numpy as np

from tabletop_arena.envs.warbah import block_b as BB
from tabletop_arena.envs.warbah import make_game
from tabletop_arena.envs.warbah import sea as SEA


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
                    occ = BB.hero_map(st)
                    for c in range(g.n_cells):
                        assert occ.get(c, -1) == st.hero_at(c)
                        if st.land[c] and st.explored[c]:
                            assert st._enterable(seat, h, c, occ) == st._enterable(seat, h, c)
                    if h.alive and st.land[h.cell]:
                        for d in range(6):
                            assert BB._pass_target(st, seat, h, d, occ) == \
                                BB._pass_target(st, seat, h, d)
                    cells = [c for c in np.flatnonzero(st.fleets.ships).tolist()
                             if st.fleets.owner[c] == seat and st.hero_at(c) < 0]
                    assert SEA.unmanned_fleets(st, seat) == cells[:4]
                    checked += 1
                legal = np.flatnonzero(st.legal_actions_mask())
                st.apply(int(legal[rng.integers(len(legal))]))
    assert checked > 50
