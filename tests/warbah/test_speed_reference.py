"""Plain reference copies of the Warbah observation and mask functions as they were before the
speed work (helper-warbah-speed). tests/warbah/test_speed_equal.py checks at every state of seeded
random games that the fast versions give exactly the same observations (every seat) and masks.
Keep these verbatim: they are the specification the fast code is compared with (no caches)."""
from __future__ import annotations

import contextlib

import numpy as np

from tabletop_arena.envs.warbah import allies as ALLY
from tabletop_arena.envs.warbah import espionage as ESP
from tabletop_arena.envs.warbah import luck as LUCK
from tabletop_arena.envs.warbah import sea as SEA
from tabletop_arena.envs.warbah import units as UNITS
from tabletop_arena.envs.warbah.config import ABILITIES, SETTLEMENTS, TARGET_SLOTS, TERRAINS
from tabletop_arena.envs.warbah.rules import PHASES
from tabletop_arena.envs.warbah.block_b import PHASES as B_PHASES, PLANES_B, VECTOR_B
from tabletop_arena.envs.warbah.spells import (MAGIC_PHASES, MAGIC_VECTOR, REALM_PHASES, TIMINGS, has_wizard,
                                scried, tables)

VECTOR = 48
_MAP_ROWS = [0, 1, 2, 3, 11, 13, 14, 15, 16]


def _acting_hero(st, seat: int):
    if st.phase in ("move", "battle") and st.qi < len(st.queue):
        s, x = st.queue[st.qi]
        if s == seat:
            return st.heroes[x]
    return None


def _river_cache(st):
    """(river planes (3, n) for the E/NE/NW edges, bool per cell: a river runs on one of its
    edges), recomputed only when ``st.rivers`` differs from the set it was built from."""
    c = None  # reference: rebuilt every call
    if c is None:
        n = st.game.n_cells
        planes = np.zeros((3, n), np.float32)
        adj = np.zeros(n, bool)
        for (a, b) in st.rivers:
            for x, m in ((a, b), (b, a)):
                adj[x] = True
                d = st.nbl[x].index(m)  # neighbour lists (block_b.init)
                if d < 3:
                    planes[d, x] = 1
        c = (set(st.rivers), planes, adj)
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


def _map_planes(st, bd: np.ndarray) -> None:
    """Fill the seat-independent map planes (land, explored, terrain, settlement, walls, rivers,
    variants). They are rebuilt only when one of the arrays they come from differs from the
    copy they were built from (compared byte for byte, so hand edits in tests are seen too)."""
    key = (st.land.tobytes(), st.explored.tobytes(), st.terrain.tobytes(), st.settle.tobytes(),
           st.wall_damage.tobytes(), tuple(st.variant),
           tuple(sorted(st.mg["bwalls"].items())) if st.mg["bwalls"] else ())
    c = None  # reference: rebuilt every call
    if c is not None and c[0] == key and c[1] == st.rivers:
        bd[_MAP_ROWS] = c[2]
        return
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
    bd[_MAP_ROWS] = m


def _ref_observe(st, seat: int) -> np.ndarray:
    g = st.game
    N, n = g.num_seats, g.n_cells
    rel = lambda s: (s - seat) % N  # noqa: E731
    bd = np.zeros((17, n), np.float32)
    _map_planes(st, bd)  # 0-3, 11, 13-16: cached while the map is unchanged
    bd[4] = st.owner == seat
    bd[5] = np.where((st.owner >= 0) & (st.owner != seat), ((st.owner - seat) % N) / N, 0)
    for h in st.heroes:
        if h["alive"]:
            bd[6 if h["seat"] == seat else 7, h["cell"]] = 1
    bd[8] = st.encounter != 0
    gs = np.minimum(st.garrison.sum(1) + st.gsp.sum(1), 20) / 20.0  # special units too
    bd[9] = np.where(st.owner == seat, gs, 0)
    bd[10] = np.where(st.owner != seat, gs, 0)
    h = _acting_hero(st, seat)
    if h is not None:
        bd[12, h["cell"]] = 1
    elif st.phase == "capitol":
        for k in st.free_candidates():
            bd[12, st.cand[k]] = (k + 1) / 8.0
    v = np.zeros(VECTOR, np.float32)
    if st.phase in PHASES:  # block phases have their own flags in their sections
        v[PHASES.index(st.phase)] = 1
    v[7] = min(st.turn / g.cfg["designed"]["turn_cap"], 1)
    v[8] = min(st.gold[seat], 50) / 50.0
    if h is not None:
        v[9:13] = np.minimum(h["troops"], 40) / 40.0
        v[13] = min(h["mp"], 8) / 8.0
        v[14] = min(h["xp"], 2) / 2.0
        for name, _ in h["abil"]:
            v[15 + ABILITIES.index(name)] = min(v[15 + ABILITIES.index(name)] + 1 / 3, 1)
    own = st.owner[(st.owner >= 0) & (st.settle >= 0)]
    held = np.bincount(own, minlength=N) if len(own) else np.zeros(N, np.int64)
    for s in range(N):
        v[32 + rel(s)] = st.alive[s]
        v[36 + rel(s)] = min(int(held[s]), 20) / 20.0
    if st.battle is not None:
        sides = st.battle["sides"]
        mine = [k for k in (0, 1) if sides[k]["seat"] == seat]
        if mine:
            me, foe = sides[mine[0]], sides[1 - mine[0]]
            v[40:45] = np.minimum(me["counts"][:5], 40) / 40.0  # specials: block B section
            v[45] = min(int(foe["counts"][:4].sum()), 40) / 40.0
            v[46] = foe["counts"][4] > 0
            v[47] = min(foe["monster"][2], 10) / 10.0 if foe["monster"] is not None else 0
    parts = [bd.reshape(-1), v]
    # -- block B section (fleets, espionage): planes (5, H, W) + vector (32), see block_b.py --
    parts.append(ref_observe_b(st, seat))
    # -- block A section (spells, wizards, items): vector (266), see below and spells.observe --
    parts.append(ref_observe_magic(st, seat))
    return np.concatenate(parts)


