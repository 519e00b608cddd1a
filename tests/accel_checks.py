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


MISMATCHES = {"peacekeepers_v0": peacekeepers_mismatches}
