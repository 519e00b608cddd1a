"""Gorgasali: rules added after the first version -- Kruber's return, Octor copying passive
abilities, the loot choice of an elimination's spoils, the Teleport card and the dobergun ruling
(rulebook sections named in each docstring)."""
from __future__ import annotations

from tabletop_arena.envs.gorgasali import actions as A
from tests.gorgasali import Dice, card_id, first_walk, give, legal, make_state, sq

W0, W1 = A.WEAPON_POS
C0 = A.CONSUMABLE_POS[0]


def test_characters_kruber_may_return_to_his_square_if_he_does_not_move():
    """Characters, Kruber: 'After exchanging the places, if you do not make any movement, you
    have a choice to return to your initial square' (reading: the swap is undone)."""
    st = make_state(["Kruber", "Armazi", "Ebue"], [sq(18, 10), sq(18, 14), sq(5, 5)])
    assert A.RETURN not in legal(st)
    st.apply(A.ABILITY + 1)
    assert st.pos[:2] == [sq(18, 14), sq(18, 10)]
    assert A.RETURN in legal(st)
    st.apply(A.RETURN)
    assert st.pos[:2] == [sq(18, 10), sq(18, 14)] and st.cur == 0 and st.cooldown[0] == 4
    assert A.RETURN not in legal(st)
    # swapped before the roll, then moved: no return
    st = make_state(["Kruber", "Armazi", "Ebue"], [sq(18, 10), sq(18, 14), sq(5, 5)],
                    phase="start")
    st.rng = Dice(1, 2)
    st.apply(A.ABILITY + 1)                        # only the roll is left: rolled at once
    assert st.phase == "move" and A.RETURN not in legal(st)   # only after the movement part
    first_walk(st)
    assert st.phase == "act" and A.RETURN not in legal(st)
    # swapped before the roll, then skipped the movement: the return is offered
    st = make_state(["Kruber", "Armazi", "Ebue"], [sq(18, 10), sq(18, 14), sq(5, 5)],
                    phase="start")
    st.rng = Dice(1, 2)
    st.apply(A.ABILITY + 1)
    st.apply(A.SKIP)
    assert A.RETURN in legal(st)


def test_characters_octor_copies_tharsis_burn_once():
    """Characters, Octor: 'you can steal anyone's special ability within the range, except for
    E'moon's. Stolen ability is for one time use only' -- passive ones too (designed: a copied
    passive acts at its first trigger). Tharsis' burn at the end of Octor's turn."""
    st = make_state(["Octor", "Tharsis", "Armazi"], [sq(18, 10), sq(18, 13), sq(18, 11)])
    st.held[0], st._mask = -1, None                 # his start copy (Tharsis', the next seat) spent
    assert A.COPY + 1 in legal(st)
    st.apply(A.COPY + 1)
    assert st.held[0] == 7 and st.held_cd[0] == 0
    assert not any(A.ABILITY <= a < A.COPY for a in legal(st))   # passive: nothing to use
    st.apply(A.END_TURN)
    assert st.health[2] == 90 and st.burned[2] == 1 and st.held[0] == -1


def test_characters_octor_copies_drain_for_one_hit():
    """Characters, Octor copying D'rain: the next hit gets +5 per die above 4 and heals as much,
    once."""
    st = make_state(["Octor", "D'rain", "Armazi"], [sq(18, 10), sq(18, 12), sq(5, 5)],
                    health=[80, 100, 100])
    give(st, 0, W0, "Colt")
    st.held[0], st._mask = -1, None                 # his start copy (D'rain's, the next seat) spent
    st.apply(A.COPY + 1)
    st.rng = Dice(5, 6)
    st.apply(A.shoot(0, 1))
    assert st.health[1] == 100 - (11 * 2 + 10) and st.health[0] == 90 and st.held[0] == -1


def test_elimination_spoils_go_through_the_loot_choice():
    """Elimination ('transfers all of his cards ... to the opponent who eliminated him') with the
    Character Mat rule: cards with no free slot are the eliminator's choice (replace, backpack or
    discard), one sub-step per card."""
    st = make_state(["Armazi", "Ebue", "Varas"], [sq(18, 10), sq(18, 11), sq(5, 5)],
                    health=[100, 30, 100])
    give(st, 0, W0, "Club")
    give(st, 0, W1, "Colt")
    mantis = give(st, 1, W0, "Mantis")
    potion = give(st, 1, C0, "Small Potion")
    st.rng = Dice(6, 6)
    st.apply(A.shoot(0, 1))
    assert not st.alive[1]
    assert potion in st.mat[0]                      # a free consumable slot: placed
    assert st.phase == "loot" and st.cur == 0 and st.loot == [(0, mantis)]
    assert {A.LOOT + W0, A.LOOT + W1, A.DISCARD_LOOT} <= legal(st)
    st.apply(A.LOOT + W1)                           # keep the Mantis in place of the Colt
    assert st.mat[0][W1] == mantis and card_id(st.game, "Colt") in st.discard
    assert st.cur == 1 or st.cur == 2               # the shot was the main action: turn over


def test_rulings_teleport_lands_within_range_and_pays_one_square_outside_the_zone():
    """Rulings: 'If you use teleport to land outside of an active zone, you will be penalized by
    the same amount of damage as if you moved on one square outside the active zone'. The card
    is designed: used after the roll instead of walking, any vacant square within 5."""
    st = make_state(["Armazi", "Ebue"], [sq(4, 10), sq(19, 19)], phase="start")
    give(st, 0, C0, "Teleport")
    st.zones_out = 1
    st.rng = Dice(2, 3)
    st.apply(A.ROLL)
    assert A.CONSUME + 0 in legal(st)
    st.apply(A.CONSUME + 0)
    assert st.phase == "teleport"
    opts = {a - A.SQUARE for a in legal(st)}
    assert sq(0, 10) in opts and sq(9, 15) in opts and sq(10, 10) not in opts
    assert sq(4, 10) not in opts                    # own square: occupied by oneself
    st.apply(A.SQUARE + sq(1, 10))                  # row 1: zone 1, inactive
    assert st.pos[0] == sq(1, 10) and st.health[0] == 95 and st.phase == "act"


def test_rulings_dobergun_skill_in_an_inactive_zone_costs_no_penalty():
    """Rulings: 'If you use dobergun's special skill inside an inactive zone, you will not get
    the zone penalty' -- the six shooter whose skill moves 2 extra squares."""
    st = make_state(["Armazi", "Ebue"], [sq(1, 10), sq(1, 12)])
    st.zones_out = 1
    give(st, 0, W0, "Dobergun")
    st.rng = Dice(4, 1)
    st.apply(A.shoot(0, 1))
    assert st.phase == "bonus"
    st.apply(A.SQUARE + sq(0, 9))                   # two inactive squares away
    assert st.pos[0] == sq(0, 9) and st.health[0] == 100
