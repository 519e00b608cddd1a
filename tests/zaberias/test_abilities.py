"""Zaberias special units: one scenario per ability and per Q&A ruling implemented."""
from __future__ import annotations

from tabletop_arena.envs.zaberias import movement as M

from .util import ScriptedDice, act, attack, blank, cell, hold, legal, on_map, put, select

UH = ["undead", "humans"]
HU = ["humans", "undead"]
OG = ["orcs", "guardians"]
GO = ["guardians", "orcs"]


def _next_turn(st):
    st._end_turn()
    st._memo = {}


# ------------------------------------------------------------------ Sorcerers ---------------
def test_dark_angel_love_blocks_attacks_on_undead_only_and_outlives_caster():
    """Dark Angel Q&A: the loved unit cannot attack Undead units for one turn, may attack other
    tribes and take cities; the arrow stays if the Dark Angel dies."""
    st = blank(num_players=3, tribes=["undead", "humans", "orcs"])
    angel = put(st, 0, "Dark Angel", 12, 4)
    knight = put(st, 1, "Knight", 10, 5)
    put(st, 0, "Skeleton", 10, 4)
    put(st, 2, "Goblin", 10, 6)
    select(st, angel)
    act(st, "ability", cell(st, 10, 5))
    assert st.effects[knight] & M.LOVE
    from tabletop_arena.envs.zaberias.combat import kill
    kill(st, angel, -1)                        # the caster dies: the arrow stays
    _next_turn(st)                             # the Humans' turn
    assert st.cur == 1
    targets = st.unit_options(knight)["attack"]
    assert cell(st, 10, 4) not in targets      # the Skeleton (Undead)
    assert cell(st, 10, 6) in targets          # the Goblin (Orcs) is fine
    _next_turn(st)
    assert st.effects[knight] == 0             # gone after its owner's turn


def test_dazzle_walker_disables_siphon_absorption():
    """Dazzle Walker Q&A: a dazzled Siphon may attack and kill but keeps nobody underneath."""
    st = blank(tribes=HU)
    dw = put(st, 0, "Dazzle Walker", 12, 4)
    vamp = put(st, 1, "Vampire", 10, 4)
    select(st, dw)
    act(st, "ability", cell(st, 10, 4))
    assert st.effects[vamp] & M.STUN
    _next_turn(st)
    knight = put(st, 0, "Knight", 11, 4)
    attack(st, vamp, 11, 4, dice=[5, 0])
    assert not on_map(st, knight) and st.status[knight] == M.ARMORY and st.held[vamp] == []


def test_dazzle_renewed_by_revival():
    """Dazzle Walker Q&A: a revived unit is renewed (no longer dazzled)."""
    st = blank(tribes=UH)
    skel = put(st, 0, "Skeleton", 10, 4)
    st.effects[skel] |= M.STUN
    from tabletop_arena.envs.zaberias.combat import kill
    kill(st, skel, -1)
    nec = put(st, 0, "Necromancer", 11, 4)
    select(st, nec)
    act(st, "ability", cell(st, 10, 4))
    assert on_map(st, skel) and st.effects[skel] == 0


def test_cyclops_shock_blocks_attack_not_move_nor_helper_skill():
    """Cyclops Q&A: the shocked unit may walk but not fight; a Helper keeps its skill; a Two
    Headed Dragon loses only one attack."""
    st = blank(tribes=OG)
    cyc = put(st, 0, "Cyclops", 12, 4)
    elf = put(st, 1, "Elf Ranger", 10, 4)
    witch = put(st, 1, "Spider Witch", 10, 5)
    thd = put(st, 1, "Two Headed Dragon", 11, 6)
    put(st, 1, "Sprite", 9, 5)
    put(st, 0, "Goblin", 11, 4)
    for target in (elf, witch, thd):
        st.ability_used[cyc] = False
        st._memo = {}
        select(st, cyc)
        act(st, "ability", st.cell[target])
    _next_turn(st)
    assert st.attacks[elf] == 0 and st.unit_options(elf)["attack"] == []
    assert st.unit_options(elf)["move"]
    assert st.unit_options(witch)["ability"]          # the Helper's skill stays
    assert st.attacks[thd] == 1


def test_turtle_goo_glue_stops_moving_not_attacking_and_not_in_city():
    """Turtle Goo Q&A: the glued unit cannot move for one turn but can attack; units in a
    city cannot be glued."""
    st = blank(tribes=GO)
    goo = put(st, 0, "Turtle Goo", 12, 4)
    gob = put(st, 1, "Goblin", 10, 4)
    st.city_owner[2], st.city_grade[2] = 1, 1
    warrior = put(st, 1, "Orc Warrior", 12, 6)
    put(st, 0, "Sprite", 9, 4)       # an enemy next to the glued Goblin
    select(st, goo)
    assert cell(st, 12, 6) not in legal(st, "ability")
    act(st, "ability", cell(st, 10, 4))
    _next_turn(st)
    opts = st.unit_options(gob)
    assert opts["move"] == [] and cell(st, 9, 4) in opts["attack"]
    assert st.unit_options(warrior)["move"]


# ------------------------------------------------------------------ Siphons -----------------
def test_vampire_absorbs_gains_muscle_and_chooses_whom_to_keep():
    """Vampire Q&A: defeated units go underneath (their basic strength adds), at most 3, the
    owner chooses whom to keep."""
    st = blank(tribes=UH)
    vamp = put(st, 0, "Vampire", 11, 4)
    g = st.game
    for name in ("Knight", "Archer", "Mermaid"):
        u = 1 * g.U + g.slot_of(1, name)
        st.status[u], st.holder[u] = M.HELD, vamp
        st.held[vamp].append(u)
    base = g.specs[vamp].muscle
    assert M.muscle(st, vamp) == base + 3 + 1 + 1
    put(st, 1, "Paladin", 10, 4)
    attack(st, vamp, 10, 4, dice=[5, 0, 0])
    assert st.phase == "siphon" and st.current_player == 0
    assert legal(st, "release") == [0, 1, 2, 3]
    act(st, "release", 2)                      # let the Mermaid go
    assert len(st.held[vamp]) == 3 and st.status[1 * g.U + g.slot_of(1, "Mermaid")] == M.ARMORY
    assert st.phase == "main"


