"""Whole-game invariants of Zaberias under seeded random play (every state of every game): the
board's occupancy table and the units agree, carried units have a carrier, coins never go
negative, owned cities have a grade 1..3. Each check is also shown to fire on a broken state."""
from __future__ import annotations

import numpy as np

from tabletop_arena.envs.zaberias import movement as M
from tests.random_play import invariant_test, play_until, variant_state


def violations(st) -> list[str]:
    out = []
    for u, status in enumerate(st.status):
        if status == M.BOARD and st.occ[st.cell[u]] != u and st.lifted != u:
            out.append(f"unit {u} on the board but not in its square")
        if status == M.HELD and (st.holder[u] < 0 or u not in st.held[st.holder[u]]):
            out.append(f"unit {u} carried without a carrier")
    for c, u in enumerate(st.occ):
        if u >= 0 and (st.status[u] != M.BOARD or st.cell[u] != c):
            out.append(f"square {c} names unit {u}, which is elsewhere")
    if any(x < 0 for x in st.coins):
        out.append("negative coins")
    for s, owner in enumerate(st.city_owner):
        if owner >= 0 and not 1 <= st.city_grade[s] <= 3:
            out.append(f"city {s} of grade {st.city_grade[s]}")
    return out


test_random_games_never_break_the_invariants = invariant_test("zaberias_v0", range(4), violations)


def test_each_invariant_fires_on_a_broken_state():
    st = variant_state("zaberias_v0", "2p", 2)
    play_until(st, np.random.default_rng(2), lambda s: sum(x == M.BOARD for x in s.status) >= 2)
    assert not violations(st)
    u = next(u for u, s in enumerate(st.status) if s == M.BOARD)
    s = st.clone()
    s.occ[s.cell[u]] = -1
    assert any("not in its square" in v for v in violations(s))
    s = st.clone()
    s.status[u] = M.HELD
    assert any("without a carrier" in v for v in violations(s))
    s = st.clone()
    s.coins[0] = -1
    assert any("negative coins" in v for v in violations(s))
    s = st.clone()
    s.city_grade[s.city_owner.index(0)] = 0
    assert any("of grade 0" in v for v in violations(s))
