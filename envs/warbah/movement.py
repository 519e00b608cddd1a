"""Warbah's move phase (MOVE & EXPLORE) for the acting Hero: stepping into and exploring
hexes, passing through a friendly Hero, garrison troops in and out, handing troops, special
units and magic items to a friendly Hero instead of moving, Scouting's look at an enemy card,
trading with allies, and (sea.py) boarding, sailing and unmanned fleets.

A queue entry of the phase is one Hero of the player on turn: ``mask(st, seat, hero)`` and
``apply(st, seat, hero, action)``; DONE ends the Hero's move.

MOVE & EXPLORE: "Instead of moving, friendly adjacent heroes may exchange troops or magic
items. A troop or magic item may be exchanged only once per turn": troops (one by one or the
whole army) and items are handed over only by a Hero who has not moved or explored this turn
(``heroes.unmoved``), and troops received this turn are not handed on (``givable_troops``).
Designed (RULES.md): in one turn, at one hex, a Hero moves troops between his army and the
garrison in one direction only (``garrison_lock``); at most 5 troop types (+1 per Command).
"""
from __future__ import annotations

import numpy as np

from . import diplomacy, espionage, heroes, hexes, luck, magic, sea
from .actions import (
    CEDE0,
    DONE,
    DROP_OFF,
    DROP_ONE0,
    DROP_SPECIAL,
    EMPIRE0,
    EXCHANGE0,
    FLEET0,
    FLEET_SLOTS,
    GIVE0,
    GIVE_ITEM0,
    GIVE_SP0,
    HERO_TO0,
    LOOK0,
    NUM_ACTIONS,
    PASS0,
    TAKE_GARRISON,
    TAKE_ONE0,
    TAKE_SPECIAL,
)
from .board import edge
from .state import Hero, WarbahState
from .tables import BASIC, NUM_SPECIALS, SETTLEMENTS, TERRAINS

#: garrison transfers of the move phase, taking from / dropping into the garrison
GARRISON_TAKES = (TAKE_GARRISON, TAKE_SPECIAL) + tuple(range(TAKE_ONE0, TAKE_ONE0 + 4))
GARRISON_DROPS = (DROP_OFF, DROP_SPECIAL) + tuple(range(DROP_ONE0, DROP_ONE0 + 4))
_TAKES, _DROPS = frozenset(GARRISON_TAKES), frozenset(GARRISON_DROPS)  # membership tests


# -- the mask -------------------------------------------------------------------------------------
def mask(st: WarbahState, seat: int, hi: int) -> np.ndarray:
    """The move-phase actions of Hero hi."""
    out = np.zeros(NUM_ACTIONS, np.int8)
    out[DONE] = 1
    h = st.heroes[hi]
    if not h.alive:
        return out
    occ = heroes.hero_map(st)
    # the Heroes next to him: (direction, hex, Hero index), usually none
    adj = [(d, m, occ[m]) for d, m in enumerate(st.neighbours[h.cell]) if m in occ]
    stats: dict = {}  # heroes.army_stats of the Heroes looked at, computed once
    by_kind = hexes.neighbours_by_kind(st)  # (land, water) neighbours of every cell
    delayed = espionage.hero_delayed(st, h)  # Agent Success 6
    # single transfers (garrison troops, troops to a Hero, ...) only on land and not delayed
    transfers = not delayed and st.land.item(h.cell)
    _land_steps(st, seat, h, out, occ, adj, stats, transfers, by_kind[0][h.cell])
    if delayed:  # cannot move or attack this turn
        out[:6] = 0
        out[EMPIRE0:] = 0  # he may still take his garrison or hand his army over
        _whole_army_limits(st, h, out, occ, adj, stats)
    else:
        sea.move_mask(st, seat, hi, h, out, occ, by_kind[1])
        sea.fleet_mask(st, seat, out, occ, by_kind[1])
        _whole_army_limits(st, h, out, occ, adj, stats)
        if transfers:
            _transfer_mask(st, seat, h, out, occ, adj, stats)
    if h.garrison_lock is not None:
        garrison_lock(st, h, out)
    return out