def test_vampire_defending_absorbs_attacker_in_range_and_friendly_not_attackable():
    """Vampire Q&A: defending and winning also absorbs (attacker in range); no friendly attacks."""
    st = blank(tribes=HU)
    knight = put(st, 0, "Knight", 11, 4)
    archer = put(st, 0, "Archer", 12, 4)      # range 2 reaches the Vampire, out of its reach
    vamp = put(st, 1, "Vampire", 10, 4)
    assert cell(st, 12, 4) not in st.unit_options(knight)["attack"]
    st.rng = ScriptedDice([0, 0, 5])
    select(st, knight)
    act(st, "attack", cell(st, 10, 4))
    act(st, "join", st.game.slot_of(0, "Archer"))
    assert st.held[vamp] == [knight] and on_map(st, archer)


def test_siphon_on_siphon_transfer_and_release_on_defeat():
    """Vampire/Ninja Q&A: beating a Siphon takes its held units, own tribe's are released;
    a defeated Siphon's units go back to their tribes."""
    st = blank(tribes=UH)
    g = st.game
    vamp = put(st, 0, "Vampire", 11, 4)
    ninja = put(st, 1, "Ninja", 10, 4)
    skel = 0 * g.U + g.slot_of(0, "Skeleton")
    st.status[skel], st.holder[skel] = M.HELD, ninja
    st.held[ninja].append(skel)
    attack(st, vamp, 10, 4, dice=[5, 0, 0])
    assert st.held[vamp] == [ninja]
    assert st.status[skel] == M.ARMORY         # released back to the Undead
    st2 = blank(tribes=UH)
    vamp = put(st2, 0, "Vampire", 11, 4)
    knight = 1 * g.U + g.slot_of(1, "Knight")
    st2.status[knight], st2.holder[knight] = M.HELD, vamp
    st2.held[vamp].append(knight)
    put(st2, 1, "Paladin", 10, 4)
    attack(st2, vamp, 10, 4, dice=[0, 5, 5])
    assert not on_map(st2, vamp) and st2.status[knight] == M.ARMORY


def test_ninja_extra_die_per_held_unit():
    """Ninja: one extra die per unit underneath."""
    st = blank(tribes=HU)
    g = st.game
    ninja = put(st, 0, "Ninja", 11, 4)
    for name in ("Skeleton", "Crow"):
        u = 1 * g.U + g.slot_of(1, name)
        st.status[u], st.holder[u] = M.HELD, ninja
        st.held[ninja].append(u)
    assert M.dice(st, ninja) == g.specs[ninja].dice + 2


def test_phantom_steps_and_absorbs_attackers_when_defending():
    """Phantom Q&A: + steps of held units (this turn if not moved); defending wins absorb."""
    st = blank(tribes=GO)
    g = st.game
    ph = put(st, 0, "Phantom", 12, 4)
    gob = 1 * g.U + g.slot_of(1, "Goblin")
    st.status[gob], st.holder[gob] = M.HELD, ph
    st.held[ph].append(gob)
    assert M.steps(st, ph) == g.specs[ph].steps + 3
    st2 = blank(tribes=OG)
    w = put(st2, 0, "Orc Warrior", 11, 4)
    ph = put(st2, 1, "Phantom", 10, 4)
    attack(st2, w, 10, 4, dice=[0, 5])
    assert st2.held[ph] == [w]


def test_head_hunter_coins_attacking_defending_and_dragon_rider():
    """Head Hunter Q&A: +2 coins per defeated enemy at once, also defending (if in range);
    a Dragon with its rider gives 4."""
    st = blank(tribes=["orcs", "humans"], coins=1)
    hh = put(st, 0, "Head Hunter", 11, 4)
    dragon = put(st, 1, "Dragon", 10, 4)
    knight = put(st, 1, "Knight", 10, 4)       # climbs on the Dragon
    assert st.rider[dragon] == knight
    st.boost[hh] = (0, 5, 0)                   # 5 + 2 + 5 = 12 against 5 + 0 + 3 + 0
    attack(st, hh, 10, 4, dice=[5, 0, 0])
    assert st.coins[0] == 5 and not on_map(st, knight)
    st2 = blank(tribes=["humans", "orcs"], coins=0)
    kn = put(st2, 0, "Knight", 11, 4)
    hh = put(st2, 1, "Head Hunter", 10, 4)
    attack(st2, kn, 10, 4, dice=[0, 5])
    assert st2.coins[1] == 2


# ------------------------------------------------------------------ Helpers -----------------
def test_necromancer_revives_previous_round_instead_of_attacking():
    """Necromancer Q&A: revives a friendly unit defeated in the previous round on its empty
    square, not itself, free; it then moves and attacks; the Necromancer cannot attack."""
    st = blank(tribes=UH, coins=0)
    nec = put(st, 0, "Necromancer", 11, 4)
    skel = put(st, 0, "Skeleton", 10, 4)
    _next_turn(st)
    kn = put(st, 1, "Knight", 10, 5)
    attack(st, kn, 10, 4, dice=[5, 0])         # the Humans kill the Skeleton
    assert not on_map(st, skel)
    _next_turn(st)
    select(st, nec)
    assert legal(st, "ability") == [cell(st, 10, 4)]
    act(st, "ability", cell(st, 10, 4))
    assert on_map(st, skel) and st.coins[0] == 1        # free (the 1 is this turn's income)
    assert st.attacks[nec] == 0
    assert st.unit_options(skel)["move"] and st.unit_options(skel)["attack"]


