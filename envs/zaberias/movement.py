"""Zaberias unit statistics (dice, muscle, steps with auras, stars, siphons, boosts) and movement
(steps, flying, swimming, roads, portals, the Dragon's rider, the Rhino Rider's trample).

Rulebook sections: "5: Steps", "9: Magical Places" (portals, power stars), the Q&A entries of the
Skull Dragon, Giant Armor, Vampire, Ninja, Phantom, Spider Witch, Dragon and Rhino Rider.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .board import PORTAL, WATER, bit_cells

if TYPE_CHECKING:   # for the type checker only: state.py imports this module
    from .state import ZaberiasState
    from .tables import Ability, UnitSpec

ARMORY, BOARD, HELD, RIDING = 0, 1, 2, 3
LOVE, STUN, SHOCK, GLUE = 1, 2, 4, 8
EFFECT_NAMES = {LOVE: "loved (cannot attack the Undead)", STUN: "dazzled (no ability)",
                SHOCK: "shocked (cannot attack)", GLUE: "glued (cannot move)"}


def on_map(st: ZaberiasState, uid: int) -> bool:
    """A unit on the board, standing or riding a Dragon."""
    return st.status[uid] in (BOARD, RIDING)


def ability_active(st: ZaberiasState, uid: int, ability: Ability) -> bool:
    """The unit has ``ability`` and is not dazzled (Dazzle Walker disables every ability)."""
    return st.game.specs[uid].ability == ability and not st.effects[uid] & STUN


def aura(st: ZaberiasState, seat: int, ability: Ability) -> int:
    """1 while the seat's unit with aura ``ability`` (skull / armor) stands on the map, undazzled."""
    uid = st.game.ability_uid.get((seat, ability), -1)
    if uid >= 0 and st.status[uid] in (BOARD, RIDING) and not st.effects[uid] & STUN:
        return 1
    return 0


