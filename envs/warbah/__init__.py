"""Warbah (``warbah_v0``): hex-map fantasy conquest for 2-4 players.

``make_game`` gives the pure engine (numpy only); ``env`` / ``raw_env`` come from the PettingZoo
AEC adapter (aec_env.py), imported on first use, so that importing the engine does not load
PettingZoo or Gymnasium.
"""
from .game import WarbahGame

ENV_NAME = "warbah_v0"


def make_game(**options) -> WarbahGame:
    return WarbahGame(**options)


def __getattr__(name: str):
    if name in ("env", "raw_env"):
        from . import aec_env  # the PettingZoo AEC adapter
        return getattr(aec_env, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["ENV_NAME", "env", "raw_env", "make_game"]
