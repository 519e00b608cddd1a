"""Scenario tests: group-targeted Battle spells reach the special-unit groups (BATTLE SPELLS CARD
LIST and its NOTES: "a group of troops" is all troops of one type; SPECIAL UNIT TYPES)."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import IllegalActionError
from tabletop_arena.envs.warbah import battle, battle_flow, battle_spells, heroes, state
from tabletop_arena.envs.warbah.actions import BSPELL0, DONE, GROUP0, MAGIC_SPGROUP0
from tabletop_arena.envs.warbah.tables import SPECIALS
from tests.warbah.test_spells import BS, T, two_heroes

KOB, UND, KNI = (SPECIALS.index(x) for x in ("kobolds", "undead", "knights"))


class FixedRng:
    """Every die shows ``v`` (to see kill ranks and segments without chance)."""

    def __init__(self, v):
        self.v = v

    def integers(self, lo, hi, size=None):
        return self.v if size is None else np.full(size, self.v)


def special_battle(att_spells, att_sp=None, def_sp=None, att=(3, 3, 3, 3), dfn=(3, 3, 3, 3)):
    """Hero 0 (wizard, spells ``att_spells`` on top of the deck) attacks hero 1; ``att_sp`` /
    ``def_sp`` = {special index: count}. Stops at the attacker's first spell decision."""
    g, st, a, b, d, cell = two_heroes()
    a.troops[:], b.troops[:] = att, dfn
    for h, sp in ((a, att_sp), (b, def_sp)):
        for u, n in (sp or {}).items():
            h.specials[u] = n
    a.wizard, b.wizard = -1, 0
    pad = list(att_spells) + [k for k in range(T.NB) if k not in att_spells][:4 - len(att_spells)]
    st.magic.battle_deck = [k for k in range(T.NB) if k not in pad] + list(reversed(pad))
    st.phase, st.queue, st.queue_pos = "battle", [(0, 0)], 0
    battle_flow.start_battle(st, 0, cell)
    assert st.phase == "spell" and st.current_player == 0
    return g, st, a, b, cell


def sides(st):
    return st.battle.sides


def test_kill_spell_targets_a_special_group():
    """BATTLE SPELLS: Fireball kills 2 units of the chosen group - here the defender's Kobolds
    (a special group, action MAGIC_SPGROUP0 + u); the basic groups are untouched."""
    g, st, a, b, cell = special_battle([BS["fireball"]], def_sp={KOB: 5, UND: 1})
    st.apply(BSPELL0 + BS["fireball"])
    assert st.phase == "spell_target"
    m = st.legal_actions_mask()
    assert m[MAGIC_SPGROUP0 + KOB] and m[MAGIC_SPGROUP0 + UND]
    assert not m[MAGIC_SPGROUP0 + KNI]  # no knights on the enemy side
    assert "kobolds" in st.action_to_str(MAGIC_SPGROUP0 + KOB)
    st.apply(MAGIC_SPGROUP0 + KOB)
    sched = sides(st)[0].magic.scheduled
    assert sched == [(battle.segment_of(3), "kill", state.SPECIAL_GROUP0 + KOB, 2, 0)]
    battle_spells.segment_effects(st, battle.segment_of(3))
    foe = sides(st)[1]
    assert foe.counts[battle.FIRST_SPECIAL + KOB] == 3 and foe.counts[battle.FIRST_SPECIAL + UND] == 1
    assert list(foe.counts[:4]) == [3, 3, 3, 3]


def test_kill_spell_on_a_small_special_group_overflows_to_the_victim():
    """BATTLE SPELLS (designed overflow): kills the targeted special group cannot absorb become
    ordinary kills that the victim assigns."""
    g, st, a, b, cell = special_battle([BS["fireball"]], def_sp={UND: 1})
    st.apply(BSPELL0 + BS["fireball"])
    st.apply(MAGIC_SPGROUP0 + UND)
    extra = battle_spells.segment_effects(st, battle.segment_of(3))
    assert sides(st)[1].counts[battle.FIRST_SPECIAL + UND] == 0 and extra == [0, 1]


