"""Zaberias Q&A audit: one scenario per Q&A ruling that had no test of its own (RULES.md, "Q&A
audit" table, maps every ruling to its code and test). Names give the unit / section."""
from __future__ import annotations

import pytest

from tabletop_arena.envs.zaberias import abilities as AB
from tabletop_arena.envs.zaberias import combat as CB
from tabletop_arena.envs.zaberias import movement as M

from .util import ScriptedDice, act, attack, blank, cell, hold, legal, on_map, put, select


class FixedDice:
    """Every die shows the same face (index = face value on the designed die 0..5)."""

    def __init__(self, face):
        self.face = face

    def integers(self, k, *a, **kw):
        return self.face


def _next_turn(st):
    st._end_turn()
    st._memo = {}


# ------------------------------------------------------------------ rulebook Q&A --------------
def test_range_qa_abilities_use_range_too():
    """Rulebook 6 Q&A ("does using range also refer to using their ability? Yes"): a Sorcerer's
    target must be within its range (Dark Angel, range 3)."""
    st = blank(tribes=["undead", "humans"])
    angel = put(st, 0, "Dark Angel", 12, 4)
    put(st, 1, "Knight", 9, 4)            # 3 away
    put(st, 1, "Archer", 8, 4)             # 4 away
    select(st, angel)
    assert cell(st, 9, 4) in legal(st, "ability") and cell(st, 8, 4) not in legal(st, "ability")


def test_gold_mine_qa_enemy_mine_and_several_mines():
    """Rulebook 9 Q&A: a coin also for an enemy's gold mine, and for each of several mines."""
    st = blank(coins=0)
    put(st, 0, "Skeleton", 11, 0)                # own mine
    put(st, 0, "Bat", 2, 6)                      # the enemy's mine
    _next_turn(st)
    _next_turn(st)
    assert st.cur == 0 and st.coins[0] == 1 + 2  # wood city + two mines


def test_cities_qa_leaving_a_city_keeps_it_but_leaves_it_exposed():
    """Rulebook 3 Q&A ("can you leave a city once it has been created? Yes, but ... exposed"):
    the unit walks out, the city stays its owner's and an enemy may attack the empty city."""
    st = blank(tribes=["humans", "undead"], coins=6)
    g = st.game
    act(st, "buy", g.slot_of(0, "Knight"))
    act(st, "move", cell(st, 13, 0))
    kn = g.slot_of(0, "Knight")
    select(st, kn)
    act(st, "move", cell(st, 12, 1))
    assert st.city_owner[0] == 0 and st.occ[cell(st, 13, 0)] == -1
    _next_turn(st)
    bat = put(st, 1, "Bat", 13, 1)
    st._memo = {}
    assert cell(st, 13, 0) in st.unit_options(bat)["attack"]


# ------------------------------------------------------------------ Siphons -------------------
@pytest.mark.parametrize("tribe,siphon,friend", [("undead", "Vampire", "Skeleton"),
                                                 ("humans", "Ninja", "Knight"),
                                                 ("guardians", "Phantom", "Elf Ranger")])
