"""Warbah fleets: ships on the water hexes (a fleet is the stack of ships in one hex), their
carrying capacity, capture, sinking, and the troops lost when a fleet is over capacity
(phase ``sea_loss``). Sea movement and sea encounters are in sea.py, ships in battle in
battle.py.

Designed (RULES.md): a Hero at sea stands on his fleet's water hex and moves it with him; a
ship carries 10 troops; an unmanned enemy fleet (not an ally's) is taken by a Hero who boards it
or sails into its hex; when the last ship of a Hero's fleet sinks, he and his army are lost.
"""
from __future__ import annotations

from typing import Container

import numpy as np

from . import heroes, magic
from .actions import CASUALTY0, FLEET_SLOTS, LOSS_SP0, NUM_ACTIONS
from .state import Hero, TroopLoss, WarbahState
from .tables import Phase


def sea_rules(st: WarbahState) -> dict:
    """configs/warbah.yaml, section sea."""
    return st.game.cfg["sea"]


def at_sea(st: WarbahState, h: Hero) -> bool:
    return not st.land.item(h.cell)


def capacity(st: WarbahState, ships: int) -> int:
    return sea_rules(st)["ship_capacity"] * int(ships)


def ships_of(st: WarbahState, hi: int) -> int:
    h = st.heroes[hi]
    return int(st.fleets.ships[h.cell]) if h.alive and at_sea(st, h) else 0


def sea_moves_left(st: WarbahState, h: Hero) -> int:
    """The Hero's sea moves left this turn (4 + Navigation at his first sea move of the turn)."""
    if h.sea_moves_turn != st.turn:
        h.sea_moves_turn = st.turn
        h.sea_moves = sea_rules(st)["sea_moves"] + heroes.ability(st, h, "navigation")
    return h.sea_moves


def capturable(st: WarbahState, seat: int, m: int) -> bool:
    """An enemy fleet with no Hero on board (not an ally's): a Hero who boards it or sails into
    its hex takes it (designed reading of the control tokens on ships and the Hero's control
    marker in the hex he occupies; an unmanned fleet may not attack, so it cannot resist)."""
    o = int(st.fleets.owner[m])
    return (st.fleets.ships[m] > 0 and o >= 0 and o != seat and not st.diplomacy.allied[seat, o]
            and heroes.hero_at(st, m) < 0)


def capture(st: WarbahState, seat: int, m: int) -> None:
    """``seat`` takes the fleet in water hex m (if it is another player's)."""
    if st.fleets.ships[m] > 0 and st.fleets.owner[m] != seat:
        st.fleets.captures.append((st.turn, seat, int(st.fleets.owner[m]), m,
                                   int(st.fleets.ships[m])))
        st.fleets.owner[m] = seat
        st.fleets.moves.pop(m, None)


def sink_ship(st: WarbahState, hi: int) -> None:
    """One ship of Hero hi's fleet sinks (a storm, Whirlpool, an agent)."""
    h = st.heroes[hi]
    c = h.cell
    if st.fleets.ships[c] <= 0:
        return
    st.fleets.ships[c] -= 1
    if st.fleets.ships[c] == 0:  # the last ship sinks: the Hero and his army are lost (designed)
        st.fleets.owner[c] = -1
        h.alive = False
        heroes.disband_army(h)  # special units too
        if h.wizard:  # his wizard teleports home
            magic.kill_wizard(st, hi)
        return
    enforce_capacity(st, hi, st.phase)


def enforce_capacity(st: WarbahState, hi: int, ret: Phase) -> bool:
    """Excess troops over 10 per ship disband: the owner picks which (sub-step)."""
    h = st.heroes[hi]
    if not at_sea(st, h):
        return False
    over = heroes.army_size(h) - capacity(st, st.fleets.ships[h.cell])
    if over <= 0:
        return False
    st.troop_loss = TroopLoss(hi, over, ret)
    st.phase = "sea_loss"
    return True


