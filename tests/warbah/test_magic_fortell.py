"""Scenario tests: REALM SPELLS Fortell ("negate espionage result, cast in the espionage
phase") is the victim's choice: when an enemy agent's result hits a player able to cast it (a
wizard with the card who has not cast this turn, or a Fortell item), that player casts it
(REALM0 + fortell) or lets the result pass (DONE)."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import IllegalActionError
from tabletop_arena.envs.warbah import espionage, observe_magic, realm_spells
from tabletop_arena.envs.warbah.actions import DONE, REALM0, TARGET0
from tabletop_arena.envs.warbah.state import Item
from tests.warbah.test_espionage import at_stage, contact_state


def fortell_ready():
    g, st, a, b = contact_state()
    b.wizard = -1
    st.magic.hands[1] = [realm_spells.fortell_id(st)]
    return g, st, a, b


def test_victim_may_let_the_result_pass_and_keep_fortell():
    """Fortell is a choice: DONE lets the Delay Army result happen, the card stays in hand."""
    g, st, a, b = fortell_ready()
    at_stage(st, "delay")
    st.apply(TARGET0)
    assert st.phase == "espionage" and st.current_player == 1 and st.espionage.mission.stage == "fortell"
    fid = realm_spells.fortell_id(st)
    assert set(np.flatnonzero(st.legal_actions_mask())) == {DONE, REALM0 + fid}
    assert observe_magic.observe_magic(st, 1)[265] > 0 and observe_magic.observe_magic(st, 0)[265] == 0
    assert not espionage.hero_delayed(st, b)  # nothing happened yet
    st.apply(DONE)
    assert espionage.hero_delayed(st, b) and st.magic.hands[1] == [fid]


def test_victim_casts_fortell_against_stolen_gold():
    """Fortell cast: the Steal Gold result is negated (no die is rolled) and the card is
    spent; the wizard cannot cast another realm spell this turn."""
    g, st, a, b = fortell_ready()
    st.gold[:] = [0, 10]
    at_stage(st, "steal_gold")
    st.apply(TARGET0)
    before = st.clone()
    with pytest.raises(IllegalActionError):
        st.apply(TARGET0)
    assert st.espionage.mission.stage == "fortell" and st.espionage.mission.fortell == before.espionage.mission.fortell
    turn = st.turn
    st.apply(REALM0 + realm_spells.fortell_id(st))
    assert st.turn == turn and st.gold.tolist() == [0, 10] and st.espionage.log[-1][2] == "fortell"
    assert st.magic.hands[1] == [] and b.wizard_cast_turn == turn


def test_no_offer_without_a_caster():
    """No wizard with the card (or a wizard who already cast a realm spell this turn): the
    result takes effect at once."""
    g, st, a, b = fortell_ready()
    b.wizard_cast_turn = st.turn
    at_stage(st, "delay")
    st.apply(TARGET0)
    assert espionage.hero_delayed(st, b)
    g, st, a, b = fortell_ready()
    b.wizard = 0
    at_stage(st, "delay")
    st.apply(TARGET0)
    assert espionage.hero_delayed(st, b)


def test_fortell_item_can_be_cast_by_choice():
    """A Fortell realm-spell item (Treasure 7) gives the same choice, once per turn."""
    g, st, a, b = contact_state()
    b.items = [Item("realm", spell=realm_spells.fortell_id(st))]
    at_stage(st, "look")
    st.apply(TARGET0)
    assert st.espionage.mission.stage == "fortell" and st.current_player == 1
    st.apply(REALM0 + realm_spells.fortell_id(st))
    assert (0, 1) not in st.espionage.revealed and b.items[0].used_turn == st.turn
