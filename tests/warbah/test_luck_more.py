"""Scenario tests: RARE ABILITY Luck ("cause one target die roll per turn to be rerolled") on the
dice it did not reach before: ability rolls (recruited Hero, XP in recovery, Summon Avatar) and
their troop type, a treasure's magic ability item (also through Research), the merchant
caravan's gold, ships' dice and a sea monster's die in battle, the dice of the designer's mass
formula, and an enemy's espionage roll and Espionage table roll (offered to its possible
victims). Set-ups and helpers come from the older Luck tests."""
from __future__ import annotations

import numpy as np
import pytest

from envs.core.game import IllegalActionError
from envs.warbah import battle as B
from envs.warbah import espionage as ESP
from envs.warbah import luck as LUCK
from envs.warbah import make_game
from envs.warbah import spells as SP
from envs.warbah.combat_flow import start_battle
from envs.warbah.config import (HIRE_AGENT, KEEP_ROLL, LUCK_FOE, LUCK_MINE, RECRUIT_HERO,
                                REROLL)
from tests.warbah.test_battle_mass import Dice
from tests.warbah.test_espionage import ScriptRng, contact_state
from tests.warbah.test_luck_rolls import LUCKY, _last_turn, _legal
from tests.warbah.test_rules import _battle_state, setup_state
from tests.warbah.test_sea import _at_sea, dir_to, sea_world
from tests.warbah.test_spells import R, realm_ready


# -- ability rolls -----------------------------------------------------------------------------
def test_luck_ability_roll_of_a_recruited_hero():
    """RECRUIT TROOPS (a Hero) / HEROES, ABILITY TABLE: the recruiting player's Luck (another
    Hero of his) may have the new Hero's Ability roll made again (1 wizardry -> 8: the Rare
    Ability table, 4 luck; troop type 1D5 = 3); the ability is written once all are rolled."""
    g, st = setup_state(2)
    a = st.heroes[0]
    a["abil"] = list(LUCKY)
    c = int(st.capitol[0])
    a["cell"] = int(next(x for x in st.nb[c] if x >= 0 and st.land[x] and st.hero_at(x) < 0))
    st.gold[0] = 20
    st.phase, st.queue, st.qi, st._mask = "recruit", [(0, c)], 0, None
    st.rng = ScriptRng([1, 8, 4, 3])
    st.apply(RECRUIT_HERO)
    new = st.heroes[-1]
    assert st.phase == "luck" and st.sea["what"] == "ability" and st.current_player == 0
    assert new["seat"] == 0 and new["abil"] == [] and _legal(st) == {REROLL, KEEP_ROLL}
    before = st.clone()
    with pytest.raises(IllegalActionError):
        st.apply(LUCK_MINE)
    assert st.phase == "luck" and st.sea == before.sea and new["abil"] == []
    st.apply(REROLL)
    assert new["abil"] == [("luck", 2)] and a["luck_turn"] == st.turn
    assert st.phase == "recruit" and st.gold[0] == 10


def test_luck_ability_rolls_from_xp_in_recovery():
    """HEROES (an ability per 2 XP, recovery) / Luck: each roll of each new ability is offered in
    turn; keeping leaves Luck for a later roll (the second ability's table roll 9 -> 3
    defense); the troop type after the reroll is not offered (Luck used)."""
    g, st = setup_state(2)
    a = st.heroes[0]
    a["abil"], st.heroes[1]["abil"] = list(LUCKY), []
    a["xp"] = 4
    _last_turn(st)
    st.rng = ScriptRng([2, 1, 9, 3, 5])
    assert st._recovery() and st.sea["what"] == "ability" and st.sea["value"] == 2
    st.apply(KEEP_ROLL)  # the first table roll: command
    assert st.sea["what"] == "ability" and st.sea["dice"] == (1, 5)
    st.apply(KEEP_ROLL)  # its troop type 1
    assert st.sea["value"] == 9 and a["abil"] == LUCKY and a["xp"] == 4
    st.apply(REROLL)
    assert a["abil"] == LUCKY + [("command", 0), ("defense", 4)] and a["xp"] == 0
    assert st.phase == "over"  # recovery went on to its end (the last turn)


