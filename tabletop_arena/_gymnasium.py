"""The Gymnasium ids ``tabletop_arena/<Game>-v0`` exist once ``tabletop_arena`` is imported, in
whichever order the program imports ``tabletop_arena`` and ``gymnasium``.

- Gymnasium imported first: ``import tabletop_arena`` registers the ids at once
  (``tabletop_arena.envs.single_agent`` does it when imported).
- ``tabletop_arena`` first: importing it must not load Gymnasium (an engine needs neither Gymnasium
  nor PettingZoo, tests/test_layering.py), so it leaves a one-shot finder on ``sys.meta_path``
  that, when the program later imports ``gymnasium``, lets Gymnasium's own ``__init__`` run and
  then registers the ids. It answers for the name ``gymnasium`` only, once, and keeps Gymnasium's
  own spec and loader (only ``exec_module`` is wrapped for that one call).
- Neither imported: ``gymnasium.make("tabletop_arena:tabletop_arena/Zaka-v0")``. Gymnasium 1.x
  imports the module named before the colon, then makes the id: the form for tools that take an
  id string (TorchRL's ``GymEnv``, SB3's ``make_vec_env``, a script's ``--env-id``). Gymnasium
  1.0 removed the plugin entry points (``gymnasium.envs``) that 0.26-0.29 loaded at import, so a
  plain id cannot work in a program that imports nothing of the project.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

#: the module whose import registers every game's id (envs/single_agent.py, bottom of the file)
REGISTERING_MODULE = "tabletop_arena.envs.single_agent"


def _register() -> None:
    importlib.import_module(REGISTERING_MODULE)


class _RegisterAfterGymnasium(importlib.abc.MetaPathFinder):
    """Finds nothing itself: asks the other finders for ``gymnasium`` and wraps the loader's
    ``exec_module`` so that the ids are registered right after Gymnasium's ``__init__`` ran."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "gymnasium":
            return None
        _remove()   # one shot, and importlib.util.find_spec below must not come back here
        spec = importlib.util.find_spec(fullname)
        loader = spec.loader if spec is not None else None
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_then_register(module):
            exec_module(module)
            try:
                del loader.exec_module   # the loader as it was (the instance attribute goes)
            except AttributeError:
                pass
            _register()

        loader.exec_module = exec_then_register   # type: ignore[method-assign]
        return spec


_FINDER = _RegisterAfterGymnasium()


def _remove() -> None:
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)


def register_ids() -> None:
    """Register the ids now if Gymnasium is loaded, else as soon as it is (see the module docstring)."""
    if "gymnasium" in sys.modules:
        _register()
    elif _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
