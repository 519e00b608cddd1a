"""Scenario tests: magic and agents reach special units, in armies and in garrisons (Knights of
a Knights castle, ``st.garrison_specials``). REALM SPELLS NOTES ("an army or garrison hit by a
razing or decimating disaster will lose 1D10 troop units"), Death Spell ("target adjacent army
loses 2D10 troops"), AGENT SUCCESS TABLE 2 ("gain control of target garrison")."""
from __future__ import annotations

from tabletop_arena.envs.warbah import heroes, magic, realm_spells
from tabletop_arena.envs.warbah.tables import SETTLEMENTS, SPECIALS
from tests.warbah.test_espionage import ScriptRng, at_stage, contact_state
from tests.warbah.test_realm_spells import R, realm_ready

KNI, UND = SPECIALS.index("knights"), SPECIALS.index("undead")
CASTLE = SETTLEMENTS.index("castle")


def test_death_spell_kills_special_troops_of_an_army():
    """Death Spell: the losses come off the largest groups, special groups included."""
    g, st, a, b, d, cell = realm_ready("death_spell")
    b.troops[:] = (2, 0, 0, 0)
    b.specials[UND] = 12
    st.rng = ScriptRng([4, 4])
    realm_spells.cast_realm(st, 0, 0, R["death_spell"], d)
    assert b.specials[UND] == 4 and b.troops[0] == 2  # 8 lost, all from the undead


def _knights_garrison(spell):
    g, st, a, b, d, cell = realm_ready(spell)
    b.alive = False
    st.settle[cell], st.owner[cell] = CASTLE, 1
    st.garrison[cell] = 0
    st.garrison_specials[cell, KNI] = 4
    return g, st, a, b, d, cell


def test_death_spell_targets_a_knights_only_garrison():
    """A garrison of Knights only is an adjacent enemy force for Death Spell."""
    g, st, a, b, d, cell = _knights_garrison("death_spell")
    assert realm_spells.realm_targets(st, 0, 0, R["death_spell"]) == [d]
    st.rng = ScriptRng([1, 2])
    realm_spells.cast_realm(st, 0, 0, R["death_spell"], d)
    assert st.garrison_specials[cell, KNI] == 1


def test_decimating_disaster_hits_garrison_knights():
    """Flood (decimate) on a castle garrisoned by Knights: they lose 1D10 troop units."""
    g, st, a, b, d, cell = _knights_garrison("flood")
    st.garrison[cell, 2] = 2
    st.rng = ScriptRng([3])
    realm_spells.cast_realm(st, 0, 0, R["flood"], d)
    assert st.garrison_specials[cell, KNI] + st.garrison[cell].sum() == 3 and st.garrison_specials[cell, KNI] == 2
    assert magic.blighted(st, cell) or st.magic.blight[cell] == st.turn + 1


def test_agent_can_take_a_knights_only_garrison():
    """AGENT SUCCESS TABLE 2: a non-capitol settlement held by Knights only is a target."""
    g, st, a, b = contact_state()
    c = int(next(x for x in range(g.n_cells) if st.land[x] and st.settle[x] < 0
                 and heroes.hero_at(st, x) < 0))
    st.settle[c], st.owner[c] = CASTLE, 1
    st.garrison[c] = 0
    st.garrison_specials[c, KNI] = 3
    assert c in at_stage(st, "garrison")
    st.garrison_specials[c, KNI] = 0
    assert c not in at_stage(st, "garrison")
