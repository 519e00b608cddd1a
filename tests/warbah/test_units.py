"""Scenario tests for Warbah troop exchanges, garrisons and special units."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tabletop_arena.envs.warbah import battle, espionage, heroes, hexes, magic, make_game, realm_spells, recruit, turn
from tabletop_arena.envs.warbah.actions import CAPITOL_AUTO, DROP_ONE0, GIVE0, TAKE_ONE0
from tabletop_arena.envs.warbah.state import Army, Item
from tabletop_arena.envs.warbah.tables import SETTLEMENTS, SPECIALS, TERRAINS


def two_heroes(seed=0):
    """Seat 0 has two adjacent Heroes on explored clear land; hero 0 is to move."""
    g = make_game(num_players=2)
    st = g.new_initial_state(np.random.default_rng(seed))
    for _ in range(2):
        st.apply(CAPITOL_AUTO)
    a = st.heroes[0]
    cell = int(next(x for x in st.neighbours[a.cell] if x >= 0 and st.land[x]
                    and heroes.hero_at(st, x) < 0))
    st.explored[cell], st.terrain[cell], st.settle[cell] = True, TERRAINS.index("clear"), -1
    st.encounter[cell] = 0
    b = replace(a.clone(), troops=np.array([1, 1, 1, 1]), abilities=[], cell=cell, id=2)
    st.heroes.append(b)
    a.abilities = []
    a.troops[:] = [5, 5, 5, 5]
    a.mp, a.scout_moves = 3, 0
    b.mp, b.scout_moves = 3, 0
    st.phase, st.queue, st.queue_pos, st.to_act, st._mask = "move", [(0, 0), (0, 2)], 0, 0, None
    d = [int(x) for x in st.neighbours[a.cell]].index(cell)
    return g, st, a, b, d


def test_exchange_chosen_troops_instead_of_moving():
    """MOVE & EXPLORE: adjacent friendly Heroes exchange troops (which and how many) instead of
    moving; a troop may be exchanged only once per turn."""
    g, st, a, b, d = two_heroes()
    mask = st.legal_actions_mask()
    assert all(mask[GIVE0 + 4 * d + t] for t in range(4))
    st.apply(GIVE0 + 4 * d + 1)  # one archer
    st.apply(GIVE0 + 4 * d + 1)  # and another
    assert a.troops.tolist() == [5, 3, 5, 5] and b.troops.tolist() == [1, 3, 1, 1]
    mask = st.legal_actions_mask()
    assert not mask[:6].any()  # instead of moving: no more movement this turn
    st.apply(6)  # done: now hero 2 (b) acts
    assert st.queue[st.queue_pos] == (0, 2)
    back = [int(x) for x in st.neighbours[b.cell]].index(a.cell)
    mask = st.legal_actions_mask()
    assert mask[GIVE0 + 4 * back + 0]  # its own warrior may go
    b.troops[:] = [0, 2, 0, 0]  # only the two archers it received
    st._mask = None
    assert not st.legal_actions_mask()[GIVE0 + 4 * back + 1]  # exchanged once already


def test_no_exchange_after_moving():
    """MOVE & EXPLORE: the exchange replaces the move, so a Hero that moved cannot exchange."""
    g, st, a, b, d = two_heroes()
    a.mp, a.moved_turn = 2, st.turn  # he has stepped one hex this turn
    st._mask = None
    assert not st.legal_actions_mask()[GIVE0:GIVE0 + 24].any()


def test_pick_up_and_drop_garrison_troops_one_by_one():
    """MOVE & EXPLORE: a Hero in a friendly settlement adds garrison troops to his army, and
    drops troops of the settlement's type into it, choosing how many."""
    g, st, a, b, d = two_heroes()
    c = a.cell
    st.garrison[c] = [2, 0, 0, 0]
    st._mask = None
    mask = st.legal_actions_mask()
    assert mask[TAKE_ONE0] and not mask[TAKE_ONE0 + 1]
    st.apply(TAKE_ONE0)
    assert st.garrison[c, 0] == 1 and a.troops[0] == 6
    # the capitol recruits warriors: only warriors may be dropped there (in a later turn: one
    # direction per turn and hex, see test_move_garrison_transfers_go_one_way_per_turn)
    assert SETTLEMENTS[st.settle[c]] == "capitol"
    assert not st.legal_actions_mask()[DROP_ONE0]
    st.turn += 1
    st._mask = None
    mask = st.legal_actions_mask()
    assert mask[DROP_ONE0] and not mask[DROP_ONE0 + 1:DROP_ONE0 + 4].any()
    st.apply(DROP_ONE0)
    st.apply(DROP_ONE0)
    assert st.garrison[c, 0] == 3 and a.troops[0] == 4