def stars_held(st: ZaberiasState, seat: int) -> int:
    """Power stars occupied by the seat's units (rulebook 9: +1 muscle per star to every unit)."""
    U = st.game.U
    return sum(1 for c in st.geo.stars if st.occ[c] >= 0 and st.occ[c] // U == seat)


def own_dice(st: ZaberiasState, uid: int) -> int:
    spec = st.game.specs[uid]
    seat = uid // st.game.U
    d = spec.dice + aura(st, seat, "armor") + st.boost[uid][0]
    if ability_active(st, uid, "ninja"):
        d += len(st.held[uid])                       # Ninja: one die per held unit
    return d


def own_muscle(st: ZaberiasState, uid: int) -> int:
    spec = st.game.specs[uid]
    seat = uid // st.game.U
    m = spec.muscle + stars_held(st, seat) + aura(st, seat, "skull") + st.boost[uid][1]
    if ability_active(st, uid, "vampire"):
        m += sum(st.game.specs[h].muscle for h in st.held[uid])  # Vampire: their basic strength
    return m


def dice(st: ZaberiasState, uid: int, with_rider: bool = True) -> int:
    """Dice rolled by the unit (a Dragon adds its rider's: they fight as one)."""
    d = own_dice(st, uid)
    r = st.rider[uid]
    if with_rider and r >= 0:
        d += own_dice(st, r)
    return d


def muscle(st: ZaberiasState, uid: int, with_rider: bool = True) -> int:
    m = own_muscle(st, uid)
    r = st.rider[uid]
    if with_rider and r >= 0:
        m += own_muscle(st, r)
    return m


def steps(st: ZaberiasState, uid: int) -> int:
    spec = st.game.specs[uid]
    s = spec.steps + st.boost[uid][2]
    if ability_active(st, uid, "phantom"):
        s += sum(st.game.specs[h].steps for h in st.held[uid])  # Phantom: their steps
    return s


def unit_range(st: ZaberiasState, uid: int) -> int:
    return st.game.specs[uid].range


def can_move(st: ZaberiasState, uid: int) -> bool:
    return on_map(st, uid) and not st.moved[uid] and not st.effects[uid] & GLUE


def is_wood_rider(st: ZaberiasState, uid: int) -> bool:
    """Only the Dragon's own tribe's wood-grade units may ride it."""
    return st.game.specs[uid].grade == 1 and st.dragon_of(uid // st.game.U) >= 0


def occupied_mask(st: ZaberiasState) -> int:
    """Bitmask of the cells standing units occupy (memoised per position)."""
    got = st._memo.get("occm")
    if got is None:
        got = 0
        for c in st.occ_cells():
            got |= 1 << c
        st._memo["occm"] = got
    return got


def _special_dests(st: ZaberiasState, uid: int, spec: UnitSpec) -> tuple[int, int]:
    """(occupied cells the unit may still end on, occupied cells it may pass through): a wood unit
    boarding its Dragon or climbing over it on the way (Dragon Q&A: a wood unit may go up one
    side of its Dragon and down the other; not over a Dragon standing on a portal, which blocks
    everyone), or the Dragon picking up an unmoved, unglued wood unit of its tribe by landing on
    it."""
    g = st.game
    U = g.U
    seat = uid // U
    out = 0
    passing = 0
    if spec.ability == "carry" and st.rider[uid] < 0:
        for o in range(seat * U, seat * U + U):
            if o != uid and g.specs[o].grade == 1 and st.status[o] == BOARD and not st.moved[o] \
                    and not st.effects[o] & GLUE:      # a glued unit stays in its place
                out |= 1 << st.cell[o]
    elif spec.grade == 1 and st.status[uid] == BOARD:
        d = st.dragon_of(seat)
        if d >= 0 and st.status[d] == BOARD:
            x = st.cell[d]
            if st.rider[d] < 0:
                out |= 1 << x
            if st.geo.terrain[x] != PORTAL:
                passing = 1 << x
    return out, passing


def reach_cells(st: ZaberiasState, uid: int, occm: int | None = None) -> list[int]:
    """Cells the unit may end a move on, ascending (rulebook 5: orthogonal steps, diagonals only
    on roads, flyers pass over units and water, swimmers cross water, portals one step apart and
    blocked by any occupant; never end on a unit, except a wood unit boarding its Dragon or the
    Dragon picking up an unmoved wood unit; a wood unit may climb over its Dragon). A
    breadth-first search over bitmasks, one layer per step. ``occm``: the occupied cells to use
    (default: the position's)."""
    g = st.game
    spec = g.specs[uid]
    geo = st.geo
    if occm is None:
        occm = occupied_mask(st)
    start = st.cell[uid]
    n = steps(st, uid)
    fly, swim = spec.fly, spec.swim
    if fly:
        blocked = geo.portal_mask & occm          # flyers pass over units, not occupied portals
    else:
        blocked = occm
    wet = 0 if (fly or swim) else geo.water_mask
    special, passing = _special_dests(st, uid, spec)
    blocked &= ~passing
    step_mask = geo.step_mask
    seen = 1 << start
    frontier: tuple[int, ...] = (start,)
    extra = 0
    for _ in range(n):
        nb = 0
        for x in frontier:
            nb |= step_mask[x]
        nb &= ~(seen | wet)
        if special:
            extra |= nb & special
        nb &= ~blocked
        if not nb:
            break
        seen |= nb
        frontier = bit_cells(nb)
    return list(bit_cells(((seen & ~occm) | extra) & ~(1 << start)))


def flight_dists(st: ZaberiasState, src: int, limit: int, occm: int) -> dict[int, int]:
    """Flying distances from ``src`` up to ``limit`` steps: over water and units, an occupied
    portal reached but not passed through (rulebook 5 and 9)."""
    geo = st.geo
    portal = geo.portal_mask
    dist = {src: 0}
    frontier = [src]
    for d in range(1, limit + 1):
        nxt = []
        for x in frontier:
            if x != src and portal >> x & 1 and occm >> x & 1:
                continue
            for y in geo.step_nbrs[x]:
                if y not in dist:
                    dist[y] = d
                    nxt.append(y)
        frontier = nxt
    return dist


def pickup_cells(st: ZaberiasState, dragon: int, start: int, dest: int) -> list[int]:
    """Dragon Q&A (it may fly over an unmoved wood unit and pick it up on its way): cells of the
    tribe's unmoved standing wood units on a legal flight from ``start`` to ``dest``, i.e. flight
    distance start -> unit + unit -> destination within the Dragon's steps. Call it before the
    Dragon leaves ``start``."""
    g = st.game
    U = g.U
    seat = dragon // U
    cands = [st.cell[o] for o in range(seat * U, seat * U + U)
             if o != dragon and g.specs[o].grade == 1 and st.status[o] == BOARD
             and not st.moved[o] and not st.effects[o] & GLUE and st.cell[o] != dest]
    if not cands:
        return []
    n = steps(st, dragon)
    occm = occupied_mask(st) & ~(1 << start)
    a = flight_dists(st, start, n, occm)
    b = flight_dists(st, dest, n, occm)
    return sorted(c for c in cands if c in a and c in b and a[c] + b[c] <= n)


def reach(st: ZaberiasState, uid: int) -> set[int]:
    """``reach_cells`` as a set."""
    return set(reach_cells(st, uid))


def can_step(st: ZaberiasState, uid: int) -> bool:
    """Whether the unit has at least one move (cheap: one empty neighbour settles it)."""
    if not can_move(st, uid):
        return False
    spec = st.game.specs[uid]
    geo = st.geo
    occ = st.occ
    wet_ok = spec.fly or spec.swim
    if spec.ability == "trample" and st.status[uid] == BOARD:
        wet_ok = False                        # the Rhino Rider never steps into water
    terrain = geo.terrain
    for y in geo.step_nbrs[st.cell[uid]]:
        if occ[y] < 0 and (wet_ok or terrain[y] != WATER):
            return True
    if spec.ability == "trample" and st.status[uid] == BOARD:
        saved = st.rhino_left
        st.rhino_left = steps(st, uid)
        ok = bool(rhino_steps(st, uid))
        st.rhino_left = saved
        return ok
    return bool(reach_cells(st, uid))


def trample_victim(st: ZaberiasState, rhino: int, cell: int) -> bool:
    """Rhino Rider Q&A: wood or metal enemy units, not in a city with a flag, even flyers."""
    o = st.occ[cell]
    if o < 0 or o // st.game.U == rhino // st.game.U:
        return False
    if st.game.specs[o].grade >= 3:
        return False
    site = st.geo.site_of[cell]
    if site >= 0 and st.city_owner[site] >= 0:
        return False
    return True


def rhino_steps(st: ZaberiasState, uid: int) -> list[int]:
    """Cells the Rhino Rider may step into next (one step at a time, trampling on the way)."""
    if st.rhino_left <= 0:
        return []
    geo = st.geo
    x = st.cell[uid]
    out = []
    trample = ability_active(st, uid, "trample")
    for y in geo.step_nbrs[x]:
        if geo.terrain[y] == WATER:
            continue
        o = st.occ[y]
        if o < 0 or (trample and trample_victim(st, uid, y)):
            out.append(y)
    return out
