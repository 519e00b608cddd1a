"""Warbah (``warbah_v0``), hex-map fantasy conquest for 2-4 players.

``make_game(**options)`` is the engine alone (numpy and the standard library); ``env()`` and
``raw_env()``, the PettingZoo AEC adapter in ``aec_env.py``, are imported on first use.
"""
from ..core.lazy import adapter_attributes
from .game import WarbahGame

ENV_NAME = WarbahGame.name


def make_game(**options) -> WarbahGame:
    """The engine of one variant (no PettingZoo): ``make_game(...).new_initial_state(seed)``."""
    return WarbahGame(**options)


__getattr__ = adapter_attributes(__name__)
__all__ = ["ENV_NAME", "env", "raw_env", "make_game"]