def test_garrison_pickup_respects_army_cap():
    """RECRUIT TROOPS: a Hero has at most 40 troops (Command +10), garrison pick-ups included."""
    g, st, a, b, d = two_heroes()
    a.troops[:] = [10, 10, 10, 10]
    st.garrison[a.cell] = [3, 0, 0, 0]
    st._mask = None
    assert not st.legal_actions_mask()[TAKE_ONE0]
    a.abilities = [("command", 0)]
    st._mask = None
    assert st.legal_actions_mask()[TAKE_ONE0]


# -- special units -------------------------------------------------------------------------------
from tabletop_arena.envs.warbah.actions import CASUALTY0, CONTINUE, LOSS_SP0, RECRUIT_SP
from tabletop_arena.envs.warbah.battle_flow import start_battle  # noqa: E402


def variant_hex(variant="recruit_elves", terrain="forest"):
    g, st, a, b, d = two_heroes()
    c = b.cell
    st.heroes.pop()  # hero b not needed
    st.terrain[c], st.variant[c], st.owner[c] = TERRAINS.index(terrain), variant, 0
    a.cell = c
    return g, st, a, c


def test_recruit_special_unit_at_variant_hex():
    """FOREST VARIANT TYPES 1 / SPECIAL UNIT TYPES: a controlled 'Recruit Elves' hex recruits
    Elves (2 gold) into the Hero standing there (designed), at most 5 a turn."""
    g, st, a, c = variant_hex()
    assert c in recruit.recruit_hexes(st, 0)
    st.phase, st.queue, st.queue_pos, st._mask = "recruit", [(0, c)], 0, None
    st.gold[0] = 20
    mask = st.legal_actions_mask()
    assert mask[RECRUIT_SP] and not mask[7]  # no basic recruit on a non-settlement hex
    for _ in range(5):
        st.apply(RECRUIT_SP)
        if st.phase != "recruit":
            break
    assert a.specials[SPECIALS.index("elves")] == 5 and st.gold[0] == 10


def test_special_unit_costs_and_stats_from_the_table():
    """SPECIAL UNIT TYPES: cost / init / kill per unit (Kobolds' blank cost designed as 1)."""
    g, st, a, c = variant_hex()
    tab = g.cfg["special_units"]
    assert (tab["djinn"]["cost"], tab["djinn"]["init"], tab["djinn"]["kill"]) == (3, 2, 8)
    assert (tab["knights"]["cost"], tab["knights"]["init"], tab["knights"]["kill"]) == (2, 2, 6)
    assert tab["kobolds"]["cost"] == 1 and len(SPECIALS) == 13
    side = Army(counts=np.zeros(18, np.int64))
    side.counts[5 + SPECIALS.index("djinn")] = 1000
    st.rng = np.random.default_rng(0)
    assert 700 < battle.special_attacks_d10(st, side, battle.segment_of(2)) < 900  # kill 8 in 10
    assert battle.special_attacks_d10(st, side, battle.segment_of(1)) == 0


def test_special_units_grant_abilities():
    """SPECIAL UNIT NOTES: one or more of a kind present gives the Hero its ability."""
    g, st, a, c = variant_hex()
    assert heroes.ability(st, a, "defense") == 0
    a.specials[SPECIALS.index("dwarves")] = 1
    a.specials[SPECIALS.index("fey")] = 3
    assert heroes.ability(st, a, "defense") == 1 and heroes.ability(st, a, "wizardry") == 1
    assert heroes.ability(st, a, "scouting") == 1


