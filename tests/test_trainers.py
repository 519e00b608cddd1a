"""``arena train`` chooses its trainer one way: the config's ``algorithm`` key (the file's, or
``--set algorithm=NAME``), and a resumed run keeps the trainer of its folder (train/trainers.py).
The trainer functions are replaced by recorders here: nothing trains."""
from __future__ import annotations

import importlib
import json
import zipfile
from pathlib import Path

import pytest
import yaml

from tabletop_arena.agents.ppo import FORMAT, META_NAME, WEIGHTS_NAME
from tabletop_arena.app import commands
from tabletop_arena.app.cli import main
from tabletop_arena.train import trainers
from tabletop_arena.train.config import CONFIG_DIR, TrainConfig, load_config


@pytest.fixture
def calls(monkeypatch) -> list:
    """(trainer name, args, kwargs) of each trainer function called; each returns a fake path."""
    got: list = []
    for name, t in trainers.TRAINERS.items():
        module, _, function = t.entry.partition(":")
        mod = importlib.import_module(f"tabletop_arena.train.{module}")
        assert callable(getattr(mod, function)), t.entry

        def record(*args, _name=name, **kwargs):
            got.append((_name, args, kwargs))
            return Path("fake")
        monkeypatch.setattr(mod, function, record)
    return got


def test_every_trainer_has_a_runner_and_reads_only_known_flags():
    assert set(commands.RUNNERS) == set(trainers.TRAINERS)
    for t in trainers.TRAINERS.values():
        assert set(t.flags) <= set(trainers.OPTIONAL_FLAGS), t.name
    assert set(trainers.SECTIONS.values()) <= set(trainers.TRAINERS)   # a section's one reader is a trainer


def _ppo_config_saying(tmp_path: Path, algorithm: str) -> Path:
    path = tmp_path / f"{algorithm}.yaml"
    path.write_text(yaml.safe_dump({"extends": str(CONFIG_DIR / "zaka.yaml"), "algorithm": algorithm}))
    return path


@pytest.mark.parametrize("argv,name", [
    (["zaka"], "ppo"),                                                   # no algorithm key: ppo
    (["zaka", "--set", "algorithm=ppo"], "ppo"),
    (["zaka", "--set", "algorithm=rllib_ppo", "--set", "rllib.num_env_runners=2"], "rllib_ppo"),
    (["zaka", "--config", "{rllib_ppo}"], "rllib_ppo"),                  # the file's algorithm
    (["zaka", "--config", "{rllib_ppo}", "--set", "algorithm=ppo"], "ppo"),   # same keys, other backend
    (["gorgasali"], "value_lookahead"),                                  # configs/train/gorgasali.yaml
    (["gorgasali", "--config", str(CONFIG_DIR / "gorgasali_ppo.yaml")], "ppo"),
    (["zaka", "--config", str(CONFIG_DIR / "zaka_distill.yaml")], "search_distill"),
], ids=["default", "set-ppo", "set-rllib", "file-rllib", "file-rllib-set-ppo", "vlook", "gorgasali-ppo",
        "distill"])
def test_each_algorithm_dispatches_to_its_trainer(argv, name, calls, tmp_path, capsys):
    argv = [a.replace("{rllib_ppo}", str(_ppo_config_saying(tmp_path, "rllib_ppo"))) for a in argv]
    assert main(["train", *argv, "--out", str(tmp_path / "run"), "--no-progress"]) == 0, capsys.readouterr().err
    assert [c[0] for c in calls] == [name]
    _, args, kwargs = calls[0]
    if name == "rllib_ppo" and "rllib.num_env_runners=2" in argv:   # Ray's settings: the config's rllib section
        assert kwargs["rllib"] == {"num_env_runners": 2}
    if name in ("value_lookahead", "search_distill"):
        assert args[1].get("algorithm") == name and args[3] == str(tmp_path / "run")   # its config's keys
    else:
        assert "algorithm" not in kwargs   # not a TrainConfig key: the trainer is already chosen


