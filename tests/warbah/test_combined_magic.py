"""Scenario tests: Battle spells in a combined attack (BATTLE PHASE "Heroes may combine attacks";
ALLIES "allies may combine attacks"; BATTLE SPELLS: a Wizard casts one spell per round).
Every Wizard of the force draws and casts; a spell reaches any army of the force (friendly
spells) or of the foe (hostile ones): with several armies in reach the caster first picks the
army (BATTLE_JOIN0 + d, d = that army's Hero's direction from the target hex)."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import IllegalActionError
from tabletop_arena.envs.warbah import battle_spells, observe_magic
from tabletop_arena.envs.warbah.actions import BATTLE_ACCEPT, BATTLE_JOIN0, BATTLE_START, BSPELL0, DONE, GROUP0
from tests.warbah.test_battle_combined import _dir, _hero, arena
from tests.warbah.test_espionage import ScriptRng
from tests.warbah.test_spells import BS, T


def _stack(st, *hands):
    """Stack the battle deck so the armies draw ``hands`` in draw order (lead, defender,
    joiners), each padded to 4 cards."""
    used = [k for h in hands for k in h]
    rest = [k for k in range(T.NB) if k not in used]
    seq = []
    for h in hands:
        pad = list(h) + rest[:4 - len(h)]
        rest = rest[4 - len(h):]
        seq += pad
    st.magic.battle_deck = rest + list(reversed(seq))


def _force(n=2, allies=False, lead_wiz=True, joiner_wiz=True, foe_wiz=False):
    """Lead (hero 0, seat 0) at direction 0 of the target T, an enemy Hero (seat 1) on T, a
    joining Hero (hero 2; seat 0, or seat 2 allied with seat 0) at direction 2 of T."""
    g, st, t, ring = arena(n=n, allies=allies)
    jseat = 2 if allies else 0
    if allies:
        st.diplomacy.allied[0, 2] = st.diplomacy.allied[2, 0] = True
    st.heroes[0].troops[:] = [5, 0, 0, 0]
    st.heroes.append(_hero(1, t, [5, 0, 0, 0]))
    st.heroes.append(_hero(jseat, ring[2], [5, 0, 0, 0]))
    for i, wiz in ((0, lead_wiz), (1, foe_wiz), (2, joiner_wiz)):
        st.heroes[i].wizard = -1 if wiz else 0
    return g, st, t, ring


def _attack(st, t, allied=False):
    st.apply(_dir(st, st.heroes[0].cell, t))
    st.apply(BATTLE_JOIN0 + 2)
    if allied:
        st.apply(BATTLE_ACCEPT)
    st.apply(BATTLE_START)


def _legal(st) -> set:
    return set(np.flatnonzero(st.legal_actions_mask()).tolist())


def test_battle_spells_every_wizard_of_the_force_casts_once_per_round():
    """BATTLE SPELLS / combined attack: the lead's and the joiner's Wizards each draw 4 cards
    and each cast one spell a round; a friendly spell may go to the other army of the force."""
    g, st, t, ring = _force()
    _stack(st, [BS["blessing"]], [BS["smite"]])  # the defender has no Wizard: draws none
    st.rng = ScriptRng([10] * 400)  # every attack die misses
    _attack(st, t)
    b = st.battle
    lead, joiner = b.sides[0], b.members[0]
    assert len(lead.magic.hand) == 4 and len(joiner.magic.hand) == 4
    assert st.phase == "spell" and st.current_player == 0 and b.magic.caster == 0
    st.apply(BSPELL0 + BS["blessing"])
    assert st.phase == "spell_target" and _legal(st) == {BATTLE_JOIN0, BATTLE_JOIN0 + 2, DONE}
    before = st.clone()
    with pytest.raises(IllegalActionError):
        st.apply(BATTLE_JOIN0 + 1)  # no army there
    assert st.phase == "spell_target" and st.battle.magic == before.battle.magic
    st.apply(BATTLE_JOIN0 + 2)  # Blessing on the joining army
    assert joiner.magic.blessed and not lead.magic.blessed
    assert st.phase == "spell" and st.current_player == 0 and b.magic.caster == 2
    assert BSPELL0 + BS["smite"] in _legal(st)
    st.apply(BSPELL0 + BS["smite"])
    st.apply(BATTLE_JOIN0)  # Smite on the lead's Hero
    assert st.phase == "call_off"  # one spell per Wizard this round: no more casting
    assert len(lead.magic.hand) == 3 and len(joiner.magic.hand) == 3
    assert lead.extra_attacks[4] == 1 and joiner.extra_attacks[4] == 0 and lead.magic.smite_rounds == 2


def test_battle_spells_defender_targets_a_joining_army():
    """BATTLE SPELLS / combined attack: a hostile group spell of the defender may hit any army
    of the force: the army first, then its group (Fireball: 2 of the joiner's warriors)."""
    g, st, t, ring = _force(lead_wiz=False, joiner_wiz=False, foe_wiz=True)
    _stack(st, [BS["fireball"]])
    st.rng = ScriptRng([10] * 400)  # every attack die misses
    _attack(st, t)
    assert st.phase == "spell" and st.current_player == 1 and st.battle.magic.caster == 1
    st.apply(BSPELL0 + BS["fireball"])
    assert _legal(st) == {BATTLE_JOIN0, BATTLE_JOIN0 + 2, DONE}
    st.apply(BATTLE_JOIN0 + 2)
    assert st.phase == "spell_target" and GROUP0 + 0 in _legal(st)
    assert BATTLE_JOIN0 + 2 not in _legal(st)
    st.apply(GROUP0 + 0)
    assert st.phase == "call_off"
    b = st.battle
    assert b.members[0].counts[0] == 3 and b.sides[0].counts[0] == 5


def test_battle_spells_neutral_wizard_reaches_the_largest_group_of_the_force():
    """Encounter 7 Irate Sorcerer (designed policy) against a combined attack: its targeted
    spell goes to the largest group among all the force's armies."""
    g, st, t, ring = _force(lead_wiz=False, joiner_wiz=False)
    st.heroes.pop(1)  # no enemy Hero: an encounter instead
    st.encounter[t] = 7
    st.heroes[1].troops[:] = [9, 0, 0, 0]  # the joiner (now hero 1) has the larger group
    _stack(st, [BS["petrification"]])  # only the sorcerer draws; his first card: 1 unit
    st.rng = ScriptRng([1] + [10] * 400)  # 1D10 = 1 warrior for the sorcerer; dice miss
    st.apply(_dir(st, st.heroes[0].cell, t))
    st.apply(BATTLE_JOIN0 + 2)
    st.apply(BATTLE_START)
    b = st.battle
    assert b.members[0].counts[0] == 8 and b.sides[0].counts[0] == 5


def test_allies_combine_attacks_allied_wizard_casts_for_the_force():
    """ALLIES (combine attacks) / BATTLE SPELLS: an allied joiner's Wizard casts for the force;
    his player decides, and Smite may go to the lead's Hero."""
    g, st, t, ring = _force(n=3, allies=True, lead_wiz=False)
    _stack(st, [BS["smite"]])
    st.rng = ScriptRng([10] * 400)  # every attack die misses
    _attack(st, t, allied=True)
    b = st.battle
    assert st.phase == "spell" and st.current_player == 2 and b.magic.caster == 2
    st.apply(BSPELL0 + BS["smite"])
    st.apply(BATTLE_JOIN0)
    assert st.phase == "call_off"
    assert b.sides[0].extra_attacks[4] == 1 and b.members[0].extra_attacks[4] == 0


def test_battle_spells_lone_attack_has_no_army_step():
    """BATTLE SPELLS: with one army a side, a spell goes straight to its group (no army
    choice), as before."""
    g, st, t, ring = _force(joiner_wiz=False)
    st.heroes[2].attacks_left = 0  # the friend cannot join
    _stack(st, [BS["fireball"]])
    st.apply(_dir(st, st.heroes[0].cell, t))
    assert st.phase == "spell" and not st.battle.members
    st.apply(BSPELL0 + BS["fireball"])
    assert st.phase == "spell_target" and battle_spells.spell_armies(st, 0, BS["fireball"]) == [1]
    assert not any(BATTLE_JOIN0 + d in _legal(st) for d in range(6))


def _hand_seen(st, seat) -> set:
    """Battle-hand cards in the magic observation of ``seat`` (observe_magic, 65 + k)."""
    v = observe_magic.observe_magic(st, seat)
    bo = 13 + 2 * T.NR
    return set(np.flatnonzero(v[bo:bo + T.NB]).tolist())


def test_observation_shows_a_joining_ally_its_own_battle_hand_only():
    """BATTLE SPELLS / ALLIES (combined attack): each player sees its own army's battle hand
    (an allied joiner too, with its Wizard state), never another player's hand."""
    g, st, t, ring = _force(n=3, allies=True, foe_wiz=True)
    _stack(st, [BS["blessing"]], [BS["fireball"]], [BS["smite"]])
    st.rng = ScriptRng([10] * 400)
    _attack(st, t, allied=True)
    b = st.battle
    lead, foe, joiner = b.sides[0], b.sides[1], b.members[0]
    assert st.phase == "spell" and b.magic.caster == 0
    hands = {0: set(lead.magic.hand), 1: set(foe.magic.hand), 2: set(joiner.magic.hand)}
    assert all(len(h) == 4 for h in hands.values()) and BS["smite"] in hands[2]
    for seat in (0, 1, 2):
        assert _hand_seen(st, seat) == hands[seat]
    s0 = 13 + 2 * T.NR + 2 * T.NB
    assert observe_magic.observe_magic(st, 2)[s0 + 1] == 1  # the joiner's own Hero's Wizard
    st.apply(BSPELL0 + BS["blessing"])
    st.apply(BATTLE_JOIN0)  # Blessing on the lead's own army
    assert st.phase == "spell" and st.current_player == 2 and b.magic.caster == 2
    for seat in (0, 1, 2):
        assert _hand_seen(st, seat) == set(_army_of(b, seat).magic.hand)


def _army_of(b, seat):
    return {0: b.sides[0], 1: b.sides[1], 2: b.members[0]}[seat]


def test_observation_shows_the_casting_army_hand_when_one_player_has_two_armies():
    """Combined attack of one player's two Heroes: while the joining army casts, its hand is
    the one shown; otherwise the lead's."""
    g, st, t, ring = _force()
    _stack(st, [BS["blessing"]], [BS["smite"]])
    st.rng = ScriptRng([10] * 400)
    _attack(st, t)
    b = st.battle
    lead, joiner = b.sides[0], b.members[0]
    assert _hand_seen(st, 0) == set(lead.magic.hand)
    st.apply(BSPELL0 + BS["blessing"])
    st.apply(BATTLE_JOIN0)
    assert b.magic.caster == 2 and st.phase == "spell"
    assert _hand_seen(st, 0) == set(joiner.magic.hand) != set(lead.magic.hand)
    assert _hand_seen(st, 1) == set()
