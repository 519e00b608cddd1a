"""The PPO config of each game for tests that train or read PPO on every game: the game's default
config, except where that default is another algorithm's (configs/train/gorgasali.yaml is a value
lookahead; its PPO recipe is gorgasali_ppo.yaml). Named here: the library never swaps one config
for another (train/trainers.py)."""
from __future__ import annotations

from pathlib import Path

from tabletop_arena.train.config import CONFIG_DIR, config_for_game

#: games whose default training config is not PPO: their PPO config under configs/train/
PPO_RECIPES = {"gorgasali_v0": "gorgasali_ppo.yaml"}


def ppo_config(game: str) -> Path:
    from tabletop_arena import envs
    game_id = envs.resolve(game)
    return CONFIG_DIR / PPO_RECIPES[game_id] if game_id in PPO_RECIPES else config_for_game(game_id)
