"""The games' rule-based agents, found by convention: ``agents/<game base name>.py`` defines
``HeuristicAgent(game, seed=None)``. A leaf of agents/: the registry (``heuristic`` specs) and
the agents built on a heuristic (``vlook``, agents/lookahead.py) both load it from here, so
neither imports the other."""
from __future__ import annotations

import importlib
import importlib.util

from ..envs.core.errors import ArenaError
from ..envs.core.game import Game
from .base import BaseAgent


class AgentSpecError(ArenaError):
    """An agent spec that names no known agent or has a malformed argument."""


class NoHeuristicError(AgentSpecError):
    """The game has no rule-based agent module."""


def game_base_name(game_or_name) -> str:
    """``peacekeepers_v0`` (or a Game with that name) -> ``peacekeepers``."""
    name = game_or_name if isinstance(game_or_name, str) else game_or_name.name
    return str(name).split("_v")[0]


def heuristic_module_name(game_or_name) -> str:
    return f"{__package__}.{game_base_name(game_or_name)}"


def has_heuristic(game_or_name) -> bool:
    """Whether ``agents.<game>`` exists (without importing it)."""
    try:
        return importlib.util.find_spec(heuristic_module_name(game_or_name)) is not None
    except (ImportError, ValueError):
        return False


def make_heuristic(game: Game, seed: int | None = None, style: str | None = None) -> BaseAgent:
    """The rule-based agent of ``game`` (``NoHeuristicError`` where the game has none); ``style``: one
    of ``heuristic_styles(game)`` (None: its default)."""
    module_name = heuristic_module_name(game)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:  # the module exists but one of its imports is missing
            raise
        raise NoHeuristicError(
            f"no rule-based baseline for {game.name!r}: expected module "
            f"{module_name} (agents/{game_base_name(game)}.py) defining HeuristicAgent(game, seed=None)") from None
    cls = getattr(module, "HeuristicAgent", None)
    if cls is None:
        raise AgentSpecError(f"{module_name} defines no HeuristicAgent class")
    styles = getattr(cls, "STYLES", ("default",))
    if style not in (None, *styles):
        raise AgentSpecError(f"{game.name}'s heuristic has no style {style!r}; its styles: {', '.join(styles)}")
    return cls(game, seed=seed) if style in (None, "default") else cls(game, seed=seed, style=style)


def heuristic_styles(game_or_name) -> tuple[str, ...]:
    """The ways the game's rule-based agent can play (its ``STYLES``; ``("default",)`` where it
    declares none), the default first; () for a game without one."""
    if not has_heuristic(game_or_name):
        return ()
    cls = getattr(importlib.import_module(heuristic_module_name(game_or_name)), "HeuristicAgent", None)
    return tuple(getattr(cls, "STYLES", ("default",)))
