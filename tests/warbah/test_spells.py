"""Scenario tests for Warbah magic (block A): Realm phase, realm spells, Disaster magic, wizards,
Battle spells, Resist Spells, magic items. Each test names the rulebook section it checks."""
from __future__ import annotations

import numpy as np
import pytest

from envs.warbah import battle as B
from envs.warbah import make_game
from envs.warbah import spells as SP
from envs.warbah.combat_flow import start_battle
from envs.warbah.config import (BSPELL0, CAPITOL_AUTO, CELL0, DONE, GROUP0, REALM0,
                                RECRUIT_WIZARD, SETTLEMENTS, TERRAINS, TSEAT0)

G2 = make_game(num_players=2)
T = SP.tables(G2)
R = {name: k for k, name in enumerate(T.realm_names)}
BS = {name: k for k, name in enumerate(T.battle_names)}
TOWER = SETTLEMENTS.index("tower")


from tests.warbah.test_rules import setup_state  # noqa: E402  (capitols placed, 2 players)


def two_heroes(seed=0, terrain="clear"):
    """Hero 0 (seat 0) and hero 1 (seat 1) on adjacent explored hexes; no abilities, no rivers."""
    g, st = setup_state(2, seed)
    a, b = st.heroes[0], st.heroes[1]
    a["abil"], b["abil"] = [], []
    d = next(d for d in range(6) if st.nb[a["cell"], d] >= 0 and st.land[st.nb[a["cell"], d]])
    cell = int(st.nb[a["cell"], d])
    st.explored[cell], st.terrain[cell], st.settle[cell] = True, TERRAINS.index(terrain), -1
    st.encounter[cell], st.owner[cell] = 0, -1
    b["cell"] = cell
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
    a["troops"][:] = att
    b["troops"][:] = dfn
    a["wizard"] = -1
    b["wizard"] = -1 if def_spells is not None else 0
    top = list(att_spells) + list(def_spells or ())
    rest = [k for k in range(T.NB) if k not in top]
    # draw order: attacker's 4 first, then the defender's 4 (top of the deck = end of list)
    na, nd = 4, 4 if def_spells is not None else 0
    apad = list(att_spells) + [k for k in rest if k not in att_spells][:na - len(att_spells)]
    rest2 = [k for k in rest if k not in apad]
    dpad = list(def_spells or ()) + rest2[:max(0, nd - len(def_spells or ()))]
    rest3 = [k for k in rest2 if k not in dpad]
    st.mg["bdeck"] = rest3 + list(reversed(apad + dpad))
    st.phase, st.queue, st.qi = "battle", [(0, 0)], 0
    start_battle(st, 0, cell)
    return g, st, a, b, cell


def sides(st):
    return st.battle["sides"]


def test_battle_start_draws_four_and_wizardry():
    """BATTLE PHASE: a force with a Wizard draws 4 Battle spells; Wizardry draws one more."""
    g, st, a, b, cell = spell_battle([BS["haste"]], def_spells=None)
    assert st.phase == "spell" and st.current_player == 0
    assert len(sides(st)[0]["mg"]["hand"]) == 4 and sides(st)[1]["mg"]["hand"] == []
    g, st, a, b, d, cell = two_heroes()
    a["wizard"], a["abil"] = -1, [("wizardry", 0)]
    start_battle(st, 0, cell)
    assert len(st.battle["sides"][0]["mg"]["hand"]) == 5


def test_no_wizard_no_magic():
    """BATTLE PHASE: without a Wizard (or battle item) no spells are drawn."""
    g, st, a, b, d, cell = two_heroes()
    n = len(st.mg["bdeck"])
    start_battle(st, 0, cell)
    assert len(st.mg["bdeck"]) == n
    assert st.battle is None or st.battle.get("mg") is None


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
    sched = sides(st)[0]["mg"]["sched"]
    assert len(sched) == 1 and sched[0][0] == B.segment_of(init) and sched[0][1] == "kill"
    k = sched[0][3]
    assert (k == n) if n else 1 <= k <= 5
    SP.segment_effects(st, B.segment_of(init))
    assert sides(st)[1]["counts"][0] == 10 - k


NEUT = [("web", 2, 2), ("hold", 1, 2), ("paralyzation", 1, 3), ("mesmerize", None, 2),
        ("polymorph", 4, 2), ("swarm", 3, 3), ("summon_fairies", 2, 1), ("sleep", None, 1),
        ("blind", 3, 3)]