def test_necromancer_blocked_square_and_held_units():
    """Necromancer Q&A: no revival on an occupied square; not a unit held by a Siphon."""
    st = blank(tribes=UH)
    nec = put(st, 0, "Necromancer", 11, 4)
    skel = put(st, 0, "Skeleton", 10, 4)
    from tabletop_arena.envs.zaberias.combat import kill
    kill(st, skel, -1)
    put(st, 0, "Crow", 10, 4)
    st._memo = {}
    assert st.unit_options(nec)["ability"] == []
    ninja = put(st, 1, "Ninja", 12, 5)
    crow = 0 * st.game.U + st.game.slot_of(0, "Crow")
    kill(st, crow, ninja)
    st._memo = {}
    from tabletop_arena.envs.zaberias.abilities import revivable
    assert st.status[crow] == M.HELD and revivable(st, nec) == {cell(st, 10, 4): skel}


def test_teleporter_moves_friend_within_range_no_renewal_instead_of_attack():
    """Teleporter Q&A: a friendly unit in range to another empty dry square in range, even if it
    already moved and attacked (no renewal); not onto water; instead of attacking."""
    st = blank(tribes=HU)
    tp = put(st, 0, "Teleporter", 11, 4)
    kn = put(st, 0, "Knight", 12, 4, fresh=False)
    select(st, tp)
    act(st, "ability", cell(st, 12, 4))
    assert st.phase == "tele_move"             # it could walk first; it stays here
    act(st, "stop")
    assert st.phase == "teleport"
    dests = legal(st, "move")
    assert cell(st, 8, 3) not in dests and all(st.geo.in_range(cell(st, 11, 4), x, 3) for x in dests)
    act(st, "move", cell(st, 9, 4))
    assert st.cell[kn] == cell(st, 9, 4) and st.moved[kn] and st.attacks[kn] == 0
    assert st.attacks[tp] == 0


def test_energion_renews_move_and_attack_not_itself():
    """Energion Q&A: a friendly unit may move and attack again; not itself; instead of attack."""
    st = blank(tribes=OG)
    en = put(st, 0, "Energion", 11, 4)
    w = put(st, 0, "Orc Warrior", 12, 4, fresh=False)
    select(st, en)
    assert legal(st, "ability") == [cell(st, 12, 4)]
    act(st, "ability", cell(st, 12, 4))
    assert not st.moved[w] and st.attacks[w] == 1 and st.attacks[en] == 0


def test_spider_witch_shares_only_unused_powers():
    """Spider Witch Q&A: gives her dice, muscle (stars included) and steps; only powers not used
    yet; instead of attacking; she keeps defending."""
    st = blank(tribes=GO)
    sw = put(st, 0, "Spider Witch", 11, 4)
    put(st, 0, "Sprite", 8, 5)                 # a star for the tribe
    elf = put(st, 0, "Elf Ranger", 12, 4)
    st.moved[elf] = True
    select(st, sw)
    act(st, "ability", cell(st, 12, 4))
    assert st.boost[elf] == (1, 2, 0)          # her 1 die, 1 + 1 (star) muscle, no steps
    assert st.attacks[sw] == 0
    assert M.muscle(st, sw) == 2               # she does not lose her strength


# ------------------------------------------------------------------ Titans ------------------
def test_mutant_corpse_plague_on_its_board_once_undead_immune_city_stays():
    """Mutant Corpse Q&A: non-Undead units on its board roll one die each, a blank removes
    them, cities stay; once a turn; it can still attack afterwards."""
    st = blank(tribes=UH)
    mc = put(st, 0, "Mutant Corpse", 11, 4)
    skel = put(st, 0, "Skeleton", 11, 5)
    st.city_owner[2], st.city_grade[2] = 1, 1
    kn = put(st, 1, "Knight", 12, 6)           # in a city on the same board
    ar = put(st, 1, "Archer", 10, 4)
    far = put(st, 1, "Mermaid", 2, 2)          # other board: safe
    st.rng = ScriptedDice([0, 3])              # Knight blank, Archer 3
    select(st, mc)
    act(st, "plague")
    assert not on_map(st, kn) and on_map(st, ar) and on_map(st, far) and on_map(st, skel)
    assert st.city_owner[2] == 1
    assert not st.unit_options(mc)["plague"] and st.unit_options(mc)["attack"]


def test_skull_dragon_and_giant_armor_auras_everywhere_including_self():
    """Skull Dragon Q&A: +1 muscle to all friendly units, itself too, on any board;
    Giant Armor Q&A: +1 die likewise, attacking and defending."""
    st = blank(tribes=UH)
    g = st.game
    skel = put(st, 0, "Skeleton", 2, 2)
    sd = put(st, 0, "Skull Dragon", 12, 4)
    assert M.muscle(st, skel) == g.specs[skel].muscle + 1
    assert M.muscle(st, sd) == g.specs[sd].muscle + 1
    kn = put(st, 1, "Knight", 2, 5)
    ga = put(st, 1, "Giant Armor", 10, 4)
    assert M.dice(st, kn) == 2 and M.dice(st, ga) == g.specs[ga].dice + 1