def ref_observe_b(st, seat: int) -> np.ndarray:
    """Block B features: planes (7, H, W) then a vector (76), observer-relative.

    Planes: 0 my fleets (ships/10), 1 other fleets (ships/10; chits are public), 2 espionage
    target slot (k+1)/12 at the target's hex (the spy only), 3 enemy hero index cards seen this
    turn (army/40), 4 my heroes at sea (sea moves left/6), 5 my fleets without a Hero (moves
    left/4; their slot k for FLEET0 actions is their rank in cell order), 6 combined attack
    (public): the target hex 1, the lead Hero 0.25, joined Heroes 0.5, the allied Hero asked 0.75.
    Vector: 0 espionage, 1 spy_loss, 2 luck, 3 sea_loss (phase flags); 4 my espionage roll/11,
    5 agents hired/11, 6 agents left to resolve/11; 7-20 espionage stage one-hot (spy only);
    21 troops left to lose/10 (the chooser only); 22 pending Luck roll/10; 23-25 contact with the
    players 1..3 seats after me; 26 acting hero at sea; 27 its sea moves/6; 28 its ships/10;
    29 its capacity room/40; 30 its Luck unused this turn; 31 espionage results logged/10;
    32-44 acting hero's special troops/20 (units.SPECIALS order); 45-57 my battle side's special
    groups/20; 58 the foe's special troops in battle (total/40, seen on the battlefield);
    59-61 allied with the players 1..3 seats after me (public); 62 diplomacy, 63 ally_answer
    phase flags; 64 the player offering me an alliance (relative seat/3); 66 join,
    67 join_answer phase flags; 68 Heroes joined to the declared attack or battle/4; 69 the
    joining armies' troops in battle/40; 70-73 my joining armies' warriors, archers, cavalry,
    catapults in battle/40, 74 my joining Heroes alive/4, 75 the casualty to pick now is for a
    joining army (the chooser only).
    """
    g = st.game
    N, n = g.num_seats, g.n_cells
    bd = np.zeros((PLANES_B, n), np.float32)
    fleets = np.flatnonzero(st.ships).tolist()
    if fleets:  # few fleets: set their hexes one by one
        ships, own = st.ships, st.fleet_owner
        for c in fleets:
            bd[0 if own[c] == seat else 1, c] = min(int(ships[c]), 10) / 10.0
        for c in SEA.unmanned_fleets(st, seat):
            bd[5, c] = SEA.fleet_left(st, c) / 4.0
    v = np.zeros(VECTOR_B, np.float32)
    e = st.esp
    if st.phase in B_PHASES:
        v[B_PHASES.index(st.phase)] = 1
    if e is not None and e["seat"] == seat:
        v[4] = min(e["roll"], 11) / 11.0
        v[5] = min(e["hired"], 11) / 11.0
        v[6] = min(e["agents"], 11) / 11.0
        if e["stage"] in ESP.STAGES:
            v[7 + ESP.STAGES.index(e["stage"])] = 1
        if st.phase == "espionage" and e["stage"] not in ("hire", "done", "move"):
            for k, x in enumerate(e["targets"]):
                if e["stage"] in ("steal_gold", "damage"):
                    c = st.capitol[x]
                elif e["stage"] == "garrison":
                    c = x
                else:
                    c = st.heroes[x]["cell"]
                if c >= 0:
                    bd[2, c] = max(bd[2, c], (k + 1) / TARGET_SLOTS)
        elif e["stage"] == "move":
            bd[2, st.heroes[e["victim"]]["cell"]] = 1
    if st.phase == "spy_loss" and st.heroes[e["victim"]]["seat"] == seat:
        v[21] = min(e["left"], 10) / 10.0
    s = st.sea
    if s is not None and st.heroes[s["hero"]]["seat"] == seat:
        if s["kind"] == "luck":
            v[22] = s["roll"] / 10.0
        else:
            v[21] = min(s["left"], 10) / 10.0
    for (obs, hi), turn in st.revealed.items():
        if obs == seat and turn == st.turn and st.heroes[hi]["alive"]:
            bd[3, st.heroes[hi]["cell"]] = min(int(st.heroes[hi]["troops"].sum()), 40) / 40.0
    for k in range(1, N):
        v[22 + k] = st.contact[seat, (seat + k) % N]
    for h in st.heroes:
        if h["alive"] and h["seat"] == seat and not st.land[h["cell"]]:
            mp = h["sea_mp"] if h.get("sea_turn") == st.turn else SEA.scfg(st)["sea_moves"]
            bd[4, h["cell"]] = min(mp, 6) / 6.0
    if st.phase == "move" and st.qi < len(st.queue) and st.queue[st.qi][0] == seat:
        h = st.heroes[st.queue[st.qi][1]]
        if h["alive"] and not st.land[h["cell"]]:
            v[26] = 1
            v[27] = bd[4, h["cell"]]
            ships = int(st.ships[h["cell"]])
            v[28] = min(ships, 10) / 10.0
            room = SEA.capacity(st, ships) - int(h["troops"].sum())
            v[29] = min(max(room, 0), 40) / 40.0
        v[30] = h.get("luck_turn") != st.turn and st.abil(h, "luck") > 0
    n_log = 0
    for rec in reversed(st.esp_log):  # this turn's entries are at the end
        if rec[0] != st.turn:
            break
        n_log += rec[1] == seat
    v[31] = min(n_log, 10) / 10.0
    for k in range(1, N):
        v[58 + k] = st.allied[seat, (seat + k) % N]
    if st.phase in ALLY.PHASES:
        v[62 + ALLY.PHASES.index(st.phase)] = 1
        if st.phase == "ally_answer" and st.dip["to"] == seat:
            v[64] = ((st.dip["seat"] - seat) % N) / 3.0
    if st.phase in ("move", "recruit", "battle") and st.qi < len(st.queue):
        s_, x = st.queue[st.qi]
        if s_ == seat:
            hh = None
            if st.phase == "recruit":
                j = st.hero_at(x)
                hh = st.heroes[j] if j >= 0 and st.heroes[j]["seat"] == seat else None
            else:
                hh = st.heroes[x]
            if hh is not None and hh.get("special") is not None:
                v[32:45] = np.minimum(hh["special"], 20) / 20.0
    if st.battle is not None:
        sides = st.battle["sides"]
        for k in (0, 1):
            if sides[k]["seat"] == seat and len(sides[k]["counts"]) > UNITS.BASE:
                v[45:58] = np.minimum(sides[k]["counts"][UNITS.BASE:], 20) / 20.0
                foe = sides[1 - k]["counts"]
                v[58] = min(int(foe[UNITS.BASE:].sum()), 40) / 40.0
                break
    jn, b = st.join, st.battle
    if jn is not None:  # a declared combined attack
        v[66 + (st.phase == "join_answer")] = 1
        bd[6, jn["cell"]] = 1
        bd[6, st.heroes[jn["lead"]]["cell"]] = 0.25
        for j in jn["members"]:
            bd[6, st.heroes[j]["cell"]] = 0.5
        if jn["ask"] >= 0:
            bd[6, st.heroes[jn["ask"]]["cell"]] = 0.75
        v[68] = min(len(jn["members"]), 4) / 4.0
    elif b is not None and b.get("members"):
        bd[6, b["cell"]] = 1
        bd[6, st.heroes[b["sides"][0]["hero"]]["cell"]] = 0.25
        for m in b["members"]:
            bd[6, st.heroes[m["hero"]]["cell"]] = 0.5
        v[68] = min(len(b["members"]), 4) / 4.0
        v[69] = min(sum(int(m["counts"].sum() - m["counts"][4]) for m in b["members"]), 40) / 40.0
        mine = [m for m in b["members"] if m["seat"] == seat]
        if mine:
            v[70:74] = np.minimum(sum(m["counts"][:4] for m in mine), 40) / 40.0
            v[74] = sum(int(m["counts"][4]) for m in mine) / 4.0
        if st.phase == "casualty" and b.get("cm", -1) >= 0 and st.current_player == seat:
            v[75] = 1
    return np.concatenate([bd.reshape(-1), v])


