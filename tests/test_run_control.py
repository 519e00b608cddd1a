"""``arena train`` run-folder safety (train/run_control.py): the lock, a clean stop on SIGINT and
SIGTERM (checkpoint saved, one line, exit 130 / 143), progress.csv truncated on resume."""
from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from tabletop_arena import envs  # noqa: E402
from tabletop_arena.agents.ppo import read_metadata  # noqa: E402
from tabletop_arena.train.ppo import train  # noqa: E402
from tabletop_arena.train.run_control import RunFolderBusy, RunLock, truncate_progress  # noqa: E402
from tests.ppo_recipes import ppo_config

GAME = envs.names()[0]   # any game: its PPO config (tests/ppo_recipes.py)
SMALL = dict(n_envs=1, n_steps=32, batch_size=32, n_epochs=1, net_arch=[16], cnn_channels=[4],
             cnn_hidden=16, vector_hidden=8, snapshot_interval=10**9, checkpoint_interval=64,
             eval_interval=0, eval_games=0, eval_opponents=[], progress=False, opponent_mix={"random": 1.0},
             bc_games=0)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _timesteps(path) -> list[int]:
    with open(path, newline="") as fh:
        return [int(float(row["timesteps"])) for row in csv.DictReader(fh)]


def test_a_run_folder_is_locked_while_in_use(tmp_path):
    with RunLock(tmp_path):
        with pytest.raises(RunFolderBusy, match=f"in use by another run \\(pid {os.getpid()}"):
            RunLock(tmp_path).acquire()
        with pytest.raises(RunFolderBusy, match="in use"):   # train() refuses before writing
            train(GAME, config_path=ppo_config(GAME), timesteps=64, out=tmp_path, **SMALL)
        assert not (tmp_path / "config.yaml").exists()
    with RunLock(tmp_path) as lock:   # released: free again
        assert lock.took_over is None


def test_a_stale_lock_of_a_dead_process_is_taken_over(tmp_path):
    pid = _dead_pid()
    (tmp_path / ".lock").write_text(f"{pid}@{os.uname().nodename}")
    with RunLock(tmp_path) as lock:
        assert lock.took_over == pid
        assert (tmp_path / ".lock").read_text().startswith(f"{os.getpid()}@")


def test_truncate_progress_drops_rows_past_the_checkpoint(tmp_path):
    path = tmp_path / "progress.csv"
    path.write_text("timesteps,win_rate\n64,0.5\n128,0.5\n192,0.4\n256,0.6\n300\n")
    assert truncate_progress(path, 128) == 3
    assert _timesteps(path) == [64, 128]
    assert truncate_progress(tmp_path / "missing.csv", 10) == 0


def test_resume_truncates_progress_to_the_checkpoint(tmp_path):
    train(GAME, config_path=ppo_config(GAME), timesteps=96, seed=1, out=tmp_path, **SMALL)
    done = read_metadata(tmp_path / "checkpoint.zip")["timesteps"]
    with open(tmp_path / "progress.csv", "a") as fh:   # rows of training lost after the checkpoint
        fh.write(f"{done + 1000},0,0,0,0\n")
    train(GAME, timesteps=done + 64, out=tmp_path, resume=True)
    steps = _timesteps(tmp_path / "progress.csv")
    assert steps == sorted(steps) and max(steps) <= read_metadata(tmp_path / "checkpoint.zip")["timesteps"]


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["SIGINT", "SIGTERM"])
def test_a_signal_saves_a_checkpoint_and_exits_cleanly(tmp_path, sig, code):
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "tabletop_arena.app.cli", "train", GAME, "--timesteps", "100000000",
           "--out", str(out), "--no-progress", "--seed", "3",
           "--config", str(ppo_config(GAME))]   # PPO (Gorgasali's default is not)
    for key, value in SMALL.items():
        if key != "progress":
            cmd += ["--set", f"{key}={value}".replace("'", '"')]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while not ((out / "progress.csv").exists() and len(_timesteps(out / "progress.csv")) >= 1):
            assert proc.poll() is None, proc.communicate()
            assert time.time() < deadline, "training did not start"
            time.sleep(0.2)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, stderr
    lines = stderr.strip().splitlines()   # the notice at once, then what was saved
    assert len(lines) == 2 and lines[0].startswith(f"arena train: stopping ({sig.name})"), stderr
    assert f"stopped by {sig.name}" in lines[1] and "--resume" in lines[1], stderr
    meta = read_metadata(out / "checkpoint.zip")   # no row of the curve past the checkpoint
    assert all(t <= meta["timesteps"] for t in _timesteps(out / "progress.csv"))
    assert (out / ".lock").read_text() == ""   # released
