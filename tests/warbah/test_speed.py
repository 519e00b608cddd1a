"""Speed-ups must not change play: the advance-time mask reuse and the cached map planes of the
observation give the same masks, observations and actions as recomputing everything."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_arena.envs.warbah import make_game
from tabletop_arena.envs.warbah.state import WarbahState


def _drop_observation_caches(st) -> None:
    """Forget the observation's caches and hexes.owned_cells' (the observation reads it too)."""
    for k in [k for k in vars(st) if k.startswith("_obs_") or k == "_owned_cells"]:
        delattr(st, k)


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
            _drop_observation_caches(st)  # rebuild every observation plane every time
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


def _all_obs(st) -> list:
    return [st.observation(s).tobytes() for s in range(st.game.num_seats)]


def _hand_edits(st, rng) -> None:
    """Edits a scenario test might make by hand: every input of the cached observation planes."""
    g = st.game
    n = g.n_cells
    land = np.flatnonzero(st.land)
    x, y, z = (int(land[rng.integers(len(land))]) for _ in range(3))
    st.variant[x] = g.variant_names[int(rng.integers(len(g.variant_names)))]
    st.explored[x] = True
    st.magic.bonus_walls[y] = st.magic.bonus_walls.get(y, 0) + 2
    st.wall_damage[z] += 1
    st.garrison[y, int(rng.integers(4))] += 3
    st.garrison_specials[z, int(rng.integers(st.garrison_specials.shape[1]))] += 1
    st.owner[z] = int(rng.integers(-1, g.num_seats))
    st.terrain[y], st.settle[y] = 0, -1
    w = int(rng.integers(n))
    st.fleets.ships[w], st.fleets.owner[w] = 2, int(rng.integers(g.num_seats))


@pytest.mark.parametrize("n", [2, 4])
def test_observation_caches_follow_hand_edits(n):
    """The observation caches (map, ownership, garrison and fleet planes) notice edits made by
    hand on a clone, and the original keeps its observation: the edited clone observes like a
    fresh clone of it, which starts without caches."""
    g = make_game(num_players=n)
    rng = np.random.default_rng(n)
    for seed in range(2):
        st = g.new_initial_state(np.random.default_rng(seed))
        for step in range(240):
            if st.is_terminal():
                break
            if step % 40 == 39:
                before = _all_obs(st)
                c = st.clone()
                _all_obs(c)  # warm the clone's caches
                _hand_edits(c, rng)
                assert _all_obs(c) == _all_obs(c.clone())
                assert _all_obs(st) == before
            legal = np.flatnonzero(st.legal_actions_mask())
            st.apply(int(legal[rng.integers(len(legal))]))


def test_owned_cells_follow_hand_edits():
    """hexes.owned_cells (kept per owner / settlement bytes) answers like settlements_of and a
    scan of the owner array after ownership and settlements are edited by hand."""
    from tabletop_arena.envs.warbah import hexes
    g = make_game(num_players=3)
    st = g.new_initial_state(np.random.default_rng(4))
    rng = np.random.default_rng(4)
    for _ in range(150):  # into play: capitols placed, hexes owned
        legal = np.flatnonzero(st.legal_actions_mask())
        st.apply(int(legal[rng.integers(len(legal))]))
    for k in range(8):
        sets, owned = hexes.owned_cells(st)
        for s in range(g.num_seats):
            assert list(sets.get(s, ())) == hexes.settlements_of(st, s)
            assert list(owned.get(s, ())) == np.flatnonzero(st.owner == s).tolist()
        x = int(rng.integers(g.n_cells))
        if k % 2:  # one array at a time: each must be seen on its own (a settlement comes or
            x = int(rng.choice(np.flatnonzero(st.owner >= 0)))  # goes on an owned hex)
            st.settle[x] = -1 if st.settle[x] >= 0 else 0
        else:
            st.owner[x] = (int(st.owner[x]) + 2) % (g.num_seats + 1) - 1  # another owner


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
