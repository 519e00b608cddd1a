"""Scenario tests for Warbah battle magic: Battle spells, Resist Spells, battle-spell
items in battle. Realm phase, realm spells, Disaster magic, wizards and magic items are in
test_realm_spells.py. Each test names the rulebook section it checks."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.warbah import battle, battle_flow, battle_spells, make_game
from tabletop_arena.envs.warbah.actions import BSPELL0, DONE, GROUP0
from tabletop_arena.envs.warbah.state import Item
from tabletop_arena.envs.warbah.tables import TERRAINS

G2 = make_game(num_players=2)
T = G2.spells
R = {name: k for k, name in enumerate(T.realm_names)}
BS = {name: k for k, name in enumerate(T.battle_names)}


from tests.warbah.test_rules import setup_state  # noqa: E402  (capitols placed, 2 players)


def two_heroes(seed=0, terrain="clear"):
    """Hero 0 (seat 0) and hero 1 (seat 1) on adjacent explored hexes; no abilities, no rivers."""
    g, st = setup_state(2, seed)
    a, b = st.heroes[0], st.heroes[1]
    a.abilities, b.abilities = [], []
    d = next(d for d in range(6) if st.neighbours[a.cell][d] >= 0 and st.land[st.neighbours[a.cell][d]])
    cell = int(st.neighbours[a.cell][d])
    st.explored[cell], st.terrain[cell], st.settle[cell] = True, TERRAINS.index(terrain), -1
    st.encounter[cell], st.owner[cell] = 0, -1
    b.cell = cell
    st.rivers.clear()
    return g, st, a, b, d, cell


# ------------------------------------------------------------------------------------------
# Battle spells (BATTLE SPELLS CARD LIST)
# ------------------------------------------------------------------------------------------
def spell_battle(att_spells, def_spells=(), att=(10, 10, 10, 10), dfn=(10, 10, 10, 10),
                 terrain="clear", seed=0):
    """A battle hero 0 -> hero 1, both with wizards; the decks are stacked so that the attacker
    draws ``att_spells`` (padded) and the defender ``def_spells``. Stops at the attacker's first
    spell decision (phase 'spell')."""
    g, st, a, b, d, cell = two_heroes(seed, terrain)
    a.troops[:] = att
    b.troops[:] = dfn
    a.wizard = -1
    b.wizard = -1 if def_spells is not None else 0
    top = list(att_spells) + list(def_spells or ())
    rest = [k for k in range(T.NB) if k not in top]
    # draw order: attacker's 4 first, then the defender's 4 (top of the deck = end of list)
    na, nd = 4, 4 if def_spells is not None else 0
    apad = list(att_spells) + [k for k in rest if k not in att_spells][:na - len(att_spells)]
    rest2 = [k for k in rest if k not in apad]
    dpad = list(def_spells or ()) + rest2[:max(0, nd - len(def_spells or ()))]
    rest3 = [k for k in rest2 if k not in dpad]
    st.magic.battle_deck = rest3 + list(reversed(apad + dpad))
    st.phase, st.queue, st.queue_pos = "battle", [(0, 0)], 0
    battle_flow.start_battle(st, 0, cell)
    return g, st, a, b, cell


def sides(st):
    return st.battle.sides


def test_battle_start_draws_four_and_wizardry():
    """BATTLE PHASE: a force with a Wizard draws 4 Battle spells; Wizardry draws one more."""
    g, st, a, b, cell = spell_battle([BS["haste"]], def_spells=None)
    assert st.phase == "spell" and st.current_player == 0
    assert len(sides(st)[0].magic.hand) == 4 and sides(st)[1].magic.hand == []
    g, st, a, b, d, cell = two_heroes()
    a.wizard, a.abilities = -1, [("wizardry", 0)]
    battle_flow.start_battle(st, 0, cell)
    assert len(st.battle.sides[0].magic.hand) == 5


def test_no_wizard_no_magic():
    """BATTLE PHASE: without a Wizard (or battle item) no spells are drawn."""
    g, st, a, b, d, cell = two_heroes()
    n = len(st.magic.battle_deck)
    battle_flow.start_battle(st, 0, cell)
    assert len(st.magic.battle_deck) == n
    assert st.battle is None or st.battle.magic is None


def cast(st, name, group=None):
    st.apply(BSPELL0 + BS[name])
    if group is not None:
        assert st.phase == "spell_target"
        st.apply(GROUP0 + group)


KILL = [("petrification", 1, 2), ("fireball", 2, 3), ("lightning_bolt", 1, 5),
        ("poison_gas_cloud", None, 2)]


@pytest.mark.parametrize("name,n,init", KILL)
def test_kill_spells(name, n, init):
    """BATTLE SPELLS: Petrification, Fireball, Lightning Bolt, Poison Gas Cloud kill units of the
    targeted group in their initiative segment."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name, group=0)
    assert st.phase == "spell" and st.current_player == 1  # defender's turn to cast
    sched = sides(st)[0].magic.scheduled
    assert len(sched) == 1 and sched[0][0] == battle.segment_of(init) and sched[0][1] == "kill"
    k = sched[0][3]
    assert (k == n) if n else 1 <= k <= 5
    battle_spells.segment_effects(st, battle.segment_of(init))
    assert sides(st)[1].counts[0] == 10 - k


