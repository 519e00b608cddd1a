"""Warbah observations (observer-relative, hidden information excluded); the renders are in render.py.

Board planes (17, H, W): 0 land, 1 explored, 2 terrain code/7, 3 settlement code/7, 4 owned by
me, 5 owned by another (relative seat/N), 6 my heroes, 7 other heroes (chits are public; their
index cards are not), 8 encounter chit, 9 my garrison/20, 10 other garrison/20 (chits are public),
11 wall ranks now/8, 12 the hero now acting (or capitol candidates in set-up), 13-15 river on the
E, NE, NW edge, 16 terrain variant code/number of variants (explored hexes; chits are public).
Vector (48): 0-6 phase one-hot, 7 turn/cap, 8 my gold/50, 9-12 acting hero's troops/40,
13 its MP/8, 14 its XP/2, 15-31 its abilities (count/3), 32-35 alive (relative seats),
36-39 settlements/20 (relative seats), 40-44 my battle side counts/40, 45-47 foe side: troops/40,
hero present, monster hits/10 (troops fighting are seen on the battlefield).
Block B section (after the base): planes (7, H, W) and vector (76) from block_b.observe_b: fleets,
espionage targets, enemy index cards seen this turn, heroes at sea; espionage/sea sub-step state.
Block A section (appended after block B): magic vector (266) from spells.observe: 0-3 magic
phase one-hot (realm, realm_target, spell, spell_target), 4-10 realm window (discard, collect,
recruit, espionage, move, disaster, recovery), 11 pending realm spell (id+1)/26, 12 pending battle
spell (id+1)/42, 13-38 my realm hand (count/2), 39-64 my heroes' realm-spell items, 65-106 my
battle hand (in battle), 107-148 my heroes' battle-spell items, 149 my wizards/4, 150 acting
hero has a wizard, 151 its items/4, 152-154 opponents' realm hand sizes/4 (relative seats),
155 foe battle hand size/6, 156 foe has a wizard, 157/158 me/foe spellbound, 159 enemy spell
just cast this round (id+1)/42 (Dispell), 160/161 me/foe Resist Spells left/2, 162/163 realm /
battle deck size, 164 my realm hand limit (towers + temples, set in the Realm phase)/5,
165 my realm hand size/4, 166 Scry active, 167-260 (Scry only) next
5 realm cards, next 5 battle cards, opponents' realm hands; 261-264 a Luck decision of mine on a
spell / agent / initiative roll (luck.py): 261 flag, 262 kind (realm spell, battle spell,
agent success, agent amount, initiative: (i+1)/5), 263 the roll is my own, 264 value / highest possible; 265 I decide
whether to cast Fortell against an espionage result ((espionage.STAGES index + 1)/14).
"""
from __future__ import annotations

import numpy as np

from ..core.accel import KERNELS
from .config import ABILITIES, SETTLEMENTS, TERRAINS
from .block_b import PLANES_B, VECTOR_B, observe_b
from .sea import fleet_cells
from .rules import PHASES
from .spells import observe as observe_magic

VECTOR = 48

try:  # numpy's C function behind np.count_nonzero(a) (no Python-level wrapper per call)
    from numpy._core.multiarray import count_nonzero as _count_nonzero
except ImportError:  # pragma: no cover - other numpy layouts
    _count_nonzero = np.count_nonzero


def _river_cache(st):
    """(river planes (3, n) for the E/NE/NW edges, bool per cell: a river runs on one of its
    edges), recomputed only when ``st.rivers`` differs from the set it was built from."""
    c = getattr(st, "_obs_rivers", None)
    if c is None or c[0] != st.rivers:
        n = st.game.n_cells
        planes = np.zeros((3, n), np.float32)
        adj = np.zeros(n, bool)
        for (a, b) in st.rivers:
            for x, m in ((a, b), (b, a)):
                adj[x] = True
                d = st.nbl[x].index(m)  # neighbour lists (block_b.init)
                if d < 3:
                    planes[d, x] = 1
        c = st._obs_rivers = (set(st.rivers), planes, adj)
    return c[1], c[2]


