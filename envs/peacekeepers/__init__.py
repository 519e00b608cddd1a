"""Peacekeepers of Jar-Zabonia (``peacekeepers_v0``)."""
from .env import ENV_NAME, env, make_game, raw_env

__all__ = ["ENV_NAME", "env", "raw_env", "make_game"]
