"""Warbah's recruit phase (RECRUIT TROOPS): at each settlement a player controls, in initiative
order, troops of the settlement's kind into its garrison (a Knights castle: knights), a Hero at
the capitol, a tower's Wizard, ships into adjacent water; at a controlled 'Recruit X' terrain
variant hex, special units into the player's Hero standing there.

A queue entry of the phase is (seat, hex): ``mask(st, seat, hex)`` and
``apply(st, seat, hex, action)``; DONE ends the hex. Designed (RULES.md): at most
``max_recruit_per_settlement`` recruits per hex and turn (troops, Heroes, ships and special
units together).
"""
from __future__ import annotations

import numpy as np

from . import abilities, fleets, heroes, hexes, magic
from .actions import DONE, NUM_ACTIONS, RECRUIT, RECRUIT_HERO, RECRUIT_SP, RECRUIT_WIZARD, SHIP0
from .heroes import new_hero
from .state import WarbahState
from .tables import BASIC, SETTLEMENTS, SPECIALS


def recruit_hexes(st: WarbahState, seat: int, owned: tuple | None = None) -> list[int]:
    """Controlled non-settlement hexes with a 'Recruit X' variant, in cell order (``owned``:
    the cells ``seat`` owns, when the caller has them)."""
    cells = np.flatnonzero(st.owner == seat).tolist() if owned is None else owned
    settle, variant = st.settle, st.variant
    return [c for c in cells if settle[c] < 0 and variant[c].startswith("recruit_")]


def special_cost(st: WarbahState, u: int) -> int:
    return st.game.cfg["special_units"][SPECIALS[u]]["cost"]


def recruit_unit(st: WarbahState, c: int) -> str | None:
    """The special unit recruitable at hex c, or None."""
    v = st.variant[c]
    if v.startswith("recruit_"):
        return v[len("recruit_"):]
    return None


# -- the mask -----------------------------------------------------------------------------------
def mask(st: WarbahState, seat: int, c: int) -> np.ndarray:
    out = np.zeros(NUM_ACTIONS, np.int8)
    out[DONE] = 1
    code = st.settle.item(c)
    if code < 0:  # a 'Recruit X' variant hex
        special_recruit_mask(st, seat, c, out)
        return out
    g = st.game
    name = SETTLEMENTS[code]
    rec = g.settle[name]["recruit"]
    u = hexes.garrison_kind(st, c)
    gold = st.gold.item(seat)
    if st.recruited.item(c) < g.max_recruit:
        if u >= 0:  # a Knights castle recruits knights into its garrison
            out[RECRUIT] = gold >= special_cost(st, u)
        elif rec != "none" and gold >= g.troop[rec][2]:
            out[RECRUIT] = 1
        if name == "capitol" and gold >= g.troop["hero"][2] and heroes.hero_at(st, c) < 0:
            out[RECRUIT_HERO] = 1
    if code == magic.TOWER:
        wizard_recruit_mask(st, seat, c, out)
    ship_recruit_mask(st, seat, c, out)
    if u < 0:  # (a Knights castle recruits its knights into the garrison, not RECRUIT_SP)
        special_recruit_mask(st, seat, c, out)
    return out


def special_recruit_mask(st: WarbahState, seat: int, c: int, mask: np.ndarray) -> None:
    u = recruit_unit(st, c)
    if u is None or st.recruited.item(c) >= st.game.max_recruit:
        return
    j = heroes.hero_at(st, c)
    if j < 0 or st.heroes[j].seat != seat:
        return
    h = st.heroes[j]
    k = SPECIALS.index(u)
    if (st.gold[seat] < st.game.cfg["special_units"][u]["cost"]
            or heroes.army_size(h) >= heroes.army_cap(st, h)):
        return
    if h.specials[k] == 0 and heroes.type_count(h) >= heroes.type_limit(st, h):
        return
    mask[RECRUIT_SP] = 1


