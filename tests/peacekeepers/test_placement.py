"""Placing a Cube: the colour wheel, touching, the competitive first cube, puzzle placements."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.peacekeepers import actions as A
from tabletop_arena.envs.peacekeepers.board import BLACK, BLUE, BROWN, CELLS, GREEN, RED, SIZE, WHITE

from .helpers import cell, make_state

# The rulebook's Cubes table, "Allowed Next To" columns Red Orange Yellow Green Blue Purple,
# copied row by row (Yes = 1). Volcanoes and Temples: "Yes" everywhere.
TABLE = {
    "R": "110001",
    "O": "111000",
    "Y": "011100",
    "G": "001110",
    "B": "000111",
    "P": "100011",
    "K": "111111",
    "W": "111111",
}
RACE_ORDER = "ROYGBP"
CODE = {ch: i for i, ch in enumerate("ROYGBPKW")}


def _allowed(a: str, b: str) -> bool:
    """May a cube of colour a be put orthogonally next to colour b (rulebook, both directions)?"""
    if a == "K" and b == "K":
        return False  # "Volcanoes can be placed next to any other piece except other Volcanoes"
    if a in "KW" or b in "KW":
        return True   # Volcano / Temple rows and columns are all "Yes"
    return TABLE[a][RACE_ORDER.index(b)] == "1"


def test_table_is_symmetric():
    """Cubes table: the 'Allowed Next To' matrix of the six races is symmetric (sanity check of
    the transcription used by the colour-wheel tests)."""
    for a in RACE_ORDER:
        for b in RACE_ORDER:
            assert _allowed(a, b) == _allowed(b, a)


@pytest.mark.parametrize("a", list("ROYGBPKW"))
def test_colour_wheel_every_pair(a):
    """Cubes - Descriptions / Placing a Cube / Cubes table: for every pair (a next to b) the mask
    allows exactly the table's 'Yes' cells. b stands alone at E5; a is offered at F5 (two Giants
    in hand so a Giant has a partner). A Troll is checked before its chase here (the reading
    ``troll_check_after_chase: false``): with the default it may also move in next to a cube it
    cannot live with and chase it (test_orange_troll_may_chase_its_only_neighbour)."""
    for b in "ROYGBPKW":
        rows = [list("..........") for _ in range(10)]
        rows[4][4] = b
        st = make_state("\n".join("".join(r) for r in rows), hands=[a * 2 if a == "Y" else a, "R"],
                        rules={"troll_check_after_chase": False})
        ok = bool(st.legal_actions_mask()[A.place(CODE[a], 45)])
        assert ok == _allowed(a, b), f"{a} next to {b}: mask {ok}"


def test_volcano_never_next_to_volcano_even_erupted():
    """Black: 'Volcanoes can be placed next to any other piece except other Volcanoes' -- an
    erupted volcano (gray cube on it) is still a volcano. Races may sit next to both."""
    st = make_state("""
    ....K.....
    ..........
    ....*.R...
    """, hands=["KR", "R"])
    m = st.legal_actions_mask()
    for x in (3, 5, 14, 23, 25, 34):            # next to K at E1 or * at E3
        assert m[A.place(BLACK, x)] == 0, x
    for x in (16, 27, 36):                      # next to the Dwarf only
        assert m[A.place(BLACK, x)] == 1, x
    assert m[A.place(RED, 34)] == 1 and m[A.place(RED, 3)] == 1


def test_temple_next_to_anything():
    """White: 'Temples can be played next to any other piece' -- a Temple fits a cell surrounded by
    four mutually hostile neighbours (Dwarf, Giant, Wizard, Volcano)."""
    st = make_state("""
    .....
    ..R..
    .Y.B.
    ..K..
    """, hands=["WGR", "R"])
    m = st.legal_actions_mask()
    assert m[A.place(WHITE, 22)] == 1
    assert m[A.place(GREEN, 22)] == 0 and m[A.place(RED, 22)] == 0


def test_diagonal_contact_never_matters():
    """Cubes - Descriptions: 'Cubes may touch at their corners, diagonally.' A Wizard may go on E5
    above an Elf although a Dwarf (D4) and a Troll (F4), both hostile to Wizards, touch E5 at its
    corners; beside the Dwarf or the Troll it may not go."""
    st = make_state("""
    R.O
    ...
    .G.
    """, origin=(3, 3), hands=["B", "R"])
    m = st.legal_actions_mask()
    assert m[A.place(BLUE, cell(4, 4))] == 1      # corners touch R and O, side touches G
    assert m[A.place(BLUE, cell(5, 3))] == 1      # beside the Elf
    assert m[A.place(BLUE, cell(3, 4))] == 0      # between the Dwarf and the Troll


def test_diagonal_contact_only_is_not_touching():
    """Placing: 'Cubes must be placed adjacent to at least one other placed cube' -- a cube that only
    meets another cube at a corner is not adjacent."""
    st = make_state("R", origin=(4, 4), hands=["R", "R"])
    m = st.legal_actions_mask()
    for x in (cell(3, 3), cell(3, 5), cell(5, 3), cell(5, 5)):
        assert m[A.place(RED, x)] == 0
    legal = {int(a) - A.place(RED, 0) for a in np.flatnonzero(m)}
    assert legal == {cell(3, 4), cell(5, 4), cell(4, 3), cell(4, 5)}


def test_must_touch_a_cube_mountains_do_not_count():
    """Placing: cubes must touch a placed cube orthogonally; a mountain is no cube (RULES.md
    reading: touching a mountain does not satisfy adjacency)."""
    st = make_state("""
    ..........
    ..R.......
    ..........
    ......^...
    """, hands=["RR", "R"])
    m = st.legal_actions_mask()
    legal = {int(a) - A.place(RED, 0) for a in np.flatnonzero(m)}
    assert legal == {2, 11, 13, 22}
    assert m[A.place(RED, 35)] == 0 and m[A.place(RED, 37)] == 0 and m[A.place(RED, 26)] == 0


def test_competitive_first_cube_on_outer_edge_of_own_zone():
    """Multi-Player Competitive: the first cube goes 'in a space along an outer edge of the playing
    field in their zone' and needs no neighbour. Seat 0 owns the top half (rows 1-5)."""
    st = make_state("", hands=["RN", "R"], first_done=[False, True])
    m = st.legal_actions_mask()
    legal = {int(a) - A.place(RED, 0) for a in np.flatnonzero(m)}
    r, c = np.divmod(np.arange(CELLS), SIZE)
    expected = {int(x) for x in np.flatnonzero((r < 5) & ((r == 0) | (c == 0) | (c == 9)))}
    assert legal == expected
    assert len(expected) == 18
    assert not m[A.place(BROWN, 0):A.place(BROWN, 0) + CELLS].any()   # no horde as a first cube
    st.apply(A.place(RED, 40))
    assert st.board[40] == RED and st.first_done == [True, True]


