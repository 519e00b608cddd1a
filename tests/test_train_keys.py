"""Every training-config key earns its place (issue 44: 33 of 70 keys never differed from their
default in any committed config): a key of ``TrainConfig`` is set by a committed config under
configs/train/, or it is a user knob listed here with what it is for and the test that exercises
it. A new key that neither ships in a config nor has a test fails here."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from tabletop_arena.envs.core.yamlio import load as yaml_load
from tabletop_arena.train.config import CONFIG_DIR, TrainConfig

ROOT = Path(__file__).resolve().parents[1]

#: keys no committed config sets: what a user sets them for, and the test file that sets them
USER_KNOBS = {
    "scale_with_run": ("false keeps a short --timesteps run's warm start at the file's size", "test_run_size.py"),
    "update_threads": ("torch threads during the PPO update on a machine with idle cores", "test_training_pipeline.py"),
    "pointer_actions": ("a pointer head over the board for a game's board-shaped actions", "test_training.py"),
    "share_features": ("false gives the value head its own features extractor", "test_training_pipeline.py"),
    "snapshot_sampling": ("false: past snapshots play their argmax move instead of sampling",
                          "test_training_pipeline.py"),
    "init_policy": ("start PPO from a checkpoint's weights instead of cloning (fine-tuning)", "test_checkpoint_safety.py"),
    "rllib": ("the Ray RLlib section: env runners, learners, self-play share (docs/rllib.md)", "test_rllib.py"),
}


def _committed_keys() -> set[str]:
    keys: set[str] = set()
    for path in Path(CONFIG_DIR).glob("*.yaml"):
        data = yaml_load(path.read_text(encoding="utf-8")) or {}
        if data.get("algorithm", "ppo") in ("ppo", "rllib_ppo"):   # another trainer's keys are its own
            keys |= set(data)
    return keys


def test_every_training_key_ships_in_a_config_or_is_a_tested_knob():
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    unused = fields - _committed_keys()
    assert unused == set(USER_KNOBS), (f"keys no committed config sets and USER_KNOBS does not list: "
                                       f"{sorted(unused - set(USER_KNOBS))}; listed but now shipped or gone: "
                                       f"{sorted(set(USER_KNOBS) - unused)}")
    for key, (_why, test_file) in USER_KNOBS.items():
        text = (ROOT / "tests" / test_file).read_text(encoding="utf-8")
        assert re.search(rf"\b{key}\b", text), f"{key}: {test_file} does not exercise it"
