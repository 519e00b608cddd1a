"""Warbah diplomacy: alliances (option ``allies=True``, 3-4 players).

A diplomacy step runs each turn after espionage (before moving), in initiative order. The
player on turn may, one action at a time:

- ``ALLY_PROPOSE0 + r - 1``: offer an alliance to the player r seats after it (r = 1..3); that
  player answers at once (phase ``ally_answer``: ``ALLY_ACCEPT`` / ``ALLY_DECLINE``);
- ``ALLY_BREAK0 + r - 1``: declare the alliance with that player over;
- ``ALLY_GOLD0 + r - 1``: give one gold to that ally (allies may trade);
- ``DONE``.

Alliances end when one ally attacks the other (``on_attack``, from battle_flow). Allies
exchange troops between adjacent Heroes like friends (movement.py), are never targets of each
other's agents, and are ranked separately at the end (designed).
"""
from __future__ import annotations

import numpy as np

from .actions import (
    ALLY_ACCEPT,
    ALLY_BREAK0,
    ALLY_DECLINE,
    ALLY_GOLD0,
    ALLY_PROPOSE0,
    CEDE0,
    DONE,
    HERO_TO0,
    NUM_ACTIONS,
)
from .state import AllianceTurn, Hero, WarbahState


def enabled(st: WarbahState) -> bool:
    """The variant plays with alliances (allies=True)."""
    return st.game.allies


def begin(st: WarbahState) -> bool:
    if not enabled(st) or st.diplomacy.turn == st.turn:
        return False
    st.diplomacy.turn = st.turn
    st.diplomacy.queue = [s for s in st.order if st.alive[s]]
    st.diplomacy.proposed = []
    st.diplomacy.current = None
    st.phase = "diplomacy"
    return True


def _other(st: WarbahState, seat: int, r: int) -> int:
    return (seat + r) % st.game.num_seats


def mask(st: WarbahState) -> np.ndarray:
    out = np.zeros(NUM_ACTIONS, np.int8)
    if st.phase == "ally_answer":
        out[ALLY_ACCEPT] = out[ALLY_DECLINE] = 1
        return out
    seat = _current(st).seat
    out[DONE] = 1
    for r in range(1, st.game.num_seats):
        o = _other(st, seat, r)
        if not st.alive[o]:
            continue
        if st.diplomacy.allied[seat, o]:
            out[ALLY_BREAK0 + r - 1] = 1
            out[ALLY_GOLD0 + r - 1] = st.gold[seat] > 0
        elif (seat, o) not in st.diplomacy.proposed:  # one offer per pair and turn
            out[ALLY_PROPOSE0 + r - 1] = 1
    return out


def advance(st: WarbahState) -> bool:
    while True:
        if st.diplomacy.current is None:
            if not st.diplomacy.queue:
                st.phase, st.queue, st.queue_pos = "recruit", [], 0  # back to rules: the move phase
                return False
            st.diplomacy.current = AllianceTurn(st.diplomacy.queue.pop(0))
        if st.phase == "ally_answer":
            st.to_act = st.diplomacy.current.offered_to
            return True
        if mask(st).sum() <= 1:  # nothing to offer: skip this player
            st.diplomacy.current = None
            continue
        st.to_act = _current(st).seat
        return True


def _current(st: WarbahState) -> AllianceTurn:
    """The diplomacy step in progress (phases ``diplomacy``, ``ally_answer``)."""
    d = st.diplomacy.current
    assert d is not None, "no diplomacy step in progress"
    return d


def apply(st: WarbahState, a: int) -> None:
    d = _current(st)
    seat = d.seat
    if st.phase == "ally_answer":
        if a == ALLY_ACCEPT:
            st.diplomacy.allied[seat, d.offered_to] = st.diplomacy.allied[d.offered_to, seat] = True
        st.phase, d.offered_to = "diplomacy", -1
        return
    if a == DONE:
        st.diplomacy.current = None
        return
    if ALLY_PROPOSE0 <= a < ALLY_PROPOSE0 + 3:
        o = _other(st, seat, a - ALLY_PROPOSE0 + 1)
        st.diplomacy.proposed.append((seat, o))
        d.offered_to = o
        st.phase = "ally_answer"
    elif ALLY_BREAK0 <= a < ALLY_BREAK0 + 3:
        o = _other(st, seat, a - ALLY_BREAK0 + 1)
        st.diplomacy.allied[seat, o] = st.diplomacy.allied[o, seat] = False
    else:
        o = _other(st, seat, a - ALLY_GOLD0 + 1)
        st.gold[seat] -= 1
        st.gold[o] += 1


def on_attack(st: WarbahState, attacker_seat: int, defender_seat: int) -> None:
    """An attack on an ally ends the alliance."""
    if attacker_seat >= 0 and defender_seat >= 0:
        allied = st.diplomacy.allied
        allied[attacker_seat, defender_seat] = allied[defender_seat, attacker_seat] = False


def friendly(st: WarbahState, a: int, b: int) -> bool:
    """Seats a and b are the same player or allies."""
    return a == b or bool(st.diplomacy.allied[a, b])


def trade_mask(st: WarbahState, seat: int, h: Hero, mask: np.ndarray) -> None:
    """Allies may trade settlements and Heroes: the acting Hero may cede the (non-capitol)
    settlement he stands on, or join an ally's side with his army and items (designed)."""
    if not enabled(st) or not st.diplomacy.allied[seat].any():
        return
    c = h.cell
    cede = st.owner[c] == seat and st.settle[c] >= 0 and st.capitol[seat] != c
    mine = sum(1 for x in st.heroes if x.alive and x.seat == seat)
    for r in range(1, st.game.num_seats):
        o = _other(st, seat, r)
        if st.diplomacy.allied[seat, o] and st.alive[o]:
            mask[CEDE0 + r - 1] = cede
            mask[HERO_TO0 + r - 1] = mine > 1  # a player keeps at least one Hero


def trade_apply(st: WarbahState, seat: int, x: int, a: int) -> None:
    h = st.heroes[x]
    if CEDE0 <= a < CEDE0 + 3:
        st.owner[h.cell] = _other(st, seat, a - CEDE0 + 1)
        return
    o = _other(st, seat, a - HERO_TO0 + 1)
    h.seat = o
    h.id = 1 + max((y.id for y in st.heroes if y.seat == o), default=0)
    h.mp = h.scout_moves = 0  # his move is over for this turn
