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