@pytest.mark.parametrize("name,n,init", NEUT)
def test_neutralize_spells(name, n, init):
    """BATTLE SPELLS + NOTES: neutralized troops cannot attack for the rest of the battle."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name, group=1)
    sched = sides(st)[0]["mg"]["sched"]
    k = sched[0][3]
    assert sched[0][0] == B.segment_of(init) and ((k == n) if n else 1 <= k <= 5)
    SP.segment_effects(st, B.segment_of(init))
    foe = sides(st)[1]
    assert foe["mg"]["neutral"][1] == k and foe["counts"][1] == 10
    # neutralized archers do not attack: with all 10 neutralized nothing is rolled
    foe["mg"]["neutral"][1] = 10
    assert B.attacks(g, foe, B.segment_of(3), np.random.default_rng(0)) == 0


def test_cone_of_cold():
    """BATTLE SPELLS: Cone of Cold neutralizes one unit and kills one at Initiative 2."""
    g, st, a, b, cell = spell_battle([BS["cone_of_cold"]], [BS["haste"]])
    cast(st, "cone_of_cold", group=0)
    SP.segment_effects(st, B.segment_of(2))
    foe = sides(st)[1]
    assert foe["counts"][0] == 9 and foe["mg"]["neutral"][0] == 1


def test_weakness():
    """BATTLE SPELLS: Weakness, target group Kill -1 for the rest of the battle."""
    g, st, a, b, cell = spell_battle([BS["weakness"]], [BS["haste"]])
    cast(st, "weakness", group=2)
    SP.segment_effects(st, B.segment_of(2))
    assert sides(st)[1]["kill_mod"][2] == -1
    SP.end_round(st)
    assert sides(st)[1]["kill_mod"][2] == -1


@pytest.mark.parametrize("name,n,init", [("charm", 2, 1), ("command", 1, 2)])
def test_control_spells(name, n, init):
    """BATTLE SPELLS + NOTES: Charm / Command take permanent ownership of enemy troops."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name, group=2)
    SP.segment_effects(st, B.segment_of(init))
    assert sides(st)[1]["counts"][2] == 10 - n and sides(st)[0]["counts"][2] == 10 + n
    # the hero and monsters cannot be controlled: only groups 0-3 are offered
    assert SP.spell_groups(st, 0, BS[name]) == [0, 1, 2, 3]


@pytest.mark.parametrize("name,t", [("bloodlust", 0), ("charge", 2), ("flaming_arrows", 1)])
def test_round_kill_boosts(name, t):
    """BATTLE SPELLS: Bloodlust / Charge / Flaming Arrows, Kill +1 for one troop type this round."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name)
    assert sides(st)[0]["kill_mod"][t] == 1
    SP.end_round(st)
    assert sides(st)[0]["kill_mod"][t] == 0


def test_haste():
    """BATTLE SPELLS: Haste, all own troops Initiative +1 (this round)."""
    g, st, a, b, cell = spell_battle([BS["haste"]], [BS["armor"]])
    cast(st, "haste")
    assert sides(st)[0]["init_mod"] == [1] * 5
    SP.end_round(st)
    assert sides(st)[0]["init_mod"] == [0] * 5


@pytest.mark.parametrize("name,dk,di", [("invisibility", 1, 1), ("phantasmal_terrain", 0, 4)])
def test_own_group_boosts(name, dk, di):
    """BATTLE SPELLS: Invisibility (Kill +1, Init +1) and Phantasmal Terrain (Init +4) on one
    own group this round."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name, group=3)
    me = sides(st)[0]
    assert me["kill_mod"][3] == dk and me["init_mod"][3] == di
    SP.end_round(st)
    assert me["kill_mod"][3] == 0 and me["init_mod"][3] == 0


def test_blessing_rerolls_misses():
    """BATTLE SPELLS: Blessing, missed attacks are rolled once more this round."""
    g, st, a, b, cell = spell_battle([BS["blessing"]], [BS["haste"]])
    cast(st, "blessing")
    mg = sides(st)[0]["mg"]
    assert mg["bless"]
    rng = np.random.default_rng(1)
    with_b = sum(B.magic_hits(mg, 0, 100, 5, rng) for _ in range(20))
    mg["bless"] = False
    without = sum(B.magic_hits(mg, 0, 100, 5, rng) for _ in range(20))
    assert with_b > 1.3 * without


def test_precision_all_archers_hit():
    """BATTLE SPELLS: Precision, every attack by own archers hits this round."""
    g, st, a, b, cell = spell_battle([BS["precision"]], [BS["haste"]])
    cast(st, "precision")
    me = sides(st)[0]
    assert B.attacks(g, me, B.segment_of(3), np.random.default_rng(0)) == 10


def test_smite_three_rounds():
    """BATTLE SPELLS: Smite, own Hero gets an extra attack for 3 rounds."""
    g, st, a, b, cell = spell_battle([BS["smite"]], [BS["haste"]])
    cast(st, "smite")
    me = sides(st)[0]
    assert me["extra"][4] == 1
    for _ in range(2):
        SP.end_round(st)
        assert me["extra"][4] == 1
    SP.end_round(st)
    assert me["extra"][4] == 0


def test_stone_to_mud():
    """BATTLE SPELLS: Stone to Mud destroys 1D5 ranks of the enemy's walls."""
    g, st, a, b, cell = spell_battle([BS["stone_to_mud"]], [BS["haste"]], terrain="hills")
    foe = sides(st)[1]
    assert foe["walls_left"] == 2
    cast(st, "stone_to_mud")
    assert foe["walls_left"] == 0 and foe["wall_damage"] == 2


def test_shield_stops_ranged_kills():
    """BATTLE SPELLS: Shield negates 4 kills by enemy archers or catapults this round."""
    g, st, a, b, cell = spell_battle([BS["shield"]], [BS["precision"]])
    cast(st, "shield")
    foe = sides(st)[1]
    foe["mg"]["auto"][1] = True  # as if under Precision: the defender's archers all hit
    assert B.attacks(g, foe, B.segment_of(3), np.random.default_rng(0)) == 10 - 4


