"""Gorgasali: weapon cards and their skills, armour, throwables, defensive cards, consumables,
the character mat and elimination."""
from __future__ import annotations

from tabletop_arena.envs.gorgasali import actions as A
from tests.gorgasali import Dice, all_walks, card_id, give, legal, make_state, sq

W0 = A.WEAPON_POS[0]
H0, H1 = A.ARMOUR_POS
C0, C1, C2 = A.CONSUMABLE_POS
T0 = A.THROWABLE_POS[0]
D0 = A.DEFENSIVE_POS[0]
B0 = A.BACKPACK_POS[0]


def duel(weapon, dist=2, dice=(), chars=("Armazi", "Ebue"), **kw):
    """Seat 0 on (18,10) holding ``weapon``, seat 1 ``dist`` squares east, seat 0 to act."""
    st = make_state(list(chars), [sq(18, 10), sq(18, 10 + dist)], **kw)
    give(st, 0, W0, weapon)
    st.rng = Dice(*dice)
    return st


def test_six_shooter_damage_per_bullet_and_reload():
    """Weapon cards: six shooters multiply the sum of two dice by the card's damage; a used weapon
    is face down until the main action Reload; the main action ends the turn."""
    st = duel("Colt", dice=(3, 4))
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 100 - 7 * 2
    assert st.loaded[0][W0] is False and st.cur == 1
    st.cur, st.phase, st._mask = 0, "act", None
    st.turn_seat = st.cur
    st.main_done = False
    assert A.shoot(0, 1) not in legal(st) and A.RELOAD in legal(st)
    st.apply(A.RELOAD)
    assert st.loaded[0][W0]


def test_gemini_exactly_seven_counts_as_twelve():
    """Six shooter skill: 'Roll exactly 7 ... considered the same as rolling 12'."""
    st = duel("Gemini", dice=(3, 4))
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 100 - 12 * 3


def test_extra_six_adds_a_die_and_seven_becomes_eighteen():
    """Weapon extension (Extra Six): three dice; with Gemini a 7 counts as 18."""
    st = duel("Gemini", dice=(3, 2, 2))
    give(st, 0, C0, "Extra Six")
    st.apply(A.CONSUME + 0)
    assert A.CONSUME + 1 not in legal(st)
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 100 - 18 * 3


def test_dobergun_extra_move_on_four_or_more():
    """Six shooter skill: 'If you roll 4 or higher, you can move anywhere by 2 extra squares
    without being penalized' (designed: the first die). The rulings call this six shooter
    'dobergun'."""
    st = duel("Dobergun", dice=(4, 1))
    st.apply(A.shoot(0, 1))
    assert st.phase == "bonus" and st.cur == 0
    opts = {a - A.SQUARE for a in legal(st)}
    assert sq(18, 10) in opts and sq(18, 8) in opts and sq(18, 12) not in opts
    st.apply(A.SQUARE + sq(18, 8))
    assert st.pos[0] == sq(18, 8) and st.cur == 1
    st2 = duel("Dobergun", dice=(3, 6))
    st2.apply(A.shoot(0, 1))
    assert st2.cur == 1


def test_hornet_no_reload_on_five():
    """Striker skill: 'If you roll 5 or higher while shooting you don't need to reload'."""
    st = duel("Hornet", dist=3, dice=(5, 1, 1, 1, 1))
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 100 - 9 * 2 and st.loaded[0][W0]
    st = duel("Hornet", dist=3, dice=(4, 6, 6, 6, 6))
    st.apply(A.shoot(0, 1))
    assert not st.loaded[0][W0]


def test_leech_heals_fifteen_on_a_hit():
    """Striker skill: 'If you hit the target you restore 15 health points'."""
    st = duel("Leech", dist=3, dice=(1, 1, 1, 1, 1), health=[50, 100])
    st.apply(A.shoot(0, 1))
    assert st.health == [65, 90]


def test_massive_weapon_needs_the_minimum_roll():
    """Massive weapons deal fixed damage only when the roll reaches the card's number."""
    st = duel("Club", dist=1, dice=(2, 3))
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 100
    st = duel("Club", dist=1, dice=(3, 3))
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 60


