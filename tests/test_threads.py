"""The agents' small networks run on one thread wherever the project runs them (issue 43 item 1).

Measured, not assumed: inside an evaluation worker and inside a single-process game with a
``ppo:`` agent, each in a fresh interpreter (no test's imports hide a slip), the probe reads
torch's intra-op threads, the BLAS libraries' threads (numpy's OpenBLAS: the agents' forward passes
run in numpy, and its pool is the one that spun in issue 43) through threadpoolctl, and the
process's real OS threads (``/proc/self/task``). ``TABLETOP_ARENA_TORCH_THREADS`` sets another
number, or ``0`` leaves everything alone. Thread counts only: tests never time things (the
measured CPU and wall times are in the commit message and docs/integrations.md).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_arena.threads import ENV, configured_threads

pytest.importorskip("torch")
pytest.importorskip("threadpoolctl")

ROOT = Path(__file__).resolve().parents[1]
LIBRARY_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", ENV)
LINUX = Path("/proc/self/task").is_dir()

#: importable by the spawned evaluation workers (PYTHONPATH): an agent that reports the threads
#: of the process it plays in, after each of its first moves (the network has run by then)
PROBE = '''
import json, os, sys

def threads(where):
    import torch, threadpoolctl
    blas = sorted({lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"})
    tasks = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None
    return {"where": where, "pid": os.getpid(), "torch": torch.get_num_threads(),
            "interop": torch.get_num_interop_threads(), "blas": blas, "os": tasks}

def record(row):
    with open(os.environ["THREAD_PROBE_OUT"], "a") as f:
        f.write(json.dumps(row) + "\\n")

class Probe:
    def __init__(self, inner):
        self.inner, self.moves = inner, 0
        self.needs_state = inner.needs_state
        self.name = "probe"

    def reset(self, seed=None):
        self.inner.reset(seed)

    def act(self, obs, state=None):
        action = self.inner.act(obs, state=state)
        self.moves += 1
        if self.moves <= 3:
            record(threads("agent"))
        return action

def ppo_probe(game, seed):
    from tabletop_arena.agents import make_agent
    return Probe(make_agent("ppo:zaka", game, seed=seed))
'''


def _run(code: str, tmp_path: Path, **env_extra: str) -> list[dict]:
    (tmp_path / "thread_probe.py").write_text(PROBE)
    out_file = tmp_path / "threads.jsonl"
    env = {k: v for k, v in os.environ.items() if k not in LIBRARY_ENV}
    env.update(env_extra, THREAD_PROBE_OUT=str(out_file),
               PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert rows, "the probe never ran"
    return rows


EVAL_WORKERS = """
from tabletop_arena.train.evaluate import evaluate
import thread_probe
if __name__ == "__main__":
    evaluate("zaka", [thread_probe.ppo_probe, "random"], games=4, workers=2, progress=False,
             bootstrap=10, max_steps=60)
"""


@pytest.mark.skipif(not LINUX, reason="counts the OS threads in /proc/self/task")
def test_an_evaluation_worker_runs_one_thread(tmp_path):
    """Two spawned workers, a ppo agent in each: torch on one thread, numpy's BLAS on one thread,
    and no other OS thread in the worker (before: torch 1 but OpenBLAS 2, 2 OS threads, and
    3-4x the CPU on a busy machine)."""
    rows = _run(EVAL_WORKERS, tmp_path)
    pids = {row["pid"] for row in rows}
    assert len(pids) == 2, f"expected two worker processes, got {rows}"
    for row in rows:
        assert (row["torch"], row["blas"], row["os"]) == (1, [1], 1), row


SINGLE_PROCESS = """
{first}
from tabletop_arena import envs
from tabletop_arena.agents import make_agent
from tabletop_arena.train.play import play
import thread_probe

game = envs.make_game("zaka_v0")
play(game, [thread_probe.ppo_probe(game, 0), make_agent("random", game, seed=1)], 1, max_steps=60)
env = envs.make_single_agent("zaka", opponent="ppo:zaka", seat=1)   # the opponent moves first
obs, info = env.reset(seed=0)
for _ in range(5):
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
    if terminated or truncated:
        obs, info = env.reset()