def test_armor_negates_three():
    """BATTLE SPELLS: Armor negates 3 kills this round."""
    g, st, a, b, cell = spell_battle([BS["armor"]], [BS["haste"]])
    cast(st, "armor")
    me = sides(st)[0]
    assert B.negate(g, me, 5, np.random.default_rng(0)) == 2
    assert B.negate(g, me, 5, np.random.default_rng(0)) == 5


def test_forget():
    """BATTLE SPELLS: Forget, the enemy wizard discards 2 cards."""
    g, st, a, b, cell = spell_battle([BS["forget"]], [BS["haste"]])
    cast(st, "forget")
    assert len(sides(st)[1]["mg"]["hand"]) == 2


def test_spellbind():
    """BATTLE SPELLS: Spellbind, the enemy wizard cannot cast for the next 2 rounds."""
    g, st, a, b, cell = spell_battle([BS["spellbind"]], [BS["haste"]])
    cast(st, "spellbind")
    assert sides(st)[1]["mg"]["bind"] == {1, 2}
    st.battle["round"] = 1
    sides(st)[1]["mg"]["cast"] = False
    assert SP.battle_options(st, 1) == []
    st.battle["round"] = 3
    assert SP.battle_options(st, 1)


def test_dispell_undoes_the_spell_just_cast():
    """BATTLE SPELLS: Dispell negates the effects of one spell just cast."""
    g, st, a, b, cell = spell_battle([BS["haste"]], [BS["dispell"]])
    cast(st, "haste")
    assert sides(st)[0]["init_mod"] == [1] * 5
    assert st.legal_actions_mask()[BSPELL0 + BS["dispell"]]
    cast(st, "dispell")
    me = st.battle["sides"][0] if st.battle else None
    assert me is None or me["init_mod"] == [0] * 5
    assert me is None or BS["haste"] not in me["mg"]["hand"]  # the card is still spent


def test_dispell_needs_an_enemy_spell():
    """BATTLE SPELLS: with no enemy spell just cast, Dispell cannot be chosen."""
    g, st, a, b, cell = spell_battle([BS["dispell"]], [BS["haste"]])
    assert not st.legal_actions_mask()[BSPELL0 + BS["dispell"]]


def test_raise_dead():
    """BATTLE SPELLS: Raise Dead creates 1D5 warriors."""
    g, st, a, b, cell = spell_battle([BS["raise_dead"]], [BS["haste"]])
    cast(st, "raise_dead")
    assert 11 <= sides(st)[0]["counts"][0] <= 15


def test_illusions():
    """BATTLE SPELLS: Illusions, one enemy group makes no attacks this round."""
    g, st, a, b, cell = spell_battle([BS["illusions"]], [BS["haste"]])
    cast(st, "illusions", group=0)
    foe = sides(st)[1]
    assert B.attacks(g, foe, B.segment_of(1), np.random.default_rng(0)) <= 1  # hero only
    SP.end_round(st)
    assert not foe["mg"]["blocked"][0]


@pytest.mark.parametrize("name,mon", [("summon_dragon", [2, 4, 5]),
                                      ("summon_monster", [1, 3, 3])])