def _wall_tables(g):
    """Base walls by terrain code and by settlement code (cached on the Game)."""
    t = getattr(g, "_obs_wall_tables", None)
    if t is None:
        tw = np.array([0 if name == "settlement" else g.terrain[name]["walls"]
                       for name in TERRAINS])
        sw = np.array([g.settle[name]["walls"] for name in SETTLEMENTS])
        t = g._obs_wall_tables = (tw, sw)
    return t


def _walls_here(st, cells: np.ndarray) -> np.ndarray:
    """Vectorised ``st.walls(c, c)`` for the given cells (same result as the scalar method)."""
    tw, sw = _wall_tables(st.game)
    t = st.terrain[cells]
    base = np.where(t >= 0, tw[np.maximum(t, 0)], 0)
    is_set = t == TERRAINS.index("settlement")
    base = np.where(is_set, sw[np.maximum(st.settle[cells], 0)], base)
    _, adj = _river_cache(st)
    base = np.where(adj[cells], np.maximum(base, st.game.cfg["river"]["same_side_walls"]), base)
    w = np.maximum(0, base - st.wall_damage[cells].astype(np.int64))
    bw = st.mg["bwalls"]
    if bw:
        w = w + np.array([bw.get(int(c), 0) for c in cells])
    return w


_MAP_ROWS = [0, 1, 2, 3, 11, 13, 14, 15, 16]
_SETTLEMENT_CODE = TERRAINS.index("settlement")
_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}


def _abil_steps() -> list:
    """The float32 value of an ability entry after k repeats: x = min(x + 1/3, 1) from 0, done
    in float32 exactly as the plain loop does it (constant once 1 is reached)."""
    x, out = np.zeros(1, np.float32), [0.0]
    for _ in range(8):
        x[0] = min(x[0] + 1 / 3, 1)
        out.append(x[0])
    return out


_ABIL_STEPS = _abil_steps()


def _map_base(st, key: tuple) -> np.ndarray:
    """A read-only observation-sized array holding only the seat-independent map planes (land,
    explored, terrain, settlement, walls, rivers, variants). Rebuilt only when one of the arrays
    they come from differs from the copy they were built from (compared byte for byte, so hand
    edits in tests are seen too). ``key``: the bytes of land, explored, terrain, settle and
    wall_damage, a copy of the variant list and the sorted bonus walls (built in ``observe``)."""
    c = getattr(st, "_obs_map", None)
    if c is not None and c[1] == st.rivers:
        if c[0] == key:
            return c[2]
        base = _map_update(st, c, key)  # a few cells changed (explore, walls): patch a copy
        if base is not None:
            st._obs_map = (key, c[1], base, c[3], c[4])
            return base
    g = st.game
    m = np.zeros((len(_MAP_ROWS), g.n_cells), np.float32)
    m[0] = st.land
    m[1] = st.explored
    m[2] = np.where(st.terrain >= 0, (st.terrain + 1) / 7.0, 0)
    m[3] = np.where(st.settle >= 0, (st.settle + 1) / 7.0, 0)
    ex = np.flatnonzero(st.explored)
    if len(ex):
        m[4, ex] = np.minimum(_walls_here(st, ex), 8) / 8.0
    planes, _ = _river_cache(st)
    m[5:8] = planes
    nv = len(g.variant_names)
    var = st.variant
    for x in ex.tolist():
        if var[x]:
            m[8, x] = (g.variant_names.index(var[x]) + 1) / nv
    base = np.zeros(_obs_size(g), np.float32)
    base[:17 * g.n_cells].reshape(17, g.n_cells)[_MAP_ROWS] = m
    base.flags.writeable = False
    st._obs_map = (key, set(st.rivers), base,
                   {name: getattr(st, name).dtype for name in _MAP_ARRAYS}, {})
    return base


_MAP_ARRAYS = ("land", "explored", "terrain", "settle", "wall_damage")  # the key's order


_BYTE_CELLS: dict = {}


def _byte_cells(c: tuple, n: int) -> list:
    """For the cached map key ``c[0]``: the cell of each byte of its five arrays joined (in
    _MAP_ARRAYS order, with the dtypes they had when cached, ``c[3]``)."""
    sizes = (n,) + tuple(c[3][name].itemsize for name in _MAP_ARRAYS)
    t = _BYTE_CELLS.get(sizes)
    if t is None:
        t = _BYTE_CELLS[sizes] = [x for k in sizes[1:] for x in range(n) for _ in range(k)]
    return t