def test_neutralize_spell_stops_a_special_group():
    """BATTLE SPELLS: Polymorph neutralizes 4 units of the chosen special group; NOTES:
    neutralized troops cannot attack for the rest of the battle."""
    g, st, a, b, cell = special_battle([BS["polymorph"]], def_sp={UND: 4})
    st.apply(BSPELL0 + BS["polymorph"])
    st.apply(MAGIC_SPGROUP0 + UND)
    battle_spells.segment_effects(st, battle.segment_of(2))
    foe = sides(st)[1]
    assert foe.magic.neutral[state.SPECIAL_GROUP0 + UND] == 4 and foe.counts[battle.FIRST_SPECIAL + UND] == 4
    st.rng = FixedRng(1)  # every die would hit
    assert battle.special_attacks_d10(st, foe, battle.segment_of(1)) == 0
    foe.magic.neutral[state.SPECIAL_GROUP0 + UND] = 1
    assert battle.special_attacks_d10(st, foe, battle.segment_of(1)) == 3


def test_weakness_lowers_a_special_groups_kill_rank():
    """BATTLE SPELLS: Weakness - the target group (Kobolds, Kill 2) is Kill -1 for the battle."""
    g, st, a, b, cell = special_battle([BS["weakness"]], def_sp={KOB: 2})
    st.apply(BSPELL0 + BS["weakness"])
    st.apply(MAGIC_SPGROUP0 + KOB)
    foe = sides(st)[1]
    st.rng = FixedRng(2)
    assert battle.special_attacks_d10(st, foe, battle.segment_of(1)) == 2  # not yet: lands at Initiative 2
    battle_spells.segment_effects(st, battle.segment_of(2))
    assert foe.magic.special_kill[KOB] == -1
    assert battle.special_attacks_d10(st, foe, battle.segment_of(1)) == 0
    battle_spells.end_round(st)
    assert battle.special_attacks_d10(st, foe, battle.segment_of(1)) == 0  # for the rest of the battle


def test_slow_and_illusions_on_special_groups():
    """BATTLE SPELLS: Slow (Initiative -2 for the battle) moves the Knights (Init 2) to the 0-
    segment; Illusions stops one enemy group's attacks this round."""
    g, st, a, b, cell = special_battle([BS["slow"], BS["illusions"]], def_sp={KNI: 2, UND: 2})
    st.apply(BSPELL0 + BS["slow"])
    st.apply(MAGIC_SPGROUP0 + KNI)
    foe = sides(st)[1]
    st.rng = FixedRng(1)
    assert battle.special_attacks_d10(st, foe, battle.segment_of(2)) == 0
    assert battle.special_attacks_d10(st, foe, battle.segment_of(0)) == 2
    battle_spells.end_round(st)
    sides(st)[0].magic.cast = False
    assert battle.special_attacks_d10(st, foe, battle.segment_of(0)) == 2  # still slow next round
    battle_spells.cast_battle(st, 0, BS["illusions"], state.SPECIAL_GROUP0 + UND,
                             resume=battle_spells.resolve_after_luck)
    assert battle.special_attacks_d10(st, foe, battle.segment_of(1)) == 0
    battle_spells.end_round(st)
    assert battle.special_attacks_d10(st, foe, battle.segment_of(1)) == 2


def test_own_group_spells_and_haste_reach_special_groups():
    """BATTLE SPELLS: Phantasmal Terrain (one own group Initiative +4) may pick an own special
    group; Haste (all own troops Initiative +1) includes the special units."""
    g, st, a, b, cell = special_battle([BS["phantasmal_terrain"], BS["haste"]], att_sp={UND: 2})
    st.apply(BSPELL0 + BS["phantasmal_terrain"])
    assert st.legal_actions_mask()[MAGIC_SPGROUP0 + UND]
    st.apply(MAGIC_SPGROUP0 + UND)
    me = sides(st)[0]
    st.rng = FixedRng(1)
    assert battle.special_attacks_d10(st, me, battle.segment_of(5)) == 2  # Init 1 + 4
    battle_spells.end_round(st)
    assert battle.special_attacks_d10(st, me, battle.segment_of(1)) == 2  # this round only
    battle_spells.cast_battle(st, 0, BS["haste"], None, resume=battle_spells.resolve_after_luck)
    assert battle.special_attacks_d10(st, me, battle.segment_of(2)) == 2 and battle.special_attacks_d10(st, me, battle.segment_of(1)) == 0


def test_control_takes_special_units_for_good():
    """BATTLE SPELLS: Command takes control of 1 enemy troop, here a Knight; NOTES: take
    permanent ownership of controlled troops (the Knight stays with the caster's Hero)."""
    g, st, a, b, cell = special_battle([BS["command"]], def_sp={KNI: 2})
    st.apply(BSPELL0 + BS["command"])
    st.apply(MAGIC_SPGROUP0 + KNI)
    battle_spells.segment_effects(st, battle.segment_of(2))
    me, foe = sides(st)
    assert me.counts[battle.FIRST_SPECIAL + KNI] == 1 and foe.counts[battle.FIRST_SPECIAL + KNI] == 1
    battle.write_back_specials(st, st.battle.sides)
    assert a.specials[KNI] == 1 and b.specials[KNI] == 1


