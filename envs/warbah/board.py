"""Warbah hex map: odd-r offset storage, axial neighbours, land/water, rivers on hex edges.

Cells are indexed ``i = row * W + col``. Neighbour direction ``d`` (0..5) follows the axial
directions E, NE, NW, W, SW, SE. Rivers are stored as a set of (min cell, max cell) edges.
"""
from __future__ import annotations

import numpy as np

AXIAL_DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
DIR_NAMES = ("E", "NE", "NW", "W", "SW", "SE")
#: map size (rows, cols) per player count (designed)
MAP_SIZE = {2: (7, 9), 3: (8, 10), 4: (9, 11)}


def to_axial(row: int, col: int) -> tuple[int, int]:
    return col - (row - (row & 1)) // 2, row


def from_axial(q: int, r: int) -> tuple[int, int]:
    return r, q + (r - (r & 1)) // 2


def neighbour_table(h: int, w: int) -> np.ndarray:
    """int[h*w, 6]: neighbour cell per direction, -1 off the map."""
    nb = -np.ones((h * w, 6), np.int64)
    for row in range(h):
        for col in range(w):
            q, r = to_axial(row, col)
            for d, (dq, dr) in enumerate(AXIAL_DIRS):
                rr, cc = from_axial(q + dq, r + dr)
                if 0 <= rr < h and 0 <= cc < w:
                    nb[row * w + col, d] = rr * w + cc
    return nb


def hex_distance(h: int, w: int, a: int, b: int) -> int:
    qa, ra = to_axial(a // w, a % w)
    qb, rb = to_axial(b // w, b % w)
    dq, dr = qa - qb, ra - rb
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def edge(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def generate_map(rng: np.random.Generator, h: int, w: int, n_candidates: int,
                 island_min: int = 0):
    """Land mask, river edges, capitol candidate cells (all on the largest land mass, so every
    capitol is reachable on foot). With ``island_min`` > 0 (fleets, block B) other land masses
    of at least that many hexes stay as islands; with 0 only the largest mass is kept."""
    nb = neighbour_table(h, w)
    n = h * w
    land = np.ones(n, bool)
    for i in range(n):
        row, col = divmod(i, w)
        border = row in (0, h - 1) or col in (0, w - 1)
        land[i] = rng.random() >= (0.45 if border else 0.12)
    # keep the largest connected land component (no fleets: every hero must be able to walk)
    comp = -np.ones(n, np.int64)
    sizes: dict[int, int] = {}
    best, best_size = -1, 0
    for s in range(n):
        if not land[s] or comp[s] >= 0:
            continue
        stack, size = [s], 0
        comp[s] = s
        while stack:
            c = stack.pop()
            size += 1
            for d in range(6):
                m = nb[c, d]
                if m >= 0 and land[m] and comp[m] < 0:
                    comp[m] = s
                    stack.append(m)
        sizes[s] = size
        if size > best_size:
            best, best_size = s, size
    main = comp == best
    if island_min > 0:
        land &= np.array([c >= 0 and (c == best or sizes[c] >= island_min) for c in comp])
    else:
        land &= main
    # rivers: walks along hex edges
    rivers: set[tuple[int, int]] = set()
    cells = np.flatnonzero(land)
    for _ in range(max(1, n // 30)):
        c, d = int(cells[rng.integers(len(cells))]), int(rng.integers(6))
        for _ in range(int(rng.integers(3, 7))):
            m = nb[c, d]
            if m < 0 or not land[m]:
                break
            rivers.add(edge(c, int(m)))
            if rng.random() < 0.5:
                d = (d + 1) % 6
            else:
                nxt = nb[c, (d + 1) % 6]
                if nxt < 0 or not land[nxt]:
                    break
                c, d = int(nxt), (d - 1) % 6
    # capitol candidates: farthest-point sampling over the largest land mass
    cells = np.flatnonzero(land & main)
    cand = [int(cells[rng.integers(len(cells))])]
    rows, cols = cells // w, cells % w
    aq, ar = cols - (rows - (rows & 1)) // 2, rows  # axial coordinates (as to_axial)
    dist = None
    while len(cand) < min(n_candidates, len(cells)):
        k = cand[-1]  # distance to the nearest candidate, updated with the newest one
        kr, kc = divmod(k, w)
        kq = kc - (kr - (kr & 1)) // 2
        dq, dr = aq - kq, ar - kr
        dk = (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2
        dist = dk if dist is None else np.minimum(dist, dk)
        cand.append(int(cells[int(np.argmax(dist))]))
    return land, rivers, cand, nb