def ship_recruit_mask(st: WarbahState, seat: int, c: int, mask: np.ndarray) -> None:
    code = st.settle.item(c)
    if (SETTLEMENTS[code] == "mine"
            or st.recruited.item(c) >= st.game.max_recruit):
        return
    if st.gold.item(seat) < st.game.ship_cost:
        return
    own = st.fleets.owner
    occ = None
    for d, m in hexes.neighbours_by_kind(st)[1][c]:  # the water around the hex
        if own.item(m) in (-1, seat):
            if occ is None:
                occ = heroes.hero_map(st)
            j = occ.get(m, -1)  # heroes.hero_at
            if j < 0 or st.heroes[j].seat == seat:
                mask[SHIP0 + d] = 1


def wizard_recruit_mask(st: WarbahState, seat: int, c: int, mask: np.ndarray) -> None:
    if st.settle[c] != magic.TOWER or st.gold[seat] < st.game.cfg["spells"]["wizard_cost"]:
        return
    j = heroes.hero_at(st, c)
    if j >= 0 and st.heroes[j].seat == seat and not magic.has_wizard(st.heroes[j]) \
            and magic.tower_wizard_home(st, c):
        mask[RECRUIT_WIZARD] = 1


# -- applying an action -------------------------------------------------------------------------
def apply(st: WarbahState, seat: int, c: int, a: int) -> None:
    _HANDLERS[a](st, seat, c, a)


def _done(st: WarbahState, seat: int, c: int, a: int) -> None:
    st.queue_pos += 1


def _recruit(st: WarbahState, seat: int, c: int, a: int) -> None:
    """One troop of the settlement's kind into its garrison (a Knights castle: a knight)."""
    u = hexes.garrison_kind(st, c)
    if u >= 0:
        st.gold[seat] -= special_cost(st, u)
        st.garrison_specials[c, u] += 1
    else:
        rec = st.game.settle[SETTLEMENTS[st.settle[c]]]["recruit"]
        st.gold[seat] -= st.game.troop[rec][2]
        st.garrison[c, BASIC.index(rec)] += 1
    st.recruited[c] += 1


def _recruit_hero(st: WarbahState, seat: int, c: int, a: int) -> None:
    """A new Hero at the capitol; his first ability's rolls are open to Luck."""
    st.gold[seat] -= st.game.troop["hero"][2]
    new_hero(st.heroes, seat, c)
    abilities.gain_abilities(st, len(st.heroes) - 1)  # Luck may pause here
    st.recruited[c] += 1


def _recruit_wizard(st: WarbahState, seat: int, c: int, a: int) -> None:
    st.gold[seat] -= st.game.cfg["spells"]["wizard_cost"]
    st.heroes[heroes.hero_at(st, c)].wizard = c + 1


def _recruit_ship(st: WarbahState, seat: int, c: int, a: int) -> None:
    m = st.neighbours[c][a - SHIP0]
    st.gold[seat] -= fleets.sea_rules(st)["ship_cost"]
    st.fleets.ships[m] += 1
    st.fleets.owner[m] = seat
    st.recruited[c] += 1


def _recruit_special(st: WarbahState, seat: int, c: int, a: int) -> None:
    u = recruit_unit(st, c)
    hi = heroes.hero_at(st, c)
    h = st.heroes[hi]
    st.gold[seat] -= st.game.cfg["special_units"][u]["cost"]
    h.specials[SPECIALS.index(u)] += 1
    st.recruited[c] += 1
    abilities.roll_granted_types(st, hi, False)  # Goblins' Tactics: its troop type (Luck)


_HANDLERS: list = [None] * NUM_ACTIONS
for _actions, _handler in (
        ((DONE,), _done), ((RECRUIT,), _recruit), ((RECRUIT_HERO,), _recruit_hero),
        ((RECRUIT_WIZARD,), _recruit_wizard), (range(SHIP0, SHIP0 + 6), _recruit_ship),
        ((RECRUIT_SP,), _recruit_special)):
    for _a in _actions:
        _HANDLERS[_a] = _handler