def test_summons(name, mon):
    """BATTLE SPELLS: Summon Dragon / Monster fight for the caster and go at the battle's end."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name)
    assert sides(st)[0]["monster"] == mon
    # a summoned creature is killed before the Hero
    me = sides(st)[0]
    me["counts"][:4] = 0
    B.remove_one(me)
    assert me["monster"][2] == mon[2] - 1 and me["counts"][4] == 1


def test_shatter_destroys_an_item():
    """BATTLE SPELLS: Shatter destroys a magic item of the enemy hero."""
    g, st, a, b, d, cell = two_heroes()
    b["items"] = [{"kind": "realm", "k": 0, "used": -1}]
    a["wizard"] = -1
    st.mg["bdeck"].remove(BS["shatter"])
    st.mg["bdeck"].append(BS["shatter"])
    start_battle(st, 0, cell)
    cast(st, "shatter")
    assert b["items"] == []


def test_slow():
    """BATTLE SPELLS: Slow, target group Initiative -2 for the rest of the battle."""
    g, st, a, b, cell = spell_battle([BS["slow"]], [BS["haste"]])
    cast(st, "slow", group=1)
    SP.end_round(st)
    assert sides(st)[1]["init_mod"][1] == -2


def test_ice_wall_defender_only():
    """BATTLE SPELLS: Ice Wall, defender only, gains 3 walls."""
    g, st, a, b, cell = spell_battle([BS["ice_wall"]], [BS["ice_wall"]])
    assert not st.legal_actions_mask()[BSPELL0 + BS["ice_wall"]]
    st.apply(DONE)
    assert st.current_player == 1
    cast(st, "ice_wall")
    d = st.battle["sides"][1] if st.battle else None
    assert d is None or d["walls_base"] == 3


@pytest.mark.parametrize("name,blocked", [("force_field", [1, 3]),
                                          ("wall_of_fire", [0, 2, 4])])
def test_blocking_spells(name, blocked):
    """BATTLE SPELLS: Force Field (no archer/catapult attacks), Wall of Fire (no cavalry, hero,
    warrior attacks) this round."""
    g, st, a, b, cell = spell_battle([BS[name]], [BS["haste"]])
    cast(st, name)
    foe = sides(st)[1]
    assert [t for t in range(5) if foe["mg"]["blocked"][t]] == blocked
    for t in blocked:
        seg = B.segment_of(g.troop[("warriors", "archers", "cavalry", "catapults", "hero")[t]][0])
        foe["counts"][:5] = 0
        foe["counts"][t] = 10
        assert B.attacks(g, foe, seg, np.random.default_rng(0)) == 0
        foe["counts"][:5] = [10, 10, 10, 10, 1]


def test_fog_both_sides():
    """BATTLE SPELLS: Fog, all archers and catapults Kill -1 for the battle."""
    g, st, a, b, cell = spell_battle([BS["fog"]], [BS["haste"]])
    cast(st, "fog")
    for sd in sides(st):
        assert sd["kill_mod"][1] == -1 and sd["kill_mod"][3] == -1
    SP.end_round(st)
    assert sides(st)[0]["kill_mod"][1] == -1


def test_resist_spells_negates_one():
    """RARE ABILITY: Resist Spells negates one enemy spell per battle."""
    g, st, a, b, cell = spell_battle([BS["weakness"], BS["illusions"]], [BS["haste"]])
    sides(st)[1]["mg"]["resist"] = 1
    cast(st, "weakness", group=0)
    assert sides(st)[0]["mg"]["sched"] == [] and sides(st)[1]["mg"]["resist"] == 0


def test_one_spell_per_wizard_per_round():
    """BATTLE ROUND SEQUENCE: a Wizard casts only one spell per round."""
    g, st, a, b, cell = spell_battle([BS["haste"], BS["armor"]], [BS["fog"]])
    cast(st, "haste")
    assert st.current_player == 1  # the attacker's wizard is spent for this round
    assert SP.battle_options(st, 0) == []


def test_unused_spells_discarded_at_battle_end():
    """BATTLE ROUND SEQUENCE: unused Battle spells are discarded at the end of the battle."""
    g, st, a, b, cell = spell_battle([BS["haste"]], [BS["fog"]])
    disc = len(st.mg["bdisc"])
    from envs.warbah.combat_flow import _finish
    _finish(st)
    assert len(st.mg["bdisc"]) == disc + 8


def test_battle_item_usable_once_per_turn():
    """TREASURE 10: a battle-spell item is cast once per turn, without a wizard."""
    g, st, a, b, d, cell = two_heroes()
    a["items"] = [{"kind": "battle", "k": BS["armor"], "used": -1}]
    start_battle(st, 0, cell)
    assert st.phase == "spell"
    cast(st, "armor")
    assert a["items"][0]["used"] == st.turn
    assert SP.battle_options(st, 0) == [] if st.battle else True


def test_neutral_wizard_casts_automatically():
    """ENCOUNTER 7 (Irate Sorcerer): the sorcerer's wizard draws and casts by itself."""
    g, st, a, b, d, cell = two_heroes()
    b["alive"] = False
    st.encounter[cell] = 7
    a["troops"][:] = [1, 0, 0, 0]
    start_battle(st, 0, cell)
    casts = st.mg["bdisc"] + (st.battle["mg"]["limbo"] if st.battle else [])
    assert len(casts) >= 1  # at least one spell was cast or discarded by the sorcerer


def test_determinize_hides_enemy_battle_hand():
    """Hidden information: the enemy battle hand is resampled; my own observation is unchanged."""
    g, st, a, b, cell = spell_battle([BS["haste"]], [BS["fog"]])
    rng = np.random.default_rng(3)
    hands = set()
    for _ in range(5):
        d = st.determinize(0, rng)
        assert np.array_equal(d.observation(0), st.observation(0))
        hands.add(tuple(d.battle["sides"][1]["mg"]["hand"]))
        assert d.battle["sides"][0]["mg"]["hand"] == st.battle["sides"][0]["mg"]["hand"]
    assert len(hands) > 1


# ------------------------------------------------------------------------------------------
# Wizards, Realm phase, realm spells (REALM PHASE, REALM SPELLS CARD LIST, DISASTER MAGIC)
# ------------------------------------------------------------------------------------------
def test_recruit_wizard_at_tower():
    """RECRUIT TROOPS: a Tower's one Wizard joins a hero there for 5 gold; killed, he returns."""
    g, st = setup_state()
    h = st.heroes[0]
    c = h["cell"]
    st.settle[c] = TOWER
    st.gold[0] = 7
    st.phase, st.queue, st.qi, st._mask = "recruit", [(0, c)], 0, None
    assert st.legal_actions_mask()[RECRUIT_WIZARD]
    st.apply(RECRUIT_WIZARD)
    assert h["wizard"] == c + 1 and st.gold[0] == 2
    assert not SP.tower_wizard_home(st, c)
    st.kill_wizard(0)
    assert SP.tower_wizard_home(st, c) and not SP.has_wizard(h)


