"""The dependency rules of the code, measured (issues 19 and 44).

- An engine loads without an RL framework: importing ``envs.<game>.state`` (Warbah's ``position``) and building and playing
  a game through ``envs.make_game`` never imports PettingZoo, Gymnasium or torch (the package's
  ``env`` / ``raw_env`` adapter is imported on first use only). Run in a fresh interpreter, so no
  other test's imports hide a slip.
- No import cycle inside a game package: the graph of its modules' imports of each other, at
  module level and inside functions alike, has no cycle (a function-local import that only breaks
  a cycle hides one; it does not remove it). Imports under ``if TYPE_CHECKING:`` are not edges:
  they never run, and they are how a module names a type of a module that imports it (a state's
  ``game: ZakaGame``, issue 44).
- No import cycle in the whole installed package (every folder of pyproject.toml's package-dir),
  function-local imports included; and a function imports one of the project's modules only when
  that module loads an optional heavy library (torch, ray, PIL, pygame, ...), issue 44.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import NamedTuple

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
# The whole installed package: no import cycle, function-local imports only for optional libraries
# ------------------------------------------------------------------------------------------------
#: the optional heavy libraries a function may import on first use (the issue 44 rule): a module
#: that needs one of them loads without it until the function runs
OPTIONAL_LIBRARIES = frozenset({"torch", "ray", "PIL", "pygame", "matplotlib", "imageio",
                                "imageio_ffmpeg", "selenium", "stable_baselines3", "sb3_contrib",
                                "gymnasium", "pettingzoo", "tensorboard", "supersuit", "tianshou",
                                "torchrl"})
#: the project's own optional modules: a build product that may be missing
OPTIONAL_PROJECT_MODULES = {"tabletop_arena.envs._accel": "the compiled kernels (absent without a C compiler)"}


class Import(NamedTuple):
    importer: str       # dotted module name
    imported: str       # dotted module name of the project, or a top-level library name
    line: int
    local: bool         # inside a function (runs on the first call, not when the module loads)
    text: str           # the import statement as written


def package_dirs(root: Path = ROOT) -> dict[str, Path]:
    """The installed packages and their folders: ``[tool.setuptools] package-dir`` of
    pyproject.toml, read now (the folders are moving: train/ is splitting into train/ and app/)."""
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    table = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    return {package: root / folder for package, folder in table.items()}


def project_modules(dirs: dict[str, Path]) -> dict[str, Path]:
    """Dotted name -> file of every module of the packages ``dirs`` (a package is its
    ``__init__.py``; a folder without one is data, not a package)."""
    out = {}
    for package, folder in sorted(dirs.items(), key=lambda kv: len(kv[0])):   # nested mappings win
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).parts
            if not all((folder.joinpath(*parts[:i]) / "__init__.py").is_file() for i in range(len(parts))):
                continue
            names = list(parts[:-1]) + ([] if path.stem == "__init__" else [path.stem])
            out[".".join([package, *names])] = path
    return out


def _target(name: str, modules: dict) -> str:
    """The project module ``name`` loads (its longest prefix that is one), or its top-level
    library."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in modules:
            return ".".join(parts[:i])
    return parts[0]