def _map_update(st, c: tuple, key: tuple):
    """The cached map base ``c`` brought up to ``key``: a copy with the map planes of the cells
    whose land / explored / terrain / settlement / wall damage / variant / bonus walls differ
    recomputed one by one (same values as the full build: _walls_here cell by cell). None when
    an array changed shape or type (then the caller builds it all)."""
    old = c[0]
    g = st.game
    n = g.n_cells
    diff = False
    for i, name in enumerate(_MAP_ARRAYS):
        if old[i] != key[i]:
            a = getattr(st, name)
            if a.ndim != 1 or len(old[i]) != a.nbytes or a.dtype != c[3].get(name):
                return None
            diff = True
    if diff:  # the differing bytes of the five arrays at once, mapped to their cells
        cells = _byte_cells(c, n)
        prev = c[4].get("bytes")  # (key, its joined bytes as uint8) kept by the last update
        was = prev[1] if prev is not None and prev[0] is old else \
            np.frombuffer(b"".join(old[:5]), np.uint8)
        now = np.frombuffer(b"".join(key[:5]), np.uint8)
        if len(cells) != len(was) or len(was) != len(now):
            return None
        c[4]["bytes"] = (key, now)
        changed = {cells[i] for i in (was != now).nonzero()[0].tolist()}
    else:
        changed = set()
    if old[5] != key[5]:
        if len(old[5]) != len(key[5]):
            return None
        changed.update([x for x, p, q in zip(range(len(old[5])), old[5], key[5]) if p != q])
    if old[6] != key[6]:
        a, b = dict(old[6]), dict(key[6])
        changed.update(x for x in set(a) | set(b) if a.get(x) != b.get(x))
    base = c[2].copy()  # writable
    wb = memoryview(base)  # float32 items: scalar writes without numpy scalars
    tw, sw = _wall_tables(g)
    _, adj = _river_cache(st)
    same_side = g.cfg["river"]["same_side_walls"]
    set_code = TERRAINS.index("settlement")
    bw = st.mg["bwalls"]
    nv = len(g.variant_names)
    land, explored, terrain, settle, wd = (st.land, st.explored, st.terrain, st.settle,
                                           st.wall_damage)
    variant = st.variant
    for x in changed:
        if not 0 <= x < n:
            return None
        t, s_ = int(terrain.item(x)), int(settle.item(x))
        wb[x] = land.item(x)
        ex = explored.item(x)
        wb[n + x] = ex
        wb[2 * n + x] = (t + 1) / 7.0 if t >= 0 else 0
        wb[3 * n + x] = (s_ + 1) / 7.0 if s_ >= 0 else 0
        walls = var = 0
        if ex:
            w = int(tw[max(t, 0)]) if t >= 0 else 0
            if t == set_code:
                w = int(sw[max(s_, 0)])
            if adj.item(x):
                w = max(w, same_side)
            w = max(0, w - int(wd.item(x)))
            if bw:
                w += bw.get(x, 0)
            walls = min(w, 8) / 8.0
            if variant[x]:
                var = (g.variant_names.index(variant[x]) + 1) / nv
        wb[11 * n + x] = walls
        wb[16 * n + x] = var
    base.flags.writeable = False
    return base


def _owned_common(st) -> tuple:
    """The seat-independent part of _build_owned: ([(cell, owner)] of the owned cells, flat
    indices of the encounter chits (plane 8), settlements held per seat, alive per seat)."""
    g = st.game
    N, n = g.num_seats, g.n_cells
    own = st.owner
    cells = (own >= 0).nonzero()[0]
    owned = list(zip(cells.tolist(), own[cells].tolist()))
    held = [0] * N
    if owned:
        for (_, o), s in zip(owned, st.settle[cells].tolist()):
            if s >= 0:
                held[o] += 1
    o8 = 8 * n
    chits = [o8 + c for c in st.encounter.nonzero()[0].tolist()]
    return owned, chits, held, st.alive.tolist()