def test_hammer_adds_fifteen_on_eleven():
    """Skill: 'If you roll 11 or higher while shooting you deal additional 15 damage'."""
    st = duel("Hammer", dist=1, dice=(6, 5))
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 100 - 65


def test_breathold_hit_number_by_range_and_armour_ignored():
    """Scouts: Breathold's number to hit depends on the range (designed 2+/3+/4+/5+); its hits
    ignore armour and the armour stays on the mat (ruling)."""
    st = duel("Breathold", dist=3, dice=(3,))
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 100
    st = duel("Breathold", dist=3, dice=(4,))
    give(st, 1, H0, "Helmet")
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 55 and st.mat[1][H0] == card_id(st.game, "Helmet")


def test_range_and_line_of_sight():
    """Range and the areas that block targeting: no shot out of range or through them."""
    st = make_state(["Armazi", "Ebue"], [sq(10, 8), sq(10, 11)])
    give(st, 0, W0, "Mantis")
    assert A.shoot(0, 1) not in legal(st)          # the line crosses (10,9),(10,10)
    st.pos[1], st._mask = sq(8, 10), None
    assert A.shoot(0, 1) not in legal(st)          # the diagonal crosses (9,9)
    st.pos[1], st._mask = sq(12, 11), None
    assert A.shoot(0, 1) in legal(st)
    st.pos[1], st._mask = sq(14, 8), None          # range 4 > 3
    assert A.shoot(0, 1) not in legal(st)


def test_armour_absorbs_and_is_discarded():
    """Armor cards: Helmet 10, Body Armour 20; discarded after blocking even partly; when one card
    is enough only that one goes (here the smallest that is enough)."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 12)])
    helmet, body = give(st, 1, H0, "Helmet"), give(st, 1, H1, "Body Armour")
    st._damage(1, 8, 0, "weapon")
    assert st.health[1] == 100 and st.mat[1][H0] == -1 and st.mat[1][H1] == body
    give(st, 1, H0, "Helmet")
    st._damage(1, 15, 0, "weapon")
    assert st.health[1] == 100 and st.mat[1][H0] == helmet and st.mat[1][H1] == -1
    give(st, 1, H1, "Body Armour")
    st._damage(1, 35, 0, "throwable")
    assert st.health[1] == 95 and st.mat[1][H0] == -1 and st.mat[1][H1] == -1
    give(st, 1, H0, "Helmet")
    st._damage(1, 35, 0, "ability")                # special abilities go through armour
    assert st.health[1] == 60 and st.mat[1][H0] == helmet


def test_flame_bulb_exact_range_two_and_splash():
    """Flame Bulb: exactly range 2, two dice 9+, 40 to the target and every enemy next to it."""
    st = make_state(["Armazi", "Ebue", "Varas"], [sq(18, 10), sq(18, 12), sq(18, 13)])
    st.rng = Dice(5, 4)
    give(st, 0, T0, "Flame Bulb")
    assert A.throw(0, 1) in legal(st) and A.throw(0, 2) not in legal(st)   # Varas at range 3
    st.apply(A.throw(0, 1))
    assert st.health == [100, 60, 60] and st.mat[0][T0] == -1 and st.cur == 0
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 12)])
    st.rng = Dice(4, 4)
    give(st, 0, T0, "Flame Bulb")
    st.apply(A.throw(0, 1))
    assert st.health[1] == 100


def test_magic_spear_die_equals_distance():
    """Magic Spear: within 6, one die exactly the distance, 60 damage."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 13)])
    st.rng = Dice(3)
    give(st, 0, T0, "Magic Spear")
    st.apply(A.throw(0, 1))
    assert st.health[1] == 40
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 13)])
    st.rng = Dice(4)
    give(st, 0, T0, "Magic Spear")
    st.apply(A.throw(0, 1))
    assert st.health[1] == 100


