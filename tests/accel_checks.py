"""Kernel-versus-Python checks of one position (shared by tests/test_accel.py and tests/fuzz.py).

Each function returns a list of what differs between the compiled kernels (envs/_accel.c) and
the pure-Python code they replace at the position ``st`` (empty: identical bytes).
"""
from __future__ import annotations

import numpy as np

from tabletop_arena.envs.core.accel import KERNELS


def peacekeepers_mismatches(st) -> list[str]:
    from tabletop_arena.envs.peacekeepers import board as B
    from tabletop_arena.envs.peacekeepers import masks as M
    from tabletop_arena.envs.peacekeepers import observe as O
    bad = []
    n = st.game.num_seats
    for seat in range(n):
        if O.build_observation(st, seat).tobytes() != O.build_observation_py(st, seat).tobytes():
            bad.append(f"observation of seat {seat}")
    if st.phase == "mountain" and st.ranges:
        fast = np.empty(2 * B.CELLS, bool)
        KERNELS.pk_mountains(st.board, st.ranges[0], fast)
        if not (fast == B.mountain_placements(st.board, st.ranges[0])).all():
            bad.append("mountain ranges (Euler test)")
        if not (fast == B.mountain_placements_by_flooding(st.board, st.ranges[0])).all():
            bad.append("mountain ranges (flooding)")
    elif st.phase not in ("over", "zone"):
        for seat in range(n):
            counts = st.hand_counts(seat)
            if st._placement_bits_kernel(seat, counts) != st._placement_bits_py(seat, counts):
                bad.append(f"placement bits of seat {seat}")
    if st.phase != "over":
        mask = st.legal_actions_mask()
        bits = int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")
        if M._unpack_mask(bits).tobytes() != M._unpack_mask_py(bits).tobytes():
            bad.append("mask unpack")
    return bad


def warbah_mismatches(st) -> list[str]:
    from tabletop_arena.envs.warbah import observe as WO
    bad = []
    o = 17 * st.game.n_cells + WO.VECTOR
    for seat in range(st.game.num_seats):
        fast = WO._observe_base_kernel(st, seat)
        if fast is None:
            return [f"seat {seat}: the base kernel declined the engine's own arrays"]
        if fast.tobytes() != WO._observe_base_py(st, seat).tobytes():
            bad.append(f"seat {seat}: map / ownership / garrison planes")
        ref = fast.copy()
        got = WO._observe_main_kernel(st, seat, fast, o)
        want = WO._observe_main_py(st, seat, ref, memoryview(ref), o)
        if got is None:
            bad.append(f"seat {seat}: the main kernel declined the engine's own state")
            continue
        if fast.tobytes() != ref.tobytes():
            where = np.flatnonzero(fast != ref)[:5].tolist()
            bad.append(f"seat {seat}: heroes / vector / fleet entries at {where}")
        if got[0] != want[0] or list(got[2]) != list(want[2]) \
                or [id(h) for h in got[1]] != [id(h) for h in want[1]]:
            bad.append(f"seat {seat}: Hero cells, my Heroes or my fleets")
    return bad


MISMATCHES = {"peacekeepers_v0": peacekeepers_mismatches, "warbah_v0": warbah_mismatches}
