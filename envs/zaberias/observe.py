"""Observation builder for Zaberias: one flat float32 vector in [-1, 1], planes over the global
grid (C, H, W) followed by a vector. ``rel k`` = the k-th seat after the observer (own first).

| piece  | index     | content                                                              |
|--------|-----------|----------------------------------------------------------------------|
| board  | 0         | off the map (between boards)                                         |
| board  | 1..7      | water, trees, diagonal road, portal, gold mine, power star, city site |
| board  | 8..11     | city of rel seat 0..3 (value = grade / 3)                            |
| board  | 12..15    | unit of rel seat 0..3 standing here (a Dragon's rider counts too; a   |
|        |           | unit the Teleporter holds in the air is shown only in plane 32+U)     |
| board  | 16        | expected battle strength (dice * 3 + muscle, with auras, stars) / 30  |
| board  | 17, 18    | range / 4, steps / 12                                                 |
| board  | 19, 20    | flying, swimming                                                     |
| board  | 21        | grade / 3                                                            |
| board  | 22..24    | has moved, attacks left / 2, ability used (this turn)                |
| board  | 25, 26    | units held underneath / 3, carries a rider                           |
| board  | 27..30    | effects: loved, dazzled, shocked, glued                              |
| board  | 31..31+U  | roster slot one-hot of the unit (tribes: vector 8..23)               |
| board  | 31+U      | selected unit                                                        |
| board  | 32+U      | pending unit (teleport: the square it was lifted from)                |
| board  | 33+U      | battle target                                                        |
| vector | 0..3      | coins of rel seats / max coins                                       |
| vector | 4..7      | rel seat still in the game                                           |
| vector | 8..23     | tribe one-hot of rel seats (undead humans orcs guardians)            |
| vector | 24..27    | power stars held by rel seats / 4                                    |
| vector | 28..38    | phase one-hot (main unit buy_city teleport rhino ambush tie siphon   |
|        |           | pickup tele_move over); pickup: the Dragon may pick up a wood unit on |
|        |           | its way (MOVE its cell / STOP); tele_move: the Teleporter, holding a  |
|        |           | unit, may walk first (MOVE / STOP)                                   |
| vector | 39..39+U  | own roster: status (0 armory, 0.33 on the map, 0.67 riding, 1 held)  |
| vector | +U        | turns played / cap                                                   |
| vector | +1        | the observer is the seat to act                                      |
| vector | +2, +3    | last battle totals (attacker, defender) / 40                         |
| vector | +4        | Rhino steps left / 8                                                 |
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from . import movement as M
from .board import MINE, PORTAL, SITE, STAR, TREES, VOID, WATER
from .tables import PHASES, TRIBES

if TYPE_CHECKING:   # for the type checker only: game.py and state.py import this module
    from .board import Geometry
    from .game import ZaberiasGame
    from .state import ZaberiasState

_TERRAIN_PLANE = {WATER: 1, TREES: 2, PORTAL: 4, MINE: 5, STAR: 6, SITE: 7}
_STATUS_VALUE = {M.ARMORY: 0.0, M.BOARD: 1 / 3, M.RIDING: 2 / 3, M.HELD: 1.0}
#: phase -> index of the phase one-hot
PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
_PH = len(PHASE_INDEX)


@functools.lru_cache(maxsize=256)
def _static_planes(geo: Geometry) -> np.ndarray:
    """Terrain planes 0..7 of a geometry (memoised per geometry: geometries are immutable;
    read-only)."""
    got = np.zeros((8, geo.N), np.float32)
    for cell in range(geo.N):
        t = geo.terrain[cell]
        if t == VOID:
            got[0, cell] = 1.0
        elif t in _TERRAIN_PLANE:
            got[_TERRAIN_PLANE[t], cell] = 1.0
        if geo.on_road[cell]:
            got[3, cell] = 1.0
    got.flags.writeable = False
    return got


def planes_count(U: int) -> int:
    return 34 + U


def vector_size(U: int) -> int:
    return 28 + _PH + U + 5


def observation_layout(game: ZaberiasGame) -> list[tuple[str, tuple[int, ...]]]:
    return [("board", (planes_count(game.U), game.H, game.W)), ("vector", (vector_size(game.U),))]


class ObservationTables:
    """Per-variant constant arrays for the vectorised builder (built once: ``game.observation_tables``)."""

    def __init__(self, g: ZaberiasGame):
        U, n = g.U, g.num_seats
        NU = n * U
        specs = g.specs
        self.NU = NU
        self.C = planes_count(U)
        self.size = self.C * g.N + vector_size(U)
        owner = np.arange(NU) // U
        self.rel_row = [12 + (owner - seat) % n for seat in range(n)]
        self.slot_row = 31 + np.arange(NU) % U
        self.dice0 = np.array([s.dice for s in specs], np.int64)
        self.muscle0 = np.array([s.muscle for s in specs], np.int64)
        self.steps0 = np.array([s.steps for s in specs], np.int64)
        # feature rows 16..30 of every unit; the static rows (range, flying, swimming, grade)
        # filled once, the others overwritten per call
        self.feats0 = np.zeros((15, NU), np.float64)
        self.feats0[1] = [s.range / 4 for s in specs]
        self.feats0[3] = [s.fly for s in specs]
        self.feats0[4] = [s.swim for s in specs]
        self.feats0[5] = [s.grade / 3 for s in specs]
        self.siphons = [u for u in range(NU) if specs[u].ability in ("vampire", "ninja", "phantom")]
        self.carriers = [u for u in range(NU) if specs[u].ability == "carry"]
        self.tribe_col = [TRIBES.index(t) for t in g.tribes]
        self.no_boost = [(0, 0, 0)] * NU
        self.armor_uid = [g.ability_uid.get((seat, "armor"), -1) for seat in range(n)]
        self.skull_uid = [g.ability_uid.get((seat, "skull"), -1) for seat in range(n)]
        self.templates: dict[Geometry, np.ndarray] = {}

    def template(self, geo: Geometry) -> np.ndarray:
        """A zero observation with the terrain planes of ``geo`` filled in."""
        got = self.templates.get(geo)   # geometries compare by identity
        if got is None:
            got = self.templates[geo] = np.zeros(self.size, np.float32)
            got[:8 * geo.N] = _static_planes(geo).ravel()
        return got


def build_observation(st: ZaberiasState, seat: int) -> np.ndarray:
    """The observation of ``seat`` (vectorised over all units; tables above)."""
    g = st.game
    T = g.observation_tables
    U, N, n, C = g.U, g.N, g.num_seats, T.C
    geo = st.geo
    obs = T.template(geo).copy()
    P = obs[:C * N].reshape(C, N)
    city_owner, city_grade = st.city_owner, st.city_grade
    for s, cell in enumerate(geo.site_cells):
        o = city_owner[s]
        if o >= 0:
            P[8 + (o - seat) % n, cell] = city_grade[s] / 3
    # per-seat aura and star bonuses once (M.own_dice / M.own_muscle recount them per unit)
    occ = st.occ
    stars = [0] * n
    for c in geo.stars:
        o = occ[c]
        if o >= 0:
            stars[o // U] += 1
    status = st.status
    # planes 12..30+U depend only on the units; they are memoised per position and kept
    # across actions that change no unit (select, buy, upgrade: see rules._apply)
    memo = st._memo
    ukey = ("uobs", seat)
    got = memo.get(ukey)
    if got is not None:
        P[12:31 + U] = got
    else:
        _unit_planes(st, seat, P, T, stars)
        memo[ukey] = P[12:31 + U].copy()
    if st.sel >= 0 and M.on_map(st, st.sel) and st.phase != "main":
        P[31 + U, st.cell[st.sel]] = 1.0
    if st.pending_unit >= 0 and M.on_map(st, st.pending_unit):
        P[32 + U, st.cell[st.pending_unit]] = 1.0
    if st.combat is not None:
        P[33 + U, st.combat["target"]] = 1.0
    v = obs[C * N:]
    mc = g.rules["max_coins"]
    coins, alive = st.coins, st.alive
    for rel in range(n):
        s = (seat + rel) % n
        v[rel] = coins[s] / mc
        v[4 + rel] = alive[s]
        v[8 + rel * 4 + T.tribe_col[s]] = 1.0
        v[24 + rel] = min(1.0, stars[s] / 4)
    v[28 + PHASE_INDEX[st.phase]] = 1.0
    k = 28 + _PH
    v[k:k + U] = [_STATUS_VALUE[x] for x in status[seat * U:seat * U + U]]
    k += U
    v[k] = min(1.0, sum(st.turns_taken) / (g.round_cap * n))
    v[k + 1] = float(st.current_player == seat)
    v[k + 2] = min(1.0, st.last_battle[0] / 40)
    v[k + 3] = min(1.0, st.last_battle[1] / 40)
    v[k + 4] = min(1.0, st.rhino_left / 8)
    return obs



def _unit_planes(st: ZaberiasState, seat: int, P: np.ndarray, T: ObservationTables,
                 stars: list[int]) -> None:
    """Unit planes 12..30 and the roster slot planes of ``seat``'s view into ``P``."""
    g = st.game
    U, n, NU = g.U, g.num_seats, T.NU
    specs = g.specs
    status, effects = st.status, st.effects
    stand, riding = [], []
    lifted = st.lifted
    for u, x in enumerate(status):
        if x == M.BOARD:
            if u != lifted:
                stand.append(u)
        elif x == M.RIDING and st.holder[u] != lifted:
            riding.append(u)
    cells = st.cell
    if riding:             # a rider shows in its tribe's plane on the Dragon's cell
        P[T.rel_row[seat][riding], [cells[u] for u in riding]] = 1.0
    if stand:
        s_idx = np.array(stand)
        cs = np.array([cells[u] for u in stand])
        P[T.rel_row[seat][s_idx], cs] = 1.0
        P[T.slot_row[s_idx], cs] = 1.0
        d = T.dice0.copy()
        m = T.muscle0.copy()
        for s in range(n):
            a = T.armor_uid[s]
            if a >= 0 and (status[a] == M.BOARD or status[a] == M.RIDING) \
                    and not effects[a] & M.STUN:
                d[s * U:s * U + U] += 1
            k = T.skull_uid[s]
            bm = stars[s]
            if k >= 0 and (status[k] == M.BOARD or status[k] == M.RIDING) \
                    and not effects[k] & M.STUN:
                bm += 1
            if bm:
                m[s * U:s * U + U] += bm
        stp = T.steps0
        F = T.feats0.copy()
        any_effect = effects.count(0) != NU
        if st.boost != T.no_boost:
            b = np.array(st.boost, np.int64)
            d = d + b[:, 0]
            m = m + b[:, 1]
            stp = stp + b[:, 2]
        else:
            stp = stp.copy()
        held = st.held
        for u in T.siphons:                       # only Siphons hold units
            h = held[u]
            if not h:
                continue
            F[9, u] = min(1.0, len(h) / 3)
            if effects[u] & M.STUN:
                continue
            ab = specs[u].ability
            if ab == "ninja":
                d[u] += len(h)
            elif ab == "vampire":
                m[u] += sum(specs[x].muscle for x in h)
            else:
                stp[u] += sum(specs[x].steps for x in h)
        rider = st.rider
        for u in T.carriers:                      # a Dragon fights with its rider as one
            r = rider[u]
            if r >= 0:
                d[u] += d[r]
                m[u] += m[r]
                F[10, u] = 1.0
        d *= 3
        d += m
        np.minimum(d / 30, 1.0, out=F[0])
        np.minimum(stp / 12, 1.0, out=F[2])
        F[6] = st.moved
        F[7] = st.attacks
        F[7] *= 0.5                               # == attacks / 2 exactly
        np.minimum(F[7], 1.0, out=F[7])
        F[8] = st.ability_used
        if any_effect:
            e = np.array(effects)
            F[11] = (e & M.LOVE) != 0
            F[12] = (e & M.STUN) != 0
            F[13] = (e & M.SHOCK) != 0
            F[14] = (e & M.GLUE) != 0
        P[16:31, cs] = F[:, s_idx]
