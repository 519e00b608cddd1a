"""Observation builder for Zaberias: one flat float32 vector in [-1, 1], planes over the global
grid (C, H, W) followed by a vector. ``rel k`` = the k-th seat after the observer (own first).

| piece  | index     | content                                                              |
|--------|-----------|----------------------------------------------------------------------|
| board  | 0         | off the map (between boards)                                         |
| board  | 1..7      | water, trees, diagonal road, portal, gold mine, power star, city site |
| board  | 8..11     | city of rel seat 0..3 (value = grade / 3)                            |
| board  | 12..15    | unit of rel seat 0..3 standing here (a Dragon's rider counts too)    |
| board  | 16        | expected battle strength (dice * 3 + muscle, with auras, stars) / 30  |
| board  | 17, 18    | range / 4, steps / 12                                                 |
| board  | 19, 20    | flying, swimming                                                     |
| board  | 21        | grade / 3                                                            |
| board  | 22..24    | has moved, attacks left / 2, ability used (this turn)                |
| board  | 25, 26    | units held underneath / 3, carries a rider                           |
| board  | 27..30    | effects: loved, dazzled, shocked, glued                              |
| board  | 31..31+U  | roster slot one-hot of the unit (tribes: vector 8..23)               |
| board  | 31+U      | selected unit                                                        |
| board  | 32+U      | pending unit (creation, teleport)                                    |
| board  | 33+U      | battle target                                                        |
| vector | 0..3      | coins of rel seats / max coins                                       |
| vector | 4..7      | rel seat still in the game                                           |
| vector | 8..23     | tribe one-hot of rel seats (undead humans orcs guardians)            |
| vector | 24..27    | power stars held by rel seats / 4                                    |
| vector | 28..36    | phase one-hot (main unit buy_city teleport rhino ambush tie siphon   |
|        |           | over)                                                                |
| vector | 37..37+U  | own roster: status (0 armory, 0.33 on the map, 0.67 riding, 1 held)  |
| vector | +U        | turns played / cap                                                   |
| vector | +1        | the observer is the seat to act                                      |
| vector | +2, +3    | last battle totals (attacker, defender) / 40                         |
| vector | +4        | Rhino steps left / 8                                                 |
"""
from __future__ import annotations

import numpy as np

from envs.zaberias import movement as M
from envs.zaberias.board import MINE, PORTAL, SITE, STAR, TREES, VOID, WATER
from envs.zaberias.config import TRIBES

_TERRAIN_PLANE = {WATER: 1, TREES: 2, PORTAL: 4, MINE: 5, STAR: 6, SITE: 7}
_STATUS_VALUE = {M.ARMORY: 0.0, M.BOARD: 1 / 3, M.RIDING: 2 / 3, M.HELD: 1.0}


def _static_planes(geo) -> np.ndarray:
    """Terrain planes 0..7 of a geometry (cached on it: geometries are immutable)."""
    got = getattr(geo, "_obs_static", None)
    if got is None:
        got = np.zeros((8, geo.N), np.float32)
        for cell in range(geo.N):
            t = geo.terrain[cell]
            if t == VOID:
                got[0, cell] = 1.0
            elif t in _TERRAIN_PLANE:
                got[_TERRAIN_PLANE[t], cell] = 1.0
            if geo.on_road[cell]:
                got[3, cell] = 1.0
        geo._obs_static = got
    return got


def planes_count(U: int) -> int:
    return 34 + U


def vector_size(U: int) -> int:
    return 37 + U + 5


def observation_layout(game) -> list:
    return [("board", (planes_count(game.U), game.H, game.W)), ("vector", (vector_size(game.U),))]