def test_a_ppo_config_may_name_its_backend():
    """``algorithm: rllib_ppo`` (or ppo) in a PPO config is read, not an unknown key."""
    for algorithm in ("ppo", "rllib_ppo"):
        cfg = load_config(CONFIG_DIR / "zaka.yaml", {"algorithm": algorithm})
        assert isinstance(cfg, TrainConfig) and "algorithm" not in cfg.to_dict()


def _checkpoint(out: Path, **meta) -> None:
    out.mkdir(parents=True)
    with zipfile.ZipFile(out / "checkpoint.zip", "w") as zf:
        zf.writestr(META_NAME, json.dumps({"format": FORMAT, **meta}))
        zf.writestr(WEIGHTS_NAME, b"")


@pytest.mark.parametrize("kind,name", [("ppo", "ppo"), ("distill", "search_distill"), ("rllib", "rllib_ppo")])
def test_resume_keeps_the_trainer_of_the_run_folder(kind, name, calls, tmp_path, capsys):
    out = tmp_path / "run"
    if kind == "ppo":
        _checkpoint(out, game="zaka_v0")
    elif kind == "distill":
        _checkpoint(out, game="zaka_v0", algorithm="search_distill")
    else:
        (out / "algorithm").mkdir(parents=True)
        (out / "rllib_state.json").write_text('{"timesteps": 64, "iterations": 1}')
    assert trainers.run_algorithm(out) == name
    flags = ["--trust-checkpoint"] if name == "rllib_ppo" else []
    assert main(["train", "zaka", "--out", str(out), "--resume", "--no-progress", *flags]) == 0, \
        capsys.readouterr().err
    assert [c[0] for c in calls] == [name] and calls[0][2]["resume"] is True
    # the same trainer named again is fine; another is refused before anything runs
    assert main(["train", "zaka", "--out", str(out), "--resume", "--no-progress", "--set", f"algorithm={name}",
                 *flags]) == 0
    other = "rllib_ppo" if name == "ppo" else "ppo"
    assert main(["train", "zaka", "--out", str(out), "--resume", "--no-progress", "--set",
                 f"algorithm={other}"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"--set algorithm={other}: {out} holds an algorithm {name} run" in err and len(err.splitlines()) == 1
    assert len(calls) == 2


@pytest.mark.parametrize("argv,needle", [
    (["gorgasali", "--set", "algorithm=ppo"], "pass --config configs/train/gorgasali_ppo.yaml"),
    (["zaka", "--set", "algorithm=search_distill"], "is a PPO config"),
    (["zaka", "--config", str(CONFIG_DIR / "zaka_distill.yaml"), "--set", "algorithm=rllib_ppo"],
     "not a PPO one"),
    (["zaka", "--set", "rllib.num_learners=1"],
     "--set rllib.num_learners: the rllib section is read by algorithm rllib_ppo only (configs/train/zaka.yaml"),
    (["gorgasali", "--set", "rllib={address: auto}"],
     "--set rllib.address: the rllib section is read by algorithm rllib_ppo only"),
    (["zaka", "--set", "algorithm=rllib_ppo", "--set", "rllib.num_env_runner=2"], "did you mean 'num_env_runners'"),
    (["zaka", "--set", "algorithm=rllib_ppo", "--set", "rllib.num_learners=-1"],
     "--set rllib: num_learners must be an int in 0.."),
    (["zaka", "--num-learners", "1"], "unrecognized arguments: --num-learners"),   # no flag beside the key
    (["gorgasali", "--trust-checkpoint"], "--trust-checkpoint: not read by algorithm value_lookahead"),
    (["zaka", "--set", "algorithm=sb3"], "algorithm 'sb3' is not a trainer"),
])
def test_a_trainer_the_config_cannot_run_is_one_line(argv, needle, calls, tmp_path, capsys):
    assert main(["train", *argv, "--out", str(tmp_path / "run"), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err
    assert calls == [] and not (tmp_path / "run").exists()
