"""The Gorgasali map: terrain, zones, chests, gates; neighbours, range, line of sight, movement.

Squares are numbered ``row * 20 + col``. Range is the Chebyshev distance (designed: "next to"
includes the diagonals). Movement is orthogonal.
"""
from __future__ import annotations

import numpy as np

from envs.core.game import ConfigError
from envs.gorgasali.actions import SIZE, SQUARES

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

    def __init__(self, terrain, zone, chests, healing, gates):
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

    def cost_table(self, movement_cost: dict) -> tuple[int, ...]:
        """Movement points to enter each square (0: cannot be entered)."""
        by_terrain = {NEUTRAL: 1, WATER: int(movement_cost["water"]),
                      FOREST: int(movement_cost["forest"]),
                      MOUNTAIN: int(movement_cost["mountain"]), BLOCK: 0}
        return tuple(by_terrain[t] for t in self.terrain)

    def clear_line(self, a: int, b: int, walls) -> bool:
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


def to_bits(squares) -> int:
    out = 0
    for s in squares:
        out |= 1 << int(s)
    return out


def bit_squares(bits: int):
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def _byte_bits(v: int) -> tuple:
    return tuple(i for i in range(8) if v >> i & 1)


_BYTES = (SQUARES + 7) // 8
#: _BYTE_SQUARES[k][v]: the squares set in byte k of a bitboard whose value is v, ascending
_BYTE_SQUARES = tuple(tuple(tuple(8 * k + i for i in _byte_bits(v)) for v in range(256))
                      for k in range(_BYTES))


def squares_of(bits: int) -> list:
    """The squares of a bitboard, ascending (same order as ``bit_squares``, faster when dense)."""
    out = []
    for table, v in zip(_BYTE_SQUARES, bits.to_bytes(_BYTES, "little")):
        if v:
            out += table[v]
    return out


#: cost masks -> per points left, per arrival direction: squares where a move is stuck
_STUCK_CACHE: dict = {}


def _stuck_table(cmask: tuple, roll: int) -> list:
    """stuck[left][d]: squares where an arrival moving in direction d with ``left`` points cannot
    enter any next square (stepping straight back is not allowed), so the move must end there.
    Depends only on the cost masks (terrain, crossing cards, barriers), which change rarely, so
    it is cached across turns."""
    table = _STUCK_CACHE.get(cmask)
    if table is not None and len(table) > roll:
        return table
    table = [None]
    for left in range(1, max(roll, 24) + 1):
        el = 0
        for c, bits in cmask:
            if c <= left:
                el |= bits
        # sh[nd]: squares from which a step in direction nd enters an enterable square
        sh = [shift(el, OPPOSITE[nd]) for nd in range(4)]
        row = []
        for d in range(4):
            back = OPPOSITE[d]
            can = 0
            for nd in range(4):
                if nd != back:
                    can |= sh[nd]
            row.append(~can)
        table.append(row)
    if len(_STUCK_CACHE) > 64:   # barriers come and go: keep the cache small
        _STUCK_CACHE.clear()
    _STUCK_CACHE[cmask] = table
    return table


#: (square, n) -> squares within n orthogonal steps (Manhattan distance <= n), filled lazily
_WITHIN: dict = {}


def _within(sq: int, n: int) -> int:
    got = _WITHIN.get((sq, n))
    if got is None:
        got = 1 << sq
        for _ in range(n):
            got |= shift(got, 0) | shift(got, 1) | shift(got, 2) | shift(got, 3)
        _WITHIN[(sq, n)] = got
    return got



_B = SQUARES
_ROW0 = (1 << SIZE) - 1
_ROWLAST = _ROW0 << (SQUARES - SIZE)
_PACK: dict = {}


def _pack(levels: int) -> tuple:
    """Masks for ``levels`` 400-bit blocks packed in one int: (ones, north, east, south, west)."""
    got = _PACK.get(levels)
    if got is None:
        ones = sum(1 << (_B * p) for p in range(levels))
        got = (ones, (FULL ^ _ROWLAST) * ones, (FULL ^ _COL0) * ones, (FULL ^ _ROW0) * ones,
               (FULL ^ (_COL0 << (SIZE - 1))) * ones)
        _PACK[levels] = got
    return got


_STUCK_REP: dict = {}


def _stuck_rep(cmask: tuple, roll: int, levels: int) -> list:
    key = (cmask, levels)
    got = _STUCK_REP.get(key)
    if got is None or len(got) <= roll:
        ones = _pack(levels)[0]
        table = _stuck_table(cmask, roll)
        got = [None] + [[(x & FULL) * ones for x in row] for row in table[1:]]
        if len(_STUCK_REP) > 256:
            _STUCK_REP.clear()
        _STUCK_REP[key] = got
    return got


def destinations(start: int, roll: int, cost_masks: dict, occupied: int, inactive: int,
                 penalty: int, chests: int) -> dict:
    """``destination_levels`` as a dict square -> zone damage (ascending damage, then square)."""
    out = {}
    for dmg, bits in destination_levels(start, roll, cost_masks, occupied, inactive, penalty,
                                        chests):
        out.update(dict.fromkeys(squares_of(bits), dmg))
    return out