def module_imports(module: str, path: Path, modules: dict) -> list[Import]:
    """Every import of ``module`` that runs (not those under ``if TYPE_CHECKING:``), relative ones
    resolved; ``from P import x`` names the module ``P.x`` when there is one, else ``P``."""
    source = path.read_text()
    tree = ast.parse(source, filename=str(path))
    in_function, for_types = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            in_function.update(id(n) for n in ast.walk(node) if n is not node)
        if _type_checking_only(node):
            for_types.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)) or id(node) in for_types:
            continue
        if isinstance(node, ast.Import):
            names = [_target(a.name, modules) for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            names = [_target(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base, modules)
                     for a in node.names]
        text = ast.get_source_segment(source, node) or ""
        out += [Import(module, n, node.lineno, id(node) in in_function, " ".join(text.split()))
                for n in dict.fromkeys(names) if n != module]
    return sorted(out, key=lambda i: (i.line, i.imported))


def project_imports(root: Path = ROOT) -> tuple[dict[str, Path], list[Import]]:
    modules = project_modules(package_dirs(root))
    return modules, [i for m, p in modules.items() for i in module_imports(m, p, modules)]


def cycle_report(modules: dict, imports: list[Import]) -> list[str]:
    """One line per import cycle (a strongly connected component of the graph of the project's
    modules, function-local imports included): its modules, then each import between them."""
    edges = [(i.importer, i.imported, i.local) for i in imports if i.imported in modules]
    out = []
    for comp in cycles(edges):
        members = set(comp)
        lines = [f"{i.importer}:{i.line} {'(in a function) ' if i.local else ''}{i.text}"
                 for i in imports if i.importer in members and i.imported in members]
        out.append(f"{len(comp)} modules {comp}: " + "; ".join(lines))
    return out


def needs_optional_library(modules: dict, imports: list[Import]) -> set[str]:
    """The project modules that load an optional library when they load (themselves or through
    the project modules they import at module level)."""
    needs = {i.importer for i in imports if not i.local and i.imported in OPTIONAL_LIBRARIES}
    grew = True
    while grew:
        more = {i.importer for i in imports if not i.local and i.imported in needs} - needs
        needs |= more
        grew = bool(more)
    return needs


def local_project_imports(modules: dict, imports: list[Import]) -> list[Import]:
    """Function-local imports of the project's own modules that load no optional library: they
    only defer (or hide a cycle), the issue 44 rule keeps function-local imports for optional
    heavy libraries."""
    heavy = needs_optional_library(modules, imports)
    def optional(i: Import) -> bool:   # ``from .. import _accel`` resolves to the package: read the name
        return any(i.imported == m.rpartition(".")[0] and f"import {m.rpartition('.')[2]}" in i.text
                   for m in OPTIONAL_PROJECT_MODULES)
    def upward(i: Import) -> bool:   # envs reaching agents on demand: the engines load without them
        return _layer(i.importer) < _layer(i.imported)
    return [i for i in imports if i.local and i.imported in modules and i.imported not in heavy
            and not optional(i) and not upward(i)]


#: the layers, lowest first: a module imports its own layer and those below at module level; a
#: lower layer may reach a higher one only inside a function, on demand (envs/single_agent.py
#: builds an opponent from an agent spec), so that it loads without it
LAYERS = ("envs", "agents", "train", "app")


def _layer(module: str) -> int:
    part = module.split(".")[1] if module.count(".") else ""
    return LAYERS.index(part) if part in LAYERS else -1


def test_no_import_cycle_in_the_installed_package():
    """The whole package (every folder of ``[tool.setuptools] package-dir``: envs, agents, train,
    app, ...): the graph of its modules' imports of each other, function-local imports included
    (they hide a cycle, they do not remove it) and ``if TYPE_CHECKING:`` ones left out, has no
    cycle. The message names each cycle's modules and the imports that make it."""
    modules, imports = project_imports()
    found = cycle_report(modules, imports)
    assert not found, f"{len(found)} import cycles: " + " | ".join(found)


def test_function_local_imports_are_for_optional_libraries():
    """A function imports a module on first use only to keep an optional heavy library
    (``OPTIONAL_LIBRARIES``: torch, ray, PIL, pygame, ...) out of a process that does not need it:
    a function-local import of one of the project's modules must load such a library (the module
    or the project modules it imports at module level do). The message counts the others per
    module."""
    modules, imports = project_imports()
    bad = local_project_imports(modules, imports)
    per_module = sorted(Counter(i.importer for i in bad).items())
    assert not bad, f"{len(bad)} function-local imports of the project's modules that load no " \
        f"optional library, in {len(per_module)} modules: " + \
        ", ".join(f"{m} {n} ({', '.join(sorted({i.imported.rpartition('.')[2] for i in bad if i.importer == m}))})"
                  for m, n in per_module)


def test_the_package_graph_resolves_imports_and_finds_hidden_cycles(tmp_path):
    """The package-wide graph on a small project: folders from package-dir, relative and absolute
    imports resolved to modules (``from P import m`` is the module ``P.m``), a cycle through a
    function-local import found, ``if TYPE_CHECKING:`` imports left out, and a function-local
    import flagged unless the module it loads needs an optional library."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools]\npackage-dir = {"pkg" = "pkg", "pkg.a" = "a", "pkg.b" = "bb"}\n')
    files = {
        "pkg/__init__.py": "",
        "a/__init__.py": "",
        "a/x.py": "from typing import TYPE_CHECKING\nfrom ..b import y\nif TYPE_CHECKING:\n"
                  "    from .z import Z\n",
        "a/z.py": "import pkg.a.x\n",
        "bb/__init__.py": "",
        "bb/y.py": "def f():\n    from ..a.x import thing\n    from . import heavy\n    import numpy\n",
        "bb/heavy.py": "import torch\n",
        "bb/data/notes.py": "",   # a folder without __init__.py is data, not a package
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    modules, imports = project_imports(tmp_path)
    assert sorted(modules) == ["pkg", "pkg.a", "pkg.a.x", "pkg.a.z", "pkg.b", "pkg.b.heavy", "pkg.b.y"]
    assert sorted((i.importer, i.imported, i.local) for i in imports if i.imported != "typing") == [
        ("pkg.a.x", "pkg.b.y", False), ("pkg.a.z", "pkg.a.x", False),
        ("pkg.b.heavy", "torch", False), ("pkg.b.y", "numpy", True),
        ("pkg.b.y", "pkg.a.x", True), ("pkg.b.y", "pkg.b.heavy", True)]
    report = cycle_report(modules, imports)
    assert report == ["2 modules ['pkg.a.x', 'pkg.b.y']: pkg.a.x:2 from ..b import y; "
                      "pkg.b.y:2 (in a function) from ..a.x import thing"]
    assert [(i.importer, i.imported) for i in local_project_imports(modules, imports)] == [
        ("pkg.b.y", "pkg.a.x")]


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


def test_no_module_level_import_reaches_a_higher_layer():
    """envs < agents < train < app: at module level a module imports its own layer and those below
    (train/ never imports app/, agents/ never train/, envs/ never agents/); a lower layer reaches a
    higher one only inside a function, on demand."""
    modules, imports = project_imports()
    up = [f"{i.importer}:{i.line} {i.text}" for i in imports
          if not i.local and i.imported in modules and _layer(i.importer) < _layer(i.imported)]
    assert not up, f"module-level imports of a higher layer: {up}"
