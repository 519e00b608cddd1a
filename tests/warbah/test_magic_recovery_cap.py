"""Scenario tests: RECRUIT TROOPS PHASE army cap (40 troops, Command +10) enforced in the
RECOVERY PHASE, special troops included (SPECIAL UNIT TYPES: they are troops of the army)."""
from __future__ import annotations

from tabletop_arena.envs.warbah import units as U
from tests.warbah.test_spells import two_heroes

KNI, KOB, UND = (U.SPECIALS.index(x) for x in ("knights", "kobolds", "undead"))


def test_recovery_counts_special_troops_against_the_cap():
    """Basic troops go first (warriors, archers, ...) when special troops push the army over."""
    g, st, a, b, d, cell = two_heroes()
    a.troops[:] = (20, 18, 0, 0)
    U.special(a)[KNI] = 5
    st.pending_treasure = []
    st._recovery()
    assert U.army_size(a) == 40
    assert list(a.troops) == [17, 18, 0, 0] and U.special(a)[KNI] == 5


def test_recovery_trims_special_troops_cheapest_kind_first():
    """An army of special troops only over the cap loses the cheapest kind first (Kobolds,
    cost 1, before Knights, cost 2); Command raises the cap by 10."""
    g, st, a, b, d, cell = two_heroes()
    a.troops[:] = 0
    U.special(a)[KNI], U.special(a)[KOB] = 30, 15
    st.pending_treasure = []
    st._recovery()
    assert U.special(a)[KOB] == 10 and U.special(a)[KNI] == 30
    a.abilities = [("command", 0)]
    U.special(a)[KNI] = 45
    st._recovery()
    assert U.army_size(a) == 50 and U.special(a)[KOB] == 5 and U.special(a)[KNI] == 45
