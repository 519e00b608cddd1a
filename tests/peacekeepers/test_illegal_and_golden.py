"""Illegal actions leave the state untouched. (The golden playthrough that pins the whole engine
is the shared one of every game: tests/golden/, file peacekeepers_v0.golden.)"""
from __future__ import annotations

import pytest

from tabletop_arena import envs
from tabletop_arena.envs.peacekeepers import actions as A
from tabletop_arena.envs.peacekeepers.board import BROWN, GREEN, RED, YELLOW

from .helpers import cell, make_state


def _snapshot(st):
    return (st.serialize(), st.board.tobytes(), st.board_cube.tobytes(), repr(st.hands),
            list(st.bag), list(st.discard), repr(st.captured), st.phase, st.cur,
            st.legal_actions_mask().tobytes())


@pytest.mark.parametrize("action,why", [
    (A.place(RED, cell(4, 4)), "occupied cell"),
    (A.place(RED, cell(4, 6)), "next to a Wizard (Dwarves and Wizards may not touch)"),
    (A.place(GREEN, cell(4, 3)), "colour not in hand"),
    (A.place(RED, cell(0, 0)), "touches no cube"),
    (A.place(YELLOW, cell(3, 4)), "a lone Giant"),
    (A.place(BROWN, cell(3, 4)), "horde not in hand"),
    (A.PASS, "nothing to decline in normal play"),
    (A.DRAW, "no refill prompt"),
    (A.cell_target(cell(3, 4)), "no sub-step running"),
    (A.zone(0), "zones already chosen"),
    (-1, "out of range"),
    (A.NUM_ACTIONS, "out of range"),
])
def test_illegal_action_raises_and_changes_nothing(action, why):
    """Every engine State.apply: an action the rules do not allow raises envs.IllegalActionError
    and the position (board, cubes, hands, bag, piles, phase, mover, mask) is unchanged."""
    st = make_state("RB", origin=(4, 4), hands=["RYK", "RRR"])
    before = _snapshot(st)
    with pytest.raises(envs.IllegalActionError):
        st.apply(action)
    assert _snapshot(st) == before, why
    st.apply(A.place(RED, cell(4, 3)))            # and the state still plays on normally
    assert st.cur == 1


def test_illegal_in_sub_step_changes_nothing():
    """Sub-steps (Troll chase) accept only their own targets: a Giant cannot be chased and a PLACE
    is not allowed until the sub-step is resolved."""
    st = make_state("""
    .Y.
    RY.
    """, origin=(3, 3), hands=["OR", "RRR"])
    st.apply(A.place(1, cell(3, 3)))
    assert st.phase == "troll_chase"
    before = _snapshot(st)
    for bad in (A.cell_target(cell(3, 4)), A.place(RED, cell(2, 3)), A.reroll(0, RED)):
        with pytest.raises(envs.IllegalActionError):
            st.apply(bad)
        assert _snapshot(st) == before


def test_illegal_after_game_over():
    """Once the game is over every action is illegal."""
    st = make_state("WR", origin=(5, 5), mode="solo", hands=["RY"], hand_size=3, bag=[])
    st.apply(A.place(RED, cell(5, 7)))
    assert st.is_terminal()
    before = _snapshot(st)
    with pytest.raises(envs.IllegalActionError):
        st.apply(A.PASS)
    assert _snapshot(st) == before
