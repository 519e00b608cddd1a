"""Scenario tests: RARE ABILITY Luck ("cause one target die roll per turn to be rerolled") on the
dice it did not reach before: ability rolls (recruited Hero, XP in recovery, Summon Avatar) and
their troop type, a treasure's magic ability item (also through Research), the merchant
caravan's gold, ships' dice and a sea monster's die in battle, the dice of the designer's mass
formula, and an enemy's espionage roll and Espionage table roll (offered to its possible
victims). Set-ups and helpers come from the older Luck tests."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import IllegalActionError
from tabletop_arena.envs.warbah import battle, battle_flow, espionage, heroes, luck, make_game, realm_spells, turn
from tabletop_arena.envs.warbah.actions import HIRE_AGENT, KEEP_ROLL, LUCK_FOE, LUCK_MINE, RECRUIT_HERO, REROLL
from tabletop_arena.envs.warbah.state import Army, ArmyMagic, Item
from tests.warbah.test_battle_mass import Dice
from tests.warbah.test_espionage import ScriptRng, contact_state
from tests.warbah.test_luck_rolls import LUCKY, _last_turn, _legal
from tests.warbah.test_realm_spells import R, realm_ready
from tests.warbah.test_rules import _battle_state, setup_state
from tests.warbah.test_sea import _at_sea, dir_to, sea_world


# -- ability rolls -----------------------------------------------------------------------------
def test_luck_ability_roll_of_a_recruited_hero():
    """RECRUIT TROOPS (a Hero) / HEROES, ABILITY TABLE: the recruiting player's Luck (another
    Hero of his) may have the new Hero's Ability roll made again (1 wizardry -> 8: the Rare
    Ability table, 4 luck; troop type 1D5 = 3); the ability is written once all are rolled."""
    g, st = setup_state(2)
    a = st.heroes[0]
    a.abilities = list(LUCKY)
    c = int(st.capitol[0])
    a.cell = int(next(x for x in st.neighbours[c] if x >= 0 and st.land[x] and heroes.hero_at(st, x) < 0))
    st.gold[0] = 20
    st.phase, st.queue, st.queue_pos, st._mask = "recruit", [(0, c)], 0, None
    st.rng = ScriptRng([1, 8, 4, 3])
    st.apply(RECRUIT_HERO)
    new = st.heroes[-1]
    assert st.phase == "luck" and st.luck.what == "ability" and st.current_player == 0
    assert new.seat == 0 and new.abilities == [] and _legal(st) == {REROLL, KEEP_ROLL}
    before = st.clone()
    with pytest.raises(IllegalActionError):
        st.apply(LUCK_MINE)
    assert st.phase == "luck" and st.luck == before.luck and new.abilities == []
    st.apply(REROLL)
    assert new.abilities == [("luck", 2)] and a.luck_used_turn == st.turn
    assert st.phase == "recruit" and st.gold[0] == 10


def test_luck_ability_rolls_from_xp_in_recovery():
    """HEROES (an ability per 2 XP, recovery) / Luck: each roll of each new ability is offered in
    turn; keeping leaves Luck for a later roll (the second ability's table roll 9 -> 3
    defense); the troop type after the reroll is not offered (Luck used)."""
    g, st = setup_state(2)
    a = st.heroes[0]
    a.abilities, st.heroes[1].abilities = list(LUCKY), []
    a.xp = 4
    _last_turn(st)
    st.rng = ScriptRng([2, 1, 9, 3, 5])
    assert turn.recovery(st) and st.luck.what == "ability" and st.luck.value == 2
    st.apply(KEEP_ROLL)  # the first table roll: command
    assert st.luck.what == "ability" and st.luck.dice == (1, 5)
    st.apply(KEEP_ROLL)  # its troop type 1: catapults (RANDOM TROOP TYPE TABLE)
    assert st.luck.value == 9 and a.abilities == LUCKY and a.xp == 4
    st.apply(REROLL)
    assert a.abilities == LUCKY + [("command", 3), ("defense", 4)] and a.xp == 0
    assert st.phase == "over"  # recovery went on to its end (the last turn)


def test_luck_summon_avatar_ability_roll():
    """REALM SPELLS Summon Avatar (a new Hero with one Ability roll) / Luck: the caster's player
    may have the Avatar's Ability roll made again."""
    g, st, a, b, d, cell = realm_ready("summon_avatar")
    a.abilities, b.alive, a.cell = list(LUCKY), False, cell
    st.rng = ScriptRng([5, 8, 4, 2])
    realm_spells.cast_realm(st, 0, 0, R["summon_avatar"], None)
    assert st.phase == "luck" and st.luck.what == "ability" and st.heroes[-1].abilities == []
    luck.apply(st, REROLL)
    assert st.heroes[-1].abilities == [("luck", 1)] and st.phase != "luck"


