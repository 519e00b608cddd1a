"""Scenario tests: RARE ABILITY Luck ("cause one target die roll per turn to be rerolled") on the
exploration, encounter, treasure, Healing, Undead, storm, initiative, battle attack and
wall-break dice (envs/warbah/luck.py chains and windows, hexes.py, turn.py, battle_flow.py,
battle_luck.py, sea.py).
Each offer is a sub-step (phase ``luck``); keeping a roll does not use Luck up."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import IllegalActionError
from tabletop_arena.envs.warbah import battle_flow, heroes, turn
from tabletop_arena.envs.warbah.actions import CALL_OFF, CONTINUE, KEEP_ROLL, LUCK_FOE, LUCK_MINE, REROLL
from tabletop_arena.envs.warbah.tables import SETTLEMENTS, SPECIALS, TERRAINS
from tests.warbah.test_espionage import ScriptRng
from tests.warbah.test_rules import _battle_state, setup_state
from tests.warbah.test_sea import _at_sea, dir_to, sea_world

LUCKY = [("luck", 0)]


def _legal(st) -> set:
    return set(np.flatnonzero(st.legal_actions_mask()).tolist())


def _explore_world(rolls):
    g, st, h = sea_world()
    h.abilities = list(LUCKY)
    m = int(next(x for x in st.neighbours[h.cell] if x >= 0 and st.land[x]))
    st.explored[m], st.terrain[m] = False, -1
    st.rng = ScriptRng(rolls)
    return g, st, h, m


def test_luck_move_explore_terrain_roll_rerolled():
    """MOVE & EXPLORE / HEX TERRAIN TYPE TABLE: the explorer's player may have the terrain roll
    made again; the hex is revealed only once its rolls are settled."""
    g, st, h, m = _explore_world([1, 3, 2])  # clear, rerolled: settlement; village (2)
    st.apply(dir_to(st, h.cell, m))
    assert st.phase == "luck" and st.current_player == 0 and _legal(st) == {REROLL, KEEP_ROLL}
    assert not st.explored[m] and h.mp == 2
    before = st.clone()
    with pytest.raises(IllegalActionError):
        st.apply(LUCK_MINE)
    assert st.phase == "luck" and st.luck == before.luck and not st.explored[m]
    st.apply(REROLL)
    assert st.explored[m] and TERRAINS[st.terrain[m]] == "settlement"
    assert SETTLEMENTS[st.settle[m]] == "village" and h.luck_used_turn == st.turn
    assert st.phase == "move"  # Luck used up: the settlement roll was not offered


def test_luck_move_explore_encounter_chit_after_keeping():
    """MOVE & EXPLORE (encounter chit on 1-3) / Luck: keeping the terrain and variant rolls
    leaves Luck unused, so the encounter chit roll can still be rerolled."""
    g, st, h, m = _explore_world([1, 7, 2, 9])  # clear, variant 7 (none), chit 2 -> 9
    st.apply(dir_to(st, h.cell, m))
    st.apply(KEEP_ROLL)  # terrain
    assert st.phase == "luck" and st.luck.what == "explore"
    st.apply(KEEP_ROLL)  # variant
    assert st.phase == "luck" and h.luck_used_turn != st.turn
    st.apply(REROLL)  # encounter chit: 2 would place one
    assert TERRAINS[st.terrain[m]] == "clear" and st.encounter[m] == 0 and st.variant[m] == ""


def _lucky_hero_next_to_an_encounter():
    """A lucky Hero with 10 warriors in the battle phase, next to an explored encounter hex
    whose type is not rolled yet."""
    g, st = setup_state(2)
    a = st.heroes[0]
    a.troops[:] = [10, 0, 0, 0]
    a.abilities = list(LUCKY)
    cell = int(next(x for x in st.neighbours[a.cell] if x >= 0 and st.land[x] and heroes.hero_at(st, x) < 0))
    st.explored[cell], st.terrain[cell], st.encounter[cell] = True, 0, -1
    st.phase, st.queue, st.queue_pos = "battle", [(0, 0)], 0
    return st, cell


def test_luck_encounter_table_type_rerolled():
    """ENCOUNTER TABLE: the attacker may have the encounter type roll made again (4 Disease
    -> 5 Undead guardians); the battle then starts with the new type."""
    st, cell = _lucky_hero_next_to_an_encounter()
    st.rng = ScriptRng([4, 5, 10])  # Disease, rerolled: Undead guardians (1D10 = 10 warriors)
    battle_flow.start_battle(st, 0, cell)
    assert st.phase == "luck" and st.luck.what == "encounter" and st.battle is None
    st.apply(REROLL)
    assert st.phase == "call_off" and st.encounter[cell] == 5
    assert st.battle.kind == "encounter" and st.battle.sides[1].counts[0] > 0


def test_luck_encounter_disease_loss_rerolled():
    """ENCOUNTER TABLE 4 Disease (1D10 troops lost): the loss roll may be rerolled."""
    st, cell = _lucky_hero_next_to_an_encounter()
    st.rng = ScriptRng([4, 9, 2])
    battle_flow.start_battle(st, 0, cell)
    st.apply(KEEP_ROLL)  # the type: Disease
    assert st.phase == "luck" and st.luck.value == 9
    st.apply(REROLL)
    assert st.heroes[0].troops[0] == 8 and st.encounter[cell] == 0 and st.battle is None


def _last_turn(st):
    st.turn = st.game.turn_cap  # recovery then ends the game (no new turn)
    st.phase, st.queue, st.queue_pos = "battle", [], 0


def test_luck_recovery_treasure_roll_rerolled():
    """RECOVERY / TREASURE TABLE: the finder's player may reroll the treasure roll (7 Wandering
    Mage -> 1: 2D10 gold)."""
    g, st = setup_state(2)
    a = st.heroes[0]
    a.abilities = list(LUCKY)
    _last_turn(st)
    st.pending_treasure = [(0, 1)]
    st.rng = ScriptRng([7, 1, 5, 5])
    gold = int(st.gold[0])
    assert turn.recovery(st) is True and st.phase == "luck" and st.luck.what == "treasure"
    st.apply(REROLL)
    assert st.gold[0] == gold + 10 and not a.wizard and st.phase == "over"


def test_luck_recovery_healing_and_undead_rerolled():
    """RECOVERY: Healing (1D10 lost troops back) and SPECIAL UNIT TYPES Undead (1D10
    regenerate): the owner may reroll one of them (Luck once per turn)."""
    g, st = setup_state(2)
    a = st.heroes[0]
    a.abilities = list(LUCKY) + [("healing", 0)]
    a.troops[:] = [1, 0, 0, 0]
    a.troops_lost = 6
    a.specials[SPECIALS.index("undead")] = 2
    _last_turn(st)
    st.rng = ScriptRng([1, 5, 2])  # Healing 1 -> 5; Undead 2 (not offered: Luck used)
    assert turn.recovery(st) and st.luck.what == "heal"
    st.apply(REROLL)
    assert a.troops[0] == 6 and a.specials[SPECIALS.index("undead")] == 4
    g, st = setup_state(2)
    a = st.heroes[0]
    a.abilities = list(LUCKY)
    a.specials[SPECIALS.index("undead")] = 2
    _last_turn(st)
    st.rng = ScriptRng([1, 7])
    assert turn.recovery(st) and st.luck.what == "undead"
    st.apply(REROLL)
    assert a.specials[SPECIALS.index("undead")] == 9


@pytest.mark.parametrize("choice,ships", [(REROLL, 2), (KEEP_ROLL, 1)])
def test_luck_sea_encounter_storm_sinking_roll(choice, ships):
    """SEA ENCOUNTER TABLE 2 Storm (a ship sinks on 1-5): after keeping the encounter roll, the
    sailor's player may have the sinking roll made again."""
    g, st, h, nxt = _at_sea([2, 3, 8], troops=(2, 2, 0, 0), ships=2, abil=LUCKY)
    st.apply(dir_to(st, h.cell, nxt))
    st.apply(KEEP_ROLL)  # the encounter roll (sea.py): a storm
    assert st.phase == "luck" and st.luck.what == "storm" and st.luck.value == 3
    st.apply(choice)
    assert st.fleets.ships[nxt] == ships