def test_five_troop_types_and_command():
    """SPECIAL UNIT NOTES: at most 5 troop types per army; each Command level adds one."""
    g, st, a, c = variant_hex()
    a.troops[:] = [1, 1, 1, 1]
    a.specials[SPECIALS.index("orcs")] = 1  # 5 types already
    st.phase, st.queue, st.queue_pos, st._mask = "recruit", [(0, c)], 0, None
    st.gold[0] = 20
    assert not st.legal_actions_mask()[RECRUIT_SP]
    a.abilities = [("command", 0)]
    st._mask = None
    assert st.legal_actions_mask()[RECRUIT_SP]


def test_special_casualties_are_chosen_and_hero_dies_last():
    """BATTLE ROUND SEQUENCE: the owner picks casualties among special groups too; the Hero
    is the last unit killed."""
    g, st, a, c = variant_hex()
    a.troops[:] = [0, 0, 0, 3]
    a.specials[SPECIALS.index("knights")] = 3
    foe = st.heroes[1]
    m = int(next(x for x in st.neighbours[c] if x >= 0 and st.land[x] and heroes.hero_at(st, x) < 0))
    st.explored[m], st.terrain[m], st.settle[m], st.encounter[m] = True, 0, -1, 0
    foe.cell, foe.troops[:], foe.abilities = m, [30, 0, 0, 0], []
    st.phase, st.queue, st.queue_pos = "battle", [(0, 0)], 0
    start_battle(st, 0, m)
    seen = False
    while st.battle is not None:
        if st.phase == "casualty" and st.battle.chooser == 0:
            mask = st.legal_actions_mask()
            if mask[LOSS_SP0 + SPECIALS.index("knights")] and mask[CASUALTY0 + 3]:
                seen = True
                st.apply(LOSS_SP0 + SPECIALS.index("knights"))
                continue
        st.apply(CONTINUE if st.phase == "call_off" else st.legal_actions()[0])
    assert seen
    if not a.alive:
        assert a.specials.sum() == 0 and a.troops.sum() == 0


def test_undead_regenerate_in_recovery():
    """SPECIAL UNIT TYPES, Undead: regenerate 1D10 undead in the recovery phase."""
    g, st, a, c = variant_hex("recruit_undead", "marsh")
    a.specials[SPECIALS.index("undead")] = 2
    a.troops[:] = [0, 0, 0, 0]
    st.order = [0, 1]
    turn.recovery(st)
    assert 3 <= a.specials[SPECIALS.index("undead")] <= 12


def test_castle_variant_knights_or_cavalry():
    """CASTLE VARIANT TYPES: 1-3 Recruit Knights, 4-10 Recruit Cavalry (the castle default), read
    when exploring finds a castle (terrain roll: settlement, settlement roll: castle, then the
    variant roll)."""
    from tests.warbah.test_espionage import ScriptRng
    g, st, a, c = variant_hex()
    assert [hexes.castle_variant(g, r) for r in range(1, 11)] == ["recruit_knights"] * 3 + [""] * 7
    settlement = next(r for r, t in g.terrain_roll.items() if t == "settlement")
    castle = next(r for r, t in g.settle_roll.items() if t == "castle")
    for variant_roll, want in ((2, "recruit_knights"), (7, "")):
        m = next(x for x in range(g.n_cells) if st.land[x] and not st.explored[x])
        st.rng = ScriptRng([settlement, castle, variant_roll])
        hexes.explore(st, m)  # no Hero: no Luck on the rolls
        assert SETTLEMENTS[st.settle[m]] == "castle" and st.variant[m] == want


def test_recovery_marks_recruit_variant_hex():
    """RECOVERY (designed): a Hero ending the turn on a 'Recruit X' hex puts a marker on it."""
    g, st, a, c = variant_hex()
    st.owner[c] = -1
    st.order = [0, 1]
    turn.recovery(st)
    assert st.owner[c] == 0



