"""Keyword options that a game does not take, or that its variant ignores, are refused in a way
callers can rely on (issues 41 and 43).

- An unknown option is ``envs.ConfigError`` and also a ``TypeError`` with Python's own words
  ("unexpected keyword argument 'NAME'"): libraries that probe keyword arguments and fall back on a
  TypeError (TorchRL's ``GymEnv`` passes ``frameskip``) work as with any Python function.
- A Gymnasium id stands for one game: ``gymnasium.make("tabletop_arena/Zaka-v0",
  game="warbah_v0")`` is refused instead of building Warbah.
- Peacekeepers refuses ``hand_size`` and ``puzzle_level`` where the mode ignores them (their
  defaults, which ``options()`` reports, still load).
"""
from __future__ import annotations

import gymnasium
import pytest

from tabletop_arena import envs

NAMES = envs.names()


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_option_is_a_config_error_and_a_type_error(name):
    makers = {"make_game": envs.make_game, "make": envs.make,
              "make_single_agent": envs.make_single_agent,
              "gymnasium.make": lambda n, **kw: gymnasium.make(envs.gymnasium_id(n), **kw)}
    for how, make in makers.items():
        with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'") as err:
            make(name, frameskip=4)
        assert isinstance(err.value, envs.ConfigError), how
        assert "num_players" in str(err.value) and "\n" not in str(err.value), how


@pytest.mark.parametrize("name", NAMES)
def test_a_gymnasium_id_refuses_another_game(name):
    env_id = envs.gymnasium_id(name)
    for other in NAMES:
        if other == name:
            continue
        with pytest.raises(envs.ConfigError, match=envs.gymnasium_id(other).replace("/", ".")):
            gymnasium.make(env_id, game=other)
    with pytest.raises(envs.ConfigError, match="no_such_game"):
        gymnasium.make(env_id, game="no_such_game")
    for same in (name, name.rsplit("_v", 1)[0]):   # naming its own game is fine
        env = gymnasium.make(env_id, game=same)
        assert env.unwrapped.game_id == name
        env.close()


@pytest.mark.parametrize("options", [
    {"mode": "competitive", "hand_size": 3}, {"mode": "competitive_no_points", "hand_size": 2},
    {"mode": "puzzle", "hand_size": 2}, {"mode": "puzzle", "puzzle_level": "easy", "hand_size": 3},
    {"mode": "competitive", "puzzle_level": "challenge"}, {"mode": "solo", "puzzle_level": "easy"},
    {"mode": "collaborative", "num_players": 2, "puzzle_level": "challenge"},
])
def test_peacekeepers_refuses_an_option_its_mode_ignores(options):
    key = "hand_size" if "hand_size" in options else "puzzle_level"
    with pytest.raises(envs.ConfigError, match=f"{key}=.* has no effect"):
        envs.make_game("peacekeepers_v0", **options)


def test_peacekeepers_options_round_trip_in_every_variant():
    """Every registered variant builds, and so does a game from its own ``options()`` (what saved
    games and checkpoint metadata carry: the defaults of the ignored options)."""
    for options in envs.variants("peacekeepers_v0").values():
        game = envs.make_game("peacekeepers_v0", **options)
        again = envs.make_game("peacekeepers_v0", **game.options())
        assert again.options() == game.options()
    envs.make_game("peacekeepers_v0", mode="puzzle", puzzle_level="challenge", hand_size=3)
    envs.make_game("peacekeepers_v0", mode="solo", hand_size=2)
