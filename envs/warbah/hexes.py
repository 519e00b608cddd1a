"""What stands on a Warbah hex and what it takes to enter, attack or explore it: garrisons,
walls, ownership, movement costs, attack targets, and the exploration rolls (TERRAIN TABLE,
SETTLEMENT TABLE, variant tables, encounter chits)."""
from __future__ import annotations

import numpy as np

from . import heroes, luck
from .board import edge
from .state import Chain, Hero, NextRoll, WarbahState
from .tables import SETTLEMENTS, SPECIALS, TERRAINS, WarbahTables


def neighbours_by_kind(st: WarbahState) -> tuple[tuple, tuple]:
    """(land, water): for each cell, the (direction, cell) pairs of its neighbours on land and
    on water, in direction order (off the map left out). Kept on the state while ``st.land``
    keeps its bytes (the map never changes in play; scenario tests may edit it); a clone takes
    the tables along (tuples: nothing to copy)."""
    key = st.land.tobytes()
    c = st.__dict__.get("_nbr_kind")
    if c is None or c[0] != key:
        land = st.land.tolist()
        c = st._nbr_kind = (
            key,
            tuple(tuple((d, m) for d, m in enumerate(nb) if m >= 0 and land[m])
                  for nb in st.neighbours),
            tuple(tuple((d, m) for d, m in enumerate(nb) if m >= 0 and not land[m])
                  for nb in st.neighbours))
    return c[1], c[2]


def garrisoned(st: WarbahState, m: int) -> bool:
    """A garrison (basic troops or special units) stands in hex m."""
    return any(st.garrison[m].tolist()) or any(st.garrison_specials[m].tolist())


def foreign_garrison(st: WarbahState, seat: int, m: int) -> bool:
    """Hex m holds another player's garrison (MOVE & EXPLORE: "Heroes cannot move into hexes
    that contain ... enemy garrison"; an ally's garrison is not entered either)."""
    return st.owner.item(m) not in (-1, seat) and garrisoned(st, m)


def garrison_kind(st: WarbahState, c: int) -> int:
    """Special unit kind (config.SPECIALS index) a settlement recruits into its garrison
    (a Knights castle: CASTLE VARIANT TYPES), or -1."""
    v = st.variant[c]
    if not v.startswith("recruit_") or st.settle[c] < 0:  # the string test first
        return -1
    return SPECIALS.index(v[len("recruit_"):])


def walls(st: WarbahState, cell: int, from_cell: int) -> int:
    """Wall ranks of ``cell`` against an attack from ``from_cell``: the terrain's or the
    settlement's, a river between (or along) them, less the damage, plus Stone Walls."""
    cfg = st.game.cfg
    t = st.terrain[cell]
    w = 0
    if t >= 0:
        w = (st.game.settle[SETTLEMENTS[st.settle[cell]]]["walls"]
             if TERRAINS[t] == "settlement" else st.game.terrain[TERRAINS[t]]["walls"])
    if edge(cell, from_cell) in st.rivers:
        w = max(w, cfg["river"]["cross_walls"])
    elif any(edge(cell, m) in st.rivers for m in st.neighbours[cell] if m >= 0):
        w = max(w, cfg["river"]["same_side_walls"])
    return max(0, w - int(st.wall_damage[cell])) + st.magic.bonus_walls.get(cell, 0)


def free_candidates(st: WarbahState) -> list[int]:
    """Capitol candidates not taken and not next to a taken capitol."""
    taken = [int(c) for c in st.capitol if c >= 0]
    return [k for k, c in enumerate(st.capitol_candidates)
            if c not in taken and all(int(m) not in taken for m in st.neighbours[c] if m >= 0)]


def settlements_of(st: WarbahState, seat: int) -> list[int]:
    return np.flatnonzero((st.owner == seat) & (st.settle >= 0)).tolist()


