"""Gorgasali: the ten characters' special abilities (Characters section of the rulebook)."""
from __future__ import annotations

from tabletop_arena.envs.gorgasali import actions as A
from tests.gorgasali import Dice, card_id, give, legal, make_state, sq

W0 = A.WEAPON_POS[0]


def test_armazi_hits_two_adjacent_enemies_through_armour():
    """Armazi: range 1-2, cooldown 5, 35 damage; two enemies next to each other are both hit
    (two at most); special abilities are not blocked by armour."""
    st = make_state(["Armazi", "Ebue", "Varas", "Medea"],
                    [sq(18, 11), sq(18, 12), sq(18, 13), sq(17, 13)], health=[100, 100, 100, 50])
    give(st, 1, A.ARMOUR_POS[0], "Helmet")
    assert A.ABILITY + 1 in legal(st)
    st.apply(A.ABILITY + 1)
    assert st.health == [100, 65, 100, 15] and st.cooldown[0] == 5   # the weaker neighbour
    assert A.ABILITY + 1 not in legal(st)


def test_ebue_pulls_next_to_himself_with_rulings():
    """Ebue: range 1-5, cooldown 4, pulls a player next to him; disabled in an inactive zone;
    never onto a chest; an opponent in an active zone is not pulled out of it."""
    st = make_state(["Ebue", "Armazi"], [sq(18, 10), sq(18, 14)])
    st.chests = {sq(18, 11)}
    st.apply(A.ABILITY + 1)
    assert st.phase == "pull"
    opts = {a - A.SQUARE for a in legal(st)}
    assert sq(18, 11) not in opts and sq(18, 9) in opts
    st.apply(A.SQUARE + sq(18, 9))
    assert st.pos[1] == sq(18, 9) and st.phase == "act" and st.cooldown[0] == 4
    st = make_state(["Ebue", "Armazi"], [sq(3, 10), sq(5, 10)])   # Ebue zone 2, Armazi zone 3
    st.zones_out = 1
    st._mask = None
    opts = st.pull_squares(0, 1)
    assert opts and all(st.game.board.zone[q] >= 2 for q in opts)
    st.pos[0], st._mask = sq(2, 10), None                           # Ebue in the inactive zone
    assert A.ABILITY + 1 not in legal(st)


def test_varas_steals_anything_but_weapons():
    """Varas: range 1-3, cooldown 3, steals any card of the enemy's mat except the weapons."""
    st = make_state(["Varas", "Armazi"], [sq(18, 10), sq(18, 12)])
    give(st, 1, W0, "Colt")
    assert A.ABILITY + 1 not in legal(st)          # only a weapon to take
    body = give(st, 1, A.ARMOUR_POS[1], "Body Armour")
    st.apply(A.ABILITY + 1)
    assert st.phase == "steal" and legal(st) == {A.STEAL + A.ARMOUR_POS[1]}
    st.apply(A.STEAL + A.ARMOUR_POS[1])
    assert body in st.mat[0] and st.mat[1][A.ARMOUR_POS[1]] == -1 and st.cooldown[0] == 3


def test_medea_heals_twenty_and_draws_a_support_card():
    """Medea: cooldown 3, heals 20 (never above 100) and takes one support card."""
    st = make_state(["Medea", "Armazi"], [sq(18, 10), sq(18, 15)], phase="start", health=[90, 100])
    st.support_deck = [card_id(st.game, "Helmet")]
    st.apply(A.ABILITY)
    assert st.health[0] == 100 and st.mat[0][A.ARMOUR_POS[0]] == card_id(st.game, "Helmet")
    assert st.cooldown[0] == 3


def test_tsiva_freezes_everyone_within_three():
    """Tsiva: range 1-3, cooldown 3: frozen enemies cannot move in their turn nor target her."""
    st = make_state(["Tsiva", "Armazi", "Ebue"], [sq(18, 10), sq(18, 12), sq(18, 17)])
    give(st, 1, W0, "Colt")
    st.apply(A.ABILITY)
    assert st.frozen == [False, True, False]
    st.apply(A.END_TURN)
    assert st.cur == 1 and st.phase == "act"       # no roll, no movement
    assert A.shoot(0, 2) not in legal(st)          # Ebue out of range anyway
    assert A.shoot(0, 2) not in legal(st) and A.shoot(0, 1) not in legal(st)
    st.apply(A.END_TURN)
    assert not st.frozen[1]


def test_octor_copies_once_with_the_standard_cooldown():
    """Octor: starts with the ability of the next player; copies any ability within 1-3 except
    E'moon's; a copy is for one use and starts with that ability's standard cooldown."""
    st = make_state(["Octor", "Medea", "Armazi", "E'moon"],
                    [sq(18, 10), sq(18, 13), sq(18, 12), sq(18, 9)])
    assert st.held[0] == 3                          # Medea, the next seat
    assert A.COPY + 3 not in legal(st)             # E'moon cannot be copied
    st.apply(A.COPY + 2)
    assert st.held[0] == 0 and st.held_cd[0] == 5 and A.ABILITY + 2 not in legal(st)
    st.held_cd[0], st._mask = 0, None
    st.apply(A.ABILITY + 2)
    assert st.health[2] == 65 and st.held[0] == -1
    assert not any(A.ABILITY <= a < A.COPY for a in legal(st))


def test_kruber_swaps_places():
    """Kruber: range 1-6, cooldown 4, swaps squares with an enemy; disabled in an inactive zone."""
    st = make_state(["Kruber", "Armazi"], [sq(18, 10), sq(18, 16)])
    st.apply(A.ABILITY + 1)
    assert st.pos == [sq(18, 16), sq(18, 10)] and st.cooldown[0] == 4
    st = make_state(["Kruber", "Armazi"], [sq(18, 10), sq(18, 16)])
    st.zones_out = 1
    assert A.ABILITY + 1 not in legal(st)