def _stats(st: WarbahState, h: Hero, stats: dict) -> tuple:
    """heroes.army_stats of ``h`` (size, cap, type count, type limit), kept in ``stats``."""
    r = stats.get(h)
    if r is None:
        r = stats[h] = heroes.army_stats(st, h)
    return r


def _land_steps(st: WarbahState, seat: int, h: Hero, mask: np.ndarray, occ: dict, adj: list, stats: dict,
                transfers: bool, near_land: tuple) -> None:
    """Steps onto adjacent land (move or explore), the garrison of an own hex (``_own_hex``),
    the whole army to a friendly Hero, magic items (``adj``: the adjacent Heroes, see
    ``mask``; ``near_land``: the (direction, cell) pairs of the land around him)."""
    c = h.cell
    explored = st.explored
    mp = h.mp
    can_explore = mp + h.scout_moves >= 1
    for d, m in near_land:
        if not explored.item(m):
            if can_explore:
                mask[d] = 1
        elif 0 < hexes.enterable(st, seat, h, m, occ) <= mp:  # 0: cannot enter; else MP
            mask[d] = 1
    if st.owner.item(c) == seat:
        _own_hex(st, h, c, mask, stats, transfers)
    if adj and heroes.unmoved(st, h):  # the whole army, instead of moving (ends this hero's movement)
        near = [(d, st.heroes[j]) for d, _, j in adj if st.heroes[j].seat == seat]
        if near and sum(givable_troops(st, h)) > 0:
            for d, o in near:
                size, cap = _stats(st, o, stats)[:2]
                if size < cap:
                    mask[EXCHANGE0 + d] = 1
    if h.items:
        magic.item_give_mask(st, seat, h, mask, occ)


def _transfer_mask(st: WarbahState, seat: int, h: Hero, mask: np.ndarray, occ: dict, adj: list, stats: dict) -> None:
    """On land: passing through, trading with allies, Scouting's look and single troops to a
    friendly Hero (``adj``: the adjacent Heroes, see ``mask``; the garrison's single troops are
    in ``_own_hex``)."""
    if h.mp >= 2 and adj:
        _pass_mask(st, seat, h, mask, occ, adj)
    if st.game.allies:
        diplomacy.trade_mask(st, seat, h, mask)
    if h.scout_moves > 0:  # Scouting: look at an adjacent Hero's card instead of exploring
        for d, _, j in adj:
            if st.heroes[j].seat != seat and not espionage.is_revealed(st, seat, j):
                mask[LOOK0 + d] = 1
    if not adj:
        return
    # exchange instead of moving: only a Hero that has not moved yet, with a friendly (or
    # allied) Hero on adjacent land (looked for first: most Heroes have none)
    near = []
    land = st.land
    for d, m, j in adj:
        if land.item(m) and diplomacy.friendly(st, seat, st.heroes[j].seat):
            o = st.heroes[j]
            size, cap = _stats(st, o, stats)[:2]
            if size < cap:
                near.append((d, o))
    if not near or not heroes.unmoved(st, h):
        return
    sp = h.specials
    give_sp = None
    if any(sp.tolist()):  # special units, one at a time (once per turn each)
        recv = h.received_specials if h.received_specials_turn == st.turn else 0
        give_sp = ((sp - recv) > 0).nonzero()[0].tolist()
    give = givable_troops(st, h)
    for d, o in near:
        tc, tl = _stats(st, o, stats)[2:]
        new_ok = tc < tl
        ot = o.troops.tolist()
        for t in range(4):
            if give[t] > 0 and (ot[t] > 0 or new_ok):
                mask[GIVE0 + 4 * d + t] = 1
        if give_sp is not None:
            osp = o.specials
            for u in give_sp:
                if new_ok or osp.item(u) > 0:
                    mask[GIVE_SP0 + 13 * d + u] = 1