def ref_observe_magic(st, seat: int) -> np.ndarray:
    """Magic section of the observation (see observe.py's docstring for the layout)."""
    T = tables(st.game)
    NR, NB = T.NR, T.NB
    v = np.zeros(MAGIC_VECTOR, np.float32)
    m = st.mg
    if st.phase in MAGIC_PHASES:
        v[MAGIC_PHASES.index(st.phase)] = 1
    if st.phase in REALM_PHASES and m["timing"]:
        v[4 + TIMINGS.index(m["timing"])] = 1
    if st.phase == "realm_target" and m["pending"] is not None:
        v[11] = (m["pending"][0] + 1) / NR
    o = 13
    for k in m["hand"][seat]:
        v[o + k] += 0.5
    o += NR  # 39: my heroes' realm-spell items
    bo = o + NR  # 65: my battle hand
    io = bo + NB  # 107: my battle-spell items
    wiz = 0
    for h in st.heroes:
        if h["alive"] and h["seat"] == seat:
            wiz += has_wizard(h)
            for it in h.get("items") or ():
                if it["kind"] == "realm":
                    v[o + it["k"]] += 0.5
                elif it["kind"] == "battle":
                    v[io + it["k"]] += 0.5
    s0 = io + NB  # 149
    v[s0] = min(wiz, 4) / 4
    hero = None  # the hero now acting for me (realm window, move, battle declaration)
    if st.phase in ("realm", "realm_target", "move", "battle") and st.qi < len(st.queue) \
            and st.queue[st.qi][0] == seat:
        x = st.queue[st.qi][1]
        hero = st.heroes[x] if x >= 0 else None
    N = st.game.num_seats
    for r in range(1, N):
        v[s0 + 2 + r] = min(len(m["hand"][(seat + r) % N]), 4) / 4  # 152-154
    b = st.battle
    if b is not None and b.get("mg") is not None:
        arm = list(b["sides"]) + list(b.get("members", ()))  # my army (joiners too)
        mine = [k for k in range(len(arm)) if arm[k]["seat"] == seat]
        if mine:
            c = b["mg"]["caster"]
            k = c if c in mine and st.phase in ("spell", "spell_target") else mine[0]
            me, foe = arm[k], b["sides"][0 if k == 1 else 1]
            if me["hero"] >= 0:
                hero = st.heroes[me["hero"]]
            for s in me["mg"]["hand"]:
                v[bo + s] += 0.5
            v[s0 + 6] = min(len(foe["mg"]["hand"]), 6) / 6
            v[s0 + 7] = foe["mg"]["wizard"]
            v[s0 + 8] = (b["round"] + 1) in me["mg"]["bind"] or b["round"] in me["mg"]["bind"]
            v[s0 + 9] = (b["round"] + 1) in foe["mg"]["bind"] or b["round"] in foe["mg"]["bind"]
            last = b["mg"]["last"]
            if last is not None and (last[0] == 1) != (k == 1) and last[2] == b["round"]:
                v[s0 + 10] = (last[3] + 1) / NB
            v[s0 + 11] = min(me["mg"]["resist"], 2) / 2
            v[s0 + 12] = min(foe["mg"]["resist"], 2) / 2
            if st.phase == "spell_target" and b["mg"]["pending"] is not None:
                v[12] = (b["mg"]["pending"] + 1) / NB
    if hero is not None:
        v[s0 + 1] = has_wizard(hero)
        v[s0 + 2] = min(len(hero.get("items") or ()), 4) / 4
    v[s0 + 13] = len(m["rdeck"]) / NR
    v[s0 + 14] = len(m["bdeck"]) / NB
    v[s0 + 15] = min(m["limit"][seat], 5) / 5  # hand limit (towers + temples) at the Realm phase
    v[s0 + 16] = min(len(m["hand"][seat]), 4) / 4
    sc = s0 + 17  # 166
    if scried(st, seat):
        v[sc] = 1
        for k in m["rdeck"][-5:]:
            v[sc + 1 + k] += 0.5
        for k in m["bdeck"][-5:]:
            v[sc + 1 + NR + k] += 0.5
        for r in range(1, N):
            for k in m["hand"][(seat + r) % N]:
                v[sc + 1 + NR + NB + k] += 0.25
    lk = LUCK.pending_for(st, seat)  # 261-264: a Luck decision on a spell / agent roll
    if lk is not None:
        s = st.sea
        v[261], v[262], v[263] = 1, (lk[0] + 1) / len(LUCK.KINDS), lk[1]
        v[264] = s["value"] / (s["dice"][0] * s["dice"][1])
    e = getattr(st, "esp", None)  # 265: I decide on Fortell against this espionage result
    if st.phase == "espionage" and e is not None and e["stage"] == "fortell" \
            and e["fort_seat"] == seat:
        from tabletop_arena.envs.warbah.espionage import STAGES
        v[265] = (STAGES.index(e["fort"][0]) + 1) / len(STAGES)
    return v


