"""Zaberias map geometry: square map boards placed in one global grid, rotations (Earth Mover),
walking links (orthogonal, diagonal roads, portals) and range tables (numpy + stdlib only).

Cells are global indices ``row * W + col``. A ``Geometry`` is immutable and cached per tuple of
board rotations, so a state only stores its rotations and looks its geometry up.
"""
from __future__ import annotations

import functools

VOID, GRASS, TREES, WATER, PORTAL, MINE, STAR, SITE = range(8)
TERRAIN_CHARS = {".": GRASS, "T": TREES, "~": WATER, "O": PORTAL, "$": MINE, "*": STAR,
                 "H": SITE, "C": SITE}
TERRAIN_GLYPH = {VOID: " ", GRASS: ".", TREES: "t", WATER: "~", PORTAL: "O", MINE: "$",
                 STAR: "*", SITE: "#"}
#: the largest range any unit may need a table for (sorcerers 3, plus one spare)
MAX_RANGE = 4
#: a local board square (row, col) as the rules file's roads name it (two ints; the schema checks)
Cell = tuple[int, ...]


def rotate_local(r: int, c: int, size: int, quarter_turns: int) -> tuple[int, int]:
    """Rotate local board coordinates clockwise by ``quarter_turns`` * 90 degrees."""
    for _ in range(quarter_turns % 4):
        r, c = c, size - 1 - r
    return r, c


class Geometry:
    """Terrain and links of the whole map for one set of board rotations."""

    def __init__(self, rows: list[list[int]], site_order: list[tuple[int, int]],
                 roads: list[tuple[Cell, Cell]],
                 placements: list[tuple[int, int, int]], rots: tuple[int, ...]):
        size = len(rows)
        self.board_size = size
        self.H = max(top for top, _, _ in placements) + size
        self.W = max(left for _, left, _ in placements) + size
        H, W = self.H, self.W
        self.N = N = H * W
        self.terrain = [VOID] * N
        self.board_of = [-1] * N
        self.site_cells: list[int] = []
        self.local_to_cell: list[dict[Cell, int]] = []
        road_links: set[tuple[int, int]] = set()
        for b, (top, left, q0) in enumerate(placements):
            q = (q0 + rots[b]) % 4
            mapping: dict[Cell, int] = {}
            for r in range(size):
                for c in range(size):
                    rr, cc = rotate_local(r, c, size, q)
                    cell = (top + rr) * W + left + cc
                    if self.board_of[cell] != -1:
                        raise ValueError(f"boards {self.board_of[cell]} and {b} overlap")
                    self.board_of[cell] = b
                    self.terrain[cell] = rows[r][c]
                    mapping[(r, c)] = cell
            self.local_to_cell.append(mapping)
            for (r, c) in site_order:
                self.site_cells.append(mapping[(r, c)])
            for a, z in roads:
                x, y = mapping[a], mapping[z]
                road_links.add((x, y))
                road_links.add((y, x))
        self.site_of = [-1] * N
        for s, cell in enumerate(self.site_cells):
            self.site_of[cell] = s
        self.road_links = frozenset(road_links)
        self.on_road = [False] * N
        for x, _ in road_links:
            self.on_road[x] = True
        self.portals = tuple(c for c in range(N) if self.terrain[c] == PORTAL)
        self.stars = tuple(c for c in range(N) if self.terrain[c] == STAR)
        self.mines = tuple(c for c in range(N) if self.terrain[c] == MINE)
        # step links without portals: orthogonal neighbours on the map plus diagonal roads
        nbrs = []
        for cell in range(N):
            out = []
            if self.terrain[cell] != VOID:
                r, c = divmod(cell, W)
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < H and 0 <= cc < W and self.terrain[rr * W + cc] != VOID:
                        out.append(rr * W + cc)
                for dr, dc in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < H and 0 <= cc < W and (cell, rr * W + cc) in road_links:
                        out.append(rr * W + cc)
            nbrs.append(tuple(out))
        #: links used for range (and as the non-portal part of a step)
        self.range_nbrs = tuple(nbrs)
        #: links used for a step: range links plus portal-to-portal jumps
        self.step_nbrs = tuple(
            nbrs[c] + (tuple(p for p in self.portals if p != c) if self.terrain[c] == PORTAL else ())
            for c in range(N))
        #: bitmask forms of the step links and of the terrain that steps care about
        self.step_mask = [sum(1 << y for y in self.step_nbrs[c]) for c in range(N)]
        self.water_mask = sum(1 << c for c in range(N) if self.terrain[c] == WATER)
        self.portal_mask = sum(1 << c for c in self.portals)
        # within[r][cell]: bitmask of cells at range distance 1..r (never through portals)
        self.within = [[0] * N for _ in range(MAX_RANGE + 1)]
        for cell in range(N):
            if self.terrain[cell] == VOID:
                continue
            dist = {cell: 0}
            frontier = [cell]
            for d in range(1, MAX_RANGE + 1):
                nxt = []
                for x in frontier:
                    for y in self.range_nbrs[x]:
                        if y not in dist:
                            dist[y] = d
                            nxt.append(y)
                frontier = nxt
                mask = self.within[d - 1][cell]
                for y in nxt:
                    mask |= 1 << y
                self.within[d][cell] = mask

    def in_range(self, src: int, dst: int, rng: int) -> bool:
        """Whether ``dst`` lies within ``rng`` range steps of ``src`` (distance >= 1)."""
        return bool(self.within[min(rng, MAX_RANGE)][src] >> dst & 1)

    def cells_in_range(self, src: int, rng: int) -> list[int]:
        return list(bit_cells(self.within[min(rng, MAX_RANGE)][src]))

    def rotate_cell_map(self, board: int, quarter_turns: int,
                        placement: tuple[int, int, int]) -> dict[int, int]:
        """Global cell -> global cell when ``board`` turns clockwise by ``quarter_turns``."""
        top, left, _ = placement
        size = self.board_size
        out = {}
        for cell in self.local_to_cell[board].values():
            r, c = divmod(cell, self.W)
            rr, cc = rotate_local(r - top, c - left, size, quarter_turns)
            out[cell] = (top + rr) * self.W + left + cc
        return out