def test_rhino_rider_tramples_wood_metal_not_gold_not_in_flagged_city():
    """Rhino Rider Q&A: crushes wood/metal enemies on its path (flyers too, the last step
    too), not gold units or units in a city with a flag; then still attacks."""
    st = blank(tribes=["orcs", "humans"])
    rr = put(st, 0, "Rhino Rider", 13, 4)
    kn = put(st, 1, "Knight", 12, 4)
    pal = put(st, 1, "Paladin", 11, 4)
    put(st, 1, "Giant Armor", 10, 4)
    select(st, rr)
    act(st, "move", cell(st, 12, 4))
    assert st.phase == "rhino" and not on_map(st, kn)
    act(st, "move", cell(st, 11, 4))
    assert not on_map(st, pal)
    assert cell(st, 10, 4) not in legal(st, "move")      # gold: not trampled
    act(st, "stop")
    assert st.attacks[rr] == 1 and cell(st, 10, 4) in st.unit_options(rr)["attack"]
    st2 = blank(tribes=["orcs", "humans"])
    st2.city_owner[2], st2.city_grade[2] = 1, 1
    rr = put(st2, 0, "Rhino Rider", 12, 5)
    kn = put(st2, 1, "Knight", 12, 6)
    select(st2, rr)
    assert cell(st2, 12, 6) not in legal(st2, "move")
    st2.city_owner[2], st2.city_grade[2] = -1, 0     # no flag: trampled
    st2._memo = {}
    st2.phase = "main"
    select(st2, rr)
    assert cell(st2, 12, 6) in legal(st2, "move")


def test_earth_mover_rotates_its_board_units_turn_with_it():
    """Earth Mover Q&A: turns the board it stands on (90 either way or 180), units stay on
    their new squares; once per turn; it can still attack."""
    st = blank(tribes=GO)
    em = put(st, 0, "Earth Mover", 12, 5)
    gob = put(st, 1, "Goblin", 13, 6)
    far = put(st, 1, "Orc Warrior", 2, 2)
    top = 7
    select(st, em)
    act(st, "rotate", 0)                        # 90 degrees clockwise
    # local (r, c) -> (c, 6 - r) on the board whose top-left is (7, 0)
    assert st.cell[em] == cell(st, top + 5, 6 - 5) and st.cell[gob] == cell(st, top + 6, 0)
    assert st.cell[far] == cell(st, 2, 2)
    assert st.geo.site_cells[0] == cell(st, top + 0, 0)      # the home city turned too
    assert st.occ[st.cell[gob]] == gob
    assert not st.unit_options(em)["rotate"]


def test_balloon_dragon_extra_dice_on_ones_chained():
    """Balloon Dragon Q&A: 3 dice; every 1 rolled adds another die, chained, also defending."""
    st = blank(tribes=["orcs", "humans"])
    bd = put(st, 0, "Balloon Dragon", 11, 4)
    put(st, 1, "Knight", 10, 4)
    attack(st, bd, 10, 4, dice=[1, 1, 2, 1, 3, 0, 5])   # 1+1+2, then 1+3, then 0 -> 8 + 1
    assert st.last_battle[0] == 8 + st.game.specs[bd].muscle


def test_two_headed_dragon_attacks_twice_city_then_unit():
    """Two Headed Dragon Q&A: two attacks a turn, e.g. a city and a unit; may attack, move,
    attack again."""
    st = blank(tribes=GO)
    thd = put(st, 0, "Two Headed Dragon", 12, 6)        # on the vacant site
    gob = put(st, 1, "Goblin", 10, 6)
    select(st, thd)
    act(st, "attack", cell(st, 12, 6))                   # takes the site
    assert st.city_owner[2] == 0 and st.attacks[thd] == 1
    select(st, thd)
    act(st, "move", cell(st, 11, 6))
    st.rng = ScriptedDice([5, 5, 0])
    select(st, thd)
    act(st, "attack", cell(st, 10, 6))
    assert not on_map(st, gob) and st.attacks[thd] == 0


def test_dragon_carries_wood_unit_combined_stats_range_two():
    """Dragon Q&A: a wood rider adds its dice and muscle (attack and defence), they attack with
    the Dragon's range 2; the rider cannot attack again after getting off; getting on ends the
    rider's move; only wood units."""
    st = blank(tribes=HU)
    g = st.game
    dr = put(st, 0, "Dragon", 11, 4)
    kn = put(st, 0, "Knight", 12, 4)
    pal = put(st, 0, "Paladin", 11, 5)
    select(st, pal)
    assert cell(st, 11, 4) not in legal(st, "move")     # metal units cannot ride
    st.phase = "main"
    st._memo = {}
    select(st, kn)
    act(st, "move", cell(st, 11, 4))
    assert st.rider[dr] == kn and st.status[kn] == M.RIDING and st.moved[kn]
    assert M.muscle(st, dr) == g.specs[dr].muscle + g.specs[kn].muscle
    assert M.dice(st, dr) == 2
    skel = put(st, 1, "Skeleton", 9, 4)                 # two squares away
    attack(st, dr, 9, 4, dice=[1, 1, 0])
    assert not on_map(st, skel) and st.attacks[kn] == 0
    assert st.unit_options(kn)["attack"] == []


def test_dragon_and_wood_unit_created_on_one_square():
    """Dragon Q&A: a wood unit may be created onto the Dragon in a city and the Dragon onto a
    wood unit in a city."""
    st = blank(tribes=HU, coins=6)
    st.city_grade[0] = 3
    kn = put(st, 0, "Knight", 13, 0)
    dr = st.game.slot_of(0, "Dragon")
    assert st.buy_cities(dr) == [cell(st, 13, 0)]
    act(st, "buy", dr)
    act(st, "move", cell(st, 13, 0))
    assert st.rider[dr] == kn
    st2 = blank(tribes=HU, coins=6)
    st2.city_grade[0] = 3
    dr = put(st2, 0, "Dragon", 13, 0)
    arc = st2.game.slot_of(0, "Archer")
    assert cell(st2, 13, 0) in st2.buy_cities(arc)
    assert st2.buy_cities(st2.game.slot_of(0, "Paladin")) == []


