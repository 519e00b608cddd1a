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
    for u in range(n * U):
        if not M.on_map(st, u):
            continue
        cell = st.cell[u]
        rel = (u // U - seat) % n
        P[12 + rel, cell] = 1.0
        if st.status[u] == M.RIDING:
            continue            # the Dragon's cell shows the Dragon; its rider is in plane 26
        spec = g.specs[u]
        P[16, cell] = min(1.0, (M.dice(st, u) * 3 + M.muscle(st, u)) / 30)
        P[17, cell] = spec.range / 4
        P[18, cell] = min(1.0, M.steps(st, u) / 12)
        P[19, cell] = spec.fly
        P[20, cell] = spec.swim
        P[21, cell] = spec.grade / 3
        P[22, cell] = st.moved[u]
        P[23, cell] = min(1.0, st.attacks[u] / 2)
        P[24, cell] = st.ability_used[u]
        P[25, cell] = len(st.held[u]) / 3
        P[26, cell] = st.rider[u] >= 0
        e = st.effects[u]
        P[27, cell] = bool(e & M.LOVE)
        P[28, cell] = bool(e & M.STUN)
        P[29, cell] = bool(e & M.SHOCK)
        P[30, cell] = bool(e & M.GLUE)
        P[31 + u % U, cell] = 1.0
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
        v[24 + rel] = min(1.0, M.stars_held(st, s) / 4)
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
