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


def _neighbour_table(h: int, w: int) -> np.ndarray:
    nb = -np.ones((h * w, 6), np.int64)
    for row in range(h):
        for col in range(w):
            q, r = to_axial(row, col)
            for d, (dq, dr) in enumerate(AXIAL_DIRS):
                rr, cc = from_axial(q + dq, r + dr)
                if 0 <= rr < h and 0 <= cc < w:
                    nb[row * w + col, d] = rr * w + cc
    return nb


_NB_TABLES: dict = {}  # (h, w) -> read-only neighbour table (built once per map size)


def neighbour_table(h: int, w: int) -> np.ndarray:
    """int[h*w, 6]: neighbour cell per direction, -1 off the map (a fresh copy of a table
    built once per map size)."""
    t = _NB_TABLES.get((h, w))
    if t is None:
        t = _NB_TABLES[(h, w)] = _neighbour_table(h, w)
        t.flags.writeable = False
    return t.copy()


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
    capitol is reachable on foot). With ``island_min`` > 0 (fleets) other land masses of at
    least that many hexes stay as islands; with 0 only the largest mass is kept. The draws, in
    order: one per cell (land), then the river walks, then the candidates."""
    nb = neighbour_table(h, w)
    nbl = nb.tolist()  # plain lists for the scalar loops below (same values as nb)
    n = h * w
    # one draw per cell in cell order (rng.random(n) gives the numbers of n scalar calls)
    u = rng.random(n).tolist()
    land_l = [u[i] >= (0.45 if (i // w in (0, h - 1) or i % w in (0, w - 1)) else 0.12)
              for i in range(n)]
    land, main = _land_masses(land_l, nbl, island_min)
    rivers = _rivers(rng, land, nbl, n)
    cand = _capitol_candidates(rng, land & main, w, n, n_candidates)
    return land, rivers, cand, nb


def _land_masses(land_l: list, nbl: list, island_min: int):
    """(land, main): the land kept (the largest connected mass, plus islands of at least
    ``island_min`` hexes when > 0) and the largest mass, as boolean arrays."""
    n = len(land_l)
    comp = [-1] * n
    sizes: dict[int, int] = {}
    best, best_size = -1, 0
    for s in range(n):
        if not land_l[s] or comp[s] >= 0:
            continue
        stack, size = [s], 0
        comp[s] = s
        while stack:
            c = stack.pop()
            size += 1
            for m in nbl[c]:
                if m >= 0 and land_l[m] and comp[m] < 0:
                    comp[m] = s
                    stack.append(m)
        sizes[s] = size
        if size > best_size:
            best, best_size = s, size
    main = np.array([c == best for c in comp])
    if island_min > 0:
        land = np.array([c >= 0 and (c == best or sizes[c] >= island_min) for c in comp])
    else:
        land = main.copy()
    return land, main


def _rivers(rng: np.random.Generator, land: np.ndarray, nbl: list, n: int) -> set:
    """River edges: n // 30 (at least 1) random walks along hex edges between land cells."""
    land_l = land.tolist()
    rivers: set[tuple[int, int]] = set()
    cells = np.flatnonzero(land)
    for _ in range(max(1, n // 30)):
        c, d = int(cells[rng.integers(len(cells))]), int(rng.integers(6))
        for _ in range(int(rng.integers(3, 7))):
            m = nbl[c][d]
            if m < 0 or not land_l[m]:
                break
            rivers.add(edge(c, m))
            if rng.random() < 0.5:
                d = (d + 1) % 6
            else:
                nxt = nbl[c][(d + 1) % 6]
                if nxt < 0 or not land_l[nxt]:
                    break
                c, d = nxt, (d - 1) % 6
    return rivers


def _capitol_candidates(rng: np.random.Generator, mask: np.ndarray, w: int, n: int,
                        n_candidates: int) -> list:
    """Capitol candidates: farthest-point sampling over the cells of ``mask`` (a random
    first cell, then always the cell farthest from the candidates so far)."""
    cells = np.flatnonzero(mask)
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
    return cand
