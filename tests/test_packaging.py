"""Packaging (issue 17): everything is imported through the one ``tabletop_arena`` namespace.

The repository root holds ``envs/``, ``agents/`` and ``train/``, so from a checkout an absolute
``import envs`` would still work and load a second copy of the code; an installed wheel has no
such names. These tests keep every module and test on the namespace.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GENERIC = {"envs", "agents", "train", "configs", "checkpoints"}
SOURCES = sorted(p for top in ("envs", "agents", "train", "tests", "tabletop_arena")
                 for p in (ROOT / top).rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_of_a_generic_top_level_name(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name.split(".")[0] in GENERIC]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] in GENERIC:
                bad.append(node.module)
    assert not bad, f"{path.name} imports {bad}: use tabletop_arena.<package> (or a relative import inside it)"


def test_rules_tables_and_configs_are_package_data():
    from tabletop_arena.envs.core.resources import checkpoints_dir, config_path

    for name in ("peacekeepers", "zaka", "zaberias", "gorgasali", "warbah"):
        assert config_path(f"{name}.yaml").is_file()
    assert config_path("train", "default.yaml").is_file()
    assert (checkpoints_dir() / "shipped.yaml").is_file()
    text = (ROOT / "pyproject.toml").read_text()
    for pattern in ('"tabletop_arena.configs" = ["*.yaml"]', '"tabletop_arena.configs.train" = ["*.yaml"]'):
        assert pattern in text


def test_every_package_folder_is_listed_in_pyproject():
    """A new sub-package (e.g. envs/<new game>/) must be added to pyproject's package list, or a
    wheel silently leaves it out."""
    text = (ROOT / "pyproject.toml").read_text()
    for top in ("envs", "agents", "train", "configs"):
        for init in (ROOT / top).rglob("__init__.py"):
            dotted = ".".join(("tabletop_arena",) + init.parent.relative_to(ROOT).parts)
            assert f'"{dotted}"' in text, f"{dotted} is missing from [tool.setuptools] packages"



def test_every_folder_with_files_is_a_listed_package():
    """Setuptools ships a folder inside a package only as a package of its own: a data folder
    (checkpoints/<game>_v0/, app/static/) that pyproject does not list makes the build warn that
    it "would be ignored" and a later setuptools may leave it out of the wheel."""
    text = (ROOT / "pyproject.toml").read_text()
    packages = text[text.index("packages = ["):text.index("]", text.index("packages = ["))]
    for top in ("envs", "agents", "train", "configs", "checkpoints"):
        for d in [ROOT / top, *(ROOT / top).rglob("*")]:
            if not d.is_dir() or d.name == "__pycache__" or not any(f.is_file() for f in d.iterdir()):
                continue
            dotted = ".".join(("tabletop_arena",) + d.relative_to(ROOT).parts)
            assert f'"{dotted}"' in packages, f"{dotted} is missing from [tool.setuptools] packages"


def test_every_shipped_agent_folder_has_its_files_as_package_data():
    """checkpoints/<game>_v0/ holds data only: its package-data patterns must match every kind of
    file in it (the agent, its config, reports, learning curve)."""
    text = (ROOT / "pyproject.toml").read_text()
    folders = [d for d in (ROOT / "checkpoints").iterdir() if d.is_dir() and d.name != "__pycache__"]
    assert folders
    for d in folders:
        dotted = f"tabletop_arena.checkpoints.{d.name}"
        line = next((ln for ln in text.splitlines() if ln.startswith(f'"{dotted}" = [')), None)
        assert line is not None, f"{dotted} has no [tool.setuptools.package-data] entry"
        kinds = {f.suffix for f in d.iterdir() if f.is_file()}
        missing = sorted(k for k in kinds if f'"*{k}"' not in line)
        assert not missing, f"{dotted}: package-data does not match {missing}"


# --- Gymnasium ids in any import order (issue 43 item 3) ----------------------------------------
#: what each fresh interpreter imports before it makes the id; the ids must exist in every case
IMPORT_ORDERS = {
    "gymnasium_then_package": "import gymnasium\nimport tabletop_arena",
    "package_then_gymnasium": "import tabletop_arena\nimport gymnasium",
    "envs_then_gymnasium": "from tabletop_arena import envs\nimport gymnasium",
    "gymnasium_then_envs": "import gymnasium\nfrom tabletop_arena import envs",
    "engine_then_gymnasium": "import tabletop_arena.envs.zaka.state\nimport gymnasium",
    "agents_then_gymnasium": "from tabletop_arena.agents import make_agent\nimport gymnasium",
    "package_then_registration_module": "import tabletop_arena\nfrom gymnasium.envs.registration import registry",
    "registration_module_then_package": "from gymnasium.envs.registration import registry\nimport tabletop_arena",
    "single_agent_module_only": "import tabletop_arena.envs.single_agent\nimport gymnasium",
}
MAKE = """
{imports}
import gymnasium
env = gymnasium.make({env_id!r}, opponent="random")
obs, info = env.reset(seed=0)
env.step(int(info["action_mask"].nonzero()[0][0]))
print("OK", env.spec.id, env.unwrapped.game.name)
"""


def _make_in_fresh_interpreter(imports: str, env_id: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", MAKE.format(imports=imports, env_id=env_id)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT.parent)


@pytest.mark.parametrize("order", IMPORT_ORDERS)
def test_gymnasium_ids_exist_whatever_the_import_order(order):
    """gymnasium.make("tabletop_arena/Zaka-v0") after importing tabletop_arena (or any part of it)
    and gymnasium, in either order: it raised NamespaceNotFound when the package came first."""
    out = _make_in_fresh_interpreter(IMPORT_ORDERS[order], "tabletop_arena/Zaka-v0")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["OK", "tabletop_arena/Zaka-v0", "zaka_v0"]


def test_gymnasium_make_with_the_module_prefix_imports_nothing_first():
    """No import of the project at all: Gymnasium 1.x's "module:id" form imports tabletop_arena,
    which registers the ids (every game: tests/test_integrations.py)."""
    out = _make_in_fresh_interpreter("", "tabletop_arena:tabletop_arena/Zaka-v0")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["OK", "tabletop_arena/Zaka-v0", "zaka_v0"]


def test_importing_the_package_loads_no_gymnasium():
    """The ids' hook waits for Gymnasium: importing the package (or an engine) does not load it."""
    code = ("import sys, tabletop_arena, tabletop_arena.envs.zaka.state\n"
            "print(sorted(m for m in ('gymnasium', 'pettingzoo', 'torch', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=ROOT.parent)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["['numpy']"]


# --- what the base install promises (issue 43 items 6 and 7) -------------------------------------
def _requirements(group: str | None = None) -> dict[str, str]:
    import re
    tomllib = pytest.importorskip("tomllib")   # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] if group is None else project["optional-dependencies"][group]
    return {m[1].lower(): m[2] for m in (re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*(.*)", r) for r in reqs)}


def test_the_render_modes_every_game_advertises_need_only_the_base_install():
    """Every game advertises rgb_array, drawn with Pillow: Pillow is a base dependency (it was in
    [train] only, so check_env and PettingZoo's render_test failed on a base install). The base
    install itself is exercised by .ci/wheel_smoke.sh (a fresh venv, no extra)."""
    from tabletop_arena import envs
    advertised = {mode for name in envs.names() for mode in envs.make(name).metadata["render_modes"]}
    assert "rgb_array" in advertised
    assert "pillow" in _requirements(), "rgb_array is advertised but Pillow is not a base dependency"


def test_the_readme_says_how_to_get_the_cpu_torch_anywhere():
    """The README's torch line: PyTorch's CPU wheel index for machines where PyPI's torch is a CUDA
    build, and the torch floor it quotes is pyproject's."""
    text = (ROOT / "README.md").read_text()
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in text
    floor = _requirements("train")["torch"]
    assert f"torch{floor}" in text, f"the README should quote [train]'s torch{floor}"
