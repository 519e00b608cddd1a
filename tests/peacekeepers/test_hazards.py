"""Resolving a Goblin Horde (brown) and a Volcanic Eruption (gray).

Competitive scenarios use the default zones: seat 0 owns rows 1-5 (cells 0..49), seat 1 rows 6-10.
Seat 1 holds Temples so that it always has a legal move after seat 0's turn.
"""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.peacekeepers import actions as A
from tabletop_arena.envs.peacekeepers.board import (
    BLACK,
    BROWN,
    EMPTY,
    ERUPTED,
    GRAY,
    GREEN,
    MOUNTAIN,
    PURPLE,
    RED,
    WHITE,
)

from .helpers import all_cubes_accounted, cell, make_state


def _legal_cells(st, colour):
    m = st.legal_actions_mask()
    return {int(x) for x in np.flatnonzero(m[A.place(colour, 0):A.place(colour, 0) + 100])}


def _block(rows=7, cols=7, fill="G", hole=(3, 3), origin=(2, 2), extra=None):
    """A filled block with one open cell; ``extra`` maps (r, c) offsets to letters."""
    grid = [[fill] * cols for _ in range(rows)]
    grid[hole[0]][hole[1]] = "."
    for (r, c), ch in (extra or {}).items():
        grid[r][c] = ch
    return "\n".join("".join(row) for row in grid), origin


def _removed(before, after):
    return {int(x) for x in np.flatnonzero((before != EMPTY) & (after == EMPTY))}


# ----------------------------------------------------------------------------- Goblin Horde --

def test_horde_target_must_touch_attackable_cube():
    """Resolving a Goblin Horde: it may attack 'any open space that touches at least 1 colored cube,
    not including Temples, cubes protected by a Temple, Faeries, Volcanoes, or Mountains.'"""
    st = make_state("""
    W.........
    ..........
    ...P......
    ..........
    ......K...
    ..........
    .^........
    ..........
    .......RW.
    ..G.......
    """, hands=["N", "WWW"])
    legal = _legal_cells(st, BROWN)
    # only the open cells beside the Elf at C10 (the Dwarf at H9 sits next to a Temple)
    assert legal == {cell(8, 2), cell(9, 1), cell(9, 3)}
    assert cell(9, 2) not in legal       # an occupied cell is no target


def test_horde_attack_zone_shape():
    """Resolving a Goblin Horde: 'The attack zone of the Goblin Horde is two spaces vertically or
    horizontally and one space diagonally' -- exactly 12 cells around the open target."""
    board, origin = _block()
    st = make_state(board, origin=origin, hands=["N", "WWW"])
    before = st.board.copy()
    t = cell(5, 5)
    st.apply(A.place(BROWN, t))
    expected = {cell(5 + dr, 5 + dc) for dr, dc in
                [(-1, 0), (-2, 0), (1, 0), (2, 0), (0, -1), (0, -2), (0, 1), (0, 2),
                 (-1, -1), (-1, 1), (1, -1), (1, 1)]}
    assert _removed(before, st.board) == expected
    assert st.board[t] == EMPTY              # the horde cube does not stay
    assert all_cubes_accounted(st)


def test_horde_stops_at_volcano_and_mountain():
    """Resolving a Goblin Horde: 'Goblin Hordes do not attack Volcanoes or Mountains, nor do they
    attack past a Volcano or Mountain.' Volcano left of the target, mountain above: the cells
    beyond them stay. Diagonals (RULES.md designed reading, diagrams lost): a diagonal cell is
    reached unless both orthogonal cells between it and the target are walls."""
    board, origin = _block(extra={(3, 2): "K", (2, 3): "^"})
    st = make_state(board, origin=origin, hands=["N", "WWW"])
    before = st.board.copy()
    st.apply(A.place(BROWN, cell(5, 5)))
    removed = _removed(before, st.board)
    assert st.board[cell(5, 4)] == BLACK and st.board[cell(4, 5)] == MOUNTAIN
    assert cell(5, 3) not in removed and cell(3, 5) not in removed     # behind the walls
    assert cell(4, 4) not in removed                                   # both walls between
    assert removed == {cell(6, 5), cell(7, 5), cell(5, 6), cell(5, 7),
                       cell(4, 6), cell(6, 4), cell(6, 6)}


def test_horde_spares_faerie_and_temple_and_temple_neighbours():
    """Resolving a Goblin Horde: Faeries and Temples stay ('If a Temple is in the path ... that cube
    remains in place, as do any cubes adjacent to the Temple')."""
    board, origin = _block(extra={(2, 3): "W", (3, 4): "P"})
    st = make_state(board, origin=origin, hands=["N", "WWW"])
    before = st.board.copy()
    st.apply(A.place(BROWN, cell(5, 5)))
    removed = _removed(before, st.board)
    assert st.board[cell(4, 5)] == WHITE and st.board[cell(5, 6)] == PURPLE
    # next to the Temple: E5 (4,4), G5 (4,6), F4 (3,5) -- all in the zone, all spared
    for x in (cell(4, 4), cell(4, 6), cell(3, 5)):
        assert x not in removed and st.board[x] == GREEN
    assert removed == {cell(6, 5), cell(7, 5), cell(5, 4), cell(5, 3), cell(5, 7),
                       cell(6, 4), cell(6, 6)}