NEUT = [("web", 2, 2), ("hold", 1, 2), ("paralyzation", 1, 3), ("mesmerize", None, 2),
        ("polymorph", 4, 2), ("swarm", 3, 3), ("summon_fairies", 2, 1), ("sleep", None, 1),
        ("blind", 3, 3)]


@pytest.mark.parametrize("name,n,init", NEUT)
def test_neutralize_spells(name, n, init):
    """BATTLE SPELLS + NOTES: neutralized troops cannot attack for the rest of the battle."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name, group=1)
    sched = sides(st)[0].magic.scheduled
    k = sched[0][3]
    assert sched[0][0] == battle.segment_of(init) and ((k == n) if n else 1 <= k <= 5)
    battle_spells.segment_effects(st, battle.segment_of(init))
    foe = sides(st)[1]
    assert foe.magic.neutral[1] == k and foe.counts[1] == 10
    # neutralized archers do not attack: with all 10 neutralized nothing is rolled
    foe.magic.neutral[1] = 10
    assert battle.attacks(g, foe, battle.segment_of(3), np.random.default_rng(0)) == 0


def test_cone_of_cold():
    """BATTLE SPELLS: Cone of Cold neutralizes one unit and kills one at Initiative 2."""
    g, st, a, b, cell = spell_battle([BS["cone_of_cold"]], [BS["haste"]])
    cast(st, "cone_of_cold", group=0)
    battle_spells.segment_effects(st, battle.segment_of(2))
    foe = sides(st)[1]
    assert foe.counts[0] == 9 and foe.magic.neutral[0] == 1


def test_weakness():
    """BATTLE SPELLS: Weakness, target group Kill -1 for the rest of the battle."""
    g, st, a, b, cell = spell_battle([BS["weakness"]], [BS["haste"]])
    cast(st, "weakness", group=2)
    battle_spells.segment_effects(st, battle.segment_of(2))
    assert sides(st)[1].kill_mod[2] == -1
    battle_spells.end_round(st)
    assert sides(st)[1].kill_mod[2] == -1


@pytest.mark.parametrize("name,n,init", [("charm", 2, 1), ("command", 1, 2)])
def test_control_spells(name, n, init):
    """BATTLE SPELLS + NOTES: Charm / Command take permanent ownership of enemy troops."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name, group=2)
    battle_spells.segment_effects(st, battle.segment_of(init))
    assert sides(st)[1].counts[2] == 10 - n and sides(st)[0].counts[2] == 10 + n
    # the hero and monsters cannot be controlled: only groups 0-3 are offered
    assert battle_spells.spell_groups(st, 0, BS[name]) == [0, 1, 2, 3]


