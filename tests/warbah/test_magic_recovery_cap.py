"""Scenario tests: RECRUIT TROOPS PHASE army cap (40 troops, Command +10) enforced in the
RECOVERY PHASE, special troops included (SPECIAL UNIT TYPES: they are troops of the army)."""
from __future__ import annotations

from tabletop_arena.envs.warbah import heroes, turn
from tabletop_arena.envs.warbah.tables import SPECIALS
from tests.warbah.test_spells import two_heroes

KNI, KOB, UND = (SPECIALS.index(x) for x in ("knights", "kobolds", "undead"))


def test_recovery_counts_special_troops_against_the_cap():
    """Basic troops go first (warriors, archers, ...) when special troops push the army over."""
    g, st, a, b, d, cell = two_heroes()
    a.troops[:] = (20, 18, 0, 0)
    a.specials[KNI] = 5
    st.pending_treasure = []
    turn.recovery(st)
    assert heroes.army_size(a) == 40
    assert list(a.troops) == [17, 18, 0, 0] and a.specials[KNI] == 5


def test_recovery_trims_special_troops_cheapest_kind_first():
    """An army of special troops only over the cap loses the cheapest kind first (Kobolds,
    cost 1, before Knights, cost 2); Command raises the cap by 10."""
    g, st, a, b, d, cell = two_heroes()
    a.troops[:] = 0
    a.specials[KNI], a.specials[KOB] = 30, 15
    st.pending_treasure = []
    turn.recovery(st)
    assert a.specials[KOB] == 10 and a.specials[KNI] == 30
    a.abilities = [("command", 0)]
    a.specials[KNI] = 45
    turn.recovery(st)
    assert heroes.army_size(a) == 50 and a.specials[KOB] == 5 and a.specials[KNI] == 45