def test_horde_competitive_capture_by_zone():
    """Multi-Player Competitive / Goblin Horde: 'Opponents' cubes are captured and any friendly cubes
    removed are discarded'; the horde cube is then discarded. Seat 0's horde on E5 hits D5 (its own
    zone) and E6 (seat 1's zone)."""
    st = make_state("""
    ...G......
    ....G....W
    """, origin=(4, 0), hands=["NR", "WWW"])
    own, theirs = int(st.board_cube[43]), int(st.board_cube[54])
    horde = st.hands[0][0][0]
    st.apply(A.place(BROWN, 44))
    assert st.board[43] == EMPTY and st.board[54] == EMPTY
    assert st.captured == [[theirs], []]
    assert sorted(st.discard) == sorted([own, horde])
    assert st.cur == 1


def test_horde_attack_into_own_zone_as_second_player():
    """Goblin Horde: the capture rule is by zone, not by who placed the cube: seat 1's horde hitting
    a cube in seat 0's zone captures it, one in its own zone is discarded."""
    st = make_state("""
    ...G.
    ....G
    """, origin=(4, 0), hands=["WWW", "NR"], cur=1)
    theirs, own = int(st.board_cube[43]), int(st.board_cube[54])
    st.apply(A.place(BROWN, 44))
    assert st.captured == [[], [theirs]]
    assert own in st.discard


@pytest.mark.parametrize("to_bag", [True, False])
def test_horde_solo_back_to_bag(to_bag):
    """Resolving a Goblin Horde outside competitive play: 'All other cubes are removed from the field
    of play and returned to the bag' (flag ``solo_horde_to_bag``, default on; off: discarded). The
    horde cube itself is discarded either way."""
    st = make_state("WGG", origin=(4, 2), mode="solo", hands=["NR"], hand_size=2,
                    rules={"solo_horde_to_bag": to_bag})
    victim = int(st.board_cube[cell(4, 4)])
    horde = st.hands[0][0][0]
    st.apply(A.place(BROWN, cell(4, 5)))
    assert st.board[cell(4, 4)] == EMPTY
    assert st.board[cell(4, 3)] == GREEN     # next to the Temple
    assert horde in st.discard
    assert (victim in st.bag) == to_bag and (victim in st.discard) == (not to_bag)


# ----------------------------------------------------------------------- Volcanic Eruption --

def _erupt(board_ascii, origin=(0, 0), volcano=None, **kw):
    kw.setdefault("hands", ["AR", "WWW"])
    st = make_state(board_ascii, origin=origin, **kw)
    before = st.board.copy()
    st.apply(A.place(GRAY, volcano))
    return st, before


def test_eruption_only_unerupted_volcano():
    """Resolving a Volcanic Eruption: the player picks a Volcano on the field; 'A Volcano that
    already erupted cannot erupt again.'"""
    st = make_state("K.R.*.K", origin=(2, 0), hands=["A", "WWW"])
    assert _legal_cells(st, GRAY) == {cell(2, 0), cell(2, 6)}


def test_eruption_gray_cube_stays_on_volcano():
    """Resolving a Volcanic Eruption: 'Place the gray cube on top of the erupting Volcano.'"""
    st = make_state("GK", origin=(2, 0), hands=["AR", "WWW"])
    gray = st.hands[0][0][0]
    volcano_cube = int(st.board_cube[21])
    st.apply(A.place(GRAY, 21))
    assert st.board[21] == ERUPTED
    assert int(st.board_cube[21]) == volcano_cube
    assert gray in st.on_volcanoes and gray not in st.discard
    assert st.board[20] == EMPTY
    assert all_cubes_accounted(st)


# diagram helpers: a 5 x 5 picture centred on the volcano, as printed in the rulebook
DAMAGE_ZONE = """
-XXX-
XXXXX
XXVXX
XXXXX
-XXX-
"""


def _diagram_scenario(picture, centre=(4, 4)):
    """Board from a rulebook diagram: V volcano, D Dwarf, T Temple, M Mountain; every other cell of
    the 5 x 5 square (X destroyed, - undamaged) holds an Elf. Returns (board text, expected removed
    cells, expected surviving cells)."""
    rows = [r.strip() for r in picture.strip().splitlines()]
    letters = {"V": "K", "D": "R", "T": "W", "M": "^", "X": "G", "-": "G"}
    grid = [[letters[ch] for ch in row] for row in rows]
    r0, c0 = centre[0] - 2, centre[1] - 2
    removed, kept = set(), set()
    for i, row in enumerate(rows):
        for j, ch in enumerate(row):
            x = cell(r0 + i, c0 + j)
            if ch != "V":
                (removed if ch == "X" else kept).add(x)
    return "\n".join("".join(g) for g in grid), (r0, c0), removed, kept