# -- treasure: a magic ability item ----------------------------------------------------------
def test_luck_treasure_magic_ability_item_rolls():
    """TREASURE TABLE 8-9 (a magic item: an Ability) / Luck: after keeping the treasure roll the
    finder's player may have the item's Ability roll made again (3 defense -> 9: Rare, 7
    healing; troop type 2)."""
    g, st = setup_state(2)
    a = st.heroes[0]
    a.abilities = list(LUCKY)
    _last_turn(st)
    st.pending_treasure = [(0, 1)]
    st.rng = ScriptRng([8, 3, 9, 7, 2])
    assert turn.recovery(st) and st.luck.what == "treasure" and st.luck.value == 8
    st.apply(KEEP_ROLL)
    assert st.phase == "luck" and st.luck.value == 3 and not a.items
    st.apply(REROLL)
    assert a.abilities == LUCKY + [("healing", 1)]
    assert a.items == [Item("ability", ability=("healing", 1))]
    assert st.phase == "over"


def test_luck_research_treasure_item_rolls():
    """REALM SPELLS Research (1D5+5 on the Treasure table) / Luck: after the research die (3:
    treasure 8, an ability item) the caster's player may reroll the item's Ability roll."""
    g, st, a, b, d, cell = realm_ready("research")
    a.abilities = list(LUCKY)
    st.rng = ScriptRng([3, 2, 9, 7, 4])
    realm_spells.cast_realm(st, 0, 0, R["research"], None)
    assert st.phase == "luck" and st.luck.what == "realm"
    luck.apply(st, KEEP_ROLL)
    assert st.phase == "luck" and st.luck.what == "treasure" and st.luck.value == 2
    luck.apply(st, REROLL)
    # troop type 4: warriors (RANDOM TROOP TYPE TABLE: 1 catapults, 2 archers, 3 cavalry, ...)
    assert a.abilities[-1] == ("healing", 0) and a.items[-1].ability == ("healing", 0)
    assert st.phase != "luck"


# -- the merchant caravan ---------------------------------------------------------------------
@pytest.mark.parametrize("choice,gold", [(REROLL, 7), (KEEP_ROLL, 2)])
def test_luck_merchant_caravan_gold(choice, gold):
    """TERRAIN VARIANTS Merchant caravan (gold dice to the first Hero entering) / Luck: the
    entering Hero's player may have the gold roll made again."""
    g, st, h = sea_world()
    h.abilities = list(LUCKY)
    m = int(next(x for x in st.neighbours[h.cell] if x >= 0 and st.land[x]))
    st.variant[m] = "merchant_caravan"
    st.rng = ScriptRng([2, 7])
    before = int(st.gold[0])
    st.apply(dir_to(st, h.cell, m))
    assert st.phase == "luck" and st.luck.what == "caravan" and st.luck.value == 2
    assert h.cell == m and st.gold[0] == before and st.variant[m] == ""
    st.apply(choice)
    assert st.gold[0] == before + gold and st.phase == "move"


@pytest.mark.parametrize("choice,gold", [(REROLL, 7), (KEEP_ROLL, 2)])
def test_luck_merchant_caravan_gold_on_a_pass_through(choice, gold):
    """TERRAIN VARIANTS Merchant caravan / MOVE & EXPLORE pass-through (designed: two hexes
    straight on through a friendly Hero): a Hero who lands on the caravan's hex by passing
    through gets its gold dice too, and his player's Luck may have them rolled again."""
    from tabletop_arena.envs.warbah.actions import PASS0
    from tests.warbah.test_units import pass_through_setup
    g, st, a, b, d, beyond = pass_through_setup()
    st.variant[beyond] = "merchant_caravan"
    a.abilities = list(LUCKY)
    st.rng = ScriptRng([2, 7])
    before = int(st.gold[0])
    assert st.legal_actions_mask()[PASS0 + d]
    st.apply(PASS0 + d)
    assert a.cell == beyond and st.variant[beyond] == ""
    assert st.phase == "luck" and st.luck.what == "caravan" and st.luck.value == 2
    assert st.current_player == 0 and _legal(st) == {REROLL, KEEP_ROLL}
    assert st.gold[0] == before
    st.apply(choice)
    assert st.gold[0] == before + gold and st.phase == "move"