def test_dragon_picks_up_unmoved_wood_unit_and_it_gets_off():
    """Dragon Q&A: the Dragon may pick up an unmoved wood unit (landing on it here), which may
    then get off and move."""
    st = blank(tribes=HU)
    dr = put(st, 0, "Dragon", 11, 4)
    ar = put(st, 0, "Archer", 11, 6)
    select(st, dr)
    act(st, "move", cell(st, 11, 6))
    assert st.rider[dr] == ar and st.cell[dr] == cell(st, 11, 6)
    select(st, ar)
    act(st, "move", cell(st, 10, 6))
    assert st.rider[dr] == -1 and st.cell[ar] == cell(st, 10, 6) and st.status[ar] == M.BOARD


def test_revived_vampire_comes_back_without_its_prisoners():
    """Vampire/Necromancer Q&A: a revived Vampire does not get its held units back."""
    st = blank(tribes=UH)
    g = st.game
    vamp = put(st, 0, "Vampire", 10, 4)
    kn = 1 * g.U + g.slot_of(1, "Knight")
    st.status[kn], st.holder[kn] = M.HELD, vamp
    st.held[vamp].append(kn)
    from tabletop_arena.envs.zaberias.combat import kill
    kill(st, vamp, -1)
    assert st.status[kn] == M.ARMORY
    nec = put(st, 0, "Necromancer", 11, 4)
    select(st, nec)
    act(st, "ability", cell(st, 10, 4))
    assert on_map(st, vamp) and st.held[vamp] == []


def test_necromancer_cannot_revive_itself():
    """Necromancer Q&A: his magic works only on other friendly units."""
    st = blank(tribes=UH)
    nec = put(st, 0, "Necromancer", 11, 4)
    from tabletop_arena.envs.zaberias.abilities import revivable
    st.death[nec] = (cell(st, 10, 4), 1)
    assert revivable(st, nec) == {}


def test_dazzle_walker_shoots_from_the_dragon_and_into_cities():
    """Dazzle Walker Q&A: she may use her potion while riding the Dragon, also on a unit in a
    city."""
    st = blank(tribes=HU)
    dr = put(st, 0, "Dragon", 11, 5)
    dw = put(st, 0, "Dazzle Walker", 11, 5)
    assert st.rider[dr] == dw
    st.city_owner[2], st.city_grade[2] = 1, 1
    skel = put(st, 1, "Skeleton", 12, 6)
    select(st, dw)
    assert cell(st, 12, 6) in legal(st, "ability")
    act(st, "ability", cell(st, 12, 6))
    assert st.effects[skel] & M.STUN


def test_earth_mover_spins_then_attacks():
    """Earth Mover Q&A: the spin is passive: it may still attack in the same turn."""
    st = blank(tribes=GO)
    em = put(st, 0, "Earth Mover", 12, 5)
    select(st, em)
    act(st, "rotate", 1)                        # 180 degrees
    assert st.attacks[em] == 1 and st.rots[0] == 2
    assert st.cell[em] == cell(st, 7 + 1, 1)    # local (5,5) -> (1,1)


def test_loved_unit_may_still_take_an_undead_city():
    """Dark Angel Q&A: the love arrow works on Undead units, not cities."""
    st = blank(tribes=UH)
    site = 4                                     # a vacant site on the Humans' board ...
    st.city_owner[site], st.city_grade[site] = 0, 1   # ... holding an Undead city
    c = st.geo.site_cells[site]
    _next_turn(st)
    r, col = divmod(c, st.game.W)
    kn = put(st, 1, "Knight", r, col)
    st.effects[kn] |= M.LOVE
    st._memo = {}
    assert c in st.unit_options(kn)["attack"]


def test_siphon_holding_limit_after_siphon_on_siphon_transfer():
    """Vampire / Ninja / Phantom Q&A ("you can only keep up to 3 units in total") and Unit Groups
    (Siphons hold at most 3): a Vampire holding 3 that beats a Ninja holding 3 takes the Ninja;
    the Undead it held go home; 4 remain and the owner releases one of them (the Ninja here)."""
    st = blank(tribes=UH)
    g = st.game
    vamp = put(st, 0, "Vampire", 11, 4)
    ninja = put(st, 1, "Ninja", 10, 4)
    hold(st, vamp, 1, ["Knight", "Archer", "Mermaid"])
    hold(st, ninja, 0, ["Skeleton", "Crow", "Bat"])       # Undead prisoners of the Ninja
    attack(st, vamp, 10, 4, dice=[5, 0, 0, 0, 0])       # the Ninja rolls 1 + 3 dice
    undead_back = [0 * g.U + g.slot_of(0, n) for n in ("Skeleton", "Crow", "Bat")]
    assert all(st.status[u] == M.ARMORY for u in undead_back)   # own units released
    assert len(st.held[vamp]) == 4 and st.phase == "siphon"
    assert legal(st, "release") == [0, 1, 2, 3]
    assert not legal(st, "stop")
    act(st, "release", 3)                     # let the Ninja go, keep the three
    assert len(st.held[vamp]) == 3 and st.status[ninja] == M.ARMORY and st.phase == "main"