@pytest.mark.parametrize("choice,order", [(REROLL, [0, 1]), (KEEP_ROLL, [1, 0])])
def test_luck_initiative_opponents_roll(choice, order):
    """INITIATIVE PHASE / Luck: a player may have an opponent's initiative die rolled again
    (after deciding on its own)."""
    g, st = setup_state()
    for h in st.heroes:
        h.abilities = []
    st.heroes[0].abilities = list(LUCKY)
    st.rng = ScriptRng([2, 9, 1])  # seat 0 rolls 2, seat 1 rolls 9; a reroll gives 1
    turn.start_turn(st)
    assert st.phase == "luck" and st.current_player == 0 and st.luck.roller == 0
    st.apply(KEEP_ROLL)
    assert st.phase == "luck" and st.current_player == 0 and st.luck.roller == 1
    st.apply(choice)
    assert st.order == order


def _duel(rolls, a_luck=True, b_luck=False, walls=False):
    g, st, a, b, cell = _battle_state([2, 0, 0, 0], [2, 0, 0, 0])
    a.abilities = list(LUCKY) if a_luck else []
    b.abilities = list(LUCKY) if b_luck else []
    if walls:
        st.terrain[cell] = TERRAINS.index("forest")  # 1 wall rank
    st.rng = ScriptRng(rolls)
    return g, st, a, b, cell