@pytest.mark.parametrize("name,t", [("bloodlust", 0), ("charge", 2), ("flaming_arrows", 1)])
def test_round_kill_boosts(name, t):
    """BATTLE SPELLS: Bloodlust / Charge / Flaming Arrows, Kill +1 for one troop type this round."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name)
    assert sides(st)[0].kill_mod[t] == 1
    battle_spells.end_round(st)
    assert sides(st)[0].kill_mod[t] == 0


def test_haste():
    """BATTLE SPELLS: Haste, all own troops Initiative +1 (this round)."""
    g, st, a, b, cell = spell_battle([BS["haste"]], [BS["armor"]])
    cast(st, "haste")
    assert sides(st)[0].init_mod == [1] * 5
    battle_spells.end_round(st)
    assert sides(st)[0].init_mod == [0] * 5


@pytest.mark.parametrize("name,dk,di", [("invisibility", 1, 1), ("phantasmal_terrain", 0, 4)])
def test_own_group_boosts(name, dk, di):
    """BATTLE SPELLS: Invisibility (Kill +1, Init +1) and Phantasmal Terrain (Init +4) on one
    own group this round."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name, group=3)
    me = sides(st)[0]
    assert me.kill_mod[3] == dk and me.init_mod[3] == di
    battle_spells.end_round(st)
    assert me.kill_mod[3] == 0 and me.init_mod[3] == 0


def test_blessing_rerolls_misses():
    """BATTLE SPELLS: Blessing, missed attacks are rolled once more this round."""
    g, st, a, b, cell = spell_battle([BS["blessing"]], [BS["haste"]])
    cast(st, "blessing")
    mg = sides(st)[0].magic
    assert mg.blessed
    rng = np.random.default_rng(1)
    with_b = sum(battle.magic_hits(mg, 0, 100, 5, rng) for _ in range(20))
    mg.blessed = False
    without = sum(battle.magic_hits(mg, 0, 100, 5, rng) for _ in range(20))
    assert with_b > 1.3 * without


def test_precision_all_archers_hit():
    """BATTLE SPELLS: Precision, every attack by own archers hits this round."""
    g, st, a, b, cell = spell_battle([BS["precision"]], [BS["haste"]])
    cast(st, "precision")
    me = sides(st)[0]
    assert battle.attacks(g, me, battle.segment_of(3), np.random.default_rng(0)) == 10


def test_smite_three_rounds():
    """BATTLE SPELLS: Smite, own Hero gets an extra attack for 3 rounds."""
    g, st, a, b, cell = spell_battle([BS["smite"]], [BS["haste"]])
    cast(st, "smite")
    me = sides(st)[0]
    assert me.extra_attacks[4] == 1
    for _ in range(2):
        battle_spells.end_round(st)
        assert me.extra_attacks[4] == 1
    battle_spells.end_round(st)
    assert me.extra_attacks[4] == 0


def test_stone_to_mud():
    """BATTLE SPELLS: Stone to Mud destroys 1D5 ranks of the enemy's walls."""
    g, st, a, b, cell = spell_battle([BS["stone_to_mud"]], [BS["haste"]], terrain="hills")
    foe = sides(st)[1]
    assert foe.walls_left == 2
    cast(st, "stone_to_mud")
    assert foe.walls_left == 0 and foe.wall_damage == 2


def test_shield_stops_ranged_kills():
    """BATTLE SPELLS: Shield negates 4 kills by enemy archers or catapults this round."""
    g, st, a, b, cell = spell_battle([BS["shield"]], [BS["precision"]])
    cast(st, "shield")
    foe = sides(st)[1]
    foe.magic.auto_hit[1] = True  # as if under Precision: the defender's archers all hit
    assert battle.attacks(g, foe, battle.segment_of(3), np.random.default_rng(0)) == 10 - 4


def test_armor_negates_three():
    """BATTLE SPELLS: Armor negates 3 kills this round."""
    g, st, a, b, cell = spell_battle([BS["armor"]], [BS["haste"]])
    cast(st, "armor")
    me = sides(st)[0]
    assert battle.negate(g, me, 5, np.random.default_rng(0)) == 2
    assert battle.negate(g, me, 5, np.random.default_rng(0)) == 5


def test_forget():
    """BATTLE SPELLS: Forget, the enemy wizard discards 2 cards."""
    g, st, a, b, cell = spell_battle([BS["forget"]], [BS["haste"]])
    cast(st, "forget")
    assert len(sides(st)[1].magic.hand) == 2


