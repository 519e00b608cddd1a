"""Zaberias unit statistics (dice, muscle, steps with auras, stars, siphons, boosts) and movement
(steps, flying, swimming, roads, portals, the Dragon's rider, the Rhino Rider's trample).

Rulebook sections: "5: Steps", "9: Magical Places" (portals, power stars), the Q&A entries of the
Skull Dragon, Giant Armor, Vampire, Ninja, Phantom, Spider Witch, Dragon and Rhino Rider.
"""
from __future__ import annotations

from envs.zaberias.board import PORTAL, WATER

ARMORY, BOARD, HELD, RIDING = 0, 1, 2, 3
LOVE, STUN, SHOCK, GLUE = 1, 2, 4, 8
EFFECT_NAMES = {LOVE: "loved (cannot attack the Undead)", STUN: "dazzled (no ability)",
                SHOCK: "shocked (cannot attack)", GLUE: "glued (cannot move)"}


def on_map(st, uid: int) -> bool:
    """A unit on the board, standing or riding a Dragon."""
    return st.status[uid] in (BOARD, RIDING)


def ability_active(st, uid: int, ability: str) -> bool:
    """The unit has ``ability`` and is not dazzled (Dazzle Walker disables every ability)."""
    return st.game.specs[uid].ability == ability and not st.effects[uid] & STUN


def aura(st, seat: int, ability: str) -> int:
    """1 while the seat's unit with aura ``ability`` (skull / armor) stands on the map, undazzled."""
    uid = st.game.ability_uid.get((seat, ability), -1)
    if uid >= 0 and st.status[uid] in (BOARD, RIDING) and not st.effects[uid] & STUN:
        return 1
    return 0


def stars_held(st, seat: int) -> int:
    """Power stars occupied by the seat's units (rulebook 9: +1 muscle per star to every unit)."""
    U = st.game.U
    return sum(1 for c in st.geo.stars if st.occ[c] >= 0 and st.occ[c] // U == seat)


def own_dice(st, uid: int) -> int:
    spec = st.game.specs[uid]
    seat = uid // st.game.U
    d = spec.dice + aura(st, seat, "armor") + st.boost[uid][0]
    if ability_active(st, uid, "ninja"):
        d += len(st.held[uid])                       # Ninja: one die per held unit
    return d


def own_muscle(st, uid: int) -> int:
    spec = st.game.specs[uid]
    seat = uid // st.game.U
    m = spec.muscle + stars_held(st, seat) + aura(st, seat, "skull") + st.boost[uid][1]
    if ability_active(st, uid, "vampire"):
        m += sum(st.game.specs[h].muscle for h in st.held[uid])  # Vampire: their basic strength
    return m


def dice(st, uid: int, with_rider: bool = True) -> int:
    """Dice rolled by the unit (a Dragon adds its rider's: they fight as one)."""
    d = own_dice(st, uid)
    r = st.rider[uid]
    if with_rider and r >= 0:
        d += own_dice(st, r)
    return d


def muscle(st, uid: int, with_rider: bool = True) -> int:
    m = own_muscle(st, uid)
    r = st.rider[uid]
    if with_rider and r >= 0:
        m += own_muscle(st, r)
    return m


def steps(st, uid: int) -> int:
    spec = st.game.specs[uid]
    s = spec.steps + st.boost[uid][2]
    if ability_active(st, uid, "phantom"):
        s += sum(st.game.specs[h].steps for h in st.held[uid])  # Phantom: their steps
    return s


def unit_range(st, uid: int) -> int:
    return st.game.specs[uid].range


def can_move(st, uid: int) -> bool:
    return on_map(st, uid) and not st.moved[uid] and not st.effects[uid] & GLUE


def is_wood_rider(st, uid: int) -> bool:
    """Only the Dragon's own tribe's wood-grade units may ride it."""
    return st.game.specs[uid].grade == 1 and st.dragon_of(uid // st.game.U) >= 0


def reach(st, uid: int) -> set[int]:
    """Cells the unit may end a move on (rulebook 5: orthogonal steps, diagonals only on roads,
    flyers pass over units and water, swimmers cross water, portals one step apart and blocked by
    any occupant; never end on a unit, except a wood unit boarding its Dragon or the Dragon
    picking up an unmoved wood unit)."""
    g = st.game
    spec = g.specs[uid]
    geo = st.geo
    occ = st.occ
    terrain = geo.terrain
    start = st.cell[uid]
    n = steps(st, uid)
    fly, swim = spec.fly, spec.swim
    seen = {start}
    frontier = [start]
    dests = set()
    U = g.U
    seat = uid // U
    carry = spec.ability == "carry" and st.rider[uid] < 0
    boarding = st.status[uid] == BOARD and spec.grade == 1
    my_dragon = st.dragon_of(seat) if boarding else -1
    if my_dragon >= 0 and (st.status[my_dragon] != BOARD or st.rider[my_dragon] >= 0):
        my_dragon = -1
    for _ in range(n):
        nxt = []
        for x in frontier:
            for y in geo.step_nbrs[x]:
                if y in seen:
                    continue
                t = terrain[y]
                if t == WATER and not (fly or swim):
                    continue
                o = occ[y]
                if o >= 0:
                    if o == my_dragon:
                        dests.add(y)                  # a wood unit gets on its Dragon
                    elif carry and o // U == seat and g.specs[o].grade == 1 \
                            and st.status[o] == BOARD and not st.moved[o] and o != uid:
                        dests.add(y)                  # the Dragon picks up an unmoved wood unit
                    if t == PORTAL or not fly:
                        continue                      # units block walkers; portals block all
                seen.add(y)
                nxt.append(y)
                if o < 0:
                    dests.add(y)
        frontier = nxt
    dests.discard(start)
    return dests


def trample_victim(st, rhino: int, cell: int) -> bool:
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


def rhino_steps(st, uid: int) -> list[int]:
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