# -- masks ----------------------------------------------------------------------------------------
# Reference methods of WarbahState, patched onto the class while ref_mask runs so that the hooks
# in other modules (sea.py, units.py, spells.py) see the plain versions too.
from tabletop_arena.envs.warbah import block_b as BB  # noqa: E402
from tabletop_arena.envs.warbah import rules as R  # noqa: E402
from tabletop_arena.envs.warbah import spells as SP  # noqa: E402
from tabletop_arena.envs.warbah.board import edge  # noqa: E402
from tabletop_arena.envs.warbah.config import (BASIC, CALL_OFF, CAPITOL0, CAPITOL_AUTO, CASUALTY0,  # noqa: E402
                                CONTINUE, DONE, DROP_OFF, EXCHANGE0, RECRUIT, RECRUIT_HERO,
                                SEA0, TAKE_GARRISON, BATTLE_DROP_SP, BATTLE_TAKE_SP, DROP_ONE0,
                                GIVE0, GIVE_SP0, LOOK0, PASS0, RECRUIT_SP, TAKE_ONE0)
from tabletop_arena.envs.warbah.rules import JOIN_PHASES  # noqa: E402
from tabletop_arena.envs.warbah import battle as B  # noqa: E402


class _RefMethods:

    def hero_at(self, cell: int):
        for i, h in enumerate(self.heroes):
            if h["cell"] == cell and h["alive"]:
                return i
        return -1

    def garrisoned(self, m: int) -> bool:
        """A garrison (basic troops or special units) stands in hex m."""
        return bool(self.garrison[m].any() or self.gsp[m].any())

    def garrison_kind(self, c: int) -> int:
        """Special unit kind (units.SPECIALS index) a settlement recruits into its garrison
        (a Knights castle: CASTLE VARIANT TYPES), or -1."""
        v = self.variant[c]
        if self.settle[c] < 0 or not v.startswith("recruit_"):
            return -1
        return BB.UNITS.SPECIALS.index(v[len("recruit_"):])

    def abil(self, h: dict, name: str) -> int:
        n = sum(1 for a, _ in h["abil"] if a == name)
        if h.get("special") is not None:  # block B: special troops grant abilities
            n += BB.UNITS.granted(h, name, self.game.cfg["special_units"])
        return n

    def army_cap(self, h: dict) -> int:
        d = self.game.cfg["designed"]
        return d["army_cap"] + d["command_bonus"] * self.abil(h, "command")

    def _enterable(self, seat: int, h: dict, m: int, occ: dict | None = None) -> int:
        """MP cost to enter explored land hex m, or 0 if it cannot be entered (``occ``: an
        optional block_b.hero_map of this state, to skip the hero scan)."""
        if self.encounter[m] != 0 or (self.hero_at(m) if occ is None else occ.get(m, -1)) >= 0:
            return 0
        if self.owner[m] not in (-1, seat) and self.garrisoned(m):
            return 0
        t = TERRAINS[self.terrain[m]]
        cost = self.game.terrain[t]["mp"]
        if edge(h["cell"], m) in self.rivers:
            cost = max(cost, self.game.cfg["river"]["cross_mp"])
        return cost

    def _target(self, seat: int, m: int) -> bool:
        if m < 0 or not self.land[m] or not self.explored[m] or m in self.mg["sanct"]:
            return False
        j = self.hero_at(m)
        if j >= 0:
            return self.heroes[j]["seat"] != seat
        if self.encounter[m] != 0:
            return True
        return self.owner[m] not in (-1, seat) and self.garrisoned(m)

    def _local_mask(self, seat: int, x: int) -> np.ndarray:
        if self.phase in SP.REALM_PHASES:
            return SP.realm_mask(self, seat, x)
        g, mask = self.game, np.zeros(self.game.num_actions, np.int8)
        mask[DONE] = 1
        if self.phase == "recruit" and self.settle[x] < 0:  # block B: special-unit hex
            ref_bb_local_mask(self, seat, x, mask)
            return mask
        if self.phase == "recruit":
            c = x
            name = SETTLEMENTS[self.settle[c]]
            rec = g.settle[name]["recruit"]
            u = self.garrison_kind(c)
            if self.recruited[c] < g.cfg["designed"]["max_recruit_per_settlement"]:
                if u >= 0:  # a Knights castle recruits knights into its garrison
                    mask[RECRUIT] = self.gold[seat] >= self.sp_cost(u)
                elif rec != "none" and self.gold[seat] >= g.troop[rec][2]:
                    mask[RECRUIT] = 1
                if (name == "capitol" and self.gold[seat] >= g.troop["hero"][2]
                        and self.hero_at(c) < 0):
                    mask[RECRUIT_HERO] = 1
            SP.recruit_mask(self, seat, c, mask)  # block A: a wizard at a tower
        elif self.phase == "move":
            h = self.heroes[x]
            if not h["alive"]:
                return mask
            occ = ref_hero_map(self)
            nbl = self.nbl[h["cell"]]
            for dd in range(6):
                m = nbl[dd]
                if m < 0 or not self.land[m]:
                    continue
                if not self.explored[m]:
                    mask[dd] = h["mp"] + h.get("scout", 0) >= 1
                else:
                    cost = self._enterable(seat, h, m, occ)
                    mask[dd] = 0 < cost <= h["mp"]
            c = h["cell"]
            if (self.owner[c] == seat and self.garrisoned(c)
                    and BB.UNITS.army_size(h) < self.army_cap(h)):  # specials count too
                mask[TAKE_GARRISON] = 1
            if self.owner[c] == seat and self.settle[c] >= 0:
                rec = g.settle[SETTLEMENTS[self.settle[c]]]["recruit"]
                u = self.garrison_kind(c)
                if u >= 0:  # the right type here is the settlement's special unit
                    sp = h.get("special")
                    mask[DROP_OFF] = sp is not None and sp[u] > 0
                elif rec in BASIC and h["troops"][BASIC.index(rec)] > 0:
                    mask[DROP_OFF] = 1
            if not h.get("received") and h["troops"].sum() > 0:
                for dd in range(6):  # exchange instead of moving (ends this hero's movement)
                    j = occ.get(nbl[dd], -1) if nbl[dd] >= 0 else -1
                    if (j >= 0 and self.heroes[j]["seat"] == seat
                            and BB.UNITS.army_size(self.heroes[j]) < self.army_cap(self.heroes[j])):
                        mask[EXCHANGE0 + dd] = 1
            SP.move_mask(self, seat, h, mask)  # block A: hand over magic items
        elif self.phase == "battle":
            h = self.heroes[x]
            if h["alive"] and h["attacks"] > 0:
                for dd in range(6):
                    mask[dd] = self._target(seat, int(self.nb[h["cell"], dd]))
        ref_bb_local_mask(self, seat, x, mask)
        if self.phase == "move":
            BB.garrison_lock(self, self.heroes[x], mask)
        return mask

    def ref_mask(self) -> np.ndarray:
        n = self.game.num_actions
        mask = np.zeros(n, np.int8)
        if self.phase == "capitol":
            for k in self.free_candidates():
                mask[CAPITOL0 + k] = 1
            mask[CAPITOL_AUTO] = 1
        elif self.phase == "casualty":
            from tabletop_arena.envs.warbah.combat_flow import chooser_side
            side = chooser_side(self.battle)
            for t in B.troop_types_alive(side):
                if t < 4:
                    mask[CASUALTY0 + t] = 1
            BB.UNITS.casualty_mask(side, mask)  # block B: special groups (index 5+)
        elif self.phase == "call_off":
            mask[CALL_OFF] = mask[CONTINUE] = 1
        elif self.phase in BB.PHASES:
            mask = BB.mask(self)
        elif self.phase in JOIN_PHASES:
            from tabletop_arena.envs.warbah.combat_flow import join_mask
            mask = join_mask(self)
        elif self.phase in SP.BATTLE_PHASES:
            mask = SP.battle_mask(self)
        elif self.phase != "over":
            seat, x = self.queue[self.qi]
            mask = self._local_mask(seat, x)
        return mask