# -- battle: ships' dice and the designer's mass formula --------------------------------------
@pytest.mark.parametrize("choice,ships", [(LUCK_MINE, (1, 0)), (LUCK_FOE, (2, 1)),
                                          (KEEP_ROLL, (1, 1))])
def test_luck_battle_ships_dice(choice, ships):
    """BATTLE at sea (ships Init 2, Kill 3, attack ships first) / Luck window: my two ships
    miss (9, 9), the foe's ship hits (1) and sinks one of mine; LUCK_MINE rerolls one of my
    misses (1: his ship sinks), LUCK_FOE his hit (9: my ship is back)."""
    g, st, h, nxt = _at_sea([10], troops=(3, 0, 0, 0), ships=2)
    h.abilities = list(LUCKY)
    o = st.heroes[1]
    o.alive, o.cell, o.troops[:], o.abilities = True, nxt, [3, 0, 0, 0], []
    st.fleets.ships[nxt], st.fleets.owner[nxt] = 1, 1
    st.phase, st.queue, st.queue_pos, h.attacks_left, st._mask = "battle", [(0, 0)], 0, 1, None
    x = 1 if choice == LUCK_MINE else 9
    st.rng = ScriptRng([9, 9, 1] + ([x] if choice != KEEP_ROLL else []) + [9] * 8)
    st.apply(dir_to(st, h.cell, nxt))
    assert st.phase == "luck" and st.luck.what == "battle_dice" and st.current_player == 0
    assert _legal(st) == {LUCK_MINE, LUCK_FOE, KEEP_ROLL}
    assert [s.ships for s in st.battle.sides] == [1, 1]
    st.apply(choice)
    if choice == KEEP_ROLL:  # Luck unused: the troops' segment opens a window again
        assert st.phase == "luck"
        st.apply(KEEP_ROLL)
    assert st.phase == "call_off"
    assert tuple(s.ships for s in st.battle.sides) == ships


def test_luck_battle_sea_monster_die_on_ships():
    """SEA ENCOUNTER TABLE 1 Sea Monster (Init 2, Kill 2, attacks ships) / Luck window: the
    monster's die that sank a ship may be rolled again by the ship owner (8, a miss: the ship
    is back)."""
    g, st, h, nxt = _at_sea([10], troops=(3, 0, 0, 0), ships=2)
    h.abilities = list(LUCKY)
    st.rng = ScriptRng([1, 1, 9, 9, 8])  # the monster; its die 1 (a hit); my ships 9 9; 8
    st.apply(dir_to(st, h.cell, nxt))
    assert st.phase == "luck" and st.luck.what == "sea" and st.luck.roll == 1
    st.apply(KEEP_ROLL)  # the sea encounter roll (sea.py)
    assert st.phase == "luck" and st.luck.what == "battle_dice"
    assert _legal(st) == {LUCK_MINE, LUCK_FOE, KEEP_ROLL}
    mine = st.battle.sides[0]
    assert mine.ships == 1
    st.apply(LUCK_FOE)
    assert mine.ships == 2 and h.luck_used_turn == st.turn


@pytest.mark.parametrize("choice,left", [(LUCK_MINE, (0, 2)), (LUCK_FOE, (7, 9)),
                                         (KEEP_ROLL, (0, 9))])