def test_ntt_bulb_turns_weapons_face_down():
    """NTT Bulb: within 3, the target's weapons go face down until reloaded."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 13)])
    give(st, 0, T0, "NTT Bulb")
    give(st, 1, W0, "Colt")
    st.apply(A.throw(0, 1))
    assert st.loaded[1] == [False, False]


def test_smoke_bulb_blocks_weapons_until_owner_moves():
    """Smoke Bulb: enemies cannot shoot the player under it; moving or shooting ends it."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 12)], cur=1)
    give(st, 1, T0, "Smoke Bulb")
    st.apply(A.throw(0, 0))
    st.cur, st.phase, st._mask = 0, "act", None
    st.turn_seat = st.cur
    give(st, 0, W0, "Colt")
    assert A.shoot(0, 1) not in legal(st)
    st._remove_smoke(1)
    st._mask = None
    assert A.shoot(0, 1) in legal(st)


def test_barrier_blocks_cards_and_movement():
    """Barrier: 5 squares, blocks movement and targeting with cards (not abilities)."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(16, 10)])
    give(st, 0, D0, "Barrier")
    give(st, 1, W0, "Colt")
    st.apply(A.defend(0, 1))                       # a line across the square to the north
    assert st.barrier_squares() == {sq(17, c) for c in range(8, 13)}
    st.cur, st.phase, st._mask = 1, "act", None
    st.turn_seat = st.cur
    assert A.shoot(0, 1) not in legal(st)
    st.phase, st.move_points, st._mask = "move", 2, None
    st._start_walk()
    ends = all_walks(st)
    assert ends and not any(s in ends for s in (sq(18, 10), sq(17, 10)))
    assert A.SQUARE + sq(17, 10) not in legal(st)   # the Barrier square next to Ebue


def test_ball_lightning_hits_enemies_ending_within_three():
    """Ball Lightning: an enemy ending its turn within range 3 takes 35; stays 2 rounds."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 13)])
    give(st, 0, D0, "Ball Lightning")
    st.apply(A.defend(0, 0))
    st.apply(A.END_TURN)
    assert st.cur == 1
    st.phase, st._mask = "act", None
    st.apply(A.END_TURN)
    assert st.health[1] == 65
    assert st.banners and st.banners[0][3] == 3     # removed at the owner's turn in round 3


def test_tree_platform_and_magic_field():
    """Tree Platform: every die of a weapon shot one less; Magic Field: half the card damage."""
    st = duel("Colt", dice=(3, 4))
    st._add_banner("tree", (st.pos[1],), 1)
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 100 - 5 * 2
    st = duel("Club", dist=1, dice=(3, 3))
    st._add_banner("field", (st.pos[1],), 1)
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 80


def test_healing_cards_before_the_roll_only():
    """Consumables: healing cards before rolling the dice; one consumable per turn."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(0, 0)], phase="start", health=[40, 100])
    give(st, 0, C0, "Medium Potion")
    give(st, 0, C1, "Small Potion")
    assert A.CONSUME + 0 in legal(st)
    st.apply(A.CONSUME + 0)
    assert st.health[0] == 90 and A.CONSUME + 1 not in legal(st)
    st.used_consumable, st.phase, st._mask = False, "act", None
    assert A.CONSUME + 1 not in legal(st)


def test_ammo_bag_reloads_everything():
    """Ammo Bag: all weapon cards instantly reloaded (not a main action)."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 12)])
    give(st, 0, W0, "Colt", loaded=False)
    give(st, 0, A.WEAPON_POS[1], "Club", loaded=False)
    give(st, 0, C0, "Ammo Bag")
    st.apply(A.CONSUME + 0)
    assert st.loaded[0] == [True, True] and A.shoot(0, 1) in legal(st)