def _own_hex(st: WarbahState, h: Hero, c: int, mask: np.ndarray, stats: dict, transfers: bool) -> None:
    """In an own hex: the whole garrison into the army (within the cap and the type limit),
    dropping troops of the settlement's kind; with ``transfers`` (on land, not delayed) also
    single garrison troops and special units into the army (within the cap and the type limit)
    and single troops of the settlement's kind into the garrison."""
    gar = st.garrison[c].tolist()
    gsp = st.garrison_specials[c].tolist()
    has_troops, has_sp = any(gar), any(gsp)
    sp = h.specials
    if has_troops or has_sp:  # hexes.garrisoned
        size, cap, tc, tl = _stats(st, h, stats)
        if size < cap:  # special units count against the cap too
            tr = h.troops.tolist()
            if tc + _new_types(gar, tr) + _new_types(gsp, sp.tolist()) <= tl:
                mask[TAKE_GARRISON] = 1  # the whole garrison: no type past the limit
            if transfers:
                new_ok = tc < tl  # 5 troop types (+Command)
                if has_troops:
                    for t in range(4):
                        if gar[t] > 0 and (tr[t] > 0 or new_ok):
                            mask[TAKE_ONE0 + t] = 1
                if has_sp:  # special units (Knights), one at a time: the first kind
                    u = next(k for k, x in enumerate(gsp) if x)
                    if sp.item(u) > 0 or new_ok:
                        mask[TAKE_SPECIAL] = 1
    code = st.settle.item(c)
    if code >= 0:
        u = hexes.garrison_kind(st, c)
        if u >= 0:  # the right type here is the settlement's special unit
            if sp.item(u) > 0:
                mask[DROP_OFF] = 1
                if transfers:
                    mask[DROP_SPECIAL] = 1
        else:
            t = st.game.settlement_recruits[code]
            if t >= 0 and h.troops.item(t) > 0:
                mask[DROP_OFF] = 1
                if transfers:
                    mask[DROP_ONE0 + t] = 1


def givable_troops(st: WarbahState, h: Hero) -> list:
    """The Hero's basic troops by type less those he received this turn (a troop is exchanged
    only once per turn), as a plain list."""
    if h.received_troops_turn != st.turn:
        return h.troops.tolist()
    return (h.troops - h.received_troops).tolist()


def _received_troops(st: WarbahState, h: Hero) -> np.ndarray:
    """Troops Hero ``h`` received one by one this turn (they may not be handed on)."""
    if h.received_troops_turn != st.turn:
        h.received_troops_turn, h.received_troops = st.turn, np.zeros(4, np.int64)
    return h.received_troops


def _whole_army_limits(st: WarbahState, h: Hero, mask: np.ndarray, occ: dict, adj: list, stats: dict) -> None:
    """Drop each whole-army hand-over (EXCHANGE0 + d) that would break the receiver's type
    limit (also for a Hero delayed by espionage, who may still hand his army over; the whole
    garrison's limits are ``_own_hex``'s). ``adj``: the adjacent Heroes (see ``mask``);
    without them there is no hand-over to check."""
    if not adj:
        return
    ex = mask[EXCHANGE0:EXCHANGE0 + 6].tolist()
    if not any(ex):
        return
    nbl = st.neighbours[h.cell]
    give = givable_troops(st, h)
    for d in range(6):
        if ex[d]:
            o = st.heroes[occ.get(nbl[d], -1)]
            tc, tl = _stats(st, o, stats)[2:]
            if tc + _new_types(give, o.troops.tolist()) > tl:
                mask[EXCHANGE0 + d] = 0


def _new_types(give: list, have: list) -> int:
    """Troop types present in ``give`` but absent from ``have`` (counts as plain lists)."""
    return sum(1 for k, o in zip(give, have) if k > 0 and o == 0)


