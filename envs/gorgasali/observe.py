"""Observation builder for Gorgasali: one flat float32 vector in [-1, 1].

The first ``20 * 20 * 20`` entries are map planes (C, H, W), then a vector. Seats are relative to
the observer (``rel 0`` = the observer, ``rel k`` = the k-th seat after it). Card one-hots use the
card design index (``game.cards``, at most 40 designs). Opponents' face-down weapons and backpack
cards are hidden (only "a weapon / a support card is there"); teammates (duo) see each other's
mats.

| piece  | index          | content                                                            |
|--------|----------------|--------------------------------------------------------------------|
| board  | plane 0..3     | blocking area, water, forest, mountain                             |
| board  | plane 4..6     | healing square, unopened chest, start-sector gate                  |
| board  | plane 7        | zone order (zone / 4: 0.25 goes inactive first)                    |
| board  | plane 8, 9     | inactive now; the next zone to go inactive                         |
| board  | plane 10..14   | banners Barrier, Ball Lightning, Tree Platform, Magic Field, Smoke |
|        |                | (+1 own team's, -1 an enemy's)                                     |
| board  | plane 15       | the observer (health / 100)                                        |
| board  | plane 16       | teammate (health / 100)                                            |
| board  | plane 17       | enemies (health / 100)                                             |
| board  | plane 18       | fallen teammate's banner (duo revive)                              |
| board  | plane 19       | squares the observer may choose now (SQUARE actions in the mask)   |
| vector | 0..9           | phase one-hot (choose start move act loot pull steal bonus trade    |
|        |                | over)                                                              |
| vector | 10..13         | round / cap, zones inactive / 4, zone penalty / 20, rounds to the  |
|        |                | next shrink / 5                                                    |
| vector | 14..33         | own turn: dice / 6 (2), move points / 24, skipped last turn, frozen,|
|        |                | burned, consumable / throwable / defensive / extra chest used, main |
|        |                | action done, revived, bonus move pending, pending extension group  |
|        |                | (4), crossing cards in use (forest, water, mountain)               |
| vector | 34..57         | own health, extra chests / 5, cooldown / 5, character one-hot (10),|
|        |                | Octor's copied ability one-hot (10), its cooldown / 5              |
| vector | 58..617        | own mat: 14 positions x 40 card designs                            |
| vector | 618, 619       | own weapons loaded                                                 |
| vector | 620..660       | card waiting for a slot (40), cards waiting / 5                    |
| vector | 661..670       | pending target of Ebue / Varas (rel one-hot)                       |
| vector | 671..1705      | rel seats 1..9, 115 each: alive, health, teammate, d_row, d_col,   |
|        |                | range / 19, character (10), cooldown / 5, frozen, frozen by the    |
|        |                | observer, burned, extra chests / 5, weapon slots 2 x (40 design +  |
|        |                | face down + empty), armour points / 40, consumable / throwable /   |
|        |                | defensive counts / 3, backpack weapons / supports / 3, on smoke /  |
|        |                | tree / field, skipped last turn                                    |
| vector | 1706..2265     | teammate's mat (duo): 14 positions x 40 card designs               |
"""
from __future__ import annotations

import numpy as np

from envs.gorgasali import actions as A
from envs.gorgasali.board import BLOCK, FOREST, MOUNTAIN, ROW, COL, WATER

PLANES = 20
BOARD_SIZE = PLANES * A.SQUARES
CARD_SLOTS = 40
PHASE_LIST = ("choose", "start", "move", "act", "loot", "pull", "steal", "bonus", "trade", "over")
OPP = 115
OPP_BASE = 671
MATE_BASE = OPP_BASE + 9 * OPP
VECTOR_SIZE = MATE_BASE + A.MAT_SIZE * CARD_SLOTS
BANNER_PLANE = {"barrier": 10, "ball": 11, "tree": 12, "field": 13, "smoke": 14}
GROUP_INDEX = {"six_shooter": 0, "striker": 1, "massive": 2, "scout": 3}


def observation_layout():
    return [("board", (PLANES, A.SIZE, A.SIZE)), ("vector", (VECTOR_SIZE,))]


_STATIC: dict = {}


def _static_planes(board) -> np.ndarray:
    key = id(board)
    if key not in _STATIC:
        p = np.zeros((8, A.SQUARES), np.float32)
        t = np.array(board.terrain)
        p[0] = t == BLOCK
        p[1] = t == WATER
        p[2] = t == FOREST
        p[3] = t == MOUNTAIN
        p[4, list(board.healing)] = 1.0
        p[6, list(board.gates)] = 1.0
        p[7] = np.array(board.zone, np.float32) / 4
        zone = np.array(board.zone)
        # planes 8 and 9 depend only on how many zones are out (0..4): precompute all five
        zplanes = []
        for out in range(5):
            z = np.zeros((2, A.SQUARES), np.float32)
            if out:
                z[0] = zone <= out
            if out < 4:
                z[1] = zone == out + 1
            zplanes.append(z)
        _STATIC[key] = (board, p, zplanes)   # keep the board alive so that id() stays unique
    return _STATIC[key]