thread_probe.record(thread_probe.threads("single-agent env with a ppo:zaka opponent"))
"""


@pytest.mark.skipif(not LINUX, reason="counts the OS threads in /proc/self/task")
@pytest.mark.parametrize("first, threads, os_threads", [
    # the agents imported first: the pools start at one thread, no other OS thread
    ("from tabletop_arena import agents", None, 1),
    # numpy (as tabletop_arena.envs does) and torch loaded before: their pools limited in place
    ("import numpy, torch", None, None),
    ("from tabletop_arena import agents", "2", None),   # TABLETOP_ARENA_TORCH_THREADS=2
])
def test_a_single_process_game_with_a_ppo_agent_runs_one_thread(tmp_path, first, threads, os_threads):
    """A ppo agent playing in the user's own process, and one inside the single-agent env: torch and
    numpy's BLAS on one thread (or what TABLETOP_ARENA_TORCH_THREADS says). Where numpy came first
    (``from tabletop_arena import envs`` loads it), its OpenBLAS started a thread per core at
    import: limited to one, the others stay idle, so only the pools' sizes are checked then (before:
    torch and OpenBLAS at the cores' count, 2 OS threads on 2 cores)."""
    want = int(threads or 1)
    rows = _run(SINGLE_PROCESS.format(first=first), tmp_path, **({ENV: threads} if threads else {}))
    assert any(row["where"] != "agent" for row in rows)
    for row in rows:
        assert (row["torch"], row["blas"]) == (want, [want]), row
        if os_threads is not None:
            assert row["os"] == os_threads, row


LEAVE_ALONE = """
import os, threadpoolctl, torch
def blas():
    return sorted({lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"})
torch.set_num_threads(2)
before = blas()
from tabletop_arena import envs
from tabletop_arena.agents import make_agent
agent = make_agent("ppo:zaka", envs.make_game("zaka_v0"), seed=0)
print(torch.get_num_threads(), blas() == before, os.environ.get("OMP_NUM_THREADS"))
"""


def test_zero_leaves_the_threads_alone(tmp_path):
    """TABLETOP_ARENA_TORCH_THREADS=0: torch, BLAS and the environment stay as the user set them."""
    env = {k: v for k, v in os.environ.items() if k not in LIBRARY_ENV}
    env[ENV] = "0"
    proc = subprocess.run([sys.executable, "-c", LEAVE_ALONE], capture_output=True, text=True, env=env,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["2", "True", "None"], proc.stdout


@pytest.mark.parametrize("value, expected", [(None, 1), ("", 1), (" 1 ", 1), ("4", 4), ("0", None)])
def test_configured_threads(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv(ENV, raising=False)
    else:
        monkeypatch.setenv(ENV, value)
    assert configured_threads() == expected


@pytest.mark.parametrize("value", ["-1", "two", "1.5", "1e3", "100000"])
def test_a_bad_thread_count_is_one_line(monkeypatch, value):
    monkeypatch.setenv(ENV, value)
    with pytest.raises(ValueError, match=ENV) as err:
        configured_threads()
    assert "\n" not in str(err.value)


@pytest.mark.filterwarnings("ignore:.*hit the move cap:UserWarning")
def test_in_process_evaluation_limits_blas_too_and_restores():
    """workers=1 plays in the caller's process: BLAS on one thread during the games as torch is
    (it was torch only, and only once torch was loaded), the caller's settings back afterwards."""
    import threadpoolctl
    import torch

    from tabletop_arena.train.evaluate import evaluate

    seen = []

    class Spy:
        needs_state = False
        name = "spy"

        def __init__(self, game, seed):
            self.game = game

        def reset(self, seed=None):
            pass

        def act(self, obs, state=None):
            seen.append((torch.get_num_threads(), sorted({lib["num_threads"] for lib in
                                                          threadpoolctl.threadpool_info()
                                                          if lib["user_api"] == "blas"})))
            import numpy as np
            return int(np.flatnonzero(obs["action_mask"])[0])

    before = torch.get_num_threads()
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        torch.set_num_threads(2)
        try:
            evaluate("zaka", [Spy, "random"], games=2, workers=1, progress=False, bootstrap=10, max_steps=20)
            assert seen and set(map(repr, seen)) == {repr((1, [1]))}
            assert torch.get_num_threads() == 2
            assert {lib["num_threads"] for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "blas"} == {2}
        finally:
            torch.set_num_threads(before)