def test_siphon_qa_souls_in_ambush_in_defence_and_the_choice_of_three(tribe, siphon, friend):
    """Vampire / Ninja / Phantom Q&A, the same for the three holding Siphons: (1) attacking with
    a friend, the Siphon still takes the soul; (2) defending against two attackers in its range
    and winning, it takes both; (3) holding 3 and beating a 4th, its owner chooses which 3 to
    keep; (4) no attacks on friendly units."""
    st = blank(tribes=[tribe, "orcs"])
    g = st.game
    fr = put(st, 0, friend, 11, 4)
    sp = put(st, 0, siphon, 10, 5)
    gob = put(st, 1, "Goblin", 10, 4)
    assert cell(st, 11, 4) not in st.unit_options(sp)["attack"]        # (4) no friendly attack
    st.rng = FixedDice(0)
    st.boost[fr] = (0, 20, 0)
    select(st, fr)                                # the friend declares the attack
    act(st, "attack", cell(st, 10, 4))
    act(st, "join", sp % g.U)
    assert st.held[sp] == [gob] and st.status[gob] == M.HELD           # (1)
    # (2) defending: an Orc ambush of two, both next to it
    st2 = blank(tribes=["orcs", tribe])
    sp = put(st2, 1, siphon, 10, 4)
    w = put(st2, 0, "Orc Warrior", 11, 4)
    t = put(st2, 0, "Troll Brute", 10, 5)
    st2.boost[sp] = (0, 20, 0)
    st2.rng = FixedDice(0)
    select(st2, w)
    act(st2, "attack", cell(st2, 10, 4))
    act(st2, "join", t % g.U)
    assert sorted(st2.held[sp]) == sorted([w, t])
    # (3) a fourth: the owner chooses whom to keep
    st3 = blank(tribes=[tribe, "orcs"])
    sp = put(st3, 0, siphon, 11, 4)
    hold(st3, sp, 1, ["Goblin", "Orc Warrior", "Spear Thrower"])
    tb = put(st3, 1, "Troll Brute", 10, 4)
    st3.boost[sp] = (0, 20, 0)
    st3.rng = FixedDice(0)
    select(st3, sp)
    act(st3, "attack", cell(st3, 10, 4))
    assert st3.phase == "siphon" and legal(st3, "release") == [0, 1, 2, 3]
    act(st3, "release", 0)                        # keep the Troll Brute instead of the Goblin
    assert len(st3.held[sp]) == 3 and tb in st3.held[sp]


def test_phantom_qa_new_steps_this_turn_only_if_it_has_not_moved():
    """Phantom Q&A: a soul taken before moving adds its steps at once; after moving, no more
    moves this turn."""
    st = blank(tribes=["guardians", "orcs"])
    ph = put(st, 0, "Phantom", 11, 4)
    gob = put(st, 1, "Goblin", 10, 4)
    st.boost[ph] = (0, 20, 0)
    attack(st, ph, 10, 4, dice=[0, 0])
    assert st.held[ph] == [gob] and M.steps(st, ph) == 2 + 20 * 0 + 3
    assert cell(st, 8, 4) in st.unit_options(ph)["move"]          # 3 steps away: 2 + 3 now
    st2 = blank(tribes=["guardians", "orcs"])
    ph = put(st2, 0, "Phantom", 12, 4)
    select(st2, ph)
    act(st2, "move", cell(st2, 11, 4))
    put(st2, 1, "Goblin", 10, 4)
    st2.boost[ph] = (0, 20, 0)
    attack(st2, ph, 10, 4, dice=[0, 0])
    assert st2.held[ph] and st2.unit_options(ph)["move"] == []


# ------------------------------------------------------------------ Undead --------------------
def test_necromancer_qa_any_grade_only_friends_and_after_a_head_hunter_kill():
    """Necromancer Q&A: any grade (a gold Skull Dragon), only friendly units (a fallen enemy is
    not offered), and yes for a unit the Head Hunter just killed (it sold the head, the body
    stays)."""
    st = blank(tribes=["undead", "orcs"])
    nec = put(st, 0, "Necromancer", 11, 4)
    sd = put(st, 0, "Skull Dragon", 10, 4)
    hh = put(st, 1, "Head Hunter", 9, 4)
    gob = put(st, 1, "Goblin", 11, 5)
    CB.kill(st, sd, hh)                          # killed by the Head Hunter
    CB.kill(st, gob, nec)                        # a fallen enemy
    st._memo = {}
    assert st.status[sd] == M.ARMORY and AB.revivable(st, nec) == {cell(st, 10, 4): sd}
    select(st, nec)
    assert legal(st, "ability") == [cell(st, 10, 4)]
    act(st, "ability", cell(st, 10, 4))
    assert on_map(st, sd) and st.cell[sd] == cell(st, 10, 4)