def build_observation(state, seat: int) -> np.ndarray:
    g = state.game
    n = g.num_seats
    obs = np.zeros(BOARD_SIZE + VECTOR_SIZE, np.float32)
    planes = obs[:BOARD_SIZE].reshape(PLANES, A.SQUARES)
    _, static, zplanes = _static_planes(g.board)
    planes[:8] = static
    if state.chests:
        planes[5, list(state.chests)] = 1.0
    planes[8:10] = zplanes[min(state.zones_out, 4)]
    my_team = g.team[seat]
    for kind, squares, owner, _ in state.banners:
        planes[BANNER_PLANE[kind], list(squares)] = 1.0 if g.team[owner] == my_team else -1.0
    for t in range(n):
        if state.alive[t]:
            plane = 15 if t == seat else (16 if g.team[t] == my_team else 17)
            planes[plane, state.pos[t]] = state.health[t] / 100
        elif g.team[t] == my_team and state.fallen_at[t] >= 0:
            planes[18, state.fallen_at[t]] = 1.0
    mine = seat == state.current_player
    if mine:
        mask = state.legal_actions_mask()
        planes[19] = mask[:A.SQUARES]
    v = obs[BOARD_SIZE:]
    r = g.rules
    v[PHASE_LIST.index(state.phase)] = 1.0
    v[10] = min(1.0, state.round / r["max_rounds"])
    v[11] = state.zones_out / 4
    v[12] = min(1.0, state.zone_penalty() / 20)
    v[13] = min(1.0, (r["zone_interval"] - (state.round - 1) % r["zone_interval"]) / 5)
    if mine:
        v[14] = state.dice[0] / 6
        v[15] = state.dice[1] / 6
        v[16] = min(1.0, state.move_points / 24)
        v[20:27] = (state.used_consumable, state.used_throwable, state.used_defensive,
                    state.used_extra_chest, state.main_done, state.revived, state.bonus_move)
        if state.extension is not None:
            v[27 + GROUP_INDEX[state.extension.group]] = 1.0
        for i, k in enumerate(("cross_forest", "cross_water", "cross_mountain")):
            v[31 + i] = k in state.cross
        if state.loot:
            v[620 + state.loot[0]] = 1.0
            v[660] = min(1.0, len(state.loot) / 5)
        if state.phase in ("pull", "steal"):
            v[661 + (state.pending_target - seat) % n] = 1.0
    v[17] = state.skipped_last[seat]
    v[18] = state.frozen[seat]
    v[19] = min(1, state.burned[seat])
    v[34] = state.health[seat] / 100
    v[35] = min(1.0, state.extra_chests[seat] / 5)
    v[36] = min(1.0, state.cooldown[seat] / 5)
    if state.char[seat] >= 0:
        v[37 + state.char[seat]] = 1.0
    if state.held[seat] >= 0:
        v[47 + state.held[seat]] = 1.0
    v[57] = min(1.0, state.held_cd[seat] / 5)
    _mat(v, 58, state.mat[seat])
    v[618:620] = state.loaded[seat]
    for rel in range(1, n):
        t = (seat + rel) % n
        _opponent(v, OPP_BASE + (rel - 1) * OPP, state, seat, t)
    if g.team_size > 1:
        _mat(v, MATE_BASE, state.mat[state.teammate(seat)])
    return obs


def _mat(v, base: int, mat) -> None:
    for p, cid in enumerate(mat):
        if cid >= 0:
            v[base + p * CARD_SLOTS + cid] = 1.0


def _opponent(v, b: int, state, seat: int, t: int) -> None:
    # filled as a Python list and written with one slice assignment (numpy scalar writes are slow)
    g = state.game
    cards = g.cards
    row = [0.0] * OPP
    alive = state.alive[t]
    row[0] = alive
    row[1] = state.health[t] / 100
    row[2] = g.team[t] == g.team[seat]
    if alive and state.pos[seat] >= 0:
        dr = ROW[state.pos[t]] - ROW[state.pos[seat]]
        dc = COL[state.pos[t]] - COL[state.pos[seat]]
        row[3] = dr / 19
        row[4] = dc / 19
        row[5] = max(abs(dr), abs(dc)) / 19
    if state.char[t] >= 0:
        row[6 + state.char[t]] = 1.0
    row[16] = min(1.0, state.cooldown[t] / 5)
    row[17] = state.frozen[t]
    row[18] = state.frozen_by[t] == seat and state.frozen[t]
    row[19] = min(1, state.burned[t])
    row[20] = min(1.0, state.extra_chests[t] / 5)
    sees = state._sees_all(seat, t)
    mat = state.mat[t]
    loaded = state.loaded[t]
    for i, p in enumerate(A.WEAPON_POS):
        base = 21 + i * (CARD_SLOTS + 2)
        cid = mat[p]
        if cid < 0:
            row[base + CARD_SLOTS + 1] = 1.0
        elif loaded[p] or sees:
            row[base + cid] = 1.0
            row[base + CARD_SLOTS] = not loaded[p]
        else:
            row[base + CARD_SLOTS] = 1.0
    o = 21 + 2 * (CARD_SLOTS + 2)   # 105
    row[o] = min(1.0, sum(cards[mat[p]].value for p in A.ARMOUR_POS if mat[p] >= 0) / 40)
    row[o + 1] = sum(mat[p] >= 0 for p in A.CONSUMABLE_POS) / 3
    row[o + 2] = sum(mat[p] >= 0 for p in A.THROWABLE_POS) / 3
    row[o + 3] = sum(mat[p] >= 0 for p in A.DEFENSIVE_POS) / 3
    row[o + 4] = sum(mat[p] >= 0 and cards[mat[p]].category == "weapon"
                     for p in A.BACKPACK_POS) / 3
    row[o + 5] = sum(mat[p] >= 0 and cards[mat[p]].category != "weapon"
                     for p in A.BACKPACK_POS) / 3
    if alive:
        row[o + 6] = state.standing_on(t, "smoke")
        row[o + 7] = state.standing_on(t, "tree")
        row[o + 8] = state.standing_on(t, "field")
    row[o + 9] = state.skipped_last[t]
    v[b:b + OPP] = row
