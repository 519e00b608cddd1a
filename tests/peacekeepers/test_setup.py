"""Setup rules: the cubes, the mountains, the start of each mode, the zone choice."""
from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from tabletop_arena import envs
from tabletop_arena.envs.peacekeepers import actions as A
from tabletop_arena.envs.peacekeepers.board import BROWN, CELLS, EMPTY, GRAY, LETTERS, MOUNTAIN, SIZE, WHITE

from .helpers import make_state

# The rulebook's Cubes table ("Number of Sides" column), written out here on purpose
RULEBOOK_FACE_TOTALS = {"R": 70, "O": 50, "Y": 120, "G": 100, "B": 60, "P": 40, "K": 50, "W": 35,
                        "N": 50, "A": 25}
# Pieces: 1 x 6, 2 x 5, 2 x 4, 4 x 3, 3 x 2, 2 x 1 cube ranges
RULEBOOK_RANGES = {6: 1, 5: 2, 4: 2, 3: 4, 2: 3, 1: 2}


def _game(**kw):
    return envs.make_game("peacekeepers_v0", **kw)


# ------------------------------------------------------------------------------- cubes ------

def test_cube_face_totals():
    """Pieces / Cubes table: 100 cubes, 600 sides, with exactly the table's count per colour."""
    g = _game(mode="competitive", mountains="none")
    assert g.faces.shape == (100, 6)
    totals = Counter(LETTERS[f] for f in g.faces.ravel())
    assert dict(totals) == RULEBOOK_FACE_TOTALS
    assert sum(totals.values()) == 600


def test_start_temple_solo_player_chooses_cell():
    """Setup (Solo): draw a cube that has a white side and place it as a Temple where the player
    chooses; then the player draws and rolls a hand (hand of 3 here)."""
    g = _game(mode="solo", mountains="none", hand_size=3)
    st = g.new_initial_state(np.random.default_rng(5))
    assert st.phase == "start_temple"
    m = st.legal_actions_mask()
    # any of the 100 empty cells, nothing else
    assert m[A.CELL:A.CELL + CELLS].all() and m.sum() == CELLS
    st.apply(A.cell_target(73))
    assert st.board[73] == WHITE
    assert (st.board != EMPTY).sum() == 1
    cube = int(st.board_cube[73])
    assert WHITE in g.faces[cube]
    assert cube not in st.bag
    assert len(st.hands[0]) == 3
    assert st.phase == "play" and st.cur == 0
    assert len(st.bag) == 100 - 1 - 3


def test_start_temple_collaborative():
    """Setup (Multi-Player Collaborative): one shared starting Temple, then every player draws and
    rolls their hand; the first player places first."""
    g = _game(mode="collaborative", num_players=3, mountains="none", hand_size=2)
    st = g.new_initial_state(np.random.default_rng(1))
    assert st.phase == "start_temple" and st.cur == 0
    st.apply(A.cell_target(0))
    assert st.board[0] == WHITE and WHITE in g.faces[int(st.board_cube[0])]
    assert [len(h) for h in st.hands] == [2, 2, 2]
    assert st.cur == 0 and st.phase == "play"


@pytest.mark.parametrize("mode,kw", [("solo", {"hand_size": 3}),
                                     ("collaborative", {"num_players": 4, "hand_size": 4})])
def test_non_competitive_initial_rolls_never_brown_or_gray(mode, kw):
    """Setup (Solo / Collaborative): 'Reroll Volcanic Eruptions (gray) and Goblin Hordes (brown)'
    for the initial hands. Over many deals no initial face is brown or gray, while the cubes drawn
    do carry such faces (so the re-roll is really exercised)."""
    g = _game(mode=mode, mountains="none", **kw)
    seen_hazard_cubes = 0
    for seed in range(60):
        st = g.new_initial_state(np.random.default_rng(seed))
        st.apply(A.cell_target(44))
        for hand in st.hands:
            for cube, face in hand:
                assert face not in (BROWN, GRAY)
                assert face in g.faces[cube]
                seen_hazard_cubes += bool({BROWN, GRAY} & set(g.faces[cube].tolist()))
    assert seen_hazard_cubes > 50