def test_skull_dragon_and_giant_armor_qa_auras_count_when_defending():
    """Skull Dragon Q&A (the extra strength works defending too) and Giant Armor Q&A (the extra
    die also when a friendly unit is attacked): the defender's totals include them."""
    st = blank(tribes=["humans", "undead"])
    kn = put(st, 0, "Knight", 11, 4)
    put(st, 1, "Skull Dragon", 2, 2)             # far away, another board
    skel = put(st, 1, "Skeleton", 10, 4)
    st.rng = ScriptedDice([1, 2])                # Knight 1 + 3, Skeleton 2 + 1 + 1
    select(st, kn)
    act(st, "attack", cell(st, 10, 4))
    assert st.last_battle == (4, 4) and st.phase == "tie"
    st2 = blank(tribes=["undead", "humans"])
    skel = put(st2, 0, "Skeleton", 11, 4)
    kn = put(st2, 1, "Knight", 10, 4)
    put(st2, 1, "Giant Armor", 2, 2)
    st2.rng = ScriptedDice([5, 1, 1])            # Skeleton 5 + 1; Knight rolls 2 dice: 2 + 3
    select(st2, skel)
    act(st2, "attack", cell(st2, 10, 4))
    assert st2.last_battle == (6, 5) and st2.rng.faces == []


# ------------------------------------------------------------------ Humans --------------------
def test_dazzle_walker_qa_only_one_enemy_at_a_time():
    """Dazzle Walker Q&A: the potion disables one enemy unit in range, not all of them."""
    st = blank(tribes=["humans", "undead"])
    dw = put(st, 0, "Dazzle Walker", 12, 4)
    vamp = put(st, 1, "Vampire", 10, 4)
    sd = put(st, 1, "Skull Dragon", 11, 5)
    select(st, dw)
    act(st, "ability", cell(st, 10, 4))
    assert st.effects[vamp] & M.STUN and not st.effects[sd] & M.STUN
    assert st.unit_options(dw)["ability"] == []      # once a turn


def test_teleporter_qa_unit_that_attacked_cannot_attack_the_city_it_lands_in():
    """Teleporter Q&A: in an unoccupied enemy city the teleported unit may attack it only if it
    has not attacked that round (no renewal)."""
    st = blank(tribes=["humans", "undead"])
    tp = put(st, 0, "Teleporter", 9, 5)
    kn = put(st, 0, "Knight", 10, 5, fresh=False)
    site = st.geo.site_of[cell(st, 7, 5)]
    st.city_owner[site], st.city_grade[site] = 1, 1
    select(st, tp)
    act(st, "ability", cell(st, 10, 5))
    act(st, "stop")
    act(st, "move", cell(st, 7, 5))
    assert st.cell[kn] == cell(st, 7, 5) and st.unit_options(kn)["attack"] == []


def test_dragon_qa_rider_gets_off_and_attacks_but_not_after_a_combined_attack():
    """Dragon Q&A: getting on or off does not stop the wood unit from attacking (an unmoved rider
    gets off and attacks from the ground); after attacking together with the Dragon it cannot
    attack again once it gets off."""
    st = blank(tribes=["humans", "undead"])
    dr = put(st, 0, "Dragon", 11, 4)
    ar = put(st, 0, "Archer", 11, 4)             # riding, unmoved
    put(st, 1, "Skeleton", 8, 4)
    select(st, ar)
    act(st, "move", cell(st, 10, 4))             # gets off
    assert cell(st, 8, 4) in st.unit_options(ar)["attack"]
    st2 = blank(tribes=["humans", "undead"])
    dr = put(st2, 0, "Dragon", 11, 4)
    ar = put(st2, 0, "Archer", 11, 4)
    put(st2, 1, "Skeleton", 9, 4)
    put(st2, 1, "Bat", 7, 2)
    st2.rng = FixedDice(0)
    select(st2, dr)
    act(st2, "attack", cell(st2, 9, 4))          # 0 + 5 + 1 vs 0 + 1: together
    assert st2.attacks[ar] == 0
    select(st2, ar)
    act(st2, "move", cell(st2, 10, 4))           # gets off: no attack left
    assert st2.unit_options(ar)["attack"] == []


