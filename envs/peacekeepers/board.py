"""Board geometry and static tables for Peacekeepers (numpy + stdlib only).

Cells are numbered ``r * 10 + c`` on the 10x10 field. Cell codes on the board:
-1 empty, 0..7 a cube's upward colour (R O Y G B P K W), 8 brown (only as a puzzle set-up block),
9 an erupted volcano (gray cube on a volcano), 10 a mountain peak.
"""
from __future__ import annotations

from typing import Literal

import numpy as np

SIZE = 10
CELLS = SIZE * SIZE

# colour indices (also the board codes for cubes)
RED, ORANGE, YELLOW, GREEN, BLUE, PURPLE, BLACK, WHITE, BROWN, GRAY = range(10)
EMPTY, ERUPTED, MOUNTAIN = -1, 9, 10
NUM_COLOURS = 10
LETTERS = "ROYGBPKWNA"
NAMES = ["Dwarves (red)", "Trolls (orange)", "Giants (yellow)", "Elves (green)", "Wizards (blue)",
         "Faerie (purple)", "Volcano (black)", "Temple (white)", "Goblin Horde (brown)",
         "Volcanic Eruption (gray)"]
RACES = (RED, ORANGE, YELLOW, GREEN, BLUE, PURPLE)
#: colours that can be put on an empty cell (brown targets a cell, gray targets a volcano)
PLACEABLE = (RED, ORANGE, YELLOW, GREEN, BLUE, PURPLE, BLACK, WHITE)
#: cubes a Troll may chase off or replace (never Giants, Temples, Volcanoes; Trolls only chased)
TROLL_REMOVABLE = (RED, ORANGE, GREEN, BLUE, PURPLE)


def rc(cell: int) -> tuple[int, int]:
    return divmod(cell, SIZE)


def cell_name(cell: int) -> str:
    r, c = divmod(cell, SIZE)
    return f"{'ABCDEFGHIJ'[c]}{r + 1}"


def _build_compat() -> np.ndarray:
    """compat[c, code]: may colour ``c`` sit orthogonally next to a cell holding ``code``?

    Index ``code + 1`` so that column 0 is the empty cell (always allowed).
    Rulebook, "Cubes - Descriptions" and the Cubes table: each race lives next to itself and its two
    colour-wheel neighbours; volcanoes next to anything but a volcano; temples next to anything.
    """
    table = np.ones((NUM_COLOURS, 12), dtype=bool)
    for c in RACES:
        for d in RACES:
            diff = (c - d) % 6
            table[c, d + 1] = diff in (0, 1, 5)
    for c in range(NUM_COLOURS):
        if c in (BLACK, ERUPTED):
            table[c, BLACK + 1] = table[c, ERUPTED + 1] = False
    # an erupted volcano is still a volcano for its neighbours
    for c in range(NUM_COLOURS):
        if c not in (BLACK, ERUPTED):
            table[c, ERUPTED + 1] = table[c, BLACK + 1]
    return table


COMPAT = _build_compat()
#: INCOMPAT[c, code+1] as float for matrix products
INCOMPAT_F = (~COMPAT).astype(np.float32)


def _neighbours() -> tuple[tuple[int, ...], ...]:
    out = []
    for cell in range(CELLS):
        r, c = divmod(cell, SIZE)
        nb = []
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < SIZE and 0 <= cc < SIZE:
                nb.append(rr * SIZE + cc)
        out.append(tuple(nb))
    return tuple(out)


NEIGHBOURS = _neighbours()
ADJ = np.zeros((CELLS, CELLS), dtype=np.float32)
for _cell, _nbs in enumerate(NEIGHBOURS):
    ADJ[_cell, list(_nbs)] = 1.0
EDGE = np.array([r in (0, SIZE - 1) or c in (0, SIZE - 1) for r, c in map(rc, range(CELLS))])


