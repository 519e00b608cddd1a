"""Warbah at sea: boarding, sailing and landing, exploring from the sea, the SEA ENCOUNTER TABLE
(winds, calm, storms, pirates and sea monsters: sea battles in battle_flow.py), and moving
unmanned fleets. Fleets themselves (capacity, capture, sinking) are in fleets.py.

Designed (RULES.md): a Hero spends 1 MP to board an adjacent own fleet; at sea he has
``4 + Navigation`` sea moves per turn (Good Winds +1, Becalmed -1, Storm ends them); a sea move
may enter an empty water hex or one with an own unmanned fleet (the fleets merge), explore an
adjacent unknown land hex, or land on an adjacent explored land hex (landing ends the Hero's
movement; the fleet stays as an unmanned fleet). Heroes at sea attack only adjacent Heroes at
sea. The sea encounter roll after each hex sailed is the Hero's own roll, open to his Luck.
"""
from __future__ import annotations

from typing import Container

import numpy as np

from . import battle_flow, fleets, heroes, hexes, luck
from .actions import EXCHANGE0, FLEET0
from .state import Chain, Hero, NextRoll, WarbahState


def _water_ok(st: WarbahState, seat: int, m: int) -> bool:
    return (m >= 0 and not st.land[m] and heroes.hero_at(st, m) < 0
            and (st.fleets.ships[m] == 0 or st.fleets.owner[m] == seat
                 or fleets.capturable(st, seat, m)))


def is_sea_step(st: WarbahState, h: Hero, d: int) -> bool:
    """Direction action d for this Hero is handled here (boarding, sailing, landing)."""
    m = st.neighbours[h.cell][d]  # (plain ints)
    return fleets.at_sea(st, h) or (m >= 0 and not st.land.item(m))


def move_mask(st: WarbahState, seat: int, x: int, h: Hero, mask: np.ndarray, occ: dict | None = None,
              near_water: tuple | None = None) -> None:
    """The direction actions at sea (sail, explore, land) and, on land, boarding an adjacent
    own (or capturable) fleet; no whole-army hand-over onto or from a ship. ``occ``:
    heroes.hero_map of this state, ``near_water``: hexes.neighbours_by_kind's water table,
    when the caller has them."""
    c = h.cell
    if fleets.at_sea(st, h):
        mask[:6] = 0
        mask[EXCHANGE0:EXCHANGE0 + 6] = 0
        if fleets.sea_moves_left(st, h) < 1:
            return
        for d in range(6):
            m = int(st.neighbours[c][d])
            if m < 0:
                continue
            if not st.land[m]:
                mask[d] = _water_ok(st, seat, m)
            elif not st.explored[m]:
                mask[d] = 1
            else:
                mask[d] = hexes.enterable(st, seat, h, m) > 0
        return
    ships, owner = st.fleets.ships, st.fleets.owner
    if occ is None:
        occ = heroes.hero_map(st)
    if near_water is None:
        near_water = hexes.neighbours_by_kind(st)[1]
    for d, m in near_water[c]:
        mask[EXCHANGE0 + d] = 0  # no hand-over onto a ship
        if (h.mp >= 1 and ships.item(m) > 0 and m not in occ  # (hero_at(st, m) < 0)
                and (owner.item(m) == seat or fleets.capturable(st, seat, m))):
            mask[d] = 1  # board the fleet


def move_apply(st: WarbahState, seat: int, x: int, h: Hero, a: int) -> None:
    """A direction action that boards, sails, explores from the sea, or lands."""
    c = h.cell
    m = int(st.neighbours[c][a])
    h.moved_turn = st.turn  # boarding, sailing, exploring and landing are moves
    if not fleets.at_sea(st, h):  # boarding (1 MP); excess troops disband
        fleets.capture(st, seat, m)  # an undefended enemy fleet is taken
        h.mp -= 1
        h.cell = m
        fleets.sea_moves_left(st, h)
        fleets.enforce_capacity(st, x, "move")
        return
    h.sea_moves -= 1
    if st.land[m]:
        if not st.explored[m]:
            hexes.explore(st, m)
            return
        h.cell = m  # landing ends the move; the fleet waits as an unmanned fleet
        h.mp = h.sea_moves = 0
        h.scout_moves = 0
        return
    fleets.capture(st, seat, m)  # sailing into an undefended enemy fleet takes it (merged)
    st.fleets.ships[m] += st.fleets.ships[c]
    st.fleets.owner[m] = seat
    st.fleets.ships[c], st.fleets.owner[c] = 0, -1
    h.cell = m
    roll = luck.d10(st.rng)
    if luck.offer(st, "sea", (seat,), roll, (1, 10), _sea_roll, (x,)):  # Luck: any lucky Hero of the player
        return
    sea_encounter(st, x, roll)