def test_dragon_qa_its_move_is_one_go_and_a_unit_that_walked_on_stays_on():
    """Dragon Q&A: the Dragon cannot move, take a unit on from a neighbouring square and move on
    (one go); a wood unit that walked onto the Dragon has finished its move and cannot get off
    this turn, even with steps left."""
    st = blank(tribes=["humans", "undead"])
    dr = put(st, 0, "Dragon", 13, 4)
    kn = put(st, 0, "Knight", 10, 5)
    st.moved[kn] = False
    select(st, dr)
    act(st, "move", cell(st, 11, 5))             # nothing on the way: no pick-up step
    assert st.phase == "main"
    select(st, kn)
    act(st, "move", cell(st, 11, 5))             # 1 of its 2 steps: it climbs on
    assert st.rider[dr] == kn
    assert st.unit_options(dr)["move"] == [] and st.unit_options(kn)["move"] == []


def test_dragon_qa_carries_no_enemy_units():
    """Dragon Q&A: only friendly wood units ride; an enemy wood unit can neither board nor be
    picked up (by landing or on the way)."""
    st = blank(tribes=["humans", "undead"])
    dr = put(st, 0, "Dragon", 13, 4)
    skel = put(st, 1, "Skeleton", 12, 4)
    assert cell(st, 12, 4) not in st.unit_options(dr)["move"]
    select(st, dr)
    act(st, "move", cell(st, 11, 4))             # over the Skeleton
    assert st.phase == "main" and st.rider[dr] == -1
    _next_turn(st)
    select(st, skel)
    assert cell(st, 11, 4) not in legal(st, "move")


def test_dragon_qa_rider_strength_combined_when_defending():
    """Dragon Q&A: while the rider is on, their dice and strength are combined also defending."""
    st = blank(tribes=["undead", "humans"])
    skel = put(st, 0, "Skeleton", 11, 4)
    put(st, 1, "Dragon", 10, 4)
    put(st, 1, "Knight", 10, 4)
    st.rng = ScriptedDice([5, 1, 2])             # Skeleton 5 + 1; Dragon 1 + 5, Knight 2 + 3
    select(st, skel)
    act(st, "attack", cell(st, 10, 4))
    assert st.last_battle == (6, 11) and not on_map(st, skel)


# ------------------------------------------------------------------ Orcs ----------------------
def test_cyclops_qa_shocked_unit_still_uses_its_ability():
    """Cyclops Q&A ("can they still use their ability? Yes"): a shocked Sorcerer cannot attack
    but still casts its ability."""
    st = blank(tribes=["orcs", "guardians"])
    cyc = put(st, 0, "Cyclops", 12, 4)
    goo = put(st, 1, "Turtle Goo", 10, 4)
    put(st, 0, "Goblin", 10, 5)
    select(st, cyc)
    act(st, "ability", cell(st, 10, 4))
    _next_turn(st)
    opts = st.unit_options(goo)
    assert opts["attack"] == [] and cell(st, 10, 5) in opts["ability"]


def test_head_hunter_qa_ambush_coins_spent_at_once_and_none_against_a_far_attacker():
    """Head Hunter Q&A: in an ambush with a friend it still gets 2 coins, usable at once (a unit
    is bought with them); defending, it gets nothing from an attacker out of its range."""
    st = blank(tribes=["orcs", "humans"], coins=0)
    g = st.game
    gob = put(st, 0, "Goblin", 11, 4)
    hh = put(st, 0, "Head Hunter", 10, 5)
    kn = put(st, 1, "Knight", 10, 4)
    put(st, 0, "Orc Warrior", 9, 5)
    assert cell(st, 9, 5) not in st.unit_options(hh)["attack"]     # never its own tribe
    st._memo = {}
    st.boost[gob] = (0, 20, 0)
    st.rng = FixedDice(0)
    select(st, gob)
    act(st, "attack", cell(st, 10, 4))
    act(st, "join", hh % g.U)
    assert not on_map(st, kn) and st.coins[0] == 2
    assert g.slot_of(0, "Spear Thrower") in legal(st, "buy")   # costs 2
    st2 = blank(tribes=["humans", "orcs"], coins=0)
    ar = put(st2, 0, "Archer", 12, 4)
    hh = put(st2, 1, "Head Hunter", 10, 4)
    attack(st2, ar, 10, 4, dice=[0, 5])          # the Archer loses from 2 squares away
    assert on_map(st2, ar) and st2.coins[1] == 0


