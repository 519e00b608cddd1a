"""Gorgasali: acting outside one's own turn -- the reaction window ('Special abilities can be
used anytime during the game and some of the special abilities have cooldowns') and the spoils
of eliminations placed by the eliminator whenever they happen (Elimination with Character Mat).
"""
from __future__ import annotations

import numpy as np

from tabletop_arena.envs.gorgasali import actions as A
from tabletop_arena.envs.gorgasali import make_game
from tabletop_arena.envs.gorgasali.observe import BOARD_SIZE, EXTRA_BASE
from tests.gorgasali import give, legal, make_state, sq
from tests.random_play import play_checking

W0, W1 = A.WEAPON_POS
D0 = A.DEFENSIVE_POS[0]


def test_reaction_window_before_another_players_turn():
    """Before Ebue's turn starts, Armazi (ability ready, Ebue in range) may strike now; the
    cooldown starts as in his own turn; then Ebue's turn begins."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 12)], react=True)
    st.apply(A.END_TURN)
    assert st.phase == "react" and st.cur == 0 and st.turn_seat == 1
    assert legal(st) == {A.ABILITY + 1, A.END_TURN}
    obs = st.observation(0)[BOARD_SIZE:]
    assert obs[EXTRA_BASE + 2] == 1 and obs[EXTRA_BASE + 3 + 1] == 1
    assert st.action_to_str(A.END_TURN).startswith("pass")
    st.apply(A.ABILITY + 1)
    assert st.health[1] == 65 and st.cooldown[0] == 5
    assert st.cur == 1 and st.phase in ("start", "move")


def test_passing_and_players_without_a_use_are_not_asked():
    """Passing (END_TURN in the window) starts the turn; a player whose ability is on cooldown
    or has no target in range is not asked."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 12)], react=True)
    st.apply(A.END_TURN)
    st.apply(A.END_TURN)                     # pass
    assert st.cur == 1 and st.phase in ("start", "move") and st.health[1] == 100
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 15)], react=True)
    st.apply(A.END_TURN)                     # Ebue out of Armazi's range 2
    assert st.cur == 1 and st.phase != "react"
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 12)], react=True)
    st.cooldown[0] = 3
    st.apply(A.END_TURN)
    assert st.cur == 1 and st.phase != "react"


def test_tsiva_freezes_the_player_about_to_move():
    """Tsiva reacting at the start of an enemy's turn: the frozen enemy does not move this turn
    and may not target her."""
    st = make_state(["Tsiva", "Varas"], [sq(18, 10), sq(18, 12)], react=True)
    give(st, 1, W0, "Colt")
    st.cooldown[1] = 2                       # Varas has nothing to do before the roll
    st.apply(A.END_TURN)
    assert st.phase == "react" and st.cur == 0
    st.apply(A.ABILITY)
    assert st.frozen[1] and st.cur == 1 and st.phase == "act"   # no roll, no walk
    assert st.pos[1] == sq(18, 12) and A.shoot(0, 1) not in legal(st)


def test_reaction_kill_spoils_are_chosen_by_the_reactor():
    """Armazi eliminates Ebue in the window before Ebue's turn: Armazi places the spoils (a
    LOOT sub-step when the category is full, outside his own turn); Ebue's turn is lost and
    play goes on with the next seat."""
    st = make_state(["Armazi", "Ebue", "Varas"], [sq(18, 10), sq(18, 11), sq(5, 5)],
                    health=[100, 30, 100], react=True)
    give(st, 0, W0, "Club")
    give(st, 0, W1, "Colt")
    mantis = give(st, 1, W0, "Mantis")
    st.apply(A.END_TURN)
    assert st.phase == "react" and st.cur == 0   # Varas (seat 2) is asked first: no target
    st.apply(A.ABILITY + 1)
    assert not st.alive[1]
    assert st.phase == "loot" and st.cur == 0 and st.loot == [(0, mantis)]
    st.apply(A.LOOT + W1)
    assert st.mat[0][W1] == mantis
    assert st.cur == 2 and st.turn_seat == 2 and st.phase in ("start", "move")