def sea_encounter(st: WarbahState, hi: int, roll: int) -> None:
    """SEA ENCOUNTER TABLE, rolled after each hex moved at sea."""
    h = st.heroes[hi]
    row = fleets.sea_rules(st)["encounters"].get(roll, {})
    kind = row.get("kind", "none")
    st.fleets.encounter_log.append((st.turn, hi, roll, kind))
    if kind == "winds":
        h.sea_moves += row["moves"]
    elif kind == "becalmed":
        h.sea_moves = max(0, h.sea_moves + row["moves"])
    elif kind == "storm":
        h.sea_moves = 0
        luck.chain(st, STORM, (hi, row["sink_max"]))  # Luck: the sinking roll (luck.py)
    elif kind in ("monster", "pirates"):
        battle_flow.start_sea_battle(st, hi, row)


def _sea_roll(st: WarbahState, value: int, ctx: tuple) -> None:
    """The sea encounter roll once Luck is settled (ctx: the sailing Hero)."""
    sea_encounter(st, ctx[0], value)


def _storm_roll(st: WarbahState, ctx: tuple, vals: tuple) -> NextRoll | None:
    """SEA ENCOUNTER TABLE, Storm: 1D10 <= sink_max sinks a ship; Luck may reroll it (the
    sailing Hero's player)."""
    hi, sink_max = ctx
    if not vals:
        return (st.heroes[hi].seat,), (1, 10)
    if vals[0] <= sink_max:
        fleets.sink_ship(st, hi)
    return None


#: the storm's sinking roll (SEA ENCOUNTER TABLE), open to Luck
STORM = Chain("storm", _storm_roll)


def fleet_mask(st: WarbahState, seat: int, mask: np.ndarray, occ: Container[int] | None = None, near_water: tuple | None = None) -> None:
    """MOVE: fleets without a Hero on board may move (designed: up to 4 hexes a turn, during any
    of the player's Heroes' moves; no sea encounters, no attacks). ``occ``: the hexes with a
    living Hero (a set, or heroes.hero_map's dict), ``near_water``: hexes.neighbours_by_kind's
    water table, when the caller has them."""
    cells = fleets.fleet_cells(st)
    if not cells:
        return
    if occ is None:
        occ = {h.cell for h in st.heroes if h.alive}  # hexes with a Hero (hero_at >= 0)
    mine = fleets.unmanned_from(st, seat, cells, occ)
    if not mine:
        return
    own = st.fleets.owner
    if near_water is None:
        near_water = hexes.neighbours_by_kind(st)[1]
    for k, c in enumerate(mine):
        if fleets.fleet_left(st, c) <= 0:
            continue
        a0 = FLEET0 + 6 * k
        for d, m in near_water[c]:
            if m not in occ and own.item(m) in (-1, seat):
                mask[a0 + d] = 1


def fleet_apply(st: WarbahState, seat: int, a: int) -> None:
    """FLEET0 + 6k + d: the player's unmanned fleet k moves one hex in direction d."""
    k, d = divmod(a - FLEET0, 6)
    c = fleets.unmanned_fleets(st, seat)[k]
    m = int(st.neighbours[c][d])
    left = fleets.fleet_left(st, c) - 1
    if st.fleets.ships[m] > 0:  # merging with an own unmanned fleet: the slower one sets the pace
        left = min(left, fleets.fleet_left(st, m))
    st.fleets.ships[m] += st.fleets.ships[c]
    st.fleets.owner[m] = seat
    st.fleets.ships[c], st.fleets.owner[c] = 0, -1
    st.fleets.moves.pop(c, None)
    st.fleets.moves[m] = (st.turn, left)