def test_type_limit_on_pickups_and_exchanges():
    """SPECIAL UNIT NOTES: the 5-type limit also holds for garrison pick-ups and exchanges."""
    g, st, a, b, d = two_heroes()
    a.troops[:] = [1, 0, 1, 1]
    sp = a.specials
    sp[SPECIALS.index("orcs")] = 1
    sp[SPECIALS.index("elves")] = 1  # 5 types
    st.garrison[a.cell] = [1, 1, 0, 0]
    st._mask = None
    mask = st.legal_actions_mask()
    assert mask[TAKE_ONE0] and not mask[TAKE_ONE0 + 1]  # archers would be a sixth type
    b.troops[:] = [0, 1, 0, 0]
    b.specials[SPECIALS.index("orcs")] = 1
    b.specials[SPECIALS.index("elves")] = 1
    b.specials[SPECIALS.index("dwarves")] = 1
    b.specials[SPECIALS.index("gnomes")] = 1  # b has 5 types
    st._mask = None
    mask = st.legal_actions_mask()
    assert not mask[GIVE0 + 4 * d + 0] and not mask[GIVE0 + 4 * d + 2]


def test_exchange_special_units():
    """MOVE & EXPLORE / SPECIAL UNITS: special troops are exchanged one by one like the others."""
    from tabletop_arena.envs.warbah.actions import GIVE_SP0
    g, st, a, b, d = two_heroes()
    k = SPECIALS.index("elves")
    a.specials[k] = 2
    st._mask = None
    assert st.legal_actions_mask()[GIVE_SP0 + 13 * d + k]
    c = st.clone()
    st.apply(GIVE_SP0 + 13 * d + k)
    assert a.specials[k] == 1 and b.specials[k] == 1
    assert c.heroes[0].specials[k] == 2  # clones are independent
    st.apply(6)
    back = [int(x) for x in st.neighbours[b.cell]].index(a.cell)
    assert not st.legal_actions_mask()[GIVE_SP0 + 13 * back + k]  # received this turn


def test_whole_army_actions_respect_type_limit():
    """SPECIAL UNIT NOTES: taking a whole garrison (8) or handing over a whole army (25-30)
    is not offered when it would give a Hero a sixth troop type."""
    from tabletop_arena.envs.warbah.actions import EXCHANGE0, TAKE_GARRISON
    g, st, a, b, d = two_heroes()
    a.troops[:] = [1, 0, 1, 1]
    a.specials[SPECIALS.index("orcs")] = 1
    a.specials[SPECIALS.index("elves")] = 1
    st.garrison[a.cell] = [0, 2, 0, 0]
    st._mask = None
    assert not st.legal_actions_mask()[TAKE_GARRISON]
    b.troops[:] = [0, 1, 0, 0]
    for name in ("dwarves", "gnomes", "fey", "djinn"):
        b.specials[SPECIALS.index(name)] = 1
    st._mask = None
    assert not st.legal_actions_mask()[EXCHANGE0 + d]



def test_delayed_hero_whole_army_actions_respect_type_limit():
    """A Hero delayed by espionage (Agent Success 6: no moving or attacking this turn) may still
    hand his army over or take his garrison, within the same limits (found by a fuzz game, 3p
    mass formula seed 21302: a delayed Hero's hand-over gave the receiver a sixth type)."""
    from tabletop_arena.envs.warbah.actions import EXCHANGE0
    g, st, a, b, d = two_heroes()
    b.troops[:] = [0, 1, 0, 0]
    for name in ("dwarves", "gnomes", "fey", "djinn"):
        b.specials[SPECIALS.index(name)] = 1
    a.delayed_turn = st.turn
    st._mask = None
    m = st.legal_actions_mask()
    assert not m[:6].any() and not m[EXCHANGE0 + d]
    b.specials[SPECIALS.index("djinn")] = 0   # room for one more type: warriors
    a.troops[:] = [5, 5, 0, 0]
    st._mask = None
    assert st.legal_actions_mask()[EXCHANGE0 + d]


