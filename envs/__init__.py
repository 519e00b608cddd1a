"""Tabletop Arena environments: a registry of PettingZoo AEC games.

    from tabletop_arena import envs
    env = envs.make("peacekeepers_v0", mode="competitive", num_players=2, render_mode="ansi")
    env.reset(seed=0)

    env = envs.make_single_agent("peacekeepers", opponent="heuristic")   # a gymnasium.Env

``envs.names()`` lists the registered ids; ``envs.variants(name)`` the option sets the conformance
suite runs; ``envs.make_game(name, **kw)`` gives the pure engine (no PettingZoo) for search and tests.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from .core.game import ConfigError, Game, IllegalActionError, IllegalMoveWarning, State


@dataclass(frozen=True)
class EnvSpec:
    name: str
    module: str  # package holding env(), raw_env(), make_game()
    description: str
    players: str
    #: named option sets exercised by the conformance suite and the bench
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)


_REGISTRY: dict[str, EnvSpec] = {}


def register(spec: EnvSpec) -> None:
    if spec.name in _REGISTRY:
        raise ValueError(f"{spec.name} is already registered")
    _REGISTRY[spec.name] = spec


def names() -> list[str]:
    return sorted(_REGISTRY)


def spec(name: str) -> EnvSpec:
    base = name.split("_v")[0]
    if name not in _REGISTRY:
        hint = [n for n in _REGISTRY if n.split("_v")[0] == base]
        raise KeyError(f"unknown env {name!r}; registered: {names()}"
                       + (f" (did you mean {hint[0]!r}?)" if hint else ""))
    return _REGISTRY[name]


def resolve(name: str) -> str:
    """Accept a bare game name ('peacekeepers') as well as the versioned id."""
    if name in _REGISTRY:
        return name
    matches = sorted(n for n in _REGISTRY if n.split("_v")[0] == name)
    if matches:
        return matches[-1]
    spec(name)  # raises with the list
    return name


def _module(name: str):
    return importlib.import_module(spec(resolve(name)).module)


def make(name: str, **kwargs):
    """The wrapped AEC env (PettingZoo's order enforcement on top of the raw env)."""
    return _module(name).env(**kwargs)


def make_raw(name: str, **kwargs):
    return _module(name).raw_env(**kwargs)


def make_game(name: str, **kwargs) -> Game:
    """The pure engine for a variant: ``game.new_initial_state(seed)``."""
    return _module(name).make_game(**kwargs)


def variants(name: str) -> dict[str, dict[str, Any]]:
    return dict(spec(resolve(name)).variants)


register(EnvSpec(
    name="peacekeepers_v0", module=f"{__name__}.peacekeepers",
    description="Cube placement on a 10x10 grid: colour-wheel neighbours, trolls, giants, hordes, volcanoes",
    players="1, 2, 4 (collaborative/puzzle: any)",
    variants={
        "competitive_2p": {"mode": "competitive", "num_players": 2},
        "competitive_2p_quadrants": {"mode": "competitive", "num_players": 2, "zones": "quadrants"},
        "competitive_2p_hidden": {"mode": "competitive", "num_players": 2,
                                  "rules": {"hidden_hands": True}},
        "competitive_2p_random_mountains": {"mode": "competitive", "num_players": 2,
                                            "mountains": "random"},
        "competitive_4p": {"mode": "competitive", "num_players": 4},
        "no_points_2p": {"mode": "competitive_no_points", "num_players": 2},
        "no_points_4p": {"mode": "competitive_no_points", "num_players": 4},
        "solo_hand3": {"mode": "solo", "hand_size": 3},
        "solo_hand1": {"mode": "solo", "hand_size": 1},
        "collaborative_3p": {"mode": "collaborative", "num_players": 3, "hand_size": 2},
        "puzzle_standard": {"mode": "puzzle", "puzzle_level": "standard"},
        "puzzle_easy": {"mode": "puzzle", "puzzle_level": "easy"},
        "puzzle_challenge_2p": {"mode": "puzzle", "puzzle_level": "challenge", "num_players": 2},
    },
))

register(EnvSpec(
    name="zaka_v0", module=f"{__name__}.zaka",
    description="Monster-and-weapon card battle with hidden hands: attack, rampage, last army standing",
    players="2-4 (2 players run two armies each)",
    variants={
        "2p": {"num_players": 2},
        "3p": {"num_players": 3},
        "4p": {"num_players": 4},
        "2p_armies_fight": {"num_players": 2, "rules": {"two_player_friendly": "army"}},
        "4p_reshuffle": {"num_players": 4, "rules": {"empty_deck": "reshuffle_discard"}},
    },
))

register(EnvSpec(
    name="gorgasali_v0", module=f"{__name__}.gorgasali",
    description="Battle royale on a 20x20 map: loot chests, shoot, ten characters, shrinking zones",
    players="2-10 (solo free-for-all or duo teams of two)",
    variants={
        "2p": {"num_players": 2},
        "4p": {"num_players": 4},
        "10p": {"num_players": 10},
        "duo_4p": {"num_players": 4, "mode": "duo"},
        "duo_10p": {"num_players": 10, "mode": "duo"},
    },
))

register(EnvSpec(
    name="zaberias_v0", module=f"{__name__}.zaberias",
    description="Tribal tactics on square map boards: cities, coins, dice battles, ambushes, "
                "four tribes with twenty special units",
    players="2, 3, 4",
    variants={
        "2p": {"num_players": 2},
        "2p_orcs_guardians": {"num_players": 2, "tribes": ["orcs", "guardians"]},
        "3p": {"num_players": 3, "tribes": ["humans", "orcs", "guardians"]},
        "4p": {"num_players": 4},
    },
))

register(EnvSpec(
    name="warbah_v0", module=f"{__name__}.warbah",
    description="Hex-map fantasy conquest: explore, recruit, spells and wizards, fleets, "
                "espionage, battles in initiative segments; capture capitols",
    players="2, 3, 4",
    variants={
        "2p": {"num_players": 2},
        "3p": {"num_players": 3},
        "4p": {"num_players": 4},
        "4p_allies": {"num_players": 4, "allies": True},
    },
))

# The single-agent Gymnasium view (opponents stepped inside step()), registered with Gymnasium as
# tabletop_arena/<Game>-v<k> for every game above: gymnasium.make("tabletop_arena/Peacekeepers-v0").
# It imports Gymnasium, which an engine (make_game) does not need: it loads on first use of
# make_single_agent / SingleAgentEnv / gymnasium_id, or of envs.single_agent, and as soon as the
# program imports Gymnasium, before or after this package (tabletop_arena/_gymnasium.py).
_SINGLE_AGENT = ("make_single_agent", "SingleAgentEnv", "gymnasium_id")


def _single_agent():
    return importlib.import_module(f"{__name__}.single_agent")   # registers the Gymnasium ids


def __getattr__(name: str):
    if name in _SINGLE_AGENT:
        return getattr(_single_agent(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["make", "make_raw", "make_game", "names", "variants", "register", "EnvSpec", "spec",
           "resolve", "ConfigError", "IllegalActionError", "IllegalMoveWarning", "Game", "State",
           "make_single_agent", "SingleAgentEnv", "gymnasium_id"]
