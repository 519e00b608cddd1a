"""Speed-ups must not change play: the advance-time mask reuse and the cached map planes of the
observation give the same masks, observations and actions as recomputing everything."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.warbah import make_game
from tabletop_arena.envs.warbah.rules import WarbahState


def _play(seed: int, n: int, reuse: bool, steps: int = 300):
    WarbahState.reuse_advance_mask = reuse
    g = make_game(num_players=n)
    st = g.new_initial_state(np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 100)
    trace = []
    for _ in range(steps):
        if st.is_terminal():
            break
        mask = st.legal_actions_mask()
        obs = st.observation(st.current_player)
        if not reuse:
            st._obs_map = None  # rebuild the map planes every time
        legal = np.flatnonzero(mask)
        a = int(legal[rng.integers(len(legal))])
        trace.append((a, mask.tobytes(), obs.tobytes()))
        st.apply(a)
    return trace


@pytest.mark.parametrize("n", [2, 3, 4])
def test_cached_and_recomputed_play_agree(n, monkeypatch):
    monkeypatch.setattr(WarbahState, "reuse_advance_mask", True)
    for seed in range(3):
        fast = _play(seed, n, True)
        slow = _play(seed, n, False)
        assert fast == slow


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