def test_energion_qa_any_grade_rhino_rider_and_head_hunter_twice_and_recreated_energion():
    """Energion Q&A: any grade (the gold Rhino Rider moves again), a Head Hunter attacks and earns
    twice; the Energion cannot attack after helping, unless it is killed and created again."""
    st = blank(tribes=["orcs", "humans"], coins=0)
    g = st.game
    en = put(st, 0, "Energion", 11, 4)
    rr = put(st, 0, "Rhino Rider", 12, 4, fresh=False)
    select(st, en)
    act(st, "ability", cell(st, 12, 4))
    assert not st.moved[rr] and st.attacks[rr] == 1
    st2 = blank(tribes=["orcs", "humans"], coins=0)
    en = put(st2, 0, "Energion", 12, 4)          # range 2: reaches the Head Hunter only
    hh = put(st2, 0, "Head Hunter", 11, 5)
    put(st2, 1, "Knight", 10, 5)
    put(st2, 1, "Archer", 11, 6)
    st2.boost[hh] = (0, 20, 0)
    st2.rng = FixedDice(0)
    select(st2, hh)
    act(st2, "attack", cell(st2, 10, 5))
    select(st2, en)
    act(st2, "ability", cell(st2, 11, 5))
    select(st2, hh)
    act(st2, "attack", cell(st2, 11, 6))
    assert st2.coins[0] == 4
    assert st2.unit_options(en)["attack"] == [] and st2.attacks[en] == 0
    CB.kill(st2, en, -1)
    st2.coins[0] = 6
    st2.city_grade[0] = 2                        # a metal city creates the Energion
    st2._memo = {}
    act(st2, "buy", en % g.U)
    act(st2, "move", cell(st2, 13, 0))
    assert st2.attacks[en] == 1                  # created again: it may attack


def test_rhino_rider_qa_flyers_last_step_and_a_siphon_holding_units():
    """Rhino Rider Q&A: flying units are trampled (they rest on the ground), so is a unit on the
    last step, and a Siphon with units underneath (they go back to their tribes)."""
    st = blank(tribes=["orcs", "undead"])
    g = st.game
    rr = put(st, 0, "Rhino Rider", 13, 4)
    bat = put(st, 1, "Bat", 12, 4)
    vamp = put(st, 1, "Vampire", 11, 4)
    hold(st, vamp, 0, ["Goblin"])
    skel = put(st, 1, "Skeleton", 9, 4)
    gob = g.slot_of(0, "Goblin")
    select(st, rr)
    act(st, "move", cell(st, 12, 4))
    assert not on_map(st, bat)
    act(st, "move", cell(st, 11, 4))
    assert not on_map(st, vamp) and st.status[gob] == M.ARMORY and st.held[vamp] == []
    act(st, "move", cell(st, 10, 4))
    act(st, "move", cell(st, 9, 4))              # the fourth and last step
    assert not on_map(st, skel) and st.phase == "main" and st.cell[rr] == cell(st, 9, 4)


def test_balloon_dragon_qa_cluster_bombs_when_defending():
    """Balloon Dragon Q&A: defending, every 1 rolled adds another die too."""
    st = blank(tribes=["undead", "orcs"])
    skel = put(st, 0, "Skeleton", 11, 4)
    put(st, 1, "Balloon Dragon", 10, 4)
    # Skeleton 2 + 1; Balloon 1, 1, 0 -> two more: 1, 0 -> one more: 0; 3 + 1 muscle
    st.rng = ScriptedDice([2, 1, 1, 0, 1, 0, 0])
    select(st, skel)
    act(st, "attack", cell(st, 10, 4))
    assert st.last_battle == (3, 4) and st.rng.faces == []