def owned_cells(st: WarbahState) -> tuple[dict, dict]:
    """({seat: settlements_of(seat)}, {seat: every hex it owns}), cell order, one pass; tuples
    kept on the state while ``st.owner`` and ``st.settle`` keep their bytes (gold, contacts,
    domination and the observation read them in one turn; a clone starts without them)."""
    key = (st.owner.tobytes(), st.settle.tobytes())
    c = st.__dict__.get("_owned_cells")
    if c is not None and c[0] == key:
        return c[1], c[2]
    sets: dict = {}
    owned: dict = {}
    for x, (o, k) in enumerate(zip(st.owner.tolist(), st.settle.tolist())):
        if o >= 0:
            owned.setdefault(o, []).append(x)
            if k >= 0:
                sets.setdefault(o, []).append(x)
    sets = {o: tuple(v) for o, v in sets.items()}
    owned = {o: tuple(v) for o, v in owned.items()}
    st._owned_cells = (key, sets, owned)
    return sets, owned


def enterable(st: WarbahState, seat: int, h: Hero, m: int, occ: dict | None = None) -> int:
    """MP cost to enter explored land hex m, or 0 if it cannot be entered (``occ``: an
    optional heroes.hero_map of this state, to skip the hero scan)."""
    if st.encounter.item(m) != 0 or (
            heroes.hero_at(st, m) if occ is None else occ.get(m, -1)) >= 0:
        return 0
    if foreign_garrison(st, seat, m):
        return 0
    g = st.game
    cost = g.terrain_mp[st.terrain.item(m)]  # the terrain's MP (game.terrain[...]["mp"])
    if edge(h.cell, m) in st.rivers:
        cost = max(cost, g.cfg["river"]["cross_mp"])
    return cost


def is_target(st: WarbahState, seat: int, m: int, occ: dict | None = None) -> bool:
    """BATTLE: hex m may be attacked by ``seat`` (an enemy Hero, an encounter, an enemy
    garrison; not a Sanctuary). ``occ``: an optional heroes.hero_map of this state."""
    if m < 0 or not st.land.item(m) or not st.explored.item(m) or m in st.magic.sanctuary:
        return False
    j = heroes.hero_at(st, m) if occ is None else occ.get(m, -1)
    if j >= 0:
        return st.heroes[j].seat != seat
    if st.encounter.item(m) != 0:
        return True
    return st.owner.item(m) not in (-1, seat) and garrisoned(st, m)


def explore(st: WarbahState, m: int, seat: int = -1) -> None:
    """Explore hex m: TERRAIN TABLE, then the SETTLEMENT TABLE (castles: CASTLE VARIANT
    TYPES) or the terrain's variant table and the encounter chit (1D10 <= 3). With ``seat``
    (a Hero of that player explores) each roll may be rerolled by Luck (luck.py); the hex is
    written once all rolls are known."""
    luck.chain(st, EXPLORE, (m, seat))


def castle_variant(game: WarbahTables, roll: int) -> str:
    """CASTLE VARIANT TYPES: the variant of a castle for its 1D10 roll ("" none)."""
    return game.cfg["variants"]["castle"].get(roll, "")


def _explore_rolls(st: WarbahState, ctx: tuple, vals: tuple) -> NextRoll | None:
    m, seat = ctx
    g = st.game
    who = (seat,) if seat >= 0 else ()
    if not vals:
        return who, (1, 10)  # TERRAIN TABLE
    t = g.terrain_roll[vals[0]]
    if t == "settlement":
        if len(vals) == 1:
            return who, (1, 10)  # SETTLEMENT TABLE
        name = g.settle_roll[vals[1]]
        if name == "castle" and len(vals) == 2:
            return who, (1, 10)  # CASTLE VARIANT TYPES
    else:
        table = g.cfg["variants"].get(t, {})
        if len(vals) == 1:
            return (who if table else ()), (1, 10)  # the terrain's variant table
        if len(vals) == 2:
            return who, (1, 10)  # encounter chit
    st.explored[m] = True
    st.terrain[m] = TERRAINS.index(t)
    if t == "settlement":
        st.settle[m] = SETTLEMENTS.index(g.settle_roll[vals[1]])
        if len(vals) > 2:
            st.variant[m] = castle_variant(g, vals[2])
    else:
        st.variant[m] = g.cfg["variants"].get(t, {}).get(vals[1], "")
        if vals[2] <= g.cfg["encounter_chance"]:
            st.encounter[m] = -1
    return None


#: the exploration rolls of a hex, open to Luck (``explore``)
EXPLORE = Chain("explore", _explore_rolls)
