"""Scenario tests: RARE ABILITY Luck ("one target die roll per turn is rolled again") on the
realm-spell dice, battle-spell dice, the Agent Success roll and the agents' amount dice
(envs/warbah/luck.py). The roller's player is asked first, then the player the roll is aimed
at; REROLL uses that player's Luck for the turn, KEEP_ROLL does not."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import IllegalActionError
from tabletop_arena.envs.warbah import espionage, luck, observe_magic, realm_spells, turn
from tabletop_arena.envs.warbah.actions import BSPELL0, GROUP0, KEEP_ROLL, REALM0, REROLL, TARGET0
from tests.warbah.test_espionage import ScriptRng, at_stage, contact_state
from tests.warbah.test_realm_spells import R, realm_ready
from tests.warbah.test_rules import setup_state
from tests.warbah.test_spells import BS, spell_battle

LUCKY = [("luck", 0)]


def test_victims_luck_rerolls_a_death_spell():
    """REALM SPELLS Death Spell (2D10 troops) / RARE ABILITY Luck: the player hit may have the
    roll made again; the roll is offered in the Disaster window flow as a sub-step."""
    g, st = setup_state()
    a, b = st.heroes[0], st.heroes[1]
    a.abilities, b.abilities = [], LUCKY
    a.wizard = -1
    st.magic.hands[0] = [R["death_spell"]]
    d = next(d for d in range(6) if st.neighbours[a.cell][d] >= 0 and st.land[st.neighbours[a.cell][d]])
    b.cell = int(st.neighbours[a.cell][d])
    b.troops[:] = (10, 10, 10, 10)
    st.phase, st.queue, st.queue_pos = "move", [], 0
    st.magic.opened = {"move"}
    turn.advance(st)
    st.apply(REALM0 + R["death_spell"])
    st.rng = ScriptRng([9, 8, 1, 2])  # 2D10 = 17; rerolled: 3
    st.apply(d)
    assert st.phase == "luck" and st.current_player == 1  # the caster has no Luck
    assert b.troops.sum() == 40
    assert set(np.flatnonzero(st.legal_actions_mask())) == {REROLL, KEEP_ROLL}
    obs = observe_magic.observe_magic(st, 1)
    assert obs[261] == 1 and obs[263] == 0 and obs[264] == pytest.approx(17 / 20)
    before = st.clone()
    with pytest.raises(IllegalActionError):
        st.apply(GROUP0)
    assert st.phase == "luck" and st.luck == before.luck and b.troops.sum() == 40
    now = st.turn
    st.apply(REROLL)
    assert b.troops.sum() == 37 and b.luck_used_turn == now


def test_casters_luck_on_prosperity_and_keep_does_not_use_it():
    """REALM SPELLS Prosperity (1D10 gold) / Luck: the caster's own roll; keeping a roll leaves
    Luck unused, a reroll uses it up for the turn (no second offer)."""
    g, st, a, b, d, cell = realm_ready("prosperity")
    a.abilities = LUCKY
    st.rng = ScriptRng([2, 9, 5, 6])
    gold = int(st.gold[0])
    realm_spells.cast_realm(st, 0, 0, R["prosperity"], None)
    assert st.phase == "luck" and st.current_player == 0 and st.gold[0] == gold
    luck.apply(st, KEEP_ROLL)
    assert st.gold[0] == gold + 2 and a.luck_used_turn != st.turn
    st.magic.hands[0], a.wizard_cast_turn = [R["prosperity"]], -1
    realm_spells.cast_realm(st, 0, 0, R["prosperity"], None)
    assert st.phase == "luck"
    luck.apply(st, REROLL)
    assert st.gold[0] == gold + 2 + 5 and a.luck_used_turn == st.turn
    st.magic.hands[0], a.wizard_cast_turn = [R["prosperity"]], -1
    realm_spells.cast_realm(st, 0, 0, R["prosperity"], None)  # Luck used: no offer, 6 gold at once
    assert st.phase != "luck" and st.gold[0] == gold + 13


def test_both_sides_luck_on_battle_spell_dice():
    """BATTLE SPELLS Poison Gas Cloud (1D5 kills) / Luck: the caster's player may reroll the
    1D5, then the defender may reroll the result; the battle then goes on."""
    g, st, a, b, cell = spell_battle([BS["poison_gas_cloud"]], [BS["haste"]])
    a.abilities, b.abilities = LUCKY, LUCKY
    st.rng = ScriptRng([5, 1])
    st.apply(BSPELL0 + BS["poison_gas_cloud"])
    st.apply(GROUP0 + 0)
    assert st.phase == "luck" and st.current_player == 0
    st.apply(KEEP_ROLL)
    assert st.phase == "luck" and st.current_player == 1 and st.luck.value == 5
    st.apply(REROLL)
    assert st.phase == "spell" and st.current_player == 1  # the defender's spell turn
    assert st.battle.sides[0].magic.scheduled[0][3] == 1
    assert b.luck_used_turn == st.turn and a.luck_used_turn != st.turn


def test_luck_rerolls_the_agent_success_roll():
    """AGENT SUCCESS TABLE / Luck: the spy's player may have the Agent Success roll made
    again."""
    g, st, a, b = contact_state()
    a.abilities = LUCKY
    st.gold[:] = [0, 10]
    at_stage(st, "done")
    st.rng = ScriptRng([6, 4])  # 6 Delay Army, rerolled: 4 Steal gold
    espionage.resolve_agent(st, 10)
    assert st.phase == "luck" and st.luck.what == "agent_success" and st.luck.resume is espionage._success_roll
    turn.advance(st)
    st.apply(REROLL)
    assert st.phase == "espionage" and st.espionage.mission.stage == "steal_gold"


def test_victims_luck_on_stolen_gold():
    """AGENT SUCCESS TABLE 4 (steal 1D10 gold) / Luck: the robbed player may reroll the 1D10."""
    g, st, a, b = contact_state()
    b.abilities = LUCKY
    st.gold[:] = [0, 10]
    at_stage(st, "steal_gold")
    st.rng = ScriptRng([9, 2])
    st.apply(TARGET0)
    assert st.phase == "luck" and st.current_player == 1 and st.gold.tolist() == [0, 10]
    st.apply(REROLL)
    assert st.gold.tolist() == [2, 8]


def test_victims_luck_on_disband_dice():
    """AGENT SUCCESS TABLE 8 (1D5 troops disband, opponent's choice) / Luck: the victim may
    reroll the 1D5 before picking the losses."""
    g, st, a, b = contact_state()
    b.abilities = LUCKY
    b.troops[:] = (5, 5, 0, 0)
    at_stage(st, "disband")
    st.rng = ScriptRng([5, 1])
    st.apply(TARGET0)
    assert st.phase == "luck" and st.current_player == 1
    st.apply(REROLL)
    assert st.phase == "spy_loss" and st.espionage.mission.left == 1


@pytest.mark.parametrize("choice,order", [(REROLL, [0, 1]), (KEEP_ROLL, [1, 0])])
def test_luck_on_the_initiative_roll(choice, order):
    """INITIATIVE PHASE (1D10 each, highest first) / Luck: a player with Luck may have its own
    initiative die rolled again before the order is set."""
    g, st = setup_state()
    for h in st.heroes:
        h.abilities = []
    st.heroes[1].abilities = LUCKY
    st.rng = ScriptRng([2, 3, 1])  # seat 0 rolls 2, seat 1 rolls 3; a reroll gives 1
    turn.start_turn(st)
    assert st.phase == "luck" and st.current_player == 1 and st.luck.roller == 0
    st.apply(KEEP_ROLL)  # first the opponent's die (see test_luck_initiative.py), kept
    assert st.phase == "luck" and st.current_player == 1 and st.luck.roller == 1
    now = st.turn
    assert observe_magic.observe_magic(st, 1)[262] == pytest.approx(5 / len(luck.KINDS))
    assert observe_magic.observe_magic(st, 1)[263] == 1 and observe_magic.observe_magic(st, 0)[261] == 0
    st.apply(choice)
    assert st.order == order and st.phase != "luck"
    assert (st.heroes[1].luck_used_turn == now) == (choice == REROLL)
