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
| board  | plane 19       | squares the observer may choose now (SQUARE actions in the mask:   |
|        |                | next steps of the walk, its own square to stop on a chest)         |
| board  | plane 20       | the observer's walk this turn: squares covered (none may be        |
|        |                | crossed again)                                                     |
| vector | 0..9           | phase one-hot (choose start move act loot pull steal bonus trade    |
|        |                | over; none in the reaction window, see 2268)                       |
| vector | 10..13         | round / cap, zones inactive / 4, zone penalty / 20, rounds to the  |
|        |                | next shrink / 5                                                    |
| vector | 14..33         | own turn: dice / 6 (2), points left / 24, skipped last turn, frozen,|
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
| vector | 2266, 2267     | choosing the Teleport landing square; Kruber may return now        |
| vector | 2268           | reaction window: the observer may use its ability or open an extra |
|        |                | chest before the turn of another player (ABILITY, EXTRA_CHEST, or  |
|        |                | END_TURN to pass)                                                  |
| vector | 2269..2278     | acting outside its own turn (reaction, spoils): the turn player    |
|        |                | (rel one-hot)                                                      |
| vector | 2279           | the walk has begun (no skip or movement card any more)             |
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import actions as A
from .board import BLOCK, COL, FOREST, MOUNTAIN, ROW, WATER, Board
from .fields import Banner
from .tables import CardKind, Group, Phase

if TYPE_CHECKING:   # for the type checker only: these modules import this one
    from .game import GorgasaliGame
    from .state import GorgasaliState

PLANES = 21
BOARD_SIZE = PLANES * A.SQUARES
CARD_SLOTS = 40
PHASE_LIST: tuple[Phase, ...] = ("choose", "start", "move", "act", "loot", "pull", "steal", "bonus", "trade", "over")
OPP = 115
OPP_BASE = 671
MATE_BASE = OPP_BASE + 9 * OPP
EXTRA_BASE = MATE_BASE + A.MAT_SIZE * CARD_SLOTS
VECTOR_SIZE = EXTRA_BASE + 14
_PHASE_INDEX = {ph: i for i, ph in enumerate(PHASE_LIST)}
BANNER_PLANE: dict[CardKind, int] = {"barrier": 10, "ball": 11, "tree": 12, "field": 13, "smoke": 14}
GROUP_INDEX: dict[Group, int] = {"six_shooter": 0, "striker": 1, "massive": 2, "scout": 3}


def observation_layout() -> list[tuple[str, tuple[int, ...]]]:
    return [("board", (PLANES, A.SIZE, A.SIZE)), ("vector", (VECTOR_SIZE,))]


#: id(board) -> (board, templates): see ``_static_planes``
_STATIC: dict[int, tuple[Board, list[np.ndarray]]] = {}


def _static_planes(board: Board) -> tuple[Board, list[np.ndarray]]:
    """(board, templates): ``templates[k]`` is a whole observation (board planes 0..9 filled,
    the rest zero) for ``k`` zones out; an observation starts as a copy of one (one memcpy)."""
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
        templates = []
        for out in range(5):
            obs = np.zeros(BOARD_SIZE + VECTOR_SIZE, np.float32)
            planes = obs[:BOARD_SIZE].reshape(PLANES, A.SQUARES)
            planes[:8] = p
            if out:
                planes[8] = zone <= out
            if out < 4:
                planes[9] = zone == out + 1
            templates.append(obs)
        _STATIC[key] = (board, templates)   # keep the board alive so that id() stays unique
    return _STATIC[key]


class ObservationTables:
    """What one variant's observations share: per card id (index -1, i.e. the last entry, stands
    for an empty position) armour value, is a weapon, is a support card, is present (plain lists:
    fast to index); and a bounded memo of opponent rows (values depend on the key alone)."""

    def __init__(self, game: GorgasaliGame):
        cards = game.cards
        armour = [c.value if c.category == "armour" else 0 for c in cards] + [0]
        weapon = [1 if c.category == "weapon" else 0 for c in cards] + [0]
        support = [0 if c.category == "weapon" else 1 for c in cards] + [0]
        present = [1] * len(cards) + [0]
        self.cards = (armour, weapon, support, present)
        self.opponent_rows: dict[tuple, np.ndarray] = {}


def _chest_squares(state: GorgasaliState) -> np.ndarray:
    """The unopened chests as a float32[400] plane, cached on the state while its chest set is the
    same object with the same size (chests are only ever removed)."""
    cache = state._chest_cache
    chests = state.chests
    if cache is None or cache[0] is not chests or cache[1] != len(chests):
        plane = np.zeros(A.SQUARES, np.float32)
        plane[np.fromiter(chests, np.intp, len(chests))] = 1.0
        cache = state._chest_cache = (chests, len(chests), plane)
    return cache[2]


