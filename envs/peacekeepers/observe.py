"""Observation builder for Peacekeepers: one flat float32 vector in [-1, 1].

The first ``18 * 10 * 10`` entries are board planes (C, H, W), then an 84-entry vector.
Seats are relative to the observer: ``rel 0`` is the observer, ``rel k`` the k-th player after it.

| piece  | index            | content                                                          |
|--------|------------------|------------------------------------------------------------------|
| board  | plane 0..7       | cube on the cell showing R O Y G B P K(volcano) W(temple)        |
| board  | plane 8          | erupted volcano (gray cube on a volcano)                         |
| board  | plane 9          | brown block (puzzle set-up only)                                 |
| board  | plane 10         | mountain peak                                                    |
| board  | plane 11         | empty cell in the field of play                                  |
| board  | plane 12..15     | zone of rel seat 0..3 (competitive)                              |
| board  | plane 16         | pending cell (first Giant, Troll, Elf whose sub-step is running) |
| board  | plane 17         | outside the field of play (puzzle)                               |
| vector | 0..39            | hand colour counts of rel seats 0..3 (/10, capped at 1);         |
|        |                  | others' zero when ``hidden_hands``                               |
| vector | 40..43           | hand sizes of rel seats (/20)                                    |
| vector | 44               | own Giants in reserve (solo hand of one)                         |
| vector | 45, 46           | bag size, discard size (/100)                                    |
| vector | 47..50           | capture pile sizes of rel seats (/100)                           |
| vector | 51..59           | phase one-hot (mountain zone start_temple refill play giant2     |
|        |                  | troll_chase elf over)                                            |
| vector | 60               | length of the mountain range to place (/6)                       |
| vector | 61..64           | first cube placed, rel seats                                     |
| vector | 65..68           | out of the game, rel seats                                       |
| vector | 69..72           | end-phase allotment left, rel seats (/10)                        |
| vector | 73, 74           | end phase: a zone filled / a player got stuck                    |
| vector | 75..78           | current rulebook score of rel seats (/100, clipped)              |
| vector | 79               | the pending sub-step, or the Wizard's extra turn, may be declined|
| vector | 80..83           | mountain peaks placed by rel seats (/30)                         |
"""
from __future__ import annotations

import functools
import struct
from typing import TYPE_CHECKING

import numpy as np

from ..core.accel import KERNELS
from .board import CELLS
from .tables import BOARD_PLANES, PHASES, VECTOR_SIZE, EndPhase, Phase

if TYPE_CHECKING:   # for the type checker only: state.py imports this module
    from .state import PeacekeepersState

_PHASE_INDEX: dict[Phase, int] = {p: i for i, p in enumerate(PHASES)}
BOARD_SIZE = BOARD_PLANES * CELLS
_CODE_SIZE = 12 * CELLS          # planes 0..11, kept up to date by the engine (``code_planes``)
_OFF_FIELD = 11 * CELLS           # plane 11 (empty cells) is masked by the field in puzzles


@functools.lru_cache(maxsize=256)
def _template(zone_bytes: bytes | None, active_bytes: bytes | None, seat: int, n: int) -> np.ndarray:
    """The board planes after the code planes (12..17), which change rarely: zone planes
    (relative seats), an empty pending plane and the outside-the-field plane (read-only)."""
    t = np.zeros((BOARD_PLANES - 12, CELLS), np.float32)
    if zone_bytes is not None:
        zone = np.frombuffer(zone_bytes, np.int8)
        for rel in range(n):
            t[rel] = zone == (seat + rel) % n
    if active_bytes is not None:
        t[5] = ~np.frombuffer(active_bytes, bool)
    flat = t.reshape(-1)
    flat.flags.writeable = False
    return flat


_VECTOR = struct.Struct(f"={VECTOR_SIZE}f")
_VEC_OFFSET = BOARD_SIZE * 4          # byte offset of the scalar part in the float32 vector


_END_CODE: dict[EndPhase | None, int] = {None: 0, "zone": 1, "stuck": 2}


