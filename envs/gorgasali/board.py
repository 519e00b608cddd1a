"""The Gorgasali map: terrain, zones, chests, gates; neighbours, range, line of sight, movement.

Squares are numbered ``row * 20 + col``. Range is the Chebyshev distance (designed: "next to"
includes the diagonals). Movement is orthogonal.
"""
from __future__ import annotations

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


def destinations(start: int, roll: int, cost_masks: dict, occupied: int, inactive: int,
                 penalty: int, chests: int) -> dict:
    """Squares where a move of exactly ``roll`` movement points may end, with the least zone
    damage over the paths reaching each (bitboards; one layer per points spent).

    Rulebook (Movement): orthogonal steps; a covered square is not crossed again (here: no step
    straight back, and the start square is never a destination; see RULES.md); a move may stop
    early on a chest; it must stop where the points left cannot pay for any next square.
    ``cost_masks[c]``: squares costing c points to enter (others cannot be entered);
    ``occupied``: squares where a move cannot end; ``inactive``: squares in inactive zones
    (``penalty`` health per square entered).
    """
    costs = sorted(cost_masks)
    cmask = [(c, cost_masks[c]) for c in costs]
    enter_le = [0] * (roll + 1)
    for left in range(1, roll + 1):
        m = 0
        for c, bits in cmask:
            if c <= left:
                m |= bits
        enter_le[left] = m
    # layers[u][d]: {squares entered in inactive zones: arrivals moving in direction d}
    layers = [[{}, {}, {}, {}] for _ in range(roll + 1)]
    found: dict[int, int] = {}   # penalty count -> endpoint squares
    start_bit = 1 << start
    not_end = ~(occupied | start_bit)
    if not roll or not any(shift(start_bit, d) & enter_le[roll] for d in range(4)):
        found[0] = start_bit     # the start square: stuck if nothing around can be entered
        layers = layers[:1]
    else:
        for d in range(4):
            t = shift(start_bit, d)
            for c, bits in cmask:
                if c <= roll and t & bits:
                    _add(layers[c][d], t & bits, inactive, 0)
    for u in range(1, len(layers)):
        left = roll - u
        row = layers[u]
        levels = set()
        for d in range(4):
            layer = row[d]
            if not layer:
                continue
            seen = 0
            if left:
                el = enter_le[left]
                can = 0
                back = OPPOSITE[d]
                for nd in range(4):
                    if nd != back:
                        can |= shift(el, OPPOSITE[nd])
                stop = ~can | chests
            else:
                stop = -1
            for p in sorted(layer):
                bits = layer[p] & ~seen
                layer[p] = bits
                seen |= bits
                if not bits:
                    continue
                levels.add(p)
                ends = bits & stop & not_end
                if ends:
                    found[p] = found.get(p, 0) | ends
        if not left:
            continue
        # a shift is linear: move the union of the arrivals allowed to go each way at once
        for p in levels:
            src = [row[d].get(p, 0) for d in range(4)]
            for nd in range(4):
                back = OPPOSITE[nd]
                s = 0
                for d in range(4):
                    if d != back:
                        s |= src[d]
                if not s:
                    continue
                t = shift(s, nd)
                for c, bits in cmask:
                    if c <= left:
                        hit = t & bits
                        if hit:
                            _add(layers[u + c][nd], hit, inactive, p)
    out: dict[int, int] = {}
    for p in sorted(found):
        for sq in bit_squares(found[p]):
            if sq not in out:
                out[sq] = p * penalty
    return out


def _add(layer: dict, bits: int, inactive: int, p: int) -> None:
    hot = bits & inactive
    cold = bits ^ hot
    if cold:
        layer[p] = layer.get(p, 0) | cold
    if hot:
        layer[p + 1] = layer.get(p + 1, 0) | hot
