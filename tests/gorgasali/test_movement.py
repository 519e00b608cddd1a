"""Gorgasali: set-up, the map, movement, chests, healing squares, zones and the round cap."""
from __future__ import annotations

import numpy as np
import pytest

from envs.core.game import ConfigError, IllegalActionError
from envs.gorgasali import actions as A
from envs.gorgasali import make_game
from envs.gorgasali.board import FOREST, MOUNTAIN, WATER, destinations, to_bits
from tests.gorgasali import Dice, card_id, give, legal, make_state, sq


def test_map_has_the_rulebook_features():
    """Setup / map legend: 72 chests, 20 numbered start sectors with gates, four zones, healing
    squares, three obstacle kinds and areas that block movement and targeting."""
    b = make_game().board
    assert len(b.chests) == 72
    assert len(b.gates) == 20 and len(set(b.gates)) == 20
    assert set(b.zone) == {1, 2, 3, 4}
    assert b.healing and b.blocking
    assert {WATER, FOREST, MOUNTAIN} <= set(b.terrain)


def test_setup_health_extra_chest_and_gates():
    """Setup: 100 health, one extra chest each, every figure on the gate of its d20 sector."""
    g = make_game(num_players=6)
    st = g.new_initial_state(np.random.default_rng(3))
    assert st.health == [100] * 6 and st.extra_chests == [1] * 6
    assert all(st.pos[s] == g.board.gates[st.sector[s]] for s in range(6))
    assert len(set(st.sector)) == 6
    assert sorted(st.char) == sorted(set(st.char))   # ten different characters


def test_characters_chosen_by_the_agents():
    """Setup: 'Choose the character' -- with characters='choose' the seats pick in turn."""
    g = make_game(num_players=3, characters="choose")
    st = g.new_initial_state(np.random.default_rng(0))
    assert st.phase == "choose"
    first = st.cur
    st.apply(A.CHOOSE + 3)                                   # Medea
    assert A.CHOOSE + 3 not in legal(st)
    st.apply(A.CHOOSE + 0)
    st.apply(A.CHOOSE + 9)
    assert st.char[first] == 3 and st.phase in ("start", "move")
    with pytest.raises(ConfigError):
        make_game(num_players=2, characters=["Medea", "Medea"])