def test_competitive_deal_ten_each_no_rerolls():
    """Setup (Multi-Player Competitive): each player draws 10 cubes and rolls them; 'Do not reroll
    any cubes' -- brown and gray faces do show up in starting hands."""
    g = _game(mode="competitive", num_players=2, mountains="none")
    faces = Counter()
    for seed in range(40):
        st = g.new_initial_state(np.random.default_rng(seed))
        assert st.phase == "zone"
        assert [len(h) for h in st.hands] == [10, 10]
        assert len(st.bag) == 80
        cubes = [c for h in st.hands for c, _ in h]
        assert len(set(cubes)) == 20
        for h in st.hands:
            for cube, face in h:
                assert face in g.faces[cube]
                faces[face] += 1
    assert faces[BROWN] > 0 and faces[GRAY] > 0


# ---------------------------------------------------------------------------- mountains -----

def _ranges_from_tokens_possible(ranges, tokens):
    return any(all(r in t for r, t in zip(perm, tokens)) for perm in set(itertools.permutations(ranges)))


def test_mountain_tokens_pick_ranges():
    """Setup: the 7 tokens are tossed and the ranges with the thrown peak counts are used; the
    throw can never ask for more ranges of a size than the box holds (Pieces: 1x6, 2x5, 2x4, 4x3,
    3x2, 2x1), and the rulebook's example throw 6, 5, 4, 3, 3, 2, 1 is possible."""
    g = _game(mode="competitive", num_players=2, mountains="choose")
    assert _ranges_from_tokens_possible((6, 5, 4, 3, 3, 2, 1), g.tokens)
    seen = set()
    for seed in range(40):
        st = g.new_initial_state(np.random.default_rng(seed))
        assert st.phase == "mountain"
        assert len(st.ranges) == 7
        assert st.ranges == sorted(st.ranges, reverse=True)  # largest first
        for length, count in Counter(st.ranges).items():
            assert count <= RULEBOOK_RANGES[length]
        assert _ranges_from_tokens_possible(st.ranges, g.tokens)
        seen.add(tuple(st.ranges))
    assert len(seen) > 5