def ref_bb_local_mask(st, seat: int, x: int, mask: np.ndarray) -> None:
    """Add block B actions to (and remove delayed moves from) the recruit / move / battle masks."""
    if st.phase == "recruit":
        if st.settle[x] >= 0:
            SEA.recruit_mask(st, seat, x, mask)
        UNITS.recruit_mask(st, seat, x, mask)
        if st.settle[x] >= 0 and st.garrison_kind(x) >= 0:
            mask[RECRUIT_SP] = 0  # a Knights castle recruits its knights into the garrison
        return
    if st.phase not in ("move", "battle"):
        return
    h = st.heroes[x]
    if not h["alive"]:
        return
    if ESP.hero_delayed(st, h):  # Agent Success 6: cannot move or attack this turn
        mask[:6] = 0
        mask[SEA0:] = 0
        return
    if st.phase == "battle":
        SEA.battle_mask(st, seat, h, mask)
        return
    SEA.move_mask(st, seat, x, h, mask)
    SEA.fleet_mask(st, seat, mask)
    c = h["cell"]
    if not st.land[c]:
        return
    ref_pass_mask(st, seat, h, mask)
    ALLY.trade_mask(st, seat, h, mask)
    if h.get("scout", 0) > 0:  # Scouting: look at an adjacent Hero's card instead of exploring
        for d, m in enumerate(st.nbl[c]):
            j = st.hero_at(m) if m >= 0 else -1
            if j >= 0 and st.heroes[j]["seat"] != seat and not ESP.is_revealed(st, seat, j):
                mask[LOOK0 + d] = 1
    own_hex = st.owner[c] == seat
    room = st.army_cap(h) - UNITS.army_size(h) if mask[TAKE_GARRISON] or own_hex else 0
    sp = h.get("special")
    if mask[TAKE_GARRISON] and (room <= 0 or UNITS.type_count(h) + int(
            ((st.garrison[c] > 0) & (h["troops"] == 0)).sum()) + int(
            ((st.gsp[c] > 0) & ((sp if sp is not None else 0) == 0)).sum())
            > UNITS.type_limit(st, h)):
        mask[TAKE_GARRISON] = 0  # the whole garrison would break the cap or the type limit
    nbl = st.nbl[c]
    for d in range(6):  # whole-army hand-over (25-30): the receiver's type limit
        if mask[EXCHANGE0 + d]:
            o = st.heroes[st.hero_at(nbl[d])]
            if UNITS.type_count(o) + int(((h["troops"] > 0) & (o["troops"] == 0)).sum()) > \
                    UNITS.type_limit(st, o):
                mask[EXCHANGE0 + d] = 0
    if own_hex:
        g = st.garrison[c]
        if room > 0 and g.any():
            new_ok = UNITS.type_count(h) < UNITS.type_limit(st, h)  # 5 troop types (+Command)
            for t in range(4):
                mask[TAKE_ONE0 + t] = g[t] > 0 and (h["troops"][t] > 0 or new_ok)
        gsp = st.gsp[c]
        if room > 0 and gsp.any():  # special units in the garrison (Knights), one at a time
            u = int(np.flatnonzero(gsp)[0])
            mask[BATTLE_TAKE_SP] = (sp is not None and sp[u] > 0) or \
                UNITS.type_count(h) < UNITS.type_limit(st, h)
        if st.settle[c] >= 0:
            rec = st.game.settle[SETTLEMENTS[st.settle[c]]]["recruit"]
            u = st.garrison_kind(c)
            if u >= 0:  # the right type here is the settlement's special unit
                mask[BATTLE_DROP_SP] = sp is not None and sp[u] > 0
            elif rec in BASIC and h["troops"][BASIC.index(rec)] > 0:
                mask[DROP_ONE0 + BASIC.index(rec)] = 1
    # exchange instead of moving: only a Hero that has not moved yet, with a friendly (or
    # allied) Hero on adjacent land
    if not (h.get("xchg_turn") == st.turn or (
            h["mp"] >= BB._mp0(st, h) and h.get("scout", 0) >= st.abil(h, "scouting"))):
        return
    near = []
    occ = ref_hero_map(st)
    for d, m in enumerate(nbl):
        if m >= 0 and st.land[m]:
            j = occ.get(m, -1)
            if j >= 0 and ALLY.friendly(st, seat, st.heroes[j]["seat"]):
                o = st.heroes[j]
                if UNITS.army_size(o) < st.army_cap(o):
                    near.append((d, o))
    if not near:
        return
    sp = h.get("special")
    give_sp = None
    if sp is not None and sp.any():  # special units, one at a time (once per turn each)
        recv = h.get("recv_sp") if h.get("recv_turn_sp") == st.turn else 0
        give_sp = np.flatnonzero(sp - recv > 0)
    give = h["troops"] - BB._recv(st, h)
    for d, o in near:
        new_ok = UNITS.type_count(o) < UNITS.type_limit(st, o)
        for t in range(4):
            mask[GIVE0 + 4 * d + t] = give[t] > 0 and (o["troops"][t] > 0 or new_ok)
        if give_sp is not None:
            osp = o.get("special")
            for u in give_sp.tolist():
                if new_ok or (osp is not None and osp[u] > 0):
                    mask[GIVE_SP0 + 13 * d + u] = 1