def test_siphon_holding_limit_choice_among_more_than_four():
    """Vampire Q&A (ambush defence: every attacker in range is kept) with the 3-unit limit: a
    Vampire holding 3 that beats a 2-unit ambush holds 5 for a moment; its owner (the defender,
    on the attacker's turn) may release any of the 5, the last position included, until 3 remain.
    The RELEASE block is large enough that position 4 is not confused with another action."""
    st = blank(tribes=HU)
    g = st.game
    vamp = put(st, 1, "Vampire", 10, 4)
    hold(st, vamp, 0, ["Archer", "Mermaid", "Paladin"])
    kn = put(st, 0, "Knight", 11, 4)
    gi = put(st, 0, "Ninja", 10, 5)
    st.rng = ScriptedDice([0, 0, 5])          # Knight 0+3, Ninja 0+2 vs Vampire 5 + 2 + 1+1+2
    select(st, kn)
    act(st, "attack", cell(st, 10, 4))
    assert st.phase == "ambush"
    act(st, "join", gi % g.U)
    assert len(st.held[vamp]) == 5 and st.phase == "siphon" and st.current_player == 1
    assert legal(st, "release") == [0, 1, 2, 3, 4]
    assert not legal(st, "stop") and not legal(st, "end")
    act(st, "release", 4)                     # the Ninja (taken last) goes home
    assert st.status[gi] == M.ARMORY and st.phase == "siphon"
    act(st, "release", 0)
    assert len(st.held[vamp]) == 3 and st.phase == "main" and st.current_player == 0
    assert st.held[vamp] == [g.slot_of(0, "Mermaid"), g.slot_of(0, "Paladin"), kn]


def test_earth_mover_turns_the_square_where_a_unit_fell():
    """Earth Mover Q&A ("the units never actually moved at all, it was just the board") with the
    Necromancer ("revived on the square where it fell"): after a 180-degree turn of the board, the
    fallen Skeleton comes back on the turned square, not on the old grid position."""
    from tabletop_arena.envs.zaberias import abilities as AB
    from tabletop_arena.envs.zaberias import combat as CB
    st = blank(tribes=["undead", "guardians"])
    skel = put(st, 0, "Skeleton", 12, 4)
    nec = put(st, 0, "Necromancer", 12, 5)
    em = put(st, 1, "Earth Mover", 13, 5)
    CB.kill(st, skel, -1)
    st._memo = {}
    assert AB.revivable(st, nec) == {cell(st, 12, 4): skel}
    AB.rotate(st, em, 2)                      # board 0 turns 180: local (r, c) -> (6 - r, 6 - c)
    st._memo = {}
    assert st.cell[nec] == cell(st, 8, 1) and st.cell[em] == cell(st, 7, 1)
    assert AB.revivable(st, nec) == {cell(st, 8, 2): skel}
    select(st, nec)
    act(st, "ability", cell(st, 8, 2))
    assert st.cell[skel] == cell(st, 8, 2) and on_map(st, skel)


# ------------------------------------------------------------------ Q&A rulings (more) ----------
def test_vampire_souls_get_no_power_star_bonus():
    """Vampire Q&A: with a friend on a power star only the Vampire gets the extra point, not each
    soul underneath (basic strength of the souls only)."""
    st = blank(tribes=UH)
    g = st.game
    vamp = put(st, 0, "Vampire", 11, 4)
    hold(st, vamp, 1, ["Knight", "Paladin"])
    put(st, 0, "Skeleton", 8, 5)                       # on the star
    base = g.specs[vamp].muscle
    assert M.muscle(st, vamp) == base + 3 + 2 + 1      # one star point, none per soul


def test_vampire_in_an_ambush_gets_the_soul_even_when_a_friend_leads():
    """Vampire Q&A: in an ambush of the Vampire and another Undead unit, the Vampire gets it all."""
    st = blank(tribes=UH)
    g = st.game
    skel = put(st, 0, "Skeleton", 11, 4)
    vamp = put(st, 0, "Vampire", 10, 5)
    knight = put(st, 1, "Knight", 10, 4)
    st.rng = ScriptedDice([5, 5, 0])
    select(st, skel)                                   # the Skeleton declares the attack
    act(st, "attack", cell(st, 10, 4))
    act(st, "join", vamp % g.U)
    assert st.status[knight] == M.HELD and st.held[vamp] == [knight]


def test_head_hunter_defending_against_an_ambush_earns_two_coins_per_attacker():
    """Head Hunter Q&A: attacked by 2 enemies at once and beating both (both in its range), it gets
    4 coins, 2 from each attacker."""
    st = blank(tribes=["humans", "orcs"])
    g = st.game
    hh = put(st, 1, "Head Hunter", 10, 4)
    kn = put(st, 0, "Knight", 11, 4)
    pal = put(st, 0, "Paladin", 10, 5)
    st.coins[1] = 0
    st.rng = ScriptedDice([0, 0, 0, 5])                # Knight 0+3, Paladin 0+0+2 vs 5+2
    select(st, kn)
    act(st, "attack", cell(st, 10, 4))
    act(st, "join", pal % g.U)
    assert not on_map(st, kn) and not on_map(st, pal) and on_map(st, hh)
    assert st.coins[1] == 4


def test_dragon_and_rider_each_get_the_power_star_point():
    """Dragon Q&A: with a friend on the power star the Dragon and its wood rider each get 1 extra
    strength, 2 together."""
    st = blank(tribes=HU)
    g = st.game
    dragon = put(st, 0, "Dragon", 11, 4)
    knight = put(st, 0, "Knight", 11, 4)               # created onto the Dragon
    assert st.rider[dragon] == knight
    before = M.muscle(st, dragon)
    put(st, 0, "Archer", 8, 5)                         # on the star
    assert M.muscle(st, dragon) == before + 2 == g.specs[dragon].muscle + 3 + 2


def test_balloon_dragon_flies_over_units_but_lands_only_on_empty_squares():
    """Balloon Dragon Q&A: it can pass over other units but cannot land on any unit, friend or
    enemy."""
    st = blank(tribes=OG)
    bd = put(st, 0, "Balloon Dragon", 12, 4)
    put(st, 0, "Goblin", 11, 4)
    put(st, 1, "Sprite", 12, 5)
    dests = st.unit_options(bd)["move"]
    assert cell(st, 11, 4) not in dests and cell(st, 12, 5) not in dests
    assert cell(st, 10, 4) in dests                    # over the Goblin


