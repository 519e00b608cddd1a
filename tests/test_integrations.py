"""The recipes of docs/integrations.md, run as written on every game (issue 21).

Each ``<!-- recipe: NAME -->`` python block of the page is executed here with its UPPER_CASE
constants (lines ``NAME = value`` at the top level) set smaller, so CI runs the documented code
and not a copy of it. An illegal move anywhere in a recipe is an error (IllegalMoveWarning raised).

The libraries come from the ``[integrations]`` extra. Without them the recipes are skipped, unless
``TABLETOP_ARENA_REQUIRE_INTEGRATIONS=1`` (set by .ci/run): then a missing library fails the test.
"""
from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

# Tianshou builds a few numba-compiled helpers when an algorithm or a buffer is first made; the
# compile takes 15-40 s per process here and is irrelevant to a random-policy smoke run. The flag
# must be set before numba is imported (only Tianshou imports it in this suite).
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

from tabletop_arena import envs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "integrations.md"
NAMES = envs.names()
REQUIRE = os.environ.get("TABLETOP_ARENA_REQUIRE_INTEGRATIONS") == "1"


def _need(*modules: str) -> None:
    for module in modules:
        if REQUIRE:
            importlib.import_module(module)  # fails the test when the extra is missing
        else:
            pytest.importorskip(module)


@pytest.fixture(autouse=True)
def _one_torch_thread():
    """Small networks on a shared CI machine: one thread avoids oversubscription (4x faster here)."""
    try:
        import torch
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _recipes() -> dict[str, str]:
    text = DOC.read_text()
    found = re.findall(r"<!-- recipe: (\w+) -->\n```(\w+)\n(.*?)```", text, re.S)
    return {name: code for name, _lang, code in found}


RECIPES = _recipes()


def _with_constants(code: str, **values) -> str:
    for key, value in values.items():
        code, n = re.subn(rf"^{key} = .*$", f"{key} = {value!r}", code, count=1, flags=re.M)
        assert n == 1, f"the recipe has no top-level constant {key}"
    return code


