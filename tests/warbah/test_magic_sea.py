"""Scenario tests: magic at sea. SEA ENCOUNTER TABLE 1 / 4: the Sea Monster and the Pirates
(1 Ship and 1D10 Warriors) have no Wizard, so they never draw or cast Battle spells; a Hero's
own Wizard draws and casts at sea as in any battle (BATTLE PHASE)."""
from __future__ import annotations

import pytest

from tests.warbah.test_sea import _at_sea, dir_to


@pytest.mark.parametrize("roll,kind", [(4, "pirates"), (1, "monster")])
def test_sea_encounters_have_no_wizard(roll, kind):
    g, st, h, nxt = _at_sea([roll, 1], troops=(10, 0, 0, 0), ships=3)
    h.wizard = -1
    st.apply(dir_to(st, h.cell, nxt))
    assert st.fleets.encounter_log[-1][3] == kind and st.battle is not None
    me, foe = st.battle.sides
    assert me.magic.wizard and len(me.magic.hand) == 4
    assert not foe.magic.wizard and foe.magic.hand == [] and foe.magic.items == []
    assert st.phase == "spell" and st.current_player == 0  # only the Hero's wizard decides