def build_observation(state: GorgasaliState, seat: int) -> np.ndarray:
    """The observation of ``seat``. During a walk (after its first step) only the walker's
    square and health, its choices, its path, the points left and the other figures' relative
    positions change from one step to the next: the walker's observation is then a copy of one
    built earlier in the same walk with those entries rewritten (``_walk_base``)."""
    if state.phase == "move" and seat == state.cur and len(state.path) > 1:
        wc = state._walk_obs
        if wc is not None and wc[0] is state._walk_ctx and wc[1] == seat:
            return _walk_patch(state, seat, wc[2])
        obs = _build_full(state, seat)
        state._walk_obs = (state._walk_ctx, seat, _walk_base(state, seat, obs))
        return obs
    return _build_full(state, seat)


def _walk_base(state: GorgasaliState, seat: int, obs: np.ndarray) -> np.ndarray:
    """``obs`` with the entries a walk step changes set to zero."""
    base = obs.copy()
    planes = base[:BOARD_SIZE].reshape(PLANES, A.SQUARES)
    planes[15, state.pos[seat]] = 0.0
    planes[19] = 0.0
    planes[20] = 0.0
    v = base[BOARD_SIZE:]
    v[16] = v[34] = v[EXTRA_BASE + 13] = 0.0
    n = state.game.num_seats
    for rel in range(1, n):
        o = OPP_BASE + (rel - 1) * OPP
        v[o + 3:o + 6] = 0.0
    return base


def _walk_patch(state: GorgasaliState, seat: int, base: np.ndarray) -> np.ndarray:
    """The walker's observation: ``base`` plus this step's entries (as ``_build_full`` writes
    them)."""
    obs = base.copy()
    planes = obs[:BOARD_SIZE].reshape(PLANES, A.SQUARES)
    pos = state.pos[seat]
    hp = state.health[seat] / 100
    planes[15, pos] = hp
    planes[19] = state.legal_actions_mask()[:A.SQUARES]
    planes[20, list(state.path)] = 1.0
    v = obs[BOARD_SIZE:]
    v[16] = min(1.0, state.walk_left / 24)
    v[34] = hp
    v[EXTRA_BASE + 13] = 1.0
    _relative_positions(state, seat, v)
    return obs


def _build_full(state: GorgasaliState, seat: int) -> np.ndarray:
    g = state.game
    n = g.num_seats
    obs = _static_planes(g.board)[1][min(state.zones_out, 4)].copy()
    planes = obs[:BOARD_SIZE].reshape(PLANES, A.SQUARES)
    if state.chests:
        planes[5] = _chest_squares(state)
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
    # the vector head (entries 0..57) as a Python list written in one go, and the scattered
    # one-hots collected as indices for one fancy-index write (numpy scalar writes are slow)
    h = [0.0] * 58
    # the Teleport landing is part of the movement: phase "move" plus its own flag
    if state.phase != "react":
        h[_PHASE_INDEX.get(state.phase, 2)] = 1.0
    h[10] = min(1.0, state.round / r["max_rounds"])
    h[11] = state.zones_out / 4
    h[12] = min(1.0, state.zone_penalty() / 20)
    h[13] = min(1.0, (r["zone_interval"] - (state.round - 1) % r["zone_interval"]) / 5)
    ones = [58 + p * CARD_SLOTS + cid for p, cid in enumerate(state.mat[seat]) if cid >= 0]
    own = mine and state.turn_seat == seat
    if own:
        h[14] = state.dice[0] / 6
        h[15] = state.dice[1] / 6
        h[16] = min(1.0, state.walk_left / 24)
        h[20:27] = (state.used_consumable, state.used_throwable, state.used_defensive,
                    state.used_extra_chest, state.main_done, state.revived, state.bonus_move)
        if state.extension is not None:
            group = state.extension.group
            assert group, "an extension names a weapon group (tables._cards)"
            h[27 + GROUP_INDEX[group]] = 1.0
        if state.cross:
            for i, k in enumerate(("cross_forest", "cross_water", "cross_mountain")):
                h[31 + i] = k in state.cross
        if state.phase == "teleport":
            ones.append(EXTRA_BASE)
        if state.can_return(seat):
            ones.append(EXTRA_BASE + 1)
        if state.phase == "move" and len(state.path) > 1:
            planes[20, list(state.path)] = 1.0
            ones.append(EXTRA_BASE + 13)
    if mine:
        if state.loot:
            ones.append(620 + state.loot[0][1])
            v[660] = min(1.0, len(state.loot) / 5)
        if state.phase in ("pull", "steal"):
            ones.append(661 + (state.pending_target - seat) % n)
        if not own:
            if state.phase == "react":
                ones.append(EXTRA_BASE + 2)
            ones.append(EXTRA_BASE + 3 + (state.turn_seat - seat) % n)
    h[17] = state.skipped_last[seat]
    h[18] = state.frozen[seat]
    h[19] = min(1, state.burned[seat])
    h[34] = state.health[seat] / 100
    h[35] = min(1.0, state.extra_chests[seat] / 5)
    h[36] = min(1.0, state.cooldown[seat] / 5)
    if state.char[seat] >= 0:
        h[37 + state.char[seat]] = 1.0
    if state.held[seat] >= 0:
        h[47 + state.held[seat]] = 1.0
    h[57] = min(1.0, state.held_cd[seat] / 5)
    v[:58] = h
    loaded = state.loaded[seat]
    if loaded[0]:
        ones.append(618)
    if loaded[1]:
        ones.append(619)
    if g.team_size > 1:
        ones += [MATE_BASE + p * CARD_SLOTS + cid
                 for p, cid in enumerate(state.mat[state.teammate(seat)]) if cid >= 0]
    if ones:
        v[ones] = 1.0
    tables = g.observation_tables.cards
    banner_sq = {sq: b for b in reversed(state.banners) for sq in b[1]} if state.banners else None
    # opponent rows, cached per game on everything they read but the positions; the relative
    # positions (entries 3..5 of each row) are written afterwards in one go
    cache = g.observation_tables.opponent_rows
    if len(cache) > 2048:
        cache.clear()
    o = OPP_BASE
    for rel in range(1, n):
        t = (seat + rel) % n
        alive = state.alive[t]
        bn = banner_sq.get(state.pos[t]) if alive and banner_sq is not None else None
        key = (seat, t, alive, state.health[t], state.char[t], state.cooldown[t],
               state.frozen[t], state.frozen_by[t], state.burned[t], state.extra_chests[t],
               tuple(state.mat[t]), state.loaded[t][0], state.loaded[t][1],
               None if bn is None else (bn[0], bn[2]), state.skipped_last[t])
        row = cache.get(key)
        if row is None:
            row = cache[key] = np.array(_opponent(state, seat, t, tables, banner_sq), np.float32)
        v[o:o + OPP] = row
        o += OPP
    _relative_positions(state, seat, v)
    return obs


