"""A plain ``pip install tabletop-arena`` (no extra; issue 47 item 2): a command that needs a package
of an extra says which extra in one line with the distribution's name (exit 2, no traceback), and
an evaluation of the built-in agents runs without tqdm and matplotlib. Each case runs in a fresh
process with the extra's packages blocked (``sys.modules[name] = None``); .ci/wheel_smoke.sh runs
the same commands from a real base install of the wheel."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tabletop_arena.app.cli_common import missing_extra

BLOCKED = ("torch", "tqdm", "matplotlib", "stable_baselines3", "sb3_contrib", "tensorboard")


def _arena(argv, cwd):
    code = ("import sys\n"
            f"for name in {BLOCKED!r}:\n"
            "    sys.modules[name] = None\n"
            "from tabletop_arena.app.cli import main\n"
            f"sys.exit(main({argv!r}))\n")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("argv", [
    ["train", "zaka", "--timesteps", "64", "--out", "t", "--no-progress"],
    ["quickstart", "--timesteps", "64", "--out", "q", "--no-progress"],
    ["eval", "zaka", "--agents", "ppo:zaka", "random", "--games", "2", "--out", "e"],
    ["play", "zaka", "--opponents", "ppo:zaka"],
], ids=["train", "quickstart", "eval-ppo", "play-ppo"])
def test_a_command_that_needs_the_train_extra_says_so_in_one_line(argv, tmp_path):
    done = _arena(argv, tmp_path)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "needs torch (the train extra): pip install 'tabletop-arena[train]'" in lines[0]
    assert "-e" not in lines[0].split("pip install", 1)[1].split(";")[0]   # not the repository's editable form
    assert len(lines[0]) <= 200
    if "--out" in argv:   # nothing written
        assert not (tmp_path / argv[argv.index("--out") + 1]).exists()


def test_an_evaluation_of_built_in_agents_runs_without_tqdm_and_matplotlib(tmp_path):
    done = _arena(["eval", "zaka", "--agents", "heuristic", "random", "--games", "2", "--workers", "1",
                   "--out", "e"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "report.png needs matplotlib: pip install 'tabletop-arena[train]'" in done.stdout
    assert (tmp_path / "e" / "report.md").is_file() and not (tmp_path / "e" / "report.png").exists()


def test_missing_extra_names_the_extra_and_leaves_other_imports_alone():
    assert missing_extra(ModuleNotFoundError("x", name="tqdm")) == \
        "needs tqdm (the train extra): pip install 'tabletop-arena[train]'"
    assert "download.pytorch.org/whl/cpu" in missing_extra(ModuleNotFoundError("x", name="torch.nn"))
    assert missing_extra(ModuleNotFoundError("x", name="ray")) == \
        "needs ray (the train,rllib extra): pip install 'tabletop-arena[train,rllib]'"
    assert missing_extra(ModuleNotFoundError("x", name="numpy")) is None     # a base dependency: a bug
    assert missing_extra(ValueError("x")) is None