def test_exact_roll_in_open_ground():
    """Movement: cover exactly the rolled number of squares, orthogonally, never crossing a
    covered square again: a roll of 2 reaches the squares two steps away, not the start."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 15), sq(0, 0)], phase="start")
    st.rng = Dice(1, 1)
    st.apply(A.ROLL)
    assert st.phase == "move" and st.move_points == 2
    want = {sq(18, 13), sq(18, 17), sq(16, 15), sq(17, 14), sq(17, 16), sq(19, 14), sq(19, 16)}
    assert set(st.dest) == want


def test_no_step_back_in_a_dead_end():
    """Movement ('the square you already covered cannot be crossed again'; 'if you don't have
    enough numbers left ... you must end your movement'): in a 3-square dead end a roll of 5
    stops at its end instead of walking back."""
    corridor = to_bits(range(0, 4))           # squares (0,0)..(0,3), nothing else enterable
    out = destinations(0, 5, {1: corridor}, 0, 0, 0, 0)
    assert out == {3: 0}
    assert destinations(0, 2, {1: corridor}, 0, 0, 0, 0) == {2: 0}


def test_rulebook_example_stop_before_water_and_forest():
    """Movement example: rolled 6, 5 squares to B, one point left cannot pay for water or forest
    (designed cost 2), so the move ends on B."""
    path = to_bits(range(0, 6))                                   # A=(0,0) .. B=(0,5)
    costly = to_bits([6, 25])                                     # forest east of B, water south
    out = destinations(0, 6, {1: path, 2: costly}, 0, 0, 0, 0)
    assert out == {5: 0}


def test_obstacle_costs_and_crossing_cards():
    """Obstacles cost extra movement (designed: water 2, forest 2, mountain 3); Boat, Axe and
    Rope cross them without penalty; Adrenaline doubles the roll."""
    st = make_state(["Armazi", "Ebue"], [sq(11, 2), sq(0, 0)], phase="start")
    give(st, 0, A.CONSUMABLE_POS[0], "Axe")
    give(st, 0, A.CONSUMABLE_POS[1], "Adrenaline")
    st.rng = Dice(1, 2)
    st.apply(A.ROLL)                           # 3 points; forest (11,3)-(11,5) east
    assert sq(11, 5) not in st.dest           # three forest squares would cost 6
    st.apply(A.CONSUME + 0)                    # Axe
    assert sq(11, 5) in st.dest and st.cross == {"cross_forest"}
    assert A.CONSUME + 1 not in legal(st)      # one consumable per turn
    st2 = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(0, 0)], phase="start")
    give(st2, 0, A.CONSUMABLE_POS[0], "Adrenaline")
    st2.rng = Dice(1, 2)
    st2.apply(A.ROLL)
    st2.apply(A.CONSUME + 0)
    assert st2.move_points == 6 and sq(18, 16) in st2.dest


def test_skip_not_twice_and_not_on_double():
    """Movement: skipping is allowed, but never two turns in a row and never on a double."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(0, 0)], phase="start")
    st.rng = Dice(2, 3)
    st.apply(A.ROLL)
    assert A.SKIP in legal(st)
    st.apply(A.SKIP)
    assert st.skipped_last[0] and st.pos[0] == sq(18, 10)
    st.skipped_last[0] = True
    st.phase, st.dice, st._mask = "move", (2, 3), None
    st._compute_destinations()
    assert A.SKIP not in legal(st)
    st.skipped_last[0] = False
    st.dice, st._mask = (3, 3), None
    assert A.SKIP not in legal(st)


def test_chest_early_stop_and_contents():
    """Chests: a move may end on a chest before the roll is used up; it gives one weapon and two
    support cards and leaves the map."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(0, 0)], phase="start")
    st.chests = {sq(18, 11)}
    st.rng = Dice(4, 4)
    st.apply(A.ROLL)
    assert sq(18, 11) in st.dest
    st.apply(A.SQUARE + sq(18, 11))
    assert sq(18, 11) not in st.chests
    cards = [st.game.cards[c] for c in st.mat[0] if c >= 0]
    assert sum(c.category == "weapon" for c in cards) == 1 and len(cards) == 3


def test_healing_square():
    """Place to heal: ending the move on a healing square restores 20 (never above 100)."""
    st = make_state(["Armazi", "Ebue"], [sq(16, 0), sq(0, 0)], phase="start", health=[70, 100])
    st.rng = Dice(1, 1)
    st.apply(A.ROLL)
    st.apply(A.SQUARE + sq(16, 2))
    assert st.health[0] == 90


def test_zone_damage_per_inactive_square_least_damaging_path():
    """Zones: after the first zone goes inactive each square crossed there costs 5 health; the
    engine charges the least damaging path to the chosen square."""
    st = make_state(["Armazi", "Ebue"], [sq(3, 5), sq(19, 19)], phase="start")
    st.zones_out = 1
    st.rng = Dice(1, 2)
    st.apply(A.ROLL)                           # (3,5) is zone 2; row 2 is zone 1
    assert st.dest[sq(2, 7)] == 5              # (3,6),(3,7) active, then (2,7) inactive
    assert st.dest[sq(3, 8)] == 0
    st.apply(A.SQUARE + sq(2, 7))
    assert st.health[0] == 95


def test_zone_schedule_every_five_rounds():
    """Zones shrink one by one after every five rounds; penalties 5, 10, 15 (then 20, designed)."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 14)], phase="act")
    penalties = []
    for _ in range(2 * 20):
        st.phase, st._mask = "act", None
        st.apply(A.END_TURN)
        penalties.append((st.round, st.zones_out, st.zone_penalty()))
    seen = {r: (z, p) for r, z, p in penalties}
    assert seen[5] == (0, 0) and seen[6] == (1, 5) and seen[11] == (2, 10) and seen[16] == (3, 15)
    assert seen[21] == (4, 20)


def test_round_cap_ends_and_ranks_by_health():
    """Round cap (designed max_rounds): the game ends; survivors are ranked by health."""
    st = make_state(["Armazi", "Ebue", "Varas"], [sq(18, 0), sq(18, 10), sq(18, 19)],
                    rules={"max_rounds": 1}, health=[50, 90, 70])
    for seat in range(3):
        assert st.cur == seat
        st.phase, st._mask = "act", None
        st.apply(A.END_TURN)
    assert st.is_terminal() and st.final_info()["round_cap"]
    assert list(st.returns()) == [-1.0, 1.0, 0.0]


def test_illegal_action_leaves_state_unchanged():
    """Engine contract: an action outside the mask raises and changes nothing."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(0, 0)], phase="act")
    before = st.serialize()
    with pytest.raises(IllegalActionError):
        st.apply(A.RELOAD)                     # no weapon face down
    assert st.serialize() == before and st.phase == "act"


def test_card_ids_are_stable():
    g = make_game()
    assert g.cards[card_id(g, "Breathold")].skill == "armour_piercing"


def _walk_reference(start, roll, cost, occupied, inactive, penalty, chests):
    """Plain recursion over the walks the movement rule allows (no step straight back)."""
    from envs.gorgasali.board import OPPOSITE, STEP
    out = {}

    def visit(sq, came, left, pen, moved_before):
        forward = [(d, STEP[sq][d]) for d in range(4) if d != (OPPOSITE[came] if came >= 0 else -1)
                   and STEP[sq][d] >= 0 and 0 < cost[STEP[sq][d]] <= left]
        stop = left == 0 or not forward or (moved_before and sq in chests)
        if stop and sq not in occupied and (sq != start or not forward and not moved_before):
            out[sq] = min(out.get(sq, 10**9), pen)
        for d, n in forward:
            visit(n, d, left - cost[n], pen + (penalty if n in inactive else 0), True)

    visit(start, -1, roll, 0, False)
    return out


def test_destinations_match_a_plain_walk_enumeration():
    """Movement: the bitboard search agrees with a direct enumeration of the allowed walks
    (random terrain, chests, occupied and inactive squares, rolls 1..7)."""
    rng = np.random.default_rng(0)
    for _ in range(150):
        terrain_cost = rng.choice([1, 1, 1, 1, 2, 3, 0], size=A.SQUARES)
        masks = {}
        for c in (1, 2, 3):
            masks[c] = to_bits(np.flatnonzero(terrain_cost == c))
        start = int(rng.integers(A.SQUARES))
        roll = int(rng.integers(1, 8))
        occ = {int(x) for x in rng.choice(A.SQUARES, 6)} - {start}
        hot = {int(x) for x in np.flatnonzero(rng.random(A.SQUARES) < 0.3)}
        chests = {int(x) for x in rng.choice(A.SQUARES, 40)}
        got = destinations(start, roll, masks, to_bits(occ), to_bits(hot), 5, to_bits(chests))
        assert got == _walk_reference(start, roll, terrain_cost, occ, hot, 5, chests)