def build_observation(st, seat: int) -> np.ndarray:
    g = st.game
    U, N, n = g.U, g.N, g.num_seats
    C = planes_count(U)
    obs = np.zeros(C * N + vector_size(U), np.float32)
    P = obs[:C * N].reshape(C, N)
    geo = st.geo
    P[:8] = _static_planes(geo)
    for s, cell in enumerate(geo.site_cells):
        o = st.city_owner[s]
        if o >= 0:
            P[8 + (o - seat) % n, cell] = st.city_grade[s] / 3
    # Per-seat aura and star bonuses once (M.dice / M.muscle would recount them per unit), then
    # the unit features gathered into index lists and written with one numpy assignment each.
    armor = [M.aura(st, s, "armor") for s in range(n)]
    skull = [M.aura(st, s, "skull") for s in range(n)]
    stars = [M.stars_held(st, s) for s in range(n)]
    specs, status, effects, boost, held = g.specs, st.status, st.effects, st.boost, st.held
    moved, attacks, ability_used, cell_of, rider = (st.moved, st.attacks, st.ability_used,
                                                    st.cell, st.rider)

    def own_dice(u):      # == M.own_dice
        d = specs[u].dice + armor[u // U] + boost[u][0]
        if specs[u].ability == "ninja" and not effects[u] & M.STUN:
            d += len(held[u])
        return d

    def own_muscle(u):    # == M.own_muscle
        m = specs[u].muscle + stars[u // U] + skull[u // U] + boost[u][1]
        if specs[u].ability == "vampire" and not effects[u] & M.STUN:
            m += sum(specs[h].muscle for h in held[u])
        return m

    on_rows, on_cells = [], []
    cells, feats = [], []
    for u in range(n * U):
        su = status[u]
        if su != M.BOARD and su != M.RIDING:      # == not M.on_map
            continue
        cell = cell_of[u]
        on_rows.append(12 + (u // U - seat) % n)
        on_cells.append(cell)
        if su == M.RIDING:
            continue            # the Dragon's cell shows the Dragon; its rider is in plane 26
        spec = specs[u]
        d, m = own_dice(u), own_muscle(u)
        r = rider[u]
        if r >= 0:
            d += own_dice(r)
            m += own_muscle(r)
        e = effects[u]
        cells.append(cell)
        # planes 16..30 in order
        steps = spec.steps + boost[u][2]       # == M.steps
        if spec.ability == "phantom" and not e & M.STUN:
            steps += sum(specs[h].steps for h in held[u])
        feats.append((min(1.0, (d * 3 + m) / 30), spec.range / 4,
                      min(1.0, steps / 12), spec.fly, spec.swim, spec.grade / 3,
                      moved[u], min(1.0, attacks[u] / 2), ability_used[u],
                      min(1.0, len(held[u]) / 3), r >= 0, bool(e & M.LOVE), bool(e & M.STUN),
                      bool(e & M.SHOCK), bool(e & M.GLUE)))
        on_rows.append(31 + u % U)
        on_cells.append(cell)
    if on_rows:
        P[on_rows, on_cells] = 1.0
    if cells:
        P[16:31, cells] = np.array(feats, np.float64).T
    if st.sel >= 0 and M.on_map(st, st.sel) and st.phase != "main":
        P[31 + U, st.cell[st.sel]] = 1.0
    if st.pending_unit >= 0 and M.on_map(st, st.pending_unit):
        P[32 + U, st.cell[st.pending_unit]] = 1.0
    if st.combat is not None:
        P[33 + U, st.combat["target"]] = 1.0
    v = obs[C * N:]
    mc = g.rules["max_coins"]
    for rel in range(n):
        s = (seat + rel) % n
        v[rel] = st.coins[s] / mc
        v[4 + rel] = st.alive[s]
        v[8 + rel * 4 + TRIBES.index(g.tribes[s])] = 1.0
        v[24 + rel] = min(1.0, stars[s] / 4)
    from envs.zaberias.rules import PHASES
    v[28 + PHASES.index(st.phase)] = 1.0
    for slot in range(U):
        v[37 + slot] = _STATUS_VALUE[st.status[seat * U + slot]]
    k = 37 + U
    v[k] = min(1.0, sum(st.turns_taken) / (g.rules["max_rounds"] * n))
    v[k + 1] = float(st.current_player == seat)
    v[k + 2] = min(1.0, st.last_battle[0] / 40)
    v[k + 3] = min(1.0, st.last_battle[1] / 40)
    v[k + 4] = min(1.0, st.rhino_left / 8)
    return obs