def test_spellbind():
    """BATTLE SPELLS: Spellbind, the enemy wizard cannot cast for the next 2 rounds."""
    g, st, a, b, cell = spell_battle([BS["spellbind"]], [BS["haste"]])
    cast(st, "spellbind")
    assert sides(st)[1].magic.spellbound == {1, 2}
    st.battle.round = 1
    sides(st)[1].magic.cast = False
    assert battle_spells.battle_options(st, 1) == []
    st.battle.round = 3
    assert battle_spells.battle_options(st, 1)


def test_dispell_undoes_the_spell_just_cast():
    """BATTLE SPELLS: Dispell negates the effects of one spell just cast."""
    g, st, a, b, cell = spell_battle([BS["haste"]], [BS["dispell"]])
    cast(st, "haste")
    assert sides(st)[0].init_mod == [1] * 5
    assert st.legal_actions_mask()[BSPELL0 + BS["dispell"]]
    cast(st, "dispell")
    me = st.battle.sides[0] if st.battle else None
    assert me is None or me.init_mod == [0] * 5
    assert me is None or BS["haste"] not in me.magic.hand  # the card is still spent


def test_dispell_needs_an_enemy_spell():
    """BATTLE SPELLS: with no enemy spell just cast, Dispell cannot be chosen."""
    g, st, a, b, cell = spell_battle([BS["dispell"]], [BS["haste"]])
    assert not st.legal_actions_mask()[BSPELL0 + BS["dispell"]]


def test_raise_dead():
    """BATTLE SPELLS: Raise Dead creates 1D5 warriors."""
    g, st, a, b, cell = spell_battle([BS["raise_dead"]], [BS["haste"]])
    cast(st, "raise_dead")
    assert 11 <= sides(st)[0].counts[0] <= 15


def test_illusions():
    """BATTLE SPELLS: Illusions, one enemy group makes no attacks this round."""
    g, st, a, b, cell = spell_battle([BS["illusions"]], [BS["haste"]])
    cast(st, "illusions", group=0)
    foe = sides(st)[1]
    assert battle.attacks(g, foe, battle.segment_of(1), np.random.default_rng(0)) <= 1  # hero only
    battle_spells.end_round(st)
    assert not foe.magic.blocked[0]


@pytest.mark.parametrize("name,mon", [("summon_dragon", [2, 4, 5]),
                                      ("summon_monster", [1, 3, 3])])
def test_summons(name, mon):
    """BATTLE SPELLS: Summon Dragon / Monster fight for the caster and go at the battle's end."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name)
    assert sides(st)[0].monster == mon
    # a summoned creature is killed before the Hero
    me = sides(st)[0]
    me.counts[:4] = 0
    battle.remove_one(me)
    assert me.monster[2] == mon[2] - 1 and me.counts[4] == 1


def test_shatter_destroys_an_item():
    """BATTLE SPELLS: Shatter destroys a magic item of the enemy hero."""
    g, st, a, b, d, cell = two_heroes()
    b.items = [Item("realm", spell=0)]
    a.wizard = -1
    st.magic.battle_deck.remove(BS["shatter"])
    st.magic.battle_deck.append(BS["shatter"])
    battle_flow.start_battle(st, 0, cell)
    cast(st, "shatter")
    assert b.items == []


def test_slow():
    """BATTLE SPELLS: Slow, target group Initiative -2 for the rest of the battle."""
    g, st, a, b, cell = spell_battle([BS["slow"]], [BS["haste"]])
    cast(st, "slow", group=1)
    battle_spells.end_round(st)
    assert sides(st)[1].init_mod[1] == -2


def test_ice_wall_defender_only():
    """BATTLE SPELLS: Ice Wall, defender only, gains 3 walls."""
    g, st, a, b, cell = spell_battle([BS["ice_wall"]], [BS["ice_wall"]])
    assert not st.legal_actions_mask()[BSPELL0 + BS["ice_wall"]]
    st.apply(DONE)
    assert st.current_player == 1
    cast(st, "ice_wall")
    d = st.battle.sides[1] if st.battle else None
    assert d is None or d.walls_base == 3


@pytest.mark.parametrize("name,blocked", [("force_field", [1, 3]),
                                          ("wall_of_fire", [0, 2, 4])])
def test_blocking_spells(name, blocked):
    """BATTLE SPELLS: Force Field (no archer/catapult attacks), Wall of Fire (no cavalry, hero,
    warrior attacks) this round."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name)
    foe = sides(st)[1]
    assert [t for t in range(5) if foe.magic.blocked[t]] == blocked
    for t in blocked:
        seg = battle.segment_of(g.troop[("warriors", "archers", "cavalry", "catapults", "hero")[t]][0])
        foe.counts[:5] = 0
        foe.counts[t] = 10
        assert battle.attacks(g, foe, seg, np.random.default_rng(0)) == 0
        foe.counts[:5] = [10, 10, 10, 10, 1]


