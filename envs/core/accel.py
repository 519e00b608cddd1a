"""The optional compiled kernels (``envs/_accel.c``), or ``None`` to use the Python code.

The engines call a kernel only through ``KERNELS`` and keep the pure-Python version of every
kernel as the reference; ``tests/test_accel.py`` plays seeded games and checks both give the same
bytes at each step. Set ``TABLETOP_ARENA_PURE_PYTHON=1`` before import to force the Python code
(for debugging, or to compare speed: ``arena bench`` prints which is in use).
"""
from __future__ import annotations

import os

PURE_ENV = "TABLETOP_ARENA_PURE_PYTHON"


def _load():
    if os.environ.get(PURE_ENV, "").strip().lower() in ("1", "true", "yes"):
        return None
    try:
        from envs import _accel
    except ImportError:  # not built (no C compiler at install time): Python code
        return None
    return _accel


KERNELS = _load()


def backend() -> str:
    """A line for reports: which code the engines' hot spots run."""
    if KERNELS is not None:
        return "compiled kernels (envs._accel)"
    if os.environ.get(PURE_ENV):
        return f"pure Python ({PURE_ENV} set)"
    return "pure Python (envs._accel not built; reinstall with a C compiler for the kernels)"