def test_realm_phase_discard_and_draw_up_to_towers():
    """REALM PHASE: discard any, then draw until holding as many as Towers (+1 per Temple)."""
    g, st = setup_state()
    own = [c for c in np.flatnonzero(st.land) if st.owner[c] < 0][:3]
    st.settle[own[0]] = st.settle[own[1]] = TOWER
    st.owner[own[0]] = st.owner[own[1]] = 0
    st.variant[own[2]], st.owner[own[2]] = "temple", 0
    assert SP.hand_limit(st, 0) == 3 and SP.hand_limit(st, 1) == 0
    st.mg["hand"][0] = [R["fly"], R["view"]]
    st.mg["rdeck"] = [k for k in st.mg["rdeck"] if k not in (R["fly"], R["view"])]
    st.order = [0, 1]
    SP.begin_turn(st)
    st._advance()
    assert st.phase == "realm" and st.mg["timing"] == "discard" and st.current_player == 0
    st.apply(REALM0 + R["fly"])
    assert st.mg["hand"][0] == [R["view"]] and st.mg["rdisc"] == [R["fly"]]
    st.apply(DONE)
    assert len(st.mg["hand"][0]) == 3 and R["view"] in st.mg["hand"][0]
    assert st.mg["hand"][1] == []


def test_decks_seeded_from_env_rng():
    """MAP, CARDS: spell decks are shuffled from the env seed (same seed, same decks)."""
    a = G2.new_initial_state(np.random.default_rng(4))
    b = G2.new_initial_state(np.random.default_rng(4))
    c = G2.new_initial_state(np.random.default_rng(5))
    assert a.mg["rdeck"] == b.mg["rdeck"] and a.mg["bdeck"] == b.mg["bdeck"]
    assert a.mg["rdeck"] != c.mg["rdeck"] or a.mg["bdeck"] != c.mg["bdeck"]


def realm_ready(spell, seed=0):
    g, st, a, b, d, cell = two_heroes(seed)
    a["wizard"] = -1
    st.mg["hand"][0] = [R[spell]]
    return g, st, a, b, d, cell


def test_one_realm_spell_per_wizard_per_turn():
    """REALM SPELLS NOTES: a wizard can only cast one realm spell per turn."""
    g, st, a, b, d, cell = realm_ready("fly")
    st.mg["hand"][0].append(R["animate_dead"])
    assert SP.castable(st, 0, 0, "move") == [R["fly"], R["animate_dead"]]
    SP.cast_realm(st, 0, 0, R["fly"], None)
    assert SP.castable(st, 0, 0, "move") == []


def test_move_window_flow_fly():
    """REALM SPELLS: Fly (Move phase), cast through the move-phase window: MP +5."""
    g, st = setup_state()
    st.heroes[0]["wizard"] = -1
    st.mg["hand"][0] = [R["fly"]]
    while st.phase == "recruit":
        st.apply(DONE)
    while st.phase not in ("realm", "move"):
        st.apply(st.legal_actions()[0])
    assert st.phase == "realm" and st.mg["timing"] == "move"
    seat = st.current_player
    h = st.heroes[st.queue[st.qi][1]]
    mp = h["mp"]
    st.apply(REALM0 + R["fly"])
    assert h["mp"] == mp + 5 and st.mg["hand"][seat] == []


def test_gust_of_wind_at_sea():
    """REALM SPELLS: Gust of Wind, ships move +2 (only for a hero at sea)."""
    g, st, a, b, d, cell = realm_ready("gust_of_wind")
    assert SP.realm_targets(st, 0, 0, R["gust_of_wind"]) == []
    m = next(int(x) for x in range(g.n_cells) if not st.land[x])
    a["cell"] = m
    st.ships[m], st.fleet_owner[m] = 1, 0
    assert SP.realm_targets(st, 0, 0, R["gust_of_wind"]) == [None]
    SP.cast_realm(st, 0, 0, R["gust_of_wind"], None)
    from envs.warbah import sea as SEA
    base = st.game.cfg["sea"]["sea_moves"] + st.abil(a, "navigation")
    assert SEA._sea_mp(st, a) == base + 2


def test_teleport():
    """REALM SPELLS: Teleport moves the wizard to another friendly hero without one."""
    g, st, a, b, d, cell = realm_ready("teleport")
    assert SP.realm_targets(st, 0, 0, R["teleport"]) == []
    b["seat"] = 0
    tg = SP.realm_targets(st, 0, 0, R["teleport"])
    assert tg == [CELL0 + cell]
    SP.cast_realm(st, 0, 0, R["teleport"], tg[0])
    assert SP.has_wizard(b) and not SP.has_wizard(a)


def test_dimension_door():
    """REALM SPELLS: Dimension Door moves the hero to any hex its player controls."""
    g, st, a, b, d, cell = realm_ready("dimension_door")
    c = next(int(x) for x in np.flatnonzero(st.land) if st.hero_at(int(x)) < 0
             and st.encounter[x] == 0)
    st.owner[c] = 0
    tg = SP.realm_targets(st, 0, 0, R["dimension_door"])
    assert CELL0 + c in tg and CELL0 + a["cell"] not in tg
    SP.cast_realm(st, 0, 0, R["dimension_door"], CELL0 + c)
    assert a["cell"] == c


def test_blizzard():
    """REALM SPELLS: Blizzard, an adjacent army can neither move nor attack."""
    g, st, a, b, d, cell = realm_ready("blizzard")
    b["mp"], b["attacks"] = 3, 1
    assert SP.realm_targets(st, 0, 0, R["blizzard"]) == [d]
    SP.cast_realm(st, 0, 0, R["blizzard"], d)
    assert b["mp"] == 0 and b["attacks"] == 0