# ------------------------------------------------------------------ Guardians -----------------
def test_spider_witch_qa_after_moving_gives_steps_to_any_grade_not_used_strength():
    """Spider Witch Q&A: she may give her 2 steps after using her own move; any grade (a gold
    Two Headed Dragon); a unit that attacked gets no strength, only steps."""
    st = blank(tribes=["guardians", "orcs"])
    sw = put(st, 0, "Spider Witch", 12, 4)
    thd = put(st, 0, "Two Headed Dragon", 11, 5)
    select(st, sw)
    act(st, "move", cell(st, 11, 4))
    st.attacked[thd] = True
    select(st, sw)
    act(st, "ability", cell(st, 11, 5))
    assert st.boost[thd] == (0, 0, 2) and M.steps(st, thd) == 4 + 2


def test_earth_mover_qa_ninety_degrees_either_way():
    """Earth Mover Q&A: 90 degrees right or left (ROTATE 2 = three quarter turns clockwise = a
    quarter turn to the left)."""
    st = blank(tribes=["guardians", "orcs"])
    em = put(st, 0, "Earth Mover", 12, 5)
    select(st, em)
    act(st, "rotate", 2)
    # left turn of the board whose top-left is (7, 0): local (r, c) -> (6 - c, r)
    assert st.cell[em] == cell(st, 7 + 6 - 5, 5) and st.rots[0] == 3


def test_two_headed_dragon_qa_unit_then_city_and_an_enemy_city_taken_then_another_attack():
    """Two Headed Dragon Q&A: it may attack a unit first and then take over a city; taking an
    unoccupied enemy city it lands in (scenario 2) is one of its two attacks, it may still attack
    after it."""
    st = blank(tribes=["guardians", "orcs"])
    st.city_owner[2], st.city_grade[2] = 1, 1       # an Orc city on (12,6)
    thd = put(st, 0, "Two Headed Dragon", 12, 6)    # landed in it
    gob = put(st, 1, "Goblin", 11, 6)
    st.rng = FixedDice(0)
    st.boost[thd] = (0, 20, 0)
    select(st, thd)
    act(st, "attack", cell(st, 11, 6))              # the unit first
    assert not on_map(st, gob) and st.attacks[thd] == 1
    select(st, thd)
    act(st, "attack", cell(st, 12, 6))              # then the city it stands in
    assert st.city_owner[2] == 0 and st.attacks[thd] == 0
    st2 = blank(tribes=["guardians", "orcs"])
    st2.city_owner[2], st2.city_grade[2] = 1, 1
    thd = put(st2, 0, "Two Headed Dragon", 12, 6)
    gob = put(st2, 1, "Goblin", 11, 6)
    st2.rng = FixedDice(0)
    st2.boost[thd] = (0, 20, 0)
    select(st2, thd)
    act(st2, "attack", cell(st2, 12, 6))            # the city first
    assert st2.city_owner[2] == 0 and cell(st2, 11, 6) in st2.unit_options(thd)["attack"]


# ------------------------------------------------------------------ Unit Groups ---------------
def test_unit_groups_sorcerer_attacks_after_its_ability_helper_not_ability_after_attacking():
    """Unit Groups: Sorcerers may attack after using their ability; Helpers either attack or use
    their ability (an Energion that attacked cannot use its skill)."""
    st = blank(tribes=["undead", "humans"])
    angel = put(st, 0, "Dark Angel", 12, 4)
    put(st, 1, "Knight", 11, 4)
    select(st, angel)
    act(st, "ability", cell(st, 11, 4))
    assert cell(st, 11, 4) in st.unit_options(angel)["attack"]
    st2 = blank(tribes=["orcs", "humans"])
    en = put(st2, 0, "Energion", 11, 4)
    put(st2, 0, "Orc Warrior", 12, 4, fresh=False)
    put(st2, 1, "Knight", 10, 4)
    select(st2, en)
    assert cell(st2, 12, 4) in legal(st2, "ability")
    st2.phase = "main"
    st2._memo = {}
    st2.rng = FixedDice(0)
    st2.boost[en] = (0, 20, 0)
    attack(st2, en, 10, 4)
    assert st2.unit_options(en)["ability"] == []