def test_luck_summon_avatar_ability_roll():
    """REALM SPELLS Summon Avatar (a new Hero with one Ability roll) / Luck: the caster's player
    may have the Avatar's Ability roll made again."""
    g, st, a, b, d, cell = realm_ready("summon_avatar")
    a["abil"], b["alive"], a["cell"] = list(LUCKY), False, cell
    st.rng = ScriptRng([5, 8, 4, 2])
    SP.cast_realm(st, 0, 0, R["summon_avatar"], None)
    assert st.phase == "luck" and st.sea["what"] == "ability" and st.heroes[-1]["abil"] == []
    LUCK.apply(st, REROLL)
    assert st.heroes[-1]["abil"] == [("luck", 1)] and st.phase != "luck"


# -- treasure: a magic ability item ----------------------------------------------------------
def test_luck_treasure_magic_ability_item_rolls():
    """TREASURE TABLE 8-9 (a magic item: an Ability) / Luck: after keeping the treasure roll the
    finder's player may have the item's Ability roll made again (3 defense -> 9: Rare, 7
    healing; troop type 2)."""
    g, st = setup_state(2)
    a = st.heroes[0]
    a["abil"] = list(LUCKY)
    _last_turn(st)
    st.pending_treasure = [(0, 1)]
    st.rng = ScriptRng([8, 3, 9, 7, 2])
    assert st._recovery() and st.sea["what"] == "treasure" and st.sea["value"] == 8
    st.apply(KEEP_ROLL)
    assert st.phase == "luck" and st.sea["value"] == 3 and not a.get("items")
    st.apply(REROLL)
    assert a["abil"] == LUCKY + [("healing", 1)]
    assert a["items"] == [{"kind": "ability", "k": ("healing", 1), "used": -1}]
    assert st.phase == "over"


def test_luck_research_treasure_item_rolls():
    """REALM SPELLS Research (1D5+5 on the Treasure table) / Luck: after the research die (3:
    treasure 8, an ability item) the caster's player may reroll the item's Ability roll."""
    g, st, a, b, d, cell = realm_ready("research")
    a["abil"] = list(LUCKY)
    st.rng = ScriptRng([3, 2, 9, 7, 4])
    SP.cast_realm(st, 0, 0, R["research"], None)
    assert st.phase == "luck" and st.sea["what"] == "realm"
    LUCK.apply(st, KEEP_ROLL)
    assert st.phase == "luck" and st.sea["what"] == "treasure" and st.sea["value"] == 2
    LUCK.apply(st, REROLL)
    assert a["abil"][-1] == ("healing", 3) and a["items"][-1]["k"] == ("healing", 3)
    assert st.phase != "luck"


# -- the merchant caravan ---------------------------------------------------------------------
@pytest.mark.parametrize("choice,gold", [(REROLL, 7), (KEEP_ROLL, 2)])
def test_luck_merchant_caravan_gold(choice, gold):
    """TERRAIN VARIANTS Merchant caravan (gold dice to the first Hero entering) / Luck: the
    entering Hero's player may have the gold roll made again."""
    g, st, h = sea_world()
    h["abil"] = list(LUCKY)
    m = int(next(x for x in st.nb[h["cell"]] if x >= 0 and st.land[x]))
    st.variant[m] = "merchant_caravan"
    st.rng = ScriptRng([2, 7])
    before = int(st.gold[0])
    st.apply(dir_to(st, h["cell"], m))
    assert st.phase == "luck" and st.sea["what"] == "caravan" and st.sea["value"] == 2
    assert h["cell"] == m and st.gold[0] == before and st.variant[m] == ""
    st.apply(choice)
    assert st.gold[0] == before + gold and st.phase == "move"
