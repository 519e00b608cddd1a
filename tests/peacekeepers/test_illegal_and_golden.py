"""Illegal actions leave the state untouched; a golden random playthrough pins the whole engine.

Regenerate the golden file (only after an intended rules change) with:

    REGENERATE_GOLDEN=1 python -m pytest tests/peacekeepers/test_illegal_and_golden.py -k golden

then review the diff of tests/peacekeepers/golden_competitive_2p.txt before committing it.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.envs.peacekeepers import actions as A
from tabletop_arena.envs.peacekeepers.board import BROWN, GREEN, RED, YELLOW
from .helpers import board_str, cell, make_state

GOLDEN = Path(__file__).with_name("golden_competitive_2p.txt")


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


# ------------------------------------------------------------------------------ golden ------

def _golden_playthrough():
    game = envs.make_game("peacekeepers_v0", mode="competitive", num_players=2)
    st = game.new_initial_state(np.random.default_rng(0))
    st.seed = 0
    rng = np.random.default_rng(123)
    while not st.is_terminal() and len(st.history) < 1000:
        legal = np.flatnonzero(st.legal_actions_mask())
        st.apply(int(legal[rng.integers(len(legal))]))
    return st


def _golden_text(st) -> str:
    return "\n".join([
        "# Golden playthrough: peacekeepers_v0, mode=competitive, num_players=2 (mountains=choose),",
        "# state rng np.random.default_rng(0), random legal actions from np.random.default_rng(123).",
        "# Regenerate: REGENERATE_GOLDEN=1 python -m pytest "
        "tests/peacekeepers/test_illegal_and_golden.py -k golden",
        f"history_len={len(st.history)}",
        f"scores={','.join(repr(float(x)) for x in st.scores())}",
        f"returns={','.join(repr(float(x)) for x in st.returns())}",
        f"captured={','.join(str(len(c)) for c in st.captured)}",
        f"discard={len(st.discard)}",
        f"bag={len(st.bag)}",
        "board:",
        board_str(st.board),
    ]) + "\n"


def test_golden_competitive_2p():
    """A fixed random game (seeded state and seeded legal-action choices) reproduces exactly the
    stored final board, scores and history length: any change of rules behaviour shows up here."""
    st = _golden_playthrough()
    assert st.is_terminal()
    text = _golden_text(st)
    if os.environ.get("REGENERATE_GOLDEN") == "1":
        GOLDEN.write_text(text)
    assert GOLDEN.exists(), "golden file missing: run with REGENERATE_GOLDEN=1"
    assert text == GOLDEN.read_text()
    # the replay of the recorded history gives the same game
    again = st.game.replay(0, st.history)
    assert board_str(again.board) == board_str(st.board) and again.scores() == st.scores()
