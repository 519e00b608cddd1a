"""A game package's ``env`` / ``raw_env`` (the PettingZoo AEC adapter in its ``aec_env.py``),
imported on first use so that the engine (``make_game``, ``rules``) loads without PettingZoo or
Gymnasium.

    # envs/<game>/__init__.py
    __getattr__ = adapter_attributes(__name__)
"""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable

ADAPTER_NAMES = ("env", "raw_env")


def adapter_attributes(package: str) -> Callable[[str], Any]:
    """The module ``__getattr__`` (PEP 562) of a game package: ``env`` and ``raw_env`` come from
    ``<package>.aec_env`` when first asked for."""

    def __getattr__(name: str) -> Any:
        if name not in ADAPTER_NAMES:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        adapter = importlib.import_module(f"{package}.aec_env")
        pkg = sys.modules[package]
        # bound once, so later lookups skip this hook. The module is named aec_env, not env:
        # importing a submodule binds its name on the package, and ``<game>.env`` must stay
        # the function (tests/test_layering.py checks it after importing the module itself)
        for attr in ADAPTER_NAMES:
            setattr(pkg, attr, getattr(adapter, attr))
        return getattr(adapter, name)

    return __getattr__