def _build_owned(st, seat: int, common: tuple | None = None):
    """(indices, values) of the nonzero entries of the planes 4, 5, 8 and the vector entries
    32-39 (alive, settlements held) for ``seat``: ownership and encounter chits (plain Python
    over the cell lists of _owned_common, shared by the seats)."""
    g = st.game
    N, n = g.num_seats, g.n_cells
    owned, chits, held, alive = common if common is not None else _owned_common(st)
    o4, o5 = 4 * n, 5 * n
    idx = [o4 + c if o == seat else o5 + c for c, o in owned]
    val = [1.0 if o == seat else ((o - seat) % N) / N for _, o in owned]
    idx += chits
    val += [1.0] * len(chits)
    vo = 17 * n
    for s in range(N):
        if alive[s]:
            idx.append(vo + 32 + (s - seat) % N)
            val.append(1.0)
        if held[s]:
            idx.append(vo + 36 + (s - seat) % N)
            val.append(min(held[s], 20) / 20.0)
    return np.array(idx, np.intp), np.array(val, np.float32)


def _garrisons(st, _seat=None, specials: bool | None = None) -> tuple | None:
    """(cells with a garrison (special units too), their garrison size/20 as float32), None
    when there is none. ``specials``: whether ``st.gsp`` has any unit, when the caller knows."""
    gar = st.garrison
    if gar.dtype == np.int64 and gar.ndim == 2:  # row sums as one dot product (same integers)
        ones = _ONES.get(gar.shape[1])
        if ones is None:
            ones = _ONES[gar.shape[1]] = np.ones(gar.shape[1], np.int64)
        tot = gar.dot(ones)
    else:
        tot = gar.sum(1)
    if st.gsp.any() if specials is None else specials:
        tot += st.gsp.sum(1)
    nz = tot.nonzero()[0]
    if not len(nz):
        return None
    return nz.tolist(), np.array([min(k, 20) / 20.0 for k in tot[nz].tolist()], np.float32)


_ONES: dict = {}


def _garrison_index(cells: list, owner: np.ndarray, seat: int, n: int) -> np.ndarray:
    """Flat indices of the garrison cells in plane 9 (mine) or 10 (another's) for ``seat``."""
    return np.array([(9 if owner.item(c) == seat else 10) * n + c for c in cells], np.intp)


def _fleets(st, _seat=None) -> list:
    """[(cell, owner, ships/10)] of the fleets, in cell order (block B planes 0-1)."""
    ships, own = st.ships, st.fleet_owner  # read cell by cell: a few fleets
    return [(c, own.item(c), min(ships.item(c), 10) / 10.0) for c in fleet_cells(st)]


def _fleet_layer(fleets: list, seat: int, o: int, n: int) -> tuple:
    """([(flat index, value)], my fleet cells) of block B planes 0-1 (my / other fleets,
    ships/10) for ``seat`` from the ``_fleets`` list; ``o``: the block B offset."""
    iv, mine = [], []
    for c, s, x in fleets:
        if s == seat:
            iv.append((o + c, x))
            mine.append(c)
        else:
            iv.append((o + n + c, x))
    return iv, mine  # plain lists: written one by one (a few fleets)


def _obs_size(g) -> int:
    k = g.__dict__.get("_obs_size")
    if k is None:
        k = g._obs_size = g.observation_size
    return k


