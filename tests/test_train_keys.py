"""Every training-config key earns its place (issue 44: 33 of 70 keys never differed from their
default in any committed config): a key of ``TrainConfig`` is set by a committed config under
configs/train/, or it is a user knob listed here with what it is for and the test that exercises
it. A new key that neither ships in a config nor has a test fails here."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tabletop_arena.envs.core.yamlio import load as yaml_load
from tabletop_arena.train.config import CONFIG_DIR, ConfigError, TrainConfig

ROOT = Path(__file__).resolve().parents[1]

#: keys no committed config sets: what a user sets them for, and the test file that sets them
USER_KNOBS = {
    "scale_with_run": ("false keeps a short --timesteps run's warm start at the file's size", "test_run_size.py"),
    "update_threads": ("torch threads during the PPO update on a machine with idle cores", "test_training_pipeline.py"),
    "pointer_actions": ("a pointer head over the board for a game's board-shaped actions", "test_training.py"),
    "share_features": ("false gives the value head its own features extractor", "test_training_pipeline.py"),
    "snapshot_sampling": ("false: past snapshots play their argmax move instead of sampling",
                          "test_training_pipeline.py"),
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


# ---- one config-checking mechanism (issue 44): every trainer's keys are Option rows -------------
TRAINERS = {"ppo": ("tabletop_arena.train.config", "TrainConfig"),
            "value_lookahead": ("tabletop_arena.train.value_lookahead", "ValueLookaheadConfig"),
            "search_distill": ("tabletop_arena.train.search_distill", "SearchDistillConfig")}


def _trainer(name):
    import importlib
    module_name, cls = TRAINERS[name]
    module = importlib.import_module(module_name)
    return module, getattr(module, cls)


@pytest.mark.parametrize("name", sorted(TRAINERS))
def test_every_trainer_key_is_an_option_row_with_a_doc(name):
    from tabletop_arena.envs.core.options import Option
    module, cls = _trainer(name)
    schema = module.SCHEMA
    assert all(isinstance(row, Option) and row.doc.strip() for row in schema), \
        [getattr(row, "name", row) for row in schema if not (isinstance(row, Option) and row.doc.strip())]
    fields = {f.name: f for f in dataclasses.fields(cls)}
    assert [row.name for row in schema] == list(fields)
    defaults = cls()
    for row in schema:   # the dataclass the trainer reads and the rows agree on every default
        assert getattr(defaults, row.name) == row.default, row.name
        numeric = row.kinds() in ((int,), (float,))
        assert not numeric or row.low is not None, f"{row.name}: a number without a lower bound"


def _malformed(default, key):
    """Values of another type than ``default``'s, and numbers out of every trainer's range."""
    if isinstance(default, bool):
        return ["yes", 1]
    if isinstance(default, (int, float)):
        return ["x", True, -2, float("nan"), [1]]
    if isinstance(default, str):
        return [3, ["a"]]
    if isinstance(default, (dict, list)):
        return [3, "x"]
    raise AssertionError(key)


def _cases(cls):
    fields = {f.name: f for f in dataclasses.fields(cls)}
    defaults = cls()
    cases = []
    for key in fields:
        cases += [({key: value}, key) for value in _malformed(getattr(defaults, key), key)]
        cases.append(({key + "x": 1}, key + "x"))          # an unknown key
    return cases


CHOICES = {"ppo": {"vec_env": "ray", "network": "resnet", "device": "tpu"},
           "value_lookahead": {"algorithm": "ppo"}, "search_distill": {"algorithm": "ppo", "device": "tpu"}}


@pytest.mark.parametrize("name", sorted(TRAINERS))
def test_a_malformed_config_is_one_config_error_line_naming_the_key(name):
    module, cls = _trainer(name)
    base = {"algorithm": name}
    cases = _cases(cls) + [({key: value}, key) for key, value in CHOICES[name].items()]
    missed = []
    for change, key in cases:
        try:
            module.from_dict({**base, **change}, "my.yaml")
        except ConfigError as exc:
            text = str(exc)
            if "\n" in text or key not in text or not text.startswith("my.yaml: "):
                missed.append(f"{change!r}: {text!r}")
        else:
            missed.append(f"{change!r}: accepted")
    assert not missed, missed