def eruption_tree(path: list) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per volcano cell: ((cell, parent_cell), ...) in an order where parents come first."""
    offsets = [(tuple(a), tuple(b)) for a, b in path]
    order = sorted(offsets, key=lambda ab: max(abs(ab[0][0]), abs(ab[0][1])))
    out = []
    for v in range(CELLS):
        vr, vc = divmod(v, SIZE)
        cells = []
        for (dr, dc), (pr, pc) in order:
            r, c = vr + dr, vc + dc
            if not (0 <= r < SIZE and 0 <= c < SIZE):
                continue
            pcell = (vr + pr) * SIZE + (vc + pc)
            cells.append((r * SIZE + c, pcell))
        out.append(tuple(cells))
    return tuple(out)


#: how a Goblin Horde reaches a cell past its blockers: stopped by any of them, or only by all
HordeReach = Literal["all", "both"]


def _horde_zone() -> tuple[tuple[tuple[int, tuple[int, ...], HordeReach], ...], ...]:
    """Per target cell: ((cell, blockers, reach), ...) of the Goblin Horde's attack zone.

    Rulebook, "Resolving a Goblin Horde": two cells orthogonally, one diagonally. A volcano or
    mountain stops the attack going past it: the second orthogonal cell is reached through the first;
    a diagonal cell (designed reading) is reached unless *both* orthogonal cells between it and the
    target are volcanoes or mountains.
    """
    out = []
    for t in range(CELLS):
        r, c = divmod(t, SIZE)
        zone: list[tuple[int, tuple[int, ...], HordeReach]] = []
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            for k in (1, 2):
                rr, cc = r + k * dr, c + k * dc
                if 0 <= rr < SIZE and 0 <= cc < SIZE:
                    via = () if k == 1 else ((r + dr) * SIZE + c + dc,)
                    zone.append((rr * SIZE + cc, via, "all"))
        for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < SIZE and 0 <= cc < SIZE:
                zone.append((rr * SIZE + cc, ((r + dr) * SIZE + c, r * SIZE + c + dc), "both"))
        out.append(tuple(zone))
    return tuple(out)


HORDE_ZONE = _horde_zone()


def mountain_candidates(length: int) -> list[tuple[int, ...] | None]:
    """Action-ordered candidates: index = orientation * 100 + anchor; None where off the board."""
    cands: list[tuple[int, ...] | None] = []
    for orient in (0, 1):  # 0 horizontal (anchor is the left end), 1 vertical (anchor is the top)
        for anchor in range(CELLS):
            r, c = divmod(anchor, SIZE)
            cells = [(r, c + k) if orient == 0 else (r + k, c) for k in range(length)]
            if all(rr < SIZE and cc < SIZE for rr, cc in cells):
                cands.append(tuple(rr * SIZE + cc for rr, cc in cells))
            else:
                cands.append(None)
    return cands


MOUNTAIN_CANDIDATES = {n: mountain_candidates(n) for n in range(1, 7)}


# Mountain connectivity works on Python-int bitboards with a row stride of 11: column 10 is
# padding that is never free, so shifting by one never wraps from one row into the next.
def _bit(cell: int) -> int:
    r, c = divmod(cell, SIZE)
    return 1 << (r * 11 + c)


CELL_BITS = tuple(_bit(c) for c in range(CELLS))


def _candidate_tables():
    tables = {}
    for length, cands in MOUNTAIN_CANDIDATES.items():
        rows: list[tuple[int, int, bool, int] | None] = []
        for cells in cands:
            if cells is None:
                rows.append(None)
                continue
            bits = sum(CELL_BITS[c] for c in cells)
            ring4 = 0
            for cell in cells:
                for z in NEIGHBOURS[cell]:
                    ring4 |= CELL_BITS[z]
            ring4 &= ~bits
            ring, border = 0, False
            for cell in cells:
                r, c = divmod(cell, SIZE)
                for dr in (-1, 0, 1):
                    for dc in (-1, 0, 1):
                        rr, cc = r + dr, c + dc
                        if not (0 <= rr < SIZE and 0 <= cc < SIZE):
                            border = True
                        else:
                            ring |= CELL_BITS[rr * SIZE + cc]
            rows.append((bits, ring & ~bits, border, ring4))
        tables[length] = rows
    return tables


MOUNTAIN_BITS = _candidate_tables()
# the same candidates as small cell-index tables (200 x length, uint8; an invalid candidate
# repeats cell 0 and is masked by _CAND_VALID) for a vectorised first pass. Small tables matter:
# a 200 x 100 float matrix per length was read from beyond the L2 cache at every mountain step.
_CAND_INDEX = {n: np.array([c if c is not None else (0,) * n for c in MOUNTAIN_CANDIDATES[n]],
                           np.uint8) for n in MOUNTAIN_CANDIDATES}
_CAND_VALID = {n: np.array([c is not None for c in MOUNTAIN_CANDIDATES[n]]) for n in MOUNTAIN_CANDIDATES}


def _ring_cycles(length: int) -> np.ndarray:
    """(200, 2 * length + 6): the cells around each candidate range in cyclic order; CELLS stands
    for a position off the board. Consecutive entries are orthogonal neighbours."""
    out = np.full((2 * CELLS, 2 * length + 6), CELLS, np.int64)
    for i, cells in enumerate(MOUNTAIN_CANDIDATES[length]):
        if cells is None:
            continue
        r0, c0 = divmod(cells[0], SIZE)
        horizontal = i < CELLS
        # walk the border of the 3 x (length + 2) box (transposed when vertical)
        h, w = (3, length + 2) if horizontal else (length + 2, 3)
        top, left = r0 - 1, c0 - 1
        walk = [(top, left + k) for k in range(w)] + [(top + k, left + w - 1) for k in range(1, h)] \
            + [(top + h - 1, left + w - 1 - k) for k in range(1, w)] \
            + [(top + h - 1 - k, left) for k in range(1, h - 1)]
        out[i] = [rr * SIZE + cc if 0 <= rr < SIZE and 0 <= cc < SIZE else CELLS for rr, cc in walk]
    return out


_RING_CYCLE = {n: _ring_cycles(n).astype(np.uint8) for n in MOUNTAIN_CANDIDATES}


def _padded_bits(bits: int) -> int:
    """Row-major cell bits (stride 10) -> the stride-11 layout used by the connectivity flood."""
    out = 0
    for r in range(SIZE):
        out |= ((bits >> (r * SIZE)) & 0x3FF) << (r * 11)
    return out


def _still_connected(free: int, ring: int) -> bool:
    """Given a connected free region from which a range was just removed, is it still connected?

    Every part of it touches the range, so it is enough that one flood from a free cell next to the
    range reaches all the others (``ring``): the flood stops as soon as it has.
    """
    ring &= free
    if ring == 0:
        return True
    reach = ring & -ring
    while True:
        if reach & ring == ring:
            return True
        nxt = (reach | (reach << 1) | (reach >> 1) | (reach << 11) | (reach >> 11)) & free
        if nxt == reach:
            return False
        reach = nxt


# Exact connectivity test without flooding: the Euler number of the free cells. For a binary
# picture, (4-connected components of the free cells) = E4 + (holes), where the holes are the
# 8-connected obstacle components that do not touch the outside of the board, and E4 is a sum of
# local terms over the 2x2 windows (bit-quads, Gray 1971). Before a placement the free region is
# one piece, so only the windows touching the new range and the obstacle components it touches
# matter: the range is legal iff  dE4 - (interior components touched) + (0 if the merged obstacle
# touches the outside else 1) == 0.  Checked against flooding on 17k positions (tests).
_P = SIZE + 2  # padded side: index (r + 1) * _P + (c + 1); the padding is outside
_PAD_INDEX = np.array([(c // SIZE + 1) * _P + c % SIZE + 1 for c in range(CELLS)])
#: 8-neighbours of each cell; CELLS stands for "off the board"
NEIGHBOURS8 = tuple(tuple((r + dr) * SIZE + c + dc if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE
                          else CELLS for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
                    for r in range(SIZE) for c in range(SIZE))


def _quad_tables(length: int) -> tuple[np.ndarray, np.ndarray]:
    """(200, 2 * length + 2, 4): padded cells (tl, tr, bl, br) of the 2x2 windows touching each
    candidate range, and which of them belong to the range."""
    q = 2 * length + 2
    idx = np.zeros((2 * CELLS, q, 4), np.int64)
    inside = np.zeros((2 * CELLS, q, 4), bool)
    for i, cells in enumerate(MOUNTAIN_CANDIDATES[length]):
        if cells is None:
            continue
        cs = {(c // SIZE + 1, c % SIZE + 1) for c in cells}
        quads = sorted({(r + dr, c + dc) for r, c in cs for dr in (-1, 0) for dc in (-1, 0)})
        for k, (r, c) in enumerate(quads):
            pts = ((r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1))
            idx[i, k] = [rr * _P + cc for rr, cc in pts]
            inside[i, k] = [p in cs for p in pts]
    return idx, inside


_QUADS = {n: _quad_tables(n) for n in MOUNTAIN_CANDIDATES}


#: E4 term x 4 of one 2x2 window by its free-cell code (bits tl=1, tr=2, bl=4, br=8): one free
#: cell +1, three free cells -1, two diagonal free cells +2 (bit-quads, Gray 1971)
_QUAD_TERM = np.array([(bin(q).count("1") == 1) - (bin(q).count("1") == 3) + 2 * (q in (6, 9))
                       for q in range(16)], np.int64)
_QUAD_WEIGHTS = np.array([1, 2, 4, 8], np.int64)
#: per length: the windows' padded cells (200, q, 4) and the code of their range cells (200, q)
_QUAD_CODES = {n: (idx, (inside.astype(np.int64) * _QUAD_WEIGHTS).sum(-1)) for n, (idx, inside) in _QUADS.items()}


def obstacle_labels(board: np.ndarray) -> np.ndarray:
    """int64[CELLS + 1]: -1 for a non-mountain cell, else its 8-connected mountain component;
    index CELLS is the outside of the board, and components touching it are labelled CELLS."""
    lab = np.full(CELLS + 1, -1, np.int64)
    lab[CELLS] = CELLS
    for cell in np.flatnonzero(board == MOUNTAIN).tolist():
        add_mountains(lab, (cell,))
    return lab


def add_mountains(lab: np.ndarray, cells) -> None:
    """Update ``lab`` (see obstacle_labels) in place for new mountain ``cells`` (8-connected)."""
    touched = {int(lab[z]) for cell in cells for z in NEIGHBOURS8[cell]}
    touched.discard(-1)
    new = CELLS if CELLS in touched else min(touched | {min(cells)})
    lab[list(cells)] = new
    for t in touched:
        if t != new:
            lab[lab == t] = new


def _fits(board: np.ndarray, length: int) -> np.ndarray:
    """bool[200]: the candidate ranges of ``length`` whose cells are all empty."""
    return ~(board != EMPTY)[_CAND_INDEX[length]].any(axis=1) & _CAND_VALID[length]


def mountain_placements(board: np.ndarray, length: int, labels: np.ndarray | None = None) -> np.ndarray:
    """bool[200]: where a range of ``length`` peaks may go (orientation * 100 + anchor).

    Rulebook (Setup): mountains may not isolate part of the board, so every cell outside the
    mountains must stay orthogonally connected. The ring test settles most candidates; the rest
    get the Euler-number test above. ``labels``: ``obstacle_labels(board)`` if already known.
    """
    fits = _fits(board, length)
    # Obstacles (mountains, off-board) met walking once around the range: if they form at most
    # one unbroken run, the free cells around it stay joined along the ring, so nothing is cut off.
    ext = np.append(board == MOUNTAIN, True)
    ring = _RING_CYCLE[length]
    on = ext[ring]
    runs = (on[:, 1:] & ~on[:, :-1]).sum(axis=1) + (on[:, 0] & ~on[:, -1])
    out = fits.copy()
    rows = np.flatnonzero(fits & (runs >= 2))
    if len(rows):
        if labels is None:
            labels = obstacle_labels(board)
        free = np.zeros(_P * _P, np.int64)
        free[_PAD_INDEX] = board == EMPTY
        idx, in_code = _QUAD_CODES[length]
        before = free[idx[rows]] @ _QUAD_WEIGHTS                 # window codes before the range
        d4 = (_QUAD_TERM[before & ~in_code[rows]] - _QUAD_TERM[before]).sum(-1)   # 4 x dE4
        labs = np.sort(labels[ring[rows]], axis=1)   # -1: a free ring cell
        distinct = ((labs[:, 1:] != labs[:, :-1]) & (labs[:, 1:] >= 0)).sum(1) + (labs[:, 0] >= 0)
        outside = labs[:, -1] == CELLS
        out[rows] = d4 + 4 * (outside.astype(np.int64) - distinct + ~outside) == 0
    return out


def mountain_placements_by_flooding(board: np.ndarray, length: int) -> np.ndarray:
    """The same answer by flooding the free cells for each candidate (the reference for tests)."""
    fits = _fits(board, length)
    free = _padded_bits(bool_to_bits(board == EMPTY))
    out = fits.copy()
    for i in np.flatnonzero(fits).tolist():
        bits, _, _, ring4 = MOUNTAIN_BITS[length][i]
        out[i] = _still_connected(free & ~bits, ring4)
    return out


# ---------------------------------------------------------------------------------------------
# Placement bitboards: bit i of a Python int is cell i (row-major, no padding). Whole-board rule
# checks become a handful of integer operations, which beats numpy on arrays this small.
FULL = (1 << CELLS) - 1
_COL0 = sum(1 << (r * SIZE) for r in range(SIZE))
NOT_COL0 = FULL & ~_COL0
NOT_COL9 = FULL & ~(_COL0 << (SIZE - 1))
EDGE_BITS = sum(1 << c for c in range(CELLS) if EDGE[c])
#: for each colour, the board codes (index code + 1) it may not touch
INCOMPAT_CODES = tuple(tuple(j for j in range(12) if not COMPAT[c, j]) for c in range(NUM_COLOURS))


def step_bits(s: int) -> tuple[int, int, int, int]:
    """The four one-step shifts of ``s``: cells whose left / right / upper / lower neighbour is in s."""
    return ((s << 1) & NOT_COL0, (s >> 1) & NOT_COL9, (s << SIZE) & FULL, s >> SIZE)


def dilate(s: int) -> int:
    """Cells orthogonally next to a cell of ``s``."""
    return ((s << 1) & NOT_COL0) | ((s >> 1) & NOT_COL9) | ((s << SIZE) & FULL) | (s >> SIZE)


def neighbour_count_bits(s: int) -> tuple[int, int]:
    """(cells with at least one neighbour in s, cells with at least two)."""
    a, b, c, d = step_bits(s)
    return a | b | c | d, (a & b) | (c & d) | ((a | b) & (c | d))


def bits_to_bool(bits: int, n: int = CELLS) -> np.ndarray:
    """Little-endian bit ``i`` -> element ``i`` of a uint8 0/1 array of length ``n``."""
    raw = np.frombuffer(bits.to_bytes((n + 7) // 8, "little"), np.uint8)
    return np.unpackbits(raw, bitorder="little")[:n]


def bool_to_bits(arr: np.ndarray) -> int:
    return int.from_bytes(np.packbits(arr.astype(bool), bitorder="little").tobytes(), "little")
