"""Scenario tests for the Gorgasali departures found by the third rules audit (issue 42), each
named after its rulebook section and quoting the rule: a frozen player gets no Dobergun bonus move
(Characters, Tsiva), a defensive banner stays its 2 rounds after its owner falls (Defensive
cards), and D'rain's drain counts the dice as rolled, not as the Tree Platform lowered them
(Characters, D'rain)."""
from __future__ import annotations

from tabletop_arena.envs.gorgasali import actions as A
from tests.gorgasali import Dice, give, make_state, sq

W0 = A.WEAPON_POS[0]
D0 = A.DEFENSIVE_POS[0]


def test_characters_tsiva_a_frozen_player_gets_no_dobergun_bonus_move():
    """Characters, Tsiva: 'Frozen enemies are unable to move during their turn.' The Dobergun's
    skill ('If you roll 4 or higher, you can move anywhere by 2 extra squares') is a move: a
    frozen shooter rolling 4 hits, but does not move; unfrozen, the same shot gives the move."""
    st = make_state(["Tsiva", "Varas", "Ebue"], [sq(18, 10), sq(18, 12), sq(18, 14)])
    give(st, 1, W0, "Dobergun")
    st.apply(A.ABILITY)                             # Tsiva freezes Varas (within 3)
    assert st.frozen[1] and not st.frozen[2]
    st.apply(A.END_TURN)
    assert st.cur == 1 and st.phase == "act"        # frozen: no roll, no movement
    st.rng = Dice(4, 1)
    start = st.pos[1]
    st.apply(A.shoot(0, 1))                         # at Ebue (Tsiva may not be targeted)
    assert st.health[2] == 100 - 5 * 4              # the shot hit (Dobergun: x4)
    assert st.phase != "bonus" and st.pos[1] == start and st.cur == 2
    # the same shot by a player who is not frozen gives the bonus move
    st = make_state(["Tsiva", "Varas", "Ebue"], [sq(18, 10), sq(18, 12), sq(18, 14)], cur=1)
    give(st, 1, W0, "Dobergun")
    st.rng = Dice(4, 1)
    st.apply(A.shoot(0, 1))
    assert st.phase == "bonus" and st.cur == 1


def _ebue_kills_armazi(banner: str):
    """Round 1: Armazi (40 health) places ``banner`` on his square and ends his turn; Ebue kills
    him with a Breathold from range 4 (a 6 hits: 45). Varas waits far away."""
    st = make_state(["Armazi", "Ebue", "Varas"], [sq(18, 10), sq(18, 14), sq(18, 2)],
                    health=[40, 100, 100])
    give(st, 0, D0, banner)
    st.apply(A.defend(0, 0))
    assert st.banners and st.banners[0][3] == 3     # placed in round 1: 2 rounds
    st.apply(A.END_TURN)
    assert st.cur == 1 and st.round == 1
    give(st, 1, W0, "Breathold")
    st.rng = Dice(6)
    st.phase, st._mask = "act", None
    st.apply(A.shoot(0, 2))
    assert not st.alive[0] and st.cur == 2
    return st


def test_defensive_cards_banner_stays_on_the_map_when_its_owner_is_eliminated():
    """Defensive cards: 'The defensive card banner remains on the map for 2 rounds after which it
    must be removed.' A Ball Lightning whose owner is eliminated stays on the map and keeps
    working: an enemy ending its turn within 3 of it takes 35."""
    st = _ebue_kills_armazi("Ball Lightning")
    assert [b[0] for b in st.banners] == ["ball"]   # the banner stays on the map
    st.pos[2] = sq(18, 8)                           # Varas ends his turn within 3 of the ball
    st.phase, st._mask = "act", None
    st.apply(A.END_TURN)
    assert st.health[2] == 100 - 35


def test_defensive_cards_fallen_owners_banner_removed_after_two_rounds():
    """Defensive cards: 'The defensive card banner remains on the map for 2 rounds after which it
    must be removed' -- also when its owner is out: the fallen Armazi's Tree Platform stays
    through rounds 1 and 2 and is gone when round 3 passes the turn he would have had."""
    st = _ebue_kills_armazi("Tree Platform")
    for rnd, seat in ((1, 2), (2, 1), (2, 2)):
        assert (st.round, st.cur) == (rnd, seat)
        assert [b[0] for b in st.banners] == ["tree"]
        st.phase, st._mask = "act", None
        st.apply(A.END_TURN)
    assert (st.round, st.cur) == (3, 1)
    assert st.banners == []                         # removed at the fallen owner's turn slot


def test_characters_drain_counts_the_dice_rolled_not_the_tree_platforms():
    """Characters: 'Each character has its own unique special ability, which cannot be affected
    by any card'; Tree Platform: 'every unit of each dice is reduced by 1. Tree platform is only
    effective against weapon cards.' D'rain rolls 5 and 6 at an enemy on a Tree Platform: the
    Colt deals (4 + 5) x 2 = 18, and the drain counts the dice as rolled: +10 and heals 10."""
    st = make_state(["D'rain", "Armazi"], [sq(18, 10), sq(18, 12)], health=[50, 100])
    give(st, 0, W0, "Colt")
    st.banners = [("tree", (sq(18, 12),), 1, 3)]
    st.rng = Dice(5, 6)
    st.apply(A.shoot(0, 1))
    assert st.health == [60, 100 - 18 - 10]

