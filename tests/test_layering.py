"""The dependency rules of DESIGN.md, measured (issue 19).

- An engine loads without an RL framework: importing ``envs.<game>.state`` (Warbah's ``position``) and building and playing
  a game through ``envs.make_game`` never imports PettingZoo, Gymnasium or torch (the package's
  ``env`` / ``raw_env`` adapter is imported on first use only). Run in a fresh interpreter, so no
  other test's imports hide a slip.
- No import cycle inside a game package: the graph of its modules' imports of each other, at
  module level and inside functions alike, has no cycle (a function-local import that only breaks
  a cycle hides one; it does not remove it). Imports under ``if TYPE_CHECKING:`` are not edges:
  they never run, and they are how a module names a type of a module that imports it (a state's
  ``game: ZakaGame``, issue 44).
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_arena import envs

ROOT = Path(__file__).resolve().parents[1]
GAMES = [name.split("_v")[0] for name in envs.names()]
#: games that join the checks later (none now; an entry marks the check xfail with its reason)
PENDING: dict[str, str] = {}


def _pending(game: str):
    reason = PENDING.get(game)
    return [pytest.mark.xfail(reason=reason, strict=False)] if reason else []


ENGINE_ONLY = """
import sys
import numpy as np
import tabletop_arena.envs.{game}.{state_module}
from tabletop_arena import envs
name = envs.resolve("{game}")
for options in envs.variants(name).values():
    game = envs.make_game(name, **options)
    state = game.new_initial_state(np.random.default_rng(0))
    rng = np.random.default_rng(0)
    for _ in range(30):
        if state.is_terminal():
            break
        for seat in range(game.num_seats):
            state.observation(seat)
        legal = state.legal_actions()
        state.action_to_str(legal[0])
        state.apply(legal[rng.integers(len(legal))])
    state.render_text()
    state.clone().determinize(0, rng)
loaded = sorted(m for m in ("pettingzoo", "gymnasium", "torch") if m in sys.modules)
print("LOADED", loaded)
"""


@pytest.mark.parametrize("game", [pytest.param(g, marks=_pending(g)) for g in GAMES])
def test_engine_loads_without_rl_frameworks(game):
    out = subprocess.run([sys.executable, "-c", ENGINE_ONLY.format(game=game, state_module="position" if game == "warbah" else "state")], capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "LOADED []" in out.stdout, (f"envs.{game}: the engine imported {out.stdout.split('LOADED')[-1]}"
                                       f" (keep PettingZoo/Gymnasium in aec_env.py, loaded lazily)")


ADAPTER_FIRST = """
import importlib
from tabletop_arena import envs
importlib.import_module("tabletop_arena.envs.{game}.aec_env")   # the adapter module by its path
package = importlib.import_module("tabletop_arena.envs.{game}")
assert callable(package.env) and isinstance(package.raw_env, type), package.env
env = envs.make(package.ENV_NAME)
env.reset(seed=1)
print("OK", package.env.__module__)
"""


@pytest.mark.parametrize("game", [pytest.param(g, marks=_pending(g)) for g in GAMES])
def test_the_adapter_still_comes_with_the_package(game):
    """``envs.<game>.env`` and ``raw_env`` are the adapter's function and class, also after the
    adapter module was imported by its own path (a submodule named ``env`` would rebind the
    package's ``env`` to the module and break ``envs.make``)."""
    out = subprocess.run([sys.executable, "-c", ADAPTER_FIRST.format(game=game)], capture_output=True,
                         text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    assert f"OK tabletop_arena.envs.{game}.aec_env" in out.stdout


def _type_checking_only(node: ast.AST) -> bool:
    """``node`` is an ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``) block."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_edges(package: Path) -> list[tuple[str, str, bool]]:
    """(importer, imported, inside a function) for each import of a sibling module in ``package``
    that runs (those under ``if TYPE_CHECKING:`` do not)."""
    modules = {p.stem for p in package.glob("*.py")}
    edges = []
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        in_function = set()
        for_types = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                in_function.update(id(n) for n in ast.walk(node) if n is not node)
            if isinstance(node, ast.If) and _type_checking_only(node):
                for_types.update(id(n) for stmt in node.body for n in ast.walk(stmt))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or node.level != 1 or id(node) in for_types:
                continue
            names = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
            edges += [(path.stem, n, id(node) in in_function) for n in names
                      if n in modules and n != path.stem]
    return edges


def cycles(edges) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for a, b, _ in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize("game", [pytest.param(g, marks=_pending(g)) for g in GAMES])
def test_no_import_cycle_inside_a_game(game):
    edges = import_edges(ROOT / "envs" / game)
    found = cycles(edges)
    assert not found, f"envs/{game}: import cycles {found}; edges inside functions: " + \
        str(sorted({(a, b) for a, b, local in edges if local}))


def test_the_cycle_finder_finds_cycles():
    assert cycles([("a", "b", False), ("b", "c", True), ("c", "a", False), ("c", "d", False)]) == [["a", "b", "c"]]
    assert cycles([("a", "b", False), ("b", "c", True)]) == []


def test_imports_for_the_type_checker_are_not_edges(tmp_path):
    """An import under ``if TYPE_CHECKING:`` never runs; one in its ``else:`` branch and one in
    a function do."""
    (tmp_path / "game.py").write_text("from .rules import State\n")
    (tmp_path / "rules.py").write_text(
        "from typing import TYPE_CHECKING\nimport typing\n"
        "if TYPE_CHECKING:\n    from .game import Game\nelse:\n    from .board import B\n"
        "if typing.TYPE_CHECKING:\n    from .render import R\n"
        "def f():\n    from .observe import O\n")
    for name in ("board", "render", "observe"):
        (tmp_path / f"{name}.py").write_text("")
    assert sorted(import_edges(tmp_path)) == [("game", "rules", False), ("rules", "board", False),
                                              ("rules", "observe", True)]


# ------------------------------------------------------------------------------------------------
# GPU learners: a tensor goes to the host before numpy reads it
# ------------------------------------------------------------------------------------------------
def numpy_without_cpu(source: str) -> list[int]:
    """Lines of ``source`` calling ``.numpy()`` on anything but ``<...>.cpu()``: on a GPU learner
    (``--device cuda``) such a call raises (DAgger's collection did, found on an H100; CI has no GPU
    to find the next one)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "numpy":
            inner = node.func.value
            if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                    and inner.func.attr == "cpu"):
                out.append(node.lineno)
    return out


def test_tensors_reach_numpy_through_cpu():
    """Every ``.numpy()`` of the training and agent code follows ``.cpu()``."""
    bad = [f"{path.relative_to(ROOT)}:{line}"
           for folder in ("train", "agents") for path in sorted((ROOT / folder).rglob("*.py"))
           for line in numpy_without_cpu(path.read_text())]
    assert not bad, f".numpy() on a tensor that may live on the GPU (add .cpu() first): {bad}"


def test_the_numpy_check_finds_a_gpu_tensor_read():
    assert numpy_without_cpu("p = torch.softmax(x, 1).double().numpy()\nq = x.cpu().numpy()\n") == [1]
