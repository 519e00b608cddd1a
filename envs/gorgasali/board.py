"""The Gorgasali map: terrain, zones, chests, gates; neighbours, range, line of sight, movement.

Squares are numbered ``row * 20 + col``. Range is the Chebyshev distance (designed: "next to"
includes the diagonals). Movement is orthogonal.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, AbstractSet, Iterable, Sequence

from ..core.game import ConfigError
from .actions import SIZE, SQUARES

if TYPE_CHECKING:   # for the type checker only: tables.py imports this module
    from .tables import MovementCost

NEUTRAL, WATER, FOREST, MOUNTAIN, BLOCK = range(5)
TERRAIN_NAMES = ("neutral", "water", "forest", "mountain", "block")
_GLYPH_TERRAIN = {".": NEUTRAL, "c": NEUTRAL, "+": NEUTRAL, "G": NEUTRAL, "~": WATER,
                  "f": FOREST, "^": MOUNTAIN, "#": BLOCK}
ROW = tuple(s // SIZE for s in range(SQUARES))
COL = tuple(s % SIZE for s in range(SQUARES))
#: orthogonal steps north, east, south, west
DELTAS = ((-1, 0), (0, 1), (1, 0), (0, -1))
OPPOSITE = (2, 3, 0, 1)


def _step(s: int, d: int) -> int:
    r, c = ROW[s] + DELTAS[d][0], COL[s] + DELTAS[d][1]
    return r * SIZE + c if 0 <= r < SIZE and 0 <= c < SIZE else -1


#: STEP[s][d]: the orthogonal neighbour of s in direction d, or -1 off the map
STEP = tuple(tuple(_step(s, d) for d in range(4)) for s in range(SQUARES))
#: AROUND[s]: the up-to-8 squares at range 1
AROUND = tuple(tuple((ROW[s] + dr) * SIZE + COL[s] + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                     if (dr or dc) and 0 <= ROW[s] + dr < SIZE and 0 <= COL[s] + dc < SIZE)
               for s in range(SQUARES))


def distance(a: int, b: int) -> int:
    """Range between two squares (Chebyshev)."""
    return max(abs(ROW[a] - ROW[b]), abs(COL[a] - COL[b]))


def _line(dr: int, dc: int) -> tuple[tuple[int, int], ...]:
    n = max(abs(dr), abs(dc))
    pts = []
    for i in range(1, n):
        r = int(dr * i / n + (0.5 if dr >= 0 else -0.5))
        c = int(dc * i / n + (0.5 if dc >= 0 else -0.5))
        pts.append((r, c))
    return tuple(pts)


LOS_REACH = 8
#: LINE[(dr, dc)]: the offsets of the squares strictly between two squares (a sampled line)
LINE = {(dr, dc): _line(dr, dc) for dr in range(-LOS_REACH, LOS_REACH + 1)
        for dc in range(-LOS_REACH, LOS_REACH + 1)}


def between(a: int, b: int) -> list[int]:
    """Squares the line of sight from a to b crosses (endpoints excluded)."""
    r0, c0 = ROW[a], COL[a]
    return [(r0 + dr) * SIZE + c0 + dc for dr, dc in LINE[(ROW[b] - r0, COL[b] - c0)]]


class Board:
    """Static map data (shared by every state of a game)."""

    def __init__(self, terrain: Sequence[int], zone: Sequence[int], chests: Iterable[int],
                 healing: Iterable[int], gates: Iterable[int]):
        self.terrain = tuple(terrain)
        self.zone = tuple(zone)            # 1..4: the order in which zones go inactive
        self.chests = tuple(chests)        # squares holding a chest at set-up
        self.healing = frozenset(healing)
        self.gates = tuple(gates)          # gate square of sector 1..20
        self.blocking = frozenset(s for s in range(SQUARES) if terrain[s] == BLOCK)
        #: terrain -> bitboard of its squares; zone_bits[k]: squares of zones 1..k (inactive
        #: once k zones are out)
        self.terrain_bits = {t: to_bits(s for s in range(SQUARES) if terrain[s] == t)
                             for t in range(5)}
        self.zone_bits = tuple(to_bits(s for s in range(SQUARES) if zone[s] <= k) for k in range(5))

    @classmethod
    def from_config(cls, data: dict) -> "Board":
        rows, zones, gates = data.get("rows"), data.get("zones"), data.get("gates")
        if not isinstance(rows, list) or len(rows) != SIZE or any(
                not isinstance(r, str) or len(r) != SIZE for r in rows):
            raise ConfigError(f"map.rows must be {SIZE} strings of {SIZE} glyphs")
        if not isinstance(zones, list) or len(zones) != SIZE or any(
                not isinstance(r, str) or len(r) != SIZE or set(r) - set("1234") for r in zones):
            raise ConfigError(f"map.zones must be {SIZE} strings of digits 1..4")
        terrain, zone, chests, healing = [], [], [], []
        for r in range(SIZE):
            for c in range(SIZE):
                g = rows[r][c]
                if g not in _GLYPH_TERRAIN:
                    raise ConfigError(f"map.rows: unknown glyph {g!r} at row {r + 1} col {c + 1}")
                terrain.append(_GLYPH_TERRAIN[g])
                zone.append(int(zones[r][c]))
                s = r * SIZE + c
                if g == "c":
                    chests.append(s)
                elif g == "+":
                    healing.append(s)
        if not isinstance(gates, list) or len(gates) != 20:
            raise ConfigError("map.gates must list the 20 start sectors' gates (rulebook: d20)")
        gate_sq = []
        for rc in gates:
            r, c = (int(x) for x in rc)
            if not (0 <= r < SIZE and 0 <= c < SIZE) or rows[r][c] != "G":
                raise ConfigError(f"map.gates: {rc} is not a G square")
            gate_sq.append(r * SIZE + c)
        if len(set(gate_sq)) != 20:
            raise ConfigError("map.gates must be 20 different squares")
        return cls(terrain, zone, chests, healing, gate_sq)

    def cost_table(self, movement_cost: MovementCost) -> tuple[int, ...]:
        """Movement points to enter each square (0: cannot be entered)."""
        by_terrain = {NEUTRAL: 1, WATER: int(movement_cost["water"]),
                      FOREST: int(movement_cost["forest"]),
                      MOUNTAIN: int(movement_cost["mountain"]), BLOCK: 0}
        return tuple(by_terrain[t] for t in self.terrain)

    def clear_line(self, a: int, b: int, walls: AbstractSet[int]) -> bool:
        """No square strictly between a and b is in ``walls`` (blocking areas, barriers)."""
        if distance(a, b) > LOS_REACH:
            return False
        return not any(x in walls for x in between(a, b))


FULL = (1 << SQUARES) - 1
_COL0 = sum(1 << (r * SIZE) for r in range(SIZE))
_NOT_COL0 = FULL ^ _COL0
_NOT_LAST = FULL ^ (_COL0 << (SIZE - 1))


def shift(bits: int, d: int) -> int:
    """Move every square of a bitboard one step in direction d (north, east, south, west)."""
    if d == 0:
        return bits >> SIZE
    if d == 2:
        return (bits << SIZE) & FULL
    if d == 1:
        return (bits << 1) & _NOT_COL0
    return (bits >> 1) & _NOT_LAST


def to_bits(squares: Iterable[int]) -> int:
    out = 0
    for s in squares:
        out |= 1 << int(s)
    return out


#: NB[s]: the orthogonal neighbours of s on the map (north, east, south, west; none off the map)
NB = tuple(tuple(q for q in STEP[s] if q >= 0) for s in range(SQUARES))


# ------------------------------------------------------------------ the walk -------------------
# Rulebook (Movement): roll two dice and cover exactly that many points of orthogonal steps
# (obstacles cost more); a covered square is never crossed again in the same move; the move may
# stop on a chest it enters; it must stop where the points left cannot pay for the surrounding
# obstacles. The engine walks square by square; these functions decide which steps keep a legal
# end of the move reachable. Arguments shared by all of them:
#   cost[q]   points to enter q (0: never: blocking area, Barrier)
#   occ       bitboard of squares where a move may not end (other figures; passing is fine)
#   chests    bitboard of unopened chests (a move may end on one it entered)
#   visited   bitboard of the squares covered so far, the walker's square included
#   prev      the square just left (-1 before the first step)


def may_end(q: int, prev: int, visited: int, left: int, cost: Sequence[int], occ: int,
            chests: int) -> int:
    """How the walk standing on ``q`` may end here now: 0 it may not, 1 it must (no points left,
    or the terrain stop), 2 it may stop by choice (a chest it entered). The terrain stop
    ('not enough numbers left to cross the surrounding obstacles'): every neighbour but the
    square just left costs more than the points left (or cannot be entered). A neighbour that
    the walk itself covered earlier is not an obstacle: boxing oneself in is no way to stop."""
    if occ >> q & 1:
        return 0
    if not left:
        return 1
    for n in NB[q]:
        c = cost[n]
        if c and c <= left and n != prev:
            return 2 if prev >= 0 and chests >> q & 1 else 0
    return 1


#: walk states (square, prev, visited, left) known to reach a legal end (see ``can_finish``)
WalkMemo = set[tuple[int, int, int, int]]


def can_finish(q: int, prev: int, visited: int, left: int, cost: Sequence[int], occ: int,
               chests: int, ok: WalkMemo | None = None) -> bool:
    """Some legal end of the move is reachable from this walk state (depth first, stops at the
    first one found). ``ok`` collects the walk states on the way to the end found, as
    ``(square, prev, visited, left)``: the next step's check finds its continuation there."""
    if not left:
        return not occ >> q & 1
    if prev >= 0 and chests >> q & 1 and not occ >> q & 1:
        return True
    other = False
    for n in NB[q]:
        c = cost[n]
        if not c or c > left:
            continue
        if n != prev:
            other = True
        if visited >> n & 1:
            continue
        v2 = visited | 1 << n
        if can_finish(n, q, v2, left - c, cost, occ, chests, ok):
            if ok is not None:
                ok.add((n, q, v2, left - c))
            return True
    return not other and not occ >> q & 1


def walk_steps(q: int, prev: int, visited: int, left: int, cost: Sequence[int], occ: int,
               chests: int, ok: WalkMemo | None = None) -> list[int]:
    """The squares the walk may step to next: unvisited neighbours it can pay for from which a
    legal end stays reachable (``ok``: see ``can_finish``; a memo of states known to finish,
    valid for one walk: the same costs, figures and chests)."""
    out = []
    for n in NB[q]:
        c = cost[n]
        if c and c <= left and not visited >> n & 1:
            v2 = visited | 1 << n
            if ok is not None:
                key = (n, q, v2, left - c)
                if key in ok or can_finish(n, q, v2, left - c, cost, occ, chests, ok):
                    ok.add(key)
                    out.append(n)
            elif can_finish(n, q, v2, left - c, cost, occ, chests):
                out.append(n)
    return out