def test_end_of_turn_spoils_are_the_eliminators_choice():
    """Ball Lightning eliminates the player ending its turn next to it: its owner places the
    spoils (LOOT sub-step with full slots) before the next turn starts -- no automatic
    placement any more."""
    st = make_state(["Armazi", "Ebue", "Varas"], [sq(18, 10), sq(18, 13), sq(5, 5)],
                    health=[100, 30, 100])
    give(st, 0, D0, "Ball Lightning")
    give(st, 0, W0, "Club")
    give(st, 0, W1, "Colt")
    mantis = give(st, 1, W0, "Mantis")
    potion = give(st, 1, A.CONSUMABLE_POS[0], "Small Potion")
    st.apply(A.defend(0, 0))
    st.apply(A.END_TURN)
    assert st.cur == 1
    st.phase, st._mask = "act", None           # Ebue stays put
    st.apply(A.END_TURN)                       # Ebue ends his turn within 3 of the ball
    assert not st.alive[1] and potion in st.mat[0]   # a free slot: placed
    assert st.phase == "loot" and st.cur == 0 and st.turn_seat == 1
    assert {A.LOOT + W0, A.LOOT + W1, A.LOOT + A.BACKPACK_POS[0], A.DISCARD_LOOT} <= legal(st)
    st.apply(A.DISCARD_LOOT)
    assert mantis in st.discard and st.cur == 2 and st.turn_seat == 2


def test_tharsis_end_of_turn_kill_goes_through_the_loot_choice():
    """Tharsis' burn eliminating an enemy at the end of his own turn: the spoils wait for his
    choice before the turn passes."""
    st = make_state(["Tharsis", "Armazi", "Varas"], [sq(18, 10), sq(18, 11), sq(5, 5)],
                    health=[100, 10, 100])
    give(st, 0, W0, "Club")
    give(st, 0, W1, "Colt")
    ram = give(st, 1, W0, "Ram")
    st.apply(A.END_TURN)
    assert not st.alive[1] and st.phase == "loot" and st.cur == 0 and st.loot == [(0, ram)]
    st.apply(A.LOOT + W0)
    assert st.mat[0][W0] == ram and st.cur == 2


def test_react_window_rule_can_be_switched_off_and_games_stay_short():
    """The window is a rules key (react_window); with it on, random games still end well within
    the AEC step cap."""
    g = make_game(num_players=4, rules={"react_window": False})
    play_checking(g.new_initial_state(0), np.random.default_rng(0),
                  lambda st: ["a react window"] if st.phase == "react" else [], "react_window off")
    g = make_game(num_players=4)
    phases = []
    for k in range(3):
        n = play_checking(g.new_initial_state(k), np.random.default_rng(k),
                          lambda st: phases.append(st.phase) or [], f"seed {k}")
        assert n < 2000
    assert "react" in phases


def test_extra_chest_any_time_during_the_game():
    """Extra chest: 'You can use your extra chest any time during the game' and 'you are allowed
    to open only one extra chest per turn': before Armazi's turn Ebue (no ability use now) is
    asked only for his extra chest and opens one; he is not offered a second in that turn, but
    may open the next one in his own turn. Flag ``extra_chest_any_time: false``: own turn only."""
    st = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 17)], cur=1, react=True)
    st.extra_chests = [0, 2]
    st.cooldown[1] = 2
    st.apply(A.END_TURN)                     # Ebue's turn ends; Armazi's turn is about to start
    assert st.phase == "react" and st.cur == 1 and st.turn_seat == 0
    assert legal(st) == {A.EXTRA_CHEST, A.END_TURN}
    assert st.observation(1)[BOARD_SIZE + EXTRA_BASE + 2] == 1
    st.apply(A.EXTRA_CHEST)
    assert st.extra_chests[1] == 1 and sum(c >= 0 for c in st.mat[1]) == 3   # 1 weapon + 2 support
    assert st.cur == 0 and st.phase in ("start", "move")   # asked once: a chest a turn
    st.__dict__.update(phase="act", main_done=False, _mask=None)
    st.apply(A.END_TURN)                     # Ebue's own turn: the second chest
    while st.phase == "react":
        st.apply(A.END_TURN)
    assert st.cur == 1 and A.EXTRA_CHEST in legal(st)
    off = make_state(["Armazi", "Ebue"], [sq(18, 10), sq(18, 17)], cur=1, react=True,
                     rules={"extra_chest_any_time": False})
    off.extra_chests = [0, 2]
    off.cooldown[1] = 2
    off.apply(A.END_TURN)
    assert off.phase != "react" and off.cur == 0