def fleet_cells(st: WarbahState) -> list[int]:
    """Cells with ships, in cell order (np.flatnonzero(st.fleets.ships)); cached on the state
    while ``st.fleets.ships`` keeps the same bytes. Read-only: callers must not change it."""
    key = st.fleets.ships.tobytes()
    c = st.__dict__.get("_fleet_cells")
    if c is None or c[0] != key:
        c = st._fleet_cells = (key, st.fleets.ships.nonzero()[0].tolist())
    return c[1]


def unmanned_fleets(st: WarbahState, seat: int, occ: Container[int] | None = None) -> list[int]:
    """Cells of this player's fleets with no Hero on board (slot order, at most FLEET_SLOTS).
    ``occ``: the cells with a living Hero, when the caller has them."""
    return unmanned_from(st, seat, fleet_cells(st), occ)


def unmanned_from(st: WarbahState, seat: int, cells: list[int], occ: Container[int] | None) -> list[int]:
    """unmanned_fleets from the fleet cells (``fleet_cells``)."""
    out: list[int] = []
    if not cells:
        return out
    own = st.fleets.owner
    if occ is None:
        occ = {h.cell for h in st.heroes if h.alive}  # hexes with a Hero (hero_at >= 0)
    for c in cells:
        if own.item(c) == seat and c not in occ:
            out.append(c)
            if len(out) == FLEET_SLOTS:
                break
    return out


def fleet_left(st: WarbahState, c: int) -> int:
    """Moves left this turn for the unmanned fleet in cell c."""
    t, left = st.fleets.moves.get(c, (-1, 0))
    return left if t == st.turn else st.game.sea_moves


def disband_at_sea(st: WarbahState) -> None:
    """End of the recovery phase: troops gained at sea beyond the ships' room disband; the
    fleets of eliminated players are removed."""
    land = st.land
    for h in st.heroes:  # troops gained at sea (treasure) beyond the ships' room disband
        if h.alive and not land.item(h.cell):
            over = heroes.army_size(h) - capacity(st, st.fleets.ships[h.cell])
            while over > 0:  # designed: automatically, largest group first
                opts = heroes.loss_actions(h)
                cnt = [h.troops[a - CASUALTY0] if a < LOSS_SP0 else h.specials[a - LOSS_SP0]
                       for a in opts]
                heroes.lose(h, opts[int(np.argmax(cnt))])
                over -= 1
    for seat in [s for s, a in enumerate(st.alive.tolist()) if not a]:  # out: fleets removed
        gone = st.fleets.owner == seat
        st.fleets.ships[gone] = 0
        st.fleets.owner[gone] = -1


# -- the phase ``sea_loss``: the owner picks the troops lost over capacity -----------------------
def _loss(st: WarbahState) -> TroopLoss:
    """The troops still to lose over capacity (phase ``sea_loss``)."""
    s = st.troop_loss
    assert s is not None, "phase sea_loss without troops to lose"
    return s


def loss_mask(st: WarbahState) -> np.ndarray:
    out = np.zeros(NUM_ACTIONS, np.int8)
    out[heroes.loss_actions(st.heroes[_loss(st).hero])] = 1
    return out


def loss_advance(st: WarbahState) -> bool:
    """Losses with only one kind left are taken automatically; True while the player must
    pick; then the interrupted phase resumes."""
    s = _loss(st)
    h = st.heroes[s.hero]
    alive = heroes.loss_actions(h)
    while s.left > 0 and len(alive) == 1:
        heroes.lose(h, alive[0])
        s.left -= 1
        alive = heroes.loss_actions(h)
    if s.left > 0 and alive:
        st.to_act = h.seat
        return True
    st.phase, st.troop_loss = s.return_phase, None
    return False


def loss_apply(st: WarbahState, a: int) -> None:
    s = _loss(st)
    heroes.lose(st.heroes[s.hero], a)
    s.left -= 1
