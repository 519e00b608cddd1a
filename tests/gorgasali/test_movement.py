"""Gorgasali: set-up, the map, the walk (movement square by square), chests, healing squares,
zones and the round cap."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.core.game import ConfigError, IllegalActionError
from tabletop_arena.envs.gorgasali import actions as A
from tabletop_arena.envs.gorgasali import make_game
from tabletop_arena.envs.gorgasali.board import FOREST, MOUNTAIN, NB, WATER, can_finish, may_end, to_bits, walk_steps
from tests.gorgasali import Dice, all_walks, card_id, give, legal, make_state, sq, walk


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
    # the first turn begins (the others may first open their extra chests: reaction window)
    assert st.char[first] == 3 and st.turn_seat == first and st.phase in ("react", "start", "move")
    with pytest.raises(ConfigError):
        make_game(num_players=2, characters=["Medea", "Medea"])


CORNER = sq(0, 0)


def _rolled(pos, dice, others=(CORNER,), **kw):
    """Seat 0 (Armazi) at ``pos`` has rolled ``dice`` (scripted) and is about to walk."""
    chars = ["Armazi", "Ebue", "Varas", "Medea"][:1 + len(others)]
    st = make_state(chars, [pos, *others], phase="start", **kw)
    st.rng = Dice(*dice)
    st.apply(A.ROLL)
    assert st.phase == "move" and st.move_points == sum(dice)
    return st


def test_exact_roll_in_open_ground():
    """Movement: cover exactly the rolled number of squares, orthogonally, never crossing a
    covered square again: a roll of 2 ends two steps away, never on the start."""
    st = _rolled(sq(18, 15), (1, 1))
    want = {sq(18, 13), sq(18, 17), sq(16, 15), sq(17, 14), sq(17, 16), sq(19, 14), sq(19, 16)}
    assert set(all_walks(st)) == want
    # one square a step: the first step offers the four neighbours
    assert {a for a in legal(st) if a < A.SQUARES} == {sq(17, 15), sq(19, 15), sq(18, 14),
                                                         sq(18, 16)}
    walk(st, sq(18, 16))
    assert st.phase == "move" and st.walk_left == 1 and st.path == (sq(18, 15), sq(18, 16))
    assert sq(18, 15) not in legal(st)             # the start square was covered
    walk(st, sq(17, 16))
    assert st.phase == "act" and st.pos[0] == sq(17, 16)


def test_a_covered_square_is_never_offered_again():
    """Movement ('The square that you have already covered cannot be crossed again during one
    turn'): round a 2x2 block the walk cannot step back on its start square -- the old
    destination search allowed this loop."""
    st = _rolled(sq(18, 10), (3, 3))
    walk(st, sq(18, 11), sq(17, 11), sq(17, 10))
    assert A.SQUARE + sq(18, 10) not in legal(st)
    assert {a for a in legal(st) if a < A.SQUARES} == {sq(16, 10), sq(17, 9)}


def test_random_walks_never_revisit_and_pay_exactly():
    """Movement, property over random walks on the map (with chests and obstacles): no square
    twice; the points spent equal the roll unless the walk stopped on a chest it entered or at
    the terrain stop (no neighbour but the square just left affordable)."""
    rng = np.random.default_rng(0)
    g = make_game(num_players=2)
    for k in range(60):
        st = g.new_initial_state(np.random.default_rng(k))
        while st.phase != "move":
            acts = [a for a in legal(st) if a not in (A.SKIP,)]
            st.apply(int(rng.choice(acts)))
            if st.is_terminal():
                break
        if st.is_terminal():
            continue
        seat = st.current_player
        start, points = st.pos[seat], st.move_points
        chests = set(st.chests)
        cost = st.walk_cost()
        path = [start]
        while st.phase == "move":
            steps = [a for a in legal(st) if a < A.SQUARES]
            a = int(rng.choice(steps))
            if a != st.pos[seat]:
                path.append(a)
            st.apply(a)
        assert len(set(path)) == len(path)
        assert all(b in NB[a] for a, b in zip(path, path[1:]))
        spent = sum(cost[q] for q in path[1:])
        left = points - spent
        end = path[-1]
        stuck = all(not 0 < cost[n] <= left for n in NB[end] if n != path[-2])
        assert left == 0 or (left > 0 and (end in chests or stuck)), (path, points)


def test_no_step_back_in_a_dead_end():
    """Movement ('if you don't have enough numbers left ... you must end your movement'): in a
    3-square dead end a roll of 5 stops at its end instead of walking back."""
    cost = [0] * A.SQUARES
    for q in range(4):                          # squares (0,0)..(0,3), nothing else enterable
        cost[q] = 1
    assert walk_steps(0, -1, 1, 5, cost, 0, 0) == [1]
    assert may_end(3, 2, to_bits(range(4)), 2, cost, 0, 0) == 1     # terrain stop
    assert may_end(2, 1, to_bits(range(3)), 3, cost, 0, 0) == 0     # may go on: must
    assert can_finish(1, 0, 3, 4, cost, 0, 0)
    assert not can_finish(1, 0, 3, 4, cost, 1 << 3, 0)            # the dead end is occupied


def test_rulebook_example_stop_before_water_and_forest():
    """Movement example: rolled 6, 5 squares to B, one point left cannot pay for water or forest
    (designed cost 2), so the move ends on B."""
    cost = [0] * A.SQUARES
    for q in range(6):                          # A=(0,0) .. B=(0,5)
        cost[q] = 1
    cost[6] = cost[25] = 2                      # forest east of B, water south of B
    assert may_end(5, 4, to_bits(range(6)), 1, cost, 0, 0) == 1
    assert walk_steps(4, 3, to_bits(range(5)), 2, cost, 0, 0) == [5]


def test_boxing_oneself_in_is_no_way_to_stop():
    """Reading of 'cover the exact amount': only the terrain (obstacles, blocking areas, the map
    edge, Barriers) ends a move early; a walk that hems itself in with its own path has not
    finished and is never offered. A 2x2 pocket behind a one-square neck: with 6 points a
    walk into it ends boxed in by its own path with a point left, so the step in is not
    offered; with 4 points it ends inside on its last point."""
    cost = [0] * A.SQUARES
    pocket = [sq(2, 1), sq(2, 2), sq(3, 1), sq(3, 2)]
    for q in pocket + [sq(1, 1)] + [sq(0, c) for c in range(1, 8)]:
        cost[q] = 1
    vis = 1 << sq(0, 1)
    assert walk_steps(sq(0, 1), -1, vis, 6, cost, 0, 0) == [sq(0, 2)]
    assert walk_steps(sq(0, 1), -1, vis, 4, cost, 0, 0) == [sq(0, 2), sq(1, 1)]
    inside = to_bits([sq(0, 1), sq(1, 1), sq(2, 1), sq(2, 2), sq(3, 2), sq(3, 1)])
    assert may_end(sq(3, 1), sq(3, 2), inside, 1, cost, 0, 0) == 0


def _reference_ends(start, roll, cost, occ, chests, inactive, penalty):
    """Plain recursion over every self-avoiding walk the rules allow: end square -> least zone
    damage (ends: no points left, a chest entered, the terrain stop; never on a figure)."""
    out = {}

    def terrain_stop(q, prev, left):
        return all(not 0 < cost[n] <= left for n in NB[q] if n != prev)

    def visit(q, prev, seen, left, dmg):
        stop = left == 0 or terrain_stop(q, prev, left)
        if q not in occ and (stop or (prev >= 0 and q in chests)):
            out[q] = min(out.get(q, 10 ** 9), dmg)
        if stop:
            return
        for n in NB[q]:
            if n not in seen and 0 < cost[n] <= left:
                visit(n, q, seen | {n}, left - cost[n], dmg + (penalty if n in inactive else 0))

    visit(start, -1, {start}, roll, 0)
    return out


def test_walks_match_a_plain_enumeration_of_self_avoiding_walks():
    """Movement, exactness: the ends (and least zone damage) reachable through the engine's
    step masks equal those of a direct enumeration of the legal self-avoiding walks; every
    offered step leads to a legal end (random positions, rolls 2..6, chests, figures, zones)."""
    rng = np.random.default_rng(1)
    for k in range(25):
        st = make_state(["Armazi", "Ebue", "Varas"], [0, 0, 0], phase="start")
        open_sq = [q for q in range(A.SQUARES) if st.game.cost[q]]
        st.pos = [int(x) for x in rng.choice(open_sq, 3, replace=False)]
        st.chests = {int(x) for x in rng.choice(st.game.board.chests, 30, replace=False)} \
            - set(st.pos)
        st.zones_out = int(rng.integers(0, 3))
        a = int(rng.integers(1, 4))
        st.rng = Dice(a, int(rng.integers(1, 4)))
        st.apply(A.ROLL)
        if st.phase != "move":
            continue
        board = st.game.board
        inactive = {q for q in range(A.SQUARES) if board.zone[q] <= st.zones_out}
        want = _reference_ends(st.pos[0], st.move_points, st.game.cost, set(st.pos[1:]),
                               st.chests, inactive, st.zone_penalty())
        for q in set(want) & board.healing:      # health lost, after the healing square's 20
            want[q] -= min(want[q], st.game.rules["heal_square"])
        got = all_walks(st)
        assert got == want, k


def test_obstacle_costs_and_crossing_cards():
    """Obstacles cost extra movement (designed: water 2, forest 2, mountain 3); Boat, Axe and
    Rope cross them without penalty; Adrenaline doubles the roll. Movement cards are used
    after the roll, before the first step (reading)."""
    st = make_state(["Armazi", "Ebue"], [sq(11, 2), sq(0, 0)], phase="start")
    give(st, 0, A.CONSUMABLE_POS[0], "Axe")
    give(st, 0, A.CONSUMABLE_POS[1], "Adrenaline")
    st.rng = Dice(1, 2)
    st.apply(A.ROLL)                           # 3 points; forest (11,3)-(11,5) east
    assert sq(11, 5) not in all_walks(st)      # three forest squares would cost 6
    walk(st, sq(11, 3))                        # forest: 2 points
    assert st.walk_left == 1
    st = make_state(["Armazi", "Ebue"], [sq(11, 2), sq(0, 0)], phase="start")
    give(st, 0, A.CONSUMABLE_POS[0], "Axe")
    give(st, 0, A.CONSUMABLE_POS[1], "Adrenaline")
    st.rng = Dice(1, 2)
    st.apply(A.ROLL)
    st.apply(A.CONSUME + 0)                    # Axe
    assert sq(11, 5) in all_walks(st) and st.cross == {"cross_forest"}
    assert A.CONSUME + 1 not in legal(st)      # one consumable per turn
    walk(st, sq(11, 3))
    assert st.walk_left == 2 and A.SKIP not in legal(st)   # no skip once walking
    st2 = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(0, 0)], phase="start")
    give(st2, 0, A.CONSUMABLE_POS[0], "Adrenaline")
    st2.rng = Dice(1, 2)
    st2.apply(A.ROLL)
    st2.apply(A.CONSUME + 0)
    assert st2.move_points == 6 and st2.walk_left == 6
    walk(st2, *(sq(18, c) for c in range(11, 17)))
    assert st2.pos[0] == sq(18, 16) and st2.phase == "act"


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
    st._start_walk()
    assert A.SKIP not in legal(st)
    st.skipped_last[0] = False
    st.dice, st._mask = (3, 3), None
    assert A.SKIP not in legal(st)


def test_chest_stop_is_a_choice():
    """Movement ('If you cross the square with the chest during your movement, you can end your
    movement there and open the chest ... or continue your movement and abstain from opening
    the chest'); Chests: one weapon and two support cards, the chest leaves the map."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(0, 0)], phase="start")
    st.chests = {sq(18, 11)}
    st.rng = Dice(4, 4)
    st.apply(A.ROLL)
    walk(st, sq(18, 11))
    assert st.phase == "move" and A.SQUARE + sq(18, 11) in legal(st)   # stop here ...
    assert A.SQUARE + sq(18, 12) in legal(st)                          # ... or walk on
    walk(st, sq(18, 11))
    assert st.phase == "act" and sq(18, 11) not in st.chests
    cards = [st.game.cards[c] for c in st.mat[0] if c >= 0]
    assert sum(c.category == "weapon" for c in cards) == 1 and len(cards) == 3
    # walking on: the chest stays closed
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(0, 0)], phase="start")
    st.chests = {sq(18, 11)}
    st.rng = Dice(1, 1)
    st.apply(A.ROLL)
    walk(st, sq(18, 11), sq(18, 12))
    assert st.phase == "act" and sq(18, 11) in st.chests and all(c < 0 for c in st.mat[0])


def test_healing_square():
    """Place to heal: ending the move on a healing square restores 20 (never above 100)."""
    st = _rolled(sq(16, 0), (1, 1), health=[70, 100])
    walk(st, sq(16, 1), sq(16, 2))
    assert st.health[0] == 90


def test_zone_damage_per_inactive_square_entered():
    """Zones: after the first zone goes inactive each square of it entered costs 5 health, paid
    as the walk enters it."""
    st = _rolled(sq(3, 5), (1, 2), others=(sq(19, 19),))
    st.zones_out = 1                           # (3,5) is zone 2; row 2 is zone 1
    walk(st, sq(3, 6), sq(3, 7))
    assert st.health[0] == 100
    walk(st, sq(2, 7))
    assert st.health[0] == 95 and st.pos[0] == sq(2, 7)


def test_a_loop_cannot_dodge_zone_damage():
    """Zones with 'a covered square cannot be crossed again': from (3,10) (active) to the
    inactive (2,10) just north with a roll of 5, every legal walk enters at least two inactive
    squares (the last step comes from (2,9), (2,11) or (1,10), all inactive, since the start
    is covered). The old destination search burnt the points on a loop round a 2x2 block
    through the start square and charged only one square (5)."""
    st = _rolled(sq(3, 10), (2, 3), others=(sq(19, 19),))
    st.zones_out = 1
    assert all_walks(st)[sq(2, 10)] == 10


def test_zone_death_on_the_walk():
    """Zones: a player whose health runs out while walking through an inactive zone is out
    there (nothing passes on) and the turn passes."""
    st = _rolled(sq(1, 10), (1, 1), others=(sq(19, 19),), health=[5, 100])
    st.zones_out = 1
    walk(st, sq(1, 11))
    assert not st.alive[0] and st.is_terminal() and st.returns()[1] == 1.0


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
