"""Board geometry and static tables for Peacekeepers (numpy + stdlib only).

Cells are numbered ``r * 10 + c`` on the 10x10 field. Cell codes on the board:
-1 empty, 0..7 a cube's upward colour (R O Y G B P K W), 8 brown (only as a puzzle set-up block),
9 an erupted volcano (gray cube on a volcano), 10 a mountain peak.
"""
from __future__ import annotations

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


def _horde_zone() -> tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]:
    """Per target cell: ((cell, blockers), ...) of the Goblin Horde's attack zone.

    Rulebook, "Resolving a Goblin Horde": two cells orthogonally, one diagonally. A volcano or
    mountain stops the attack going past it: the second orthogonal cell is reached through the first;
    a diagonal cell (designed reading) is reached unless *both* orthogonal cells between it and the
    target are volcanoes or mountains.
    """
    out = []
    for t in range(CELLS):
        r, c = divmod(t, SIZE)
        zone = []
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


def mountain_candidates(length: int) -> list[tuple[int, ...]]:
    """Action-ordered candidates: index = orientation * 100 + anchor; None where off the board."""
    cands = []
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


def connected_after(free: np.ndarray, candidates: list, idx: list[int]) -> np.ndarray:
    """For each candidate index: do the free cells stay one orthogonally connected region
    once the candidate's cells are taken? Vectorised flood fill over all candidates at once."""
    k = len(idx)
    if k == 0:
        return np.zeros(0, dtype=bool)
    F = np.repeat(free[None, :].astype(np.float32), k, axis=0)
    for row, i in enumerate(idx):
        F[row, list(candidates[i])] = 0.0
    total = F.sum(axis=1)
    seed = np.zeros_like(F)
    first = np.argmax(F > 0, axis=1)
    seed[np.arange(k), first] = F[np.arange(k), first]
    reach = seed
    while True:
        nxt = np.minimum(reach + (reach @ ADJ), 1.0) * F
        if np.array_equal(nxt, reach):
            break
        reach = nxt
    return reach.sum(axis=1) == total
