"""The fast observation and mask code (caches, preallocated arrays) gives exactly what the plain
reference copies in test_speed_reference.py give, at every state of seeded random games."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.warbah import make_game
from tests.warbah import test_speed_reference as REF

VARIANTS = {"2p": dict(num_players=2), "3p": dict(num_players=3),
            "4p_allies": dict(num_players=4, allies=True)}


def _check_state(st, where):
    for seat in range(st.game.num_seats):
        fast = st.observation(seat)
        ref = REF.ref_observe(st, seat)
        assert fast.dtype == ref.dtype and fast.shape == ref.shape, where
        if not np.array_equal(fast, ref):
            bad = np.flatnonzero(fast != ref)[:10].tolist()
            raise AssertionError(f"{where} seat {seat}: observation differs at {bad}")
    if not st.is_terminal():
        fast = st.legal_actions_mask()
        ref = REF.ref_mask(st)
        assert fast.dtype == ref.dtype, where
        if not np.array_equal(fast, ref):
            bad = np.flatnonzero(fast != ref)[:10].tolist()
            raise AssertionError(f"{where}: mask differs at {bad}")


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("seed", range(6))
def test_fast_observation_and_mask_equal_reference(variant, seed):
    g = make_game(**VARIANTS[variant])
    st = g.new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 100)
    step = 0
    while True:
        _check_state(st, f"{variant} seed {seed} step {step} phase {st.phase}")
        if st.is_terminal():
            break
        legal = np.flatnonzero(st.legal_actions_mask())
        st.apply(int(legal[rng.integers(len(legal))]))
        step += 1


def test_ability_steps_match_the_float32_loop():
    """observe._ABIL_STEPS[k] is what k passes of the plain min(x + 1/3, 1) loop leave."""
    from tabletop_arena.envs.warbah.observe import _ABIL_STEPS
    for k in range(12):
        v = np.zeros(1, np.float32)
        for _ in range(k):
            v[0] = min(v[0] + 1 / 3, 1)
        out = np.zeros(1, np.float32)
        out[0] = _ABIL_STEPS[min(k, len(_ABIL_STEPS) - 1)]
        assert out[0] == v[0]