def test_eruption_damage_zone_diagram():
    """Resolving a Volcanic Eruption, 'Volcano Damage Zone' diagram: all cubes within two cells
    orthogonally, one diagonally and the cells beside the diagonals -- 20 cells -- are removed; the
    four corners of the 5 x 5 square (gray) and everything farther away survive."""
    text, origin, removed, kept = _diagram_scenario(DAMAGE_ZONE)
    # a 9 x 9 block of Elves with the volcano in the middle: the 20 cells go, the rest stays
    grid = [["G"] * 9 for _ in range(9)]
    grid[4][4] = "K"
    st = make_state("\n".join("".join(r) for r in grid), hands=["AR", "WWW"])
    before = st.board.copy()
    st.apply(A.place(GRAY, cell(4, 4)))
    assert len(removed) == 20
    assert _removed(before, st.board) == removed
    assert st.board[cell(4, 4)] == ERUPTED


WITH_DWARVES_AND_TEMPLES = """
---X-
-DDXT
XXVXX
-DTXX
--XX-
"""


def test_eruption_with_dwarves_and_temples_diagram():
    """Resolving a Volcanic Eruption, 'With Dwarves & Temples' diagram: Dwarves survive and block
    what lies behind them along the 'Destruction Path' arrows; Temples survive but do not block.

    Printed diagram (rows top to bottom; corners are outside the zone):
        Gray -  -  X Gray / -  D  D  X  T / X  X  V  X  X / -  D  T  X  X / Gray -  X  X Gray
    The cell one up / two left of the volcano is fed through the Dwarf one up / one left on the
    arrow diagram, and the printed example shows it undamaged: both agree."""
    text, origin, removed, kept = _diagram_scenario(WITH_DWARVES_AND_TEMPLES)
    st, before = _erupt(text, origin, volcano=cell(4, 4))
    assert _removed(before, st.board) == removed
    for x in kept:
        assert st.board[x] == before[x], x
    assert st.board[cell(3, 2)] == GREEN       # one up / two left: shielded by the Dwarf at (3, 3)
    assert st.board[cell(5, 4)] == WHITE and st.board[cell(6, 4)] == EMPTY   # Temple: no shield


WITH_MOUNTAINS = """
--XX-
MMXXX
-MVXX
-MMXX
---X-
"""


def test_eruption_with_mountains_diagram():
    """Resolving a Volcanic Eruption, 'With Mountains' diagram: mountains are unaffected and shield
    the cells behind them. Printed: Gray - X X Gray / M M X X X / - M V X X / - M M X X /
    Gray - - X Gray."""
    text, origin, removed, kept = _diagram_scenario(WITH_MOUNTAINS)
    st, before = _erupt(text, origin, volcano=cell(4, 4))
    assert _removed(before, st.board) == removed
    assert (st.board == MOUNTAIN).sum() == 5
    for x in kept:
        assert st.board[x] == before[x], x


def test_eruption_other_volcano_and_dwarf_survive():
    """Resolving a Volcanic Eruption: Dwarves survive; another (unerupted) Volcano in the zone stays
    (RULES.md designed: volcanoes never move) and does not shield the cells fed through it."""
    st, before = _erupt("""
    ...G.
    ...KG
    RGKG.
    ......G
    """, origin=(2, 0), volcano=cell(4, 2))
    assert st.board[cell(4, 0)] == RED                                     # Dwarf survives
    assert st.board[cell(4, 1)] == EMPTY and st.board[cell(4, 3)] == EMPTY
    assert st.board[cell(3, 3)] == BLACK                                   # the other volcano
    assert st.board[cell(2, 3)] == EMPTY and st.board[cell(3, 4)] == EMPTY  # behind it: gone
    assert st.board[cell(4, 2)] == ERUPTED
    assert st.board[cell(5, 6)] == GREEN     # outside the zone


@pytest.mark.parametrize("captures", [True, False])
def test_eruption_captures_flag(captures):
    """Resolving a Volcanic Eruption / Multi-Player Competitive, flag ``eruption_captures``: with it
    (default) opponents' cubes destroyed are captured and friendly ones discarded; without it all are
    discarded."""
    st = make_state("""
    ....G.
    ....K.
    ....G.
    """, origin=(3, 0), hands=["AR", "WWW"], rules={"eruption_captures": captures})
    own, theirs = int(st.board_cube[cell(3, 4)]), int(st.board_cube[cell(5, 4)])
    st.apply(A.place(GRAY, cell(4, 4)))
    assert st.board[cell(3, 4)] == EMPTY and st.board[cell(5, 4)] == EMPTY
    if captures:
        assert st.captured == [[theirs], []] and st.discard == [own]
    else:
        assert st.captured == [[], []] and sorted(st.discard) == sorted([own, theirs])


def test_eruption_solo_discards():
    """Resolving a Volcanic Eruption outside competitive play: destroyed cubes are discarded (never
    back to the bag)."""
    st = make_state("WKG", origin=(4, 3), mode="solo", hands=["AR"], hand_size=2)
    victim = int(st.board_cube[cell(4, 5)])
    st.apply(A.place(GRAY, cell(4, 4)))
    assert st.board[cell(4, 5)] == EMPTY and st.board[cell(4, 3)] == WHITE
    assert victim in st.discard and victim not in st.bag