def test_fog_both_sides():
    """BATTLE SPELLS: Fog, all archers and catapults Kill -1 for the battle."""
    g, st, a, b, cell = spell_battle([BS["fog"]], [BS["haste"]])
    cast(st, "fog")
    for sd in sides(st):
        assert sd.kill_mod[1] == -1 and sd.kill_mod[3] == -1
    battle_spells.end_round(st)
    assert sides(st)[0].kill_mod[1] == -1


def test_resist_spells_negates_one():
    """RARE ABILITY: Resist Spells negates one enemy spell per battle."""
    g, st, a, b, cell = spell_battle([BS["weakness"], BS["illusions"]], [BS["haste"]])
    sides(st)[1].magic.resist = 1
    cast(st, "weakness", group=0)
    assert sides(st)[0].magic.scheduled == [] and sides(st)[1].magic.resist == 0


def test_one_spell_per_wizard_per_round():
    """BATTLE ROUND SEQUENCE: a Wizard casts only one spell per round."""
    g, st, a, b, cell = spell_battle([BS["haste"], BS["armor"]], [BS["fog"]])
    cast(st, "haste")
    assert st.current_player == 1  # the attacker's wizard is spent for this round
    assert battle_spells.battle_options(st, 0) == []


def test_unused_spells_discarded_at_battle_end():
    """BATTLE ROUND SEQUENCE: unused Battle spells are discarded at the end of the battle."""
    g, st, a, b, cell = spell_battle([BS["haste"]], [BS["fog"]])
    disc = len(st.magic.battle_discard)
    
    battle_flow.finish(st)
    assert len(st.magic.battle_discard) == disc + 8


def test_battle_item_usable_once_per_turn():
    """TREASURE 10: a battle-spell item is cast once per turn, without a wizard."""
    g, st, a, b, d, cell = two_heroes()
    a.items = [Item("battle", spell=BS["armor"])]
    battle_flow.start_battle(st, 0, cell)
    assert st.phase == "spell"
    cast(st, "armor")
    assert a.items[0].used_turn == st.turn
    assert battle_spells.battle_options(st, 0) == [] if st.battle else True


def test_neutral_wizard_casts_automatically():
    """ENCOUNTER 7 (Irate Sorcerer): the sorcerer's wizard draws and casts by itself."""
    g, st, a, b, d, cell = two_heroes()
    b.alive = False
    st.encounter[cell] = 7
    a.troops[:] = [1, 0, 0, 0]
    battle_flow.start_battle(st, 0, cell)
    casts = st.magic.battle_discard + (st.battle.magic.limbo if st.battle else [])
    assert len(casts) >= 1  # at least one spell was cast or discarded by the sorcerer


def test_determinize_hides_enemy_battle_hand():
    """Hidden information: the enemy battle hand is resampled; my own observation is unchanged."""
    g, st, a, b, cell = spell_battle([BS["haste"]], [BS["fog"]])
    rng = np.random.default_rng(3)
    hands = set()
    for _ in range(5):
        d = st.determinize(0, rng)
        assert np.array_equal(d.observation(0), st.observation(0))
        hands.add(tuple(d.battle.sides[1].magic.hand))
        assert d.battle.sides[0].magic.hand == st.battle.sides[0].magic.hand
    assert len(hands) > 1