def _observe_base_py(st, seat: int) -> np.ndarray:
    """The array-derived part of ``observe`` in Python (the reference for the kernel
    wb_observe_base): map planes from the cache, ownership, chits, alive, held, garrisons."""
    g = st.game
    n = g.n_cells
    d = st.__dict__
    bw = st.mg["bwalls"]  # the map key (see _map_base)
    key = (st.land.tobytes(), st.explored.tobytes(), st.terrain.tobytes(), st.settle.tobytes(),
           st.wall_damage.tobytes(), st.variant, tuple(sorted(bw.items())) if bw else ())
    c = d.get("_obs_map")  # key[5] is the live variant list (compared with the cached copy)
    if c is not None and c[0] == key and c[1] == st.rivers:  # _map_base's hit, inlined
        out = c[2].copy()
    else:  # the cache keeps a copy of the variant list
        key = key[:5] + (list(st.variant),) + key[6:]
        out = _map_base(st, key).copy()
    # ownership / chits / alive / held, cached per seat while their arrays keep their bytes
    # (the seat-independent lists shared under -1)
    ob_ = st.owner.tobytes()
    lk = (ob_, key[3], st.alive.tobytes(), st.encounter.tobytes())  # key[3]: settle
    c = d.get("_obs_owned")
    if c is None or c[0] != lk:
        c = st._obs_owned = (lk, {})
    r = c[1].get(seat)
    if r is None:
        cm = c[1].get(-1)
        if cm is None:
            cm = c[1][-1] = _owned_common(st)
        r = c[1][seat] = _build_owned(st, seat, cm)
    out[r[0]] = r[1]
    # garrisons: cells and values while the garrison arrays are unchanged, the plane indices
    # per seat while the owners are unchanged too
    gsp = st.gsp  # special units in garrisons: almost always none, so count instead of a copy
    k = _count_nonzero(gsp)
    lk = (st.garrison.tobytes(), gsp.tobytes() if k else gsp.shape)
    c = d.get("_obs_gar")
    if c is None or c[0] != lk:
        c = st._obs_gar = (lk, _garrisons(st, None, k > 0), {})
    if c[1] is not None:
        r = c[2].get(seat)
        if r is None or r[0] != ob_:
            r = c[2][seat] = (ob_, _garrison_index(c[1][0], st.owner, seat, n))
        out[r[1]] = c[1][1]
    return out


def _observe_base_kernel(st, seat: int) -> np.ndarray | None:
    """``_observe_base_py``'s array by the compiled kernel (from scratch: at 63 cells that is
    cheaper than the Python caches); None where the arrays have other dtypes than the engine's
    (hand-built test states), which the Python code handles."""
    g = st.game
    out = np.zeros(_obs_size(g), np.float32)
    planes, adj = _river_cache(st)
    tw, sw = _wall_tables(g)
    try:
        KERNELS.wb_observe_base(
            out, g.n_cells, g.num_seats, seat, st.land, st.explored, st.terrain, st.settle,
            st.wall_damage, tw, sw, _SETTLEMENT_CODE, g.cfg["river"]["same_side_walls"],
            planes, adj, st.mg["bwalls"], st.variant, _variant_values(g), st.owner,
            st.encounter, st.alive, st.garrison, st.gsp)
    except TypeError:
        return None
    return out


def _variant_values(g) -> dict:
    """{terrain variant name: its plane-16 value} (cached on the Game)."""
    t = g.__dict__.get("_obs_variant_values")
    if t is None:
        nv = len(g.variant_names)
        t = g._obs_variant_values = {name: (i + 1) / nv for i, name in enumerate(g.variant_names)}
    return t


