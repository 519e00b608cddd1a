"""Scenario helpers for the Gorgasali tests: hand-built positions and scripted dice.

Handy open ground on the designed map (chests cleared by ``make_state``): rows 18 and 19 are
neutral from column 0 to 19 (zone 1); the blocking area is rows 9-10, columns 9-10.
"""
from __future__ import annotations

import numpy as np

from tabletop_arena.envs.gorgasali import actions as A
from tabletop_arena.envs.gorgasali import make_game
from tabletop_arena.envs.gorgasali.state import _TURN_FLAGS


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


def make_state(chars, positions, mode="solo", phase="act", cur=0, rules=None, health=None,
               react=False):
    """A game of the named characters at the given squares, every mat empty, no chests, no
    banners, round 1, all zones active; seat ``cur`` to act in ``phase``. The reaction window
    is off unless ``react`` (scenarios of one rule at a time; ``test_react.py`` tests it)."""
    n = len(chars)
    game = make_game(num_players=n, mode=mode, characters=list(chars),
                     rules={"react_window": react, **(rules or {})})
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
    st.cross, st.loot = set(), []
    st.cur = st.turn_seat = cur
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


def walk(st, *squares) -> None:
    """Step the current player's walk through the given squares (SQUARE actions)."""
    for q in squares:
        st.apply(A.SQUARE + q)


def all_walks(st) -> dict:
    """Every way the current move phase may end through the legal actions: end square ->
    least health lost on the way (walk steps and stops only; no skip or movement card)."""
    seat = st.current_player
    out: dict = {}
    st.rng = np.random.default_rng(0)   # a walk draws nothing; clone() needs a real generator

    def go(s):
        for a in np.flatnonzero(s.legal_actions_mask()):
            if a >= A.SQUARES:
                continue
            t = s.clone()
            t.apply(int(a))
            if t.phase == "move" and t.current_player == seat:
                go(t)
            else:
                lost = st.health[seat] - t.health[seat]
                q = t.pos[seat] if t.alive[seat] else -1
                out[q] = min(out.get(q, 10 ** 9), lost)

    go(st)
    return out


def first_walk(st) -> None:
    """Finish the walk by always taking the lowest legal square."""
    seat = st.current_player
    while st.phase == "move" and st.current_player == seat:
        st.apply(min(a for a in legal(st) if a < A.SQUARES))