def test_teleporter_only_friends_never_onto_units_and_into_an_empty_enemy_city():
    """Teleporter Q&A: only friendly (Human) units; over units, but never landing on an occupied
    square; into an unoccupied enemy city yes (and the unit may then attack that city if it has
    not attacked), not into a city an enemy unit stands in."""
    st = blank(tribes=HU)
    tp = put(st, 0, "Teleporter", 9, 5)
    kn = put(st, 0, "Knight", 10, 5)
    put(st, 1, "Skeleton", 9, 4)
    site = st.geo.site_of[cell(st, 7, 5)]
    st.city_owner[site], st.city_grade[site] = 1, 1
    st._memo = {}
    select(st, tp)
    assert cell(st, 9, 4) not in legal(st, "ability")      # an enemy is not teleported
    act(st, "ability", cell(st, 10, 5))
    act(st, "stop")                                        # the Teleporter stays
    dests = legal(st, "move")
    assert cell(st, 7, 5) in dests and cell(st, 9, 4) not in dests and cell(st, 9, 5) not in dests
    act(st, "move", cell(st, 7, 5))
    assert st.cell[kn] == cell(st, 7, 5)
    assert cell(st, 7, 5) in st.unit_options(kn)["attack"]   # scenario 2 from inside the city
    st2 = blank(tribes=HU)
    put(st2, 0, "Teleporter", 9, 5)
    put(st2, 0, "Knight", 10, 5)
    put(st2, 1, "Skeleton", 7, 5)
    site = st2.geo.site_of[cell(st2, 7, 5)]
    st2.city_owner[site], st2.city_grade[site] = 1, 1
    st2._memo = {}
    select(st2, st2.occ[cell(st2, 9, 5)])
    act(st2, "ability", cell(st2, 10, 5))
    act(st2, "stop")
    assert cell(st2, 7, 5) not in legal(st2, "move")


# ------------------------------------------------------------------ Dragon / Teleporter sub-steps
def _snapshot(st):
    return {k: (repr(v) if k != "geo" else id(v)) for k, v in st.__dict__.items()
            if k not in ("game", "rng", "_memo")}


def _phase_bit(st, seat, phase):
    from tabletop_arena.envs.zaberias.observe import PHASE_INDEX
    g = st.game
    C = 34 + g.U
    return st.observation(seat)[C * g.N + 28 + PHASE_INDEX[phase]]


def test_dragon_flies_over_an_unmoved_wood_unit_and_picks_it_up_on_its_way():
    """Dragon Q&A ("fly over a wood unit that has not moved, then pick it up as it flies"; "as
    long as the unit does not move itself, it can get off the Dragon when it stops"): after its
    move the Dragon may pick up an unmoved wood unit lying on a legal flight (steps to the unit +
    from the unit to the landing square within its 4 steps); the rider has not moved and may get
    off and walk. Units too far off the flight, metal units and units that moved are not offered."""
    import pytest

    from tabletop_arena.envs.core.game import IllegalActionError
    st = blank(tribes=HU)
    dr = put(st, 0, "Dragon", 13, 4)
    kn = put(st, 0, "Knight", 12, 4)             # 1 + 2 = 3 steps via the Knight: offered
    put(st, 0, "Archer", 13, 6)                  # 2 + 5 = 7 steps: too far off the flight
    put(st, 0, "Mermaid", 12, 5, fresh=False)    # already moved: not offered
    put(st, 0, "Paladin", 11, 4)                 # metal: never rides
    select(st, dr)
    act(st, "move", cell(st, 10, 4))
    assert st.phase == "pickup" and st.cell[dr] == cell(st, 10, 4)
    assert legal(st, "move") == [cell(st, 12, 4)] and legal(st, "stop") == [0]
    assert _phase_bit(st, 0, "pickup") == 1.0
    before = _snapshot(st)
    with pytest.raises(IllegalActionError):
        act(st, "move", cell(st, 13, 6))         # the Archer is not on the way
    assert _snapshot(st) == before
    act(st, "move", cell(st, 12, 4))
    assert st.phase == "main" and st.rider[dr] == kn and st.status[kn] == M.RIDING
    assert st.cell[kn] == cell(st, 10, 4) and st.occ[cell(st, 12, 4)] == -1
    assert not st.moved[kn] and st.moved[dr]
    select(st, kn)                               # it gets off and walks when the Dragon stops
    act(st, "move", cell(st, 9, 4))
    assert st.status[kn] == M.BOARD and st.cell[kn] == cell(st, 9, 4) and st.rider[dr] == -1


def test_dragon_may_decline_the_pick_up_and_carrying_dragon_is_not_asked():
    """Dragon Q&A (pick-up on the way is a choice; one rider at a time): STOP leaves the wood
    unit where it is; a Dragon that already carries a rider, or has no unmoved wood unit on its
    way, ends its move at once."""
    st = blank(tribes=HU)
    dr = put(st, 0, "Dragon", 13, 4)
    kn = put(st, 0, "Knight", 12, 4)
    select(st, dr)
    act(st, "move", cell(st, 11, 4))
    act(st, "stop")
    assert st.phase == "main" and st.rider[dr] == -1 and st.cell[kn] == cell(st, 12, 4)
    st2 = blank(tribes=HU)
    dr = put(st2, 0, "Dragon", 13, 4)
    put(st2, 0, "Archer", 13, 4)                 # created onto the Dragon: it carries her
    put(st2, 0, "Knight", 12, 4)
    select(st2, dr)
    act(st2, "move", cell(st2, 10, 4))
    assert st2.phase == "main"
    st3 = blank(tribes=HU)
    dr = put(st3, 0, "Dragon", 13, 4)
    put(st3, 0, "Knight", 9, 0)                  # 7 steps away: not on any 4-step flight
    select(st3, dr)
    act(st3, "move", cell(st3, 10, 4))
    assert st3.phase == "main"