def test_competitive_first_cube_of_second_player_bottom_edge():
    """Multi-Player Competitive: the second player also starts on an edge of their own zone, even
    when the first player's cubes are already on the board (and they need not touch them)."""
    st = make_state("R", origin=(4, 0), hands=["R", "RR"], first_done=[True, False], cur=1)
    m = st.legal_actions_mask()
    legal = {int(a) - A.place(RED, 0) for a in np.flatnonzero(m)}
    r, c = np.divmod(np.arange(CELLS), SIZE)
    expected = {int(x) for x in np.flatnonzero((r >= 5) & ((r == 9) | (c == 0) | (c == 9)))}
    assert legal == expected
    assert cell(5, 0) in legal and cell(9, 5) in legal and cell(4, 1) not in legal


def test_after_first_cube_anywhere_touching_even_in_opponent_zone():
    """Multi-Player Competitive: after their first turn players place within their zone or an
    opponent's, always next to a placed cube."""
    st = make_state("R", origin=(4, 4), hands=["R", "R"])
    m = st.legal_actions_mask()
    assert m[A.place(RED, cell(5, 4))] == 1   # opponent's zone
    assert m[A.place(RED, cell(3, 4))] == 1   # own zone
    assert m[A.place(RED, cell(0, 0))] == 0   # edge, but touches nothing


def test_puzzle_placements_need_no_neighbour():
    """Solo Puzzle Solver: 'You don't have to place cubes touching another cube, but you do have to
    respect which races can coexist'; only the field of play counts."""
    st = make_state("""
    R.....
    ......
    ......
    ...B..
    ......
    ......
    """, mode="puzzle", hands=["RB"])
    m = st.legal_actions_mask()
    assert st.active.sum() == 36
    assert m[A.place(RED, cell(2, 2))] == 1          # touches nothing
    assert m[A.place(RED, cell(3, 2))] == 0          # next to the Wizard
    assert m[A.place(BLUE, cell(0, 1))] == 0         # next to the Dwarf
    assert m[A.place(BLUE, cell(5, 5))] == 1
    assert m[A.place(RED, cell(0, 7))] == 0          # outside the 6 x 6 field


def test_emptied_field_restarts_on_an_edge_of_ones_zone():
    """Multi-Player Competitive, placing (RULES.md reading `restart_on_empty_board`): when hordes
    or eruptions have removed every cube, "adjacent to a placed cube" cannot be met, so the next
    cube is placed like a starting cube, on an outer edge of one's own zone. Strict reading:
    nobody can place."""
    from tabletop_arena.envs.peacekeepers.board import EDGE
    st = make_state("""
    ..........
    ....^.....
    """, hands=["R", "R"])
    m = st.legal_actions_mask()
    legal = {int(a) - A.place(RED, 0) for a in np.flatnonzero(m[:A.CELL])}
    expected = {c for c in range(CELLS) if EDGE[c] and st.zone[c] == 0 and st.board[c] < 0}
    assert legal == expected and len(expected) > 0
    strict = make_state("""
    ..........
    ....^.....
    """, hands=["R", "R"], rules={"restart_on_empty_board": False})
    assert not strict.legal_actions_mask()[:A.CELL].any()