def garrison_lock(st: WarbahState, h: Hero, mask: np.ndarray) -> None:
    """Designed (the rulebook lets a Hero pick up and drop off garrison troops but sets no
    limit): in one turn, at one hex, a Hero moves troops between his army and the garrison in one
    direction only. Without it a take / drop / take ... cycle never ends the move phase."""
    lock = h.garrison_lock
    if lock is not None and lock[0] == st.turn and lock[1] == h.cell:
        mask[list(GARRISON_DROPS if lock[2] else GARRISON_TAKES)] = 0


def _step_cost(st: WarbahState, a: int, b: int) -> int:
    """MP to step from a into explored land hex b (terrain cost, 3 across a river)."""
    cost = st.game.terrain[TERRAINS[st.terrain[b]]]["mp"]
    if edge(a, b) in st.rivers:
        cost = max(cost, st.game.cfg["river"]["cross_mp"])
    return cost


def pass_cost(st: WarbahState, seat: int, h: Hero, d: int, occ: dict | None = None) -> int:
    """MP for a pass-through move (two hexes straight on through a friendly or allied Hero),
    or 0 when not possible (``occ``: an optional heroes.hero_map of this state)."""
    c = h.cell
    m1 = st.neighbours[c][d]
    if m1 < 0 or not st.land[m1] or not st.explored[m1]:
        return 0
    j = heroes.hero_at(st, m1) if occ is None else occ.get(m1, -1)
    if j < 0 or not diplomacy.friendly(st, seat, st.heroes[j].seat):
        return 0
    m2 = st.neighbours[m1][d]
    if m2 < 0 or not st.land[m2] or not st.explored[m2] or st.encounter[m2] != 0:
        return 0
    if (heroes.hero_at(st, m2) if occ is None else occ.get(m2, -1)) >= 0 or (
            st.owner[m2] not in (-1, seat) and hexes.garrisoned(st, m2)):
        return 0
    return _step_cost(st, c, m1) + _step_cost(st, m1, m2)


def _pass_mask(st: WarbahState, seat: int, h: Hero, mask: np.ndarray, occ: dict, adj: list) -> None:
    """PASS0 + d towards each adjacent Hero (``adj``; elsewhere no Hero to pass through:
    pass_cost would give 0)."""
    if h.mp < 2:
        return
    for d, _, _ in adj:
        cost = pass_cost(st, seat, h, d, occ)
        mask[PASS0 + d] = 0 < cost <= h.mp


# -- applying an action (dispatched by ``_HANDLERS``) ---------------------------------------------
def apply(st: WarbahState, seat: int, hi: int, a: int) -> None:
    note_garrison(st, st.heroes[hi], a)
    _HANDLERS[a](st, seat, hi, a)


def note_garrison(st: WarbahState, h: Hero, a: int) -> None:
    """Record the direction of a garrison transfer (see ``garrison_lock``)."""
    if a in _TAKES:
        h.garrison_lock = (st.turn, h.cell, True)
    elif a in _DROPS:
        h.garrison_lock = (st.turn, h.cell, False)


def _done(st: WarbahState, seat: int, hi: int, a: int) -> None:
    st.queue_pos += 1  # this Hero's move is over


def _step(st: WarbahState, seat: int, hi: int, a: int) -> None:
    """A direction: at sea or onto water, sea.py; on land, explore an unknown hex (a Scouting
    move first) or step into an explored one (a merchant caravan pays once)."""
    h = st.heroes[hi]
    if sea.is_sea_step(st, h, a):
        sea.move_apply(st, seat, hi, h, a)
        return
    m = st.neighbours[h.cell][a]
    h.moved_turn = st.turn
    if not st.explored.item(m):
        hexes.explore(st, m, seat)
        if h.scout_moves > 0:
            h.scout_moves -= 1
        else:
            h.mp -= 1
        return
    h.mp -= hexes.enterable(st, seat, h, m)
    h.cell = m
    _enter(st, seat, m)


