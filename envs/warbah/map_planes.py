"""The array-derived planes of a Warbah observation (observe.py), cached.

The map planes (land, explored, terrain, settlement, walls, rivers, variants) do not depend on
the observer and change rarely: they are kept, with the bytes of the arrays they come from, and
patched cell by cell where those bytes changed. Ownership, encounter chits, the players alive,
settlements held and garrisons are kept per observer while their arrays keep their bytes. The
caches live on the state (``_obs_*``; a clone starts without them) and are compared byte for
byte, so hand edits in tests are seen too.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import hexes
from .state import WarbahState
from .tables import SETTLEMENTS, TERRAINS, WarbahTables

try:  # numpy's C function behind np.count_nonzero(a) (no Python-level wrapper per call)
    from numpy._core.multiarray import count_nonzero as _count_nonzero
except ImportError:  # pragma: no cover - other numpy layouts
    _count_nonzero = np.count_nonzero


def float_view(a: np.ndarray) -> memoryview[float]:
    """A memoryview of a float32 array, whose items are read and written as Python floats (no
    numpy scalar per write)."""
    # numpy's stubs declare ndarray's buffer protocol for Python 3.12+ only (mypy checks 3.10)
    return memoryview(a)  # type: ignore[arg-type]


def _river_cache(st: WarbahState):
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
                d = st.neighbours[x].index(m)
                if d < 3:
                    planes[d, x] = 1
        c = st._obs_rivers = (set(st.rivers), planes, adj)
    return c[1], c[2]


def _wall_tables(g: WarbahTables) -> tuple[np.ndarray, np.ndarray]:
    """Base walls by terrain code and by settlement code (cached on the Game)."""
    t = getattr(g, "_obs_wall_tables", None)
    if t is None:
        tw = np.array([0 if name == "settlement" else g.terrain[name]["walls"]
                       for name in TERRAINS])
        sw = np.array([g.settle[name]["walls"] for name in SETTLEMENTS])
        t = g._obs_wall_tables = (tw, sw)
    return t


def _walls_here(st: WarbahState, cells: np.ndarray) -> np.ndarray:
    """Vectorised ``hexes.walls(st, c, c)`` for the given cells (the same values)."""
    tw, sw = _wall_tables(st.game)
    t = st.terrain[cells]
    base = np.where(t >= 0, tw[np.maximum(t, 0)], 0)
    is_set = t == TERRAINS.index("settlement")
    base = np.where(is_set, sw[np.maximum(st.settle[cells], 0)], base)
    _, adj = _river_cache(st)
    base = np.where(adj[cells], np.maximum(base, st.game.cfg["river"]["same_side_walls"]), base)
    w = np.maximum(0, base - st.wall_damage[cells].astype(np.int64))
    bw = st.magic.bonus_walls
    if bw:
        w = w + np.array([bw.get(int(c), 0) for c in cells])
    return w


_MAP_ROWS = [0, 1, 2, 3, 11, 13, 14, 15, 16]


def _map_base(st: WarbahState, key: tuple) -> np.ndarray:
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
            st._obs_map = (key, c[1], base, c[3])
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
                   {name: getattr(st, name).dtype for name in _MAP_ARRAYS})
    return base


_MAP_ARRAYS = ("land", "explored", "terrain", "settle", "wall_damage")  # the key's order


def _map_update(st: WarbahState, c: tuple, key: tuple):
    """The cached map base ``c`` brought up to ``key``: a copy with the map planes of the cells
    whose land / explored / terrain / settlement / wall damage / variant / bonus walls differ
    recomputed one by one (same values as the full build: _walls_here cell by cell). None when
    an array changed shape or type (then the caller builds it all)."""
    changed = _changed_cells(st, c, key)
    if changed is None:
        return None
    base = c[2].copy()  # writable
    if not _write_cells(st, memoryview(base), changed):  # float32 items: no numpy scalars
        return None
    base.flags.writeable = False
    return base


def _changed_cells(st: WarbahState, c: tuple, key: tuple) -> set | None:
    """The cells whose map inputs differ between the cached key ``c[0]`` and ``key``; None when
    an array changed shape or type. Only the arrays whose bytes differ are compared (as arrays
    of the dtype they were cached with: an explore changes two or three of the five)."""
    old = c[0]
    changed: set = set()
    for i, name in enumerate(_MAP_ARRAYS):
        if old[i] != key[i]:
            a = getattr(st, name)
            dt = c[3].get(name)
            if a.ndim != 1 or len(old[i]) != a.nbytes or a.dtype != dt:
                return None
            changed.update((np.frombuffer(old[i], dt) != a).nonzero()[0].tolist())
    if old[5] != key[5]:
        if len(old[5]) != len(key[5]):
            return None
        changed.update([x for x, p, q in zip(range(len(old[5])), old[5], key[5]) if p != q])
    if old[6] != key[6]:
        a, b = dict(old[6]), dict(key[6])
        changed.update(x for x in set(a) | set(b) if a.get(x) != b.get(x))
    return changed


def _write_cells(st: WarbahState, wb, changed: set) -> bool:
    """The map planes (land, explored, terrain, settlement, walls, variant) of the ``changed``
    cells written into ``wb``; False when a cell is off the map."""
    g = st.game
    n = g.n_cells
    tw, sw = _wall_tables(g)
    _, adj = _river_cache(st)
    same_side = g.cfg["river"]["same_side_walls"]
    set_code = TERRAINS.index("settlement")
    bw = st.magic.bonus_walls
    nv = len(g.variant_names)
    land, explored, terrain, settle, wd = (st.land, st.explored, st.terrain, st.settle,
                                           st.wall_damage)
    variant = st.variant
    for x in changed:
        if not 0 <= x < n:
            return False
        t, s_ = int(terrain.item(x)), int(settle.item(x))
        wb[x] = land.item(x)
        ex = explored.item(x)
        wb[n + x] = ex
        wb[2 * n + x] = (t + 1) / 7.0 if t >= 0 else 0
        wb[3 * n + x] = (s_ + 1) / 7.0 if s_ >= 0 else 0
        walls: float = 0
        var: float = 0
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
    return True


def _owned_common(st: WarbahState) -> tuple:
    """The seat-independent part of _build_owned: ([(cell, owner)] of the owned cells, flat
    indices of the encounter chits (plane 8), settlements held per seat, alive per seat), from
    hexes.owned_cells."""
    g = st.game
    N, n = g.num_seats, g.n_cells
    sets, by_seat = hexes.owned_cells(st)
    owned = [(c, o) for o, cells in by_seat.items() for c in cells]
    held = [len(sets.get(s, ())) for s in range(N)]
    o8 = 8 * n
    chits = [o8 + c for c in st.encounter.nonzero()[0].tolist()]
    return owned, chits, held, st.alive.tolist()


def _build_owned(st: WarbahState, seat: int, common: tuple | None = None):
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


def _garrisons(st: WarbahState, specials: bool | np.bool_) -> list[tuple[int, float]]:
    """[(cell, garrison size/20)] of the cells with a garrison (special units too), in cell
    order. ``specials``: whether ``st.garrison_specials`` has any unit. Sums only the nonzero
    entries (a few garrisons on the map)."""
    tot: dict = {}
    for arr in (st.garrison, st.garrison_specials) if specials else (st.garrison,):
        k = arr.shape[1]
        flat = arr.ravel()
        idx = flat.nonzero()[0]
        for i, v in zip(idx.tolist(), flat[idx].tolist()):
            c = i // k
            tot[c] = tot.get(c, 0) + v
    return [(c, min(t, 20) / 20.0) for c, t in sorted(tot.items()) if t]


def _obs_size(g: WarbahTables) -> int:
    k = g.__dict__.get("_obs_size")
    if k is None:
        k = g._obs_size = g.observation_size
    return k


def base_planes(st: WarbahState, seat: int) -> np.ndarray:
    """A fresh observation-sized array holding the array-derived parts of ``seat``'s
    observation: the map planes, ownership, chits, alive, settlements held (kept per seat while
    the arrays they come from keep their bytes: most steps change none of them), then the
    garrisons (``_write_garrisons``: recruiting changes only those). Each seat's entry keeps two
    read-only arrays: the base without garrisons and, while the garrisons keep their bytes too,
    the base with them (a recruit then costs one copy and the garrison writes, not a rebuild)."""
    bw = st.magic.bonus_walls
    key = (st.land.tobytes(), st.explored.tobytes(), st.terrain.tobytes(), st.settle.tobytes(),
           st.wall_damage.tobytes(), st.variant, tuple(sorted(bw.items())) if bw else (),
           st.owner.tobytes(), st.alive.tobytes(), st.encounter.tobytes())
    gsp = st.garrison_specials  # special units in garrisons: almost always none
    specials = _count_nonzero(gsp) > 0
    gk = (st.garrison.tobytes(), gsp.tobytes() if specials else gsp.shape)
    cache: dict[int, list[Any]] | None = st.__dict__.get("_obs_base")
    if cache is None:
        cache = st._obs_base = {}
    hit: list[Any] | None = cache.get(seat)  # [key, rivers, base, garrison key, base with garrisons]
    if hit is not None and hit[0] == key and hit[1] == st.rivers:
        if hit[3] == gk:
            return hit[4].copy()
        out = hit[2].copy()
    else:
        key = key[:5] + (list(st.variant),) + key[6:]  # the cache keeps a copy of the variant list
        owned = _map_and_owned(st, seat, key)
        owned.setflags(write=False)
        hit = cache[seat] = [key, set(st.rivers), owned, None, None]
        out = owned.copy()
    _write_garrisons(st, seat, out, gk, specials)
    full = out.copy()
    full.setflags(write=False)
    hit[3], hit[4] = gk, full
    return out


def _map_and_owned(st: WarbahState, seat: int, key: tuple) -> np.ndarray:
    """The map planes (``key[:7]``), ownership, chits, alive and settlements held for ``seat``,
    from the finer caches."""
    d = st.__dict__
    mk = key[:7]
    c = d.get("_obs_map")
    if c is not None and c[0] == mk and c[1] == st.rivers:
        out = c[2].copy()
    else:
        out = _map_base(st, mk).copy()
    # ownership / chits / alive / held, cached per seat while their arrays keep their bytes
    # (the seat-independent lists shared under -1)
    lk = (key[7], key[3], key[8], key[9])  # owner, settle, alive, encounter
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
    return out


def _write_garrisons(st: WarbahState, seat: int, out: np.ndarray, lk: tuple,
                     specials: bool | np.bool_) -> None:
    """Garrison planes 9 (mine) and 10 (another's) into ``out``, from the (cell, value) list
    kept while the garrison arrays keep their bytes (``lk``, shared by the seats; ``specials``:
    a garrison holds special units); a few cells, written one by one."""
    c = st.__dict__.get("_obs_gar")
    if c is None or c[0] != lk:
        c = st._obs_gar = (lk, _garrisons(st, specials))
    if not c[1]:
        return
    n, own = st.game.n_cells, st.owner
    o9, o10 = 9 * n, 10 * n
    w = float_view(out)  # float32 items: no numpy scalars
    for x, v in c[1]:
        w[(o9 if own.item(x) == seat else o10) + x] = v
