"""Warbah (``warbah_v0``): hex-map fantasy conquest for 2-4 players."""
from .env import ENV_NAME, env, make_game, raw_env

__all__ = ["ENV_NAME", "env", "raw_env", "make_game"]
