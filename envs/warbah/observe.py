"""Warbah observations (observer-relative, hidden information excluded) and the text render.

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

from envs.warbah.config import ABILITIES, SETTLEMENTS, TERRAINS
from envs.warbah.block_b import PLANES_B, VECTOR_B, observe_b
from envs.warbah.sea import fleet_cells
from envs.warbah.rules import PHASES
from envs.warbah.spells import observe as observe_magic

VECTOR = 48

try:  # numpy's C function behind np.count_nonzero(a) (no Python-level wrapper per call)
    from numpy._core.multiarray import count_nonzero as _count_nonzero
except ImportError:  # pragma: no cover - other numpy layouts
    _count_nonzero = np.count_nonzero


def _acting_hero(st, seat: int):
    if st.phase in ("move", "battle") and st.qi < len(st.queue):
        s, x = st.queue[st.qi]
        if s == seat:
            return st.heroes[x]
    return None


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


def _map_key(st) -> tuple:
    return (st.land.tobytes(), st.explored.tobytes(), st.terrain.tobytes(), st.settle.tobytes(),
            st.wall_damage.tobytes(), list(st.variant),
            tuple(sorted(st.mg["bwalls"].items())) if st.mg["bwalls"] else ())


def _map_base(st, key: tuple | None = None) -> np.ndarray:
    """A read-only observation-sized array holding only the seat-independent map planes (land,
    explored, terrain, settlement, walls, rivers, variants). Rebuilt only when one of the arrays
    they come from differs from the copy they were built from (compared byte for byte, so hand
    edits in tests are seen too)."""
    if key is None:
        key = _map_key(st)
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


_MAP_ARRAYS = ("land", "explored", "terrain", "settle", "wall_damage")  # _map_key's order


def _map_update(st, c: tuple, key: tuple):
    """The cached map base ``c`` brought up to ``key``: a copy with the map planes of the cells
    whose land / explored / terrain / settlement / wall damage / variant / bonus walls differ
    recomputed one by one (same values as the full build: _walls_here cell by cell). None when
    an array changed shape or type (then the caller builds it all)."""
    old = c[0]
    changed = set()
    for i, name in enumerate(_MAP_ARRAYS):
        if old[i] != key[i]:
            a = getattr(st, name)
            if a.ndim != 1 or len(old[i]) != a.nbytes or a.dtype != c[3].get(name):
                return None
            was = np.frombuffer(old[i], a.dtype)
            changed.update(np.flatnonzero(was != a).tolist())
    if old[5] != key[5]:
        if len(old[5]) != len(key[5]):
            return None
        changed.update(x for x, (p, q) in enumerate(zip(old[5], key[5])) if p != q)
    if old[6] != key[6]:
        a, b = dict(old[6]), dict(key[6])
        changed.update(x for x in set(a) | set(b) if a.get(x) != b.get(x))
    g = st.game
    n = g.n_cells
    base = c[2].copy()  # writable
    tw, sw = _wall_tables(g)
    _, adj = _river_cache(st)
    same_side = g.cfg["river"]["same_side_walls"]
    set_code = TERRAINS.index("settlement")
    bw = st.mg["bwalls"]
    nv = len(g.variant_names)
    land, explored, terrain, settle, wd = (st.land, st.explored, st.terrain, st.settle,
                                           st.wall_damage)
    for x in changed:
        if not 0 <= x < n:
            return None
        t, s_ = int(terrain[x]), int(settle[x])
        base[x] = land[x]
        base[n + x] = explored[x]
        base[2 * n + x] = (t + 1) / 7.0 if t >= 0 else 0
        base[3 * n + x] = (s_ + 1) / 7.0 if s_ >= 0 else 0
        walls = var = 0
        if explored[x]:
            w = int(tw[max(t, 0)]) if t >= 0 else 0
            if t == set_code:
                w = int(sw[max(s_, 0)])
            if adj[x]:
                w = max(w, same_side)
            w = max(0, w - int(wd[x]))
            if bw:
                w += bw.get(x, 0)
            walls = min(w, 8) / 8.0
            if st.variant[x]:
                var = (g.variant_names.index(st.variant[x]) + 1) / nv
        base[11 * n + x] = walls
        base[16 * n + x] = var
    base.flags.writeable = False
    return base


def _seat_layer(st, name: str, key: tuple, seat: int, build):
    """build(st, seat) cached on the state under ``name`` while ``key`` (byte strings of the
    arrays it reads) stays the same; one entry per seat."""
    c = st.__dict__.get(name)
    if c is None or c[0] != key:
        c = (key, {})
        setattr(st, name, c)
    r = c[1].get(seat)
    if r is None:
        r = c[1][seat] = build(st, seat)
    return r


def _build_owned(st, seat: int):
    """(indices, values) of the nonzero entries of the planes 4, 5, 8 and the vector entries
    32-39 (alive, settlements held) for ``seat``: ownership and encounter chits (plain Python
    over the cell lists: a few numpy calls cost more than the loop on ~100 cells)."""
    g = st.game
    N, n = g.num_seats, g.n_cells
    idx, val = [], []
    held = [0] * N
    for c, (o, s) in enumerate(zip(st.owner.tolist(), st.settle.tolist())):
        if o == seat:
            idx.append(4 * n + c)
            val.append(1.0)
        elif o >= 0:
            idx.append(5 * n + c)
            val.append(((o - seat) % N) / N)
        if o >= 0 and s >= 0:
            held[o] += 1
    for c, e in enumerate(st.encounter.tolist()):
        if e != 0:
            idx.append(8 * n + c)
            val.append(1.0)
    alive = st.alive.tolist()
    for s in range(N):
        if alive[s]:
            idx.append(17 * n + 32 + (s - seat) % N)
            val.append(1.0)
        if held[s]:
            idx.append(17 * n + 36 + (s - seat) % N)
            val.append(min(held[s], 20) / 20.0)
    return np.array(idx, np.intp), np.array(val, np.float32)


def _garrisons(st, _seat=None) -> list:
    """[(cell, garrison size/20)] for the hexes with a garrison (special units too)."""
    tot = st.garrison.sum(1)
    if st.gsp.any():
        tot += st.gsp.sum(1)
    nz = np.flatnonzero(tot)
    return [(c, min(k, 20) / 20.0) for c, k in zip(nz.tolist(), tot[nz].tolist())]


def _fleets(st, _seat=None) -> list:
    """[(cell, owner, ships/10)] of the fleets, in cell order (block B planes 0-1)."""
    ships, own = st.ships.tolist(), st.fleet_owner.tolist()
    return [(c, own[c], min(ships[c], 10) / 10.0) for c in fleet_cells(st)]


def _fleet_layer(fleets: list, seat: int, o: int, n: int) -> tuple:
    """(flat indices, values, my fleet cells, any fleet) of block B planes 0-1 (my / other
    fleets, ships/10) for ``seat`` from the ``_fleets`` list; ``o``: the block B offset."""
    idx, val, mine = [], [], []
    for c, s, x in fleets:
        if s == seat:
            idx.append(o + c)
            mine.append(c)
        else:
            idx.append(o + n + c)
        val.append(x)
    return idx, val, mine, bool(idx)  # plain lists: written one by one (a few fleets)


def _obs_size(g) -> int:
    k = g.__dict__.get("_obs_size")
    if k is None:
        k = g._obs_size = g.observation_size
    return k


def observe(st, seat: int) -> np.ndarray:
    """One float32 array: the cached map planes copied, the cached sparse ownership / garrison /
    fleet entries scattered in, the rest written in place (block B and magic sections by
    block_b.observe_b and spells.observe into their slices). tests/warbah/test_speed_equal.py
    checks it equals the plain reference copy."""
    g = st.game
    n = g.n_cells
    d = st.__dict__
    bw = st.mg["bwalls"]  # _map_key(st), inlined
    key = (st.land.tobytes(), st.explored.tobytes(), st.terrain.tobytes(), st.settle.tobytes(),
           st.wall_damage.tobytes(), st.variant, tuple(sorted(bw.items())) if bw else ())
    c = d.get("_obs_map")  # key[5] is the live variant list (compared with the cached copy)
    if c is not None and c[0] == key and c[1] == st.rivers:  # _map_base's hit, inlined
        out = c[2].copy()
    else:  # the cache keeps a copy of the variant list
        key = key[:5] + (list(st.variant),) + key[6:]
        out = _map_base(st, key).copy()
    # _seat_layer inlined: ownership / chits / alive / held (per seat), garrisons (all seats)
    lk = (st.owner.tobytes(), key[3], st.alive.tobytes(), st.encounter.tobytes())  # key[3]: settle
    c = d.get("_obs_owned")
    if c is None or c[0] != lk:
        c = st._obs_owned = (lk, {})
    r = c[1].get(seat)
    if r is None:
        r = c[1][seat] = _build_owned(st, seat)
    out[r[0]] = r[1]
    gsp = st.gsp  # special units in garrisons: almost always none, so count instead of a copy
    lk = (st.garrison.tobytes(), gsp.tobytes() if _count_nonzero(gsp) else gsp.shape)
    c = d.get("_obs_gar")
    if c is None or c[0] != lk:
        c = st._obs_gar = (lk, {-1: _garrisons(st)})
    gar = c[1][-1]
    if gar:
        own = st.owner
        for c, x in gar:
            out[(9 if own[c] == seat else 10) * n + c] = x
    for h in st.heroes:
        if h["alive"]:
            out[(6 if h["seat"] == seat else 7) * n + h["cell"]] = 1
    h = None  # _acting_hero(st, seat), inlined
    phase = st.phase
    if (phase == "move" or phase == "battle") and st.qi < len(st.queue):
        q = st.queue[st.qi]
        if q[0] == seat:
            h = st.heroes[q[1]]
    if h is not None:
        out[12 * n + h["cell"]] = 1
    elif phase == "capitol":
        for k in st.free_candidates():
            out[12 * n + st.cand[k]] = (k + 1) / 8.0
    vo = 17 * n
    v = out[vo:vo + VECTOR]
    k = _PHASE_INDEX.get(phase)
    if k is not None:  # block phases have their own flags in their sections
        v[k] = 1
    v[7] = min(st.turn / g.cfg["designed"]["turn_cap"], 1)
    v[8] = min(int(st.gold[seat]), 50) / 50.0
    if h is not None:
        tr = h["troops"].tolist()
        for t in range(4):
            if tr[t]:
                v[9 + t] = min(tr[t], 40) / 40.0
        v[13] = min(h["mp"], 8) / 8.0
        v[14] = min(h["xp"], 2) / 2.0
        if h["abil"]:
            cnt: dict = {}
            for name, _ in h["abil"]:
                cnt[name] = cnt.get(name, 0) + 1
            for name, k in cnt.items():  # k float32 steps of min(x + 1/3, 1), precomputed
                v[15 + ABILITIES.index(name)] = _ABIL_STEPS[min(k, len(_ABIL_STEPS) - 1)]
    if st.battle is not None:
        sides = st.battle["sides"]
        mine = [k for k in (0, 1) if sides[k]["seat"] == seat]
        if mine:
            me, foe = sides[mine[0]], sides[1 - mine[0]]
            v[40:45] = np.minimum(me["counts"][:5], 40) / 40.0  # specials: block B section
            v[45] = min(int(foe["counts"][:4].sum()), 40) / 40.0
            v[46] = foe["counts"][4] > 0
            v[47] = min(foe["monster"][2], 10) / 10.0 if foe["monster"] is not None else 0
    # -- block B section (fleets, espionage): planes (7, H, W) + vector (76), see block_b.py --
    o = vo + VECTOR
    ob = o + PLANES_B * n + VECTOR_B
    lk = (st.ships.tobytes(), st.fleet_owner.tobytes())
    c = d.get("_obs_fleets")
    if c is None or c[0] != lk:
        c = st._obs_fleets = (lk, {-1: _fleets(st)})
    r = c[1].get(seat)
    if r is None:
        r = c[1][seat] = _fleet_layer(c[1][-1], seat, o, n)
    if r[3]:  # scalar writes: no index-array construction / fancy assignment for ~2-6 entries
        for i, x in zip(r[0], r[1]):
            out[i] = x
    observe_b(st, seat, out[o:ob], r[2])
    # -- block A section (spells, wizards, items): vector (266), see spells.observe --
    observe_magic(st, seat, out[ob:])
    return out


GLYPH = {"clear": ".", "forest": "f", "marsh": "m", "desert": "d", "hills": "h", "mountains": "M"}
SGLYPH = {"village": "v", "town": "t", "city": "C", "castle": "K", "mine": "$", "tower": "T",
          "capitol": "@"}


def render_text(st, observer=None) -> str:
    g = st.game
    lines = [f"Warbah turn {st.turn} phase {st.phase} to act: player {st.current_player}",
             "gold: " + " ".join(f"p{s}={st.gold[s]}" + ("" if st.alive[s] else "(out)")
                                 for s in range(g.num_seats))]
    for r in range(g.h):
        row = [" " if r % 2 else ""]
        for c in range(g.w):
            i = r * g.w + c
            if not st.land[i]:
                ch = f"S{st.fleet_owner[i]}" if st.ships[i] > 0 else "~~"  # block B: fleets
            elif not st.explored[i]:
                ch = "??"
            else:
                t = TERRAINS[st.terrain[i]]
                ch = SGLYPH[SETTLEMENTS[st.settle[i]]] if t == "settlement" else GLYPH[t]
                ch += "E" if st.encounter[i] else (str(st.owner[i]) if st.owner[i] >= 0 else " ")
            hi = st.hero_at(i)
            if hi >= 0:
                ch = f"H{st.heroes[hi]['seat']}"
            row.append(ch)
        lines.append(" ".join(row))
    for h in st.heroes:
        if h["alive"] and (observer is None or observer == h["seat"]):
            lines.append(f"p{h['seat']} hero {h['id']}: troops {h['troops'].tolist()} xp {h['xp']} "
                         f"abilities {[a for a, _ in h['abil']]}")
    return "\n".join(lines)