def _observe_main_py(st, seat: int, out: np.ndarray, w: memoryview, o: int) -> tuple:
    """``observe``'s own writes after the base part, in Python (the reference for the kernel
    wb_observe_main): hero planes 6-7, the acting Hero (plane 12) or the capitol candidates,
    vector 0-31 and 40-47, and the fleet planes 0-1 of the block B section at ``o``. Returns
    (cells of the living Heroes, my living Heroes, my fleet cells) for block B and magic."""
    g = st.game
    n = g.n_cells
    d = st.__dict__
    occ, my_heroes = set(), []  # cells of the living Heroes, my living Heroes (block B, magic)
    o6 = 6 * n
    for h in st.heroes:
        if h["alive"]:
            x = h["cell"]
            occ.add(x)
            if h["seat"] == seat:
                w[o6 + x] = 1
                my_heroes.append(h)
            else:
                w[o6 + n + x] = 1
    h = _acting_hero(st, seat)
    phase = st.phase
    if h is not None:
        w[12 * n + h["cell"]] = 1
    elif phase == "capitol":
        for k in st.free_candidates():
            w[12 * n + st.cand[k]] = (k + 1) / 8.0
    vo = 17 * n
    k = _PHASE_INDEX.get(phase)
    if k is not None:  # block phases have their own flags in their sections
        w[vo + k] = 1
    w[vo + 7] = min(st.turn / g.cfg["designed"]["turn_cap"], 1)
    w[vo + 8] = min(int(st.gold.item(seat)), 50) / 50.0
    if h is not None:
        tr = h["troops"].tolist()
        for t in range(4):
            if tr[t]:
                w[vo + 9 + t] = min(tr[t], 40) / 40.0
        w[vo + 13] = min(h["mp"], 8) / 8.0
        w[vo + 14] = min(h["xp"], 2) / 2.0
        if h["abil"]:
            cnt: dict = {}
            for name, _ in h["abil"]:
                cnt[name] = cnt.get(name, 0) + 1
            for name, k in cnt.items():  # k float32 steps of min(x + 1/3, 1), precomputed
                w[vo + 15 + ABILITIES.index(name)] = _ABIL_STEPS[min(k, len(_ABIL_STEPS) - 1)]
    if st.battle is not None:
        sides = st.battle["sides"]
        mine = [k for k in (0, 1) if sides[k]["seat"] == seat]
        if mine:
            me, foe = sides[mine[0]], sides[1 - mine[0]]
            out[vo + 40:vo + 45] = np.minimum(me["counts"][:5], 40) / 40.0  # specials: block B
            w[vo + 45] = min(int(foe["counts"][:4].sum()), 40) / 40.0
            w[vo + 46] = foe["counts"][4] > 0
            w[vo + 47] = min(foe["monster"][2], 10) / 10.0 if foe["monster"] is not None else 0
    # -- block B section (fleets, espionage): planes 0-1 at ``o``, see block_b.py --
    lk = (st.ships.tobytes(), st.fleet_owner.tobytes())
    c = d.get("_obs_fleets")
    if c is None or c[0] != lk:
        c = st._obs_fleets = (lk, {-1: _fleets(st)})
    r = c[1].get(seat)
    if r is None:
        r = c[1][seat] = _fleet_layer(c[1][-1], seat, o, n)
    for i, x in r[0]:  # a few fleets: scalar writes
        w[i] = x
    return occ, my_heroes, r[1]


def _acting_hero(st, seat: int):
    """The Hero acting now for ``seat`` (move, battle), else None."""
    phase = st.phase
    if (phase == "move" or phase == "battle") and st.qi < len(st.queue):
        q = st.queue[st.qi]
        if q[0] == seat:
            return st.heroes[q[1]]
    return None


_ABIL_INDEX = {name: i for i, name in enumerate(ABILITIES)}


def _observe_main_kernel(st, seat: int, out: np.ndarray, o: int):
    """``_observe_main_py``'s writes and result by the compiled kernel; None where the state's
    arrays have other dtypes than the engine's (the Python code handles those)."""
    g = st.game
    phase = st.phase
    h = _acting_hero(st, seat)
    cands = None
    if h is None and phase == "capitol":
        cands = [(int(st.cand[k]), (k + 1) / 8.0) for k in st.free_candidates()]
    k = _PHASE_INDEX.get(phase)
    try:
        return KERNELS.wb_observe_main(
            out, g.n_cells, seat, st.heroes, h, cands, -1 if k is None else k, st.turn,
            g.cfg["designed"]["turn_cap"], int(st.gold.item(seat)), st.battle, st.ships,
            st.fleet_owner, o, _ABIL_INDEX, _ABIL_STEPS)
    except TypeError:
        return None


def observe(st, seat: int) -> np.ndarray:
    """One float32 array: observe.py's own planes and vector (the compiled kernels
    wb_observe_base / wb_observe_main, else the cached Python copies and plain writes), then the
    block B and magic sections written in place by block_b.observe_b and spells.observe.
    tests/warbah/test_speed_equal.py checks it equals the plain reference copy."""
    g = st.game
    n = g.n_cells
    out = None if KERNELS is None else _observe_base_kernel(st, seat)
    if out is None:
        out = _observe_base_py(st, seat)
    w = memoryview(out)  # scalar writes through the buffer: no numpy scalar conversion
    vo = 17 * n
    o = vo + VECTOR
    ob = o + PLANES_B * n + VECTOR_B
    main = None if KERNELS is None else _observe_main_kernel(st, seat, out, o)
    if main is None:
        main = _observe_main_py(st, seat, out, w, o)
    occ, my_heroes, my_fleets = main
    observe_b(st, seat, w[o:ob], my_fleets, occ, my_heroes)
    # -- block A section (spells, wizards, items): vector (266), see spells.observe --
    observe_magic(st, seat, w[ob:], my_heroes)
    return out