def destination_levels(start: int, roll: int, cost_masks: dict, occupied: int, inactive: int,
                       penalty: int, chests: int) -> list:
    """[(zone damage, bitboard)] with disjoint bitboards by ascending damage: the squares where a move of exactly ``roll`` movement points may end, with the least zone
    damage over the paths reaching each (bitboards; one layer per points spent).

    Rulebook (Movement): orthogonal steps; a covered square is not crossed again (here: no step
    straight back, and the start square is never a destination; see RULES.md); a move may stop
    early on a chest; it must stop where the points left cannot pay for any next square.
    ``cost_masks[c]``: squares costing c points to enter (others cannot be entered);
    ``occupied``: squares where a move cannot end; ``inactive``: squares in inactive zones
    (``penalty`` health per square entered).

    The damage levels are packed into one int, 400 bits per level, so that each shift and mask
    works on every level at once; a square keeps its lowest level at the end.
    """
    cmask = tuple(sorted(cost_masks.items()))
    start_bit = 1 << start
    enter_roll = 0
    for c, bits in cmask:
        if c <= roll:
            enter_roll |= bits
    if not roll or not any(shift(start_bit, d) & enter_roll for d in range(4)):
        return [(0, start_bit)]
    # zone damage levels: one 400-bit block per number of inactive squares entered (0..k)
    near = _within(start, roll) & inactive
    levels = min(roll, bin(near).count("1")) + 1 if near else 1
    ones, mn, me, ms, mw = _pack(levels)
    total = FULL * ones
    if levels == 1:
        inactive = 0
    stuck = _stuck_rep(cmask, roll, levels)
    not_end = ((FULL ^ (occupied | start_bit)) & FULL) * ones
    chests_rep = (chests & FULL) * ones
    inact = inactive * ones
    costs = [(c, bits * ones) for c, bits in cmask]
    L = [[0, 0, 0, 0] for _ in range(roll + 1)]
    for d in range(4):
        t = shift(start_bit, d)
        for c, bits in cmask:
            if c <= roll and t & bits:
                L[c][d] |= (t << _B) if t & inactive else t
    found = 0
    for u in range(1, roll + 1):
        left = roll - u
        s0, s1, s2, s3 = L[u]
        if not left:
            found |= (s0 | s1 | s2 | s3) & not_end
            continue
        st = stuck[left]
        found |= ((s0 & st[0]) | (s1 & st[1]) | (s2 & st[2]) | (s3 & st[3])
                  | ((s0 | s1 | s2 | s3) & chests_rep)) & not_end
        moves = [(c, bits) for c, bits in costs if c <= left]
        for nd, s in ((0, s0 | s1 | s3), (1, s0 | s1 | s2), (2, s1 | s2 | s3), (3, s0 | s2 | s3)):
            if not s:
                continue
            if nd == 0:
                t = (s >> SIZE) & mn
            elif nd == 1:
                t = (s << 1) & me
            elif nd == 2:
                t = (s << SIZE) & ms
            else:
                t = (s >> 1) & mw
            if inact:   # entering an inactive square: one damage level up (before the cost split)
                hot = t & inact
                if hot:
                    t = (t ^ hot) | ((hot << _B) & total)
            for c, bits in moves:
                hit = t & bits
                if hit:
                    L[u + c][nd] |= hit
    out = []
    done = 0
    for p in range(levels):
        bits = (found >> (_B * p)) & FULL & ~done
        if bits:
            done |= bits
            out.append((p * penalty, bits))
    return out


class Destinations:
    """The squares a move may end on, with the zone damage of each: a read-only mapping built
    from ``destination_levels`` that only lists its squares when asked (the mask and a chosen
    square need just the bitboards)."""

    __slots__ = ("levels", "bits", "_dict")

    def __init__(self, levels: list = ()):
        self.levels = list(levels)
        self.bits = 0
        for _, b in self.levels:
            self.bits |= b
        self._dict = None

    def as_dict(self) -> dict:
        if self._dict is None:
            d = {}
            for dmg, bits in self.levels:
                d.update(dict.fromkeys(squares_of(bits), dmg))
            self._dict = d
        return self._dict

    def __contains__(self, sq) -> bool:
        return isinstance(sq, int) and 0 <= sq < SQUARES and bool(self.bits >> sq & 1)

    def __getitem__(self, sq: int) -> int:
        for dmg, bits in self.levels:
            if bits >> sq & 1:
                return dmg
        raise KeyError(sq)

    def __bool__(self) -> bool:
        return bool(self.bits)

    def __len__(self) -> int:
        return bin(self.bits).count("1")

    def __iter__(self):
        return iter(self.as_dict())

    def keys(self):
        return self.as_dict().keys()

    def items(self):
        return self.as_dict().items()

    def values(self):
        return self.as_dict().values()

    def get(self, sq, default=None):
        return self[sq] if sq in self else default

    def __eq__(self, other) -> bool:
        return self.as_dict() == (other.as_dict() if isinstance(other, Destinations) else other)

    def __repr__(self) -> str:
        return f"Destinations({self.as_dict()!r})"

    def mask_row(self) -> np.ndarray:
        """uint8[400]: 1 on every destination square."""
        raw = np.frombuffer(self.bits.to_bytes(_BYTES, "little"), np.uint8)
        return np.unpackbits(raw, bitorder="little")[:SQUARES]