def _enter(st: WarbahState, seat: int, m: int) -> None:
    if st.variant[m] == "merchant_caravan":  # once only
        st.variant[m] = ""
        caravan(st, seat)  # its gold dice (Luck may pause here)


def _drop_off(st: WarbahState, seat: int, hi: int, a: int) -> None:
    """All troops of the settlement's kind into its garrison (a Knights castle: knights)."""
    h = st.heroes[hi]
    c = h.cell
    u = hexes.garrison_kind(st, c)
    if u >= 0:
        st.garrison_specials[c, u] += h.specials[u]
        h.specials[u] = 0
        return
    t = BASIC.index(st.game.settle[SETTLEMENTS[st.settle[c]]]["recruit"])
    st.garrison[c, t] += h.troops[t]
    h.troops[t] = 0


def _hand_army(st: WarbahState, seat: int, hi: int, a: int) -> None:
    """The whole army (its troops not received this turn, within the receiver's cap) to the
    friendly Hero in direction d."""
    h = st.heroes[hi]
    o = st.heroes[heroes.hero_at(st, st.neighbours[h.cell][a - EXCHANGE0])]
    room = heroes.army_cap(st, o) - heroes.army_size(o)  # specials count too
    give = givable_troops(st, h)
    got = _received_troops(st, o)
    for t in range(4):
        k = min(room, give[t])
        o.troops[t] += k
        h.troops[t] -= k
        got[t] += k  # a troop may be exchanged only once per turn
        room -= k
    h.mp, h.scout_moves = 0, 0
    st.queue_pos += 1  # instead of moving: this hero's move is over


def _take_garrison(st: WarbahState, seat: int, hi: int, a: int) -> None:
    """The whole garrison (within the cap): basic troops, then special units."""
    h = st.heroes[hi]
    c = h.cell
    room = heroes.army_cap(st, h) - heroes.army_size(h)  # specials count too
    for t in range(4):
        k = int(min(room, st.garrison[c, t]))
        h.troops[t] += k
        st.garrison[c, t] -= k
        room -= k
    for u in np.flatnonzero(st.garrison_specials[c]).tolist():  # special units (Knights)
        k = int(min(room, st.garrison_specials[c, u]))
        h.specials[u] += k
        st.garrison_specials[c, u] -= k
        room -= k


def _give_item(st: WarbahState, seat: int, hi: int, a: int) -> None:
    magic.give_item(st, seat, hi, a - GIVE_ITEM0)


def _give_troop(st: WarbahState, seat: int, hi: int, a: int) -> None:
    h = st.heroes[hi]
    d, t = divmod(a - GIVE0, 4)
    o = st.heroes[heroes.hero_at(st, st.neighbours[h.cell][d])]
    h.troops[t] -= 1
    o.troops[t] += 1
    _received_troops(st, o)[t] += 1  # a troop may be exchanged only once per turn
    h.mp, h.scout_moves = 0, 0  # instead of moving


def _give_special(st: WarbahState, seat: int, hi: int, a: int) -> None:
    h = st.heroes[hi]
    d, u = divmod(a - GIVE_SP0, 13)
    o = st.heroes[heroes.hero_at(st, st.neighbours[h.cell][d])]
    h.specials[u] -= 1
    o.specials[u] += 1
    if o.received_specials_turn != st.turn:
        o.received_specials_turn, o.received_specials = st.turn, np.zeros(NUM_SPECIALS, np.int64)
    o.received_specials[u] += 1
    h.mp, h.scout_moves = 0, 0  # instead of moving


def _take_one(st: WarbahState, seat: int, hi: int, a: int) -> None:
    h = st.heroes[hi]
    t = a - TAKE_ONE0
    st.garrison[h.cell, t] -= 1
    h.troops[t] += 1