def test_command_item_not_handed_over_when_the_giver_would_break_his_limit():
    """A Command item raises its holder's troop-type limit to 6 while he holds it (designed):
    he cannot hand it over while he leads six types (fuzz game, 3p mass formula seed 21524);
    with five he can."""
    from tabletop_arena.envs.warbah.actions import GIVE_ITEM0
    g, st, a, b, d = two_heroes()
    a.items = [Item("ability", ability=("command", 3))]
    a.abilities = [("command", 3)]
    a.troops[:] = [5, 5, 5, 5]
    a.specials[SPECIALS.index("orcs")] = 1
    a.specials[SPECIALS.index("elves")] = 1
    assert heroes.type_count(a) == 6 == heroes.type_limit(st, a)
    st._mask = None
    assert not st.legal_actions_mask()[GIVE_ITEM0 + d]
    a.specials[SPECIALS.index("elves")] = 0
    st._mask = None
    assert st.legal_actions_mask()[GIVE_ITEM0 + d]
    st.apply(GIVE_ITEM0 + d)
    assert heroes.type_limit(st, a) == 5 == heroes.type_count(a) and ("command", 3) in b.abilities

def pass_through_setup():
    """two_heroes with free explored clear land beyond Hero b (seen from Hero a) and no rivers:
    (g, st, a, b, d, beyond)."""
    for seed in range(30):
        g, st, a, b, d = two_heroes(seed)
        beyond = int(st.neighbours[b.cell][d])
        if beyond >= 0 and st.land[beyond] and heroes.hero_at(st, beyond) < 0:
            break
    st.explored[beyond], st.terrain[beyond] = True, TERRAINS.index("clear")
    st.settle[beyond], st.encounter[beyond] = -1, 0
    st.rivers.clear()
    st._mask = None
    return g, st, a, b, d, beyond


def test_pass_through_friendly_hero():
    """MOVE & EXPLORE: Heroes may move through a hex holding another friendly Hero (designed:
    two hexes straight on, paying both hexes' MP; never ending on the friend's hex)."""
    from tabletop_arena.envs.warbah.actions import PASS0
    g, st, a, b, d, beyond = pass_through_setup()
    assert st.legal_actions_mask()[PASS0 + d]
    st.apply(PASS0 + d)
    assert a.cell == beyond and a.mp == 1
    assert not st.legal_actions_mask()[d] or heroes.hero_at(st, int(st.neighbours[beyond][d])) < 0


def test_scouting_looks_at_an_adjacent_heros_card():
    """ABILITY TABLE 7, Scouting: look at one adjacent Hero's index card (uses the scouting
    point instead of exploring; the card stays visible this turn)."""
    from tabletop_arena.envs.warbah.actions import LOOK0
    g, st, a, b, d = two_heroes()
    st.heroes.pop()
    foe = st.heroes[1]
    foe.cell = b.cell
    a.abilities, a.scout_moves = [("scouting", 0)], 1
    st.queue = [(0, 0)]
    st._mask = None
    assert st.legal_actions_mask()[LOOK0 + d]
    st.apply(LOOK0 + d)
    assert espionage.is_revealed(st, 0, 1) and a.scout_moves == 0
    dt = st.determinize(0, np.random.default_rng(3))
    assert np.array_equal(dt.heroes[1].troops, foe.troops)


def test_whole_army_actions_count_special_troops_against_the_cap():
    """RECRUIT TROOPS / SPECIAL UNITS: the 40-troop cap counts special troops too, for taking a
    whole garrison (8) and for handing a whole army to a friendly Hero (25-30)."""
    from tabletop_arena.envs.warbah.actions import EXCHANGE0, TAKE_GARRISON
    g, st, a, b, d = two_heroes()
    a.troops[:] = [10, 10, 10, 0]
    a.specials[SPECIALS.index("elves")] = 10  # 40 troops in all: no room
    st.garrison[a.cell] = [10, 0, 0, 0]
    st._mask = None
    assert not st.legal_actions_mask()[TAKE_GARRISON]
    a.specials[SPECIALS.index("elves")] = 5  # 35: room for 5 of the 10 warriors
    st._mask = None
    assert st.legal_actions_mask()[TAKE_GARRISON]
    st.apply(TAKE_GARRISON)
    assert a.troops[0] == 15 and st.garrison[a.cell, 0] == 5
    assert heroes.army_size(a) == 40
    # whole-army hand-over: the receiver's special troops count against its cap
    g, st, a, b, d = two_heroes()
    b.troops = np.array([10, 10, 10, 5])
    b.specials[SPECIALS.index("orcs")] = 5  # 40 in all
    st._mask = None
    assert not st.legal_actions_mask()[EXCHANGE0 + d]
    b.troops = np.array([10, 10, 10, 0])  # 35 in all: 5 more fit
    st._mask = None
    assert st.legal_actions_mask()[EXCHANGE0 + d]
    st.apply(EXCHANGE0 + d)
    assert heroes.army_size(b) == 40 and int(a.troops.sum()) == 15