def test_dragon_does_not_pick_up_a_glued_wood_unit():
    """Turtle Goo ability (the target is glued in its place for a turn) with the Dragon Q&A
    (pick-up of an unmoved wood unit): a glued unit is not picked up, neither by landing on it
    nor on the way (reading, RULES.md)."""
    st = blank(tribes=["humans", "guardians"])
    dr = put(st, 0, "Dragon", 13, 4)
    kn = put(st, 0, "Knight", 12, 4)
    st.effects[kn] |= M.GLUE
    st._memo = {}
    assert cell(st, 12, 4) not in st.unit_options(dr)["move"]
    select(st, dr)
    act(st, "move", cell(st, 11, 4))
    assert st.phase == "main" and st.rider[dr] == -1


def test_teleporter_ability_teleported_unit_may_then_move_and_attack():
    """Teleporter ability text (a unit may move then be teleported, or be teleported then move):
    a fresh unit keeps its move and attack after the teleport."""
    st = blank(tribes=["humans", "undead"])
    tp = put(st, 0, "Teleporter", 12, 4)
    kn = put(st, 0, "Knight", 12, 5)
    put(st, 1, "Skeleton", 9, 4)
    select(st, tp)
    act(st, "ability", cell(st, 12, 5))
    act(st, "stop")
    act(st, "move", cell(st, 10, 4))
    opts = st.unit_options(kn)
    assert opts["move"] and cell(st, 9, 4) in opts["attack"]


def test_dice_rule_10_tie_reroll_keeps_the_dragons_rider():
    """Dice Rolling Rules 10 and the Dragon Q&A: the Dragon attacking with a wood unit on its back
    rolls the rider's dice and adds its muscle ('they both fight as one'); on a tie the attacker
    may go on 'until one wins' -- the re-roll is the same attack, so the rider still counts."""
    st = blank(tribes=["humans", "undead"])
    dr = put(st, 0, "Dragon", 11, 4)
    kn = put(st, 0, "Knight", 11, 4)             # riding
    sc = put(st, 1, "Soul Collector", 10, 4)
    # Dragon 0 + 5, Knight 0 + 3 = 8 against 3 + 3 + 2 = 8: a tie
    st.rng = ScriptedDice([0, 0, 3, 3, 1, 1, 2, 2])
    select(st, dr)
    act(st, "attack", cell(st, 10, 4))
    assert st.phase == "tie" and st.last_battle == (8, 8)
    act(st, "reroll")                            # 1 + 5 + 1 + 3 = 10 against 2 + 2 + 2 = 6
    assert st.last_battle == (10, 6)
    assert not on_map(st, sc) and st.rider[dr] == kn and st.attacks[kn] == 0