def _drop_one(st: WarbahState, seat: int, hi: int, a: int) -> None:
    h = st.heroes[hi]
    t = a - DROP_ONE0
    st.garrison[h.cell, t] += 1
    h.troops[t] -= 1


def _take_special(st: WarbahState, seat: int, hi: int, a: int) -> None:
    h = st.heroes[hi]
    c = h.cell
    u = int(np.flatnonzero(st.garrison_specials[c])[0])
    st.garrison_specials[c, u] -= 1
    h.specials[u] += 1


def _drop_special(st: WarbahState, seat: int, hi: int, a: int) -> None:
    h = st.heroes[hi]
    c = h.cell
    u = hexes.garrison_kind(st, c)
    st.garrison_specials[c, u] += 1
    h.specials[u] -= 1


def _trade(st: WarbahState, seat: int, hi: int, a: int) -> None:
    """Allies trade settlements and Heroes (diplomacy.py)."""
    diplomacy.trade_apply(st, seat, hi, a)
    if HERO_TO0 <= a:
        st.queue_pos += 1  # the Hero now belongs to the ally: this queue entry is done


def _look(st: WarbahState, seat: int, hi: int, a: int) -> None:
    """Scouting: the adjacent enemy Hero's index card is seen this turn."""
    h = st.heroes[hi]
    st.espionage.revealed[(seat, heroes.hero_at(st, st.neighbours[h.cell][a - LOOK0]))] = st.turn
    h.scout_moves -= 1


def _pass_through(st: WarbahState, seat: int, hi: int, a: int) -> None:
    """Two hexes straight on through a friendly or allied Hero."""
    h = st.heroes[hi]
    d = a - PASS0
    h.mp -= pass_cost(st, seat, h, d)
    h.moved_turn = st.turn
    m = st.neighbours[st.neighbours[h.cell][d]][d]
    h.cell = m
    _enter(st, seat, m)  # as a normal move


def _fleet(st: WarbahState, seat: int, hi: int, a: int) -> None:
    sea.fleet_apply(st, seat, a)


_HANDLERS: list = [None] * NUM_ACTIONS
for _actions, _handler in (
        (range(6), _step), ((DONE,), _done), ((DROP_OFF,), _drop_off),
        (range(EXCHANGE0, EXCHANGE0 + 6), _hand_army), ((TAKE_GARRISON,), _take_garrison),
        (range(GIVE_ITEM0, GIVE_ITEM0 + 6), _give_item), (range(GIVE0, GIVE0 + 24), _give_troop),
        (range(TAKE_ONE0, TAKE_ONE0 + 4), _take_one), (range(DROP_ONE0, DROP_ONE0 + 4), _drop_one),
        ((TAKE_SPECIAL,), _take_special), ((DROP_SPECIAL,), _drop_special),
        (range(GIVE_SP0, GIVE_SP0 + 6 * 13), _give_special), (range(CEDE0, HERO_TO0 + 3), _trade),
        (range(LOOK0, LOOK0 + 6), _look), (range(PASS0, PASS0 + 6), _pass_through),
        (range(FLEET0, FLEET0 + 6 * FLEET_SLOTS), _fleet)):
    for _a in _actions:
        _HANDLERS[_a] = _handler


# -- the merchant caravan -------------------------------------------------------------------------
def caravan(st: WarbahState, seat: int) -> None:
    """MERCHANT CARAVAN (a Hero of ``seat`` enters it): its gold dice, open to Luck for the
    Hero's player (designed: the roller's own roll)."""
    dice = (st.game.cfg["caravan_gold_dice"], 10)
    v = luck.roll(st.rng, dice)
    if not luck.offer(st, "caravan", (seat,), v, dice, _caravan_gold, (seat,)):
        st.gold[seat] += v


def _caravan_gold(st: WarbahState, value: int, ctx: tuple) -> None:
    st.gold[ctx[0]] += value