@pytest.mark.parametrize("choice,left", [(LUCK_MINE, (1, 1)), (LUCK_FOE, (2, 2)),
                                         (KEEP_ROLL, (1, 2))])
def test_luck_battle_round_sequence_segment_window(choice, left):
    """BATTLE ROUND SEQUENCE / Luck (designed window): after a segment's attack dice the Luck
    holder may reroll one of its side's misses (the highest Kill rank: the Hero's) or one of
    the foe's hits (the lowest Kill rank), once per turn."""
    # initiative 1 segment: my warriors 9 9, my Hero 9 (all miss); foe warriors 1 9, Hero 9
    g, st, a, b, cell = _duel([9, 9, 9, 1, 9, 9, 2 if choice == LUCK_MINE else 8])
    battle_flow.start_battle(st, 0, cell)
    assert st.phase == "luck" and st.luck.what == "battle_dice" and st.current_player == 0
    assert _legal(st) == {LUCK_MINE, LUCK_FOE, KEEP_ROLL}
    with pytest.raises(IllegalActionError):
        st.apply(REROLL)
    st.apply(choice)
    assert st.phase == "call_off"
    assert (int(a.troops[0] if st.battle is None else st.battle.sides[0].counts[0]),
            int(st.battle.sides[1].counts[0])) == left
    assert (a.luck_used_turn == st.turn) == (choice != KEEP_ROLL)
    for _ in range(3):  # later segments / rounds: offered again only while Luck is unused
        st.apply(CONTINUE)
        while st.phase == "luck":
            assert choice == KEEP_ROLL
            st.apply(KEEP_ROLL)
        if st.phase != "call_off":
            break
    if st.phase == "call_off":
        st.apply(CALL_OFF)


def test_luck_battle_window_only_when_it_matters():
    """BATTLE / Luck: no window when no die of the segment can change (every die hit for me
    and the foe rolled none that hit)."""
    g, st, a, b, cell = _duel([1, 1, 1, 9, 9, 9])
    b.troops[:] = [2, 0, 0, 0]
    battle_flow.start_battle(st, 0, cell)
    assert st.phase != "luck" and a.luck_used_turn != st.turn


@pytest.mark.parametrize("choice,damage", [(REROLL, 0), (KEEP_ROLL, 1)])
def test_luck_battle_walls_break_roll(choice, damage):
    """BATTLE, walls (a rank that negates a kill breaks on 1-3) / Luck: the wall's owner may
    have a break rolled again; keeping the attack-dice window left his Luck unused."""
    # my warriors 1 1 (two hits), my Hero 9; the foe's warrior 9, his Hero 9; the wall breaks
    # on 2 (the second kill goes through and takes the foe's warrior); a reroll gives 9
    g, st, a, b, cell = _duel([1, 1, 9, 9, 9, 2, 9], a_luck=False, b_luck=True, walls=True)
    b.troops[:] = [1, 0, 0, 0]
    battle_flow.start_battle(st, 0, cell)
    assert st.phase == "luck" and st.luck.what == "battle_dice" and st.current_player == 1
    st.apply(KEEP_ROLL)
    assert st.phase == "luck" and st.luck.what == "wall_dice" and _legal(st) == {REROLL,
                                                                                   KEEP_ROLL}
    assert st.battle.sides[1].wall_damage == 1
    st.apply(choice)
    assert st.phase == "call_off" and st.battle.sides[1].counts[:5].tolist() == [0] * 4 + [1]
    assert st.battle.sides[1].wall_damage == damage
    assert st.battle.sides[1].walls_left == 1 - damage  # the next round's wall ranks
