"""Scenario helpers for the Gorgasali tests: hand-built positions and scripted dice.

Handy open ground on the designed map (chests cleared by ``make_state``): rows 18 and 19 are
neutral from column 0 to 19 (zone 1); the blocking area is rows 9-10, columns 9-10.
"""
from __future__ import annotations

import numpy as np

from envs.gorgasali import actions as A
from envs.gorgasali import make_game
from envs.gorgasali.rules import _TURN_FLAGS


def sq(r: int, c: int) -> int:
    """Square of 0-based row r, column c."""
    return r * A.SIZE + c


class Dice:
    """A stand-in for the state's generator: ``integers`` returns the scripted values in order,
    then 1, 2, 1, 2, ... (later turns' movement rolls)."""

    def __init__(self, *values):
        self.values = list(values)
        self.spare = 0

    def _next(self):
        if self.values:
            return self.values.pop(0)
        self.spare += 1
        return 1 + self.spare % 2

    def integers(self, lo, hi=None, size=None):
        if size is None:
            return self._next()
        return np.array([self._next() for _ in range(size)])

    def permutation(self, n):
        return np.arange(n)


def card_id(game, name: str) -> int:
    return next(c.id for c in game.cards if c.name == name)


def make_state(chars, positions, mode="solo", phase="act", cur=0, rules=None, health=None):
    """A game of the named characters at the given squares, every mat empty, no chests, no
    banners, round 1, all zones active; seat ``cur`` to act in ``phase``."""
    n = len(chars)
    game = make_game(num_players=n, mode=mode, characters=list(chars), rules=rules or {})
    st = game.new_initial_state(np.random.default_rng(0))
    st.pos = list(positions)
    st.first = 0
    st.round = 1
    st.zones_out = 0
    st.chests = set()
    st.banners = []
    st.mat = [[-1] * A.MAT_SIZE for _ in range(n)]
    st.loaded = [[False, False] for _ in range(n)]
    st.extra_chests = [0] * n
    st.health = list(health) if health else [100] * n
    st.cooldown = [0] * n
    st.skipped_last = [False] * n
    st.__dict__.update(_TURN_FLAGS)
    st.copied, st.cross, st.loot, st.dest = set(), set(), [], {}
    st.cur = cur
    st.phase = phase
    st._mask = None
    return st


def give(st, seat: int, pos: int, name: str, loaded: bool = True) -> int:
    """Put the named card on a mat position (weapons loaded unless told otherwise)."""
    cid = card_id(st.game, name)
    st.mat[seat][pos] = cid
    if pos in A.WEAPON_POS:
        st.loaded[seat][pos] = loaded
    st._mask = None
    return cid


def legal(st) -> set:
    return {int(a) for a in np.flatnonzero(st.legal_actions_mask())}