def ref_hero_map(st) -> dict:
    """{hex: index of the first living Hero there}: st.hero_at for many hexes at once."""
    out = {}
    for i, h in enumerate(st.heroes):
        if h["alive"] and h["cell"] not in out:
            out[h["cell"]] = i
    return out


def ref_step_cost(st, a: int, b: int) -> int:
    """MP to step from a into explored land hex b (terrain cost, 3 across a river)."""
    from tabletop_arena.envs.warbah.board import edge
    from tabletop_arena.envs.warbah.config import TERRAINS
    cost = st.game.terrain[TERRAINS[st.terrain[b]]]["mp"]
    if edge(a, b) in st.rivers:
        cost = max(cost, st.game.cfg["river"]["cross_mp"])
    return cost


def ref_pass_target(st, seat: int, h: dict, d: int, occ: dict | None = None) -> int:
    """MP for a pass-through move (two hexes straight on through a friendly or allied Hero),
    or 0 when not possible (``occ``: an optional hero_map of this state)."""
    c = h["cell"]
    m1 = st.nbl[c][d]
    if m1 < 0 or not st.land[m1] or not st.explored[m1]:
        return 0
    j = st.hero_at(m1) if occ is None else occ.get(m1, -1)
    if j < 0 or not ALLY.friendly(st, seat, st.heroes[j]["seat"]):
        return 0
    m2 = st.nbl[m1][d]
    if m2 < 0 or not st.land[m2] or not st.explored[m2] or st.encounter[m2] != 0:
        return 0
    if (st.hero_at(m2) if occ is None else occ.get(m2, -1)) >= 0 or (
            st.owner[m2] not in (-1, seat) and st.garrisoned(m2)):
        return 0
    return ref_step_cost(st, c, m1) + ref_step_cost(st, m1, m2)