# -- the troop-type limit on warriors gained without a choice ---------------------------------
from tests.warbah.test_realm_spells import R, realm_ready  # noqa: E402


def _five_types_without_warriors(st, h):
    """Archers, cavalry, catapults and two special kinds: 5 troop types, no warriors."""
    h.troops[:] = [0, 3, 3, 3]
    sp = h.specials
    sp[:] = 0
    sp[SPECIALS.index("orcs")] = 1
    sp[SPECIALS.index("hobgoblins")] = 1
    assert heroes.type_count(h) == heroes.type_limit(st, h) == 5


@pytest.mark.parametrize("name", ["animate_dead", "heal"])
@pytest.mark.parametrize("extra", [None, "warriors", "command"])
def test_warriors_gained_respect_the_troop_type_limit(name, extra):
    """SPECIAL UNIT NOTES (at most 5 troop types; Command +1) / REALM SPELLS Animate Dead, Heal:
    a Hero who already has 5 types and no warriors gains no warriors (designed: they do not
    join, Heal's troops stay lost); with warriors in the army, or with Command, they join."""
    g, st, a, b, d, cell = realm_ready(name)
    _five_types_without_warriors(st, a)
    a.troops_lost = 6
    if extra == "warriors":
        a.troops[0] = 1
    elif extra == "command":
        a.abilities = [("command", 0)]
    w = int(a.troops[0])
    realm_spells.cast_realm(st, 0, 0, R[name], None)
    joined = int(a.troops[0]) - w
    if extra is None:
        assert joined == 0 and a.troops_lost == 6
    else:
        assert 1 <= joined <= (10 if name == "animate_dead" else 6)
        assert name == "animate_dead" or a.troops_lost == 6 - joined


def test_warriors_gained_without_a_choice_stop_at_the_army_cap():
    """ARMY cap 40 (Command +10; RECOVERY disbands the excess, warriors first): warriors gained
    without a choice join only up to the cap, the rest disband at once (designed). Found by a
    fuzz game (4p allies, mass formula, seed 41885): Research's treasure followers in the Realm
    phase took an army of 32 to 41 before the recruit phase."""
    
    g, st, a, b, d, cell = realm_ready("fly")
    a.troops[:] = [17, 6, 6, 3]
    assert heroes.army_size(a) == 32 and heroes.army_cap(st, a) == 40
    magic._treasure_rolls(st, (0,), (6, 9))          # TREASURE 6: 9 followers
    assert a.troops.tolist() == [25, 6, 6, 3] and heroes.army_size(a) == 40
    assert heroes.gain_warriors(st, a, 3) == 0      # a full army takes none
    a.abilities.append(("command", 0))           # Command: room for 10 more
    assert heroes.gain_warriors(st, a, 12) == 10 and heroes.army_size(a) == 50


def test_healing_and_treasure_followers_respect_the_troop_type_limit():
    """ABILITY TABLE Healing (lost troops back as warriors in recovery) and TREASURE TABLE 6
    (1D10 followers): no warriors join a Hero at his 5-type limit without warriors (designed);
    once he has warriors they join."""
    
    g, st, a, b, d, cell = realm_ready("fly")
    _five_types_without_warriors(st, a)
    turn.recover_hero(st, a, 5)
    magic._treasure_rolls(st, (0,), (6, 7))
    assert a.troops[0] == 0
    a.troops[0] = 1
    turn.recover_hero(st, a, 5)
    magic._treasure_rolls(st, (0,), (6, 7))
    assert a.troops[0] == 1 + 5 + 7