def _run(name: str, **values) -> dict:
    code = _with_constants(RECIPES[name], **values)
    namespace = {"__name__": f"recipe_{name}"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", envs.IllegalMoveWarning)
        exec(compile(code, f"docs/integrations.md#{name}", "exec"), namespace)
    return namespace


def test_every_recipe_is_tested():
    assert set(RECIPES) == {"sb3_single_agent", "pettingzoo_sb3_tutorial", "torchrl", "tianshou",
                            "cleanrl", "supersuit", "sb3_finetune_shipped"}


def _shipped_ppo() -> list[str]:
    from tabletop_arena.agents.shipped import agent_kind, shipped_agents
    return [n for n, e in shipped_agents().items() if agent_kind(e) == "ppo"]


@pytest.mark.parametrize("agent", _shipped_ppo())
def test_sb3_fine_tune_a_shipped_agent(agent, tmp_path):
    """The fine-tuning recipe on every shipped PPO agent: a MaskablePPO with the shipped weights
    learns a rollout on its game's single-agent env, and its safe checkpoint plays as ppo:PATH."""
    _need("sb3_contrib")
    from tabletop_arena.agents.registry import make_agent
    from tabletop_arena.agents.shipped import shipped_agents
    entry = shipped_agents()[agent]
    opts = entry.get("options") or {}
    env_id = envs.gymnasium_id(entry["game"])
    code = RECIPES["sb3_finetune_shipped"]
    if opts:   # the variant the agent was trained on: make() kwargs
        code = code.replace('gymnasium.make(ENV_ID, opponent="heuristic", seat=None)',
                            f'gymnasium.make(ENV_ID, opponent="heuristic", seat=None, **{opts!r})')
        assert code != RECIPES["sb3_finetune_shipped"]
    code = _with_constants(code, AGENT=agent, ENV_ID=env_id, STEPS=256, OUT=str(tmp_path / "ft.zip"))
    ns = {"__name__": "recipe_sb3_finetune_shipped"}
    with warnings.catch_warnings():
        warnings.simplefilter("error", envs.IllegalMoveWarning)
        exec(compile(code, "docs/integrations.md#sb3_finetune_shipped", "exec"), ns)
    assert ns["model"].num_timesteps >= 256
    game = envs.make_game(entry["game"], **opts)
    assert make_agent(f"ppo:{tmp_path / 'ft.zip'}", game, seed=0).path == str(tmp_path / "ft.zip")


@pytest.mark.parametrize("name", NAMES)
def test_sb3_maskable_ppo_single_agent(name, capsys):
    _need("sb3_contrib")
    ns = _run("sb3_single_agent", ENV_ID=envs.gymnasium_id(name), OPPONENT="random", STEPS=256)
    assert ns["model"].num_timesteps >= 256
    assert ns["info"]["outcome"] in ("win", "draw", "loss") and not ns["info"].get("illegal_move")
    assert "as seat" in capsys.readouterr().out


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_sb3_action_mask_tutorial(name, capsys):
    _need("sb3_contrib")
    ns = _run("pettingzoo_sb3_tutorial", GAME=name, STEPS=256, GAMES=1)
    assert ns["model"].num_timesteps >= 256
    assert len(ns["results"]) == 1
    assert "mean result as player_1" in capsys.readouterr().out


@pytest.mark.parametrize("name", NAMES)
def test_torchrl_pettingzoo_wrapper_use_mask(name, capsys):
    _need("torchrl", "tensordict")
    ns = _run("torchrl", GAME=name, STEPS=60)
    rollout, groups = ns["rollout"], list(ns["env"].group_map)
    assert groups == envs.make(name).possible_agents
    acted = sum(int(rollout[g, "mask"].sum()) for g in groups)
    assert acted == 60  # exactly one player moves per step
    out = capsys.readouterr().out
    assert out.count("all legal: True") == len(groups)


@pytest.mark.parametrize("name", NAMES)
def test_tianshou_pettingzoo_env_masked_random(name, capsys):
    _need("tianshou")
    ns = _run("tianshou", GAME=name, OPTIONS={"max_steps": 60}, EPISODES=2)
    stats = ns["stats"]
    assert stats.n_collected_episodes >= 2
    assert stats.returns.shape[1] == len(envs.make(name).possible_agents)
    assert "episodes" in capsys.readouterr().out


# delay_observations_v0 hands out all-zero observations until its delay has passed, which
# PettingZoo's api_test notes with a warning (an error under pytest's settings here)
@pytest.mark.filterwarnings("ignore:Observation numpy array is all zeros")
@pytest.mark.parametrize("name", NAMES)
def test_supersuit_wrappers(name):
    """clip_reward_v0, pad_action_space_v0, sticky_actions_v0 and delay_observations_v0 pass
    api_test on every game (the last two play moves the mask no longer allows: the game ends by
    an illegal move, and the wrappers then observe every agent: issue 41)."""
    _need("supersuit")
    _run("supersuit", GAME=name)


@pytest.mark.parametrize("name", NAMES)
def test_cleanrl_style_ppo_example(name):
    """examples/ppo_masked_vector.py as the doc shows it, shrunk to two updates of 2 x 32 steps."""
    _need("torch")
    command = RECIPES["cleanrl"].replace("\\\n", " ").split()
    assert command[:2] == ["python", "examples/ppo_masked_vector.py"]
    args = dict(zip(command[2::2], command[3::2]))
    args.update({"--env-id": envs.gymnasium_id(name), "--opponent": "random", "--num-envs": "2",
                 "--num-steps": "32", "--total-timesteps": "128",
                 "--vectorization": "async" if name == "zaka_v0" else "sync"})
    out = subprocess.run([sys.executable, str(ROOT / command[1])] + [x for kv in args.items() for x in kv],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "IllegalMoveWarning" not in out.stderr
    lines = out.stdout.strip().splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["update=1", "update=2"]
    assert lines[-1].startswith("done: 2 updates, 128 learner steps")


@pytest.mark.parametrize("name", NAMES)
def test_torchrl_gymenv_builds_and_resets(name):
    """TorchRL's ``GymEnv(id)`` passes ``frameskip`` and drops it only on a TypeError with Python's
    "unexpected keyword argument" words: an unknown option is such an error, so every registered
    id builds and resets (issue 43)."""
    _need("torchrl")
    from torchrl.envs import GymEnv
    env = GymEnv(envs.gymnasium_id(name))
    td = env.reset()
    assert td["observation"].shape[-1] == envs.make_game(name).observation_size
    env.close()


GYMNASIUM_ONLY = """
import sys
import gymnasium
assert not any(m.split(".")[0] == "tabletop_arena" for m in sys.modules), "the project came first"
env = gymnasium.make("tabletop_arena:{env_id}", opponent="random")
obs, info = env.reset(seed=0)
steps = 0
for steps in range(1, 31):
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
    if terminated or truncated:
        break
vec = gymnasium.make_vec("tabletop_arena:{env_id}", num_envs=2, vectorization_mode="sync", opponent="random")
obs, info = vec.reset(seed=0)
assert info["action_mask"].dtype.kind == "i" and info["action_mask"].shape == (2, env.action_space.n)
print("OK", env.spec.id, steps)
"""


@pytest.mark.parametrize("name", NAMES)
def test_gymnasium_make_without_importing_the_project(name):
    """A program that imports only Gymnasium makes every game by its id: Gymnasium 1.x's
    "module:id" form imports tabletop_arena, which registers the ids (Gymnasium 1.0 dropped the
    plugin entry points that would have done it at Gymnasium's import). A fresh interpreter, so
    nothing of this suite has imported the project."""
    env_id = envs.gymnasium_id(name)
    out = subprocess.run([sys.executable, "-c", GYMNASIUM_ONLY.format(env_id=env_id)], capture_output=True,
                         text=True, timeout=300, cwd=ROOT.parent)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split()[:2] == ["OK", env_id]
