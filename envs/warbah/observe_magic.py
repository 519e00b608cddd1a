"""The magic section of a Warbah observation (``magic``, 266 entries; the layout is in
observe.py's docstring): the magic phase and window, my realm hand and items, my battle hand,
the foe's spell state in battle, deck sizes, Scry, a Luck decision of mine on a roll, Fortell.
"""
from __future__ import annotations

import numpy as np

from . import luck
from .battle_spells import spells_of
from .espionage import STAGES
from .map_planes import float_view
from .state import Battle, BattleMagic, Hero, WarbahState
from .tables import MAGIC_PHASES, TIMINGS

_MAGIC_PHASE = {p: i for i, p in enumerate(MAGIC_PHASES)}

MAGIC_VECTOR = 266


def observe_magic(st: WarbahState, seat: int, v: np.ndarray | memoryview[float] | None = None,
                  mine: list[Hero] | None = None) -> np.ndarray | memoryview[float]:
    """Magic section of the observation (see observe.py's docstring for the layout), written
    into ``v`` (zeros, MAGIC_VECTOR long: observe.py passes a memoryview of its section) or a new
    array. ``mine``: my living Heroes in order, when the caller has them."""
    T = st.game.spells
    NR, NB = T.NR, T.NB
    if v is None:
        v = np.zeros(MAGIC_VECTOR, np.float32)
    w = v if type(v) is memoryview else float_view(v)  # float32 items: no numpy scalars
    m = st.magic
    phase = st.phase
    k = _MAGIC_PHASE.get(phase)
    if k is not None:
        w[k] = 1
        if k < 2 and m.window:  # REALM_PHASES
            w[4 + TIMINGS.index(m.window)] = 1
        if phase == "realm_target" and m.pending is not None:
            w[11] = (m.pending[0] + 1) / NR
    hands = m.hands
    if mine is None:
        mine = [h for h in st.heroes if h.alive and h.seat == seat]
    wiz = _hand_and_items(w, hands[seat], mine, NR, NB)
    bo = 13 + 2 * NR  # 65: my battle hand
    s0 = bo + 2 * NB  # 149
    if wiz:
        w[s0] = min(wiz, 4) / 4
    hero = None  # the hero now acting for me (realm window, move, battle declaration)
    if phase in ("realm", "realm_target", "move", "battle") and st.queue_pos < len(st.queue) \
            and st.queue[st.queue_pos][0] == seat:
        x = st.queue[st.queue_pos][1]
        hero = st.heroes[x] if x >= 0 else None
    N = st.game.num_seats
    for r in range(1, N):
        kk = len(hands[(seat + r) % N])
        if kk:
            w[s0 + 2 + r] = min(kk, 4) / 4  # 152-154
    b = st.battle
    if b is not None and b.magic is not None:
        hero = _battle_part(st, seat, w, bo, s0, NB, b, b.magic) or hero
    if hero is not None:
        if hero.wizard:  # has_wizard
            w[s0 + 1] = 1
        its = hero.items
        if its:
            w[s0 + 2] = min(len(its), 4) / 4
    w[s0 + 13] = len(m.realm_deck) / NR
    w[s0 + 14] = len(m.battle_deck) / NB
    w[s0 + 15] = min(m.hand_limit[seat], 5) / 5  # hand limit (towers + temples)
    kk = len(hands[seat])
    if kk:
        w[s0 + 16] = min(kk, 4) / 4
    if m.scry_turn[seat] == st.turn:  # scried
        _scry_part(st, seat, w, s0 + 17, NR, NB)
    if phase == "luck" or phase == "espionage":
        _decisions_part(st, seat, w)
    return v


def _hand_and_items(w: memoryview[float], hand: list[int], mine: list[Hero], NR: int, NB: int) -> int:
    """My realm hand (13..), my Heroes' realm-spell items (13 + NR..) and battle-spell items
    (13 + 2 NR + NB..). Returns how many of my Heroes have a Wizard."""
    for k in hand:
        w[13 + k] += 0.5
    o = 13 + NR  # 39: my heroes' realm-spell items
    io = o + NR + NB  # 107: my battle-spell items
    wiz = 0
    for h in mine:
        if h.wizard:  # has_wizard
            wiz += 1
        for it in h.items:
            if it.kind == "realm":
                w[o + it.spell] += 0.5
            elif it.kind == "battle":
                w[io + it.spell] += 0.5
    return wiz


def _decisions_part(st: WarbahState, seat: int, w: memoryview[float]) -> None:
    """261-264: a Luck decision of mine on a spell / agent roll; 265: I decide on Fortell."""
    phase = st.phase
    lk = luck.pending_for(st, seat) if phase == "luck" else None
    s = st.luck
    if lk is not None and s is not None:
        w[261], w[262], w[263] = 1, (lk[0] + 1) / len(luck.KINDS), lk[1]
        w[264] = s.value / (s.dice[0] * s.dice[1])
    e = st.espionage.mission if phase == "espionage" else None
    if e is not None and e.stage == "fortell" and e.fortell_seat == seat and e.fortell is not None:
        w[265] = (STAGES.index(e.fortell[0]) + 1) / len(STAGES)


def _battle_part(st: WarbahState, seat: int, w: memoryview[float], bo: int, s0: int, NB: int,
                 b: Battle, bm: BattleMagic) -> Hero | None:
    """My battle hand and the spell state of both sides (my army: the casting one when it is
    mine, else my first: lead, defender, joiners) in battle ``b`` with magic ``bm``. Returns my
    army's Hero, else None."""
    arm = list(b.sides) + list(b.members)
    mine = [k for k in range(len(arm)) if arm[k].seat == seat]
    if not mine:
        return None
    c = bm.caster
    k = c if c in mine and st.phase in ("spell", "spell_target") else mine[0]
    me, foe = arm[k], b.sides[0 if k == 1 else 1]
    mm, fm = spells_of(me), spells_of(foe)
    for s in mm.hand:
        w[bo + s] += 0.5
    w[s0 + 6] = min(len(fm.hand), 6) / 6
    w[s0 + 7] = fm.wizard
    w[s0 + 8] = (b.round + 1) in mm.spellbound or b.round in mm.spellbound
    w[s0 + 9] = (b.round + 1) in fm.spellbound or b.round in fm.spellbound
    last = bm.last_cast
    if last is not None and (last[0] == 1) != (k == 1) and last[2] == b.round:
        w[s0 + 10] = (last[3] + 1) / NB
    w[s0 + 11] = min(mm.resist, 2) / 2
    w[s0 + 12] = min(fm.resist, 2) / 2
    if st.phase == "spell_target" and bm.pending is not None:
        w[12] = (bm.pending + 1) / NB
    return st.heroes[me.hero] if me.hero >= 0 else None


def _scry_part(st: WarbahState, seat: int, w: memoryview[float], sc: int, NR: int, NB: int) -> None:
    """Scry this turn: the next 5 realm and battle cards, the opponents' realm hands."""
    m = st.magic
    N = st.game.num_seats
    w[sc] = 1
    for k in m.realm_deck[-5:]:
        w[sc + 1 + k] += 0.5
    for k in m.battle_deck[-5:]:
        w[sc + 1 + NR + k] += 0.5
    for r in range(1, N):
        for k in m.hands[(seat + r) % N]:
            w[sc + 1 + NR + NB + k] += 0.25
