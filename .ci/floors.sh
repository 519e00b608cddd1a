#!/usr/bin/env bash
# Dependency floors (issue 43 item 2): the declared minimum of every dependency, installed together
# in a fresh virtual environment with the project's wheel, runs a smoke subset of the tests: every
# env variant resets, steps and passes PettingZoo's api_test, renders (rgb_array: Pillow), every
# shipped agent loads and plays, the Gymnasium ids make and vectorise from a program that imports
# only Gymnasium and in every import order, check_env passes, the CleanRL-style example runs
# (AutoresetMode), and the agents run on one thread (threadpoolctl finds numpy's BLAS).
#
# Measured on the 2-core machine at load average 13-20 (other jobs): 469 s to install, 110 s of
# tests, plus removing the venv; the CI machine runs it alone.
#
# Floors: the base dependencies and the [train] extra, each `name>=X` of pyproject.toml installed
# as `name==X` (a dependency without a floor fails here). torch is the exception: 2.13.0, the CPU
# build pip finds on this machine's disk; an older torch is a multi-GB CUDA download from PyPI, so
# the declared torch floor (2.3, stable-baselines3's own) is not installed here. The [integrations]
# extra pins the versions its recipes were run with (docs/integrations.md) and is not part of it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
TORCH_TESTED="torch==2.13.0"

floors="$(python - "$repo/pyproject.toml" "$TORCH_TESTED" <<'PY'
import re, sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
pins = []
for req in project["dependencies"] + project["optional-dependencies"]["train"]:
    m = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9.]*)", req.strip())
    if m is None:
        sys.exit(f"floors: {req!r} declares no floor (name>=X)")
    pins.append(sys.argv[2] if m[1] == "torch" else f"{m[1]}=={m[2]}")
print(" ".join(sorted(set(pins))))
PY
)"
echo "floors: $floors"
python -m venv "$work/venv"
py="$work/venv/bin/python"
# the test runner, then the floors; pip refuses a set that does not resolve. --no-compile: no .pyc
# for the thousands of modules of torch, matplotlib and pandas up front (the tests import few)
"$py" -m pip install --quiet --no-compile pytest
# shellcheck disable=SC2086
"$py" -m pip install --quiet --no-compile $floors
python -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" "$repo"
"$py" -m pip install --quiet --no-deps "$work"/dist/tabletop_arena-*.whl
"$py" -m pip check
# every floor is what got installed (nothing upgraded it on the way)
"$py" - $floors <<'PY'
import sys
from importlib.metadata import version

def release(v):   # 6.0 == 6, 10.1 == 10.1.0
    parts = [int(x) for x in v.split("+")[0].split(".")]
    while parts and parts[-1] == 0:
        parts.pop()
    return parts

wrong = [(pin, version(pin.split("==")[0])) for pin in sys.argv[1:]
         if release(version(pin.split("==")[0])) != release(pin.split("==")[1])]
assert not wrong, f"installed versions differ from the floors: {wrong}"
PY
# the tests of the checkout against the installed wheel (tabletop_arena/__init__.py lets the
# package span the checkout's folder and site-packages, where envs/agents/train are)
cd "$repo"
echo "floors installed in ${SECONDS} s"
# one variant a game for the env checks (the full suite runs every variant on the current versions)
TABLETOP_ARENA_REQUIRE_KERNELS=1 "$py" -m pytest -p no:cacheprovider -q -x \
    "tests/test_conformance.py::test_pettingzoo_api[peacekeepers_v0-competitive_2p]" \
    "tests/test_conformance.py::test_pettingzoo_api[zaka_v0-2p]" \
    "tests/test_conformance.py::test_pettingzoo_api[gorgasali_v0-2p]" \
    "tests/test_conformance.py::test_pettingzoo_api[zaberias_v0-2p]" \
    "tests/test_conformance.py::test_pettingzoo_api[warbah_v0-2p]" \
    "tests/test_conformance.py::test_render_modes_follow_pettingzoo" \
    "tests/test_single_agent.py::test_check_env_with_default_options" \
    "tests/test_checkpoint_safety.py::test_every_shipped_ppo_agent_is_a_safe_checkpoint_and_plays" \
    "tests/test_cli.py::test_eval_takes_a_shipped_agent_by_name[gorgasali]" \
    "tests/test_integrations.py::test_gymnasium_make_without_importing_the_project" \
    "tests/test_integrations.py::test_cleanrl_style_ppo_example[peacekeepers_v0]" \
    "tests/test_packaging.py::test_gymnasium_ids_exist_whatever_the_import_order[package_then_gymnasium]" \
    "tests/test_packaging.py::test_gymnasium_ids_exist_whatever_the_import_order[gymnasium_then_package]" \
    "tests/test_threads.py::test_a_single_process_game_with_a_ppo_agent_runs_one_thread[import numpy, torch-None-None]" \
    "tests/test_threads.py::test_in_process_evaluation_limits_blas_too_and_restores"
"$py" -c "import tabletop_arena.envs as e, sys; assert 'site-packages' in e.__file__, e.__file__"
echo "floors passed in ${SECONDS} s: $floors"