def test_wood_unit_climbs_over_its_own_dragon_on_the_way():
    """Dragon Q&A ("climb up one side and down the other ... the Dragon doesn't mind"): a walking
    wood unit may pass through its Dragon's square (here the Dragon carries a rider, so the Knight
    cannot stop on it); metal units and enemy Dragons still block; a Dragon on a portal blocks
    (rulebook 9: an occupant blocks the portal)."""
    st = blank(tribes=HU)
    dr = put(st, 0, "Dragon", 10, 5)
    put(st, 0, "Archer", 10, 5)                  # the rider
    kn = put(st, 0, "Knight", 11, 5)
    pal = put(st, 0, "Paladin", 11, 6)
    select(st, kn)
    dests = legal(st, "move")
    assert cell(st, 9, 5) in dests and cell(st, 10, 5) not in dests   # the only way: over it
    act(st, "move", cell(st, 9, 5))
    assert st.cell[kn] == cell(st, 9, 5) and st.rider[dr] >= 0 and st.occ[cell(st, 10, 5)] == dr
    select(st, pal)                              # metal: the Dragon blocks it
    assert cell(st, 9, 6) in legal(st, "move")   # around, (10,6) is free
    st.phase = "main"
    st2 = blank(tribes=HU)
    put(st2, 1, "Skull Dragon", 10, 5)           # an enemy Dragon: no climbing
    kn = put(st2, 0, "Knight", 11, 5)
    select(st2, kn)
    assert cell(st2, 9, 5) not in legal(st2, "move")
    st3 = blank(tribes=HU)
    put(st3, 0, "Dragon", 10, 3)                 # on the portal
    put(st3, 0, "Archer", 10, 3)
    kn = put(st3, 0, "Knight", 10, 2)
    select(st3, kn)
    assert cell(st3, 10, 4) not in legal(st3, "move")


def test_teleporter_walks_while_holding_the_unit_then_puts_it_down_in_range_of_its_new_square():
    """Teleporter Q&A ("while it's in the air, move 2 steps then place the unit within its range";
    "put the teleported unit down in a square that is within the Teleporter's range at its new
    location"): after choosing the unit (it leaves its square), the Teleporter may walk its steps
    (phase tele_move, even through the square the unit left), then the unit lands within range 3
    of the new square; the unit's used move and attack stay used."""
    import pytest

    from tabletop_arena.envs.core.game import IllegalActionError
    st = blank(tribes=HU)
    tp = put(st, 0, "Teleporter", 13, 4)
    kn = put(st, 0, "Knight", 12, 4, fresh=False)
    select(st, tp)
    act(st, "ability", cell(st, 12, 4))
    assert st.phase == "tele_move" and st.occ[cell(st, 12, 4)] == -1
    assert _phase_bit(st, 0, "tele_move") == 1.0
    walks = legal(st, "move")
    assert cell(st, 11, 4) in walks and cell(st, 12, 4) in walks and legal(st, "stop") == [0]
    before = _snapshot(st)
    with pytest.raises(IllegalActionError):
        act(st, "move", cell(st, 9, 4))          # 4 steps: too far for the Teleporter
    assert _snapshot(st) == before
    act(st, "move", cell(st, 11, 4))             # through the square the Knight left
    assert st.phase == "teleport" and st.moved[tp] and st.cell[tp] == cell(st, 11, 4)
    dests = legal(st, "move")
    assert cell(st, 8, 4) in dests               # range 3 of (11,4), 5 away from (13,4)
    assert all(st.geo.in_range(cell(st, 11, 4), x, 3) for x in dests)
    assert cell(st, 12, 4) not in dests and cell(st, 11, 4) not in dests
    assert cell(st, 13, 4) in dests              # the square the Teleporter left is free
    act(st, "move", cell(st, 8, 4))
    assert st.cell[kn] == cell(st, 8, 4) and st.occ[cell(st, 8, 4)] == kn
    assert st.occ[cell(st, 12, 4)] == -1 and st.occ[cell(st, 13, 4)] == -1
    assert st.moved[kn] and st.attacks[kn] == 0 and st.attacks[tp] == 0 and st.lifted == -1
    assert sorted(st.occ_cells()) == [c for c, o in enumerate(st.occ) if o >= 0]


def test_teleporter_may_end_on_the_lifted_units_square_and_a_moved_teleporter_cannot_walk():
    """Teleporter Q&A: the unit is in the air, so the Teleporter may stop on the square it left
    (the unit then lands elsewhere); a Teleporter that already moved goes straight to the
    landing."""
    st = blank(tribes=HU)
    tp = put(st, 0, "Teleporter", 13, 4)
    kn = put(st, 0, "Knight", 12, 4)
    select(st, tp)
    act(st, "ability", cell(st, 12, 4))
    act(st, "move", cell(st, 12, 4))
    assert st.cell[tp] == cell(st, 12, 4) and st.occ[cell(st, 12, 4)] == tp
    act(st, "move", cell(st, 10, 4))
    assert st.cell[kn] == cell(st, 10, 4) and st.occ[cell(st, 12, 4)] == tp
    st2 = blank(tribes=HU)
    tp = put(st2, 0, "Teleporter", 13, 4)
    st2.moved[tp] = True
    put(st2, 0, "Knight", 12, 4)
    select(st2, tp)
    act(st2, "ability", cell(st2, 12, 4))
    assert st2.phase == "teleport"