def test_necromancer_qa_revives_a_unit_released_by_a_killed_siphon():
    """Necromancer Q&A: a unit held by a Ninja or Phantom cannot be revived 'unless you kill the
    Ninja or Phantom and release their body back into the world'. Once the Ninja falls, the
    Skeleton it held lies on the Ninja's square and the Necromancer may revive it there (same
    turn, in range). A Siphon that lets a unit go because it holds more than 3 releases that body
    on its own square too (blocked while the Siphon stands on it)."""
    st = blank(tribes=["undead", "humans"])
    nec = put(st, 0, "Necromancer", 12, 5)
    sc = put(st, 0, "Soul Collector", 11, 5)
    ninja = put(st, 1, "Ninja", 10, 5)
    hold(st, ninja, 0, ["Skeleton"])
    skel = st.game.slot_of(0, "Skeleton")
    assert st.unit_options(nec)["ability"] == []          # held: no body to revive
    attack(st, sc, 10, 5, dice=[5, 5, 0, 0])               # 10 + 2 against 0 + 0 + 2
    act(st, "roll")                                        # the Necromancer does not join
    assert not on_map(st, ninja) and st.status[skel] == M.ARMORY
    select(st, nec)
    assert legal(st, "ability") == [cell(st, 10, 5)]
    act(st, "ability", cell(st, 10, 5))
    assert on_map(st, skel) and st.cell[skel] == cell(st, 10, 5)
    # released by a full Siphon: on the Siphon's square, revivable once the square is free
    st2 = blank(tribes=["undead", "humans"])
    ninja = put(st2, 1, "Ninja", 10, 5)
    hold(st2, ninja, 0, ["Skeleton", "Crow", "Bat", "Soul Collector"])
    st2.overfull = [ninja]
    st2.phase = "siphon"
    act(st2, "release", 0)                                 # lets the Skeleton go
    assert st2.death[skel] == (cell(st2, 10, 5), st2.turn)


def test_dragon_qa_carried_unit_can_still_attack():
    """Dragon Q&A: getting on the Dragon does not stop the wood unit attacking that move -- 'the
    carried unit can still attack'. A Knight that walked onto the Dragon attacks a Skeleton by
    itself from the Dragon's square (its own dice, muscle and range); the Dragon keeps its own
    attack and then attacks alone (the rider has attacked). Reading flag
    ``rider_attacks_alone: false``: the rider only fights inside the Dragon's attack."""
    st = blank(tribes=["humans", "undead"])
    dr = put(st, 0, "Dragon", 11, 4)
    kn = put(st, 0, "Knight", 12, 4)
    skel = put(st, 1, "Skeleton", 10, 4)
    bat = put(st, 1, "Bat", 9, 4)
    select(st, kn)
    act(st, "move", cell(st, 11, 4))             # gets on: its move is over
    assert st.status[kn] == M.RIDING and st.moved[kn]
    assert cell(st, 10, 4) in st.unit_options(kn)["attack"]
    assert cell(st, 9, 4) not in st.unit_options(kn)["attack"]   # melee: its own range
    attack(st, kn, 10, 4, dice=[5, 0])
    assert st.phase == "ambush"                  # the Dragon could join; the Knight goes alone
    act(st, "roll")
    assert st.last_battle == (5 + 3, 0 + 1) and not on_map(st, skel)
    assert st.attacks[kn] == 0 and st.attacks[dr] == 1
    attack(st, dr, 9, 4, dice=[0, 0])            # the Dragon alone: 0 + 5 against 0 + 1
    assert st.last_battle == (5, 1) and not on_map(st, bat)
    old = blank(tribes=["humans", "undead"], rules={"rider_attacks_alone": False})
    put(old, 0, "Dragon", 11, 4)
    kn = put(old, 0, "Knight", 11, 4)
    put(old, 1, "Skeleton", 10, 4)
    assert old.unit_options(kn)["attack"] == []


def test_dragon_qa_loved_rider_does_not_join_an_attack_on_the_undead():
    """Dragon Q&A ('the wood-grade unit has already attacked' after a combined attack) with the
    Dark Angel: fighting with the Dragon is the rider's attack, so a rider in love with the Undead
    does not add its strength against an Undead unit; the Dragon attacks alone and the rider keeps
    its attack for another tribe."""
    st = blank(tribes=["humans", "undead"])
    dr = put(st, 0, "Dragon", 11, 4)
    kn = put(st, 0, "Knight", 11, 4)
    st.effects[kn] |= M.LOVE
    put(st, 1, "Skeleton", 10, 4)
    attack(st, dr, 10, 4, dice=[0, 0])
    assert st.last_battle == (5, 1) and st.attacks[kn] == 1