def test_mountains_largest_first_players_alternate_fewer_peaks_choose_zone():
    """Setup + Multi-Player Competitive Game Play: players alternate placing the ranges, largest
    first; the player who placed fewer peaks chooses the side and plays first."""
    g = _game(mode="competitive", num_players=2, mountains="choose")
    st = g.new_initial_state(np.random.default_rng(3))
    ranges = list(st.ranges)
    movers, placed = [], []
    while st.phase == "mountain":
        movers.append(st.cur)
        length = st.ranges[0]
        legal = np.flatnonzero(st.legal_actions_mask())
        assert legal.min() >= A.MOUNTAIN and legal.max() < A.MOUNTAIN + 200
        before = int((st.board == MOUNTAIN).sum())
        st.apply(int(legal[len(legal) // 2]))
        assert int((st.board == MOUNTAIN).sum()) == before + length
        placed.append(length)
    assert placed == ranges
    assert movers == [0, 1, 0, 1, 0, 1, 0]
    assert st.peaks == [sum(ranges[0::2]), sum(ranges[1::2])]
    assert st.peaks[1] < st.peaks[0]
    assert st.phase == "zone" and st.cur == 1
    st.apply(A.zone(1))  # bottom half
    r = np.arange(CELLS) // SIZE
    assert (st.zone[r >= 5] == 1).all() and (st.zone[r < 5] == 0).all()
    assert st.cur == 1 and st.phase == "play"


def test_fewer_peaks_chooses_zone_seat0():
    """Competitive: the player with fewer peaks (seat 0 here, 3 + 1 against 5) chooses the zone and
    moves first."""
    st = make_state(mode="competitive", phase="mountain", ranges=[1], peaks=[3, 5], cur=0,
                    hands=["", ""], first_done=False)
    st.apply(A.mountain(0, 55))
    assert st.board[55] == MOUNTAIN and st.peaks == [4, 5]
    assert st.phase == "zone" and st.cur == 0
    st.apply(A.zone(2))  # left half
    c = np.arange(CELLS) % SIZE
    assert (st.zone[c < 5] == 0).all() and (st.zone[c >= 5] == 1).all()
    assert st.cur == 0 and st.phase == "play"
    assert [len(h) for h in st.hands] == [10, 10]


def test_zone_choice_quadrants():
    """Multi-Player Competitive: 'For a more challenging 2 player game, players can choose two
    quadrants that are not adjacent' (zones="quadrants": NW+SE or NE+SW); with 4 players the chooser
    takes a quadrant and the others follow clockwise in seat order (RULES.md)."""
    r, c = np.divmod(np.arange(CELLS), SIZE)
    nw, ne = (r < 5) & (c < 5), (r < 5) & (c >= 5)
    se, sw = (r >= 5) & (c >= 5), (r >= 5) & (c < 5)
    g = _game(mode="competitive", num_players=2, mountains="none", zones="quadrants")
    st = g.new_initial_state(np.random.default_rng(0))
    chooser = st.cur
    assert st.legal_actions_mask()[A.ZONE:A.ZONE + 4].tolist() == [1, 1, 0, 0]
    st.apply(A.zone(1))
    assert (st.zone[ne | sw] == chooser).all() and (st.zone[nw | se] == 1 - chooser).all()
    g = _game(mode="competitive", num_players=4, mountains="none")
    st = g.new_initial_state(np.random.default_rng(0))
    k = st.cur
    st.apply(A.zone(2))                     # SE for the chooser
    for quad, step in ((se, 0), (sw, 1), (nw, 2), (ne, 3)):
        assert (st.zone[quad] == (k + step) % 4).all()


def test_mountain_may_not_isolate_a_corner():
    """Setup: 'Mountains cannot be placed in such a way that they isolate a section of the board.'
    With a peak at B1, a 1-peak range at A2 would wall off A1."""
    st = make_state(".^", phase="mountain", ranges=[1])
    m = st.legal_actions_mask()
    assert m[A.mountain(0, 10)] == 0          # A2 cuts off A1
    assert m[A.mountain(1, 10)] == 0          # (same cell, vertical)
    assert m[A.mountain(0, 11)] == 1          # B2 is fine
    assert m[A.mountain(0, 1)] == 0           # occupied
    assert m[A.mountain(0, 0)] == 1           # a peak on A1 itself isolates nothing


def test_mountain_may_not_split_the_board_in_two():
    """Setup: a 6-peak range finishing a wall across the board (next to a 4-peak range on G6..J6)
    would cut the field into two regions: illegal. One row higher it leaves a gap: legal."""
    st = make_state("""
    ..........
    ..........
    ..........
    ..........
    ..........
    ......^^^^
    """, phase="mountain", ranges=[6])
    m = st.legal_actions_mask()
    assert m[A.mountain(0, 50)] == 0   # A6..F6 completes the wall
    assert m[A.mountain(0, 40)] == 0   # A5..F5: the halves would touch only diagonally (F5/G6)
    assert m[A.mountain(0, 30)] == 1   # A4..F4: row 5 stays open and joins everything
    assert m[A.mountain(1, 0)] == 1    # a vertical range in column A


def _flood_connected(board):
    free = [x for x in range(CELLS) if board[x] == EMPTY]
    if not free:
        return True
    seen = {free[0]}
    stack = [free[0]]
    while stack:
        x = stack.pop()
        r, c = divmod(x, SIZE)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            y = rr * SIZE + cc
            if 0 <= rr < SIZE and 0 <= cc < SIZE and board[y] == EMPTY and y not in seen:
                seen.add(y)
                stack.append(y)
    return len(seen) == len(free)


def test_mountain_mask_equals_connectivity_rule():
    """Setup (isolation rule), checked exhaustively: on boards with several ranges already down,
    a placement is legal exactly when it fits on free cells and the free cells stay one region."""
    rng = np.random.default_rng(9)
    g = _game(mode="competitive", num_players=2, mountains="choose")
    for seed in range(6):
        st = g.new_initial_state(np.random.default_rng(seed))
        while st.phase == "mountain":
            length = st.ranges[0]
            m = st.legal_actions_mask()[A.MOUNTAIN:A.MOUNTAIN + 200]
            for idx in range(200):
                o, anchor = divmod(idx, CELLS)
                r, c = divmod(anchor, SIZE)
                cells = [(r, c + k) if o == 0 else (r + k, c) for k in range(length)]
                ok = all(rr < SIZE and cc < SIZE for rr, cc in cells)
                if ok:
                    xs = [rr * SIZE + cc for rr, cc in cells]
                    ok = all(st.board[x] == EMPTY for x in xs)
                    if ok:
                        b = st.board.copy()
                        b[xs] = MOUNTAIN
                        ok = _flood_connected(b)
                assert bool(m[idx]) == ok, (seed, length, o, anchor)
            legal = np.flatnonzero(m)
            st.apply(A.MOUNTAIN + int(legal[rng.integers(len(legal))]))


def test_mountains_never_removed():
    """Setup: mountains 'cannot be moved or removed, even by Volcanic Eruptions and Goblin Horde
    Attacks'; a Troll cannot replace or chase one either; a peak alone is no horde target."""
    board = """
    ..........
    ..........
    ...GK^....
    ...^GR....
    ....^.....
    """
    # eruption: the peaks beside the volcano stay
    st = make_state(board, hands=["A", ""])
    st.apply(A.place(GRAY, 24))
    assert st.board[24] == 9
    assert st.board[25] == MOUNTAIN and st.board[33] == MOUNTAIN and st.board[44] == MOUNTAIN
    assert st.board[23] == EMPTY and st.board[34] == EMPTY      # the Elves next to it are gone
    # horde at F5 (next to the Dwarf): the peak at E5 in the zone stays
    st = make_state(board, hands=["N", ""])
    m = st.legal_actions_mask()
    assert m[A.place(BROWN, 54)] == 0      # touches only the peak at E5 (and nothing attackable)
    assert m[A.place(BROWN, 45)] == 1
    st.apply(A.place(BROWN, 45))
    assert st.board[35] == EMPTY and st.board[44] == MOUNTAIN and st.board[25] == MOUNTAIN
    # Trolls: never replace a peak, never chase one
    st = make_state(board, hands=["O", "RRR"])
    m = st.legal_actions_mask()
    for peak in (25, 33, 44):
        assert m[A.place(1, peak)] == 0
    st.apply(A.place(1, 36))               # next to the Dwarf at F4
    assert st.phase == "troll_chase"       # only the Dwarf may be chased, never the peak at G5
    assert set(np.flatnonzero(st.legal_actions_mask()[A.CELL:A.CELL + 100])) == {35}
    assert st.board[44] == MOUNTAIN


def test_beginner_rerolls():
    """For Beginners: 're-roll the Goblin Horde and/or Volcanic Eruption cubes' (flags
    ``reroll_hordes`` / ``reroll_eruptions``): no brown or gray face is ever dealt, even in a
    competitive deal that otherwise keeps them."""
    g = _game(mode="competitive", num_players=2, mountains="none",
              rules={"reroll_hordes": True, "reroll_eruptions": True})
    for seed in range(30):
        st = g.new_initial_state(np.random.default_rng(seed))
        for h in st.hands:
            assert len(h) == 10
            for cube, face in h:
                assert face not in (BROWN, GRAY) and face in g.faces[cube]


def test_mountain_euler_test_matches_flooding_on_crowded_boards():
    """Setup (isolation rule): the Euler-number shortcut agrees with flooding on crowded boards
    (up to 14 ranges, far more than a game places), with incrementally kept mountain labels."""
    from tabletop_arena.envs.peacekeepers.board import (
        MOUNTAIN_CANDIDATES,
        add_mountains,
        mountain_placements,
        mountain_placements_by_flooding,
        obstacle_labels,
    )
    rng = np.random.default_rng(3)
    for _ in range(150):
        board = np.full(CELLS, EMPTY, np.int8)
        labels = obstacle_labels(board)
        for length in (6, 5, 5, 4, 4, 3, 3, 2, 2, 2, 1, 1, 1, 1):
            fast = mountain_placements(board, length, labels)
            assert np.array_equal(fast, mountain_placements_by_flooding(board, length))
            legal = np.flatnonzero(fast)
            if not len(legal):
                break
            cells = MOUNTAIN_CANDIDATES[length][int(legal[rng.integers(len(legal))])]
            board[list(cells)] = MOUNTAIN
            add_mountains(labels, cells)
            fresh = obstacle_labels(board)
            # same partition of the mountains, and the same ones joined to the outside
            for a in np.flatnonzero(board == MOUNTAIN):
                same = labels[:CELLS] == labels[a]
                assert np.array_equal(same, fresh[:CELLS] == fresh[a])
                assert (labels[a] == CELLS) == (fresh[a] == CELLS)
