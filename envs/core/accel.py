"""The optional compiled kernels (``envs/_accel.c``), or ``None`` to use the Python code.

The engines call a kernel only through ``KERNELS`` and keep the pure-Python version of every
kernel as the reference; ``tests/test_accel.py`` plays seeded games and checks both give the same
bytes at each step. Set ``TABLETOP_ARENA_PURE_PYTHON=1`` before import to force the Python code
(for debugging, or to compare speed: ``arena bench`` prints which is in use).
"""
from __future__ import annotations

import os

PURE_ENV = "TABLETOP_ARENA_PURE_PYTHON"
#: the kernels' interface version this Python code expects (envs/_accel.c's ABI constant); an
#: extension left from an older checkout (an editable install not rebuilt) is not used
ABI = 5


def _load():
    if os.environ.get(PURE_ENV, "").strip().lower() in ("1", "true", "yes"):
        return None, f"pure Python ({PURE_ENV} set)"
    try:
        from .. import _accel  # the compiled extension (optional)
    except ImportError:  # not built (no C compiler at install time): Python code
        return None, "pure Python (envs._accel not built; reinstall with a C compiler for the kernels)"
    found = getattr(_accel, "ABI", None)
    if found != ABI:
        return None, (f"pure Python (envs._accel is out of date: interface {found}, this code "
                      f"needs {ABI}; run pip install -e . again to rebuild it)")
    return _accel, "compiled kernels (envs._accel)"


KERNELS, _BACKEND = _load()


def backend() -> str:
    """A line for reports: which code the engines' hot spots run, and why."""
    return _BACKEND