def test_control_of_a_new_special_kind_respects_the_type_limit():
    """SPECIAL UNIT TYPES notes (designed for Charm / Command): a Hero with 5 troop types cannot
    take control of a sixth kind; an own kind or a basic type stays legal."""
    g, st, a, b, cell = special_battle([BS["charm"]], att_sp={UND: 1}, def_sp={KNI: 2, UND: 3})
    st.apply(BSPELL0 + BS["charm"])
    m = st.legal_actions_mask()
    assert not m[MAGIC_SPGROUP0 + KNI] and m[MAGIC_SPGROUP0 + UND] and m[GROUP0 + 0]
    before = st.clone()
    with pytest.raises(IllegalActionError):
        st.apply(MAGIC_SPGROUP0 + KNI)
    assert st.phase == "spell_target"
    assert st.battle.magic.pending == before.battle.magic.pending
    assert sides(st)[0].magic.scheduled == [] and len(st.history) == len(before.history)
    st.apply(DONE)  # cancel: the card is kept
    assert BS["charm"] in sides(st)[0].magic.hand


def test_raise_dead_respects_the_troop_type_limit():
    """SPECIAL UNIT NOTES (5 troop types; designed for Raise Dead like Animate Dead): a Hero with
    five types and no warriors gets no risen warriors; one that has warriors gets them (found by
    a fuzz game, 3p seed 7190: a sixth type after a defender's Raise Dead)."""
    g, st, a, b, cell = special_battle([BS["raise_dead"]], att_sp={KOB: 1, UND: 1}, att=(0, 3, 3, 3))
    me = sides(st)[0]
    assert heroes.type_count(a) == 5 == heroes.type_limit(st, a)
    st.apply(BSPELL0 + BS["raise_dead"])
    assert me.counts[0] == 0
    g, st, a, b, cell = special_battle([BS["raise_dead"]], att_sp={KOB: 1}, att=(2, 3, 3, 3))
    st.apply(BSPELL0 + BS["raise_dead"])
    assert 3 <= sides(st)[0].counts[0] <= 7


def test_control_of_a_basic_type_respects_the_type_limit():
    """Charm / Command at the type limit: an enemy basic group of a type the caster's Hero lacks
    cannot be targeted; one he has can, and if by the time the spell lands his own group of that
    type is gone and another kind has taken its place (five types again), nothing changes sides."""
    g, st, a, b, cell = special_battle([BS["charm"]], att_sp={KOB: 1, UND: 1}, att=(0, 3, 3, 3))
    st.apply(BSPELL0 + BS["charm"])
    m = st.legal_actions_mask()
    assert not m[GROUP0 + 0] and m[GROUP0 + 1]
    st.apply(GROUP0 + 1)
    me, foe = sides(st)
    me.counts[1] = 0                      # the caster's archers fall before the spell lands
    me.counts[0] = 2                      # and warriors rose (Raise Dead): five types again
    battle_spells.segment_effects(st, battle.segment_of(1))
    battle_spells.segment_effects(st, battle.segment_of(2))
    assert me.counts[1] == 0 and foe.counts[1] == 3
    me.counts[0] = 0                      # room for the archers: the charm would take them
    assert battle_spells._can_hold(st, me, 1)


def test_neutral_wizard_targets_the_largest_group_including_specials(monkeypatch):
    """Encounter 7 Irate Sorcerer (designed policy): the neutral wizard's targeted spell goes to
    the largest enemy group, which may be a special group."""
    casts, orig = [], battle_spells.cast_battle

    def spy(st, k, s, t, *args, **kwargs):
        casts.append((k, s, t))
        orig(st, k, s, t, *args, **kwargs)
    monkeypatch.setattr(battle_spells, "cast_battle", spy)
    g, st, a, b, d, cell = two_heroes()
    st.encounter[cell] = 7
    b.alive, b.cell = False, -1
    a.troops[:] = (1, 1, 1, 1)
    a.specials[UND] = 9
    st.magic.battle_deck = [k for k in range(T.NB) if k != BS["fireball"]] + [BS["fireball"]]
    st.phase, st.queue, st.queue_pos = "battle", [(0, 0)], 0
    battle_flow.start_battle(st, 0, cell)
    assert casts[0] == (1, BS["fireball"], state.SPECIAL_GROUP0 + UND)