@pytest.mark.parametrize("name,razed", [("firestorm", True), ("stone_rain", True),
                                        ("earthquake", True), ("flood", False),
                                        ("pestilence", False), ("plague", False)])
def test_settlement_disasters(name, razed):
    """REALM SPELLS + NOTES: razing / decimating disasters: no income next turn, the army or
    garrison there loses 1D10 troops, a razed settlement loses its walls."""
    g, st, a, b, d, cell = realm_ready(name)
    b["alive"] = False
    st.terrain[cell], st.settle[cell] = TERRAINS.index("settlement"), SETTLEMENTS.index("city")
    st.owner[cell] = 1
    st.garrison[cell] = [20, 0, 0, 0]
    assert SP.realm_targets(st, 0, 0, R[name]) == [d]
    SP.cast_realm(st, 0, 0, R[name], d)
    assert 10 <= st.garrison[cell, 0] <= 19
    assert st.walls(cell, cell) == (0 if razed else 3)
    st.turn += 1
    assert SP.blighted(st, cell)
    gold = st.gold[1]
    st._collect_gold()
    assert st.gold[1] - gold < 3 + 4  # the city earns nothing (only the capitol pays)


def test_animate_dead():
    """REALM SPELLS: Animate Dead, 1D10 warriors join."""
    g, st, a, b, d, cell = realm_ready("animate_dead")
    w = int(a["troops"][0])
    SP.cast_realm(st, 0, 0, R["animate_dead"], None)
    assert w + 1 <= a["troops"][0] <= w + 10


def test_death_spell():
    """REALM SPELLS: Death Spell, an adjacent army loses 2D10 troops."""
    g, st, a, b, d, cell = realm_ready("death_spell")
    b["troops"][:] = [10, 10, 10, 10]
    SP.cast_realm(st, 0, 0, R["death_spell"], d)
    assert 20 <= b["troops"].sum() <= 38


def test_research():
    """REALM SPELLS: Research, one roll of 1D5+5 on the Treasure table (6-10)."""
    g, st, a, b, d, cell = realm_ready("research")
    before = (int(a["troops"][0]), SP.has_wizard(a), len(a.get("items") or []), len(a["abil"]))
    SP.cast_realm(st, 0, 0, R["research"], None)
    after = (int(a["troops"][0]), SP.has_wizard(a), len(a.get("items") or []), len(a["abil"]))
    assert after != before  # followers, or a magic item (the hero already has a wizard)


def test_summon_avatar():
    """REALM SPELLS: Summon Avatar, one more hero (on the capitol if it is free)."""
    g, st, a, b, d, cell = realm_ready("summon_avatar")
    n = len(st.heroes)
    b["alive"] = False
    a["cell"] = cell  # the caster steps off the capitol: it is free now
    SP.cast_realm(st, 0, 0, R["summon_avatar"], None)
    assert len(st.heroes) == n + 1 and st.heroes[-1]["cell"] == st.capitol[0]


def test_banish():
    """REALM SPELLS: Banish destroys an adjacent encounter and its treasure."""
    g, st, a, b, d, cell = realm_ready("banish")
    b["alive"] = False
    st.encounter[cell] = -1
    assert SP.realm_targets(st, 0, 0, R["banish"]) == [d]
    SP.cast_realm(st, 0, 0, R["banish"], d)
    assert st.encounter[cell] == 0 and TERRAINS[st.terrain[cell]] == "clear"


def test_whirlpool():
    """REALM SPELLS: Whirlpool sinks one ship on an adjacent water hex."""
    g, st, a, b, d, cell = realm_ready("whirlpool")
    b["alive"] = False
    st.land[cell] = False
    st.ships[cell], st.fleet_owner[cell] = 2, 1
    assert SP.realm_targets(st, 0, 0, R["whirlpool"]) == [d]
    SP.cast_realm(st, 0, 0, R["whirlpool"], d)
    assert st.ships[cell] == 1


def test_prosperity():
    """REALM SPELLS: Prosperity, 1D10 gold."""
    g, st, a, b, d, cell = realm_ready("prosperity")
    gold = int(st.gold[0])
    SP.cast_realm(st, 0, 0, R["prosperity"], None)
    assert gold + 1 <= st.gold[0] <= gold + 10


def test_sanctuary():
    """REALM SPELLS: Sanctuary, the target hex cannot be attacked this turn."""
    g, st, a, b, d, cell = realm_ready("sanctuary")
    assert st._target(0, cell)
    SP.cast_realm(st, 0, 0, R["sanctuary"], CELL0 + cell)
    assert not st._target(0, cell)


def test_stone_walls():
    """REALM SPELLS: Stone Walls, the wizard's hex has Walls +3 for the rest of the turn."""
    g, st, a, b, d, cell = realm_ready("stone_walls")
    w = st.walls(a["cell"], a["cell"])
    SP.cast_realm(st, 0, 0, R["stone_walls"], None)
    assert st.walls(a["cell"], a["cell"]) == w + 3


def test_curse():
    """REALM SPELLS: Curse, an opponent makes 1D10 less gold this turn."""
    g, st, a, b, d, cell = realm_ready("curse")
    assert SP.realm_targets(st, 0, 0, R["curse"]) == [TSEAT0]
    SP.cast_realm(st, 0, 0, R["curse"], TSEAT0)
    cur = st.mg["curse"][1]
    assert 1 <= cur <= 10
    gold = int(st.gold[1])
    st._collect_gold()
    assert st.gold[1] - gold == max(0, 4 - cur)