class MapTables:
    """The designed board (from the config) for one player count; builds cached geometries."""

    def __init__(self, board_rows: list[str], roads: list[list[list[int]]],
                 placements: list[list[int]]):
        rows = []
        sites_home, sites_other = [], []
        for r, line in enumerate(board_rows):
            chars = line.split()
            row = []
            for c, ch in enumerate(chars):
                if ch not in TERRAIN_CHARS:
                    raise ValueError(f"unknown board character {ch!r} at row {r} col {c}")
                row.append(TERRAIN_CHARS[ch])
                if ch == "H":
                    sites_home.append((r, c))
                elif ch == "C":
                    sites_other.append((r, c))
            rows.append(row)
        size = len(rows)
        if any(len(row) != size for row in rows):
            raise ValueError("the map board must be square")
        if len(sites_home) != 1:
            raise ValueError("the map board needs exactly one home city slot H")
        self.rows = rows
        self.size = size
        #: site order on each board: home first, then vacant sites in reading order
        self.site_order = sites_home + sites_other
        self.sites_per_board = len(self.site_order)
        links: list[tuple[Cell, Cell]] = []
        for chain in roads:
            for a, z in zip(chain, chain[1:]):
                ta, tz = tuple(a), tuple(z)
                if abs(ta[0] - tz[0]) != 1 or abs(ta[1] - tz[1]) != 1:
                    raise ValueError(f"road link {ta}->{tz} is not diagonal")
                links.append((ta, tz))
        self.roads = links
        self.placements = [_placement(p) for p in placements]
        self._cache: dict[tuple[int, ...], Geometry] = {}
        self.geometry((0,) * len(self.placements))  # validates the layout

    def geometry(self, rots: tuple[int, ...]) -> Geometry:
        g = self._cache.get(rots)
        if g is None:
            g = Geometry(self.rows, self.site_order, self.roads, self.placements, rots)
            self._cache[rots] = g
        return g


def _placement(p: list[int]) -> tuple[int, int, int]:
    """A board placement [top, left, quarter turns] as ints (a ValueError on any other length,
    which the game reports as a bad map config)."""
    t = tuple(int(x) for x in p)
    top, left, turns = t
    return top, left, turns


@functools.lru_cache(maxsize=1 << 16)
def bit_cells(mask: int) -> tuple[int, ...]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)