def ref_pass_mask(st, seat: int, h: dict, mask: np.ndarray) -> None:
    if h["mp"] < 2:
        return
    occ = ref_hero_map(st)
    for d in range(6):
        cost = ref_pass_target(st, seat, h, d, occ)
        mask[PASS0 + d] = 0 < cost <= h["mp"]


_PATCHED = ("hero_at", "garrisoned", "garrison_kind", "abil", "army_cap", "_enterable", "_target",
            "_local_mask")




# units.py helpers the masks call (patched into envs.warbah.units while ref_mask runs)


def ref_granted(h: dict, name: str, table: dict) -> int:
    """Abilities given by special troops present in the army (one per kind present)."""
    sp = h.get("special")
    if sp is None or not sp.any():
        return 0
    return sum(1 for u in np.flatnonzero(sp) if name in table[UNITS.SPECIALS[u]].get("grants", ()))


def ref_type_count(h: dict) -> int:
    sp = h.get("special")
    return int((h["troops"] > 0).sum()) + (int((sp > 0).sum()) if sp is not None else 0)


def ref_army_size(h: dict) -> int:
    sp = h.get("special")
    return int(h["troops"].sum()) + (int(sp.sum()) if sp is not None else 0)


# sea.py as it was before its fleet-cell cache (helper-warbah-speed2): no cache, one scan each
def ref_unmanned_fleets(st, seat: int) -> list[int]:
    out = []
    cells = np.flatnonzero(st.ships).tolist()
    if not cells:
        return out
    own = st.fleet_owner
    occ = {h["cell"] for h in st.heroes if h["alive"]}
    for c in cells:
        if own[c] == seat and c not in occ:
            out.append(c)
            if len(out) == SEA.FLEET_SLOTS:
                break
    return out