@pytest.mark.parametrize("name", ["heal", "cure_wounds"])
def test_heal_spells(name):
    """REALM SPELLS: Heal / Cure Wounds recover 1D10 troops killed in battle this turn."""
    g, st, a, b, d, cell = realm_ready(name)
    a["lost"] = 0
    assert SP.realm_targets(st, 0, 0, R[name]) == []
    a["lost"] = 4
    w = int(a["troops"][0])
    SP.cast_realm(st, 0, 0, R[name], None)
    assert 1 <= a["troops"][0] - w <= 4 and a["lost"] == 4 - (a["troops"][0] - w)


def test_fortell():
    """REALM SPELLS: Fortell negates an espionage result (the hook pays for it; the victim's
    choice is tested in test_magic_fortell.py)."""
    g, st, a, b, d, cell = realm_ready("fortell")
    assert SP.use_fortell(st, 0) and st.mg["hand"][0] == []
    assert not SP.use_fortell(st, 0)


def test_view():
    """REALM SPELLS: View explores a cluster of 4 hexes anywhere."""
    g, st, a, b, d, cell = realm_ready("view")
    tg = SP.realm_targets(st, 0, 0, R["view"])
    c = tg[0] - CELL0
    assert not st.explored[c]
    n = int(st.explored.sum())
    SP.cast_realm(st, 0, 0, R["view"], tg[0])
    assert st.explored[c] and 1 <= st.explored.sum() - n <= 4


def test_scry_shows_and_freezes_hidden_info():
    """REALM SPELLS: Scry shows enemy realm hands and the next 5 cards; determinize keeps them."""
    g, st, a, b, d, cell = realm_ready("scry")
    st.mg["hand"][1] = [R["plague"]]
    o0 = st.observation(0)
    SP.cast_realm(st, 0, 0, R["scry"], None)
    o1 = st.observation(0)
    assert not np.array_equal(o0, o1)
    dd = st.determinize(0, np.random.default_rng(0))
    assert dd.mg["hand"][1] == [R["plague"]] and dd.mg["rdeck"][-5:] == st.mg["rdeck"][-5:]
    assert np.array_equal(dd.observation(0), o1)


def test_disaster_window_target_substep():
    """DISASTER MAGIC PHASE: wizards cast Disaster spells after moving; the target is a sub-step."""
    g, st = setup_state()
    a = st.heroes[0]
    a["wizard"] = -1
    st.mg["hand"][0] = [R["death_spell"]]
    b = st.heroes[1]
    d = next(d for d in range(6) if st.nb[a["cell"], d] >= 0 and st.land[st.nb[a["cell"], d]])
    b["cell"] = int(st.nb[a["cell"], d])
    st.phase, st.queue, st.qi = "move", [], 0
    st.mg["opened"] = {"move"}
    st._advance()
    assert st.phase == "realm" and st.mg["timing"] == "disaster" and st.current_player == 0
    st.apply(REALM0 + R["death_spell"])
    assert st.phase == "realm_target" and st.legal_actions_mask()[d]
    total = int(b["troops"].sum())
    st.apply(d)
    assert b["troops"].sum() < total or total == 0
    assert st.mg["hand"][0] == []


def test_realm_target_cancel_keeps_card():
    """AEC sub-steps: DONE at the target step cancels the spell and keeps the card."""
    g, st = setup_state()
    a = st.heroes[0]
    a["wizard"] = -1
    st.mg["hand"][0] = [R["sanctuary"]]
    st.phase, st.queue, st.qi = "recruit", [], 0
    st.mg["opened"] = set()
    st._advance()
    while st.phase != "realm":
        st.apply(st.legal_actions()[0])
    assert st.mg["timing"] == "move"
    st.apply(REALM0 + R["sanctuary"])
    assert st.phase == "realm_target"
    st.apply(DONE)
    assert st.phase == "realm" and st.mg["hand"][0] == [R["sanctuary"]]


# ------------------------------------------------------------------------------------------
# Magic items (TREASURE TABLE, RECOVERY PHASE), Temple
# ------------------------------------------------------------------------------------------
def test_treasure_wandering_mage_and_items():
    """TREASURE TABLE 7-10: Wandering Mage (wizard, else realm item), ability item, battle item."""
    g, st = setup_state()
    h = st.heroes[0]
    SP.apply_treasure(st, 0, 7)
    assert h["wizard"] == -1
    SP.apply_treasure(st, 0, 7)
    assert h["items"][-1]["kind"] == "realm"
    n = len(h["abil"])
    SP.apply_treasure(st, 0, 8)
    assert h["items"][-1]["kind"] == "ability" and len(h["abil"]) == n + 1
    SP.apply_treasure(st, 0, 10)
    assert h["items"][-1]["kind"] == "battle"


def test_realm_item_cast_without_wizard_once_per_turn():
    """TREASURE 7: a realm-spell item is usable once per turn."""
    g, st = setup_state()
    h = st.heroes[0]
    h["items"] = [{"kind": "realm", "k": R["prosperity"], "used": -1}]
    assert SP.castable(st, 0, 0, "collect") == [R["prosperity"]]
    SP.cast_realm(st, 0, 0, R["prosperity"], None)
    assert SP.castable(st, 0, 0, "collect") == []
    st.turn += 1
    assert SP.castable(st, 0, 0, "collect") == [R["prosperity"]]


