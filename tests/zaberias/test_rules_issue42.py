"""Scenario tests for the Zaberias departure found by the third rules audit (issue 42), named
after its rulebook section and quoting the rule: under the Mutant Corpse's plague a Dragon's
rider rolls for itself, and its own roll decides its fate (Mutant Corpse)."""
from __future__ import annotations

from tabletop_arena.envs.zaberias import movement as M

from .util import ScriptedDice, act, blank, cell, on_map, put, select

UH = ["undead", "humans"]


def _plague_on_a_dragon_with_rider(faces, r=10, c=5):
    """The Undead Mutant Corpse plagues its board; the Humans' Dragon carries the Knight on
    (r, c) of the same board. ``faces``: the scripted dice, one per non-Undead unit in unit
    order (the Knight first, then the Dragon)."""
    st = blank(tribes=UH)
    mc = put(st, 0, "Mutant Corpse", 11, 4)
    dr = put(st, 1, "Dragon", r, c)
    kn = put(st, 1, "Knight", r, c)                 # created onto its Dragon: the rider
    assert st.rider[dr] == kn and st.status[kn] == M.RIDING
    st.rng = ScriptedDice(faces)
    select(st, mc)
    act(st, "plague")
    return st, dr, kn


def test_mutant_corpse_plague_a_dragons_rider_survives_on_its_own_roll():
    """Mutant Corpse: 'All units not belonging to the undead tribe must roll one die. Any unit
    that rolls a blank, is removed from the board.' Q&A: 'You must roll the die individually for
    every unit you have on the board.' The rider is a unit on the board: it rolls for itself and
    only its own blank removes it. The Dragon rolls a blank and is removed; the Knight rolled a
    3, so it stays, set down on the square where its Dragon stood. And a rider's blank removes
    the rider only."""
    st, dr, kn = _plague_on_a_dragon_with_rider([3, 0])      # Knight 3, Dragon blank
    x = cell(st, 10, 5)
    assert not on_map(st, dr) and st.status[dr] == M.ARMORY
    assert on_map(st, kn) and st.status[kn] == M.BOARD and st.cell[kn] == x
    assert st.occ[x] == kn and st.rider[dr] == -1 and st.holder[kn] == -1
    assert st.rng.faces == []                       # one die each, no more
    # the rider's roll counts both ways: its blank removes it, the Dragon rolling 2 stays
    st, dr, kn = _plague_on_a_dragon_with_rider([0, 2])      # Knight blank, Dragon 2
    assert on_map(st, dr) and st.rider[dr] == -1
    assert not on_map(st, kn) and st.status[kn] == M.ARMORY