def _relative_positions(state: GorgasaliState, seat: int, v: np.ndarray) -> None:
    """Entries 3..5 of every living opponent's row: row and column offsets and range / 19."""
    pos = state.pos[seat]
    if pos < 0:
        return
    n = state.game.num_seats
    r0, c0 = ROW[pos], COL[pos]
    idx: list[int] = []
    vals: list[float] = []
    for rel in range(1, n):
        t = (seat + rel) % n
        if state.alive[t]:
            dr = ROW[state.pos[t]] - r0
            dc = COL[state.pos[t]] - c0
            o = OPP_BASE + (rel - 1) * OPP + 3
            idx += (o, o + 1, o + 2)
            vals += (dr / 19, dc / 19, max(abs(dr), abs(dc)) / 19)
    if idx:
        v[idx] = vals


def _mat(v: np.ndarray, base: int, mat: list[int]) -> None:
    idx = [base + p * CARD_SLOTS + cid for p, cid in enumerate(mat) if cid >= 0]
    if idx:
        v[idx] = 1.0


def _opponent(state: GorgasaliState, seat: int, t: int, tables: tuple[list[int], ...],
              banner_sq: dict[int, Banner] | None) -> list[float]:
    """Seat ``t``'s row as seen by ``seat`` but the relative position, as a Python list (numpy
    scalar writes are slow); the caller caches it as an array."""
    g = state.game
    armour, weapon, support, present = tables
    row = [0.0] * OPP
    alive = state.alive[t]
    row[0] = alive
    row[1] = state.health[t] / 100
    row[2] = g.team[t] == g.team[seat]
    # entries 3..5 (relative position): _relative_positions
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
    m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13 = mat[2:14]
    row[o] = min(1.0, (armour[m2] + armour[m3]) / 40)
    row[o + 1] = (present[m4] + present[m5] + present[m6]) / 3
    row[o + 2] = (present[m7] + present[m8]) / 3
    row[o + 3] = (present[m9] + present[m10]) / 3
    row[o + 4] = (weapon[m11] + weapon[m12] + weapon[m13]) / 3
    row[o + 5] = (support[m11] + support[m12] + support[m13]) / 3
    if alive and banner_sq is not None:
        bn = banner_sq.get(state.pos[t])
        if bn is not None:
            kind = bn[0]
            row[o + 6] = kind == "smoke" and bn[2] == t
            row[o + 7] = kind == "tree"
            row[o + 8] = kind == "field"
    row[o + 9] = state.skipped_last[t]
    return row