def test_tharsis_burns_at_the_end_of_turns():
    """Tharsis: ending a turn next to enemies (or an enemy ending next to him) deals 10 and
    forbids healing cards (designed: for the victim's next turn)."""
    st = make_state(["Tharsis", "Armazi"], [sq(18, 10), sq(18, 11)])
    st.apply(A.END_TURN)
    assert st.health[1] == 90 and st.burned[1] == 1
    give(st, 1, A.CONSUMABLE_POS[0], "Small Potion")
    st.phase, st._mask = "start", None
    assert A.CONSUME + 0 not in legal(st)
    st.phase, st._mask = "act", None
    st.apply(A.END_TURN)                           # Armazi ends next to Tharsis: burned again
    assert st.health[1] == 80 and st.burned[1] == 1


def test_drain_bonus_per_die_above_four():
    """D'rain: each shooting die above 4 adds 5 damage and heals him by as much."""
    st = make_state(["D'rain", "Armazi"], [sq(18, 10), sq(18, 12)], health=[50, 100])
    give(st, 0, W0, "Colt")
    st.rng = Dice(5, 6)
    st.apply(A.shoot(0, 1))
    assert st.health == [60, 100 - 22 - 10]


def test_emoon_is_immune_to_abilities():
    """E'moon cannot be affected by any other character's special ability."""
    st = make_state(["Armazi", "E'moon", "Tsiva", "Tharsis"],
                    [sq(18, 10), sq(18, 11), sq(18, 13), sq(18, 12)])
    assert A.ABILITY + 1 not in legal(st)
    st.cur, st._mask = 2, None
    st.turn_seat = st.cur
    st.apply(A.ABILITY)
    assert not st.frozen[1] and st.frozen[3]
    st.cur, st.phase, st._mask = 3, "act", None
    st.turn_seat = st.cur
    st.frozen[3] = False
    st.apply(A.END_TURN)
    assert st.health[1] == 100 and st.health[2] == 90


def test_emoon_is_immune_to_drains_bonus():
    """E'moon 'cannot be affected by any other character's special ability': D'rain's extra 5 per
    die above 4 is his special ability, so a shot at E'moon deals the weapon's damage only and
    drains nothing (D'rain is not healed)."""
    st = make_state(["D'rain", "E'moon"], [sq(18, 10), sq(18, 12)], health=[50, 100])
    give(st, 0, W0, "Colt")
    st.rng = Dice(5, 6)
    st.apply(A.shoot(0, 1))
    assert st.health == [50, 100 - 22]


def test_drain_bonus_is_ability_damage_armour_and_field_do_not_stop_it():
    """D'rain with the Armor cards ('block all incoming damage except for character's special
    abilities') and the Magic Field ('half of all incoming damage is blocked, except for enemy
    character's special ability'): the weapon part is blocked or halved, the drain part is not."""
    st = make_state(["D'rain", "Armazi"], [sq(18, 10), sq(18, 12)], health=[50, 100])
    give(st, 0, W0, "Colt")
    give(st, 1, A.ARMOUR_POS[1], "Body Armour")
    st.rng = Dice(5, 6)                               # 22 by the Colt, +10 drained
    st.apply(A.shoot(0, 1))
    assert st.health == [60, 100 - (22 - 20) - 10]
    st = make_state(["D'rain", "Armazi"], [sq(18, 10), sq(18, 12)], health=[50, 100])
    give(st, 0, W0, "Colt")
    st.banners = [("field", (sq(18, 12),), 1, 3)]
    st.rng = Dice(5, 6)
    st.apply(A.shoot(0, 1))
    assert st.health == [60, 100 - 11 - 10]


def test_octor_copies_as_many_times_as_desired_per_turn():
    """Octor: 'You can steal any special ability from any character as many times as you desire,
    per one turn' -- he may copy Armazi, then Medea, then Armazi again in one turn; a copy that
    changes nothing (the very copy he holds) is not offered; the designed safeguard
    ``octor_copies_per_turn`` ends the copying (here 3)."""
    st = make_state(["Octor", "Medea", "Armazi"], [sq(18, 10), sq(18, 12), sq(18, 11)])
    st.apply(A.COPY + 2)                            # Armazi
    assert st.held[0] == 0 and A.COPY + 2 not in legal(st) and A.COPY + 1 in legal(st)
    st.apply(A.COPY + 1)                            # Medea
    assert st.held[0] == 3 and st.held_cd[0] == 3
    assert A.COPY + 2 in legal(st)                  # Armazi again, the same turn
    st.apply(A.COPY + 2)
    assert st.held[0] == 0 and st.held_cd[0] == 5
    st = make_state(["Octor", "Medea", "Armazi"], [sq(18, 10), sq(18, 12), sq(18, 11)],
                    rules={"octor_copies_per_turn": 3})
    for rel in (2, 1, 2):
        st.apply(A.COPY + rel)
    assert not any(A.COPY <= a < A.CONSUME for a in legal(st))   # the safeguard: 3 a turn
    st.apply(A.END_TURN)
    while st.cur != 0:
        st.__dict__.update(phase="act", main_done=False, _mask=None)
        st.apply(A.END_TURN)
        while st.phase == "react":
            st.apply(A.END_TURN)
    st.__dict__.update(phase="act", _mask=None)
    assert A.COPY + 1 in legal(st)                  # a new turn, new copies