def build_observation(state: PeacekeepersState, seat: int) -> np.ndarray:
    """The observation of ``seat`` (the compiled kernel when built, else the Python code)."""
    if KERNELS is None:
        return build_observation_py(state, seat)
    g = state.game
    n = g.num_seats
    obs = np.empty(BOARD_SIZE + VECTOR_SIZE, np.float32)
    active = state.active if g.puzzle else None
    template = _template(state.zone.tobytes() if g.competitive and state.zone[0] >= 0 else None,
                         None if active is None else active.tobytes(), seat, n)
    KERNELS.pk_observe(obs, state.code_planes(), template, active, state.pending_cell, seat, n,
                       1 if g.hidden_information else n, state.hands, state.captured,
                       state.first_done, state.out, state.allot,
                       None if g.competitive else state._scores(),   # None: the kernel scores
                       state.peaks, state.reserves[seat], state.bag, state.discard,
                       _PHASE_INDEX[state.phase], state.ranges, _END_CODE[state.end_phase],
                       state.pending_optional or state._may_decline_turn(), state.board,
                       state.zone, state.penalty)
    return obs


def build_observation_py(state: PeacekeepersState, seat: int) -> np.ndarray:
    """The pure-Python observation (the reference for the kernel)."""
    g = state.game
    n = g.num_seats
    zone_bytes = state.zone.tobytes() if g.competitive and state.zone[0] >= 0 else None
    active_bytes = state.active.tobytes() if g.puzzle else None
    phase = _PHASE_INDEX[state.phase]
    # written once each (no template copy over the code planes: fewer bytes moved per step)
    obs = np.empty(BOARD_SIZE + VECTOR_SIZE, np.float32)
    obs[:_CODE_SIZE] = state.code_planes().reshape(-1)
    obs[_CODE_SIZE:BOARD_SIZE] = _template(zone_bytes, active_bytes, seat, n)
    if active_bytes is not None:
        obs[_OFF_FIELD:_CODE_SIZE] *= state.active
    if state.pending_cell >= 0:
        obs[16 * CELLS + state.pending_cell] = 1.0
    # the scalar part is assembled in a Python list and packed once (cheaper than numpy scalars)
    v = [0.0] * VECTOR_SIZE
    shown = 1 if g.hidden_information else n
    scores = state._scores()   # once per position here: the memo would only add a miss
    hands, captured, first_done, out = state.hands, state.captured, state.first_done, state.out
    allot, peaks = state.allot, state.peaks
    for rel in range(n):
        s = seat + rel
        if s >= n:
            s -= n
        hand = hands[s]
        k = len(hand)
        v[40 + rel] = 1.0 if k >= 20 else k / 20
        if rel < shown and k:
            base = rel * 10
            for _, f in hand:
                v[base + f] += 1.0
            for i in range(base, base + 10):   # colour counts /10, capped at 1
                x = v[i]
                if x:
                    v[i] = 1.0 if x >= 10.0 else x / 10
        v[47 + rel] = len(captured[s]) / 100
        if first_done[s]:
            v[61 + rel] = 1.0
        if out[s]:
            v[65 + rel] = 1.0
        a = allot[s]
        if a:
            v[69 + rel] = 1.0 if a >= 10 else a / 10
        x = scores[s] / 100
        v[75 + rel] = -1.0 if x < -1.0 else (1.0 if x > 1.0 else x)
        v[80 + rel] = peaks[s] / 30   # at most 6+5+5+4+4+3+3 peaks
    v[44] = float(len(state.reserves[seat]))
    v[45] = len(state.bag) / 100
    v[46] = len(state.discard) / 100
    v[51 + phase] = 1.0
    if state.ranges:
        v[60] = state.ranges[0] / 6
    if state.end_phase == "zone":
        v[73] = 1.0
    elif state.end_phase == "stuck":
        v[74] = 1.0
    if state.pending_optional or state._may_decline_turn():
        v[79] = 1.0
    # an ndarray is a writable buffer; numpy's stubs say so (__buffer__) from Python 3.12 on only
    _VECTOR.pack_into(obs, _VEC_OFFSET, *v)  # type: ignore[arg-type]
    return obs