def test_victor_takes_enemy_items():
    """RECOVERY PHASE: a hero who defeats an enemy hero takes all his magic items."""
    g, st, a, b, d, cell = two_heroes()
    b["items"] = [{"kind": "battle", "k": 1, "used": -1},
                  {"kind": "ability", "k": ("command", 0), "used": -1}]
    b["abil"] = [("command", 0)]
    b["wizard"] = -1
    b["alive"] = False
    st.battle = {"sides": [{"hero": 0}, {"hero": 1}]}
    SP.end_battle(st)
    assert len(a["items"]) == 2 and ("command", 0) in a["abil"] and not SP.has_wizard(b)


def test_observation_shows_own_hand_only():
    """Hidden information: my realm hand is in my observation, the enemy's only as a count."""
    g, st = setup_state()
    st.mg["hand"][0] = [R["fly"]]
    st.mg["hand"][1] = [R["plague"]]
    o = st.observation(0)
    mag = o[-SP.MAGIC_VECTOR:]
    assert mag[13 + R["fly"]] > 0 and mag[13 + R["plague"]] == 0
    assert mag[152] > 0
    d = st.determinize(0, np.random.default_rng(1))
    assert d.mg["hand"][0] == [R["fly"]]


def test_give_item_to_adjacent_friend_once_per_turn():
    """MOVE & EXPLORE: adjacent friendly heroes exchange magic items, each once per turn."""
    from envs.warbah.config import GIVE_ITEM0
    g, st, a, b, d, cell = two_heroes()
    b["seat"] = 0
    a["items"] = [{"kind": "ability", "k": ("defense", 0), "used": -1}]
    a["abil"] = [("defense", 0)]
    a["mp"] = 3
    st.phase, st.queue, st.qi, st._mask = "move", [(0, 0), (0, 1)], 0, None
    assert st.legal_actions_mask()[GIVE_ITEM0 + d]
    st.apply(GIVE_ITEM0 + d)
    assert a["items"] == [] and a["abil"] == [] and ("defense", 0) in b["abil"]
    assert len(b["items"]) == 1 and a["mp"] == 0
    while st.queue[st.qi] != (0, 1):
        st.apply(DONE)
    mask = st.legal_actions_mask()
    assert not mask[GIVE_ITEM0:GIVE_ITEM0 + 6].any()  # it already changed hands this turn


def test_teleport_item_without_wizard_not_castable():
    """REALM SPELLS: Teleport moves a wizard, so a hero without one cannot use a Teleport item."""
    g, st, a, b, d, cell = two_heroes()
    b["seat"] = 0
    a["items"] = [{"kind": "realm", "k": R["teleport"], "used": -1}]
    assert SP.castable(st, 0, 0, "move") == []



def _five_types_without_warriors(st, h):
    """Archers, cavalry, catapults and two special kinds: 5 troop types, no warriors."""
    from envs.warbah import units as U
    h["troops"][:] = [0, 3, 3, 3]
    sp = U.special(h)
    sp[:] = 0
    sp[U.SPECIALS.index("orcs")] = 1
    sp[U.SPECIALS.index("hobgoblins")] = 1
    assert U.type_count(h) == U.type_limit(st, h) == 5


@pytest.mark.parametrize("name", ["animate_dead", "heal"])
@pytest.mark.parametrize("extra", [None, "warriors", "command"])
def test_warriors_gained_respect_the_troop_type_limit(name, extra):
    """SPECIAL UNIT NOTES (at most 5 troop types; Command +1) / REALM SPELLS Animate Dead, Heal:
    a Hero who already has 5 types and no warriors gains no warriors (designed: they do not
    join, Heal's troops stay lost); with warriors in the army, or with Command, they join."""
    g, st, a, b, d, cell = realm_ready(name)
    _five_types_without_warriors(st, a)
    a["lost"] = 6
    if extra == "warriors":
        a["troops"][0] = 1
    elif extra == "command":
        a["abil"] = [("command", 0)]
    w = int(a["troops"][0])
    SP.cast_realm(st, 0, 0, R[name], None)
    joined = int(a["troops"][0]) - w
    if extra is None:
        assert joined == 0 and a["lost"] == 6
    else:
        assert 1 <= joined <= (10 if name == "animate_dead" else 6)
        assert name == "animate_dead" or a["lost"] == 6 - joined


def test_healing_and_treasure_followers_respect_the_troop_type_limit():
    """ABILITY TABLE Healing (lost troops back as warriors in recovery) and TREASURE TABLE 6
    (1D10 followers): no warriors join a Hero at his 5-type limit without warriors (designed);
    once he has warriors they join."""
    from envs.warbah.rules import _treasure_rolls
    g, st, a, b, d, cell = realm_ready("fly")
    _five_types_without_warriors(st, a)
    st._recover_hero(a, 5)
    _treasure_rolls(st, (0,), (6, 7))
    assert a["troops"][0] == 0
    a["troops"][0] = 1
    st._recover_hero(a, 5)
    _treasure_rolls(st, (0,), (6, 7))
    assert a["troops"][0] == 1 + 5 + 7
