"""Packaging (issue 17): everything is imported through the one ``tabletop_arena`` namespace.

The repository root holds ``envs/``, ``agents/`` and ``train/``, so from a checkout an absolute
``import envs`` would still work and load a second copy of the code; an installed wheel has no
such names. These tests keep every module and test on the namespace.
"""
from __future__ import annotations

import ast
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
    (checkpoints/<game>_v0/, train/static/) that pyproject does not list makes the build warn that
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