def test_loot_choice_backpack_and_refill():
    """Character Mat: a card without an empty slot replaces a card of its category, goes to the
    backpack, or is thrown away; at the end of the turn the backpack refills emptied slots."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 15)])
    give(st, 0, W0, "Colt")
    give(st, 0, A.WEAPON_POS[1], "Club")
    st.weapon_deck = [card_id(st.game, "Mantis")]
    st.support_deck = [card_id(st.game, "Helmet"), card_id(st.game, "Helmet")]
    st.extra_chests[0] = 1
    st.apply(A.EXTRA_CHEST)
    assert st.phase == "loot" and st.extra_chests[0] == 0
    opts = legal(st)
    assert opts == {A.LOOT + p for p in A.WEAPON_POS + A.BACKPACK_POS} | {A.DISCARD_LOOT}
    st.apply(A.LOOT + B0)
    assert st.phase == "act" and A.EXTRA_CHEST not in legal(st)
    st.mat[0][W0] = -1                                # the Colt is gone (e.g. stolen)
    st.apply(A.END_TURN)
    assert st.mat[0][W0] == card_id(st.game, "Mantis") and st.mat[0][B0] == -1


def test_backpack_swap_is_a_main_action():
    """Manage the backpack: the third main action, alternative to shooting and reloading."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 12)])
    colt, club = give(st, 0, W0, "Colt"), give(st, 0, B0, "Club")
    give(st, 0, A.WEAPON_POS[1], "Viper")
    st.apply(A.backpack(0, W0))
    assert st.mat[0][W0] == club and st.mat[0][B0] == colt and st.cur == 1


def test_elimination_passes_the_mat_zone_death_does_not():
    """Elimination: at zero health the eliminator takes every card and the extra chests; a
    death by the inactive zone passes nothing on."""
    st = make_state(["Armazi", "Ebue", "Varas"], [sq(18, 10), sq(18, 11), sq(18, 18)],
                    health=[100, 30, 100])
    give(st, 0, W0, "Club")
    st.rng = Dice(6, 6)
    body = give(st, 1, H1, "Body Armour")
    give(st, 1, A.WEAPON_POS[0], "Mantis")
    st.extra_chests[1] = 2
    st.apply(A.shoot(0, 1))                        # 40 - 20 armour = 20 < 30: survives
    assert st.alive[1] and st.health[1] == 10
    st.cur, st.phase, st.main_done, st._mask = 0, "act", False, None
    st.turn_seat = st.cur
    st.loaded[0][W0] = True
    st.rng = Dice(6, 6)
    st.apply(A.shoot(0, 1))
    assert not st.alive[1] and st.extra_chests[0] == 2
    assert card_id(st.game, "Mantis") in st.mat[0]
    assert body not in st.mat[0]                   # the armour was used up earlier
    st.mat[2][C0] = card_id(st.game, "Small Potion")
    st.health[2] = 3
    st._damage(2, 5, -1, "zone")
    assert not st.alive[2] and st.is_terminal() and card_id(st.game, "Small Potion") in st.discard
    assert list(st.returns()) == [1.0, -1.0, 0.0]


def test_running_score_is_health_left_and_zero_once_out():
    """Designed running score (RULES.md, Designed values; read only by score shaping): each
    seat's health left, 0 once out; the shaping margin is own score minus the best other."""
    from tabletop_arena.train.selfplay import score_margins
    st = make_state(["Armazi", "Ebue", "Varas"], [sq(18, 10), sq(18, 11), sq(18, 18)],
                    health=[100, 30, 70])
    assert st.scores() == [100.0, 30.0, 70.0]
    assert list(score_margins(st, st.game)) == [30.0, -70.0, -30.0]
    give(st, 0, W0, "Club")
    st.rng = Dice(6, 6)
    st.apply(A.shoot(0, 1))                        # 40 damage: Ebue (30) is out
    assert not st.alive[1] and st.health[0] == 100
    assert st.scores() == [100.0, 0.0, 70.0]
    assert list(score_margins(st, st.game)) == [30.0, -100.0, -30.0]


def test_scouts_tochinator_within_one_range():
    """Scouts, Tochinator: 'you must end your movement within 1 range from your enemy and roll
    minimum unit of 4 with one dice' -- a shot at range 1 only; 4+ on one die hits."""
    st = duel("Tochinator", dist=2)
    assert A.shoot(0, 1) not in legal(st)
    st = duel("Tochinator", dist=1, dice=(3,))
    assert A.shoot(0, 1) in legal(st)
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 100
    st = duel("Tochinator", dist=1, dice=(4,))
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 100 - st.game.cards[card_id(st.game, "Tochinator")].damage