def test_luck_battle_mass_formula_group_die(choice, left, monkeypatch):
    """GAME DESIGNERS NOTES formula (option ``mass_formula``) / Luck window: one die per group;
    LUCK_MINE rolls my group with the best expected gain again (the warriors' 1 -> 8: 8
    kills), LUCK_FOE the foe's group with the most to lose (his warriors' 10 -> 3)."""
    g, st, a, b, cell = _battle_state([10, 0, 0, 0], [10, 0, 0, 0])
    monkeypatch.setitem(st.game.cfg, "mass_formula", True)
    monkeypatch.setattr(st.game, "mass_formula", True)  # the game reads its rules when built
    a.abilities = list(LUCKY)
    x = 8 if choice == LUCK_MINE else 3
    st.rng = ScriptRng([1, 1, 10, 1] + ([x] if choice != KEEP_ROLL else []))
    battle_flow.start_battle(st, 0, cell)
    assert st.phase == "luck" and st.luck.what == "battle_dice"
    assert _legal(st) == {LUCK_MINE, LUCK_FOE, KEEP_ROLL}
    st.apply(choice)
    assert st.phase == "call_off"
    assert tuple(int(s.counts[0]) for s in st.battle.sides) == left


def test_luck_mass_formula_blessed_group_is_one_roll():
    """GAME DESIGNERS NOTES formula with BATTLE SPELLS Blessing (the misses rolled again as one
    group) / Luck: the group's two dice are noted as one roll and made again together."""
    g = make_game(rules={"mass_formula": True})
    mg = ArmyMagic(False, [], [], auto_hit=[False] * 19, blessed=True, ranged_shield=0, blocked=[False] * 19, neutral=[0] * 19)
    side = Army(counts=np.array([10, 0, 0, 0, 0]), monster=None, init_mod=[0] * 5, kill_mod=[0] * 5, magic=mg, dice=[])
    assert battle.attacks(g, side, battle.segment_of(1), Dice([1, 1])) == 1 + 1  # 1, then 9 misses: 1
    assert side.dice == [[5, 10, 2, battle.MASS | battle.BLESSED]]
    assert battle.mass_again(Dice([1, 10]), 10, 5, True) == 1 + 9  # both dice made again
    assert battle.mass_mean(10, 5, True) > battle.mass_mean(10, 5) == 5.5


# -- espionage: the enemy's rolls, offered to the players they may hit --------------------------
@pytest.mark.parametrize("spy_lucky", [False, True])
def test_luck_enemy_espionage_roll_victims_luck(spy_lucky):
    """ESPIONAGE PHASE (X = 1D10 + Intrigue agents at most) / Luck (designed reading: the roll
    is aimed at every player the spy may spy on): after the spy's own choice, the player in
    contact may have the spy's roll made again (8 -> 2)."""
    g, st, a, b = contact_state()
    a.abilities, b.abilities = (list(LUCKY) if spy_lucky else []), list(LUCKY)
    st.gold[0], st.order, st.espionage.turn = 20, [0, 1], 0
    st.rng = ScriptRng([8, 2] + [1] * 20)
    assert espionage.begin(st) and espionage.advance(st)
    if spy_lucky:  # the roller's player first
        assert st.phase == "luck" and st.current_player == 0 and st.luck.what == "esp_roll"
        st._mask = None
        st.apply(KEEP_ROLL)
    assert st.phase == "luck" and st.current_player == 1 and st.luck.what == "esp_roll"
    assert st.luck.roller == 0 and st.espionage.mission.roll == 8
    st._mask = None
    assert _legal(st) == {REROLL, KEEP_ROLL}
    st.apply(REROLL)
    assert st.phase == "espionage" and st.espionage.mission.roll == 2 and b.luck_used_turn == st.turn
    assert a.luck_used_turn != st.turn


def test_luck_enemy_espionage_table_roll_victims_luck():
    """ESPIONAGE TABLE (9-10: Agent Success) / Luck: the player in contact may have an enemy
    agent's roll made again (9 -> 2: a failure); a failure is not offered (it cannot hurt)."""
    g, st, a, b = contact_state()
    b.abilities = list(LUCKY)
    st.gold[0], st.order, st.espionage.turn = 20, [0, 1], 0
    st.rng = ScriptRng([2, 9, 2] + [1] * 20)  # X = 2; agent 1 rolls 9 (-> 2); agent 2 rolls 1
    espionage.begin(st)
    espionage.advance(st)
    st._mask = None
    st.apply(KEEP_ROLL)  # the espionage roll
    st.apply(HIRE_AGENT)
    st.apply(HIRE_AGENT)
    assert st.phase == "luck" and st.luck.what == "esp_table" and st.current_player == 1
    assert st.luck.value == 9
    st.apply(REROLL)
    assert [x[2] for x in st.espionage.log if x[1] == 0] == ["roll", "fail", "fail"]
    assert b.luck_used_turn == st.turn
