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

from tabletop_arena import envs
from tabletop_arena.envs.core import accel
from tabletop_arena.envs.peacekeepers import board as B
from tabletop_arena.envs.peacekeepers import masks as M
from tests.accel_checks import peacekeepers_mismatches
from tests.random_play import play_checking, variant_state

K = accel.KERNELS
needs_kernels = pytest.mark.skipif(K is None, reason="envs._accel not built (no C compiler)")


def test_kernels_built_where_required():
    """CI sets TABLETOP_ARENA_REQUIRE_KERNELS=1: there, a missing build is a failure, not a skip."""
    if os.environ.get("TABLETOP_ARENA_REQUIRE_KERNELS") == "1":
        assert K is not None, accel.backend()
    assert accel.backend().startswith("compiled" if K is not None else "pure Python")
    if K is not None:
        assert K.ABI == accel.ABI


def test_a_stale_extension_is_not_used(monkeypatch):
    """An extension whose interface version differs from the Python code's (built from an older
    checkout) is refused with a reason, and the Python code runs."""
    import types
    monkeypatch.delenv(accel.PURE_ENV, raising=False)
    stale = types.SimpleNamespace(ABI=accel.ABI - 1)
    monkeypatch.setitem(sys.modules, "tabletop_arena.envs._accel", stale)
    monkeypatch.setattr(envs, "_accel", stale, raising=False)
    kernels, why = accel._load()
    assert kernels is None and "out of date" in why and "pip install -e ." in why


PK_VARIANTS = list(envs.variants("peacekeepers_v0"))


@needs_kernels
@pytest.mark.parametrize("variant", PK_VARIANTS)
def test_peacekeepers_kernels_match_python(variant):
    """Observation (every seat), PLACE legality (every seat), mountain ranges and the mask unpack:
    kernel == Python at each state of three seeded random games (tests/accel_checks.py)."""
    for seed in range(3):
        play_checking(variant_state("peacekeepers_v0", variant, seed), np.random.default_rng(seed),
                      peacekeepers_mismatches, f"{variant} seed {seed}")


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
        "import hashlib, numpy as np\n"
        "from tabletop_arena import envs\n"
        "from tabletop_arena.envs.core.accel import backend\n"
        "h = hashlib.sha256()\n"
        "for name, variant in (('peacekeepers_v0', 'competitive_2p'), ('peacekeepers_v0', 'solo_hand3'),\n"
        "                      ('peacekeepers_v0', 'puzzle_standard')):\n"
        "    env = envs.make(name, **envs.variants(name)[variant]); env.reset(seed=11)\n"
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