def ref_fleet_mask(st, seat: int, mask: np.ndarray) -> None:
    fleets = SEA.unmanned_fleets(st, seat)
    if not fleets:
        return
    occ = {h["cell"] for h in st.heroes if h["alive"]}
    land, own = st.land, st.fleet_owner
    for k, c in enumerate(fleets):
        if SEA.fleet_left(st, c) <= 0:
            continue
        for d, m in enumerate(st.nbl[c]):
            if m >= 0 and not land[m] and m not in occ and own[m] in (-1, seat):
                mask[SEA.FLEET0 + 6 * k + d] = 1


def ref_sea_recruit_mask(st, seat: int, c: int, mask: np.ndarray) -> None:
    name = SETTLEMENTS[st.settle[c]]
    if name == "mine" or st.recruited[c] >= st.game.cfg["designed"]["max_recruit_per_settlement"]:
        return
    if st.gold[seat] < SEA.scfg(st)["ship_cost"]:
        return
    for d in range(6):
        m = int(st.nb[c, d])
        if m >= 0 and not st.land[m] and st.fleet_owner[m] in (-1, seat):
            j = st.hero_at(m)
            if j < 0 or st.heroes[j]["seat"] == seat:
                mask[SEA.SHIP0 + d] = 1


_UNITS_PATCHED = {"granted": ref_granted, "type_count": ref_type_count, "army_size": ref_army_size}
_SEA_PATCHED = {"unmanned_fleets": ref_unmanned_fleets, "fleet_mask": ref_fleet_mask,
                "recruit_mask": ref_sea_recruit_mask}


@contextlib.contextmanager
def reference_methods():
    """The reference hero_at / abil / ... methods and units helpers in place (restored after)."""
    saved = {k: R.WarbahState.__dict__[k] for k in _PATCHED}
    saved_u = {k: getattr(UNITS, k) for k in _UNITS_PATCHED}
    saved_s = {k: getattr(SEA, k) for k in _SEA_PATCHED}
    try:
        for k in _PATCHED:
            setattr(R.WarbahState, k, _RefMethods.__dict__[k])
        for k, f in _UNITS_PATCHED.items():
            setattr(UNITS, k, f)
        for k, f in _SEA_PATCHED.items():
            setattr(SEA, k, f)
        yield
    finally:
        for k, f in saved.items():
            setattr(R.WarbahState, k, f)
        for k, f in saved_u.items():
            setattr(UNITS, k, f)
        for k, f in saved_s.items():
            setattr(SEA, k, f)


def ref_mask(st) -> np.ndarray:
    """The legal-action mask computed from scratch with the reference methods in place."""
    with reference_methods():
        return _RefMethods.ref_mask(st)


def ref_observe(st, seat: int) -> np.ndarray:
    """The observation computed from scratch with the reference methods in place."""
    with reference_methods():
        return _ref_observe(st, seat)