def test_rulebook_numbers_in_the_tables():
    """Every number the rulebook states for a card or a character, against the loaded tables
    (the conformance check for transcription slips like the Tochinator's range)."""
    g = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 12)]).game
    card = {c.name: c for c in g.cards}
    ranges = {"Gemini": (1, 2), "Mantis": (1, 3), "Tochinator": (1, 1), "Breathold": (1, 4),
              "Magic Spear": (1, 6), "NTT Bulb": (1, 3)}
    for name, (lo, hi) in ranges.items():
        assert (card[name].range_min, card[name].range_max) == (lo, hi), name
    assert card["Gemini"].dice == 2 and card["Mantis"].dice == 5 and card["Tochinator"].dice == 1
    assert card["Tochinator"].hit == 4
    assert (card["Flame Bulb"].range_min, card["Flame Bulb"].range_max) == (2, 2)
    assert card["Flame Bulb"].hit == 9 and card["Flame Bulb"].value == 40
    assert card["Magic Spear"].value == 60 and card["Ball Lightning"].value == 35
    assert card["Helmet"].value == 10 and card["Body Armour"].value == 20
    assert card["Small Potion"].value == 20 and card["Medium Potion"].value == 50
    skills = {"Gemini": ("seven_is_twelve", None), "Dobergun": ("extra_move", 4),
              "Hornet": ("no_reload", 5), "Leech": ("heal_on_hit", 15), "Hammer": ("bonus_on_11", 15)}
    for name, (skill, value) in skills.items():
        assert card[name].skill == skill and (value is None or card[name].skill_value == value), name
    chars = {c.name: c for c in g.chars}
    assert (chars["Armazi"].range, chars["Armazi"].cooldown, chars["Armazi"].damage) == (2, 5, 35)
    assert (chars["Ebue"].range, chars["Ebue"].cooldown) == (5, 4)
    assert (chars["Varas"].range, chars["Varas"].cooldown) == (3, 3)
    assert (chars["Medea"].cooldown, chars["Medea"].heal) == (3, 20)
    assert (chars["Tsiva"].range, chars["Tsiva"].cooldown) == (3, 3)
    assert chars["Octor"].range == 3
    assert (chars["Kruber"].range, chars["Kruber"].cooldown) == (6, 4)
    assert chars["Tharsis"].damage == 10
    assert (chars["D'rain"].bonus, chars["D'rain"].above) == (5, 4)
    r = g.rules
    assert r["max_health"] == 100 and r["heal_square"] == 20 and r["zone_interval"] == 5
    assert list(r["zone_penalty"][:3]) == [5, 10, 15] and r["banner_rounds"] == 2
    assert r["chest_weapons"] == 1 and r["chest_supports"] == 2 and r["start_extra_chests"] == 1


def test_movement_dobergun_bonus_move_never_recrosses_the_walk():
    """Movement ('The square that you have already covered cannot be crossed again during one
    turn') with the six-shooter skill's 2 extra squares: the bonus move neither enters nor passes
    through a square the walk covered this turn (the start square included)."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 8), sq(18, 12)], phase="start")
    give(st, 0, W0, "Dobergun")
    st.rng = Dice(1, 1)
    st.apply(A.ROLL)
    st.apply(A.SQUARE + sq(18, 9))
    st.apply(A.SQUARE + sq(18, 10))                  # walked 18,8 -> 18,9 -> 18,10
    assert st.phase == "act" and st.pos[0] == sq(18, 10)
    st.rng = Dice(4, 1)
    st.apply(A.shoot(0, 1))
    assert st.phase == "bonus"
    opts = {a - A.SQUARE for a in legal(st)}
    assert sq(18, 10) in opts                        # staying put
    assert sq(18, 9) not in opts and sq(18, 8) not in opts
    assert {sq(17, 10), sq(16, 10), sq(17, 9), sq(19, 9), sq(18, 11)} <= opts
