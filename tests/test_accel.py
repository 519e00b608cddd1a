"""The compiled kernels (envs/_accel.c) against their pure-Python twins.

Every kernel must give the same bytes as the Python code it replaces, at every state of seeded
random games of every registered variant. The Python code stays the reference (and the fallback
where the extension is not built); ``TABLETOP_ARENA_PURE_PYTHON=1`` forces it.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest

import envs
from envs.core import accel
from envs.peacekeepers import board as B
from envs.peacekeepers import masks as M
from envs.peacekeepers import observe as O
from tests.random_play import random_step, variant_state

K = accel.KERNELS
needs_kernels = pytest.mark.skipif(K is None, reason="envs._accel not built (no C compiler)")


def test_kernels_built_where_required():
    """CI sets TABLETOP_ARENA_REQUIRE_KERNELS=1: there, a missing build is a failure, not a skip."""
    if os.environ.get("TABLETOP_ARENA_REQUIRE_KERNELS") == "1":
        assert K is not None, accel.backend()
    assert accel.backend().startswith("compiled" if K is not None else "pure Python")


PK_VARIANTS = list(envs.variants("peacekeepers_v0"))


@needs_kernels
@pytest.mark.parametrize("variant", PK_VARIANTS)
def test_peacekeepers_kernels_match_python(variant):
    """Observation (every seat), PLACE legality (every seat), mountain ranges and the mask unpack:
    kernel == Python at each state of three seeded random games."""
    checked = 0
    for seed in range(3):
        st = variant_state("peacekeepers_v0", variant, seed)
        rng = np.random.default_rng(seed)
        while True:
            n = st.game.num_seats
            for seat in range(n):
                fast, ref = O.build_observation(st, seat), O.build_observation_py(st, seat)
                assert fast.tobytes() == ref.tobytes(), (seed, len(st.history), seat)
            if st.phase == "mountain" and st.ranges:
                fast = np.empty(2 * B.CELLS, bool)
                K.pk_mountains(st.board, st.ranges[0], fast)
                assert (fast == B.mountain_placements(st.board, st.ranges[0])).all()
                assert (fast == B.mountain_placements_by_flooding(st.board, st.ranges[0])).all()
            elif st.phase not in ("over", "zone"):
                for seat in range(n):
                    st._cache = None
                    fast = st._placement_bits(seat)
                    st._cache = None
                    assert fast == st._placement_bits_py(seat), (seed, len(st.history), seat)
                    checked += 1
            if st.is_terminal():
                break
            mask = st.legal_actions_mask()
            assert mask.dtype == np.int8
            bits = int.from_bytes(np.packbits(mask, bitorder="little").tobytes(), "little")
            assert M._unpack_mask(bits).tobytes() == M._unpack_mask_py(bits).tobytes()
            random_step(st, rng)
    assert checked > 0


@needs_kernels
def test_mountain_kernel_on_crowded_boards():
    """Boards far denser than random set-ups (many peaks, random empties): the kernel's flood and
    the numpy Euler-number test agree on every range length."""
    rng = np.random.default_rng(5)
    for _ in range(300):
        board = np.where(rng.random(B.CELLS) < rng.uniform(0.05, 0.45), B.MOUNTAIN, B.EMPTY).astype(np.int8)
        for length in range(1, 7):
            fast = np.empty(2 * B.CELLS, bool)
            K.pk_mountains(board, length, fast)
            assert (fast == B.mountain_placements_by_flooding(board, length)).all()


@needs_kernels
def test_kernels_reject_bad_input_and_write_nothing():
    """Wrong sizes, types and argument counts raise a clear error; the output stays untouched."""
    out = np.full(2 * B.CELLS, 7, np.uint8)
    board = np.full(B.CELLS, B.EMPTY, np.int8)
    with pytest.raises(ValueError, match="board: expected a buffer of 100 bytes"):
        K.pk_mountains(board[:50], 3, out)
    with pytest.raises(ValueError, match="length must be 1..10"):
        K.pk_mountains(board, 0, out)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        K.pk_mountains(board, 3)
    assert (out == 7).all()
    with pytest.raises(ValueError, match="at most 8 per raw byte"):
        K.unpack_bits(b"\x01", np.zeros(9, np.int8))
    with pytest.raises(TypeError):
        K.unpack_bits("not bytes", np.zeros(8, np.int8))
    bad = board.copy()
    bad[0] = 42
    with pytest.raises(ValueError, match="board code 42 out of range"):
        K.pk_placement_bits(bad, None, None, M._COMPAT_BYTES, M._HORDE_CODES, 0, [1] * 10, False, 0)
    with pytest.raises(TypeError, match="counts must be a list of 10"):
        K.pk_placement_bits(board, None, None, M._COMPAT_BYTES, M._HORDE_CODES, 0, [1] * 9, False, 0)


def _fingerprint_script() -> str:
    return (
        "import hashlib, numpy as np, envs\n"
        "from envs.core.accel import backend\n"
        "h = hashlib.sha256()\n"
        "for variant in ('competitive_2p', 'solo_hand3', 'puzzle_standard'):\n"
        "    opts = envs.variants('peacekeepers_v0').get(variant)\n"
        "    if opts is None: continue\n"
        "    env = envs.make('peacekeepers_v0', **opts); env.reset(seed=11)\n"
        "    rng = np.random.default_rng(3)\n"
        "    for agent in env.agent_iter():\n"
        "        obs, r, term, trunc, _ = env.last()\n"
        "        h.update(obs['observation'].tobytes()); h.update(obs['action_mask'].tobytes())\n"
        "        if term or trunc: env.step(None); continue\n"
        "        legal = np.flatnonzero(obs['action_mask'])\n"
        "        env.step(int(legal[rng.integers(len(legal))]))\n"
        "print(backend()); print(h.hexdigest())\n")


@needs_kernels
def test_pure_python_switch_plays_the_same_games():
    """TABLETOP_ARENA_PURE_PYTHON=1 selects the Python code, which plays bit-identical games
    (observations and masks through env()) to the kernels."""
    outs = []
    for pure in ("0", "1"):
        env = dict(os.environ, TABLETOP_ARENA_PURE_PYTHON=pure)
        env.pop("TABLETOP_ARENA_REQUIRE_KERNELS", None)
        res = subprocess.run([sys.executable, "-c", _fingerprint_script()], capture_output=True,
                             text=True, env=env, check=True)
        outs.append(res.stdout.split("\n"))
    assert outs[0][0].startswith("compiled")
    assert outs[1][0].startswith("pure Python")
    assert outs[0][1] == outs[1][1]
    assert len(outs[0][1]) == len(hashlib.sha256().hexdigest())


WB_VARIANTS = list(envs.variants("warbah_v0"))


@needs_kernels
@pytest.mark.parametrize("variant", WB_VARIANTS)
def test_warbah_observation_kernel_matches_python(variant):
    """The map / ownership / garrison part of the Warbah observation: kernel == Python cache
    path for every seat at each state of two seeded random games (and the whole observation
    through observe(), which the pure-Python switch test and test_speed_equal also cover)."""
    from envs.warbah import observe as WO
    for seed in range(2):
        st = variant_state("warbah_v0", variant, seed)
        rng = np.random.default_rng(seed)
        while True:
            for seat in range(st.game.num_seats):
                fast = WO._observe_base_kernel(st, seat)
                assert fast is not None
                assert fast.tobytes() == WO._observe_base_py(st, seat).tobytes(), (seed, len(st.history))
            if st.is_terminal():
                break
            random_step(st, rng)


@needs_kernels
def test_warbah_observation_kernel_sees_bonus_walls_and_variants():
    """Bonus walls (a Realm spell's) and terrain variants reach the kernel's planes as in Python;
    an unknown variant name is an error, not a silent zero."""
    from envs.warbah import observe as WO
    st = variant_state("warbah_v0", WB_VARIANTS[0], 4)
    rng = np.random.default_rng(4)
    while len(np.flatnonzero(st.explored & st.land)) < 3:
        random_step(st, rng)
    cells = np.flatnonzero(st.explored & st.land).tolist()[:3]
    st.mg["bwalls"] = {cells[0]: 2, cells[1]: 5}
    st.variant[cells[2]] = st.game.variant_names[3]
    for seat in range(st.game.num_seats):
        assert WO._observe_base_kernel(st, seat).tobytes() == WO._observe_base_py(st, seat).tobytes()
    st.variant[cells[2]] = "no_such_variant"
    with pytest.raises(KeyError, match="no_such_variant"):
        WO._observe_base_kernel(st, 0)
