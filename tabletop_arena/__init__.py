"""Tabletop Arena: reinforcement-learning environments built from five tabletop rulebooks.

Everything installed lives under this one namespace (the repository keeps its ``envs/``,
``agents/``, ``train/`` and ``configs/`` folders at the top; the build maps them here)::

    from tabletop_arena import envs
    env = envs.make("peacekeepers_v0")

    import gymnasium
    env = gymnasium.make("tabletop_arena:tabletop_arena/Zaka-v0", opponent="heuristic")

| module                    | what it holds                                                   |
|---------------------------|-----------------------------------------------------------------|
| ``tabletop_arena.envs``   | the game registry, the pure engines and their PettingZoo envs   |
| ``tabletop_arena.agents`` | random, rule-based, MCTS and PPO agents                         |
| ``tabletop_arena.train``  | self-play PPO, the evaluator, benchmarks, the ``arena`` command |
| ``tabletop_arena.configs``| rules tables (``<game>.yaml``) and training configs (package data) |
| ``tabletop_arena.checkpoints`` | shipped agents (package data; ``ppo:<game>`` names them)   |
"""
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version
from pkgutil import extend_path

# Run from the repository root, this folder shadows an installed (non-editable) copy whose
# envs/agents/train live in site-packages: let the package span both, so imports still resolve.
__path__ = extend_path(__path__, __name__)

try:
    __version__ = _version("tabletop-arena")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]

# gymnasium.make("tabletop_arena/<Game>-v0") works once this package is imported, whichever of it
# and Gymnasium comes first, without loading Gymnasium here (tabletop_arena/_gymnasium.py)
from ._gymnasium import register_ids as _register_ids  # noqa: E402

_register_ids()
